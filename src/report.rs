//! The Report: the single serialisable result (DESIGN §4). Renderers only format it.

use std::collections::BTreeMap;

use serde::Serialize;

pub const API_VERSION: &str = "lbdoctor/v1alpha1";

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub source: Source,
    pub services: Vec<ServiceReport>,
    pub findings: Vec<Finding>,
    /// Cluster-level findings that `check --ignore` or `.lbdoctor.yaml` suppressed.
    pub suppressed: Vec<Suppressed>,
    /// `check --spof` only: per node that announces anything, what it alone going down leaves dark.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spof: Option<Vec<SpofNode>>,
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
    pub cilium: Option<crate::cilium::install::Setup>,
    /// Every load-balancer implementation found, with what showed it.
    pub implementations: Vec<InstalledImplementation>,
    pub assumptions: Vec<String>,
    pub ignored_kinds: BTreeMap<String, usize>,
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
    pub behaviour: crate::metallb::install::Behaviour,
    pub behaviour_reason: String,
    pub memberlist: crate::snapshot::Memberlist,
    pub memberlist_source: String,
    #[serde(rename = "ignoreExcludeLB")]
    pub ignore_exclude_lb: bool,
    pub lb_class: String,
    pub bgp_type: crate::snapshot::BgpType,
    /// Live speakers / speaker Pods seen; `null` when the snapshot has no speaker Pods.
    pub live_speakers: Option<usize>,
    pub speaker_pods: Option<usize>,
    /// MetalLB would accept the configuration in the snapshot.
    pub config_valid: bool,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServiceReport {
    pub namespace: String,
    pub name: String,
    #[serde(rename = "type")]
    pub type_: String,
    /// As written in the spec; `null` when unset (MetalLB then behaves as for `Cluster`).
    pub external_traffic_policy: Option<String>,
    pub load_balancer_class: Option<String>,
    pub implementation: Implementation,
    /// Who would write this Service's status, and who did.
    pub ownership: Ownership,
    pub ips: Vec<String>,
    /// MetalLB's controller replayed; `null` when MetalLB is absent or its configuration unknown.
    pub allocation: Option<Allocation>,
    pub metallb: Option<MetallbService>,
    pub cilium: Option<CiliumService>,
    /// k3s ServiceLB's view; `null` unless ServiceLB runs and handles the Service.
    pub servicelb: Option<crate::servicelb::Verdict>,
    pub findings: Vec<Finding>,
    /// This Service's findings that `check --ignore` or `.lbdoctor.yaml` suppressed.
    pub suppressed: Vec<Suppressed>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Ownership {
    /// Implementations whose rules make them write this Service's status, in a fixed order.
    pub claimants: Vec<Implementation>,
    /// Field managers that wrote `status` (managedFields, subresource `status`), oldest first.
    pub status_writers: Vec<StatusWriter>,
    /// Annotations and conditions that name an implementation.
    pub evidence: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusWriter {
    pub manager: String,
    /// The implementation the manager name belongs to; `null` when not recognised.
    pub implementation: Option<Implementation>,
    pub time: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CiliumService {
    /// `null` unless Node IPAM handles the Service.
    pub nodeipam: Option<NodeIpam>,
    /// `null` unless LB-IPAM is responsible for the Service.
    pub lbipam: Option<crate::cilium::lbipam::Verdict>,
    /// `null` when L2 announcements are off or the Service's class excludes it.
    pub l2: Option<crate::cilium::l2::Verdict>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeIpam {
    /// What Node IPAM's next reconcile leaves in `status.loadBalancer.ingress`, in its order.
    pub expected_ingress: Vec<String>,
    pub actual_ingress: Vec<String>,
    /// The `io.cilium.nodeipam/match-node-labels` annotation, as written.
    pub match_node_labels: Option<String>,
    /// The annotation's parse error: the reconcile fails and the old status stays.
    pub selector_error: Option<String>,
    /// Cilium logs `No Nodes found with configured label selector`.
    pub no_nodes_warning: bool,
    /// Some candidate has an ExternalIP, so only ExternalIPs are used (both families together).
    pub chose_external: bool,
    /// Requested families left out because the External choice hid their InternalIPs.
    pub families_lost_to_external: Vec<&'static str>,
    pub nodes: Vec<NodeIpamNode>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeIpamNode {
    pub node: String,
    pub used: bool,
    pub excluded_by: Vec<crate::cilium::nodeipam::Exclusion>,
    pub addresses: Vec<String>,
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

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MetallbService {
    /// Why nothing below could be computed, e.g. a rejected configuration (LBD201).
    pub unknown_because: Option<String>,
    /// The pool whose CIDRs hold every ingress IP (what the speaker looks up), if any.
    pub pool: Option<String>,
    pub withdraw_reason: Option<String>,
    pub layer2: Option<Layer2>,
    /// `null` when the Service's pool has no BGPAdvertisement.
    pub bgp: Option<Bgp>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Bgp {
    /// BGPAdvertisements of the pool that select the Service (on some node), sorted.
    pub advertisements: Vec<String>,
    /// Nodes whose speaker returns `""`, sorted.
    /// Shared between Services with the same set: most Services of a cluster have one.
    pub announcing: std::sync::Arc<[std::sync::Arc<str>]>,
    /// BGPPeer names that receive at least one route for the Service from some node.
    pub peers: Vec<String>,
    /// From ServiceBGPStatus: per announcing node, the peers it reports; `null` when the
    /// snapshot holds no ServiceBGPStatus at all.
    pub actual: Option<Vec<BgpActual>>,
    pub verdict: String,
    /// Every node with a live (or assumed) speaker; only in detailed output.
    pub nodes: Vec<BgpNode>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BgpActual {
    pub node: String,
    pub peers: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BgpNode {
    pub node: std::sync::Arc<str>,
    pub speaker: Option<bool>,
    pub announces: bool,
    /// What the node's BGP `ShouldAnnounce` returns; `null` where no speaker runs.
    pub reason: Option<&'static str>,
    /// The two advertisements behind `conflictingAdvertisements`.
    pub conflicting: Option<[String; 2]>,
    pub sessions: Vec<BgpSession>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BgpSession {
    pub peer: String,
    /// Peer address, or the interface for unnumbered peering.
    pub address: String,
    /// `null` with `dynamicASN`.
    pub asn: Option<u32>,
    #[serde(rename = "dynamicASN")]
    pub dynamic_asn: Option<String>,
    #[serde(rename = "myASN")]
    pub my_asn: u32,
    pub vrf: String,
    /// LOCAL_PREF only travels on iBGP sessions.
    pub ibgp: Option<bool>,
    pub routes: Vec<BgpRoute>,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BgpRoute {
    pub prefix: String,
    /// As handed to the session; `null` = unset (0).
    pub local_pref: Option<u32>,
    pub communities: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Layer2 {
    pub ip: String,
    pub expected_announcer: Option<String>,
    pub actual_announcers: Option<Vec<String>>,
    /// Where `actualAnnouncers` came from: `serviceL2Status` or `events`.
    pub actual_source: Option<String>,
    /// Why `actualAnnouncers` is unknown when the sources could not be read
    /// (`"events: forbidden (list)"`); `null` otherwise.
    pub actual_unknown_because: Option<String>,
    /// L2Advertisements of the pool that match the Service (folded duplicates included).
    pub advertisements: Vec<String>,
    /// Size of the candidate set before and after the eTP Local filter.
    pub candidates: usize,
    pub available: usize,
    /// The filter that emptied the candidate set, when it is empty.
    pub emptied_by: Option<String>,
    pub verdict: String,
    pub nodes: Vec<L2Node>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct L2Node {
    pub node: std::sync::Arc<str>,
    pub speaker: Option<bool>,
    pub reason: Option<&'static str>,
    pub rank: Option<usize>,
    pub hash: Option<Hex32>,
    /// Newer MetalLB: summed preferredNodeSelectors weight; `null` under v0.16.1 rules.
    pub score: Option<i64>,
    pub excluded_by: Vec<&'static str>,
    /// Value of the exclude-from-external-load-balancers label when present (often `""`).
    pub exclude_label_value: Option<String>,
    pub roles: std::sync::Arc<[String]>,
    /// Serving endpoints of the Service on this node.
    pub endpoints: usize,
}

/// A sha256 digest, written as 64 lower-case hex digits (kept as bytes: reports can hold millions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hex32(pub [u8; 32]);

impl std::fmt::Display for Hex32 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

impl Serialize for Hex32 {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
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
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    pub hint: String,
    pub objects: Vec<String>,
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

pub use crate::metallb::alloc::controller::Event;
pub use crate::metallb::alloc::replay::Status as AllocationStatus;

/// What MetalLB's controller does with a Service (DESIGN §4).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Allocation {
    pub status: AllocationStatus,
    pub pool: Option<String>,
    #[serde(rename = "expectedIPs")]
    pub expected_ips: Option<Vec<String>>,
    pub possible_outcomes: Option<Vec<PossibleOutcome>>,
    /// A stable code for the outcome (docs/json.md lists them).
    pub reason: &'static str,
    pub metallb_event: Option<Event>,
    /// Every Event of that pass, in order.
    pub events: Vec<Event>,
    pub detail: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct PossibleOutcome {
    pub pool: String,
    pub ips: Vec<String>,
}

/// `explain pools`: MetalLB's pools as its controller counts them.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PoolsReport {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub source: Source,
    pub pools: Vec<PoolReport>,
    pub findings: Vec<Finding>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PoolReport {
    pub name: String,
    pub addresses: Vec<String>,
    pub auto_assign: bool,
    #[serde(rename = "avoidBuggyIPs")]
    pub avoid_buggy_ips: bool,
    pub priority: Option<i64>,
    /// Namespaces after namespaceSelectors were resolved; `null` without serviceAllocation.
    pub namespaces: Option<Vec<String>>,
    pub service_selectors: Option<Vec<String>>,
    pub ipv4: FamilyUsage,
    pub ipv6: FamilyUsage,
    /// MetalLB's own `IPAddressPool.status` counters, quirks included.
    pub counters: crate::metallb::alloc::allocator::Counters,
    pub l2_advertisements: Vec<String>,
    pub bgp_advertisements: Vec<String>,
    pub holders: Vec<PoolHolder>,
    pub services: Vec<PoolCandidate>,
    pub findings: Vec<Finding>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FamilyUsage {
    /// Addresses MetalLB can hand out; `null` when MetalLB's count is unusable (≥ 2^62 or negative).
    pub total: Option<i64>,
    pub used: i64,
    pub free: Option<i64>,
    /// MetalLB's raw capacity figure, which can be `9223372036854775807` or negative.
    pub metallb_total: i64,
}

#[derive(Debug, Clone, Serialize)]
pub struct PoolHolder {
    pub ip: String,
    pub services: Vec<String>,
}

/// Whether a Service could get an address from the pool automatically, and why not.
#[derive(Debug, Clone, Serialize)]
pub struct PoolCandidate {
    pub service: String,
    pub fit: &'static str,
    pub detail: String,
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

/// `arping`: every MAC that answered, and what the cluster says about the IP (`kind: Arping`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ArpingReport {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub ip: String,
    pub interface: String,
    /// ARP who-has or Neighbor Solicitations sent.
    pub requests: u32,
    pub window_ms: u64,
    pub replies: Vec<crate::net::probe::Reply>,
    pub split_brain: bool,
    pub answers: Vec<crate::diagnose::wire::Answer>,
    pub matches_election: Option<bool>,
    /// `null` without cluster access; then `clusterUnknownBecause` says why.
    pub cluster: Option<crate::diagnose::wire::IpContext>,
    pub cluster_unknown_because: Option<String>,
    pub findings: Vec<Finding>,
}

/// `announce --dry-run`: what would be answered and sent (`kind: AnnouncePlan`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AnnouncePlan {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub interface: String,
    pub mac: crate::net::Mac,
    /// Where Neighbor Advertisements would come from; `null` without IPv6 addresses to answer.
    pub link_local: Option<String>,
    pub ips: Vec<PlannedIp>,
    pub probe_window_ms: u64,
    pub force: bool,
    /// Milliseconds after the start at which a gratuitous burst goes out.
    pub gratuitous_at_ms: Vec<u64>,
    /// `null` with `--until-interrupted`.
    pub duration_seconds: Option<f64>,
    pub cluster: Option<crate::diagnose::wire::IpContextSet>,
    pub cluster_unknown_because: Option<String>,
    pub findings: Vec<Finding>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlannedIp {
    pub ip: String,
    /// `arp` or `ndp`.
    pub protocol: &'static str,
    /// Frames per gratuitous burst for this IP: an ARP request and reply, or one NA.
    pub gratuitous_frames: Vec<&'static str>,
}

/// `simulate`: what moves when the snapshot is edited (`kind: Simulation`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Simulation {
    pub api_version: &'static str,
    pub kind: &'static str,
    /// The snapshot before the edits.
    pub source: Source,
    pub edits: Vec<crate::simulate::edit::Applied>,
    /// Only what differs; sorted by namespace, name, protocol, IP.
    pub changes: Vec<Change>,
    pub summary: SimulationSummary,
    /// Findings the edits bring (in the state after them), per-Service ones included.
    pub findings: Vec<Finding>,
    /// Findings of the state before that the edits clear.
    pub resolved: Vec<Finding>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Change {
    pub namespace: String,
    pub name: String,
    /// `null` for an allocation change of a Service without an IP on either side.
    pub ip: Option<String>,
    /// `layer2`, `bgp`, `nodeipam`, `allocation`.
    pub protocol: &'static str,
    pub implementation: Implementation,
    /// layer2: the answering node or `null`; bgp: announcing nodes; nodeipam: ingress IPs;
    /// allocation: `{status, ips}`.
    pub before: serde_json::Value,
    pub after: serde_json::Value,
    /// What made it move: an `excludedBy` code, a speaker reason, `nodeDeleted`, `lostElection`,
    /// an allocation reason; `null` when the engines give none.
    pub cause: Option<String>,
    /// Cilium L2: the nodes that would race for the Lease when its holder leaves.
    pub candidates: Option<Vec<String>>,
    pub detail: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SimulationSummary {
    /// Distinct IPs whose layer-2 announcer changes to another node.
    pub ips_moved: usize,
    /// Distinct IPs announced before and by nobody after (layer 2 or BGP).
    pub ips_unannounced: usize,
    /// Distinct IPs announced by nobody before and by someone after.
    pub ips_announced: usize,
    pub bgp_changes: usize,
    pub nodeipam_changes: usize,
    /// Services without an IP after that had one (or would have got one) before.
    pub services_pending: usize,
    pub allocation_changes: usize,
    /// Per node that loses or gains layer-2 IPs, by name.
    pub nodes: Vec<NodeMoves>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeMoves {
    pub node: String,
    /// Distinct IPs it announced before and not after.
    pub lost: usize,
    pub gained: usize,
    /// Where its lost IPs go, by node.
    pub to: Vec<MoveTarget>,
    /// Of `lost`, those nobody announces after.
    pub unannounced: usize,
    /// Of `lost`, those whose next owner is a Cilium Lease race.
    pub undecided: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MoveTarget {
    pub node: String,
    pub ips: usize,
}

/// `check --spof`: what one node going down alone would leave without an announcer.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SpofNode {
    pub node: String,
    /// Distinct IPs that lose their announcer.
    pub ips: usize,
    pub losses: Vec<Change>,
}

/// `history`: who announced each IP over time, and the churn behind owner changes (`kind: History`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct History {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub source: Source,
    /// Records older than this were left out; `null` = everything kept.
    pub since: Option<String>,
    pub logs: Vec<LogSource>,
    /// Why speaker logs are missing (none given, pods/log refused); `null` when they were read.
    pub logs_unknown_because: Option<String>,
    pub ips: Vec<IpHistory>,
    /// Per day and node, sorted.
    pub days: Vec<DayRow>,
    pub nodes: Vec<NodeChurn>,
    /// Nodes whose churn moves IPs, worst first.
    pub flapping: Vec<Flapping>,
    pub fix: Option<Fix>,
    pub findings: Vec<Finding>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LogSource {
    /// The file (`--logs DIR`) or `pods/NAME/log` (live).
    pub source: String,
    pub pod: Option<String>,
    /// The speaker's node: from its Pod; `null` when no Pod of that name is in the snapshot.
    pub node: Option<String>,
    pub lines: u64,
    pub malformed: u64,
    pub truncated: u64,
    pub untimed: u64,
    pub first_ts: Option<String>,
    pub last_ts: Option<String>,
    /// "MetalLB speaker starting" lines: container starts this log covers.
    pub starts: u64,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IpHistory {
    pub ip: String,
    /// `namespace/name` of the Services holding it now; empty for an IP only the logs name.
    pub services: Vec<String>,
    pub expected_announcer: Option<String>,
    /// From ServiceL2Status; `null` when none records it.
    pub current_owner: Option<String>,
    /// The layer-2 election order now (first = winner), candidates only.
    pub order: Vec<String>,
    pub owners: Vec<IpOwner>,
    /// Owner changes the logs show, at least: each owner's episodes (takeovers, or withdrawals
    /// when its log is cut short, as a crash-looping speaker's is) after the first. `null` without logs.
    pub owner_changes: Option<u64>,
    pub withdrawals_by_reason: BTreeMap<String, u64>,
    /// Owners that rank above another owner and churn (restarts, memberlist failures).
    pub disturbed_by: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IpOwner {
    pub node: String,
    /// 1 = first in the election order now; `null` = not a candidate now.
    pub rank: Option<usize>,
    /// Times its speaker started announcing the IP (logs); `null` without its log.
    pub takeovers: Option<u64>,
    pub takeovers_by_day: BTreeMap<String, u64>,
    /// Times its speaker withdrew the IP with `notOwner`: another node took it. `null` without its log.
    pub withdrawn_not_owner: Option<u64>,
    /// The `nodeAssigned` Events naming it, aggregated; `null` when there are none.
    pub events: Option<EventCount>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EventCount {
    /// Kubernetes' count: every successful reconcile, not only takeovers.
    pub count: i64,
    pub first_timestamp: Option<String>,
    pub last_timestamp: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DayRow {
    pub day: String,
    pub node: String,
    /// serviceAnnounced lines in the node's own log.
    pub announced: u64,
    pub withdrawn: u64,
    pub withdrawn_by_reason: BTreeMap<String, u64>,
    /// "Suspect NODE has failed" lines about the node, summed over every peer's log.
    pub suspect: u64,
    /// Times the node was marked failed / rejoined: the most any one peer logged (each peer logs each once).
    pub failed: u64,
    pub rejoins: u64,
    /// Container starts in the node's own log.
    pub starts: u64,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeChurn {
    pub node: String,
    pub pod: Option<String>,
    /// The speaker container's restartCount; `null` without its Pod.
    pub restarts: Option<i32>,
    pub last_termination: Option<String>,
    pub last_termination_reason: Option<String>,
    pub suspect: u64,
    pub failed: u64,
    pub rejoins: u64,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Flapping {
    pub node: String,
    pub restarts: Option<i32>,
    pub failed: u64,
    pub rejoins: u64,
    /// Times it took a disturbed IP back: the displaced owners' `notOwner` withdrawals (logs).
    pub takebacks: u64,
    pub ips: Vec<Disturbed>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Disturbed {
    pub ip: String,
    pub services: Vec<String>,
    /// The lower-ranked owners it takes the IP back from.
    pub displaced: Vec<String>,
    pub owner_changes: Option<u64>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Fix {
    pub summary: String,
    pub patches: Vec<AdPatch>,
    /// What the patches move, as `simulate --apply` computes it.
    pub effect: Vec<Change>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AdPatch {
    pub namespace: String,
    pub name: String,
    /// A JSON merge patch of the L2Advertisement.
    pub patch: serde_json::Value,
    pub command: String,
}
