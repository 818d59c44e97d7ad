//! `simulate` and `check --spof` (`kind: Simulation`).

use serde::Serialize;

use super::{Finding, Implementation, ObjectRef, Source};

/// `simulate`: what moves when the snapshot is edited (`kind: Simulation`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Simulation {
    pub api_version: &'static str,
    pub kind: &'static str,
    /// The snapshot before the edits.
    pub source: Source,
    pub edits: Vec<Applied>,
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

/// An edit as done, for the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Applied {
    /// `down`, `delete`, `speakerDown`, `label`, `unlabel`, `apply`.
    pub edit: &'static str,
    /// `Node worker-a`, `L2Advertisement metallb-system/l2`.
    pub object: ObjectRef,
    pub detail: String,
}
