//! Cilium LB-IPAM: which pool and address the operator gives the Service.

use serde::Serialize;

/// Cilium's reason vocabulary for `cilium.io/IPAMRequestSatisfied`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Reason {
    #[serde(rename = "satisfied")]
    Satisfied,
    #[serde(rename = "no_pool")]
    NoPool,
    #[serde(rename = "pool_selector_mismatch")]
    PoolSelectorMismatch,
    #[serde(rename = "already_allocated")]
    AlreadyAllocated,
    #[serde(rename = "already_allocated_incompatible_service")]
    AlreadyAllocatedIncompatibleService,
    #[serde(rename = "out_of_ips")]
    OutOfIps,
}

/// Why LB-IPAM leaves a Service alone (§3.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum NotResponsible {
    Disabled,
    /// Dormant: no CiliumLoadBalancerIPPool exists.
    NoPools,
    NotLoadBalancer,
    DefaultIpamNotLbipam,
    BgpControlPlaneDisabled,
    L2AnnouncementsDisabled,
    OtherClass,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Verdict {
    /// Specific addresses asked for (`spec.loadBalancerIP`, `lbipam.cilium.io/ips`), in order.
    pub requested_ips: Vec<String>,
    pub unparsable_requests: Vec<String>,
    pub requested_families: Vec<&'static str>,
    pub sharing_key: Option<String>,
    /// Ingress addresses LB-IPAM counts as this Service's, with their pool.
    pub held: Vec<Held>,
    /// Ingress addresses LB-IPAM removes: not asked for (another specific IP, or a family the
    /// Service does not request), or in no pool that selects the Service.
    pub stripped: Vec<String>,
    /// Ingress addresses other Services hold too without being able to share them: LB-IPAM
    /// keeps each on whichever Service it allocated first (the snapshot does not say which).
    pub contested: Vec<Contested>,
    pub satisfied: bool,
    /// What LB-IPAM would set now; `reason` null = it has a free address and would allocate it.
    pub expected: ExpectedCondition,
    /// For a fresh generic allocation: every pool it may come from (Cilium's choice is random).
    pub candidate_pools: Vec<String>,
    pub actual: Option<Condition>,
    /// What the next cilium-operator start leaves on the Service (it re-imports every status).
    pub restart: Restart,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Restart {
    /// The release line whose start-up order was replayed (`v1.21/main`, `v1.20`, …).
    pub rules: &'static str,
    /// Every state Cilium's order can leave; one when the order does not matter.
    pub outcomes: Vec<RestartOutcome>,
    /// Every order was replayed; false = a fixed sample of them (too many interacting Services).
    pub exhaustive: bool,
    /// Addresses the Service holds now that some outcome takes away.
    pub loses: Vec<Lost>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Lost {
    pub ip: String,
    pub pool: String,
    pub cause: LostCause,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum LostCause {
    /// `spec.disabled: true`: a restart does not import from it.
    PoolDisabled,
    /// The pool is in `cilium.io/PoolConflict`: a restart does not import from it.
    PoolConflict,
    /// Another Service imports or allocates it first in some order.
    TakenFirst,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RestartOutcome {
    pub ingress: Vec<String>,
    /// `null`: LB-IPAM leaves the condition as it is (the Service is satisfied by its import).
    pub condition: Option<ExpectedCondition>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Contested {
    pub ip: String,
    /// `namespace/name` of the other Services showing the address.
    pub with: Vec<String>,
    /// Cilium's reason text for the first incompatibility, or `no sharing key`.
    pub reason: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Held {
    pub ip: String,
    pub pool: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExpectedCondition {
    pub status: &'static str,
    pub reason: Option<Reason>,
    pub message: String,
}

#[derive(Debug, Clone, Default, Serialize, serde::Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    #[serde(rename = "type")]
    pub type_: String,
    #[serde(default)]
    pub status: String,
    #[serde(default)]
    pub reason: String,
    #[serde(default)]
    pub message: String,
}
