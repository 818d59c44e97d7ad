//! Services as the engines read them. A cluster has them by the ten thousand, and k8s-openapi's
//! type costs about 3.7 KB each (824 bytes inline, three `BTreeMap`s, fields nobody reads), plus
//! the garbage its decoding leaves behind. Only the fields an engine reads are decoded, under
//! their Kubernetes names and types; a value of the wrong type there is refused as before, and
//! every other field is skipped unread. Strings are `CompactString`s and lists boxed slices:
//! names, IPs and the spec's enumerations fit in 24 bytes, so a Service takes a handful of
//! allocations where a `String` per field took two dozen.

use compact_str::CompactString;
use k8s_openapi::api::core::v1 as k8s;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use serde::de::MapAccess;
use serde::Deserialize;

use super::keys::{Checked, Metadata, SpecStatus, TopLevel};

use crate::k8s::labels::LabelMap;

/// The metadata the engines read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Meta {
    pub name: Option<CompactString>,
    pub namespace: Option<CompactString>,
    pub labels: Option<LabelMap>,
    pub annotations: Option<LabelMap>,
    pub creation_timestamp: Option<Time>,
    pub deletion_timestamp: Option<Time>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Service {
    pub metadata: Meta,
    pub spec: Option<ServiceSpec>,
    pub status: Option<ServiceStatus>,
    /// The managedFields entries that write `status` (who wrote the ingress), in the listed
    /// order: the only ones any engine reads.
    pub status_writers: Vec<StatusWrite>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct StatusWrite {
    pub manager: Option<String>,
    pub time: Option<Time>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServiceSpec {
    #[serde(default, rename = "type")]
    pub type_: Option<CompactString>,
    #[serde(default, rename = "clusterIP")]
    pub cluster_ip: Option<CompactString>,
    #[serde(default, rename = "clusterIPs")]
    pub cluster_ips: Option<Box<[CompactString]>>,
    #[serde(default, rename = "externalIPs")]
    pub external_ips: Option<Box<[CompactString]>>,
    #[serde(default)]
    pub external_traffic_policy: Option<CompactString>,
    #[serde(default)]
    pub ip_families: Option<Box<[CompactString]>>,
    #[serde(default)]
    pub ip_family_policy: Option<CompactString>,
    #[serde(default)]
    pub load_balancer_class: Option<CompactString>,
    #[serde(default, rename = "loadBalancerIP")]
    pub load_balancer_ip: Option<CompactString>,
    #[serde(default)]
    pub ports: Option<Box<[ServicePort]>>,
    #[serde(default)]
    pub selector: Option<LabelMap>,
}

/// `spec.ports[]`: what MetalLB's and Cilium's sharing rules compare.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServicePort {
    #[serde(default)]
    pub name: Option<CompactString>,
    pub port: i32,
    #[serde(default)]
    pub protocol: Option<CompactString>,
    #[serde(default)]
    pub node_port: Option<i32>,
    #[serde(default)]
    pub target_port: Option<IntOrString>,
    #[serde(default)]
    pub app_protocol: Option<CompactString>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServiceStatus {
    #[serde(default)]
    pub load_balancer: Option<LoadBalancerStatus>,
    /// Rare on Services; kept as Kubernetes' type.
    #[serde(default)]
    pub conditions: Option<Vec<Condition>>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct LoadBalancerStatus {
    #[serde(default)]
    pub ingress: Option<Box<[LoadBalancerIngress]>>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadBalancerIngress {
    #[serde(default)]
    pub ip: Option<CompactString>,
    #[serde(default)]
    pub hostname: Option<CompactString>,
    #[serde(default)]
    pub ip_mode: Option<CompactString>,
    #[serde(default)]
    pub ports: Option<Vec<k8s::PortStatus>>,
}

impl TopLevel for Service {
    const FIELDS: &'static [&'static str] = &["spec", "status"];
    const FULL_METADATA: bool = true;
    type Fields = SpecStatus<ServiceSpec, ServiceStatus>;

    fn read<'de, A: MapAccess<'de>>(fields: &mut Self::Fields, index: usize, map: &mut A) -> Result<(), A::Error> {
        fields.read(index, map)
    }

    fn build(metadata: Option<Metadata>, fields: Self::Fields) -> Service {
        let m = metadata.unwrap_or_default();
        let status_writers = m
            .managed_fields
            .into_iter()
            .flatten()
            .filter(super::writes_status)
            .map(|w| StatusWrite { manager: w.manager, time: w.time })
            .collect();
        Service { metadata: m.meta, spec: fields.spec, status: fields.status, status_writers }
    }
}

impl<'de> Deserialize<'de> for Service {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Checked::<Service>::deserialize(deserializer).map(|c| c.object)
    }
}
