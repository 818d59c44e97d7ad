//! MetalLB's part: the speaker's layer-2 and BGP verdicts, the controller's allocation words,
//! the install's behaviour switches.

use compact_str::CompactString;
use serde::{Deserialize, Serialize};

use super::Hex32;

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MetallbService {
    /// Why nothing below could be computed, e.g. a rejected configuration (LBD201).
    pub unknown_because: Option<Box<str>>,
    /// The pool whose CIDRs hold every ingress IP (what the speaker looks up), if any.
    pub pool: Option<CompactString>,
    pub withdraw_reason: Option<Withdraw>,
    pub layer2: Option<Layer2>,
    /// `null` when the Service's pool has no BGPAdvertisement. Boxed: most clusters announce
    /// in layer 2, and their 10,000 reports would each carry 152 bytes of `None`.
    pub bgp: Option<Box<Bgp>>,
    /// What every node's BGP handler answers when `bgp` is null because no BGPAdvertisement
    /// selects the pool: MetalLB still runs it, and it says `notOwner` (speaker spec §3.5).
    pub bgp_reason: Option<BgpReason>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Bgp {
    /// BGPAdvertisements of the pool that select the Service (on some node), sorted.
    pub advertisements: Vec<String>,
    /// Nodes whose speaker returns `""`, sorted: the first [`NodeGroup::SHOWN`], every one with
    /// `--nodes all`. Shared between Services with the same set: most Services of a cluster have one.
    pub announcing: std::sync::Arc<[std::sync::Arc<str>]>,
    pub announcing_count: usize,
    /// BGPPeer names that receive at least one route for the Service from some node.
    pub peers: Vec<String>,
    /// From ServiceBGPStatus: per announcing node, the peers it reports; `null` when the
    /// snapshot holds no ServiceBGPStatus at all.
    pub actual: Option<Vec<BgpActual>>,
    /// `actual` equals the sessions MetalLB's rules give; `null` without ServiceBGPStatus.
    pub actual_agrees: Option<bool>,
    pub verdict: String,
    /// Every node with a live (or assumed) speaker and its sessions; `null` unless asked for
    /// (`explain svc NAME`, `--nodes all`).
    pub nodes: Option<Vec<BgpNode>>,
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
    pub reason: Option<BgpReason>,
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
    pub ip: CompactString,
    pub expected_announcer: Option<CompactString>,
    pub actual_announcers: Option<Box<[CompactString]>>,
    /// Where `actualAnnouncers` came from: `serviceL2Status` or `events`.
    pub actual_source: Option<CompactString>,
    /// Why `actualAnnouncers` is unknown when the sources could not be read
    /// (`"events: forbidden (list)"`); `null` otherwise.
    pub actual_unknown_because: Option<Box<str>>,
    /// L2Advertisements of the pool that match the Service (folded duplicates included).
    /// Shared by the reports with the same list.
    pub advertisements: std::sync::Arc<[String]>,
    /// Size of the candidate set before and after the eTP Local filter.
    pub candidates: u32,
    pub available: u32,
    /// The filter that emptied the candidate set, when it is empty.
    pub emptied_by: Option<Exclusion>,
    pub verdict: Sentence,
    /// The head of the election order: the winner first (up to 5; every candidate with
    /// `--nodes all`).
    pub ranks: Box<[L2Rank]>,
    /// The nodes that do not announce, grouped by the first filter that removes them for this
    /// Service, in filter order. Node-wide facts are in the top-level `nodes`.
    /// Shared by the reports with the same groups.
    pub excluded: std::sync::Arc<[NodeGroup]>,
    /// Every node's row; `null` unless asked for (`explain svc NAME`, `--nodes all`).
    pub nodes: Option<Box<[L2Node]>>,
    /// Every node's part in the election, in the order of the report's `nodes`: the map of
    /// `-o html` only (a byte or two per node, where a row is a hundred).
    #[serde(skip)]
    pub cells: Option<Box<[L2Cell]>>,
}

/// A layer-2 verdict: its own first clause (who announces which IP, or why nobody does), then
/// the clauses about the nodes the filters removed, which most Services of a cluster share word
/// for word and so hold once (3.4 MB of 10,000 reports were these clauses, copied). Written as
/// one string, `head; tail`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sentence {
    head: Box<str>,
    tail: Option<std::sync::Arc<str>>,
}

impl Sentence {
    pub fn new(head: String, tail: Option<std::sync::Arc<str>>) -> Sentence {
        Sentence { head: head.into_boxed_str(), tail }
    }
}

impl std::fmt::Display for Sentence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.head)?;
        match &self.tail {
            Some(tail) => write!(f, "; {tail}"),
            None => Ok(()),
        }
    }
}

impl Serialize for Sentence {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// One node's part in one Service's layer-2 election.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum L2Cell {
    /// First in the election order, with a live speaker: it answers ARP/NDP.
    Announces,
    /// First in the election order, but no speaker acts there: nobody answers.
    ElectedNoSpeaker,
    /// A candidate that another node outranks.
    Lost,
    /// The first filter that removes it.
    Out(Exclusion),
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct L2Rank {
    pub rank: usize,
    pub node: std::sync::Arc<str>,
    pub hash: Hex32,
    /// Newer MetalLB: summed preferredNodeSelectors weight; `null` under v0.16.1 rules.
    pub score: Option<i64>,
}

/// Nodes one filter removed: how many, and their names (the first [`NodeGroup::SHOWN`] by
/// name; every one with `--nodes all`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeGroup {
    pub excluded_by: Exclusion,
    pub count: usize,
    /// `null` for the node-wide filters (`noSpeaker`, `networkUnavailable`, `excludeLabel`),
    /// whose nodes the top-level `nodes` lists, and for `lostElection` (see `ranks`), unless
    /// `--nodes all` or one Service is explained.
    pub nodes: Option<Vec<std::sync::Arc<str>>>,
}

impl NodeGroup {
    pub const SHOWN: usize = 10;
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct L2Node {
    pub node: std::sync::Arc<str>,
    pub speaker: Option<bool>,
    pub reason: Option<L2Reason>,
    pub rank: Option<usize>,
    pub hash: Option<Hex32>,
    /// Newer MetalLB: summed preferredNodeSelectors weight; `null` under v0.16.1 rules.
    pub score: Option<i64>,
    pub excluded_by: Vec<Exclusion>,
    /// Value of the exclude-from-external-load-balancers label when present (often `""`).
    pub exclude_label_value: Option<String>,
    pub roles: std::sync::Arc<[String]>,
    /// Serving endpoints of the Service on this node.
    pub endpoints: usize,
}

/// Service-level reasons a speaker withdraws (speaker spec §3.2); MetalLB's own strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Withdraw {
    #[serde(rename = "notLoadBalancer")]
    NotLoadBalancer,
    #[serde(rename = "noIPAllocated")]
    NoIpAllocated,
    #[serde(rename = "invalidIP")]
    InvalidIp,
    #[serde(rename = "ipNotAllowed")]
    IpNotAllowed,
}

impl Withdraw {
    pub fn as_str(self) -> &'static str {
        match self {
            Withdraw::NotLoadBalancer => "notLoadBalancer",
            Withdraw::NoIpAllocated => "noIPAllocated",
            Withdraw::InvalidIp => "invalidIP",
            Withdraw::IpNotAllowed => "ipNotAllowed",
        }
    }
}

/// The string MetalLB's layer2 `ShouldAnnounce` returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum L2Reason {
    #[serde(rename = "")]
    Announce,
    #[serde(rename = "notOwner")]
    NotOwner,
    #[serde(rename = "noMatchingAdvertisement")]
    NoMatchingAdvertisement,
    #[serde(rename = "sharedIPWithServiceSelector")]
    SharedIpWithServiceSelector,
}

impl L2Reason {
    pub fn as_str(self) -> &'static str {
        match self {
            L2Reason::Announce => "",
            L2Reason::NotOwner => "notOwner",
            L2Reason::NoMatchingAdvertisement => "noMatchingAdvertisement",
            L2Reason::SharedIpWithServiceSelector => "sharedIPWithServiceSelector",
        }
    }
}

/// Why a node is not the layer-2 announcer, in filter order (DESIGN §4): `excludedBy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Exclusion {
    /// Step 1: no endpoint of the Service can serve, so nobody holds an election.
    #[serde(rename = "noServingEndpoint")]
    NoServingEndpoint,
    /// Newer MetalLB, step 3: allow-shared-ip with an advertisement that has serviceSelectors.
    #[serde(rename = "sharedIPWithServiceSelector")]
    SharedIpRefused,
    /// Memberlist disabled on a release before v0.15.0: no speaker has a candidate (L-2).
    #[serde(rename = "memberlistDisabled")]
    MemberlistDisabled,
    #[serde(rename = "noSpeaker")]
    NoSpeaker,
    #[serde(rename = "networkUnavailable")]
    NetworkUnavailable,
    /// `spec.unschedulable` on v0.14.9, the one release that drops cordoned nodes (L-5).
    #[serde(rename = "cordoned")]
    Cordoned,
    #[serde(rename = "excludeLabel")]
    ExcludeLabel,
    #[serde(rename = "notSelected")]
    NotSelected,
    #[serde(rename = "noLocalEndpoint")]
    NoLocalEndpoint,
    #[serde(rename = "lostElection")]
    LostElection,
}

impl Exclusion {
    /// The filter removes the same nodes whatever the Service.
    pub fn node_wide(self) -> bool {
        matches!(
            self,
            Exclusion::MemberlistDisabled
                | Exclusion::NoSpeaker
                | Exclusion::NetworkUnavailable
                | Exclusion::Cordoned
                | Exclusion::ExcludeLabel
        )
    }

    /// The filter in a person's words, as the tables and the page print it.
    pub fn words(self) -> &'static str {
        match self {
            Exclusion::MemberlistDisabled => "memberlist disabled",
            Exclusion::NoSpeaker => "no live speaker",
            Exclusion::NetworkUnavailable => "NetworkUnavailable",
            Exclusion::Cordoned => "cordoned",
            Exclusion::ExcludeLabel => "exclude-lb label",
            Exclusion::NotSelected => "not selected",
            Exclusion::NoLocalEndpoint => "no local endpoint",
            Exclusion::NoServingEndpoint => "no serving endpoint",
            Exclusion::SharedIpRefused => "shared IP refused",
            Exclusion::LostElection => "lost the election",
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Exclusion::NoServingEndpoint => "noServingEndpoint",
            Exclusion::SharedIpRefused => "sharedIPWithServiceSelector",
            Exclusion::NoSpeaker => "noSpeaker",
            Exclusion::NetworkUnavailable => "networkUnavailable",
            Exclusion::MemberlistDisabled => "memberlistDisabled",
            Exclusion::Cordoned => "cordoned",
            Exclusion::ExcludeLabel => "excludeLabel",
            Exclusion::NotSelected => "notSelected",
            Exclusion::NoLocalEndpoint => "noLocalEndpoint",
            Exclusion::LostElection => "lostElection",
        }
    }
}

/// The string MetalLB's BGP `ShouldAnnounce` returns ([`BgpReason::as_str`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum BgpReason {
    #[serde(rename = "")]
    Announce,
    #[serde(rename = "notOwner")]
    NotOwner,
    #[serde(rename = "noMatchingAdvertisement")]
    NoMatchingAdvertisement,
    #[serde(rename = "conflictingAdvertisements")]
    ConflictingAdvertisements,
    /// v0.14.9 only: the speaker's own Node is cordoned.
    #[serde(rename = "nodeUnschedulable")]
    NodeUnschedulable,
    #[serde(rename = "nodeNetworkUnavailable")]
    NodeNetworkUnavailable,
    #[serde(rename = "nodeLabeledExcludeBalancers")]
    NodeLabeledExcludeBalancers,
    #[serde(rename = "noLocalEndpoints")]
    NoLocalEndpoints,
    #[serde(rename = "noEndpoints")]
    NoEndpoints,
}

impl BgpReason {
    pub fn as_str(self) -> &'static str {
        match self {
            BgpReason::Announce => "",
            BgpReason::NotOwner => "notOwner",
            BgpReason::NoMatchingAdvertisement => "noMatchingAdvertisement",
            BgpReason::ConflictingAdvertisements => "conflictingAdvertisements",
            BgpReason::NodeUnschedulable => "nodeUnschedulable",
            BgpReason::NodeNetworkUnavailable => "nodeNetworkUnavailable",
            BgpReason::NodeLabeledExcludeBalancers => "nodeLabeledExcludeBalancers",
            BgpReason::NoLocalEndpoints => "noLocalEndpoints",
            BgpReason::NoEndpoints => "noEndpoints",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Event {
    #[serde(rename = "type")]
    pub type_: &'static str,
    pub reason: &'static str,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum AllocationStatus {
    Allocated,
    Pending,
    Mismatch,
    NotOurs,
}

impl AllocationStatus {
    /// As JSON writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            AllocationStatus::Allocated => "allocated",
            AllocationStatus::Pending => "pending",
            AllocationStatus::Mismatch => "mismatch",
            AllocationStatus::NotOurs => "notOurs",
        }
    }
}

/// `PoolCounters` as written into `IPAddressPool.status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Counters {
    #[serde(rename = "assignedIPv4")]
    pub assigned_ipv4: i64,
    #[serde(rename = "assignedIPv6")]
    pub assigned_ipv6: i64,
    #[serde(rename = "availableIPv4")]
    pub available_ipv4: i64,
    #[serde(rename = "availableIPv6")]
    pub available_ipv6: i64,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Memberlist {
    Enabled,
    Disabled,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, clap::ValueEnum)]
pub enum BgpType {
    #[serde(rename = "native")]
    #[value(name = "native")]
    Native,
    #[serde(rename = "frr")]
    #[value(name = "frr")]
    Frr,
    #[serde(rename = "frr-k8s")]
    #[value(name = "frr-k8s")]
    FrrK8s,
}

#[cfg(test)]
mod tests {
    use super::AllocationStatus;

    #[test]
    fn allocation_status_words_are_the_json_ones() {
        for s in [
            AllocationStatus::Allocated,
            AllocationStatus::Pending,
            AllocationStatus::Mismatch,
            AllocationStatus::NotOurs,
        ] {
            assert_eq!(serde_json::to_value(s).unwrap(), s.as_str());
        }
    }
}
