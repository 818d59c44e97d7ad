//! `history` (`kind: History`).

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Change, Finding, Source};

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
