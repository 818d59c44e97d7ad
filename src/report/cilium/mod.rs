//! Cilium's part: its install, Node IPAM, LB-IPAM and L2 announcement verdicts.

pub mod l2;
pub mod lbipam;
pub mod nodeipam;

use serde::Serialize;

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CiliumService {
    /// `null` unless Node IPAM handles the Service.
    pub nodeipam: Option<NodeIpam>,
    /// `null` unless LB-IPAM is responsible for the Service.
    pub lbipam: Option<lbipam::Verdict>,
    /// `null` when L2 announcements are off or the Service's class excludes it.
    pub l2: Option<l2::Verdict>,
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
    pub excluded_by: Vec<nodeipam::Exclusion>,
    pub addresses: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Setup {
    pub installed: bool,
    /// What showed Cilium: `ConfigMap kube-system/cilium-config`, `agent Pods`, …
    pub evidence: Vec<String>,
    pub namespace: String,
    /// `cilium-config` was in the snapshot; without it every feature below is Cilium's default.
    pub config_found: bool,
    pub node_ipam: bool,
    pub lb_ipam: bool,
    /// `default-lb-service-ipam` as written (`lbipam`, `nodeipam`, `none`, or anything else = none).
    pub default_lb_service_ipam: String,
    pub l2_announcements: bool,
    pub bgp_control_plane: bool,
    /// `enable-ipv4` / `enable-ipv6`: the families LB-IPAM hands out on the generic path.
    pub ipv4: bool,
    pub ipv6: bool,
    pub kube_proxy_replacement: Option<String>,
    /// The agent's `devices`, when configured; `null` means auto-detected (unknown offline).
    pub devices: Option<Vec<String>>,
    pub lease: LeaseTiming,
    /// The agent's image tag.
    pub version: Option<String>,
    /// The cilium-operator's image tag (LB-IPAM runs there; during an upgrade it differs from the agent's).
    pub operator_version: Option<String>,
    /// Agent Pods by node; `null` when the snapshot has none.
    pub agents: Option<Vec<Agent>>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Agent {
    pub pod: String,
    pub node: Option<String>,
    /// Phase Running and condition Ready True.
    pub ready: bool,
    pub phase: Option<String>,
}

/// The L2 lease durations after Cilium's per-Service sanitisation (spec §2.1), in seconds.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LeaseTiming {
    pub lease_duration: f64,
    pub renew_deadline: f64,
    pub retry_period: f64,
    /// Cilium's own warning lines for every value it corrected.
    pub corrections: Vec<String>,
}
