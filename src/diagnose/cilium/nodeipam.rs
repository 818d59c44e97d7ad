//! Node IPAM's verdict in the report, and LBD121–LBD124.

use super::super::implementations::Implementations;
use super::Subject;
use crate::cilium::nodeipam::{self, Outcome};
use crate::metallb::service::ingress_ips;
use crate::report::{Code, Finding, NodeIpam, NodeIpamNode};
use crate::snapshot::Snapshot;

pub(super) fn report(
    snap: &Snapshot,
    imps: &Implementations,
    subject: &Subject,
    findings: &mut Vec<Finding>,
) -> Option<NodeIpam> {
    let Subject { svc, namespace, name, object } = subject;
    let input = nodeipam::Input {
        service: svc,
        nodes: &snap.nodes,
        ready_endpoint_nodes: &imps.ready_endpoints(namespace, name),
        default_nodeipam: imps.cilium.default_is("nodeipam"),
    };
    let actual: Vec<String> = ingress_ips(svc);
    match nodeipam::reconcile(&input) {
        Outcome::NotHandled(_) => None,
        Outcome::SelectorError { selector, error } => {
            findings.push(Finding::new(
                Code::LBD123,
                format!("the {} annotation {selector:?} is not a valid label selector ({error}); Node IPAM's reconcile fails and keeps the old status [{}]", nodeipam::MATCH_NODE_LABELS, actual.join(", ")),
                "Fix the annotation: a kubectl -l style selector such as `role=edge,zone in (a,b)`; check it with `kubectl get nodes -l '<selector>'`",
                vec![object.clone()],
            ));
            Some(NodeIpam {
                expected_ingress: actual.clone(),
                actual_ingress: actual,
                match_node_labels: Some(selector),
                selector_error: Some(error),
                no_nodes_warning: false,
                chose_external: false,
                families_lost_to_external: Vec::new(),
                nodes: Vec::new(),
            })
        }
        Outcome::Written(c) => {
            if c.ingress.is_empty() {
                findings.push(Finding::new(
                    Code::LBD122,
                    format!("Node IPAM writes an empty ingress list, so the Service is pending: {}", empty_cause(&c)),
                    empty_hint(&c),
                    vec![object.clone()],
                ));
            } else if c.ingress != actual {
                let preferred: Vec<&str> = c
                    .nodes
                    .iter()
                    .filter(|n| n.excluded_by.contains(&nodeipam::Exclusion::ExternalPreferred))
                    .map(|n| n.node.as_str())
                    .collect();
                let cause = if preferred.is_empty() {
                    String::new()
                } else {
                    let with_external: Vec<&str> = c.nodes.iter().filter(|n| n.used).map(|n| n.node.as_str()).collect();
                    format!(
                        ": {} {} an ExternalIP, so Node IPAM uses ExternalIPs only (all or nothing) and {} {} nothing",
                        with_external.join(", "),
                        if with_external.len() == 1 { "has" } else { "have" },
                        preferred.join(", "),
                        if preferred.len() == 1 { "contributes" } else { "contribute" }
                    )
                };
                findings.push(Finding::new(
                    Code::LBD121,
                    format!("status.loadBalancer.ingress is [{}], Node IPAM would write [{}]{cause}", actual.join(", "), c.ingress.join(", ")),
                    format!("Node IPAM rewrites the status on its next reconcile of this Service; if it stays different, check that cilium-operator runs with enable-node-ipam and whether another controller also writes this Service's status ({})", Code::LBD120),
                    vec![object.clone()],
                ));
            }
            if !c.families_lost_to_external.is_empty() {
                let lost: Vec<&str> = c.families_lost_to_external.iter().map(|f| f.as_str()).collect();
                findings.push(Finding::new(
                    Code::LBD124,
                    format!("{} requested, but no {} address: a node has an ExternalIP, so Node IPAM uses ExternalIPs only (one choice for both families) and drops every InternalIP", families_text(c.wants), lost.join("/")),
                    "Give every candidate node an ExternalIP of each family, remove the stray ExternalIP, or restrict the Service to the nodes you want with io.cilium.nodeipam/match-node-labels",
                    vec![object.clone()],
                ));
            }
            let ingress = c.ingress.clone();
            Some(NodeIpam {
                expected_ingress: ingress,
                actual_ingress: actual,
                match_node_labels: c.selector,
                selector_error: None,
                no_nodes_warning: c.no_nodes_warning,
                chose_external: c.chose_external,
                families_lost_to_external: c.families_lost_to_external.iter().map(|f| f.as_str()).collect(),
                nodes: c
                    .nodes
                    .into_iter()
                    .map(|n| NodeIpamNode {
                        node: n.node,
                        used: n.used,
                        excluded_by: n.excluded_by,
                        addresses: n.addresses,
                    })
                    .collect(),
            })
        }
    }
}

fn families_text(wants: (bool, bool)) -> &'static str {
    match wants {
        (true, true) => "IPv4 and IPv6",
        (true, false) => "IPv4",
        (false, true) => "IPv6",
        (false, false) => "no family",
    }
}

fn empty_cause(c: &nodeipam::Computed) -> String {
    use nodeipam::Exclusion::*;
    if c.wants == (false, false) {
        return "spec.ipFamilies is empty".into();
    }
    if c.no_nodes_warning {
        return format!("no Node matches the match-node-labels selector {:?} (Cilium logs \"No Nodes found with configured label selector\")", c.selector.as_deref().unwrap_or(""));
    }
    if c.nodes.is_empty() {
        return "the snapshot has no Node objects".into();
    }
    let count = |x: nodeipam::Exclusion| c.nodes.iter().filter(|n| n.excluded_by.contains(&x)).count();
    let mut parts: Vec<(usize, &str)> = Vec::new();
    for (x, what) in [
        (NotMatchingNodeLabels, "do not match match-node-labels"),
        (Deleting, "are being deleted"),
        (ExcludeLabel, "carry node.kubernetes.io/exclude-from-external-load-balancers"),
        (ToBeDeletedTaint, "carry the ToBeDeletedByClusterAutoscaler taint"),
        (NoLocalEndpoint, "have no ready endpoint (externalTrafficPolicy Local)"),
        (NoAddressOfFamily, "have no InternalIP/ExternalIP of the requested family"),
    ] {
        let n = count(x);
        if n > 0 {
            parts.push((n, what));
        }
    }
    match parts.as_slice() {
        [(n, what)] if *n == c.nodes.len() => format!("all {n} node(s) {what}"),
        _ => {
            let listed: Vec<String> = parts.iter().map(|(n, what)| format!("{n} node(s) {what}")).collect();
            format!("of {} node(s), {}", c.nodes.len(), listed.join(", "))
        }
    }
}

fn empty_hint(c: &nodeipam::Computed) -> String {
    if c.etp_local && c.nodes.iter().all(|n| n.excluded_by.contains(&nodeipam::Exclusion::NoLocalEndpoint)) {
        return "With externalTrafficPolicy Local only nodes with a ready endpoint are used: scale the backend up or check its readiness (`kubectl get endpointslices -l kubernetes.io/service-name=<svc>`); Cilium Ingress/Gateway Services have no node endpoints and need Cluster".into();
    }
    if c.no_nodes_warning {
        return "Fix the io.cilium.nodeipam/match-node-labels annotation; `kubectl get nodes -l '<selector>'` must list nodes".into();
    }
    "Remove the exclusion from at least one node (the exclude label's key alone excludes, whatever its value), or check the Service's ipFamilies".into()
}
