//! k3s ServiceLB (klipper-lb, spec cilium.md §5): which nodes run a Service's `svclb` pods and
//! which node addresses k3s writes into its status.

use std::collections::BTreeSet;

use crate::snapshot::EndpointSlice;
use crate::snapshot::Pod;
use crate::snapshot::Service;
use k8s_openapi::api::core::v1::Node;
use serde::Serialize;

use crate::cilium::nodeipam::{family_of, Family};
use crate::metallb::install::pod_is_live;
pub use crate::report::servicelb::{Exclusion, NodeRow, Verdict};
use crate::snapshot::Snapshot;

pub const ENABLE_LB: &str = "svccontroller.k3s.cattle.io/enablelb";
pub const LB_POOL: &str = "svccontroller.k3s.cattle.io/lbpool";
pub const SVC_NAME: &str = "svccontroller.k3s.cattle.io/svcname";
pub const SVC_NAMESPACE: &str = "svccontroller.k3s.cattle.io/svcnamespace";
/// Events k3s's service controller emits on Services.
pub const EVENTS: [&str; 4] =
    ["UpdatedLoadBalancer", "UnAvailableLoadBalancer", "AppliedDaemonSet", "DeletedDaemonSet"];

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Setup {
    pub installed: bool,
    pub evidence: Vec<String>,
    /// Some node carries the enablelb label: only nodes labelled `true` run svclb pods.
    pub enablelb_mode: bool,
}

fn is_svclb(pod: &Pod) -> bool {
    pod.metadata.labels.as_ref().is_some_and(|l| l.contains_key(SVC_NAME))
}

pub fn discover(snap: &Snapshot) -> Setup {
    let mut evidence = Vec::new();
    let pods = snap.pods.iter().filter(|p| is_svclb(p)).count();
    if pods > 0 {
        evidence.push(format!("{pods} svclb Pod(s)"));
    }
    let daemon_sets = snap
        .daemon_sets
        .iter()
        .filter(|d| d.metadata.labels.as_ref().is_some_and(|l| l.contains_key(SVC_NAME)))
        .count();
    if daemon_sets > 0 {
        evidence.push(format!("{daemon_sets} svclb DaemonSet(s)"));
    }
    if snap.events.iter().any(|e| e.reason.as_deref().is_some_and(|r| EVENTS.contains(&r))) {
        evidence.push("ServiceLB Events".into());
    }
    let labelled =
        snap.nodes.iter().filter(|n| n.metadata.labels.as_ref().is_some_and(|l| l.contains_key(ENABLE_LB))).count();
    if labelled > 0 {
        evidence.push(format!("{labelled} node(s) labelled {ENABLE_LB}"));
    }
    let enablelb_mode = labelled > 0;
    Setup { installed: !evidence.is_empty(), evidence, enablelb_mode }
}

/// ServiceLB handles class-less LoadBalancer Services only.
pub fn handles(svc: &Service) -> bool {
    let spec = svc.spec.as_ref();
    spec.and_then(|s| s.type_.as_deref()) == Some("LoadBalancer")
        && spec.and_then(|s| s.load_balancer_class.as_ref()).is_none()
}

/// `pods` and `slices` may be every Pod and EndpointSlice, or just those labelled for this Service.
pub fn evaluate(setup: &Setup, svc: &Service, nodes: &[Node], pods: &[&Pod], slices: &[&EndpointSlice]) -> Verdict {
    let namespace = svc.metadata.namespace.as_deref().unwrap_or("");
    let name = svc.metadata.name.as_deref().unwrap_or("");
    let spec = svc.spec.clone().unwrap_or_default();
    let pool = svc.metadata.labels.as_ref().and_then(|l| l.get(LB_POOL));
    let own: Vec<&Pod> = pods
        .iter()
        .copied()
        .filter(|p| {
            let l = p.metadata.labels.as_ref();
            l.and_then(|l| l.get(SVC_NAME)) == Some(name)
                && l.and_then(|l| l.get(SVC_NAMESPACE)).is_none_or(|ns| ns == namespace)
        })
        .collect();
    let ready_pod_nodes: BTreeSet<&str> = own
        .iter()
        .filter(|p| pod_is_live(p) && p.status.as_ref().and_then(|s| s.pod_ip.as_ref()).is_some())
        .filter_map(|p| p.spec.as_ref()?.node_name.as_deref())
        .collect();
    let etp_local = spec.external_traffic_policy.as_deref() == Some("Local");
    // Stricter than Cilium: `ready` must be true, and the endpoint must point at a Pod.
    let local: BTreeSet<&str> = slices
        .iter()
        .filter(|s| s.serves(namespace, name))
        .flat_map(|s| s.endpoints.iter())
        .filter(|e| e.targets_pod)
        .filter(|e| e.conditions.as_ref().and_then(|c| c.ready) == Some(true))
        .filter_map(|e| e.node_name.as_deref())
        .collect();
    let mut rows = Vec::new();
    for n in nodes {
        let node = n.metadata.name.clone().unwrap_or_default();
        let labels = n.metadata.labels.clone().unwrap_or_default();
        let mut excluded_by = Vec::new();
        if setup.enablelb_mode {
            if labels.get(ENABLE_LB).map(String::as_str) != Some("true") {
                excluded_by.push(Exclusion::NotEnableLB);
            }
            if pool.is_some_and(|p| labels.get(LB_POOL).map(String::as_str) != Some(p)) {
                excluded_by.push(Exclusion::LbpoolMismatch);
            }
        }
        if !ready_pod_nodes.contains(node.as_str()) {
            excluded_by.push(Exclusion::NoReadySvclbPod);
        }
        if etp_local && !local.contains(node.as_str()) {
            excluded_by.push(Exclusion::NoLocalEndpoint);
        }
        rows.push((NodeRow { node, used: false, excluded_by }, n));
    }
    let address_of = |n: &Node, kind: &str| -> Vec<String> {
        n.status
            .iter()
            .flat_map(|s| s.addresses.iter().flatten())
            .filter(|a| a.type_ == kind)
            .map(|a| a.address.clone())
            .collect()
    };
    // The External/Internal choice comes before family filtering, unlike Cilium.
    let chose_external =
        rows.iter().filter(|(r, _)| r.excluded_by.is_empty()).any(|(_, n)| !address_of(n, "ExternalIP").is_empty());
    let kind = if chose_external { "ExternalIP" } else { "InternalIP" };
    let families = spec.ip_families.clone().unwrap_or_default();
    let (mut v4, mut v6) = (Vec::new(), Vec::new());
    for (row, n) in rows.iter_mut() {
        if !row.excluded_by.is_empty() {
            continue;
        }
        let mut any = false;
        for a in address_of(n, kind) {
            match family_of(&a) {
                Some(Family::V4) if families.iter().any(|f| f == "IPv4") => v4.push(a),
                Some(Family::V6) if families.iter().any(|f| f == "IPv6") => v6.push(a),
                _ => continue,
            }
            any = true;
        }
        if any {
            row.used = true;
        } else {
            row.excluded_by.push(Exclusion::NoAddressOfFamily);
        }
    }
    v4.sort();
    v4.dedup();
    v6.sort();
    v6.dedup();
    let mut expected_ingress = Vec::new();
    for f in &families {
        match f.as_str() {
            "IPv4" => expected_ingress.append(&mut v4),
            "IPv6" => expected_ingress.append(&mut v6),
            _ => {}
        }
    }
    let mut nodes: Vec<NodeRow> = rows.into_iter().map(|(r, _)| r).collect();
    nodes.sort_by(|a, b| (!a.used, &a.node).cmp(&(!b.used, &b.node)));
    Verdict {
        expected_ingress,
        actual_ingress: crate::metallb::service::ingress_ips(svc),
        svclb_pods: own.len(),
        chose_external,
        nodes,
    }
}
