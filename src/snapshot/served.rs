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
    let shown = short(kind);
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
            "apiVersion {:?} is not served for {kind} (served: {}); no API server stores such an object",
            short(api_version),
            versions.join(", ")
        ));
    }
    if let Some((known, _)) = SERVED.iter().find(|(k, _)| k.eq_ignore_ascii_case(kind)) {
        return Some(format!(
            "kind {shown:?} is not {known:?}: kinds are case-sensitive, and no API server knows {shown:?}"
        ));
    }
    // A List whose items were a sequence was opened before this: here it has none to read.
    if kind.ends_with("List") {
        return Some(format!("a {shown} without an items sequence (items: null or missing): no object in it is read"));
    }
    let camel =
        kind.chars().next().is_some_and(|c| c.is_ascii_uppercase()) && kind.chars().all(|c| c.is_ascii_alphanumeric());
    if !camel {
        return Some(format!("kind {shown:?} is not a Kubernetes kind (kinds are CamelCase names such as Service)"));
    }
    let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
    match group {
        "lbdoctor" if kind != "SnapshotInfo" => {
            Some(format!("a snapshot's only lbdoctor kind is SnapshotInfo, not {shown:?}"))
        }
        "lbdoctor" => None,
        _ if kind == "SnapshotInfo" => Some(format!(
            "a SnapshotInfo has apiVersion lbdoctor/v1alpha1, not {:?}: as written it is not read",
            short(api_version)
        )),
        "metallb.io" if !METALLB_KINDS.contains(&kind) => {
            Some(format!("MetalLB has no kind {shown:?} (metallb.io kinds: {})", METALLB_KINDS.join(", ")))
        }
        _ => None,
    }
}

/// Why an API server would refuse `name` for an object of `kind` (apimachinery's name
/// validation, as the real kube-apiserver v1.36 answers), or `None` for a valid one.
pub(crate) fn bad_name(kind: &str, name: &str) -> Option<String> {
    let label = |l: &str| {
        l.len() <= 63
            && l.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            && !l.starts_with('-')
            && !l.ends_with('-')
            && !l.is_empty()
    };
    let (ok, rule) = match kind {
        // Events are named `<object>.<hex>` and only need to be a path segment.
        "Event" => (!matches!(name, "." | "..") && !name.contains(['/', '%']), "a path segment: no '/' or '%'"),
        "Service" => (
            label(name) && name.starts_with(|c: char| c.is_ascii_lowercase()),
            "a lowercase RFC 1035 label: at most 63 characters, a-z, 0-9 and '-', starting with a letter",
        ),
        "Namespace" => (label(name), "a lowercase RFC 1123 label: at most 63 characters, a-z, 0-9 and '-'"),
        _ => (
            name.len() <= 253 && name.split('.').all(label),
            "a lowercase RFC 1123 subdomain: at most 253 characters, a-z, 0-9, '-' and '.'",
        ),
    };
    (!ok).then(|| {
        format!("metadata.name {:?} is not a valid {kind} name ({rule}); no API server stores it", short(name))
    })
}

/// A name as messages show it: a garbage kind thousands of characters long is cut.
pub fn short(name: &str) -> String {
    const MAX: usize = 60;
    match name.char_indices().nth(MAX) {
        Some((at, _)) => format!("{}…", &name[..at]),
        None => name.to_string(),
    }
}

/// Every kind MetalLB's CRDs define, read or not (AddressPool: releases before v0.14.3).
const METALLB_KINDS: &[&str] = &[
    "AddressPool",
    "BFDProfile",
    "BGPAdvertisement",
    "BGPPeer",
    "Community",
    "ConfigurationState",
    "IPAddressPool",
    "L2Advertisement",
    "ServiceBGPStatus",
    "ServiceL2Status",
];

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
        assert!(refusal("v1", "äää").unwrap().contains("not a Kubernetes kind"));
        assert!(refusal("metallb.io/v1beta1", "str").unwrap().contains("CamelCase"));
        assert!(refusal("metallb.io/v1beta1", "Pool").unwrap().contains("MetalLB has no kind"));
        assert_eq!(refusal("metallb.io/v1beta1", "ConfigurationState"), None);
        assert!(refusal("metallb.io/v1beta1", "SnapshotInfo").unwrap().contains("lbdoctor/v1alpha1"));
        assert_eq!(refusal("lbdoctor/v1alpha1", "SnapshotInfo"), None);
        assert!(refusal("v1", "List").unwrap().contains("without an items sequence"));
    }

    #[test]
    fn names_are_those_a_server_accepts() {
        use super::bad_name;
        for (kind, name) in
            [("Node", "worker-a"), ("Node", "ip-10-0-0-1.ec2.internal"), ("Service", "web"), ("Event", "Web.17a2b")]
        {
            assert_eq!(bad_name(kind, name), None, "{kind} {name}");
        }
        for (kind, name) in [
            ("L2Advertisement", "Abc"),
            ("Node", "a_b"),
            ("Service", "a.b"),
            ("Service", "1web"),
            ("Namespace", "a.b"),
            ("Pod", "ää"),
        ] {
            assert!(bad_name(kind, name).is_some(), "{kind} {name}");
        }
        assert!(bad_name("Node", &"a".repeat(254)).is_some());
    }
}
