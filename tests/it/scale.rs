//! The report's shape on a large cluster: bounded JSON, root causes once, an `explain` that fits
//! a screen. The clusters are generated here (1,000 nodes), not stored.

use serde_json::{json, Value};

use crate::util::{lbdoctor, output, parse_json};

/// `nodes` Nodes (node-0000…), speakers on all but every 50th, every 100th NetworkUnavailable,
/// the first three control-plane nodes exclude-labelled, an L2Advertisement for the even
/// (zone a) nodes, and `services` Services with three endpoints each (odd ones eTP Local). With
/// `buggy` every Service's IP ends in `.0` (LBD113 on each).
fn cluster(nodes: usize, services: usize, buggy: bool) -> tempfile::NamedTempFile {
    let mut items = vec![
        json!({"apiVersion": "lbdoctor/v1alpha1", "kind": "SnapshotInfo", "metadata": {"name": "snapshot"},
        "spec": {"capturedAt": "2026-11-29T08:00:00Z", "metallb": {"namespace": "metallb-system", "memberlist": "enabled", "version": "v0.16.1"}}}),
    ];
    for i in 0..nodes {
        let name = format!("node-{i:04}");
        let mut labels = json!({"kubernetes.io/hostname": name, "zone": if i % 2 == 0 { "a" } else { "b" }});
        if i < 3 {
            labels["node-role.kubernetes.io/control-plane"] = json!("");
            labels["node.kubernetes.io/exclude-from-external-load-balancers"] = json!("");
        }
        let mut conditions = vec![json!({"type": "Ready", "status": "True"})];
        if i % 100 == 7 {
            conditions.push(json!({"type": "NetworkUnavailable", "status": "True"}));
        }
        items.push(json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
            "status": {"conditions": conditions, "addresses": [{"type": "InternalIP", "address": format!("10.{}.{}.1", i / 250, i % 250)}]}}));
        if i % 50 != 9 {
            items.push(json!({"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": format!("speaker-{i:04}"), "namespace": "metallb-system", "labels": {"app": "metallb", "component": "speaker"}},
                "spec": {"nodeName": name, "containers": [{"name": "speaker", "image": "quay.io/metallb/speaker:v0.16.1"}]},
                "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}}));
        }
    }
    items.push(json!({"apiVersion": "metallb.io/v1beta1", "kind": "IPAddressPool", "metadata": {"name": "pool", "namespace": "metallb-system"},
        "spec": {"addresses": ["198.18.0.0/16"]}}));
    items.push(json!({"apiVersion": "metallb.io/v1beta1", "kind": "L2Advertisement", "metadata": {"name": "zone-a", "namespace": "metallb-system"},
        "spec": {"ipAddressPools": ["pool"], "nodeSelectors": [{"matchLabels": {"zone": "a"}}]}}));
    for k in 0..services {
        let name = format!("web-{k:03}");
        let ip = if buggy { format!("198.18.{k}.0") } else { format!("198.18.{}.{}", k / 250, k % 250 + 1) };
        items.push(json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": "default"},
            "spec": {"type": "LoadBalancer", "externalTrafficPolicy": if k % 2 == 1 { "Local" } else { "Cluster" },
                "clusterIP": "10.96.0.10", "clusterIPs": ["10.96.0.10"], "ipFamilies": ["IPv4"], "selector": {"app": name},
                "ports": [{"port": 80, "protocol": "TCP"}]},
            "status": {"loadBalancer": {"ingress": [{"ip": ip}]}}}));
        let endpoints: Vec<Value> = (0..3)
            .map(|j| {
                json!({"addresses": [format!("10.244.{j}.{}", k % 250)], "conditions": {"ready": true, "serving": true},
                "nodeName": format!("node-{:04}", (k * 7 + j * 13) % nodes)})
            })
            .collect();
        items.push(json!({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"name": format!("{name}-x"), "namespace": "default", "labels": {"kubernetes.io/service-name": name}},
            "addressType": "IPv4", "endpoints": endpoints, "ports": [{"port": 8080, "protocol": "TCP"}]}));
    }
    let file = tempfile::Builder::new().suffix(".json").tempfile().unwrap();
    std::fs::write(file.path(), json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string()).unwrap();
    file
}

fn run_cols(columns: Option<&str>, args: &[&str]) -> (String, i32) {
    let mut cmd = lbdoctor();
    if let Some(c) = columns {
        cmd.env("COLUMNS", c);
    }
    let (stdout, stderr, code) = output(cmd.args(args));
    assert!(code <= 1, "{args:?}: exit {code}: {stderr}");
    (stdout, code)
}

fn widest(text: &str) -> usize {
    text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

#[test]
fn explain_on_1000_nodes_fits_a_screen_and_nodes_all_lists_every_node() {
    let file = cluster(1000, 1, false);
    let path = file.path().to_str().unwrap();
    let (text, _) = run_cols(Some("120"), &["explain", "svc", "web-000", "--from", path]);
    assert!(text.lines().count() <= 80, "{} lines:\n{text}", text.lines().count());
    assert!(widest(&text) <= 120, "{} columns:\n{text}", widest(&text));
    // Verdict first, then the head of the order, then a line per filter.
    let verdict = text.lines().position(|l| l.contains(" announces 198.18.0.1;")).expect(&text);
    let ranks = text.lines().position(|l| l.starts_with("RANK")).expect(&text);
    assert!(verdict < ranks, "{text}");
    assert!(text.contains("469 nodes: not selected by the Service's L2Advertisements"), "{text}");
    assert!(text.contains("20 nodes: no live speaker"), "{text}");
    insta::assert_snapshot!("explain_1000_nodes_120_columns", text);
    let (narrow, _) = run_cols(Some("80"), &["explain", "svc", "web-000", "--from", path]);
    assert!(widest(&narrow) <= 80, "{narrow}");
    insta::assert_snapshot!("explain_1000_nodes_80_columns", narrow);

    let (all, _) = run_cols(Some("120"), &["explain", "svc", "web-000", "--nodes", "all", "--from", path]);
    for i in [0, 1, 499, 998, 999] {
        assert!(all.lines().any(|l| l.contains(&format!(" node-{i:04} "))), "node-{i:04} missing");
    }
    assert!(all.lines().count() > 1000);
}

#[test]
fn check_json_grows_with_nodes_plus_services_even_when_every_service_warns() {
    for buggy in [false, true] {
        let file = cluster(1000, 200, buggy);
        let (text, _) = run_cols(None, &["check", "-o", "json", "--from", file.path().to_str().unwrap()]);
        let report = parse_json(&text, "");
        let services = report["services"].as_array().unwrap();
        assert_eq!(services.len(), 200);
        if buggy {
            assert!(services.iter().all(|s| s["findings"].as_array().unwrap().iter().any(|f| f["code"] == "LBD113")));
        }
        // A Service's part does not grow with the node count: every node list is cut at 10.
        for s in services {
            let l2 = &s["metallb"]["layer2"];
            assert!(l2["nodes"].is_null());
            assert!(l2["ranks"].as_array().unwrap().len() <= 3);
            for g in l2["excluded"].as_array().unwrap() {
                assert!(g["nodes"].as_array().is_none_or(|n| n.len() <= 10), "{g}");
            }
            let size = s.to_string().len();
            assert!(size < 5_000, "{} {}: {size} bytes", s["namespace"], s["name"]);
        }
        assert_eq!(report["nodes"].as_array().unwrap().len(), 1000);
        // Measured: about 3 KB per Service and 100 bytes per node, pretty-printed.
        let budget = 200 * 5_000 + 1000 * 400;
        assert!(text.len() < budget, "{} bytes for 1,000 nodes and 200 Services", text.len());
    }
}

#[test]
fn the_groups_partition_the_nodes_as_the_per_node_rows_do() {
    let file = cluster(300, 20, false);
    let path = file.path().to_str().unwrap();
    let (top, _) = run_cols(None, &["check", "-o", "json", "--from", path]);
    let (all, _) = run_cols(None, &["check", "-o", "json", "--nodes", "all", "--from", path]);
    let (top, all) = (parse_json(&top, ""), parse_json(&all, ""));
    for (t, a) in top["services"].as_array().unwrap().iter().zip(all["services"].as_array().unwrap()) {
        let rows = a["metallb"]["layer2"]["nodes"].as_array().unwrap();
        let mut first: std::collections::BTreeMap<String, usize> = Default::default();
        for r in rows {
            if let Some(x) = r["excludedBy"].as_array().unwrap().first() {
                *first.entry(x.as_str().unwrap().to_string()).or_default() += 1;
            }
        }
        let groups: std::collections::BTreeMap<String, usize> = t["metallb"]["layer2"]["excluded"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| (g["excludedBy"].as_str().unwrap().to_string(), g["count"].as_u64().unwrap() as usize))
            .collect();
        assert_eq!(groups, first, "{}", t["name"]);
        let ranked: Vec<&Value> = rows.iter().filter(|r| !r["rank"].is_null()).take(5).collect();
        for (r, row) in t["metallb"]["layer2"]["ranks"].as_array().unwrap().iter().zip(ranked) {
            assert_eq!((&r["node"], &r["hash"]), (&row["node"], &row["hash"]));
        }
        // The verdict is written from the groups: the same clauses with or without rows, the
        // large groups counted rather than named in a list of Services.
        let clauses = |v: &Value| -> Vec<String> {
            v.as_str().unwrap().split("; ").map(|c| c.split(' ').next().unwrap().to_string()).collect()
        };
        assert_eq!(clauses(&t["metallb"]["layer2"]["verdict"]), clauses(&a["metallb"]["layer2"]["verdict"]));
        assert!(t["metallb"]["layer2"]["ranks"].as_array().unwrap().len() <= 3);
    }
}

/// A large cluster in a terminal: the Services with findings first, worst first, then a count of
/// the healthy ones and how to list them; every row with `--all`, `-o wide`, in a pipe or with
/// `--no-headers`. A small cluster keeps its full list.
#[test]
fn check_lists_problems_first_on_a_large_cluster() {
    let file = cluster(100, 120, false);
    let path = file.path().to_str().unwrap();
    let (report, _) = crate::util::json(&["check", "--from", path, "-o", "json"]);
    let services = report["services"].as_array().unwrap();
    let ok = services.iter().filter(|s| s["status"] == "ok" && s["findings"].as_array().unwrap().is_empty()).count();
    assert!(ok > 0 && ok < services.len(), "{ok} of {}", services.len());
    let (text, _) = run_cols(Some("100"), &["check", "--from", path]);
    let rows: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("NAMESPACE"))
        .skip(1)
        .take_while(|l| l.starts_with("default "))
        .collect();
    assert_eq!(rows.len(), services.len() - ok, "{text}");
    let status = |row: &str| row.split_whitespace().nth(5).unwrap_or_default().to_string();
    assert!(rows.iter().all(|r| status(r) != "ok" || !r.ends_with(" -")), "{text}");
    assert!(text.contains(&format!("… and {ok} more Services are ok: -o wide or --all lists them")), "{text}");
    for every in [vec!["--all"], vec!["-o", "wide"], vec!["--no-headers"]] {
        let mut args = vec!["check", "--from", path];
        args.extend(every.iter().copied());
        let (text, _) = run_cols(Some("100"), &args);
        assert_eq!(text.lines().filter(|l| l.starts_with("default ")).count(), services.len(), "{every:?}");
    }
    let (piped, _) = run_cols(None, &["check", "--from", path]);
    assert_eq!(piped.lines().filter(|l| l.starts_with("default ")).count(), services.len());
    let (small, _) = run_cols(Some("100"), &["check", "--demo"]);
    let rows = small.lines().skip_while(|l| !l.starts_with("NAMESPACE")).skip(1).take_while(|l| !l.is_empty());
    assert_eq!(rows.count(), 10, "a small cluster keeps every row: {small}");
}

/// At 40, 80 and 120 columns a 1,000-node cluster's `check` and `explain` fit the width: a line
/// is wider only when it is one word (an identifier is never cut).
#[test]
fn a_1000_node_cluster_fits_40_80_and_120_columns() {
    let file = cluster(1000, 60, true);
    let path = file.path().to_str().unwrap();
    for width in ["40", "80", "120"] {
        let w: usize = width.parse().unwrap();
        for args in [
            vec!["check", "--from", path],
            vec!["explain", "svc", "web-000", "--from", path],
            vec!["explain", "pools", "--from", path],
        ] {
            let (text, _) = run_cols(Some(width), &args);
            for line in text.lines() {
                assert!(line.chars().count() <= w || !line.trim().contains(' '), "{args:?} at {w}: {line:?}");
            }
        }
    }
}
