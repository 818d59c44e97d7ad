//! The parts of a Service MetalLB's controller reads and writes, taken out of the API object once.

use std::collections::BTreeMap;
use std::fmt;

use k8s_openapi::api::core::v1::Service;

use crate::k8s::selector::Labels;

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
    pub proto: String,
    pub port: i32,
}

impl fmt::Display for Port {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.proto, self.port)
    }
}

/// One `status.loadBalancer.ingress` entry; `extra` marks fields MetalLB drops (ipMode, ports).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ingress {
    pub ip: String,
    pub hostname: String,
    pub extra: bool,
}

impl Ingress {
    pub fn ip_only(ip: String) -> Ingress {
        Ingress { ip, hostname: String::new(), extra: false }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct SvcView {
    pub namespace: String,
    pub name: String,
    pub labels: Labels,
    /// `None` is Go's nil map, which differs from an empty one for the "did it change" test.
    pub annotations: Option<BTreeMap<String, String>>,
    pub type_: String,
    pub ports: Vec<Port>,
    pub selector: Labels,
    pub external_traffic_policy: String,
    pub ip_families: Vec<String>,
    pub ip_family_policy: Option<String>,
    pub cluster_ip: String,
    pub cluster_ips: Vec<String>,
    pub load_balancer_ip: String,
    pub load_balancer_class: Option<String>,
    /// `None` is a nil ingress list.
    pub ingress: Option<Vec<Ingress>>,
}

impl SvcView {
    pub fn from_service(svc: &Service) -> SvcView {
        static NO_SPEC: std::sync::OnceLock<k8s_openapi::api::core::v1::ServiceSpec> = std::sync::OnceLock::new();
        let spec = svc.spec.as_ref().unwrap_or_else(|| NO_SPEC.get_or_init(Default::default));
        let ingress = svc.status.as_ref().and_then(|s| s.load_balancer.as_ref()).and_then(|lb| lb.ingress.as_ref());
        SvcView {
            namespace: svc.metadata.namespace.clone().unwrap_or_default(),
            name: svc.metadata.name.clone().unwrap_or_default(),
            labels: svc.metadata.labels.clone().unwrap_or_default(),
            annotations: svc.metadata.annotations.clone(),
            type_: spec.type_.clone().unwrap_or_else(|| "ClusterIP".into()),
            ports: spec
                .ports
                .iter()
                .flatten()
                // The API server defaults the protocol; hand-written manifests may leave it out.
                .map(|p| Port { proto: p.protocol.clone().unwrap_or_else(|| "TCP".into()), port: p.port })
                .collect(),
            selector: spec.selector.clone().unwrap_or_default(),
            external_traffic_policy: spec.external_traffic_policy.clone().unwrap_or_default(),
            ip_families: spec.ip_families.clone().unwrap_or_default(),
            ip_family_policy: spec.ip_family_policy.clone(),
            cluster_ip: spec.cluster_ip.clone().unwrap_or_default(),
            cluster_ips: spec.cluster_ips.clone().unwrap_or_default(),
            load_balancer_ip: spec.load_balancer_ip.clone().unwrap_or_default(),
            load_balancer_class: spec.load_balancer_class.clone(),
            ingress: ingress.map(|list| {
                list.iter()
                    .map(|i| Ingress {
                        ip: i.ip.clone().unwrap_or_default(),
                        hostname: i.hostname.clone().unwrap_or_default(),
                        extra: i.ip_mode.is_some() || i.ports.is_some(),
                    })
                    .collect()
            }),
        }
    }

    /// The allocator's identity for the Service: `namespace/name`.
    pub fn key(&self) -> String {
        format!("{}/{}", self.namespace, self.name)
    }

    /// `metallb.io/X`, else the deprecated `metallb.universe.tf/X`; presence decides, not the value.
    pub fn annotation(&self, which: Ann) -> &str {
        let Some(a) = &self.annotations else { return "" };
        let (new, old) = which.keys();
        a.get(new).or_else(|| a.get(old)).map(String::as_str).unwrap_or("")
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
        self.ip_family_policy.as_deref().unwrap_or("SingleStack")
    }

    pub fn ipv6_primary(&self) -> bool {
        self.ip_families.first().map(String::as_str) == Some("IPv6")
    }

    /// The non-empty ingress IP strings, in status order.
    pub fn lb_ip_texts(&self) -> Vec<&str> {
        self.ingress.iter().flatten().map(|i| i.ip.as_str()).filter(|ip| !ip.is_empty()).collect()
    }

    pub fn deprecated_annotations(&self) -> Vec<&str> {
        self.annotations
            .iter()
            .flatten()
            .map(|(k, _)| k.as_str())
            .filter(|k| k.starts_with("metallb.universe.tf"))
            .collect()
    }
}
