//! Which apiVersions an API server serves for each kind the engines read. A file can hold
//! anything; a server stores only these. An object outside them (`kind: service`, a Node at
//! `v2`, an L2Advertisement at `metallb.io/v1beta2`) is never read as if it were real, and never
//! dropped without a word: the loader reports it with its place and this reason.

/// Kind → the apiVersions a server serves it at: Kubernetes v1.36's built-ins, MetalLB v0.16.1's
/// CRDs, frr-k8s', and Cilium's (whose CRDs move from v2alpha1 to v2 one kind at a time).
const SERVED: &[(&str, &[&str])] = &[
    ("Node", &["v1"]),
    ("Service", &["v1"]),
    ("Namespace", &["v1"]),
    ("Pod", &["v1"]),
    ("Event", &["v1"]),
    ("ConfigMap", &["v1"]),
    ("EndpointSlice", &["discovery.k8s.io/v1"]),
    ("DaemonSet", &["apps/v1"]),
    ("Deployment", &["apps/v1"]),
    ("Lease", &["coordination.k8s.io/v1"]),
    ("IPAddressPool", &["metallb.io/v1beta1"]),
    ("L2Advertisement", &["metallb.io/v1beta1"]),
    ("BGPAdvertisement", &["metallb.io/v1beta1"]),
    ("BGPPeer", &["metallb.io/v1beta1", "metallb.io/v1beta2"]),
    ("Community", &["metallb.io/v1beta1"]),
    ("ServiceL2Status", &["metallb.io/v1beta1"]),
    ("BFDProfile", &["metallb.io/v1beta1"]),
    ("ServiceBGPStatus", &["metallb.io/v1beta1"]),
    ("FRRConfiguration", &["frrk8s.metallb.io/v1beta1"]),
    ("CiliumLoadBalancerIPPool", &["cilium.io/v2alpha1", "cilium.io/v2"]),
    ("CiliumL2AnnouncementPolicy", &["cilium.io/v2alpha1"]),
    ("CiliumNode", &["cilium.io/v2"]),
];

/// Why an object of a kind the engines read cannot be read as the cluster's, or `None` when it
/// can (or is of a kind no engine reads: those are only counted).
pub(crate) fn refusal(api_version: &str, kind: &str) -> Option<String> {
    if let Some((_, versions)) = SERVED.iter().find(|(k, _)| *k == kind) {
        if versions.contains(&api_version) {
            return None;
        }
        if kind == "Event" && api_version == "events.k8s.io/v1" {
            return Some(
                "events.k8s.io/v1 Events are not read; lbdoctor reads core v1 Events, as `kubectl get events -o yaml` writes them"
                    .into(),
            );
        }
        return Some(format!(
            "apiVersion {api_version:?} is not served for {kind} (served: {}); no API server stores such an object",
            versions.join(", ")
        ));
    }
    let (known, _) = SERVED.iter().find(|(k, _)| k.eq_ignore_ascii_case(kind))?;
    Some(format!("kind {kind:?} is not {known:?}: kinds are case-sensitive, and no API server knows {kind:?}"))
}

#[cfg(test)]
mod tests {
    use super::refusal;

    #[test]
    fn only_what_a_server_serves_is_read() {
        assert_eq!(refusal("v1", "Node"), None);
        assert_eq!(refusal("metallb.io/v1beta2", "BGPPeer"), None);
        assert_eq!(refusal("v1", "Secret"), None, "kinds no engine reads are counted, not refused");
        assert!(refusal("v2", "Node").unwrap().contains("not served for Node (served: v1)"));
        assert!(refusal("metallb.io/v1beta2", "L2Advertisement").unwrap().contains("metallb.io/v1beta1"));
        assert!(refusal("v1", "service").unwrap().contains("is not \"Service\""));
        assert!(refusal("events.k8s.io/v1", "Event").unwrap().contains("core v1 Events"));
    }
}
