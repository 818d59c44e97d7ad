//! k3s ServiceLB's view of a Service.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Exclusion {
    /// enablelb mode and the node is not labelled `enablelb=true`.
    NotEnableLB,
    /// The Service's lbpool label differs from the node's.
    LbpoolMismatch,
    /// No Ready svclb Pod with an IP on the node (a hostPort clash keeps it Pending).
    NoReadySvclbPod,
    NoLocalEndpoint,
    NoAddressOfFamily,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeRow {
    pub node: String,
    pub used: bool,
    pub excluded_by: Vec<Exclusion>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Verdict {
    pub expected_ingress: Vec<String>,
    pub actual_ingress: Vec<String>,
    pub svclb_pods: usize,
    pub chose_external: bool,
    pub nodes: Vec<NodeRow>,
}
