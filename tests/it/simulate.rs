//! `simulate` and `check --spof`: the edited snapshot's answers are checked against independent
//! runs of the engines on snapshots edited by hand, and against the before-election's ranks.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::util::{json, run, HOMELAB, TRAP};

const FIX: &str = "testdata/simulate/l2-workers.yaml";
const EXCLUDE: &str = "node.kubernetes.io/exclude-from-external-load-balancers";

type Announcers = BTreeMap<(String, String), Option<String>>;

/// Who answers for each Service by a Report: the election's winner when it runs a live speaker.
fn announcers(report: &Value) -> Announcers {
    let mut out = BTreeMap::new();
    for s in report["services"].as_array().unwrap() {
        let l2 = &s["metallb"]["layer2"];
        if l2.is_null() {
            continue;
        }
        let winner = l2["expectedAnnouncer"].as_str().filter(|w| {
            let row = l2["nodes"].as_array().unwrap().iter().find(|n| n["node"] == *w).unwrap();
            row["speaker"] != false
        });
        out.insert(
            (s["namespace"].as_str().unwrap().to_string(), s["name"].as_str().unwrap().to_string()),
            winner.map(str::to_string),
        );
    }
    out
}

/// `before` with the simulation's layer-2 changes applied.
fn after_of(before: &Announcers, sim: &Value) -> Announcers {
    let mut after = before.clone();
    for c in sim["changes"].as_array().unwrap().iter().filter(|c| c["protocol"] == "layer2") {
        let key = (c["namespace"].as_str().unwrap().to_string(), c["name"].as_str().unwrap().to_string());
        assert_eq!(before[&key].as_deref(), c["before"].as_str(), "{c}");
        after.insert(key, c["after"].as_str().map(str::to_string));
    }
    after
}

fn explain_all(path: &str, extra: &[&str]) -> Value {
    json(&[&["explain", "svc", "-A", "--nodes", "all", "--from", path, "-o", "json"], extra].concat()).0
}

/// The homelab snapshot with a label added to one Node's metadata, by text.
fn with_label(node: &str, label: &str) -> tempfile::NamedTempFile {
    let text = std::fs::read_to_string(HOMELAB).unwrap();
    let docs: Vec<String> = text
        .split("\n---\n")
        .map(|d| {
            if d.contains("\nkind: Node\n") && d.contains(&format!("\n  name: {node}\n")) {
                d.replacen("\n  labels:\n", &format!("\n  labels:\n    {label}\n"), 1)
            } else {
                d.to_string()
            }
        })
        .collect();
    let file = tempfile::Builder::new().suffix(".yaml").tempfile().unwrap();
    std::fs::write(file.path(), docs.join("\n---\n")).unwrap();
    file
}

#[test]
fn a_label_moves_exactly_what_the_relabelled_snapshot_elects() {
    let before = announcers(&explain_all(HOMELAB, &[]));
    let edited = with_label("worker-a", &format!("{EXCLUDE}: \"\""));
    let expected = announcers(&explain_all(edited.path().to_str().unwrap(), &[]));
    assert_ne!(before, expected, "the label must change something for this test to mean anything");

    let (sim, code) =
        json(&["simulate", "--from", HOMELAB, "--label", "worker-a", &format!("{EXCLUDE}="), "-o", "json"]);
    assert_eq!(after_of(&before, &sim), expected);
    assert_eq!(code, 0, "worker-b takes every IP over; LBD106 warnings do not fail at --fail-on error");
    for c in sim["changes"].as_array().unwrap() {
        assert_eq!(c["before"], "worker-a");
        assert_eq!(c["cause"], "excludeLabel", "{c}");
    }
    let moved = sim["changes"].as_array().unwrap().len();
    let worker_a = &sim["summary"]["nodes"].as_array().unwrap().iter().find(|n| n["node"] == "worker-a").unwrap();
    assert_eq!(worker_a["lost"], moved);
    assert_eq!(worker_a["to"], serde_json::json!([{"node": "worker-b", "ips": moved}]));
    assert_eq!(sim["summary"]["ipsUnannounced"], 0);
    assert!(sim["findings"].as_array().unwrap().iter().all(|f| f["code"] == "LBD106"));
}

#[test]
fn applying_the_fix_to_the_trap_gives_the_healthy_cluster_election() {
    let before = announcers(&explain_all(TRAP, &[]));
    assert!(before.values().all(Option::is_none), "the trap: nobody announces");
    let healthy = announcers(&explain_all(HOMELAB, &[]));
    let (sim, code) = json(&["simulate", "--from", TRAP, "--apply", FIX, "-o", "json"]);
    assert_eq!(code, 0);
    assert_eq!(after_of(&before, &sim), healthy);
    assert_eq!(sim["edits"][0]["object"], "L2Advertisement metallb-system/workers");
    let announced = healthy.iter().filter(|(_, v)| v.is_some()).count();
    assert!(sim["changes"].as_array().unwrap().iter().all(|c| c["cause"] == "notSelected"));
    assert_eq!(sim["summary"]["ipsAnnounced"].as_u64().unwrap() as usize, {
        // pihole-dns-tcp and -udp share an IP: one IP, two Services.
        let mut ips: Vec<&str> = sim["changes"].as_array().unwrap().iter().map(|c| c["ip"].as_str().unwrap()).collect();
        ips.dedup();
        ips.len()
    });
    assert!(announced > 0);
    assert!(sim["findings"].as_array().unwrap().is_empty());
    let cleared: Vec<&str> = sim["resolved"].as_array().unwrap().iter().map(|f| f["code"].as_str().unwrap()).collect();
    assert!(cleared.contains(&"LBD102") && cleared.contains(&"LBD101"));
}

/// Going down, a node hands each IP it wins to the next node of the same election order that
/// keeps a serving endpoint, or to nobody: read from the before-election's ranks alone.
#[test]
fn down_hands_each_ip_to_the_next_ranked_node_with_an_endpoint() {
    let report = explain_all(HOMELAB, &[]);
    let (sim, code) = json(&["simulate", "--from", HOMELAB, "--down", "worker-a", "-o", "json"]);
    let after = after_of(&announcers(&report), &sim);
    let mut lost_any = false;
    for s in report["services"].as_array().unwrap() {
        let l2 = &s["metallb"]["layer2"];
        let mut rows: Vec<&Value> = l2["nodes"].as_array().unwrap().iter().filter(|n| !n["rank"].is_null()).collect();
        rows.sort_by_key(|n| n["rank"].as_u64());
        let off_a = |n: &&&Value| n["node"] != "worker-a" && n["speaker"] == true;
        let endpoints_left: u64 = l2["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|n| n["node"] != "worker-a")
            .map(|n| n["endpoints"].as_u64().unwrap())
            .sum();
        let expected = if endpoints_left == 0 {
            None
        } else {
            rows.iter().find(off_a).map(|n| n["node"].as_str().unwrap().to_string())
        };
        let key = (s["namespace"].as_str().unwrap().to_string(), s["name"].as_str().unwrap().to_string());
        // pihole-dns-tcp has no endpoint before either: nobody, both times.
        assert_eq!(after[&key], expected, "{key:?}");
        lost_any |= expected.is_none() && announcers(&report)[&key].is_some();
    }
    assert!(lost_any, "the homelab's single-replica apps on worker-a go dark with it");
    assert_eq!(code, 1, "an IP left unannounced is a new LBD101 error");
    assert!(sim["findings"].as_array().unwrap().iter().any(|f| f["code"] == "LBD101"));
    assert!(sim["changes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["after"].is_null() && c["cause"] == "noServingEndpoint"));
}

/// Spec §7, T1: with memberlist disabled a stopped node still wins (its Node object stays), so
/// its IPs go dark; only deleting the Node object moves them.
#[test]
fn memberlist_disabled_gives_no_failover_until_the_node_object_goes() {
    let (down, code) =
        json(&["simulate", "--from", HOMELAB, "--memberlist", "disabled", "--speaker-down", "worker-a", "-o", "json"]);
    assert_eq!(code, 1);
    let changes = down["changes"].as_array().unwrap();
    assert!(!changes.is_empty());
    for c in changes {
        assert_eq!(c["before"], "worker-a");
        assert!(c["after"].is_null(), "{c}");
        assert_eq!(c["cause"], "noSpeaker");
    }
    let (deleted, _) =
        json(&["simulate", "--from", HOMELAB, "--memberlist", "disabled", "--delete", "worker-a", "-o", "json"]);
    let moved: Vec<&Value> = deleted["changes"].as_array().unwrap().iter().filter(|c| !c["after"].is_null()).collect();
    assert!(!moved.is_empty());
    assert!(moved.iter().all(|c| c["cause"] == "nodeDeleted"));
}

#[test]
fn spof_lists_what_simulate_down_loses() {
    let (check, _) = json(&["check", "--from", HOMELAB, "--spof", "-o", "json"]);
    let spof = check["spof"].as_array().unwrap();
    assert!(!spof.is_empty());
    let nodes: Vec<&str> = spof.iter().map(|n| n["node"].as_str().unwrap()).collect();
    for node in ["cp-1", "worker-a", "worker-b", "gpu-1", "gpu-2", "gpu-3"] {
        let (sim, _) = json(&["simulate", "--from", HOMELAB, "--down", node, "-o", "json"]);
        let mut lost: Vec<(String, String)> = sim["changes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["protocol"] == "layer2" && !c["before"].is_null() && c["after"].is_null())
            .map(|c| (c["name"].as_str().unwrap().to_string(), c["ip"].as_str().unwrap().to_string()))
            .collect();
        lost.sort();
        let entry = spof.iter().find(|n| n["node"] == node);
        let mut listed: Vec<(String, String)> = entry
            .map(|n| {
                n["losses"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| (c["name"].as_str().unwrap().to_string(), c["ip"].as_str().unwrap().to_string()))
                    .collect()
            })
            .unwrap_or_default();
        listed.sort();
        assert_eq!(listed, lost, "{node}");
        assert_eq!(nodes.contains(&node), !lost.is_empty());
    }
    let (plain, _) = json(&["check", "--from", HOMELAB, "-o", "json"]);
    assert!(plain.get("spof").is_none(), "without --spof the Report is unchanged");
}

#[test]
fn bad_edits_are_usage_errors_that_name_the_object() {
    let (_, err, code) = run(&["simulate", "--from", HOMELAB, "--down", "worker-z"]);
    assert_eq!(code, 2);
    assert!(err.contains("--down worker-z: no Node worker-z in the snapshot") && err.contains("worker-a"), "{err}");
    let (_, err, code) = run(&["simulate", "--from", HOMELAB]);
    assert_eq!(code, 2);
    assert!(err.contains("at least one edit"), "{err}");
    let (_, err, code) = run(&["simulate", "--from", HOMELAB, "--label", "worker-a", "novalue"]);
    assert_eq!(code, 2);
    assert!(err.contains("expected KEY=VALUE"), "{err}");
    let (_, err, code) = run(&["simulate", "--from", HOMELAB, "--unlabel", "worker-a", "no/such"]);
    assert_eq!(code, 2);
    assert!(err.contains("has no label no/such"), "{err}");
    let (_, err, code) = run(&["simulate", "--from", HOMELAB, "--apply", HOMELAB]);
    assert_eq!(code, 2);
    assert!(err.contains("SnapshotInfo"), "{err}");
    let (_, err, code) = run(&["simulate", "--from", HOMELAB, "--down", "worker-a", "-o", "junit"]);
    assert_eq!(code, 2);
    assert!(err.contains("JUnit and SARIF are for `check`"), "{err}");
}

#[test]
fn applying_an_unchanged_object_moves_nothing() {
    let (out, _, code) = run(&["simulate", "--from", HOMELAB, "--apply", FIX]);
    assert_eq!(code, 0);
    assert!(out.contains("Nothing moves"), "{out}");
    assert!(out.contains("replaced from testdata/simulate/l2-workers.yaml"), "{out}");
}

#[test]
fn the_summary_line_names_the_relabelled_node_and_where_its_ips_go() {
    let (out, _, _) = run(&["simulate", "--from", HOMELAB, "--label", "worker-a", &format!("{EXCLUDE}=")]);
    let (sim, _) = json(&["simulate", "--from", HOMELAB, "--label", "worker-a", &format!("{EXCLUDE}="), "-o", "json"]);
    let n = sim["summary"]["ipsMoved"].as_u64().unwrap();
    assert!(
        out.contains(&format!("relabelling worker-a moves {n} IPs to worker-b; 0 IPs lose their announcer")),
        "{out}"
    );
}

/// Cilium L2 has no computed winner: deleting the Lease holder leaves a race among the nodes
/// still eligible (explain lists them), not a named successor.
#[test]
fn deleting_the_cilium_lease_holder_leaves_a_race_among_the_eligible() {
    const SHARED: &str = "testdata/scenarios/cilium-l2-shared-ip.yaml";
    let report = explain_all(SHARED, &[]);
    let web = report["services"].as_array().unwrap().iter().find(|s| s["name"] == "web").unwrap();
    let l2 = &web["cilium"]["l2"];
    let holder = l2["announcer"].as_str().unwrap();
    let remaining: Vec<&str> =
        l2["eligible"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).filter(|n| *n != holder).collect();
    assert!(remaining.len() >= 2, "a race needs two runners");
    let (sim, _) = json(&["simulate", "--from", SHARED, "--delete", holder, "-o", "json"]);
    let c = sim["changes"].as_array().unwrap().iter().find(|c| c["name"] == "web").unwrap();
    assert_eq!(c["before"], holder);
    assert!(c["after"].is_null());
    assert_eq!(c["candidates"], serde_json::json!(remaining));
    assert_eq!(c["cause"], "nodeDeleted");
    assert_eq!(sim["summary"]["ipsUnannounced"], 0, "a race is not a loss");
}

/// Node IPAM ignores Ready (Cilium spec): a stopped node keeps its addresses in the ingress;
/// a deleted one takes them away.
#[test]
fn node_ipam_keeps_a_stopped_node_and_drops_a_deleted_one() {
    const IPAM: &str = "testdata/scenarios/cilium-nodeipam-dual-stack.yaml";
    let (down, _) = json(&["simulate", "--from", IPAM, "--down", "node-a", "-o", "json"]);
    assert!(down["changes"].as_array().unwrap().is_empty(), "{down}");
    let report = explain_all(IPAM, &[]);
    let web = report["services"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["namespace"] == "default" && s["name"] == "web")
        .unwrap();
    let ipam = &web["cilium"]["nodeipam"];
    let node_a: Vec<&Value> = ipam["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["node"] == "node-a")
        .flat_map(|n| n["addresses"].as_array().unwrap())
        .collect();
    let (deleted, _) = json(&["simulate", "--from", IPAM, "--delete", "node-a", "-o", "json"]);
    let c = deleted["changes"].as_array().unwrap().iter().find(|c| c["name"] == "web").unwrap();
    assert_eq!(c["protocol"], "nodeipam");
    assert_eq!(c["before"], ipam["expectedIngress"]);
    assert!(!node_a.is_empty());
    assert!(node_a.iter().all(|a| !c["after"].as_array().unwrap().contains(a)), "{c}");
    assert_eq!(c["cause"], "nodeDeleted");
}

/// `--down` models a failure (Pods stop, Ready Unknown), not a drain, which would reschedule the
/// Pods elsewhere: no word of the output, the help or the docs may call it draining.
#[test]
fn down_is_called_a_failure_never_a_drain() {
    let (out, _, code) = run(&["simulate", "--demo", "--down", "worker-a"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("worker-a going down moves 4 IPs to worker-b"), "{out}");
    let (help, _, _) = run(&["simulate", "--help"]);
    for text in [&out, &help, &std::fs::read_to_string("docs/simulate.md").unwrap()] {
        assert!(!text.to_lowercase().contains("drain") || text.contains("not a drain"), "{text}");
        assert!(!text.to_lowercase().contains("draining"), "{text}");
    }
}

/// `kubectl apply` refuses a field the server does not know, and a kind or apiVersion no server
/// serves: so does --apply (exit 2, the file, line and field path, the field meant), where it
/// once built a what-if that could never happen.
#[test]
fn apply_refuses_what_kubectl_apply_refuses() {
    let good = std::fs::read_to_string("testdata/simulate/l2-workers.yaml").unwrap();
    let d = tempfile::tempdir().unwrap();
    let cases = [
        ("typo.yaml", good.replace("nodeSelectors:", "nodeSelector:"), ":12: L2Advertisement metallb-system/workers: unknown field spec.nodeSelector (did you mean spec.nodeSelectors?)"),
        ("deep.yaml", good.replace("matchLabels:", "matchLabel:"), ":13: L2Advertisement metallb-system/workers: unknown field spec.nodeSelectors[0].matchLabel (did you mean spec.nodeSelectors[0].matchLabels?)"),
        ("case.yaml", good.replace("kind: L2Advertisement", "kind: l2advertisement"), "kind \"l2advertisement\" is not \"L2Advertisement\""),
        ("version.yaml", good.replace("metallb.io/v1beta1", "metallb.io/v1beta2"), "apiVersion \"metallb.io/v1beta2\" is not served for L2Advertisement"),
    ];
    for (name, text, expected) in cases {
        let path = d.path().join(name);
        std::fs::write(&path, text).unwrap();
        let (stdout, stderr, code) = run(&["simulate", "--demo", "trap", "--apply", path.to_str().unwrap()]);
        assert_eq!(code, 2, "{name}: {stdout}{stderr}");
        assert!(stdout.is_empty(), "{name}: {stdout}");
        assert!(
            stderr.contains(&format!("--apply {}", path.display())) && stderr.contains(expected),
            "{name}: {stderr}"
        );
    }
    // The same file as written, and a newer MetalLB's field lbdoctor models, are applied.
    let (_, stderr, code) = run(&["simulate", "--demo", "trap", "--apply", "testdata/simulate/l2-workers.yaml"]);
    assert_eq!(code, 0, "{stderr}");
    let preferred = d.path().join("preferred.yaml");
    std::fs::write(&preferred, format!("{good}  preferredNodeSelectors:\n  - weight: 10\n    preference:\n      matchLabels: {{kubernetes.io/hostname: worker-a}}\n")).unwrap();
    let (_, stderr, code) = run(&["simulate", "--demo", "trap", "--apply", preferred.to_str().unwrap()]);
    assert!(code == 0 || code == 1, "{stderr}");
}
