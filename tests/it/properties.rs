//! Properties of the election over random small clusters.

use lbdoctor::diagnose::{diagnose, Options, Scope};
use lbdoctor::metallb::install::Overrides;
use lbdoctor::snapshot::Snapshot;
use proptest::prelude::*;
use serde_json::{json, Value};

#[derive(Debug, Clone)]
struct NodeSpec {
    zone_a: bool,
    excluded: bool,
    unavailable: bool,
    speaker: Option<bool>,
}

#[derive(Debug, Clone)]
struct SvcSpec {
    ip: u8,
    local: bool,
    app_web: bool,
    endpoints: Vec<(usize, Option<bool>, Option<bool>)>,
}

fn node_strategy() -> impl Strategy<Value = NodeSpec> {
    (
        any::<bool>(),
        prop::bool::weighted(0.2),
        prop::bool::weighted(0.1),
        prop::option::weighted(0.9, prop::bool::weighted(0.85)),
    )
        .prop_map(|(zone_a, excluded, unavailable, speaker)| NodeSpec { zone_a, excluded, unavailable, speaker })
}

fn svc_strategy() -> impl Strategy<Value = SvcSpec> {
    (
        1u8..250,
        any::<bool>(),
        any::<bool>(),
        prop::collection::vec((0usize..8, prop::option::of(any::<bool>()), prop::option::of(any::<bool>())), 0..4),
    )
        .prop_map(|(ip, local, app_web, endpoints)| SvcSpec { ip, local, app_web, endpoints })
}

fn objects(nodes: &[NodeSpec], ads: &[u8], svcs: &[SvcSpec]) -> Vec<Value> {
    let mut out = vec![json!({"apiVersion": "metallb.io/v1beta1", "kind": "IPAddressPool",
        "metadata": {"name": "pool", "namespace": "metallb-system"}, "spec": {"addresses": ["198.51.100.0/24"]}})];
    for (i, n) in nodes.iter().enumerate() {
        let mut labels = json!({"zone": if n.zone_a { "a" } else { "b" }});
        if n.excluded {
            labels["node.kubernetes.io/exclude-from-external-load-balancers"] = json!("");
        }
        out.push(json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": format!("node-{i}"), "labels": labels},
            "status": {"conditions": [{"type": "NetworkUnavailable", "status": if n.unavailable { "True" } else { "False" }}]}}));
        if let Some(ready) = n.speaker {
            out.push(json!({"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": format!("speaker-{i}"), "namespace": "metallb-system", "labels": {"app": "metallb", "component": "speaker"}},
                "spec": {"nodeName": format!("node-{i}"), "containers": [{"name": "speaker", "image": "quay.io/metallb/speaker:v0.16.1"}]},
                "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": if ready { "True" } else { "False" }}]}}));
        }
    }
    for (i, shape) in ads.iter().enumerate() {
        let spec = match shape % 4 {
            0 => json!({}),
            1 => json!({"nodeSelectors": [{"matchLabels": {"zone": "a"}}]}),
            2 => {
                json!({"nodeSelectors": [{"matchLabels": {"zone": "b"}}], "serviceSelectors": [{"matchLabels": {"app": "web"}}]})
            }
            _ => {
                json!({"nodeSelectors": [{"matchExpressions": [{"key": "node.kubernetes.io/exclude-from-external-load-balancers", "operator": "Exists"}]}]})
            }
        };
        out.push(json!({"apiVersion": "metallb.io/v1beta1", "kind": "L2Advertisement",
            "metadata": {"name": format!("ad-{i}"), "namespace": "metallb-system"}, "spec": spec}));
    }
    for (i, s) in svcs.iter().enumerate() {
        out.push(json!({"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": format!("svc-{i}"), "namespace": "default", "labels": {"app": if s.app_web { "web" } else { "db" }}},
            "spec": {"type": "LoadBalancer", "externalTrafficPolicy": if s.local { "Local" } else { "Cluster" }},
            "status": {"loadBalancer": {"ingress": [{"ip": format!("198.51.100.{}", s.ip)}]}}}));
        let eps: Vec<Value> = s
            .endpoints
            .iter()
            .map(|(node, ready, serving)| {
                json!({"addresses": ["10.244.0.1"], "nodeName": format!("node-{}", node % nodes.len().max(1)),
                "conditions": {"ready": ready, "serving": serving}})
            })
            .collect();
        out.push(json!({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"name": format!("svc-{i}-x"), "namespace": "default", "labels": {"kubernetes.io/service-name": format!("svc-{i}")}},
            "addressType": "IPv4", "endpoints": eps}));
    }
    out
}

fn snapshot_of(objects: &[Value]) -> Snapshot {
    let list = json!({"apiVersion": "v1", "kind": "List", "items": objects}).to_string();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.json");
    std::fs::write(&file, list).unwrap();
    lbdoctor::snapshot::load_paths(&[file.to_str().unwrap().to_string()], &mut std::io::empty()).unwrap()
}

fn report(snap: &Snapshot, detail: bool) -> Value {
    let opts = Options { scope: Scope::All, detail, map: false, overrides: Overrides::default() };
    serde_json::to_value(diagnose(snap, &opts).unwrap()).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn the_winner_is_always_a_candidate_and_the_only_announcer(
        nodes in prop::collection::vec(node_strategy(), 1..8),
        ads in prop::collection::vec(0u8..4, 0..3),
        svcs in prop::collection::vec(svc_strategy(), 1..5),
    ) {
        let r = report(&snapshot_of(&objects(&nodes, &ads, &svcs)), true);
        for svc in r["services"].as_array().unwrap() {
            let Some(l2) = svc["metallb"]["layer2"].as_object() else { continue };
            let announcers: Vec<&Value> = l2["nodes"].as_array().unwrap().iter().filter(|n| n["reason"] == "").collect();
            match l2["expectedAnnouncer"].as_str() {
                Some(winner) => {
                    let row = l2["nodes"].as_array().unwrap().iter().find(|n| n["node"] == winner).unwrap();
                    prop_assert_eq!(&row["rank"], &json!(1));
                    prop_assert_eq!(&row["excludedBy"], &json!([]));
                    prop_assert!(announcers.len() <= 1);
                    if let Some(a) = announcers.first() { prop_assert_eq!(a["node"].as_str(), Some(winner)); }
                }
                None => prop_assert!(announcers.is_empty()),
            }
        }
    }

    #[test]
    fn object_order_changes_nothing(
        nodes in prop::collection::vec(node_strategy(), 1..8),
        ads in prop::collection::vec(0u8..4, 0..3),
        svcs in prop::collection::vec(svc_strategy(), 1..5),
        seed in any::<u64>(),
    ) {
        let objs = objects(&nodes, &ads, &svcs);
        let mut shuffled = objs.clone();
        let mut state = seed | 1;
        for i in (1..shuffled.len()).rev() {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17;
            shuffled.swap(i, (state % (i as u64 + 1)) as usize);
        }
        let a = report(&snapshot_of(&objs), true);
        let b = report(&snapshot_of(&shuffled), true);
        prop_assert_eq!(a, b);
    }

    #[test]
    fn summary_and_detail_agree_on_the_winner(
        nodes in prop::collection::vec(node_strategy(), 1..8),
        ads in prop::collection::vec(0u8..4, 0..3),
        svcs in prop::collection::vec(svc_strategy(), 1..5),
    ) {
        let snap = snapshot_of(&objects(&nodes, &ads, &svcs));
        let (full, quick) = (report(&snap, true), report(&snap, false));
        for (f, q) in full["services"].as_array().unwrap().iter().zip(quick["services"].as_array().unwrap()) {
            prop_assert_eq!(&f["metallb"]["layer2"]["expectedAnnouncer"], &q["metallb"]["layer2"]["expectedAnnouncer"]);
            prop_assert_eq!(&f["findings"], &q["findings"]);
        }
    }
}
