//! Cilium L2 announcements: who competes for the Service's Lease, and who holds it.

use std::sync::Arc;

use serde::Serialize;

/// Why a node does not compete for the Service's Lease, in Cilium's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Exclusion {
    /// No policy that selects the Service has a nodeSelector matching the node's CiliumNode labels.
    NotSelectedByPolicy,
    /// eTP Local (Cilium v1.20.2 and later): no ready local backend.
    NoLocalEndpoint,
    AgentNotReady,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Skip {
    Disabled,
    /// A class other than `io.cilium/l2-announcer` (none is fine).
    OtherClass,
    /// Neither LoadBalancer ingress IPs nor externalIPs: nothing to announce.
    NoAddresses,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PolicyMatch {
    pub policy: String,
    pub selects: bool,
    /// Why it does not select the Service: `badServiceSelector`, `serviceSelector`, `noAddressType`.
    pub why_not: Option<&'static str>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeRow {
    pub node: Arc<str>,
    pub eligible: bool,
    pub excluded_by: Vec<Exclusion>,
    /// `null` when the snapshot has no Cilium agent Pods.
    pub agent_ready: Option<bool>,
    /// Carries the exclude-from-external-load-balancers label, which Cilium L2 does not read.
    pub exclude_label: bool,
    /// Devices the selecting policies' interface patterns match on this node; `null` when the
    /// agent's devices are auto-detected (not in cilium-config).
    pub interfaces: Option<Vec<String>>,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExcludedCounts {
    pub not_selected_by_policy: usize,
    pub no_local_endpoint: usize,
    pub agent_not_ready: usize,
}

/// Whether the eTP=Local gate (only nodes with a local backend compete) applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum EtpGate {
    NotLocal,
    /// v1.20.2 and later.
    Gated,
    /// Older: the leader may have no local pod, and traffic it receives is dropped.
    Ungated,
    /// Cilium's version is unknown: both behaviours are possible.
    Unknown,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LeaseState {
    pub namespace: String,
    /// Lease names Cilium uses: `cilium-l2announce-<ns>.<name>` (main) and `…-<ns>-<name>` (≤ v1.20).
    pub names: [String; 2],
    /// The one found, if any.
    pub name: Option<String>,
    pub holder: Option<String>,
    pub renew_time: Option<String>,
    pub lease_duration_seconds: Option<i32>,
    /// `renewTime + leaseDurationSeconds`: when another node may take over if nobody renews.
    pub expires_at: Option<String>,
    /// `renewTime + leaseDurationSeconds` after the capture time; `null` without either.
    pub fresh: Option<bool>,
    /// Unexpired, but last renewed longer ago than the configured renew deadline: the holder
    /// has stopped leading and nobody else may take over yet.
    pub renew_overdue: Option<bool>,
    pub holder_eligible: Option<bool>,
    pub holder_agent_ready: Option<bool>,
    /// Why the holder would not compete now; `null` when it is not a Node in the snapshot.
    pub holder_excluded_by: Option<Vec<Exclusion>>,
    /// The snapshot holds Lease objects at all, or records that Cilium's namespace was listed
    /// (`SnapshotInfo.leasesListedIn`); otherwise `holder` is unknown, not absent.
    pub leases_captured: bool,
    /// Other Services whose dash-form Lease name is the same (Cilium issue #48084).
    pub collides_with: Vec<String>,
}

/// How the agent chooses the devices it may announce on (cilium-config `devices`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum DeviceSource {
    /// Named in full: the same on every node.
    Listed,
    /// `eth+` prefixes: resolved on each node against its own device names.
    Wildcard,
    /// `devices` unset: each agent picks its own (up, with a global unicast route; not loopback,
    /// bridges, bond or bridge ports, Cilium's and other CNIs' devices, veth without a default route).
    AutoDetected,
}

/// Which devices the leader announces the Service's addresses on (spec §2.2, §2.5).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Interfaces {
    pub source: DeviceSource,
    /// cilium-config `devices` as written (empty when auto-detected).
    pub devices: Vec<String>,
    /// Selecting policies without `interfaces`: they announce on every device the agent selected.
    pub every_device: Vec<String>,
    /// The agent Pod whose `cilium-dbg status --verbose` lists the devices it chose: the Lease
    /// holder's, else any agent's; `null` without agent Pods in the snapshot.
    pub agent_pod: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Verdict {
    pub skipped: Option<Skip>,
    pub lb_addresses: Vec<String>,
    pub external_addresses: Vec<String>,
    pub policies: Vec<PolicyMatch>,
    pub etp_gate: EtpGate,
    /// Nodes that compete for the Lease, sorted (shared between Services with the same set).
    /// The first 10 unless `--nodes all`; `eligibleCount` counts them all.
    pub eligible: Arc<[Arc<str>]>,
    pub eligible_count: usize,
    /// How many nodes each filter removes (a node can be counted under several).
    pub excluded: ExcludedCounts,
    /// Every node; only in detailed output.
    pub nodes: Vec<NodeRow>,
    pub lease: Option<LeaseState>,
    /// Where the announcing devices come from; `null` when no policy selects the Service.
    pub interfaces: Option<Interfaces>,
    /// The node answering ARP/NDP now: the holder of an unexpired Lease; `null` when unknown or nobody.
    pub announcer: Option<String>,
    /// Every node's part, for `-o html`'s map only.
    #[serde(skip)]
    pub cells: Option<CellRow>,
}

/// Every node's part in the competition for one Service's Lease, by node in `nodes`' order.
#[derive(Debug, Clone)]
pub struct CellRow {
    /// Cilium's node list, shared by every Service.
    pub nodes: Arc<[Arc<str>]>,
    pub cells: Box<[L2Cell]>,
}

/// One node's part for one Service.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum L2Cell {
    /// Holds the unexpired Lease: it answers ARP/NDP.
    Holds,
    /// Competes for the Lease: it takes over when the holder stops renewing.
    Competes,
    /// The first filter that keeps it out, in Cilium's order.
    Out(Exclusion),
}
