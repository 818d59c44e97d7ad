//! The parts of a Service MetalLB's controller reads and writes, taken out of the API object once.

use std::borrow::Cow;
use std::fmt;

use crate::snapshot::Service;

use compact_str::CompactString;

use crate::k8s::labels::LabelMap;

pub const ANN_ALLOCATED_FROM: &str = "metallb.io/ip-allocated-from-pool";

/// The annotations MetalLB reads, each under its current and its deprecated name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ann {
    AddressPool,
    LoadBalancerIps,
    AllowSharedIp,
}

impl Ann {
    fn keys(self) -> (&'static str, &'static str) {
        match self {
            Ann::AddressPool => ("metallb.io/address-pool", "metallb.universe.tf/address-pool"),
            Ann::LoadBalancerIps => ("metallb.io/loadBalancerIPs", "metallb.universe.tf/loadBalancerIPs"),
            Ann::AllowSharedIp => ("metallb.io/allow-shared-ip", "metallb.universe.tf/allow-shared-ip"),
        }
    }
}

/// `(protocol, port)` as MetalLB compares them: the protocol string exactly as written.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Port {
    /// Shared for the usual protocols: every allocation records its Service's ports.
    pub proto: Cow<'static, str>,
    pub port: i32,
}

impl Port {
    pub fn new(proto: &str, port: i32) -> Port {
        let proto = match proto {
            "TCP" => Cow::Borrowed("TCP"),
            "UDP" => Cow::Borrowed("UDP"),
            "SCTP" => Cow::Borrowed("SCTP"),
            other => Cow::Owned(other.to_string()),
        };
        Port { proto, port }
    }
}

impl fmt::Display for Port {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.proto, self.port)
    }
}

/// One `status.loadBalancer.ingress` entry; `extra` marks fields MetalLB drops (ipMode, ports).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ingress {
    /// `CompactString`s: an IPv4 address and most hostnames take no allocation of their own,
    /// and the replay holds one entry per Service.
    pub ip: CompactString,
    pub hostname: CompactString,
    pub extra: bool,
}

impl Ingress {
    pub fn ip_only(ip: impl Into<CompactString>) -> Ingress {
        Ingress { ip: ip.into(), hostname: CompactString::default(), extra: false }
    }
}

/// Borrowed from the Service: the replay reads every Service of the snapshot, and copies of
/// each one's labels, annotations and selector cost more than the objects themselves.
#[derive(Debug, Clone, PartialEq)]
pub struct SvcView<'a> {
    pub namespace: &'a str,
    pub name: &'a str,
    pub labels: &'a LabelMap,
    /// `None` is Go's nil map, which differs from an empty one for the "did it change" test.
    pub annotations: Option<&'a LabelMap>,
    pub type_: &'a str,
    pub ports: Vec<Port>,
    pub selector: &'a LabelMap,
    pub external_traffic_policy: &'a str,
    pub ip_families: &'a [CompactString],
    pub ip_family_policy: Option<&'a str>,
    pub cluster_ip: &'a str,
    pub cluster_ips: &'a [CompactString],
    pub load_balancer_ip: &'a str,
    pub load_balancer_class: Option<&'a str>,
    /// `None` is a nil ingress list.
    pub ingress: Option<Vec<Ingress>>,
    /// The controller's release reads `metallb.io/` annotations (v0.14.9, metallb-versions.md C-15).
    pub metallb_io: bool,
}

impl<'a> SvcView<'a> {
    pub fn from_service(svc: &'a Service) -> SvcView<'a> {
        static NO_SPEC: std::sync::OnceLock<crate::snapshot::service::ServiceSpec> = std::sync::OnceLock::new();
        let spec = svc.spec.as_ref().unwrap_or_else(|| NO_SPEC.get_or_init(Default::default));
        let ingress = svc.status.as_ref().and_then(|s| s.load_balancer.as_ref()).and_then(|lb| lb.ingress.as_ref());
        SvcView {
            namespace: svc.metadata.namespace.as_deref().unwrap_or_default(),
            name: svc.metadata.name.as_deref().unwrap_or_default(),
            labels: svc.metadata.labels.as_ref().unwrap_or(LabelMap::empty()),
            annotations: svc.metadata.annotations.as_ref(),
            type_: spec.type_.as_deref().unwrap_or("ClusterIP"),
            ports: spec
                .ports
                .iter()
                .flatten()
                // The API server defaults the protocol; hand-written manifests may leave it out.
                .map(|p| Port::new(p.protocol.as_deref().unwrap_or("TCP"), p.port))
                .collect(),
            selector: spec.selector.as_ref().unwrap_or(LabelMap::empty()),
            external_traffic_policy: spec.external_traffic_policy.as_deref().unwrap_or_default(),
            ip_families: spec.ip_families.as_deref().unwrap_or_default(),
            ip_family_policy: spec.ip_family_policy.as_deref(),
            cluster_ip: spec.cluster_ip.as_deref().unwrap_or_default(),
            cluster_ips: spec.cluster_ips.as_deref().unwrap_or_default(),
            load_balancer_ip: spec.load_balancer_ip.as_deref().unwrap_or_default(),
            load_balancer_class: spec.load_balancer_class.as_deref(),
            ingress: ingress.map(|list| {
                list.iter()
                    .map(|i| Ingress {
                        ip: i.ip.clone().unwrap_or_default(),
                        hostname: i.hostname.clone().unwrap_or_default(),
                        extra: i.ip_mode.is_some() || i.ports.is_some(),
                    })
                    .collect()
            }),
            metallb_io: true,
        }
    }

    /// As a controller of `rules`' release reads it.
    pub fn under(mut self, rules: &crate::metallb::release::Rules) -> SvcView<'a> {
        self.metallb_io = rules.metallb_io_annotations;
        self
    }

    /// The name of an annotation as this release spells it in messages.
    pub fn annotation_name(&self, which: Ann) -> &'static str {
        let (new, old) = which.keys();
        if self.metallb_io {
            new
        } else {
            old
        }
    }

    /// The allocator's identity for the Service: `namespace/name`.
    pub fn key(&self) -> String {
        format!("{}/{}", self.namespace, self.name)
    }

    /// `metallb.io/X`, else the deprecated `metallb.universe.tf/X`; presence decides, not the value.
    /// Before v0.14.9 only `metallb.universe.tf/X` exists.
    pub fn annotation(&self, which: Ann) -> &str {
        let Some(a) = &self.annotations else { return "" };
        let (new, old) = which.keys();
        let new = if self.metallb_io { a.get(new) } else { None };
        new.or_else(|| a.get(old)).unwrap_or("")
    }

    pub fn sharing_key(&self) -> &str {
        self.annotation(Ann::AllowSharedIp)
    }

    /// The Service selector as `labels.Set.String()`, only for `externalTrafficPolicy: Local`.
    pub fn backend_key(&self) -> String {
        if self.external_traffic_policy != "Local" {
            return String::new();
        }
        self.selector.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(",")
    }

    /// `spec.ipFamilyPolicy`, nil meaning SingleStack.
    pub fn policy(&self) -> &str {
        self.ip_family_policy.unwrap_or("SingleStack")
    }

    pub fn ipv6_primary(&self) -> bool {
        self.ip_families.first().map(CompactString::as_str) == Some("IPv6")
    }

    /// The non-empty ingress IP strings, in status order.
    pub fn lb_ip_texts(&self) -> Vec<&str> {
        self.ingress.iter().flatten().map(|i| i.ip.as_str()).filter(|ip| !ip.is_empty()).collect()
    }

    /// The keys `deprecatedAnnotation` warns about; none before v0.14.9, which had no other name.
    pub fn deprecated_annotations(&self) -> Vec<&str> {
        if !self.metallb_io {
            return Vec::new();
        }
        self.annotations
            .into_iter()
            .flatten()
            .map(|(k, _)| k)
            .filter(|k| k.starts_with("metallb.universe.tf"))
            .collect()
    }
}
