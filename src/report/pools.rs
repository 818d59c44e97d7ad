//! `explain pools` (`kind: Pools`).

use serde::Serialize;

use super::{Finding, Source};

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
    pub counters: super::Counters,
    /// Whether the controller's release writes `counters` into `IPAddressPool.status` (v0.15.0
    /// and later); before, they are what v0.15.0 would write.
    pub status_written: bool,
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
