//! Services as the engines read them. A cluster has them by the ten thousand, and k8s-openapi's
//! type costs about 3.7 KB each (824 bytes inline, three `BTreeMap`s, fields nobody reads): the
//! loader decodes that type, so a malformed Service is refused with the same error as ever, then
//! keeps this one, with the field names and types of the original wherever an engine reads them.

use k8s_openapi::api::core::v1 as k8s;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use serde::Deserialize;

use crate::k8s::labels::LabelMap;

/// The metadata the engines read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Meta {
    pub name: Option<String>,
    pub namespace: Option<String>,
    pub labels: Option<LabelMap>,
    pub annotations: Option<LabelMap>,
    pub creation_timestamp: Option<Time>,
    pub deletion_timestamp: Option<Time>,
}

impl From<k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta> for Meta {
    fn from(m: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta) -> Self {
        Meta {
            name: m.name,
            namespace: m.namespace,
            labels: m.labels.map(Into::into),
            annotations: m.annotations.map(Into::into),
            creation_timestamp: m.creation_timestamp,
            deletion_timestamp: m.deletion_timestamp,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Service {
    pub metadata: Meta,
    pub spec: Option<ServiceSpec>,
    pub status: Option<k8s::ServiceStatus>,
    /// The managedFields entries that write `status` (who wrote the ingress), oldest first as
    /// listed: the only ones any engine reads.
    pub status_writers: Vec<StatusWrite>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct StatusWrite {
    pub manager: Option<String>,
    pub time: Option<Time>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServiceSpec {
    pub type_: Option<String>,
    pub cluster_ip: Option<String>,
    pub cluster_ips: Option<Vec<String>>,
    pub external_ips: Option<Vec<String>>,
    pub external_traffic_policy: Option<String>,
    pub ip_families: Option<Vec<String>>,
    pub ip_family_policy: Option<String>,
    pub load_balancer_class: Option<String>,
    pub load_balancer_ip: Option<String>,
    pub ports: Option<Vec<k8s::ServicePort>>,
    pub selector: Option<LabelMap>,
}

impl From<k8s::Service> for Service {
    fn from(full: k8s::Service) -> Self {
        let mut meta = full.metadata;
        let status_writers = meta
            .managed_fields
            .take()
            .into_iter()
            .flatten()
            .filter(super::writes_status)
            .map(|m| StatusWrite { manager: m.manager, time: m.time })
            .collect();
        Service {
            metadata: meta.into(),
            spec: full.spec.map(|s| ServiceSpec {
                type_: s.type_,
                cluster_ip: s.cluster_ip,
                cluster_ips: s.cluster_ips,
                external_ips: s.external_ips,
                external_traffic_policy: s.external_traffic_policy,
                ip_families: s.ip_families,
                ip_family_policy: s.ip_family_policy,
                load_balancer_class: s.load_balancer_class,
                load_balancer_ip: s.load_balancer_ip,
                ports: s.ports,
                selector: s.selector.map(Into::into),
            }),
            status: full.status,
            status_writers,
        }
    }
}

/// As Kubernetes' Service: tests and `--apply` files build Services from their JSON.
impl<'de> Deserialize<'de> for Service {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        k8s::Service::deserialize(deserializer).map(Into::into)
    }
}
