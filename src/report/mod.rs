//! The Report: the single serialisable result (DESIGN §4). Renderers only format it.

use std::collections::BTreeMap;

use serde::Serialize;

pub mod cilium;
pub mod code;
pub mod history;
pub mod metallb;
pub mod object;
pub mod pools;
pub mod release;
pub mod service;
pub mod servicelb;
pub mod simulate;
pub mod version;
pub mod watch;
pub mod wire;

pub use cilium::{CiliumService, NodeIpam, NodeIpamNode};
pub use code::Code;
pub use history::*;
pub use metallb::*;
pub use object::ObjectRef;
pub use pools::*;
pub use release::Release;
pub use service::*;
pub use simulate::*;
pub use version::VersionInfo;
pub use watch::*;
pub use wire::*;

/// The version of every document lbdoctor writes (docs/json.md; v1alpha1 until 0.2).
pub const API_VERSION: &str = "lbdoctor/v1beta1";
/// The versions lbdoctor's own input documents (`.lbdoctor.yaml`) may carry.
pub const READ_API_VERSIONS: &[&str] = &["lbdoctor/v1beta1", "lbdoctor/v1alpha1"];

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub source: Source,
    pub summary: Summary,
    /// Findings that share a causing object, once each, the worst first.
    pub causes: Vec<Cause>,
    /// Facts of every node that do not depend on a Service, once.
    pub nodes: Vec<NodeFacts>,
    /// The nodes each advertisement (and BGPPeer) selects, once.
    pub node_sets: Vec<NodeSet>,
    pub services: Vec<ServiceReport>,
    pub findings: Vec<Finding>,
    /// Cluster-level findings that `check --ignore` or `.lbdoctor.yaml` suppressed.
    pub suppressed: Vec<Suppressed>,
    /// `check --spof` only: per node that announces anything, what it alone going down leaves dark.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spof: Option<Vec<SpofNode>>,
}

/// Counts a script reads without walking the Services.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    pub services: usize,
    /// Services per `status` word; only the words that occur.
    pub by_status: BTreeMap<&'static str, usize>,
    /// Findings (cluster-level and per Service, not the suppressed ones) by severity.
    pub findings: SeverityCounts,
    pub suppressed: usize,
    pub causes: usize,
}

#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct SeverityCounts {
    pub error: usize,
    pub warning: usize,
    pub info: usize,
}

/// One root cause: the findings of one code family that name the same causing object.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Cause {
    pub code: Code,
    pub severity: Severity,
    /// The object to fix (`Kind ns/name`): the first object a finding names other than its
    /// Service, else the Service itself.
    pub object: ObjectRef,
    pub message: String,
    pub hint: String,
    /// The command to start the fix with, with the real names.
    pub fix: String,
    /// `ns/name` of every Service it affects, sorted; `[]` for a configuration-only cause.
    pub services: Vec<String>,
    /// The codes of the findings folded into it (the symptoms with the cause).
    pub codes: Vec<Code>,
}

/// What a node is, whatever the Service.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeFacts {
    pub name: std::sync::Arc<str>,
    /// MetalLB's speaker runs and is live there; `null` when the snapshot cannot tell.
    pub speaker: Option<bool>,
    pub network_unavailable: bool,
    /// The exclude-from-external-load-balancers label's value when the key is present (often `""`).
    pub exclude_label: Option<String>,
    /// The exclude label takes the node out (the key is present and the speakers do not run with
    /// --ignore-exclude-lb).
    pub excluded: bool,
    pub roles: std::sync::Arc<[String]>,
}

/// The nodes an object selects, by name.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeSet {
    /// `L2Advertisement`, `BGPAdvertisement`, `BGPPeer`.
    pub kind: &'static str,
    pub name: String,
    pub count: usize,
    pub nodes: Vec<std::sync::Arc<str>>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Source {
    pub mode: &'static str,
    pub context: Option<String>,
    pub captured_at: Option<String>,
    pub unreadable: Vec<String>,
    pub metallb: Option<MetallbSource>,
    /// Cilium's load-balancer features as `cilium-config` sets them; `null` when Cilium is absent.
    pub cilium: Option<cilium::Setup>,
    /// Every load-balancer implementation found, with what showed it.
    pub implementations: Vec<InstalledImplementation>,
    pub assumptions: Vec<String>,
    pub ignored_kinds: BTreeMap<String, usize>,
    /// Objects of kinds the engines read, left out because no API server serves them so.
    pub ignored_objects: Vec<IgnoredObject>,
    /// Fields of file objects that no server returns for their kind: not read.
    pub ignored_fields: Vec<IgnoredField>,
    /// The bundles among the `--from` inputs (archives, collectors' trees) and what was read
    /// from each; absent when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bundles: Vec<BundleRead>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BundleRead {
    /// As given to `--from`.
    pub path: String,
    /// `metallbReport`, `ciliumSysdump` or `objects`.
    pub layout: &'static str,
    pub object_files: usize,
    pub speaker_logs: usize,
    pub controller_logs: usize,
    /// Nodes whose FRR dump was read.
    pub frr_views: usize,
    /// Entries read past, each with why.
    pub not_read: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct IgnoredField {
    pub object: String,
    pub at: String,
    pub field: String,
    /// The known field it most resembles, `null` when none is close.
    pub nearest: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct IgnoredObject {
    /// `Kind namespace/name`.
    pub object: String,
    /// `file:line` where it was found.
    pub at: String,
    pub reason: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InstalledImplementation {
    pub implementation: &'static str,
    pub evidence: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MetallbSource {
    pub namespace: String,
    pub namespace_source: String,
    pub version: Option<String>,
    /// The release whose speaker rules were applied (announcement).
    pub behaviour: Release,
    pub behaviour_reason: String,
    /// How many speaker Pods run each version: more than one during an upgrade.
    pub speaker_versions: BTreeMap<String, usize>,
    /// The controller's image tag, when seen.
    pub controller_version: Option<String>,
    /// The release whose controller rules were applied (allocation).
    pub controller_behaviour: Release,
    pub controller_behaviour_reason: String,
    pub memberlist: Memberlist,
    pub memberlist_source: String,
    #[serde(rename = "ignoreExcludeLB")]
    pub ignore_exclude_lb: bool,
    pub lb_class: String,
    pub bgp_type: BgpType,
    /// Live speakers / speaker Pods seen; `null` when the snapshot has no speaker Pods.
    pub live_speakers: Option<usize>,
    pub speaker_pods: Option<usize>,
    /// MetalLB would accept the configuration in the snapshot.
    pub config_valid: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Implementation {
    Metallb,
    CiliumNodeipam,
    CiliumLbipam,
    K3sServicelb,
    KubeVip,
    None,
    Unknown,
}

/// A sha256 digest, written as 64 lower-case hex digits (kept as bytes: reports can hold millions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hex32(pub [u8; 32]);

impl Hex32 {
    /// Its 64 digits, written without the formatting machinery: `-o json` writes three per
    /// Service, and `{:02x}` a byte at a time was a tenth of laying a Service out.
    fn digits(&self) -> [u8; 64] {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut out = [0u8; 64];
        for (pair, b) in out.chunks_exact_mut(2).zip(self.0) {
            pair[0] = HEX[usize::from(b >> 4)];
            pair[1] = HEX[usize::from(b & 0xf)];
        }
        out
    }
}

impl std::fmt::Display for Hex32 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let digits = self.digits();
        f.write_str(std::str::from_utf8(&digits).map_err(|_| std::fmt::Error)?)
    }
}

impl Serialize for Hex32 {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let digits = self.digits();
        s.serialize_str(std::str::from_utf8(&digits).map_err(serde::ser::Error::custom)?)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    pub code: Code,
    pub severity: Severity,
    pub message: String,
    pub hint: String,
    pub objects: Vec<ObjectRef>,
}

impl Finding {
    /// A finding with its code's severity (docs/findings/README.md).
    pub fn new(code: Code, message: impl Into<String>, hint: impl Into<String>, objects: Vec<ObjectRef>) -> Finding {
        Finding { code, severity: code.severity(), message: message.into(), hint: hint.into(), objects }
    }

    /// For the few codes whose severity varies per finding (their page says when).
    pub fn with_severity(mut self, severity: Severity) -> Finding {
        self.severity = severity;
        self
    }
}

/// A finding taken out of `findings` (and the exit status) by a suppression, kept for the record.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Suppressed {
    #[serde(flatten)]
    pub finding: Finding,
    pub suppression: Suppression,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Suppression {
    pub reason: String,
    /// `--ignore`, or `FILE suppressions[N]`.
    pub source: String,
}

impl Report {
    /// Every finding, cluster-level first.
    pub fn all_findings(&self) -> impl Iterator<Item = &Finding> {
        self.findings.iter().chain(self.services.iter().flat_map(|s| s.findings.iter()))
    }

    /// Every suppressed finding, cluster-level first.
    pub fn all_suppressed(&self) -> impl Iterator<Item = &Suppressed> {
        self.suppressed.iter().chain(self.services.iter().flat_map(|s| s.suppressed.iter()))
    }

    pub fn worst(&self) -> Option<Severity> {
        self.all_findings().map(|f| f.severity).max()
    }
}

impl Implementation {
    pub fn as_str(self) -> &'static str {
        match self {
            Implementation::Metallb => "metallb",
            Implementation::CiliumNodeipam => "cilium-nodeipam",
            Implementation::CiliumLbipam => "cilium-lbipam",
            Implementation::K3sServicelb => "k3s-servicelb",
            Implementation::KubeVip => "kube-vip",
            Implementation::None => "none",
            Implementation::Unknown => "unknown",
        }
    }
}

/// Where an object was read from: `check -o sarif` points at it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectOrigin {
    pub file: std::sync::Arc<str>,
    /// 1-based; `None` where the format gives no position.
    pub line: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::Hex32;

    #[test]
    fn a_digest_is_written_as_64_lower_case_hex_digits() {
        let bytes: [u8; 32] = std::array::from_fn(|i| (i as u8).wrapping_mul(37).wrapping_add(0x0f));
        let expected: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(Hex32(bytes).to_string(), expected);
        assert_eq!(serde_json::to_string(&Hex32(bytes)).unwrap(), format!("\"{expected}\""));
        assert_eq!(Hex32([0xff; 32]).to_string(), "f".repeat(64));
        assert_eq!(Hex32([0; 32]).to_string(), "0".repeat(64));
    }
}
