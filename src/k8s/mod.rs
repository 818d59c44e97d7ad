//! Pure Kubernetes helpers: label selectors, IP text, CIDRs, node and endpoint predicates.

pub mod cidr;
pub mod ip;
pub mod selector;

use k8s_openapi::api::core::v1::Node;
use k8s_openapi::api::discovery::v1::EndpointConditions;

pub const EXCLUDE_LB_LABEL: &str = "node.kubernetes.io/exclude-from-external-load-balancers";

/// MetalLB `IsNetworkUnavailable`: a `NetworkUnavailable` condition with status exactly `True`.
pub fn is_network_unavailable(node: &Node) -> bool {
    node.status
        .iter()
        .flat_map(|s| s.conditions.iter().flatten())
        .any(|c| c.type_ == "NetworkUnavailable" && c.status == "True")
}

/// MetalLB `IsNodeExcludedFromBalancers`: the label key alone counts, whatever its value.
pub fn has_exclude_label(node: &Node) -> bool {
    node.metadata.labels.as_ref().is_some_and(|l| l.contains_key(EXCLUDE_LB_LABEL))
}

/// MetalLB `EndpointCanServe`: ready unset or true, or serving true. `terminating` is never read.
pub fn endpoint_can_serve(conditions: Option<&EndpointConditions>) -> bool {
    match conditions {
        None => true,
        Some(c) => c.ready != Some(false) || c.serving == Some(true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cond(ready: Option<bool>, serving: Option<bool>, terminating: Option<bool>) -> EndpointConditions {
        EndpointConditions { ready, serving, terminating }
    }

    #[test]
    fn endpoint_serving_table_from_spec_4_1() {
        assert!(endpoint_can_serve(None));
        assert!(endpoint_can_serve(Some(&cond(None, Some(false), Some(true)))));
        assert!(endpoint_can_serve(Some(&cond(Some(true), Some(false), None))));
        assert!(endpoint_can_serve(Some(&cond(Some(false), Some(true), Some(true)))));
        assert!(!endpoint_can_serve(Some(&cond(Some(false), Some(false), None))));
        assert!(!endpoint_can_serve(Some(&cond(Some(false), None, Some(false)))));
    }
}
