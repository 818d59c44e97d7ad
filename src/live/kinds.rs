//! The resources lbdoctor reads, and the requests that read them.

use std::borrow::Cow;

/// One API resource: where it is served and what its objects are called.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    /// Empty for the core group.
    pub group: &'static str,
    pub version: Cow<'static, str>,
    pub plural: &'static str,
    pub kind: &'static str,
}

impl Resource {
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.to_string()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// `pods`, `l2advertisements.metallb.io`: RBAC's and `kubectl auth can-i`'s spelling.
    pub fn name(&self) -> String {
        if self.group.is_empty() {
            self.plural.to_string()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }

    /// Served by every API server, unlike custom resources.
    pub fn is_builtin(&self) -> bool {
        self.group.is_empty() || !self.group.contains('.') || self.group.ends_with(".k8s.io")
    }

    pub fn path(&self, namespace: Option<&str>) -> String {
        let base = if self.group.is_empty() {
            "/api/v1".to_string()
        } else {
            format!("/apis/{}/{}", self.group, self.version)
        };
        match namespace {
            Some(ns) => format!("{base}/namespaces/{ns}/{}", self.plural),
            None => format!("{base}/{}", self.plural),
        }
    }
}

const fn core(plural: &'static str, kind: &'static str) -> Resource {
    Resource { group: "", version: Cow::Borrowed("v1"), plural, kind }
}

pub const NODES: Resource = core("nodes", "Node");
pub const SERVICES: Resource = core("services", "Service");
pub const NAMESPACES: Resource = core("namespaces", "Namespace");
pub const PODS: Resource = core("pods", "Pod");
pub const EVENTS: Resource = core("events", "Event");
pub const CONFIG_MAPS: Resource = core("configmaps", "ConfigMap");
pub const ENDPOINT_SLICES: Resource = Resource {
    group: "discovery.k8s.io",
    version: Cow::Borrowed("v1"),
    plural: "endpointslices",
    kind: "EndpointSlice",
};
pub const DAEMON_SETS: Resource =
    Resource { group: "apps", version: Cow::Borrowed("v1"), plural: "daemonsets", kind: "DaemonSet" };
pub const DEPLOYMENTS: Resource =
    Resource { group: "apps", version: Cow::Borrowed("v1"), plural: "deployments", kind: "Deployment" };
pub const LEASES: Resource =
    Resource { group: "coordination.k8s.io", version: Cow::Borrowed("v1"), plural: "leases", kind: "Lease" };

/// A custom resource: its group and plural; the version is the first one discovery offers.
#[derive(Debug, Clone, Copy)]
pub struct Custom {
    pub group: &'static str,
    pub plural: &'static str,
    pub kind: &'static str,
}

const fn custom(group: &'static str, plural: &'static str, kind: &'static str) -> Custom {
    Custom { group, plural, kind }
}

/// Every custom resource an engine reads, in the order the snapshot lists them.
pub const CUSTOM: &[Custom] = &[
    custom("metallb.io", "ipaddresspools", "IPAddressPool"),
    // Legacy pools (releases before v0.14.3 serve them): listed where served, for LBD209.
    custom("metallb.io", "addresspools", "AddressPool"),
    custom("metallb.io", "l2advertisements", "L2Advertisement"),
    custom("metallb.io", "bgpadvertisements", "BGPAdvertisement"),
    custom("metallb.io", "bgppeers", "BGPPeer"),
    custom("metallb.io", "communities", "Community"),
    custom("metallb.io", "bfdprofiles", "BFDProfile"),
    custom("metallb.io", "servicel2statuses", "ServiceL2Status"),
    custom("metallb.io", "servicebgpstatuses", "ServiceBGPStatus"),
    custom("frrk8s.metallb.io", "frrconfigurations", "FRRConfiguration"),
    custom("cilium.io", "ciliumloadbalancerippools", "CiliumLoadBalancerIPPool"),
    custom("cilium.io", "ciliuml2announcementpolicies", "CiliumL2AnnouncementPolicy"),
    custom("cilium.io", "ciliumnodes", "CiliumNode"),
];

/// Served only by old MetalLB releases: absent is the normal case, not "not installed".
pub const LEGACY: &[&str] = &["addresspools.metallb.io"];

impl Custom {
    pub fn name(&self) -> String {
        format!("{}.{}", self.plural, self.group)
    }

    pub fn at(&self, version: &str) -> Resource {
        Resource { group: self.group, version: Cow::Owned(version.to_string()), plural: self.plural, kind: self.kind }
    }
}

/// The groups discovery is asked about.
pub fn custom_groups() -> Vec<&'static str> {
    let mut groups: Vec<&'static str> = CUSTOM.iter().map(|c| c.group).collect();
    groups.dedup();
    groups
}

/// Service events that carry MetalLB's view; k3s ServiceLB's are `servicelb::EVENTS`. One LIST
/// each: field selectors cannot OR.
pub const METALLB_EVENT_REASONS: &[&str] = &["nodeAssigned", "announceFailed", "AllocationFailed", "IPAllocated"];
