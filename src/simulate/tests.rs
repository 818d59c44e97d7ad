//! `check --spof` against `simulate --down`, node by node: the per-node shortcut must give the
//! second run's answer exactly.

use serde_json::{json, Value};

use super::*;
use crate::snapshot::Snapshot;

fn load(file: &str) -> Snapshot {
    crate::snapshot::load_paths(&[file.to_string()], &mut std::io::empty()).unwrap()
}

/// `check --spof` as check runs it.
fn spof(snap: &Snapshot, report: &Report, opts: &Options) -> Result<Vec<SpofNode>, SimulateError> {
    let world = World::build(snap, &opts.overrides);
    world.run_replay();
    spof_in(snap, &world, &Prepared::new(snap, &world), report, opts)
}

/// Every scenario and demo cluster the engines answer for (a rejected one has nothing to move).
fn diagnosable_scenarios() -> Vec<(String, Snapshot)> {
    crate::snapshot::scenario_files()
        .into_iter()
        .map(|file| {
            let snap = load(&file);
            (file, snap)
        })
        .filter(|(_, snap)| diagnose::diagnose(snap, &brief()).is_ok())
        .collect()
}

fn brief() -> Options {
    Options { scope: Scope::All, detail: false, map: false, overrides: Default::default() }
}

/// Every node's spof entry is the losses of `simulate --down` on it, Change for Change; the
/// answer says whether the MetalLB-only shortcut was taken.
fn assert_spof_is_simulate_down(snap: &Snapshot, what: &str) -> bool {
    let report = diagnose::diagnose(snap, &brief()).unwrap();
    let spof = spof(snap, &report, &brief()).unwrap();
    let names: Vec<&str> = snap.nodes.iter().filter_map(|n| n.metadata.name.as_deref()).collect();
    for node in &names {
        let sim = simulate(snap, &[Edit::Down(node.to_string())], &brief()).unwrap();
        let lost: Vec<&Change> = sim.changes.iter().filter(|c| is_loss(c)).collect();
        let listed: Vec<&Change> = spof.iter().filter(|n| n.node == *node).flat_map(|n| &n.losses).collect();
        assert_eq!(json!(listed), json!(lost), "{what}: --down {node}");
    }
    assert!(spof.iter().all(|n| names.contains(&n.node.as_str())), "{what}");
    let world = World::build(snap, &Default::default());
    Prepared::new(snap, &world).metallb_only()
}

#[test]
fn spof_is_simulate_down_on_every_scenario_and_node() {
    let mut shortcut = 0;
    for (file, snap) in diagnosable_scenarios() {
        shortcut += usize::from(assert_spof_is_simulate_down(&snap, &file));
    }
    assert!(shortcut > 20, "only {shortcut} scenarios took the MetalLB-only shortcut");
}

/// A mid-size cluster with what makes a node a single point of failure: Services whose only
/// endpoints sit on one node (eTP Cluster and Local), shared IPs, a pool announced over BGP by
/// nodes with endpoints, nodes without a speaker or excluded; with memberlist on and off.
#[test]
fn spof_is_simulate_down_on_a_mid_size_cluster() {
    for memberlist in ["enabled", "disabled"] {
        let snap = mid_size(40, 120, memberlist);
        let file = tempfile::Builder::new().suffix(".json").tempfile().unwrap();
        std::fs::write(file.path(), snap.to_string()).unwrap();
        let snap = load(&file.path().display().to_string());
        let report = diagnose::diagnose(&snap, &brief()).unwrap();
        let spof = spof(&snap, &report, &brief()).unwrap();
        let losses: usize = spof.iter().map(|n| n.losses.len()).sum();
        let protocols: std::collections::BTreeSet<&str> =
            spof.iter().flat_map(|n| &n.losses).map(|c| c.protocol).collect();
        assert!(losses > 20 && protocols.len() == 2, "{memberlist}: {losses} losses over {protocols:?}");
        assert!(assert_spof_is_simulate_down(&snap, memberlist), "MetalLB only: the shortcut");
    }
}

fn mid_size(nodes: usize, services: usize, memberlist: &str) -> Value {
    let ns = "metallb-system";
    let mut items =
        vec![json!({"apiVersion": "lbdoctor/v1alpha1", "kind": "SnapshotInfo", "metadata": {"name": "snapshot"},
        "spec": {"metallb": {"namespace": ns, "memberlist": memberlist, "version": "v0.16.1"}}})];
    for i in 0..nodes {
        let name = format!("node-{i:02}");
        let mut labels = json!({"kubernetes.io/hostname": name, "zone": if i % 2 == 0 { "a" } else { "b" }});
        if i % 13 == 0 {
            labels["node.kubernetes.io/exclude-from-external-load-balancers"] = json!("");
        }
        items.push(json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
            "status": {"conditions": [{"type": "Ready", "status": "True"}]}}));
        if i % 11 != 5 {
            items.push(json!({"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": format!("speaker-{i:02}"), "namespace": ns, "labels": {"app": "metallb", "component": "speaker"}},
                "spec": {"nodeName": name, "containers": [{"name": "speaker", "image": "quay.io/metallb/speaker:v0.16.1"}]},
                "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}}));
        }
    }
    for (name, cidr) in [("l2", "192.0.2.0/24"), ("bgp", "198.51.100.0/24")] {
        items.push(json!({"apiVersion": "metallb.io/v1beta1", "kind": "IPAddressPool", "metadata": {"name": name, "namespace": ns},
            "spec": {"addresses": [cidr]}}));
    }
    items.push(json!({"apiVersion": "metallb.io/v1beta1", "kind": "L2Advertisement", "metadata": {"name": "zone-a", "namespace": ns},
        "spec": {"ipAddressPools": ["l2"], "nodeSelectors": [{"matchLabels": {"zone": "a"}}]}}));
    items.push(
        json!({"apiVersion": "metallb.io/v1beta2", "kind": "BGPPeer", "metadata": {"name": "tor", "namespace": ns},
        "spec": {"myASN": 64512, "peerASN": 64512, "peerAddress": "198.51.100.254"}}),
    );
    items.push(json!({"apiVersion": "metallb.io/v1beta1", "kind": "BGPAdvertisement", "metadata": {"name": "to-tor", "namespace": ns},
        "spec": {"ipAddressPools": ["bgp"]}}));
    for k in 0..services {
        let name = format!("svc-{k:03}");
        let bgp = k % 5 == 4;
        // Every seventh pair of Services shares one IP.
        let host = if k % 7 == 1 { k - 1 } else { k };
        let ip = if bgp { format!("198.51.100.{}", host % 250 + 1) } else { format!("192.0.2.{}", host % 250 + 1) };
        let mut metadata = json!({"name": name, "namespace": "default"});
        if k % 7 <= 1 {
            metadata["annotations"] = json!({"metallb.io/allow-shared-ip": "pair"});
        }
        let local = k % 3 == 1 && k % 7 > 1;
        items.push(json!({"apiVersion": "v1", "kind": "Service", "metadata": metadata,
            "spec": {"type": "LoadBalancer", "externalTrafficPolicy": if local { "Local" } else { "Cluster" },
                "selector": {"app": name}, "ports": [{"port": 80 + (k % 7 == 1) as u16, "protocol": "TCP"}]},
            "status": {"loadBalancer": {"ingress": [{"ip": ip}]}}}));
        // One, two or three endpoint nodes; some not ready.
        let endpoints: Vec<Value> = (0..(k % 3 + 1))
            .map(|j| {
                json!({"addresses": [format!("10.244.{j}.{}", k % 250)], "conditions": {"ready": (k + j) % 9 != 0},
                    "nodeName": format!("node-{:02}", (k * 7 + j * 13) % nodes)})
            })
            .collect();
        items.push(json!({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"name": format!("{name}-x"), "namespace": "default", "labels": {"kubernetes.io/service-name": name}},
            "addressType": "IPv4", "endpoints": endpoints}));
    }
    json!({"apiVersion": "v1", "kind": "List", "items": items})
}

/// `simulate` as it was first written: two detailed runs of every engine (every Service's
/// per-node rows) and their whole diff. The brief runs must give its answer exactly.
fn simulate_by_two_detailed_runs(snap: &Snapshot, edits: &[Edit], opts: &Options) -> Simulation {
    let mut base = snap.clone();
    edit::forget_observations(&mut base);
    let (after_snap, applied) = edit::apply(&base, edits).unwrap();
    let opts = Options { detail: true, ..opts.clone() };
    let before = diagnose::diagnose(&base, &opts).unwrap();
    let after = diagnose::diagnose(&after_snap, &opts).unwrap();
    let changes = diff::changes(&before, &after, &deleted_nodes(&base, &after_snap));
    simulation(before, &after, applied, changes)
}

/// Per node: down, deleted, its speaker down, the exclude label set, its first label removed.
fn node_edits(snap: &Snapshot) -> Vec<Vec<Edit>> {
    let mut out = Vec::new();
    for n in &snap.nodes {
        let node = n.metadata.name.clone().unwrap_or_default();
        out.push(vec![Edit::Down(node.clone())]);
        out.push(vec![Edit::Delete(node.clone())]);
        out.push(vec![Edit::SpeakerDown(node.clone())]);
        out.push(vec![edit::label_edit(&node, "node.kubernetes.io/exclude-from-external-load-balancers=").unwrap()]);
        if let Some(key) = n.metadata.labels.as_ref().and_then(|l| l.keys().next()) {
            out.push(vec![Edit::Unlabel { node: node.clone(), key: key.clone() }]);
        }
    }
    out
}

fn assert_simulate_is_two_detailed_runs(snap: &Snapshot, edits: &[Edit], what: &str) -> bool {
    let fast = simulate(snap, edits, &brief()).unwrap();
    let full = simulate_by_two_detailed_runs(snap, edits, &brief());
    assert_eq!(json!(fast), json!(full), "{what}: {edits:?}");
    !full.changes.is_empty()
}

#[test]
fn simulate_is_two_detailed_runs_on_every_scenario_and_edit() {
    let mut moved = 0;
    for (file, snap) in diagnosable_scenarios() {
        for edits in node_edits(&snap) {
            moved += usize::from(assert_simulate_is_two_detailed_runs(&snap, &edits, &file));
        }
    }
    // An applied file: the edited L2Advertisement of the homelab's fix.
    let homelab = load("testdata/clusters/homelab-trap.yaml");
    let fix = load("testdata/simulate/l2-workers.yaml");
    let apply = Edit::Apply { file: "testdata/simulate/l2-workers.yaml".into(), objects: Box::new(fix) };
    assert!(assert_simulate_is_two_detailed_runs(&homelab, &[apply], "the trap's fix"));
    assert!(moved > 100, "only {moved} edits moved anything");
}

#[test]
fn simulate_is_two_detailed_runs_on_a_mid_size_cluster() {
    for memberlist in ["enabled", "disabled"] {
        let file = tempfile::Builder::new().suffix(".json").tempfile().unwrap();
        std::fs::write(file.path(), mid_size(40, 120, memberlist).to_string()).unwrap();
        let snap = load(&file.path().display().to_string());
        for edits in node_edits(&snap).into_iter().step_by(7) {
            assert_simulate_is_two_detailed_runs(&snap, &edits, memberlist);
        }
    }
}
