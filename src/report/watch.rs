//! `--watch` (docs/watch.md): a document per change (`kind: Change`), one when the watch starts
//! (`kind: WatchStart`) and one when it ends (`kind: WatchSummary`).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use super::{ObjectRef, Summary};

/// What changed between two evaluations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ChangeKind {
    /// The node (or nodes, for BGP and Node IPAM) that should answer for an IP.
    Announcer,
    /// The Service's one-word status (`ok`, `dark`, `pending`, …).
    Status,
    /// What MetalLB's controller would assign.
    Allocation,
    /// The IPs in the Service's status.
    Ips,
    /// Who the cluster records as answering (ServiceL2Status, nodeAssigned Events, …).
    Observed,
    /// A Service appeared or went.
    Service,
    /// A root cause appeared or cleared.
    Cause,
}

impl ChangeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Announcer => "announcer",
            ChangeKind::Status => "status",
            ChangeKind::Allocation => "allocation",
            ChangeKind::Ips => "ips",
            ChangeKind::Observed => "observed",
            ChangeKind::Service => "service",
            ChangeKind::Cause => "cause",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WatchChange {
    pub api_version: &'static str,
    pub kind: &'static str,
    /// When the evaluation that saw it ran (RFC 3339, UTC).
    pub time: String,
    pub change: ChangeKind,
    /// `namespace/name`; `null` for a cause.
    pub service: Option<String>,
    pub ip: Option<String>,
    /// announcer: a node or `null` (layer 2), node lists (BGP, Node IPAM); status: the word;
    /// allocation: `{status, ips}`; ips and observed: as the report writes them; cause:
    /// `null` or the cause's message.
    pub before: Value,
    pub after: Value,
    /// Why, as a code: an `excludedBy` code, `nodeDeleted`, a speaker reason, an allocation
    /// reason, a finding code; `null` when the engines give none.
    pub reason: Option<String>,
    /// The node that stopped announcing and why, for an announcer change (`worker-b: excludeLabel`).
    pub detail: String,
    /// A cause's object; for a Service change `null`.
    pub object: Option<ObjectRef>,
    /// The Services a cause affects (count), for a cause change.
    pub services: Option<usize>,
    /// What the cluster itself records for the Service when the change is seen (the OBSERVED
    /// column: ServiceL2Status, nodeAssigned Events, ServiceBGPStatus, Leases); `null` for a cause.
    pub observed: Option<String>,
    /// The record names another announcer than the replay: speakers and replay disagree.
    pub drift: bool,
    /// The watch events of this evaluation, the ones naming this Service's objects, its nodes or
    /// the cause first; at most [`WatchChange::TRIGGERS`].
    pub triggers: Vec<Trigger>,
    /// Every object that changed in this evaluation's window.
    pub triggers_total: usize,
}

impl WatchChange {
    pub const TRIGGERS: usize = 5;
}

/// One object a watch reported changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Trigger {
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
    /// `added`, `modified`, `deleted`, or `relisted` (the watch was re-listed after 410 Gone).
    pub event: &'static str,
    /// What differs, for `modified`: `labels`, `annotations`, `spec`, `status`, `endpoints`, …
    pub fields: Vec<String>,
}

impl Trigger {
    /// `Node worker-b labels`, `EndpointSlice default/web-abc12 deleted`.
    pub fn describe(&self) -> String {
        let name = match &self.namespace {
            Some(ns) => format!("{ns}/{}", self.name),
            None => self.name.clone(),
        };
        let what = if self.event == "modified" && !self.fields.is_empty() {
            self.fields.join(",")
        } else {
            self.event.to_string()
        };
        format!("{} {name} {what}", self.kind)
    }
}

/// The state the watch starts from.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WatchStart {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub time: String,
    pub context: Option<String>,
    /// `all`, `namespace NS` or `service NS/NAME`.
    pub scope: String,
    pub summary: Summary,
    /// The kinds watched, as `kubectl get` names them.
    pub watching: Vec<String>,
}

/// The end of a watch: what moved, and the last state.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WatchSummary {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub time: String,
    pub started: String,
    /// `interrupted` (SIGINT/SIGTERM), `timeout` (`--timeout`), or `error` (the cluster refused
    /// the credentials; exit 3).
    pub ended_by: &'static str,
    /// Evaluations after the first.
    pub evaluations: u64,
    /// Watch events received (ADDED, MODIFIED, DELETED), the ones that changed nothing the
    /// engines read included.
    pub events: u64,
    pub changes: u64,
    /// Per Service with changes: how many of each kind, the most first.
    pub services: Vec<ServiceChanges>,
    /// IPs whose announcer changed at least [`WatchSummary::FLAPPING`] times.
    pub flapping: Vec<FlappingIp>,
    /// The last evaluation's counts; the exit status follows its findings.
    pub summary: Summary,
}

impl WatchSummary {
    pub const FLAPPING: u64 = 2;
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServiceChanges {
    pub service: String,
    pub changes: u64,
    pub by_kind: BTreeMap<&'static str, u64>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FlappingIp {
    pub ip: String,
    pub services: Vec<String>,
    pub moves: u64,
    /// The announcers in order, the first one included (`null` for nobody); the last
    /// [`FlappingIp::SHOWN`].
    pub announcers: Vec<Option<String>>,
}

impl FlappingIp {
    pub const SHOWN: usize = 10;
}
