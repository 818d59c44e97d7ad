//! One small cluster per behaviour (testdata/scenarios): the verdict the spec predicts, through the binary.

use assert_cmd::Command;
use serde_json::Value;

fn run(file: &str, extra: &[&str]) -> (Value, i32) {
    let out = Command::cargo_bin("kubectl-lbdoctor")
        .unwrap()
        .args(["check", "-o", "json", "--from", &format!("testdata/scenarios/{file}")])
        .args(extra)
        .output()
        .unwrap();
    let report = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (report, out.status.code().unwrap())
}

fn codes(report: &Value) -> Vec<String> {
    let mut all: Vec<String> = report["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .chain(report["services"].as_array().into_iter().flatten().flat_map(|s| s["findings"].as_array().unwrap()))
        .map(|f| f["code"].as_str().unwrap().to_string())
        .collect();
    all.sort();
    all.dedup();
    all
}

fn web(report: &Value) -> &Value {
    report["services"].as_array().unwrap().iter().find(|s| s["name"] == "web").unwrap()
}

fn node<'a>(svc: &'a Value, name: &str) -> &'a Value {
    svc["metallb"]["layer2"]["nodes"].as_array().unwrap().iter().find(|n| n["node"] == name).unwrap()
}

#[test]
fn every_scenario_gives_the_predicted_findings_and_exit_code() {
    let table: &[(&str, &[&str], i32)] = &[
        ("etp-local-no-candidate-endpoint.yaml", &["LBD101", "LBD103"], 1),
        ("ip-not-in-pool.yaml", &["LBD111"], 0),
        ("lb-class-other.yaml", &[], 0),
        ("memberlist-disabled-dead-winner.yaml", &["LBD101"], 1),
        ("network-unavailable.yaml", &["LBD105", "LBD106"], 0),
        ("no-serving-endpoints.yaml", &["LBD101", "LBD104"], 1),
        ("objects-outside-namespace.yaml", &["LBD205"], 0),
        ("overlapping-pools.yaml", &["LBD201"], 1),
        ("pool-selector-matches-nothing.yaml", &["LBD101", "LBD202", "LBD204"], 1),
        ("preferred-node.yaml", &["LBD107"], 0),
        ("single-candidate.yaml", &["LBD106"], 0),
        ("speaker-not-ready.yaml", &[], 0),
        ("stale-lb-ingress-clusterip.yaml", &[], 0),
    ];
    for (file, want, exit) in table {
        let (report, code) = run(file, &[]);
        assert_eq!(codes(&report), *want, "{file}");
        assert_eq!(code, *exit, "{file}");
    }
}

#[test]
fn memberlist_disabled_winner_without_speaker_blackholes_the_ip() {
    let (r, _) = run("memberlist-disabled-dead-winner.yaml", &[]);
    let svc = web(&r);
    assert_eq!(svc["metallb"]["layer2"]["expectedAnnouncer"], "node-c");
    let c = node(svc, "node-c");
    assert_eq!((c["rank"].as_u64(), c["speaker"].as_bool(), &c["reason"]), (Some(1), Some(false), &Value::Null));
    assert_eq!(node(svc, "node-a")["excludedBy"], serde_json::json!(["lostElection"]));
}

#[test]
fn etp_local_keeps_only_candidates_with_endpoints() {
    let (r, _) = run("etp-local-no-candidate-endpoint.yaml", &[]);
    let svc = web(&r);
    assert_eq!(svc["metallb"]["layer2"]["emptiedBy"], "noLocalEndpoint");
    assert_eq!(node(svc, "node-a")["reason"], "notOwner");
    assert_eq!(node(svc, "node-a")["excludedBy"], serde_json::json!(["noLocalEndpoint"]));
    assert_eq!(node(svc, "node-c")["reason"], "noMatchingAdvertisement");
}

#[test]
fn no_serving_endpoint_means_no_election_at_all() {
    let (r, _) = run("no-serving-endpoints.yaml", &[]);
    let svc = web(&r);
    assert_eq!(svc["metallb"]["layer2"]["emptiedBy"], "noServingEndpoint");
    for n in svc["metallb"]["layer2"]["nodes"].as_array().unwrap() {
        assert_eq!(n["reason"], "notOwner");
        assert_eq!(n["rank"], Value::Null);
        assert_eq!(n["excludedBy"][0], "noServingEndpoint");
    }
}

#[test]
fn withdraw_reasons_and_ownership() {
    let (r, _) = run("ip-not-in-pool.yaml", &[]);
    assert_eq!(web(&r)["metallb"]["withdrawReason"], "ipNotAllowed");
    assert_eq!(web(&r)["metallb"]["layer2"], Value::Null);
    let (r, _) = run("stale-lb-ingress-clusterip.yaml", &[]);
    let stale = &r["services"][0];
    assert_eq!(stale["type"], "ClusterIP");
    assert_eq!(stale["metallb"]["withdrawReason"], "notLoadBalancer");
    let (r, _) = run("lb-class-other.yaml", &[]);
    assert_eq!(web(&r)["implementation"], "unknown");
    assert_eq!(web(&r)["metallb"], Value::Null);
}

#[test]
fn rejected_configuration_is_unknown_not_guessed() {
    let (r, _) = run("overlapping-pools.yaml", &[]);
    let f = &r["findings"][0];
    assert_eq!(
        f["message"],
        r#"MetalLB rejects the whole configuration: CIDR "198.51.100.8/29" in pool "pool-b" overlaps with already defined CIDR "198.51.100.0/28""#
    );
    assert_eq!(
        f["objects"],
        serde_json::json!(["IPAddressPool metallb-system/pool-b", "IPAddressPool metallb-system/pool-a"])
    );
    assert!(web(&r)["metallb"]["unknownBecause"].as_str().unwrap().contains("LBD201"));
    assert_eq!(web(&r)["metallb"]["layer2"], Value::Null);
}

#[test]
fn network_unavailable_and_not_ready_speakers_drop_out() {
    let (r, _) = run("network-unavailable.yaml", &[]);
    let svc = web(&r);
    assert_eq!(svc["metallb"]["layer2"]["expectedAnnouncer"], "node-b");
    assert_eq!(node(svc, "node-a")["excludedBy"], serde_json::json!(["networkUnavailable"]));
    assert_eq!(svc["metallb"]["layer2"]["actualAnnouncers"], serde_json::json!(["node-a"]));
    let (r, _) = run("speaker-not-ready.yaml", &[]);
    let svc = web(&r);
    assert_eq!(svc["metallb"]["layer2"]["expectedAnnouncer"], "node-b");
    assert_eq!(node(svc, "node-a")["excludedBy"], serde_json::json!(["noSpeaker"]));
    assert_eq!(node(svc, "node-a")["reason"], Value::Null);
}

#[test]
fn preferred_nodes_switch_behaviour_and_both_answers_are_shown() {
    let (r, _) = run("preferred-node.yaml", &[]);
    assert_eq!(r["source"]["metallb"]["behaviour"], "main");
    assert_eq!(web(&r)["metallb"]["layer2"]["expectedAnnouncer"], "node-c");
    assert_eq!(node(web(&r), "node-c")["score"], 100);
    let (r, _) = run("preferred-node.yaml", &["--metallb-version", "v0.16.1"]);
    assert_eq!(r["source"]["metallb"]["behaviour"], "v0.16.1");
    assert_eq!(web(&r)["metallb"]["layer2"]["expectedAnnouncer"], "node-a");
    let lbd107 = &web(&r)["findings"][0];
    assert_eq!(lbd107["code"], "LBD107");
    assert!(lbd107["message"].as_str().unwrap().contains("main rules would elect node-c"));
}

#[test]
fn fail_on_warning_and_ignore() {
    assert_eq!(run("single-candidate.yaml", &["--fail-on", "warning"]).1, 1);
    assert_eq!(run("single-candidate.yaml", &["--fail-on", "warning", "--ignore", "LBD106"]).1, 0);
    assert_eq!(run("objects-outside-namespace.yaml", &["--fail-on", "warning"]).1, 1);
}

#[test]
fn unreadable_nodes_exit_3() {
    assert_eq!(run("unreadable-nodes.yaml", &[]).1, 3);
}

#[test]
fn bad_inputs_exit_2_naming_file_position_and_object() {
    let cases = [
        ("malformed.yaml", "malformed.yaml:7:"),
        ("duplicate.yaml", "Service default/web is defined twice"),
        ("not-an-object.yaml", "not-an-object.yaml:10:1: not a Kubernetes object"),
        ("bad-field.json", "bad-field.json:6:"),
        ("two-snapshotinfo.yaml", "SnapshotInfo is defined twice"),
    ];
    for (file, needle) in cases {
        let out = Command::cargo_bin("kubectl-lbdoctor")
            .unwrap()
            .args(["check", "--from", &format!("testdata/bad/{file}")])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{file}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{file}: {err}");
        assert!(!err.contains("panicked"), "{file}: {err}");
    }
}
