//! Services as the engines read them. A cluster has them by the ten thousand, and k8s-openapi's
//! type costs about 3.7 KB each (824 bytes inline, three `BTreeMap`s, fields nobody reads), plus
//! the garbage its decoding leaves behind. Only the fields an engine reads are decoded, under
//! their Kubernetes names and types; a value of the wrong type there is refused as before, and
//! every other field is skipped unread.

use k8s_openapi::api::core::v1 as k8s;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ManagedFieldsEntry, Time};
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

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Service {
    pub metadata: Meta,
    pub spec: Option<ServiceSpec>,
    pub status: Option<k8s::ServiceStatus>,
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
    pub type_: Option<String>,
    #[serde(default, rename = "clusterIP")]
    pub cluster_ip: Option<String>,
    #[serde(default, rename = "clusterIPs")]
    pub cluster_ips: Option<Vec<String>>,
    #[serde(default, rename = "externalIPs")]
    pub external_ips: Option<Vec<String>>,
    #[serde(default)]
    pub external_traffic_policy: Option<String>,
    #[serde(default)]
    pub ip_families: Option<Vec<String>>,
    #[serde(default)]
    pub ip_family_policy: Option<String>,
    #[serde(default)]
    pub load_balancer_class: Option<String>,
    #[serde(default, rename = "loadBalancerIP")]
    pub load_balancer_ip: Option<String>,
    #[serde(default)]
    pub ports: Option<Vec<k8s::ServicePort>>,
    #[serde(default)]
    pub selector: Option<LabelMap>,
}

/// Metadata as decoded: [`Meta`] plus the managedFields a Service's status writers come from.
#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawMeta {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    namespace: Option<String>,
    #[serde(default)]
    labels: Option<LabelMap>,
    #[serde(default)]
    annotations: Option<LabelMap>,
    #[serde(default)]
    creation_timestamp: Option<Time>,
    #[serde(default)]
    deletion_timestamp: Option<Time>,
    #[serde(default)]
    managed_fields: Option<Vec<ManagedFieldsEntry>>,
}

impl RawMeta {
    fn split(self) -> (Meta, Option<Vec<ManagedFieldsEntry>>) {
        let meta = Meta {
            name: self.name,
            namespace: self.namespace,
            labels: self.labels,
            annotations: self.annotations,
            creation_timestamp: self.creation_timestamp,
            deletion_timestamp: self.deletion_timestamp,
        };
        (meta, self.managed_fields)
    }
}

impl<'de> Deserialize<'de> for Service {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Raw {
            #[serde(default)]
            metadata: Option<RawMeta>,
            #[serde(default)]
            spec: Option<ServiceSpec>,
            #[serde(default)]
            status: Option<k8s::ServiceStatus>,
        }
        let raw = Raw::deserialize(deserializer)?;
        let (metadata, managed) = raw.metadata.unwrap_or_default().split();
        let status_writers = managed
            .into_iter()
            .flatten()
            .filter(super::writes_status)
            .map(|m| StatusWrite { manager: m.manager, time: m.time })
            .collect();
        Ok(Service { metadata, spec: raw.spec, status: raw.status, status_writers })
    }
}
