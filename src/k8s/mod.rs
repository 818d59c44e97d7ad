//! Pure Kubernetes helpers: label selectors, IP text, CIDRs, node and endpoint predicates.

pub mod cidr;
pub mod ip;
pub mod labels;
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

/// MetalLB `EndpointCanServe` under v0.14.5 and later: ready unset or true, or serving true.
/// `terminating` is never read. Other releases: [`endpoint_can_serve_under`].
pub fn endpoint_can_serve(conditions: Option<&EndpointConditions>) -> bool {
    endpoint_can_serve_under(conditions, crate::metallb::release::CanServe::ReadyOrServing)
}

/// The can-serve predicate of one MetalLB release (metallb-versions.md L-1).
pub fn endpoint_can_serve_under(
    conditions: Option<&EndpointConditions>,
    predicate: crate::metallb::release::CanServe,
) -> bool {
    match conditions {
        None => true,
        Some(c) => predicate.can_serve(c.ready, c.serving),
    }
}

/// A Go duration (`90s`, `1m30s`, `1.5h`, `500ms`) in seconds.
pub fn go_duration_seconds(text: &str) -> Option<f64> {
    let (negative, mut rest) = match text.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    if rest == "0" {
        return Some(0.0);
    }
    if rest.is_empty() {
        return None;
    }
    let mut total = 0.0;
    while !rest.is_empty() {
        let number_end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
        let number: f64 = rest[..number_end].parse().ok()?;
        rest = &rest[number_end..];
        let unit_end = rest.find(|c: char| c.is_ascii_digit() || c == '.').unwrap_or(rest.len());
        let scale = match &rest[..unit_end] {
            "ns" => 1e-9,
            "us" | "µs" | "μs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return None,
        };
        total += number * scale;
        rest = &rest[unit_end..];
    }
    Some(if negative { -total } else { total })
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
