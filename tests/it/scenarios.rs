//! One small cluster per behaviour (testdata/scenarios): the verdict the spec predicts, through the binary.

use serde_json::Value;

use crate::util::{json, lbdoctor, output, run, service};

/// `check -o json --nodes all` on testdata/scenarios/FILE: the report with every per-node row
/// (null when there is none, as on exit 3) and the exit code.
fn scenario(file: &str, extra: &[&str]) -> (Value, i32) {
    let (stdout, _, code) = output(
        lbdoctor()
            .args(["check", "-o", "json", "--nodes", "all", "--from", &format!("testdata/scenarios/{file}")])
            .args(extra),
    );
    (serde_json::from_str(&stdout).unwrap_or(Value::Null), code)
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

/// The Service called `name`, in whichever namespace.
fn named<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["services"].as_array().unwrap().iter().find(|s| s["name"] == name).unwrap()
}

fn web(report: &Value) -> &Value {
    named(report, "web")
}

fn node<'a>(svc: &'a Value, name: &str) -> &'a Value {
    svc["metallb"]["layer2"]["nodes"].as_array().unwrap().iter().find(|n| n["node"] == name).unwrap()
}

#[test]
fn every_scenario_gives_the_predicted_findings_and_exit_code() {
    let table: &[(&str, &[&str], i32)] = &[
        ("etp-local-no-candidate-endpoint.yaml", &["LBD101", "LBD103"], 1),
        ("alloc-dual-stack.yaml", &["LBD110", "LBD114", "LBD115"], 1),
        ("alloc-mismatch.yaml", &["LBD112", "LBD113", "LBD207"], 0),
        ("alloc-namespace-pools.yaml", &["LBD110", "LBD115"], 1),
        ("alloc-pool-exhausted.yaml", &["LBD110", "LBD206", "LBD208"], 1),
        ("alloc-sharing-conflict.yaml", &["LBD110"], 1),
        ("bgp-frr-k8s-drift.yaml", &["LBD132", "LBD215"], 0),
        ("bgp-native-ipv6.yaml", &["LBD201"], 1),
        ("bgp-nobody-advertises.yaml", &["LBD130", "LBD131", "LBD210", "LBD211", "LBD212", "LBD213", "LBD214"], 1),
        ("bgp-two-routers.yaml", &[], 0),
        ("cilium-l2-findings.yaml", &["LBD140", "LBD142", "LBD143", "LBD146"], 1),
        ("cilium-l2-holder-agent-lost.yaml", &["LBD141"], 1),
        ("cilium-l2-renew-overdue.yaml", &["LBD147"], 0),
        ("cilium-l2-shared-ip.yaml", &["LBD148"], 0),
        ("cilium-lbipam-pending.yaml", &["LBD125", "LBD220", "LBD221"], 1),
        ("cilium-lbipam-restart.yaml", &["LBD125", "LBD128"], 1),
        ("cilium-nodeipam-dual-stack.yaml", &["LBD122", "LBD124"], 1),
        ("cilium-nodeipam-external-some-nodes.yaml", &["LBD121"], 0),
        ("ip-not-in-pool.yaml", &["LBD111", "LBD112", "LBD113"], 0),
        ("k3s-servicelb-and-cilium-nodeipam.yaml", &["LBD120", "LBD121"], 0),
        ("l2-advertisement-selects-no-node.yaml", &["LBD101", "LBD203"], 1),
        ("lb-class-other.yaml", &["LBD120"], 0),
        ("legacy-address-pool.yaml", &["LBD209"], 0),
        ("memberlist-disabled-dead-winner.yaml", &["LBD101"], 1),
        ("metallb-and-cilium-l2.yaml", &["LBD145"], 0),
        ("metallb-and-cilium-lbipam.yaml", &["LBD120", "LBD126", "LBD127"], 0),
        ("network-unavailable.yaml", &["LBD105", "LBD106"], 0),
        ("no-serving-endpoints.yaml", &["LBD101", "LBD104"], 1),
        ("objects-outside-namespace.yaml", &["LBD205"], 0),
        ("overlapping-pools.yaml", &["LBD201"], 1),
        ("pool-selector-matches-nothing.yaml", &["LBD101", "LBD202", "LBD204"], 1),
        ("preferred-node.yaml", &["LBD107"], 0),
        ("release-mixed-speakers.yaml", &["LBD216"], 0),
        ("release-v0-14-9-cordoned.yaml", &["LBD106", "LBD107"], 0),
        ("single-candidate.yaml", &["LBD106"], 0),
        ("speaker-not-ready.yaml", &[], 0),
        ("stale-lb-ingress-clusterip.yaml", &["LBD112"], 0),
    ];
    for (file, want, exit) in table {
        let (report, code) = scenario(file, &[]);
        assert_eq!(codes(&report), *want, "{file}");
        assert_eq!(code, *exit, "{file}");
    }
}

#[test]
fn memberlist_disabled_winner_without_speaker_blackholes_the_ip() {
    let (r, _) = scenario("memberlist-disabled-dead-winner.yaml", &[]);
    let svc = web(&r);
    assert_eq!(svc["metallb"]["layer2"]["expectedAnnouncer"], "node-c");
    let c = node(svc, "node-c");
    assert_eq!((c["rank"].as_u64(), c["speaker"].as_bool(), &c["reason"]), (Some(1), Some(false), &Value::Null));
    assert_eq!(node(svc, "node-a")["excludedBy"], serde_json::json!(["lostElection"]));
}

#[test]
fn etp_local_keeps_only_candidates_with_endpoints() {
    let (r, _) = scenario("etp-local-no-candidate-endpoint.yaml", &[]);
    let svc = web(&r);
    assert_eq!(svc["metallb"]["layer2"]["emptiedBy"], "noLocalEndpoint");
    assert_eq!(node(svc, "node-a")["reason"], "notOwner");
    assert_eq!(node(svc, "node-a")["excludedBy"], serde_json::json!(["noLocalEndpoint"]));
    assert_eq!(node(svc, "node-c")["reason"], "noMatchingAdvertisement");
}

#[test]
fn no_serving_endpoint_means_no_election_at_all() {
    let (r, _) = scenario("no-serving-endpoints.yaml", &[]);
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
    let (r, _) = scenario("ip-not-in-pool.yaml", &[]);
    assert_eq!(web(&r)["metallb"]["withdrawReason"], "ipNotAllowed");
    assert_eq!(web(&r)["metallb"]["layer2"], Value::Null);
    let (r, _) = scenario("stale-lb-ingress-clusterip.yaml", &[]);
    let stale = &r["services"][0];
    assert_eq!(stale["type"], "ClusterIP");
    assert_eq!(stale["metallb"]["withdrawReason"], "notLoadBalancer");
    // The controller clears the stale status and assigns nothing (controller spec §2).
    assert_eq!(stale["allocation"]["status"], "mismatch");
    assert_eq!(stale["allocation"]["reason"], "notLoadBalancer");
    assert_eq!(stale["allocation"]["expectedIPs"], serde_json::json!([]));
    assert_eq!(stale["findings"][0]["code"], "LBD112");
    let (r, _) = scenario("lb-class-other.yaml", &[]);
    assert_eq!(web(&r)["implementation"], "none");
    assert_eq!(web(&r)["ownership"]["claimants"], serde_json::json!([]));
    assert_eq!(web(&r)["metallb"], Value::Null);
    let lbd120 = &web(&r)["findings"][0];
    assert_eq!(lbd120["code"], "LBD120");
    assert!(lbd120["message"].as_str().unwrap().contains("example.com/other"), "{lbd120}");
}

#[test]
fn rejected_configuration_is_unknown_not_guessed() {
    let (r, _) = scenario("overlapping-pools.yaml", &[]);
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
    let (r, _) = scenario("network-unavailable.yaml", &[]);
    let svc = web(&r);
    assert_eq!(svc["metallb"]["layer2"]["expectedAnnouncer"], "node-b");
    assert_eq!(node(svc, "node-a")["excludedBy"], serde_json::json!(["networkUnavailable"]));
    assert_eq!(svc["metallb"]["layer2"]["actualAnnouncers"], serde_json::json!(["node-a"]));
    let (r, _) = scenario("speaker-not-ready.yaml", &[]);
    let svc = web(&r);
    assert_eq!(svc["metallb"]["layer2"]["expectedAnnouncer"], "node-b");
    assert_eq!(node(svc, "node-a")["excludedBy"], serde_json::json!(["noSpeaker"]));
    assert_eq!(node(svc, "node-a")["reason"], Value::Null);
}

#[test]
fn preferred_nodes_switch_behaviour_and_both_answers_are_shown() {
    let (r, _) = scenario("preferred-node.yaml", &[]);
    assert_eq!(r["source"]["metallb"]["behaviour"], "main");
    assert_eq!(web(&r)["metallb"]["layer2"]["expectedAnnouncer"], "node-c");
    assert_eq!(node(web(&r), "node-c")["score"], 100);
    let (r, _) = scenario("preferred-node.yaml", &["--metallb-version", "v0.16.1"]);
    assert_eq!(r["source"]["metallb"]["behaviour"], "v0.16.1");
    assert_eq!(web(&r)["metallb"]["layer2"]["expectedAnnouncer"], "node-a");
    let lbd107 = &web(&r)["findings"][0];
    assert_eq!(lbd107["code"], "LBD107");
    assert!(lbd107["message"].as_str().unwrap().contains("main rules would elect node-c"));
}

#[test]
fn fail_on_warning_and_ignore() {
    assert_eq!(scenario("single-candidate.yaml", &["--fail-on", "warning"]).1, 1);
    assert_eq!(scenario("single-candidate.yaml", &["--fail-on", "warning", "--ignore", "LBD106"]).1, 0);
    assert_eq!(scenario("objects-outside-namespace.yaml", &["--fail-on", "warning"]).1, 1);
}

#[test]
fn unreadable_nodes_exit_3() {
    assert_eq!(scenario("unreadable-nodes.yaml", &[]).1, 3);
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
        let (_, err, code) = run(&["check", "--from", &format!("testdata/bad/{file}")]);
        assert_eq!(code, 2, "{file}");
        assert!(err.contains(needle), "{file}: {err}");
        assert!(!err.contains("panicked"), "{file}: {err}");
    }
}

fn event(alloc: &Value) -> (String, String, String) {
    let e = &alloc["metallbEvent"];
    (e["type"].as_str().unwrap().into(), e["reason"].as_str().unwrap().into(), e["message"].as_str().unwrap().into())
}

#[test]
fn exhausted_pool_is_pending_with_metallbs_own_words_and_the_real_cause() {
    let (report, _) = scenario("alloc-pool-exhausted.yaml", &[]);
    let a = &service(&report, "default", "new")["allocation"];
    assert_eq!((a["status"].as_str(), a["reason"].as_str()), (Some("pending"), Some("noAvailableIPs")));
    assert_eq!(a["expectedIPs"], serde_json::json!([]));
    assert_eq!(
        event(a),
        (
            "Warning".into(),
            "AllocationFailed".into(),
            r#"Failed to allocate IP for "default/new": no available IPs"#.into()
        )
    );
    let detail = a["detail"].as_str().unwrap();
    assert!(detail.contains("small is full") && detail.contains("reserved has autoAssign: false"), "{detail}");
}

#[test]
fn sharing_refusals_name_the_real_cause() {
    let (report, _) = scenario("alloc-sharing-conflict.yaml", &[]);
    let udp = &service(&report, "dns", "dns-udp")["allocation"];
    assert_eq!(udp["reason"], "sharingConflict");
    assert_eq!(
        event(udp).2,
        r#"Failed to allocate IP for "dns/dns-udp": can't change sharing key for "dns/dns-udp", address also in use by dns/dns-tcp"#
    );
    assert!(udp["detail"].as_str().unwrap().contains(r#"sharing key "dns", but dns/dns-udp uses "DNS""#));
    let v2 = &service(&report, "dns", "dns-tcp-v2")["allocation"];
    assert_eq!(v2["reason"], "portConflict");
    assert_eq!(
        event(v2).2,
        r#"Failed to allocate IP for "dns/dns-tcp-v2": port TCP/53 is already in use on "198.51.100.20""#
    );
    let held = &service(&report, "dns", "dns-tcp")["allocation"];
    assert_eq!((held["status"].as_str(), held["metallbEvent"].is_null()), (Some("allocated"), true));
}

#[test]
fn dual_stack_rules() {
    let (report, _) = scenario("alloc-dual-stack.yaml", &[]);
    let both = &service(&report, "web", "both")["allocation"];
    assert_eq!(both["expectedIPs"], serde_json::json!(["198.51.100.32", "2001:db8:1::"]), "IPv4 first, one pool");
    assert_eq!(both["pool"], "dual");
    let prefer = &service(&report, "web", "prefer")["allocation"];
    assert_eq!(
        (prefer["status"].as_str(), prefer["reason"].as_str()),
        (Some("allocated"), Some("additionalFamilyFailed"))
    );
    assert_eq!(
        event(prefer),
        (
            "Normal".into(),
            "AdditionalAssignFailed".into(),
            r#"cannot assign additional IP in PreferDualStack: ["198.51.100.48" "<nil>"] is not allowed in config"#
                .into()
        )
    );
    let nopolicy = &service(&report, "web", "nopolicy")["allocation"];
    assert_eq!(nopolicy["reason"], "noAvailableIPs");
    assert!(nopolicy["detail"].as_str().unwrap().contains("no ipFamilyPolicy"));
}

#[test]
fn equal_priority_namespace_pools_are_a_random_choice() {
    let (report, _) = scenario("alloc-namespace-pools.yaml", &[]);
    let a = &service(&report, "team-a", "api")["allocation"];
    assert_eq!(a["expectedIPs"], Value::Null);
    assert_eq!(a["metallbEvent"], Value::Null, "the message would name MetalLB's random pick");
    assert_eq!(
        a["possibleOutcomes"],
        serde_json::json!([{"pool": "team-a-1", "ips": ["198.51.100.64"]}, {"pool": "team-a-2", "ips": ["198.51.100.72"]}])
    );
    let b = &service(&report, "team-b", "api")["allocation"];
    assert_eq!((b["pool"].as_str(), b["expectedIPs"].clone()), (Some("shared"), serde_json::json!(["198.51.100.80"])));
    let grab = &service(&report, "team-b", "grab")["allocation"];
    assert_eq!(
        event(grab).2,
        r#"Failed to allocate IP for "team-b/grab": pool team-a-1 not compatible for ip assignment"#
    );
}

#[test]
fn held_ip_no_longer_allowed_is_a_mismatch_with_its_replacement() {
    let (report, _) = scenario("alloc-mismatch.yaml", &[]);
    let old = &service(&report, "default", "old")["allocation"];
    assert_eq!((old["status"].as_str(), old["reason"].as_str()), (Some("mismatch"), Some("heldIPPoolNotCompatible")));
    assert_eq!(old["expectedIPs"], serde_json::json!(["192.0.2.0"]));
    assert_eq!(
        event(old),
        (
            "Normal".into(),
            "ClearAssignment".into(),
            r#"current IP for "default/old" not allowed by config, will attempt for new IP assignment: pool public not compatible for ip assignment"#.into()
        )
    );
    assert_eq!(service(&report, "default", "zero")["allocation"]["status"], "allocated");
}

#[test]
fn pools_explain_usage_and_holders() {
    let (report, _) =
        json(&["explain", "pools", "-o", "json", "--from", "testdata/scenarios/alloc-pool-exhausted.yaml"]);
    assert_eq!(report["kind"], "PoolReport");
    let small = report["pools"].as_array().unwrap().iter().find(|p| p["name"] == "small").unwrap();
    assert_eq!((small["ipv4"]["used"].as_i64(), small["ipv4"]["total"].as_i64()), (Some(4), Some(4)));
    assert_eq!(small["holders"][0], serde_json::json!({"ip": "198.51.100.8", "services": ["default/app0"]}));
    let new = small["services"].as_array().unwrap().iter().find(|c| c["service"] == "default/new").unwrap();
    assert_eq!(new["fit"], "exhausted");
    let (_, stderr, code) = run(&["explain", "pool", "nope", "--from", "testdata/scenarios/alloc-pool-exhausted.yaml"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("pools: reserved, small"), "{stderr}");
}

#[test]
fn a_broken_advertisement_stops_the_speakers_not_allocation() {
    let snap = r#"{"apiVersion": "v1", "kind": "List", "items": [
      {"apiVersion": "metallb.io/v1beta1", "kind": "IPAddressPool", "metadata": {"name": "p", "namespace": "metallb-system"},
       "spec": {"addresses": ["192.0.2.0/28"]}},
      {"apiVersion": "metallb.io/v1beta1", "kind": "L2Advertisement", "metadata": {"name": "bad", "namespace": "metallb-system"},
       "spec": {"nodeSelectors": [{"matchExpressions": [{"key": "k", "operator": "Near"}]}]}},
      {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "default"},
       "spec": {"type": "LoadBalancer", "clusterIP": "10.96.0.9", "clusterIPs": ["10.96.0.9"], "ports": [{"port": 80, "protocol": "TCP"}]}}]}"#;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.json");
    std::fs::write(&path, snap).unwrap();
    let (report, _) = json(&["check", "-o", "json", "--from", path.to_str().unwrap()]);
    assert_eq!(report["findings"][0]["code"], "LBD201");
    assert!(report["findings"][0]["hint"].as_str().unwrap().contains("allocation goes on"));
    let a = &web(&report)["allocation"];
    assert_eq!(
        (a["reason"].as_str(), a["expectedIPs"].clone()),
        (Some("wouldAllocate"), serde_json::json!(["192.0.2.0"]))
    );

    // Overlapping pools stop the controller too: no allocation is guessed.
    let (report, _) = scenario("overlapping-pools.yaml", &[]);
    assert_eq!(web(&report)["allocation"], Value::Null);
}

fn bgp_node<'a>(svc: &'a Value, name: &str) -> &'a Value {
    svc["metallb"]["bgp"]["nodes"].as_array().unwrap().iter().find(|n| n["node"] == name).unwrap()
}

fn session<'a>(node: &'a Value, peer: &str) -> Option<&'a Value> {
    node["sessions"].as_array().unwrap().iter().find(|s| s["peer"] == peer)
}

#[test]
fn bgp_routes_per_node_and_peer() {
    let (r, code) = scenario("bgp-two-routers.yaml", &[]);
    assert_eq!(code, 0);
    let web = service(&r, "default", "web");
    let bgp = &web["metallb"]["bgp"];
    assert_eq!(web["metallb"]["layer2"], Value::Null, "a BGP-only pool has no layer-2 election");
    assert_eq!(bgp["announcing"], serde_json::json!(["edge-1", "worker-a", "worker-b"]));
    assert_eq!(bgp["advertisements"], serde_json::json!(["to-edge", "to-tor"]));
    // The excluded control-plane node keeps its session but hands it nothing.
    let cp = bgp_node(web, "cp-1");
    assert_eq!(cp["reason"], "nodeLabeledExcludeBalancers");
    assert_eq!(session(cp, "tor").unwrap()["routes"], serde_json::json!([]));
    assert!(session(cp, "edge").is_none(), "edge only peers with rack=edge nodes");
    let edge = bgp_node(web, "edge-1");
    assert_eq!(
        session(edge, "tor").unwrap()["routes"],
        serde_json::json!([{"prefix": "198.51.100.10/32", "localPref": 200, "communities": []}])
    );
    let to_edge = session(edge, "edge").unwrap();
    assert_eq!((to_edge["asn"].as_u64(), to_edge["ibgp"].as_bool()), (Some(65001), Some(false)));
    // The Community alias resolves; standard communities sort by value.
    assert_eq!(
        to_edge["routes"],
        serde_json::json!([{"prefix": "198.51.100.10/32", "localPref": null, "communities": ["65001:100", "65535:65281"]}])
    );
    assert!(session(bgp_node(web, "worker-a"), "edge").is_none());

    let api = service(&r, "default", "api");
    assert_eq!(api["metallb"]["bgp"]["announcing"], serde_json::json!(["worker-b"]));
    assert_eq!(bgp_node(api, "worker-a")["reason"], "noLocalEndpoints");
    assert_eq!(
        session(bgp_node(api, "worker-b"), "tor").unwrap()["routes"][0]["prefix"],
        "198.51.100.128/27",
        "aggregationLength 27 rolls the IP up"
    );
}

#[test]
fn bgp_failures_name_their_cause() {
    let (r, _) = scenario("bgp-nobody-advertises.yaml", &[]);
    let gold = service(&r, "default", "gold");
    let a = bgp_node(gold, "worker-a");
    assert_eq!(a["reason"], "conflictingAdvertisements");
    assert_eq!(a["conflicting"], serde_json::json!(["any-tier", "gold"]));
    let web = service(&r, "default", "web");
    assert_eq!(web["metallb"]["bgp"]["announcing"], serde_json::json!(["worker-b"]));
    assert_eq!(web["metallb"]["bgp"]["peers"], serde_json::json!([]));
    assert_eq!(bgp_node(web, "worker-a")["reason"], "notOwner");
    let cluster: Vec<&str> = r["findings"].as_array().unwrap().iter().map(|f| f["message"].as_str().unwrap()).collect();
    assert!(cluster.iter().any(|m| m.contains("tor-2") && m.contains("does not exist")), "{cluster:?}");
    assert!(cluster.iter().any(|m| m.contains("node-x")), "{cluster:?}");
}

#[test]
fn frr_k8s_drift_and_bgp_status_mismatch() {
    let (r, _) = scenario("bgp-frr-k8s-drift.yaml", &[]);
    let drift = r["findings"].as_array().unwrap().iter().find(|f| f["code"] == "LBD215").unwrap();
    let msg = drift["message"].as_str().unwrap();
    assert!(msg.contains("metallb-node-a"), "{msg}");
    for part in ["missing neighbour 2001:db8::fe", "missing prefix 198.51.100.5/32", "extra prefix 198.51.100.6/32"] {
        assert!(msg.contains(part), "{msg} lacks {part}");
    }
    let web = service(&r, "default", "web");
    let status = web["findings"].as_array().unwrap().iter().find(|f| f["code"] == "LBD132").unwrap();
    assert!(status["message"].as_str().unwrap().contains("node-b"));
    // The IPv6 session is handed the IPv4 route; frr-k8s filters it by family.
    let a = bgp_node(web, "node-a");
    assert_eq!(session(a, "tor6").unwrap()["routes"][0]["prefix"], "198.51.100.5/32");
}

#[test]
fn native_bgp_rejects_ipv6_pools_and_with_them_layer2() {
    let (r, code) = scenario("bgp-native-ipv6.yaml", &[]);
    assert_eq!(code, 1);
    let f = &r["findings"][0];
    assert_eq!(f["code"], "LBD201");
    assert!(f["message"].as_str().unwrap().contains("native bgp mode does not support ipv6"));
    assert_eq!(f["objects"], serde_json::json!(["IPAddressPool metallb-system/v6"]));
    // Under frr the same objects are fine.
    let (r, code) = scenario("bgp-native-ipv6.yaml", &["--bgp-type", "frr"]);
    assert_eq!(code, 0, "{r}");
    assert_eq!(service(&r, "default", "web")["metallb"]["layer2"]["expectedAnnouncer"], "node-a");
}

#[test]
fn node_ipam_external_choice_is_all_or_nothing() {
    let (r, _) = scenario("cilium-nodeipam-external-some-nodes.yaml", &[]);
    let n = &web(&r)["cilium"]["nodeipam"];
    assert_eq!(web(&r)["implementation"], "cilium-nodeipam");
    assert_eq!(n["expectedIngress"], serde_json::json!(["203.0.113.10"]));
    let excluded: Vec<(String, Value)> = n["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| (x["node"].as_str().unwrap().to_string(), x["excludedBy"].clone()))
        .collect();
    assert!(excluded.contains(&("node-a".into(), serde_json::json!(["externalPreferred"]))), "{excluded:?}");
    assert!(excluded.contains(&("node-d".into(), serde_json::json!(["excludeLabel"]))), "{excluded:?}");
    assert!(excluded.contains(&("node-e".into(), serde_json::json!(["toBeDeletedTaint"]))), "{excluded:?}");

    let (r, _) = scenario("cilium-nodeipam-dual-stack.yaml", &[]);
    assert_eq!(web(&r)["cilium"]["nodeipam"]["familiesLostToExternal"], serde_json::json!(["IPv6"]));
    assert_eq!(named(&r, "api")["cilium"]["nodeipam"]["expectedIngress"], serde_json::json!([]));
}

#[test]
fn cilium_l2_reports_the_lease_and_the_eligible_set() {
    let (r, _) = scenario("cilium-l2-holder-agent-lost.yaml", &[]);
    let l2 = &web(&r)["cilium"]["l2"];
    assert_eq!(l2["eligible"], serde_json::json!(["node-a", "node-c"]));
    assert_eq!(l2["lease"]["holder"], "node-b");
    assert_eq!(l2["lease"]["fresh"], true);
    assert_eq!(l2["lease"]["holderEligible"], false);
    assert_eq!(l2["lease"]["holderAgentReady"], false);
    assert_eq!(l2["lease"]["expiresAt"], "2026-11-20T10:00:10Z");
    let lbd141 = &web(&r)["findings"][0];
    assert!(lbd141["message"].as_str().unwrap().contains("is not Ready (phase Running)"), "{lbd141}");
}

#[test]
fn two_claimants_are_named_with_their_evidence() {
    let (r, _) = scenario("metallb-and-cilium-lbipam.yaml", &[]);
    let svc = web(&r);
    assert_eq!(svc["ownership"]["claimants"], serde_json::json!(["metallb", "cilium-lbipam"]));
    // managedFields: MetalLB's controller wrote status last.
    assert_eq!(svc["implementation"], "metallb");
    assert_eq!(svc["cilium"]["lbipam"]["stripped"], serde_json::json!(["192.0.2.240"]));
    let (r, _) = scenario("k3s-servicelb-and-cilium-nodeipam.yaml", &[]);
    let svc = web(&r);
    assert_eq!(svc["ownership"]["claimants"], serde_json::json!(["cilium-nodeipam", "k3s-servicelb"]));
    assert_eq!(svc["implementation"], "k3s-servicelb");
    let hint = svc["findings"][0]["hint"].as_str().unwrap();
    assert!(hint.contains("--disable=servicelb") && hint.contains("io.cilium/node"), "{hint}");
    assert_eq!(svc["servicelb"]["expectedIngress"], serde_json::json!(["192.0.2.1", "192.0.2.2"]));
}

#[test]
fn lbipam_pending_reasons_use_ciliums_vocabulary() {
    let (r, _) = scenario("cilium-lbipam-pending.yaml", &[]);
    assert_eq!(web(&r)["cilium"]["lbipam"]["expected"]["reason"], "no_pool");
    assert_eq!(named(&r, "shop")["cilium"]["lbipam"]["expected"]["reason"], "pool_selector_mismatch");
    assert_eq!(r["findings"][0]["code"], "LBD220");
    assert_eq!(r["findings"][0]["objects"], serde_json::json!(["CiliumLoadBalancerIPPool pool-b"]));
    assert_eq!(r["findings"][1]["objects"], serde_json::json!(["CiliumLoadBalancerIPPool legacy"]));
}

#[test]
fn lbipam_restart_replays_the_operators_start_up_order() {
    let (r, _) = scenario("cilium-lbipam-restart.yaml", &[]);
    let legacy = named(&r, "legacy-web");
    let restart = &legacy["cilium"]["lbipam"]["restart"];
    assert_eq!(restart["rules"], "v1.20", "from the operator Deployment's image tag");
    assert_eq!(legacy["cilium"]["lbipam"]["satisfied"], true, "a running operator keeps it");
    assert_eq!(restart["outcomes"][0]["ingress"], serde_json::json!(["192.0.2.65"]));
    assert_eq!(restart["loses"][0]["cause"], "poolDisabled");
    assert_eq!(legacy["findings"][0]["code"], "LBD128");
    let batch = named(&r, "batch");
    // The satisfied group (legacy-web) allocates first: 192.0.2.65 is gone when batch asks.
    assert_eq!(batch["cilium"]["lbipam"]["expected"]["reason"], "already_allocated");
    assert_eq!(batch["findings"][0]["code"], "LBD125");
    let api = named(&r, "api");
    assert_eq!(api["cilium"]["lbipam"]["restart"]["outcomes"].as_array().unwrap().len(), 1);
    assert_eq!(api["findings"], serde_json::json!([]));
}

#[test]
fn cilium_l2_also_answers_for_a_metallb_address() {
    let (r, _) = scenario("metallb-and-cilium-l2.yaml", &[]);
    let svc = web(&r);
    assert_eq!(svc["ownership"]["claimants"], serde_json::json!(["metallb"]));
    assert_eq!(svc["metallb"]["layer2"]["expectedAnnouncer"], "node-b");
    assert_eq!(svc["cilium"]["l2"]["announcer"], "node-a");
    assert!(svc["findings"][0]["message"].as_str().unwrap().contains("Lease holder (node-a)"));
}

/// A policy without `interfaces` on agents without `devices`: which devices the leader uses is
/// each agent's own choice, said with its rules and the command that shows it; with both set
/// the INTERFACES column says it all and no line is added.
#[test]
fn cilium_l2_says_how_the_agent_picks_its_devices() {
    let (r, _) = scenario("metallb-and-cilium-l2.yaml", &[]);
    assert_eq!(
        web(&r)["cilium"]["l2"]["interfaces"],
        serde_json::json!({"source": "autoDetected", "devices": [], "everyDevice": ["all-lb"], "agentPod": "cilium-4xk2p"})
    );
    let text = run(&["explain", "svc", "web", "--from", "testdata/scenarios/metallb-and-cilium-l2.yaml"]).0;
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        joined.contains("devices: policy all-lb sets no interfaces, so the leader announces on every device its agent selected: cilium-config sets no `devices`, so each agent picks its own: every device that is up with an address and a global unicast route"),
        "{text}"
    );
    assert!(joined.contains("`kubectl -n kube-system exec cilium-4xk2p -- cilium-dbg status --verbose`"), "{text}");

    let (r, _) = scenario("cilium-l2-holder-agent-lost.yaml", &[]);
    assert_eq!(
        web(&r)["cilium"]["l2"]["interfaces"],
        serde_json::json!({"source": "listed", "devices": ["eth0"], "everyDevice": [], "agentPod": "cilium-7hq9w"})
    );
    let text = run(&["explain", "svc", "web", "--from", "testdata/scenarios/cilium-l2-holder-agent-lost.yaml"]).0;
    assert!(!text.contains("devices:"), "{text}");
}

/// The Cilium, k3s and ownership engines give the same report whatever the order of the
/// snapshot's objects (reversed, and rotated by half).
#[test]
fn object_order_does_not_change_the_other_implementations_reports() {
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir("testdata/scenarios").unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if !(name.starts_with("cilium-") || name.starts_with("k3s-") || name.starts_with("metallb-and-")) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let docs: Vec<&str> = text.split("\n---\n").filter(|d| d.lines().any(|l| l.starts_with("kind:"))).collect();
        let mut reversed = docs.clone();
        reversed.reverse();
        let mut rotated = docs.clone();
        rotated.rotate_left(docs.len() / 2);
        let (want, _) = scenario(&name, &[]);
        for (label, order) in [("reversed", reversed), ("rotated", rotated)] {
            let file = dir.path().join(format!("{label}-{name}"));
            std::fs::write(&file, order.join("\n---\n")).unwrap();
            let (got, _) = json(&["check", "-o", "json", "--nodes", "all", "--from", file.to_str().unwrap()]);
            assert_eq!(got, want, "{name} {label}");
        }
    }
}

#[test]
fn shared_address_with_leases_on_two_nodes_is_answered_twice() {
    let (r, _) = scenario("cilium-l2-shared-ip.yaml", &[]);
    let web = named(&r, "web");
    assert_eq!(web["cilium"]["lbipam"]["held"][0]["ip"], "198.51.100.1");
    assert_eq!(web["findings"][0]["objects"], serde_json::json!(["Service default/web", "Service default/api"]));
    assert!(web["findings"][0]["message"].as_str().unwrap().contains("default/api (its Lease held by node-c)"));
    assert_eq!(named(&r, "api")["cilium"]["l2"]["announcer"], "node-c");
}

/// Cilium up to v1.20 names L2 Leases `<ns>-<name>`: only Services that can get a Lease
/// (LoadBalancer, or with externalIPs) collide.
#[test]
fn dash_lease_names_collide_only_between_announceable_services() {
    let base = r#"
apiVersion: v1
kind: ConfigMap
metadata: {name: cilium-config, namespace: kube-system}
data: {enable-l2-announcements: "true", kube-proxy-replacement: "true", default-lb-service-ipam: "none"}
---
apiVersion: v1
kind: Pod
metadata: {name: cilium-a, namespace: kube-system, labels: {k8s-app: cilium}}
spec: {nodeName: node-a, containers: [{name: cilium-agent, image: "quay.io/cilium/cilium:v1.18.4"}]}
status: {phase: Running, conditions: [{type: Ready, status: "True"}]}
---
apiVersion: v1
kind: Node
metadata: {name: node-a}
---
apiVersion: cilium.io/v2alpha1
kind: CiliumL2AnnouncementPolicy
metadata: {name: all}
spec: {loadBalancerIPs: true}
---
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {name: cilium-l2announce-foo-bar-baz, namespace: kube-system}
spec: {holderIdentity: node-a, leaseDurationSeconds: 15, renewTime: "2026-11-20T09:59:59.000000Z"}
---
apiVersion: lbdoctor/v1alpha1
kind: SnapshotInfo
spec: {capturedAt: "2026-11-20T10:00:00Z"}
---
apiVersion: v1
kind: Service
metadata: {name: bar-baz, namespace: foo}
spec: {type: LoadBalancer, ports: [{port: 80}]}
status: {loadBalancer: {ingress: [{ip: 192.0.2.10}]}}
---
apiVersion: v1
kind: Service
metadata: {name: baz, namespace: foo-bar}
"#;
    let dir = tempfile::tempdir().unwrap();
    let codes_for = |other_spec: &str| {
        let file = dir.path().join("s.yaml");
        std::fs::write(&file, format!("{base}spec: {other_spec}\n")).unwrap();
        codes(&json(&["check", "-o", "json", "--from", file.to_str().unwrap()]).0)
    };
    assert!(!codes_for("{type: ClusterIP, ports: [{port: 80}]}").contains(&"LBD144".to_string()));
    assert!(codes_for("{type: LoadBalancer, ports: [{port: 81}]}").contains(&"LBD144".to_string()));
}

/// Speaker spec §2: each memberlist flag defaults to its variable, an unset one to "". A speaker
/// container that shows its environment (METALLB_NODE_NAME) without METALLB_ML_BIND_ADDR runs
/// with memberlist off: read, not assumed on. Without any env, it is still an assumption.
#[test]
fn memberlist_is_off_when_the_visible_env_has_no_bind_address() {
    let text = std::fs::read_to_string("testdata/scenarios/speaker-not-ready.yaml").unwrap();
    let without_bind =
        text.replace("    - name: METALLB_ML_BIND_ADDR\n      valueFrom: {fieldRef: {fieldPath: status.podIP}}\n", "");
    assert_ne!(without_bind, text);
    let without_env: String = {
        let mut skip = false;
        let mut out = String::new();
        for line in text.lines() {
            if line == "    env:" {
                skip = true;
                continue;
            }
            if skip && line.starts_with("    ") && !line.starts_with("    image") {
                continue;
            }
            skip = false;
            out.push_str(line);
            out.push('\n');
        }
        out
    };
    assert!(!without_env.contains("METALLB_NODE_NAME"));
    let dir = tempfile::tempdir().unwrap();
    for (name, body, memberlist, assumed) in
        [("no-bind.yaml", &without_bind, "disabled", false), ("no-env.yaml", &without_env, "enabled", true)]
    {
        let path = dir.path().join(name);
        std::fs::write(&path, body).unwrap();
        let (r, _) = crate::util::json(&["check", "--from", path.to_str().unwrap(), "-o", "json"]);
        let m = &r["source"]["metallb"];
        assert_eq!(m["memberlist"], memberlist, "{name}: {m}");
        let said = r["source"]["assumptions"].to_string();
        assert_eq!(said.contains("assumed enabled"), assumed, "{name}: {said}");
    }
}

/// eTP Local whose endpoints run only where no speaker lives: the speakers' placement is the
/// fix, so LBD103 says so first and names the taint the speaker DaemonSet does not tolerate,
/// and node-a's row still shows the endpoint it hosts (facts, not filter order).
#[test]
fn local_endpoints_only_on_speakerless_nodes_point_at_the_speaker_placement() {
    let text = std::fs::read_to_string("testdata/scenarios/speaker-not-ready.yaml").unwrap();
    let edited = text
        .replace("externalTrafficPolicy: Cluster", "externalTrafficPolicy: Local")
        .replace(
            "    kubernetes.io/hostname: node-a\nstatus:",
            "    kubernetes.io/hostname: node-a\nspec:\n  taints:\n  - {key: nvidia.com/gpu, value: \"true\", effect: NoSchedule}\nstatus:",
        )
        + "---\napiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: speaker, namespace: metallb-system}\nspec:\n  selector: {matchLabels: {component: speaker}}\n  template:\n    metadata: {labels: {component: speaker}}\n    spec:\n      tolerations:\n      - {key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}\n      containers:\n      - {name: speaker, image: \"quay.io/metallb/speaker:v0.16.1\"}\n";
    assert!(edited.contains("effect: NoSchedule}\nstatus:"));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.yaml");
    std::fs::write(&path, edited).unwrap();
    let (r, code) = crate::util::json(&["explain", "svc", "web", "--from", path.to_str().unwrap(), "-o", "json"]);
    assert_eq!(code, 1);
    let findings = r["services"][0]["findings"].as_array().unwrap();
    let lbd103 = findings.iter().find(|f| f["code"] == "LBD103").expect("LBD103");
    assert_eq!(
        lbd103["message"],
        "externalTrafficPolicy is Local and the Service's endpoints run only on nodes without a live speaker (node-a): node-a has taint nvidia.com/gpu=true:NoSchedule that the speaker DaemonSet does not tolerate"
    );
    assert!(lbd103["hint"].as_str().unwrap().contains("kubectl describe node node-a"), "{lbd103}");
    let node_a = r["services"][0]["metallb"]["layer2"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["node"] == "node-a")
        .unwrap();
    assert_eq!(node_a["excludedBy"], serde_json::json!(["noSpeaker"]), "node-a hosts the endpoint: {node_a}");
}

/// A Service of Cilium's BGP class while cilium-config has the BGP control plane off: the
/// finding names that switch, not only "no implementation".
#[test]
fn cilium_bgp_class_with_the_control_plane_off_names_the_switch() {
    let text = std::fs::read_to_string("testdata/scenarios/cilium-lbipam-pending.yaml").unwrap();
    let svc = "---\napiVersion: v1\nkind: Service\nmetadata: {name: bgpweb, namespace: default}\nspec:\n  type: LoadBalancer\n  loadBalancerClass: io.cilium/bgp-control-plane\n  clusterIP: 10.96.0.99\n  clusterIPs: [10.96.0.99]\n  selector: {app: web}\n  ports:\n  - {port: 80, protocol: TCP}\n";
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.yaml");
    std::fs::write(&path, format!("{text}\n{svc}")).unwrap();
    let (r, _) = crate::util::json(&["explain", "svc", "bgpweb", "--from", path.to_str().unwrap(), "-o", "json"]);
    let f = &r["services"][0]["findings"][0];
    assert_eq!(f["code"], "LBD120");
    assert!(f["message"].as_str().unwrap().contains("cilium-config has enable-bgp-control-plane off"), "{f}");
    assert!(f["hint"].as_str().unwrap().contains("enable-bgp-control-plane: \"true\""), "{f}");
}

/// A running MetalLB controller Pod of `release`, to append to a scenario.
fn controller_pod(release: &str) -> String {
    format!(
        r#"
---
apiVersion: v1
kind: Pod
metadata:
  name: controller-7d9f
  namespace: metallb-system
  labels: {{app: metallb, component: controller}}
spec:
  containers:
  - name: controller
    image: "quay.io/metallb/controller:{release}"
status:
  phase: Running
  conditions:
  - {{type: Ready, status: "True"}}
"#
    )
}

/// A copy of a scenario with text replaced, for variations on one cluster.
fn variant(file: &str, edits: &[(&str, &str)], extra: &str) -> tempfile::NamedTempFile {
    let mut text = std::fs::read_to_string(format!("testdata/scenarios/{file}")).unwrap();
    for (from, to) in edits {
        assert!(text.contains(from), "{file} has no {from:?}");
        text = text.replace(from, to);
    }
    text.push_str(extra);
    let out = tempfile::Builder::new().suffix(".yaml").tempfile().unwrap();
    std::fs::write(out.path(), text).unwrap();
    out
}

fn check_json(path: &std::path::Path, extra: &[&str]) -> Value {
    let (stdout, stderr, _) = output(
        lbdoctor().args(["check", "-o", "json", "--nodes", "all", "--from", path.to_str().unwrap()]).args(extra),
    );
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"))
}

/// metallb-versions.md L-5 through the binary: the speakers' image says v0.14.9, whose rules drop
/// the cordoned hash winner; any other release keeps it.
#[test]
fn the_speakers_release_decides_the_layer2_rules() {
    let (r, _) = scenario("release-v0-14-9-cordoned.yaml", &[]);
    assert_eq!(r["source"]["metallb"]["behaviour"], "v0.14.9");
    assert_eq!(r["source"]["metallb"]["behaviourReason"], "speaker version v0.14.9");
    assert_eq!(r["source"]["metallb"]["speakerVersions"], serde_json::json!({"v0.14.9": 2}));
    let svc = web(&r);
    assert_eq!(svc["metallb"]["layer2"]["expectedAnnouncer"], "node-b");
    assert_eq!(node(svc, "node-a")["excludedBy"], serde_json::json!(["cordoned"]));
    let lbd107 = svc["findings"].as_array().unwrap().iter().find(|f| f["code"] == "LBD107").unwrap();
    assert!(
        lbd107["message"].as_str().unwrap().contains("v0.16.1 rules (an upgrade to v0.16.1) would elect node-a"),
        "{lbd107}"
    );
    for release in ["v0.14.8", "v0.15.0", "v0.16.1"] {
        let (r, _) = scenario("release-v0-14-9-cordoned.yaml", &["--metallb-version", release]);
        assert_eq!(r["source"]["metallb"]["behaviour"], release);
        assert_eq!(web(&r)["metallb"]["layer2"]["expectedAnnouncer"], "node-a", "{release}");
    }
    let (_, stderr, code) = run(&["check", "--demo", "--metallb-version", "v0.14.10"]);
    assert_eq!(code, 2, "{stderr}");
}

/// L-2 through the binary: memberlist off (the speaker's environment shows no bind address) makes
/// v0.14.9 announce nothing, and v0.15.0 elect among every node.
#[test]
fn memberlist_disabled_announces_nothing_before_v0_15_0() {
    let file = variant(
        "release-v0-14-9-cordoned.yaml",
        &[("    - name: METALLB_ML_BIND_ADDR\n      valueFrom: {fieldRef: {fieldPath: status.podIP}}\n", "")],
        "",
    );
    let r = check_json(file.path(), &[]);
    assert_eq!(r["source"]["metallb"]["memberlist"], "disabled");
    let svc = web(&r);
    assert_eq!(svc["metallb"]["layer2"]["expectedAnnouncer"], Value::Null);
    assert_eq!(node(svc, "node-b")["excludedBy"], serde_json::json!(["memberlistDisabled"]));
    let lbd101 = svc["findings"].as_array().unwrap().iter().find(|f| f["code"] == "LBD101").expect("LBD101");
    assert!(lbd101["message"].as_str().unwrap().contains("memberlist is disabled, and MetalLB v0.14.9"), "{lbd101}");
    let r = check_json(file.path(), &["--metallb-version", "v0.15.0"]);
    assert_eq!(web(&r)["metallb"]["layer2"]["expectedAnnouncer"], "node-a");
}

/// metallb-versions.md §9: a digest-pinned image falls back to the Helm chart labels, and the
/// controller's release is read apart from the speakers'.
#[test]
fn the_release_comes_from_tags_then_helm_labels_and_the_controller_apart() {
    let controller = controller_pod("v0.15.3");
    let daemonset = r#"
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: speaker
  namespace: metallb-system
  labels: {app.kubernetes.io/name: metallb, helm.sh/chart: metallb-0.14.9}
spec:
  selector: {matchLabels: {app: metallb, component: speaker}}
  template:
    metadata:
      labels: {app: metallb, component: speaker}
    spec:
      containers:
      - name: speaker
        image: "quay.io/metallb/speaker@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
"#;
    let digest = "quay.io/metallb/speaker@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    let file = variant(
        "release-v0-14-9-cordoned.yaml",
        &[("quay.io/metallb/speaker:v0.14.9", digest)],
        &format!("{controller}{daemonset}"),
    );
    let r = check_json(file.path(), &[]);
    let m = &r["source"]["metallb"];
    assert_eq!(m["behaviour"], "v0.14.9", "{m}");
    let reason = m["behaviourReason"].as_str().unwrap();
    assert!(reason.contains("pinned by digest") && reason.contains("Helm chart labels (version 0.14.9)"), "{reason}");
    assert_eq!(m["controllerBehaviour"], "v0.15.3");
    assert_eq!(m["controllerVersion"], "v0.15.3");
    assert_eq!(web(&r)["metallb"]["layer2"]["expectedAnnouncer"], "node-b", "the speakers' v0.14.9 rules");
    let text = run(&["explain", "svc", "web", "--from", file.path().to_str().unwrap()]).0;
    assert!(text.contains("controller: v0.15.3 rules (controller version v0.15.3)"), "{text}");
}

/// LBD216 and L-10: speakers on both sides of v0.14.0 cannot join one memberlist.
#[test]
fn speakers_on_two_releases_are_a_finding() {
    let (r, _) = scenario("release-mixed-speakers.yaml", &[]);
    assert_eq!(r["source"]["metallb"]["speakerVersions"], serde_json::json!({"v0.13.12": 1, "v0.14.9": 1}));
    assert_eq!(r["source"]["metallb"]["behaviour"], "v0.14.9");
    let f = &r["findings"][0];
    assert_eq!(f["code"], "LBD216");
    let message = f["message"].as_str().unwrap();
    assert!(message.contains("v0.13.12 (speaker-a1b2c), v0.14.9 (speaker-d3e4f)"), "{message}");
    assert!(message.contains("cannot join one memberlist"), "{message}");
    // Within one side of v0.14.0 the split is not claimed.
    let file = variant("release-mixed-speakers.yaml", &[("speaker:v0.13.12", "speaker:v0.14.8")], "");
    let r = check_json(file.path(), &[]);
    let message = r["findings"][0]["message"].as_str().unwrap().to_string();
    assert!(!message.contains("memberlist") && message.contains("its own release's rules"), "{message}");
}

/// LBD217: versions the model does not have say which rules were used.
#[test]
fn versions_outside_the_model_say_which_rules_were_used() {
    for (tag, used, words) in [
        ("v0.12.1", "v0.13.0", "older than v0.13.0"),
        ("v0.14.10", "v0.14.9", "not a release lbdoctor models"),
        ("latest-amd64", "v0.16.1", "names no MetalLB version"),
    ] {
        let file = variant("release-v0-14-9-cordoned.yaml", &[("speaker:v0.14.9", &format!("speaker:{tag}"))], "");
        let r = check_json(file.path(), &[]);
        assert_eq!(r["source"]["metallb"]["behaviour"], used, "{tag}");
        let f = r["findings"].as_array().unwrap().iter().find(|f| f["code"] == "LBD217").expect(tag);
        let message = f["message"].as_str().unwrap();
        assert!(message.contains(words) && message.contains(&format!("{used} rules are used")), "{message}");
    }
}

/// LBD218: MetalLB's pre-v0.13 ConfigMap, read by old releases only.
#[test]
fn a_legacy_configmap_is_explained_by_release() {
    let legacy = r#"
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: config
  namespace: metallb-system
data:
  config: |
    address-pools:
    - name: default
      protocol: layer2
      addresses:
      - 198.51.100.0/28
"#;
    let lbd218 = |r: &Value| -> String {
        let f = r["findings"].as_array().unwrap().iter().find(|f| f["code"] == "LBD218").expect("LBD218");
        assert_eq!(f["objects"], serde_json::json!(["ConfigMap metallb-system/config"]));
        f["message"].as_str().unwrap().to_string()
    };
    let leftover = variant("release-v0-14-9-cordoned.yaml", &[], legacy);
    let message = lbd218(&check_json(leftover.path(), &[]));
    assert!(message.contains("(address pools default (layer2)) that MetalLB v0.14.9 ignores"), "{message}");

    let unconverted = variant(
        "release-v0-14-9-cordoned.yaml",
        &[(
            "kind: IPAddressPool\nmetadata:\n  name: pool-a\n  namespace: metallb-system",
            "kind: IPAddressPool\nmetadata:\n  name: pool-a\n  namespace: elsewhere",
        )],
        legacy,
    );
    let message = lbd218(&check_json(unconverted.path(), &[]));
    assert!(message.contains("no IPAddressPool exists"), "{message}");

    let old = variant("release-v0-14-9-cordoned.yaml", &[("speaker:v0.14.9", "speaker:v0.12.1")], legacy);
    let message = lbd218(&check_json(old.path(), &[]));
    assert!(
        message.contains("MetalLB v0.12.1 reads its configuration from ConfigMap metallb-system/config"),
        "{message}"
    );

    // A ConfigMap named config that is not MetalLB's is left alone.
    let other = variant("release-v0-14-9-cordoned.yaml", &[], &legacy.replace("address-pools", "something-else"));
    let r = check_json(other.path(), &[]);
    assert!(r["findings"].as_array().unwrap().iter().all(|f| f["code"] != "LBD218"));
}

/// C-15 through the binary: the controller's release decides whether metallb.io/ annotations
/// exist; a v0.14.8 controller ignores metallb.io/loadBalancerIPs and keeps the held IP.
#[test]
fn the_controllers_release_decides_which_annotations_it_reads() {
    let edits = [(
        "  name: web\n  namespace: default\n",
        "  name: web\n  namespace: default\n  annotations: {metallb.io/loadBalancerIPs: 198.51.100.7}\n",
    )];
    for (release, status, reason) in [("v0.14.8", "allocated", "kept"), ("v0.14.9", "mismatch", "requestedIPsChanged")]
    {
        let file = variant("release-v0-14-9-cordoned.yaml", &edits, &controller_pod(release));
        let r = check_json(file.path(), &[]);
        assert_eq!(r["source"]["metallb"]["controllerBehaviour"], release);
        let allocation = &web(&r)["allocation"];
        assert_eq!(
            (allocation["status"].as_str(), allocation["reason"].as_str()),
            (Some(status), Some(reason)),
            "{release}"
        );
    }
}

/// The issue's incident (C-16) through the binary: a PreferDualStack Service and two
/// single-family pools. A v0.14.5 controller never reads the policy and leaves it pending with
/// `no available IPs` (LBD110); v0.16.1 would assign an IPv4 address now (LBD115).
#[test]
fn prefer_dual_stack_with_single_family_pools_follows_the_controllers_release() {
    let edits = [
        (
            "  clusterIP: 10.96.0.15\n  clusterIPs: [10.96.0.15]\n",
            "  clusterIP: 10.96.0.15\n  clusterIPs: [10.96.0.15, 'fd00:96::15']\n  ipFamilies: [IPv4, IPv6]\n  ipFamilyPolicy: PreferDualStack\n",
        ),
        ("status:\n  loadBalancer:\n    ingress:\n    - ip: 198.51.100.10\n", "status:\n  loadBalancer: {}\n"),
    ];
    let v6_pool = "\n---\napiVersion: metallb.io/v1beta1\nkind: IPAddressPool\nmetadata:\n  name: pool-v6\n  namespace: metallb-system\nspec:\n  addresses: ['2001:db8::/120']\n";
    let file = variant("release-v0-14-9-cordoned.yaml", &edits, v6_pool);
    let r = check_json(file.path(), &["--metallb-version", "v0.14.5"]);
    let svc = web(&r);
    assert_eq!(svc["allocation"]["status"], "pending");
    let lbd110 = svc["findings"].as_array().unwrap().iter().find(|f| f["code"] == "LBD110").expect("LBD110");
    assert!(lbd110["message"].as_str().unwrap().contains("no available IPs"), "{lbd110}");
    let r = check_json(file.path(), &["--metallb-version", "v0.16.1"]);
    let svc = web(&r);
    assert_eq!(svc["allocation"]["expectedIPs"], serde_json::json!(["198.51.100.0"]));
    assert!(svc["findings"].as_array().unwrap().iter().any(|f| f["code"] == "LBD115"), "{}", svc["findings"]);
}

/// C-12 and C-13 through the binary: a v0.13.x controller refuses pools that orphan a held IP,
/// so allocations are unknown (LBD219); v0.14.0 takes them and re-assigns (LBD112/LBD110).
#[test]
fn a_v0_13_controller_refuses_pools_that_orphan_a_held_ip() {
    // The Service holds 198.51.100.10; the pool now holds only 198.51.100.64/28.
    let file = variant("release-v0-14-9-cordoned.yaml", &[("  - 198.51.100.0/28\n", "  - 198.51.100.64/28\n")], "");
    let r = check_json(file.path(), &["--metallb-version", "v0.13.12"]);
    let f = r["findings"].as_array().unwrap().iter().find(|f| f["code"] == "LBD219").expect("LBD219");
    assert!(
        f["message"].as_str().unwrap().contains(
            r#"new config not compatible with assigned IPs: service "default/web" cannot own ["198.51.100.10"] under new config"#
        ),
        "{f}"
    );
    assert_eq!(web(&r)["allocation"], Value::Null);
    let r = check_json(file.path(), &["--metallb-version", "v0.14.0"]);
    assert!(r["findings"].as_array().unwrap().iter().all(|f| f["code"] != "LBD219"));
    assert_eq!(web(&r)["allocation"]["status"], "mismatch");
    assert_eq!(web(&r)["allocation"]["expectedIPs"], serde_json::json!(["198.51.100.64"]));
}

/// S-3: a v0.13.x speaker with --disable-epslices reads core v1 Endpoints; the report says it
/// judged EndpointSlices instead. Later releases have no such flag.
#[test]
fn disable_epslices_on_v0_13_is_an_assumption() {
    let edits = [(
        "    - {name: METALLB_ML_LABELS, value: \"app=metallb,component=speaker\"}\n",
        "    - {name: METALLB_ML_LABELS, value: \"app=metallb,component=speaker\"}\n    args: [--disable-epslices]\n",
    )];
    for (release, assumed) in [("v0.13.12", true), ("v0.14.0", false)] {
        let file = variant(
            "release-v0-14-9-cordoned.yaml",
            &[edits[0], ("speaker:v0.14.9", &format!("speaker:{release}"))],
            "",
        );
        let r = check_json(file.path(), &[]);
        let text = r["source"]["assumptions"].to_string();
        assert_eq!(text.contains("--disable-epslices"), assumed, "{release}: {text}");
    }
}

/// LBD209 (C-27): legacy AddressPool objects, read by v0.13.x and ignored from v0.14.0.
#[test]
fn legacy_address_pools_are_explained_by_release() {
    let legacy = "\n---\napiVersion: metallb.io/v1beta1\nkind: AddressPool\nmetadata:\n  name: legacy\n  namespace: metallb-system\nspec:\n  protocol: layer2\n  addresses: [198.51.100.0/28]\n";
    let message = |file: &std::path::Path, release: &str| -> String {
        let r = check_json(file, &["--metallb-version", release]);
        let f = r["findings"].as_array().unwrap().iter().find(|f| f["code"] == "LBD209").expect("LBD209");
        f["message"].as_str().unwrap().to_string()
    };
    let leftover = variant("release-v0-14-9-cordoned.yaml", &[], legacy);
    assert!(message(leftover.path(), "v0.14.9").contains("1 legacy AddressPool object, which MetalLB v0.14.9 ignores"));
    assert!(
        message(leftover.path(), "v0.13.12").contains("MetalLB v0.13.12 reads 1 legacy AddressPool object as pools")
    );
    let only_legacy = variant(
        "release-v0-14-9-cordoned.yaml",
        &[(
            "kind: IPAddressPool\nmetadata:\n  name: pool-a\n  namespace: metallb-system",
            "kind: IPAddressPool\nmetadata:\n  name: pool-a\n  namespace: elsewhere",
        )],
        legacy,
    );
    assert!(message(only_legacy.path(), "v0.14.0").contains("and no IPAddressPool"));
    let (r, _) = scenario("release-v0-14-9-cordoned.yaml", &[]);
    assert!(r["findings"].as_array().unwrap().iter().all(|f| f["code"] != "LBD209"));
}

/// SnapshotInfo's metallb.version wins, and says when the speakers' images disagree with it.
#[test]
fn a_snapshotinfo_version_that_disagrees_with_the_speakers_says_so() {
    let info = "\n---\napiVersion: lbdoctor/v1alpha1\nkind: SnapshotInfo\nspec:\n  metallb: {version: v0.16.1}\n";
    let file = variant("release-v0-14-9-cordoned.yaml", &[], info);
    let r = check_json(file.path(), &[]);
    assert_eq!(r["source"]["metallb"]["behaviour"], "v0.16.1");
    assert_eq!(
        r["source"]["metallb"]["behaviourReason"],
        "SnapshotInfo metallb.version v0.16.1 (the speaker Pods run v0.14.9)"
    );
}

/// A Service without an address, to add to a scenario.
fn pending_service(name: &str) -> String {
    format!(
        "\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: {name}\n  namespace: default\nspec:\n  type: LoadBalancer\n  clusterIP: 10.96.0.16\n  clusterIPs: [10.96.0.16]\n  ports:\n  - {{name: http, port: 80, protocol: TCP}}\n"
    )
}

fn finding<'v>(findings: &'v Value, code: &str) -> Option<&'v Value> {
    findings.as_array().unwrap().iter().find(|f| f["code"] == code)
}

/// C-14 through the binary: before v0.14.0 a restarted controller may sync the pending Service
/// first, which then takes the only address, held by web (LBD116 on web); v0.14.0 re-registers
/// held addresses first.
#[test]
fn a_v0_13_controller_restart_may_hand_a_held_address_to_a_pending_service() {
    let file = variant(
        "release-v0-14-9-cordoned.yaml",
        &[("  - 198.51.100.0/28\n", "  - 198.51.100.10/32\n")],
        &pending_service("api"),
    );
    let r = check_json(file.path(), &["--metallb-version", "v0.13.12"]);
    let f = finding(&web(&r)["findings"], "LBD116").expect("LBD116 on the holder");
    let message = f["message"].as_str().unwrap();
    assert!(message.contains("if it syncs default/api first, that Service takes 198.51.100.10"), "{message}");
    assert!(message.contains("loses it with a Normal ClearAssignment Event, then gets another"), "{message}");
    assert!(f["objects"].to_string().contains("Service default/api"), "{f}");
    let r = check_json(file.path(), &["--metallb-version", "v0.13.9"]);
    let f = finding(&web(&r)["findings"], "LBD116").expect("LBD116 on v0.13.9");
    assert!(f["message"].as_str().unwrap().contains("loses it silently, then gets another"), "{f}");
    let r = check_json(file.path(), &["--metallb-version", "v0.14.0"]);
    assert!(finding(&web(&r)["findings"], "LBD116").is_none(), "{}", web(&r)["findings"]);
}

/// C-23 through the binary: v0.15.0 alone rejects a pool that contains a Node's InternalIP, in
/// the speakers only (the controller is given no Nodes).
#[test]
fn only_v0_15_0_rejects_a_pool_containing_a_node_address() {
    let file = variant("release-v0-14-9-cordoned.yaml", &[("  - 198.51.100.0/28\n", "  - 192.0.2.0/28\n")], "");
    let r = check_json(file.path(), &["--metallb-version", "v0.15.0"]);
    let f = finding(&r["findings"], "LBD201").expect("LBD201 on v0.15.0");
    assert!(f["message"].as_str().unwrap().ends_with(r#"pool cidr "192.0.2.0/28" contains nodeIp "192.0.2.1""#), "{f}");
    assert!(f["hint"].as_str().unwrap().contains("the controller goes on allocating"), "{f}");
    assert!(f["objects"].to_string().contains("node-a"), "{f}");
    for release in ["v0.14.9", "v0.15.1"] {
        let r = check_json(file.path(), &["--metallb-version", release]);
        assert!(finding(&r["findings"], "LBD201").is_none(), "{release}: {}", r["findings"]);
        assert!(finding(&r["findings"], "LBD207").is_some(), "{release}: the overlap is still worth a warning");
    }
}

/// §7 through the binary: a field the speakers' release does not read is reported (LBD224).
#[test]
fn a_field_the_release_does_not_read_is_reported() {
    let file = variant(
        "release-v0-14-9-cordoned.yaml",
        &[(
            "  name: l2\n  namespace: metallb-system\nspec: {}\n",
            "  name: l2\n  namespace: metallb-system\nspec:\n  serviceSelectors: [{matchLabels: {app: web}}]\n",
        )],
        "",
    );
    let r = check_json(file.path(), &[]);
    let f = finding(&r["findings"], "LBD224").expect("LBD224 for v0.14.9 speakers");
    assert_eq!(
        f["message"],
        "L2Advertisement spec.serviceSelectors is set on l2, but MetalLB v0.14.9's speakers do not read it (from v0.16.0): it is ignored, so the advertisement applies to every Service of its pools"
    );
    let r = check_json(file.path(), &["--metallb-version", "v0.16.0"]);
    assert!(finding(&r["findings"], "LBD224").is_none());
}

/// C-7, C-10, C-20, C-26: LBD115 says when the controller's release retries a pending Service and
/// where it shows its configuration.
#[test]
fn a_pending_service_says_when_its_release_retries() {
    let file = variant(
        "release-v0-14-9-cordoned.yaml",
        &[("status:\n  loadBalancer:\n    ingress:\n    - ip: 198.51.100.10\n", "status:\n  loadBalancer: {}\n")],
        "",
    );
    let hint = |release: &str| {
        let r = check_json(file.path(), &["--metallb-version", release]);
        finding(&web(&r)["findings"], "LBD115").expect("LBD115")["hint"].as_str().unwrap().to_string()
    };
    let old = hint("v0.13.7");
    assert!(old.contains("retries pending Services only when the pools change or a Service is deleted:"), "{old}");
    assert!(old.contains("metallb_k8s_client_config_stale_bool"), "{old}");
    let new = hint("v0.16.1");
    assert!(new.contains("ConfigurationState/controller"), "{new}");
    assert!(new.contains("or a Service's sharing key or traffic policy changes"), "{new}");
}

/// C-22: pool status counters exist from v0.15.0; `explain pools` says whether they are written.
#[test]
fn pool_status_is_written_from_v0_15_0() {
    let path = "testdata/scenarios/release-v0-14-9-cordoned.yaml";
    for (release, written) in [("v0.14.9", false), ("v0.15.0", true)] {
        let (stdout, stderr, _) =
            output(lbdoctor().args(["explain", "pools", "-o", "json", "--from", path, "--metallb-version", release]));
        let r: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
        assert_eq!(r["pools"][0]["statusWritten"], written, "{release}");
        assert_eq!(r["pools"][0]["counters"]["assignedIPv4"], 1, "{release}: the counters either way");
        let (text, _, _) =
            output(lbdoctor().args(["explain", "pools", "pool-a", "--from", path, "--metallb-version", release]));
        assert_eq!(text.contains("status: none, MetalLB writes it from v0.15.0"), !written, "{release}: {text}");
    }
}

/// Issue 47: MetalLB runs its BGP handler for every Service; with no BGPAdvertisement on the
/// pool every node answers notOwner, and the report says so.
#[test]
fn a_pool_without_bgp_advertisements_is_not_owned_over_bgp() {
    let r = check_json(std::path::Path::new("testdata/scenarios/release-v0-14-9-cordoned.yaml"), &[]);
    assert_eq!(web(&r)["metallb"]["bgpReason"], "notOwner");
    assert_eq!(web(&r)["metallb"]["bgp"], Value::Null);
    assert!(web(&r)["findings"].as_array().unwrap().iter().all(|f| f["code"] != "LBD130"));
    let r = check_json(std::path::Path::new("testdata/scenarios/bgp-two-routers.yaml"), &[]);
    for svc in r["services"].as_array().unwrap().iter().filter(|s| !s["metallb"]["bgp"].is_null()) {
        assert_eq!(svc["metallb"]["bgpReason"], Value::Null, "{}", svc["name"]);
    }
    let (text, _, _) = output(lbdoctor().args([
        "explain",
        "svc",
        "web",
        "-n",
        "default",
        "--from",
        "testdata/scenarios/release-v0-14-9-cordoned.yaml",
    ]));
    assert!(text.contains("BGP   no BGPAdvertisement selects pool pool-a: every node's BGP handler answers notOwner"));
}

/// B-5 through the binary: from v0.16.0 a BGPPeer that fails on the node it selects rejects the
/// configuration there only; the other node runs it, and the Service elected on the rejecting
/// node is flagged. Up to v0.15.3 every speaker rejects everything.
#[test]
fn from_v0_16_0_a_bad_bgp_peer_rejects_the_configuration_on_its_nodes_only() {
    let peer = "\n---\napiVersion: metallb.io/v1beta2\nkind: BGPPeer\nmetadata:\n  name: p-bad\n  namespace: metallb-system\nspec:\n  myASN: 64512\n  peerASN: 64513\n  peerAddress: 192.0.2.254\n  holdTime: 1s\n  nodeSelectors: [{matchLabels: {kubernetes.io/hostname: node-a}}]\n";
    let file = variant("release-v0-14-9-cordoned.yaml", &[], peer);
    let r = check_json(file.path(), &["--metallb-version", "v0.16.1"]);
    let f = finding(&r["findings"], "LBD201").expect("LBD201 on node-a");
    assert_eq!(
        f["message"],
        r#"MetalLB rejects the configuration on node-a only (from v0.16.0 each speaker parses just the BGPPeers and BGPAdvertisements that select its node; the other nodes run it): parsing peer p-bad invalid BGPPeer timers: invalid hold time "1s": must be 0 or >=3s"#
    );
    assert!(f["objects"].to_string().contains("Node node-a"), "{f}");
    let svc = web(&r);
    assert_eq!(svc["metallb"]["unknownBecause"], Value::Null);
    assert_eq!(svc["metallb"]["layer2"]["expectedAnnouncer"], "node-a");
    let lbd225 = finding(&svc["findings"], "LBD225").expect("LBD225: the winner rejects the configuration");
    assert!(lbd225["message"].as_str().unwrap().starts_with("node-a is elected to answer for 198.51.100.10"));
    let r = check_json(file.path(), &["--metallb-version", "v0.15.3"]);
    let f = finding(&r["findings"], "LBD201").expect("LBD201 everywhere");
    assert!(f["message"].as_str().unwrap().starts_with("MetalLB rejects the whole configuration: parsing peer p-bad"));
    assert!(web(&r)["metallb"]["unknownBecause"].is_string());
}

fn bgp_reason<'v>(svc: &'v Value, node: &str) -> &'v Value {
    let nodes = svc["metallb"]["bgp"]["nodes"].as_array().expect("bgp nodes");
    &nodes.iter().find(|n| n["node"] == node).unwrap_or_else(|| panic!("no {node}"))["reason"]
}

/// metallb-versions.md §5 through the binary: the exclude label stops BGP from v0.14.0 (B order),
/// and before v0.16.0 an unready endpoint sharing the ready one's address spoils it (B-3).
#[test]
fn bgp_checks_follow_the_speakers_release() {
    let path = std::path::Path::new("testdata/scenarios/bgp-two-routers.yaml");
    let svc = |r: &Value| r["services"].as_array().unwrap().iter().find(|s| s["name"] == "web").unwrap().clone();
    let r = check_json(path, &["--metallb-version", "v0.13.12"]);
    assert_eq!(*bgp_reason(&svc(&r), "cp-1"), "", "no exclude-label check before v0.14.0");
    let r = check_json(path, &["--metallb-version", "v0.14.0"]);
    assert_eq!(*bgp_reason(&svc(&r), "cp-1"), "nodeLabeledExcludeBalancers");

    let migrating = variant(
        "bgp-two-routers.yaml",
        &[(
            r#""endpoints": [{"addresses": ["10.244.0.10"], "nodeName": "worker-a", "conditions": {"ready": true, "serving": true, "terminating": false}}]}"#,
            r#""endpoints": [{"addresses": ["10.244.0.10"], "nodeName": "worker-a", "conditions": {"ready": true, "serving": true, "terminating": false}}, {"addresses": ["10.244.0.10"], "nodeName": "worker-a", "conditions": {"ready": false, "serving": false, "terminating": false}}]}"#,
        )],
        "",
    );
    let r = check_json(migrating.path(), &["--metallb-version", "v0.15.3"]);
    assert_eq!(*bgp_reason(&svc(&r), "worker-a"), "noEndpoints");
    let r = check_json(migrating.path(), &["--metallb-version", "v0.16.0"]);
    assert_eq!(*bgp_reason(&svc(&r), "worker-a"), "");
}

/// B-8: FRRConfigurations are written by frr-k8s mode, which exists from v0.14.0 only.
#[test]
fn frr_k8s_drift_is_judged_from_v0_14_0() {
    let path = std::path::Path::new("testdata/scenarios/bgp-frr-k8s-drift.yaml");
    let r = check_json(path, &["--metallb-version", "v0.14.0"]);
    assert!(finding(&r["findings"], "LBD215").is_some(), "{}", r["findings"]);
    let r = check_json(path, &["--metallb-version", "v0.13.12"]);
    assert!(finding(&r["findings"], "LBD215").is_none(), "{}", r["findings"]);
}
