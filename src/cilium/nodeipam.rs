//! Cilium's Node IPAM (cilium-operator `service-nodeipam`, spec cilium.md §1): which node addresses
//! a handled Service gets in `status.loadBalancer.ingress`.

use std::collections::BTreeSet;
use std::net::{IpAddr, Ipv4Addr};

use crate::snapshot::EndpointSlice;
use crate::snapshot::Service;
use k8s_openapi::api::core::v1::Node;
use serde::Serialize;

use crate::k8s::selector::Selector;
use crate::k8s::EXCLUDE_LB_LABEL;
pub use crate::report::cilium::nodeipam::Exclusion;

pub const CLASS: &str = "io.cilium/node";
pub const MATCH_NODE_LABELS: &str = "io.cilium.nodeipam/match-node-labels";
pub const TO_BE_DELETED_TAINT: &str = "ToBeDeletedByClusterAutoscaler";

/// Why Node IPAM leaves a Service alone (§1.2, first match wins). It then writes nothing and
/// clears nothing it wrote before.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Unhandled {
    Deleting,
    NotLoadBalancer,
    /// No class, and `default-lb-service-ipam` is not `nodeipam`.
    DefaultIpamNotNodeipam,
    OtherClass,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    V4,
    V6,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    NotHandled(Unhandled),
    /// The match-node-labels annotation does not parse: the reconcile fails, status is kept.
    SelectorError {
        selector: String,
        error: String,
    },
    Written(Computed),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Computed {
    /// Exactly what is written, in Cilium's order.
    pub ingress: Vec<String>,
    pub nodes: Vec<NodeVerdict>,
    pub selector: Option<String>,
    /// The label-filtered node list was empty: Cilium logs `No Nodes found with configured label selector`.
    pub no_nodes_warning: bool,
    pub etp_local: bool,
    pub chose_external: bool,
    pub wants: (bool, bool),
    /// Families the Service asks for that the result lacks although some candidate had an
    /// InternalIP of it: dropped by the all-or-nothing External choice.
    pub families_lost_to_external: Vec<Family>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeVerdict {
    pub node: String,
    pub used: bool,
    pub excluded_by: Vec<Exclusion>,
    /// The addresses this node contributes to the ingress.
    pub addresses: Vec<String>,
}

/// Inputs of one reconcile. `ready_endpoint_nodes` comes from [`ready_endpoint_nodes`].
pub struct Input<'a> {
    pub service: &'a Service,
    pub nodes: &'a [Node],
    pub ready_endpoint_nodes: &'a BTreeSet<String>,
    pub default_nodeipam: bool,
}

/// The §1.2 test.
pub fn handles(svc: &Service, default_nodeipam: bool) -> Result<(), Unhandled> {
    if svc.metadata.deletion_timestamp.is_some() {
        return Err(Unhandled::Deleting);
    }
    let spec = svc.spec.as_ref();
    if spec.and_then(|s| s.type_.as_deref()) != Some("LoadBalancer") {
        return Err(Unhandled::NotLoadBalancer);
    }
    match spec.and_then(|s| s.load_balancer_class.as_deref()) {
        None if default_nodeipam => Ok(()),
        None => Err(Unhandled::DefaultIpamNotNodeipam),
        Some(CLASS) => Ok(()),
        Some(_) => Err(Unhandled::OtherClass),
    }
}

/// Node names of endpoints in slices labelled for the Service: `ready` unset counts as ready,
/// endpoints without a nodeName are skipped; serving/terminating are not read.
pub fn ready_endpoint_nodes<'a>(
    slices: impl IntoIterator<Item = &'a EndpointSlice>,
    namespace: &str,
    name: &str,
) -> BTreeSet<String> {
    slices
        .into_iter()
        .filter(|s| s.serves(namespace, name))
        .flat_map(|s| s.endpoints.iter())
        .filter(|e| e.conditions.as_ref().and_then(|c| c.ready) != Some(false))
        .filter_map(|e| e.node_name.as_deref().map(str::to_string))
        .collect()
}

pub fn reconcile(input: &Input) -> Outcome {
    let svc = input.service;
    if let Err(why) = handles(svc, input.default_nodeipam) {
        return Outcome::NotHandled(why);
    }
    let spec = svc.spec.as_ref();
    let etp_local = spec.and_then(|s| s.external_traffic_policy.as_deref()) == Some("Local");
    let selector_text = svc.metadata.annotations.as_ref().and_then(|a| a.get(MATCH_NODE_LABELS)).map(str::to_string);
    let selector = match selector_text.as_deref().map(Selector::parse) {
        None => None,
        Some(Ok(s)) => Some(s),
        Some(Err(error)) => {
            return Outcome::SelectorError { selector: selector_text.unwrap_or_default(), error };
        }
    };
    let families = spec.and_then(|s| s.ip_families.as_deref()).unwrap_or_default();
    let wants = (families.iter().any(|f| f == "IPv4"), families.iter().any(|f| f == "IPv6"));
    let wanted = |f: Family| match f {
        Family::V4 => wants.0,
        Family::V6 => wants.1,
    };

    static NO_LABELS: crate::k8s::selector::Labels = crate::k8s::selector::Labels::new();
    let mut rows: Vec<(NodeVerdict, Vec<String>, Vec<String>)> = Vec::new();
    let mut label_matched = 0usize;
    for node in input.nodes {
        let name = node.metadata.name.clone().unwrap_or_default();
        let labels = node.metadata.labels.as_ref().unwrap_or(&NO_LABELS);
        let mut excluded_by = Vec::new();
        if selector.as_ref().is_some_and(|s| !s.matches(labels)) {
            excluded_by.push(Exclusion::NotMatchingNodeLabels);
        } else {
            label_matched += 1;
        }
        if node.metadata.deletion_timestamp.is_some() {
            excluded_by.push(Exclusion::Deleting);
        }
        if labels.contains_key(EXCLUDE_LB_LABEL) {
            excluded_by.push(Exclusion::ExcludeLabel);
        }
        if node.spec.iter().flat_map(|s| s.taints.iter().flatten()).any(|t| t.key == TO_BE_DELETED_TAINT) {
            excluded_by.push(Exclusion::ToBeDeletedTaint);
        }
        if etp_local && !input.ready_endpoint_nodes.contains(&name) {
            excluded_by.push(Exclusion::NoLocalEndpoint);
        }
        let (mut external, mut internal) = (Vec::new(), Vec::new());
        for a in node.status.iter().flat_map(|s| s.addresses.iter().flatten()) {
            let bucket = match a.type_.as_str() {
                "ExternalIP" => &mut external,
                "InternalIP" => &mut internal,
                _ => continue,
            };
            if family_of(&a.address).is_some_and(wanted) {
                bucket.push(a.address.clone());
            }
        }
        rows.push((NodeVerdict { node: name, used: false, excluded_by, addresses: Vec::new() }, external, internal));
    }

    let candidates = || rows.iter().filter(|(v, ..)| v.excluded_by.is_empty());
    let chose_external = candidates().any(|(_, ext, _)| !ext.is_empty());
    let mut families_lost_to_external = Vec::new();
    if chose_external {
        for f in [Family::V4, Family::V6] {
            let in_result = candidates().flat_map(|(_, e, _)| e).any(|a| family_of(a) == Some(f));
            let internal_had = candidates().flat_map(|(_, _, i)| i).any(|a| family_of(a) == Some(f));
            if wanted(f) && !in_result && internal_had {
                families_lost_to_external.push(f);
            }
        }
    }
    let mut ingress = Vec::new();
    for (verdict, external, internal) in rows.iter_mut() {
        let (external, internal) = (&*external, &*internal);
        if !verdict.excluded_by.is_empty() {
            continue;
        }
        let chosen = if chose_external { external } else { internal };
        if chosen.is_empty() {
            let had_any = !external.is_empty() || !internal.is_empty();
            verdict.excluded_by.push(if had_any { Exclusion::ExternalPreferred } else { Exclusion::NoAddressOfFamily });
            continue;
        }
        verdict.used = true;
        verdict.addresses = chosen.clone();
        ingress.extend(chosen.iter().cloned());
    }
    // One byte-wise sort, exact-string dedupe: never canonicalised.
    ingress.sort();
    ingress.dedup();
    let mut nodes: Vec<NodeVerdict> = rows.into_iter().map(|(v, ..)| v).collect();
    nodes.sort_by(|a, b| (!a.used, &a.node).cmp(&(!b.used, &b.node)));
    Outcome::Written(Computed {
        ingress,
        nodes,
        selector: selector_text,
        no_nodes_warning: selector.is_some() && label_matched == 0,
        etp_local,
        chose_external,
        wants,
        families_lost_to_external,
    })
}

/// `k8s.io/utils/net` family of a node address: sloppy parsing (IPv4 leading zeros accepted),
/// IPv4-mapped IPv6 counts as IPv4; unparsable text has no family and is dropped.
pub fn family_of(text: &str) -> Option<Family> {
    match text.parse::<IpAddr>() {
        Ok(IpAddr::V4(_)) => Some(Family::V4),
        Ok(IpAddr::V6(v6)) if v6.to_ipv4_mapped().is_some() => Some(Family::V4),
        Ok(IpAddr::V6(_)) => Some(Family::V6),
        Err(_) => sloppy_ipv4(text).map(|_| Family::V4),
    }
}

fn sloppy_ipv4(text: &str) -> Option<Ipv4Addr> {
    let parts: Vec<&str> = text.split('.').collect();
    if parts.len() != 4 {
        return None;
    }
    let mut octets = [0u8; 4];
    for (o, p) in octets.iter_mut().zip(parts) {
        if p.is_empty() || p.len() > 3 || !p.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        *o = p.parse().ok()?;
    }
    Some(Ipv4Addr::from(octets))
}

impl Family {
    pub fn as_str(self) -> &'static str {
        match self {
            Family::V4 => "IPv4",
            Family::V6 => "IPv6",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sloppy_family_rules() {
        assert_eq!(family_of("010.000.000.001"), Some(Family::V4));
        assert_eq!(family_of("::ffff:10.0.0.7"), Some(Family::V4));
        assert_eq!(family_of("2001:0000::1"), Some(Family::V6));
        assert_eq!(family_of("2001:0000:4"), None);
        assert_eq!(family_of("node-1.example"), None);
        assert_eq!(family_of("256.0.0.1"), None);
    }
}
