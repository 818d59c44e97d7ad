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
    /// Owner changes per day and IP (days with changes only), sorted; with logs only.
    pub change_days: Vec<ChangeDay>,
    /// The day with the most owner changes, summed over the IPs; `null` without any.
    pub worst_day: Option<WorstDay>,
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
    /// Takeovers, withdrawals, starts, departures and joins past the 4 million a log's timeline
    /// keeps: when not 0, the owner changes and departures after that point are not counted.
    pub timeline_dropped: u64,
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
    /// The layer-2 election order now (first = winner), candidates only: all of them for an IP with
    /// an owner change or more than one owner, the first 5 (`check`'s `ranks`) otherwise.
    pub order: Vec<String>,
    pub owners: Vec<IpOwner>,
    /// Owner changes the logs show: takeovers + takebacks + handovers (history.md defines them).
    /// `null` without logs.
    pub owner_changes: Option<u64>,
    /// The same, by UTC day; sums to `ownerChanges`.
    pub owner_changes_by_day: BTreeMap<String, u64>,
    pub takeovers: Option<u64>,
    pub takebacks: Option<u64>,
    pub handovers: Option<u64>,
    /// The last 10 owner changes, oldest first.
    pub last_changes: Vec<OwnerChangeRow>,
    pub withdrawals_by_reason: BTreeMap<String, u64>,
    /// Nodes whose departures and rejoins caused at least 3 of its owner changes, and that churn
    /// (restarts, departures or rejoins). Without logs: owners that rank above another owner now
    /// and churn.
    pub disturbed_by: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnerChangeRow {
    /// As the logs stamp it (whole seconds under v0.16.1).
    pub at: String,
    pub from: Option<String>,
    /// `null`: the new owner's log is not there and no rejoin names it.
    pub to: Option<String>,
    /// `takeover`, `takeback` or `handover`.
    pub kind: &'static str,
    /// The node whose departure, restart or rejoin made the speakers re-elect; `null` when none did.
    pub cause: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChangeDay {
    pub day: String,
    pub ip: String,
    pub services: Vec<String>,
    pub owner_changes: u64,
    pub takeovers: u64,
    pub takebacks: u64,
    pub handovers: u64,
    /// Changes by the node that caused them; `(none)` for those no departure or rejoin explains.
    pub caused_by: BTreeMap<String, u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WorstDay {
    pub day: String,
    pub owner_changes: u64,
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
    /// Times the node left memberlist, each once however many peers logged it (NodeLeave,
    /// "Marking … as failed").
    pub departures: u64,
    /// Of those, the departures some peer marked failed (the rest were graceful leaves).
    pub failed: u64,
    /// NodeJoins after a departure, each once (start-up NodeJoins of members that never left are not).
    pub rejoins: u64,
    /// Container starts in the node's own log.
    pub starts: u64,
    /// Owner changes this node's departures, restarts or rejoins caused (any IP).
    pub owner_changes_caused: u64,
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
    /// As in `days`: departures once each, failed of those, rejoins once each.
    pub departures: u64,
    pub failed: u64,
    pub rejoins: u64,
    pub last_departure: Option<String>,
    pub owner_changes_caused: u64,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Flapping {
    pub node: String,
    pub restarts: Option<i32>,
    pub departures: u64,
    pub failed: u64,
    pub rejoins: u64,
    /// Owner changes it caused: IPs taken over when it left, taken back when it rejoined.
    pub owner_changes: u64,
    pub takeovers: u64,
    pub takebacks: u64,
    pub first_change: Option<String>,
    pub last_change: Option<String>,
    /// Whether today's configuration still makes it a candidate for one of the IPs it disturbed.
    pub candidate_now: bool,
    /// When today's configuration keeps it out: from when (the last time it lost one of those
    /// IPs), and why it is out today; `null` while it is still a candidate.
    pub fixed: Option<Fixed>,
    pub ips: Vec<Disturbed>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Fixed {
    /// The last owner change away from it, for one of those IPs.
    pub at: Option<String>,
    /// No departure, restart or rejoin explains that change: the election itself changed then
    /// (the fix). `false`: it was gone at that moment, so the configuration changed later.
    pub by_configuration_change: bool,
    /// Why it is out of the election today, as `explain` says it (`notSelected`, `excludeLabel`, …).
    pub excluded_by: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Disturbed {
    pub ip: String,
    pub services: Vec<String>,
    /// The owners it took the IP back from (or that took it over when it left).
    pub displaced: Vec<String>,
    /// Owner changes of this IP it caused (with logs), or the IP's owner changes (Events only: `null`).
    pub owner_changes: Option<u64>,
    /// Its rank for this IP today; `null`: no candidate now.
    pub rank_now: Option<usize>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Fix {
    /// `false` when today's configuration already keeps every flapping node out: no patch.
    pub needed: bool,
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
