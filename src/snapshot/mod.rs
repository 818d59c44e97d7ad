//! The one input type of every engine: the Kubernetes objects they read, plus what is known about
//! how they were collected. Files and (later) live clusters both produce it.

pub mod bundle;
pub(crate) mod cilium;
pub mod crd;
pub mod endpoints;
pub(crate) mod file;
pub use file::Origins;
pub(crate) mod keys;
mod list_scan;
pub(crate) mod node;
pub(crate) mod served;
pub mod service;
mod sniff;
pub mod strict;
pub mod workload;
mod yaml_block;
mod yaml_pieces;

use std::collections::BTreeMap;

pub use endpoints::EndpointSlice;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{ConfigMap, Event, Namespace, Node};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ManagedFieldsEntry, ObjectMeta};
use serde::{Deserialize, Serialize};
pub use service::Service;
pub use workload::{DaemonSet, Deployment, Pod};

pub use crate::report::metallb::{BgpType, Memberlist};
pub use crate::report::ObjectOrigin;
pub use file::{
    decode_early, from_texts, from_texts_early, load_paths, load_texts, load_texts_strict, read_inputs, read_sources,
    Early, Inputs, LoadError, ObjectText,
};

/// Every scenario and demo cluster of testdata, sorted: what the unit tests run over.
#[cfg(test)]
pub(crate) fn scenario_files() -> Vec<String> {
    let mut files: Vec<String> = ["testdata/scenarios", "testdata/clusters"]
        .iter()
        .flat_map(|dir| std::fs::read_dir(dir).unwrap())
        .map(|e| e.unwrap().path().display().to_string())
        .filter(|p| p.ends_with(".yaml"))
        .collect();
    files.sort();
    files
}

impl Snapshot {
    /// The speakers' logs every bundle among the inputs held.
    pub fn bundled_speaker_logs(&self) -> impl Iterator<Item = &bundle::PodLog> {
        self.bundles.iter().flat_map(|b| b.speaker_logs())
    }
}

#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    pub info: SnapshotInfo,
    pub nodes: Vec<Node>,
    pub services: Vec<Service>,
    pub endpoint_slices: Vec<EndpointSlice>,
    pub namespaces: Vec<Namespace>,
    pub pods: Vec<Pod>,
    pub events: Vec<Event>,
    pub config_maps: Vec<ConfigMap>,
    pub daemon_sets: Vec<DaemonSet>,
    pub deployments: Vec<Deployment>,
    pub metallb: MetallbObjects,
    pub cilium: CiliumObjects,
    /// `coordination.k8s.io/v1` Leases: Cilium's per-Service L2 leases, kube-vip's.
    pub leases: Vec<Lease>,
    /// Objects of kinds no engine reads, counted by `Kind (apiVersion)`.
    pub ignored_kinds: BTreeMap<String, usize>,
    /// Objects of kinds the engines read that were not read: no API server serves them so.
    pub ignored_objects: Vec<IgnoredObject>,
    /// Fields of file objects that no server returns (a typo, or a newer version's): not read.
    pub ignored_fields: Vec<IgnoredField>,
    /// Read from the API server just now, not from files.
    pub live: bool,
    /// Where each object of a file snapshot was read, by `Kind namespace/name` as findings name
    /// objects (empty when live): SARIF points code scanning at these lines.
    pub origins: file::Origins,
    /// The bundles among the inputs (archives, collector trees): their logs and what they lack.
    pub bundles: Vec<std::sync::Arc<bundle::Bundle>>,
}

/// An object left out of the snapshot, where it was and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct IgnoredObject {
    /// `Kind namespace/name`, as findings name objects.
    pub object: String,
    /// `file:line`.
    pub at: String,
    pub reason: String,
}

/// A field left unread, where its object was and the known field it most resembles.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct IgnoredField {
    pub object: String,
    pub at: String,
    /// The object's file and first line, to find the field's own line in the text.
    #[serde(skip)]
    pub file: std::sync::Arc<str>,
    #[serde(skip)]
    pub line: Option<u64>,
    /// `metadata.label`, `spec.nodeSelector`.
    pub field: String,
    /// The field's path as keys, without list indexes.
    #[serde(skip)]
    pub keys: Vec<String>,
    pub nearest: Option<String>,
}

#[derive(Debug, Clone, Default)]
pub struct MetallbObjects {
    pub ip_address_pools: Vec<crd::IpAddressPool>,
    pub l2_advertisements: Vec<crd::L2Advertisement>,
    pub bgp_advertisements: Vec<crd::BgpAdvertisement>,
    pub bgp_peers: Vec<crd::BgpPeer>,
    pub communities: Vec<crd::Community>,
    pub service_l2_statuses: Vec<crd::ServiceL2Status>,
    pub bfd_profiles: Vec<crd::BfdProfile>,
    pub service_bgp_statuses: Vec<crd::ServiceBgpStatus>,
    /// frr-k8s objects (`frrk8s.metallb.io`), any namespace.
    pub frr_configurations: Vec<crd::FrrConfiguration>,
}

#[derive(Debug, Clone, Default)]
pub struct CiliumObjects {
    pub ip_pools: Vec<cilium::IpPool>,
    pub l2_policies: Vec<cilium::L2Policy>,
    pub nodes: Vec<cilium::CiliumNode>,
}

impl MetallbObjects {
    pub fn is_empty(&self) -> bool {
        self.ip_address_pools.is_empty()
            && self.l2_advertisements.is_empty()
            && self.bgp_advertisements.is_empty()
            && self.bgp_peers.is_empty()
            && self.communities.is_empty()
            && self.service_l2_statuses.is_empty()
            && self.bfd_profiles.is_empty()
            && self.service_bgp_statuses.is_empty()
    }

    /// Namespaces holding any `metallb.io` object, sorted.
    pub fn namespaces(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .ip_address_pools
            .iter()
            .map(|o| o.namespace())
            .chain(self.l2_advertisements.iter().map(|o| o.namespace()))
            .chain(self.bgp_advertisements.iter().map(|o| o.namespace()))
            .chain(self.bgp_peers.iter().map(|o| o.namespace()))
            .chain(self.communities.iter().map(|o| o.namespace()))
            .chain(self.service_l2_statuses.iter().map(|o| o.namespace()))
            .chain(self.bfd_profiles.iter().map(|o| o.namespace()))
            .chain(self.service_bgp_statuses.iter().map(|o| o.namespace()))
            .map(str::to_string)
            .collect();
        out.sort();
        out.dedup();
        out
    }
}

/// `apiVersion: lbdoctor/v1alpha1, kind: SnapshotInfo`: how and when the snapshot was taken.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotInfo {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub captured_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// The context's namespace: what `-n` defaults to, live and from this snapshot alike.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(default)]
    pub unreadable: Vec<String>,
    /// What could not be read, as data: the source of `unreadable` and of the RBAC hints.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub denied: Vec<Denied>,
    /// Custom resources whose CRD the server does not serve (`ipaddresspools.metallb.io`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_installed: Vec<String>,
    /// Namespaces whose Leases were listed in full: there, a Lease the snapshot lacks does not
    /// exist (Cilium L2: nobody ever took the Service's Lease), rather than was not collected.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub leases_listed_in: Vec<String>,
    #[serde(default, skip_serializing_if = "MetallbInfo::is_unset")]
    pub metallb: MetallbInfo,
    /// What lbdoctor detected when it took the snapshot (implementations, versions, flags); a
    /// record for readers, never an input: the engines derive all of it again from the objects.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detected: Option<serde_json::Value>,
}

/// One request the API server refused or failed, with what is needed to check the permission.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Denied {
    /// `pods`, `l2advertisements.metallb.io`.
    pub resource: String,
    pub verb: String,
    /// Empty for a cluster-wide request.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    /// The object of a GET by name (`cilium-config`); empty for a LIST.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// `forbidden`, `unauthorized`, `server error 500`.
    pub reason: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
}

impl Denied {
    /// The entry of `SnapshotInfo.unreadable`: `pods: forbidden (list in metallb-system)`.
    pub fn summary(&self) -> String {
        let scope = if self.namespace.is_empty() { String::new() } else { format!(" in {}", self.namespace) };
        format!("{}: {} ({}{scope})", self.object(), self.reason, self.verb)
    }

    /// A list that was allowed but whose continue token kept expiring (410 Gone).
    pub fn is_expired_list(&self) -> bool {
        self.reason == LIST_EXPIRED
    }

    /// The command that tells whether the current credentials may do what was refused.
    pub fn can_i(&self) -> String {
        let scope = if self.namespace.is_empty() { " -A".to_string() } else { format!(" -n {}", self.namespace) };
        format!("kubectl auth can-i {} {}{scope}", self.verb, self.object())
    }

    /// kubectl's words for what was refused: `pods -n kube-system`, `events -A`.
    pub fn object_with_scope(&self) -> String {
        if self.namespace.is_empty() {
            format!("{} -A", self.object())
        } else {
            format!("{} -n {}", self.object(), self.namespace)
        }
    }

    fn object(&self) -> String {
        if self.name.is_empty() {
            self.resource.clone()
        } else {
            format!("{}/{}", self.resource, self.name)
        }
    }
}

/// `Denied.reason` of a list whose continue token kept expiring (410 Gone): not a permission problem.
pub const LIST_EXPIRED: &str = "list expired (410 Gone)";
/// What to do about such a list: fewer, larger pages get through.
pub const LIST_EXPIRED_ADVICE: &str = "retry with a larger --chunk-size, or --chunk-size 0 for one response";

/// Resources without which no answer can be given (lower-case plural, as in RBAC errors).
const REQUIRED: &[&str] = &[
    "nodes",
    "services",
    "endpointslices",
    "pods",
    "ipaddresspools",
    "l2advertisements",
    "bgpadvertisements",
    "bgppeers",
    "communities",
    "bfdprofiles",
    "ciliumloadbalancerippools",
    "ciliuml2announcementpolicies",
    "ciliumnodes",
];

impl SnapshotInfo {
    /// The `unreadable` entries (`"l2advertisements.metallb.io: forbidden"`) that name a required resource.
    pub fn unreadable_required(&self) -> Vec<String> {
        self.unreadable
            .iter()
            .filter(|entry| {
                // "nodes: forbidden" as lbdoctor writes it, or kubectl's "nodes is forbidden: …".
                let resource = entry.trim().split([':', ' ']).next().unwrap_or("");
                let plural = resource.split('.').next().unwrap_or("").to_ascii_lowercase();
                REQUIRED.contains(&plural.as_str())
            })
            .cloned()
            .collect()
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct MetallbInfo {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(default, rename = "ignoreExcludeLB", skip_serializing_if = "Option::is_none")]
    pub ignore_exclude_lb: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lb_class: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memberlist: Option<Memberlist>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bgp_type: Option<BgpType>,
}

impl MetallbInfo {
    fn is_unset(&self) -> bool {
        *self == MetallbInfo::default()
    }
}

impl BgpType {
    pub fn as_str(self) -> &'static str {
        match self {
            BgpType::Native => "native",
            BgpType::Frr => "frr",
            BgpType::FrrK8s => "frr-k8s",
        }
    }
}

/// A managedFields entry that writes `status`: the only kind lbdoctor reads (who writes a
/// Service's ingress), and the only kind a live snapshot keeps.
pub fn writes_status(m: &ManagedFieldsEntry) -> bool {
    m.subresource.as_deref() == Some("status") || m.fields_v1.as_ref().is_some_and(|f| f.0.get("f:status").is_some())
}

/// Drops the managedFields no engine reads. Services, the one kind whose entries are read
/// (their status writers), keep only those by construction (`service.rs`).
pub fn trim_managed_fields(meta: &mut ObjectMeta) {
    meta.managed_fields = None;
}

/// `namespace/name` of any object with metadata.
pub fn key_of(meta: &impl ObjectKey) -> (String, String) {
    let (namespace, name) = meta.namespace_name();
    (namespace.unwrap_or_default().to_string(), name.unwrap_or_default().to_string())
}

/// Metadata that names an object: Kubernetes' own, or the compact kind the loader keeps.
pub trait ObjectKey {
    fn namespace_name(&self) -> (Option<&str>, Option<&str>);
}

impl ObjectKey for ObjectMeta {
    fn namespace_name(&self) -> (Option<&str>, Option<&str>) {
        (self.namespace.as_deref(), self.name.as_deref())
    }
}

impl ObjectKey for service::Meta {
    fn namespace_name(&self) -> (Option<&str>, Option<&str>) {
        (self.namespace.as_deref(), self.name.as_deref())
    }
}
