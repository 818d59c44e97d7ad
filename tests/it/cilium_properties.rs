//! Properties of Cilium's Node IPAM (spec cilium.md §1.3–§1.4) over random clusters.

use std::collections::BTreeSet;

use k8s_openapi::api::core::v1::Node;
use lbdoctor::cilium::nodeipam::{self, family_of, Family, Input, Outcome};
use lbdoctor::snapshot::Service;
use proptest::prelude::*;
use serde_json::json;

#[derive(Debug, Clone)]
struct NodeSpec {
    excluded: bool,
    tainted: bool,
    deleting: bool,
    /// (external, v6, last octet)
    addresses: Vec<(bool, bool, u8)>,
    endpoint: bool,
}

fn node_strategy() -> impl Strategy<Value = NodeSpec> {
    (
        any::<bool>(),
        any::<bool>(),
        prop::bool::weighted(0.1),
        prop::collection::vec((any::<bool>(), any::<bool>(), 1u8..6), 0..4),
        any::<bool>(),
    )
        .prop_map(|(excluded, tainted, deleting, addresses, endpoint)| NodeSpec {
            excluded: excluded && tainted, // rarer than either alone
            tainted: tainted && !excluded,
            deleting,
            addresses,
            endpoint,
        })
}

fn address(external: bool, v6: bool, octet: u8) -> String {
    match (external, v6) {
        (false, false) => format!("192.0.2.{octet}"),
        (true, false) => format!("203.0.113.{octet}"),
        (false, true) => format!("2001:db8::{octet}"),
        (true, true) => format!("2001:db8:ffff::{octet}"),
    }
}

fn node(i: usize, n: &NodeSpec) -> Node {
    let mut labels = serde_json::Map::new();
    if n.excluded {
        labels.insert("node.kubernetes.io/exclude-from-external-load-balancers".into(), json!(""));
    }
    let taints: Vec<_> =
        if n.tainted { vec![json!({"key": "ToBeDeletedByClusterAutoscaler", "effect": "NoSchedule"})] } else { vec![] };
    let addresses: Vec<_> = n
        .addresses
        .iter()
        .map(|&(ext, v6, o)| json!({"type": if ext { "ExternalIP" } else { "InternalIP" }, "address": address(ext, v6, o)}))
        .collect();
    serde_json::from_value(json!({
        "metadata": {"name": format!("node-{i}"), "labels": labels,
                     "deletionTimestamp": if n.deleting { json!("2026-01-01T00:00:00Z") } else { json!(null) }},
        "spec": {"taints": taints},
        "status": {"addresses": addresses},
    }))
    .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn node_ipam_output_follows_its_rules(
        nodes in prop::collection::vec(node_strategy(), 0..7),
        families in prop::sample::select(vec![vec![], vec!["IPv4"], vec!["IPv6"], vec!["IPv4", "IPv6"], vec!["IPv6", "IPv4"]]),
        local in any::<bool>(),
    ) {
        let objects: Vec<Node> = nodes.iter().enumerate().map(|(i, n)| node(i, n)).collect();
        let svc: Service = serde_json::from_value(json!({
            "metadata": {"namespace": "default", "name": "web"},
            "spec": {"type": "LoadBalancer", "loadBalancerClass": "io.cilium/node", "ipFamilies": families,
                     "externalTrafficPolicy": if local { "Local" } else { "Cluster" }},
        })).unwrap();
        let ready: BTreeSet<String> =
            nodes.iter().enumerate().filter(|(_, n)| n.endpoint).map(|(i, _)| format!("node-{i}")).collect();
        let out = nodeipam::reconcile(&Input { service: &svc, nodes: &objects, ready_endpoint_nodes: &ready, default_nodeipam: false });
        let Outcome::Written(c) = out else { panic!("a handled Service without a selector always writes: {out:?}") };

        // One byte-wise sort, no duplicates.
        let mut sorted = c.ingress.clone();
        sorted.sort();
        sorted.dedup();
        prop_assert_eq!(&sorted, &c.ingress);

        let wants = (families.contains(&"IPv4"), families.contains(&"IPv6"));
        let wanted = |a: &str| match family_of(a) { Some(Family::V4) => wants.0, Some(Family::V6) => wants.1, None => false };
        // The candidates: no predicate and (under Local) an endpoint.
        let candidate = |i: usize| {
            let n = &nodes[i];
            !n.excluded && !n.tainted && !n.deleting && (!local || n.endpoint)
        };
        let external_exists = (0..nodes.len())
            .any(|i| candidate(i) && nodes[i].addresses.iter().any(|&(e, v6, o)| e && wanted(&address(e, v6, o))));
        prop_assert_eq!(c.chose_external, external_exists);
        let mut expected: Vec<String> = (0..nodes.len())
            .filter(|&i| candidate(i))
            .flat_map(|i| nodes[i].addresses.iter().filter(|&&(e, _, _)| e == external_exists).map(|&(e, v6, o)| address(e, v6, o)).collect::<Vec<_>>())
            .filter(|a| wanted(a))
            .collect();
        expected.sort();
        expected.dedup();
        prop_assert_eq!(&c.ingress, &expected);

        // A node is used exactly when it contributes, and every other node says why not.
        for row in &c.nodes {
            prop_assert_eq!(row.used, !row.addresses.is_empty());
            prop_assert_eq!(row.used, row.excluded_by.is_empty());
            for a in &row.addresses {
                prop_assert!(c.ingress.contains(a));
            }
        }
    }
}
