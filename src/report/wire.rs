//! `arping` and `announce --dry-run`: what answered on the wire and what the cluster says.

use std::collections::BTreeMap;

use compact_str::CompactString;
use serde::Serialize;

use super::{Finding, Implementation};

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
    pub replies: Vec<Reply>,
    pub split_brain: bool,
    pub answers: Vec<Answer>,
    pub matches_election: Option<bool>,
    /// `null` without cluster access; then `clusterUnknownBecause` says why.
    pub cluster: Option<IpContext>,
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
    pub mac: Mac,
    /// Where Neighbor Advertisements would come from; `null` without IPv6 addresses to answer.
    pub link_local: Option<String>,
    pub ips: Vec<PlannedIp>,
    pub probe_window_ms: u64,
    pub force: bool,
    /// Milliseconds after the start at which a gratuitous burst goes out.
    pub gratuitous_at_ms: Vec<u64>,
    /// `null` with `--until-interrupted`.
    pub duration_seconds: Option<f64>,
    pub cluster: Option<IpContextSet>,
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

/// An Ethernet address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Mac(pub [u8; 6]);

/// Every MAC that answered, with its count and first/last answer time.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Reply {
    pub mac: Mac,
    pub count: u32,
    /// Milliseconds after the first request was sent.
    pub first_ms: f64,
    pub last_ms: f64,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IpContext {
    /// Pools whose addresses hold the IP: `metallb/NAME`, `cilium/NAME`; `null` when MetalLB's
    /// configuration does not parse and no Cilium pool holds it (then it is unknown).
    pub pools: Option<Vec<String>>,
    pub services: Vec<IpHolder>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IpHolder {
    pub namespace: CompactString,
    pub name: CompactString,
    pub implementation: Implementation,
    /// `layer2` (someone answers ARP/NDP), `bgp`, or `none` (the IP is not announced on a link).
    pub protocol: &'static str,
    /// The node the election (MetalLB) or the Lease (Cilium) says answers; `null` when nobody does.
    pub expected_announcer: Option<CompactString>,
    /// What the cluster reports (ServiceL2Status or Events for MetalLB); `null` when nothing says.
    pub actual_announcers: Option<Vec<CompactString>>,
    pub actual_source: Option<CompactString>,
}

/// One answering MAC and the node it belongs to, when that can be told.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Answer {
    pub mac: Mac,
    pub node: Option<String>,
    pub interface: Option<String>,
    /// `macMap`, or `serviceL2Status`/`events`/`lease` when the one answering MAC is taken to be
    /// the announcer the cluster reports; `null` when unknown.
    pub node_source: Option<String>,
}

/// Context for several IPs (`announce`).
#[derive(Debug, Clone, Serialize)]
pub struct IpContextSet(pub BTreeMap<String, IpContext>);

impl std::fmt::Display for Mac {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let [a, b, c, d, e, g] = self.0;
        write!(f, "{a:02x}:{b:02x}:{c:02x}:{d:02x}:{e:02x}:{g:02x}")
    }
}

impl serde::Serialize for Mac {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}
