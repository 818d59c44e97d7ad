//! Cilium L2 announcements (cilium-agent, spec cilium.md §2). There is no computed winner: every
//! eligible agent races for one Lease per Service. This engine finds the eligible set, reads the
//! Lease and judges it against the snapshot's capture time (never the clock).

use std::collections::{BTreeSet, HashMap};

use jiff::Timestamp;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::Service;
use regex::Regex;
use serde::Serialize;

use super::install::Setup;
use super::lbipam::CLASS_L2;
use crate::k8s::selector::{Labels, Selector};
use crate::snapshot::cilium::{Condition, L2Policy};

pub const LEASE_PREFIX: &str = "cilium-l2announce";

pub struct Policy {
    pub name: String,
    pub node_selector: Result<Selector, String>,
    pub service_selector: Result<Selector, String>,
    pub interfaces: Result<Vec<Regex>, String>,
    pub interface_patterns: Vec<String>,
    pub external_ips: bool,
    pub load_balancer_ips: bool,
    pub actual_conditions: Vec<Condition>,
}

pub fn policies(objects: &[L2Policy]) -> Vec<Policy> {
    let compile = |s: &Option<_>| match s {
        Some(s) => Selector::compile(s),
        None => Ok(Selector::default()),
    };
    let mut out: Vec<Policy> = objects
        .iter()
        .map(|o| Policy {
            name: o.name().to_string(),
            node_selector: compile(&o.spec.node_selector),
            service_selector: compile(&o.spec.service_selector),
            interfaces: o
                .spec
                .interfaces
                .iter()
                .map(|p| {
                    Regex::new(p).map_err(|e| {
                        format!("interface pattern {p:?} is not a valid regular expression: {}", regex_error(&e))
                    })
                })
                .collect(),
            interface_patterns: o.spec.interfaces.clone(),
            external_ips: o.spec.external_ips,
            load_balancer_ips: o.spec.load_balancer_ips,
            actual_conditions: o.status.as_ref().map(|s| s.conditions.clone()).unwrap_or_default(),
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// The regex crate's error without its multi-line pattern excerpt.
fn regex_error(e: &regex::Error) -> String {
    let text = e.to_string();
    text.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .map(|l| l.trim().trim_start_matches("error: ").to_string())
        .unwrap_or(text)
}

impl Policy {
    /// The `io.cilium/bad-*` conditions Cilium sets on this policy.
    pub fn problems(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        if let Err(e) = &self.node_selector {
            out.push(("io.cilium/bad-node-selector", e.clone()));
        }
        if let Err(e) = &self.interfaces {
            out.push(("io.cilium/bad-interface-regex", e.clone()));
        }
        if let Err(e) = &self.service_selector {
            out.push(("io.cilium/bad-service-selector", e.clone()));
        }
        out
    }

    /// Regexes are unanchored and OR-ed; none means every device. `None`: devices unknown.
    pub fn matching_devices(&self, devices: Option<&[String]>) -> Option<Vec<String>> {
        // `eth+` is a prefix wildcard resolved on each node: the real names are unknown offline.
        let devices = devices.filter(|d| d.iter().all(|x| !x.ends_with('+')))?;
        let regexes = self.interfaces.as_ref().ok()?;
        Some(devices.iter().filter(|d| regexes.is_empty() || regexes.iter().any(|r| r.is_match(d))).cloned().collect())
    }
}

/// Why a node does not compete for the Service's Lease, in Cilium's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Exclusion {
    /// No policy that selects the Service has a nodeSelector matching the node's CiliumNode labels.
    NotSelectedByPolicy,
    /// eTP Local (Cilium v1.20.2 and later): no ready local backend.
    NoLocalEndpoint,
    AgentNotReady,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Skip {
    Disabled,
    /// A class other than `io.cilium/l2-announcer` (none is fine).
    OtherClass,
    /// Neither LoadBalancer ingress IPs nor externalIPs: nothing to announce.
    NoAddresses,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PolicyMatch {
    pub policy: String,
    pub selects: bool,
    /// Why it does not select the Service: `badServiceSelector`, `serviceSelector`, `noAddressType`.
    pub why_not: Option<&'static str>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeRow {
    pub node: String,
    pub eligible: bool,
    pub excluded_by: Vec<Exclusion>,
    /// `null` when the snapshot has no Cilium agent Pods.
    pub agent_ready: Option<bool>,
    /// Carries the exclude-from-external-load-balancers label, which Cilium L2 does not read.
    pub exclude_label: bool,
    /// Devices the selecting policies' interface patterns match on this node; `null` when the
    /// agent's devices are auto-detected (not in cilium-config).
    pub interfaces: Option<Vec<String>>,
}

/// Whether the eTP=Local gate (only nodes with a local backend compete) applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum EtpGate {
    NotLocal,
    /// v1.20.2 and later.
    Gated,
    /// Older: the leader may have no local pod, and traffic it receives is dropped.
    Ungated,
    /// Cilium's version is unknown: both behaviours are possible.
    Unknown,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LeaseState {
    pub namespace: String,
    /// Lease names Cilium uses: `cilium-l2announce-<ns>.<name>` (main) and `…-<ns>-<name>` (≤ v1.20).
    pub names: [String; 2],
    /// The one found, if any.
    pub name: Option<String>,
    pub holder: Option<String>,
    pub renew_time: Option<String>,
    pub lease_duration_seconds: Option<i32>,
    /// `renewTime + leaseDurationSeconds`: when another node may take over if nobody renews.
    pub expires_at: Option<String>,
    /// `renewTime + leaseDurationSeconds` after the capture time; `null` without either.
    pub fresh: Option<bool>,
    pub holder_eligible: Option<bool>,
    pub holder_agent_ready: Option<bool>,
    /// Other Services whose dash-form Lease name is the same (Cilium issue #48084).
    pub collides_with: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Verdict {
    pub skipped: Option<Skip>,
    pub lb_addresses: Vec<String>,
    pub external_addresses: Vec<String>,
    pub policies: Vec<PolicyMatch>,
    pub etp_gate: EtpGate,
    /// Nodes that compete for the Lease, sorted.
    pub eligible: Vec<String>,
    pub nodes: Vec<NodeRow>,
    pub lease: Option<LeaseState>,
    /// The node answering ARP/NDP now: the holder of an unexpired Lease; `null` when unknown or nobody.
    pub announcer: Option<String>,
}

pub struct Input<'a> {
    pub setup: &'a Setup,
    pub policies: &'a [Policy],
    /// Every node with the labels its agent matches nodeSelectors against.
    pub nodes: &'a [(String, Labels, bool)],
    pub service: &'a Service,
    pub ready_endpoint_nodes: &'a BTreeSet<String>,
    pub leases: &'a [Lease],
    pub captured_at: Option<Timestamp>,
    pub collides_with: Vec<String>,
}

pub fn evaluate(input: &Input) -> Verdict {
    let svc = input.service;
    let spec = svc.spec.as_ref();
    let namespace = svc.metadata.namespace.clone().unwrap_or_default();
    let name = svc.metadata.name.clone().unwrap_or_default();
    let lb_addresses: Vec<String> =
        crate::metallb::service::ingress_ips(svc).into_iter().filter(|s| !s.is_empty()).collect();
    let external_addresses: Vec<String> = spec.and_then(|s| s.external_ips.clone()).unwrap_or_default();
    let class = spec.and_then(|s| s.load_balancer_class.as_deref());
    let etp_local = spec.and_then(|s| s.external_traffic_policy.as_deref()) == Some("Local");
    let mut verdict = Verdict {
        skipped: None,
        lb_addresses,
        external_addresses,
        policies: Vec::new(),
        etp_gate: if etp_local { etp_gate(input.setup.version.as_deref()) } else { EtpGate::NotLocal },
        eligible: Vec::new(),
        nodes: Vec::new(),
        lease: None,
        announcer: None,
    };
    verdict.skipped = if !input.setup.l2_announcements {
        Some(Skip::Disabled)
    } else if class.is_some_and(|c| c != CLASS_L2) {
        Some(Skip::OtherClass)
    } else if verdict.lb_addresses.is_empty() && verdict.external_addresses.is_empty() {
        Some(Skip::NoAddresses)
    } else {
        None
    };
    if verdict.skipped.is_some() {
        return verdict;
    }

    let mut labels = svc.metadata.labels.clone().unwrap_or_default();
    labels.insert("io.kubernetes.service.namespace".into(), namespace.clone());
    labels.insert("io.kubernetes.service.name".into(), name.clone());
    let mut selecting: Vec<&Policy> = Vec::new();
    for p in input.policies {
        let why_not = match &p.service_selector {
            Err(_) => Some("badServiceSelector"),
            Ok(s) if !s.matches(&labels) => Some("serviceSelector"),
            Ok(_) => {
                let lb = p.load_balancer_ips && !verdict.lb_addresses.is_empty();
                let ext = p.external_ips && !verdict.external_addresses.is_empty();
                (!(lb || ext)).then_some("noAddressType")
            }
        };
        // A policy with a broken nodeSelector or interface regex is not used at all.
        let usable = p.node_selector.is_ok() && p.interfaces.is_ok();
        let selects = why_not.is_none() && usable;
        verdict.policies.push(PolicyMatch {
            policy: p.name.clone(),
            selects,
            why_not: if usable { why_not } else { Some("invalidPolicy") },
        });
        if selects {
            selecting.push(p);
        }
    }

    let gate = verdict.etp_gate == EtpGate::Gated;
    for (node, node_labels, exclude_label) in input.nodes {
        let mine: Vec<&&Policy> =
            selecting.iter().filter(|p| p.node_selector.as_ref().is_ok_and(|s| s.matches(node_labels))).collect();
        let mut excluded_by = Vec::new();
        if mine.is_empty() {
            excluded_by.push(Exclusion::NotSelectedByPolicy);
        }
        if gate && !input.ready_endpoint_nodes.contains(node) {
            excluded_by.push(Exclusion::NoLocalEndpoint);
        }
        let agent_ready = input.setup.agent_ready_on(node);
        if agent_ready == Some(false) {
            excluded_by.push(Exclusion::AgentNotReady);
        }
        let interfaces =
            input.setup.devices.as_deref().filter(|d| d.iter().all(|x| !x.ends_with('+'))).map(|devices| {
                let mut all: Vec<String> =
                    mine.iter().filter_map(|p| p.matching_devices(Some(devices))).flatten().collect();
                all.sort();
                all.dedup();
                all
            });
        let eligible = excluded_by.is_empty();
        if eligible {
            verdict.eligible.push(node.clone());
        }
        verdict.nodes.push(NodeRow {
            node: node.clone(),
            eligible,
            excluded_by,
            agent_ready,
            exclude_label: *exclude_label,
            interfaces,
        });
    }
    verdict.eligible.sort();
    verdict.nodes.sort_by(|a, b| (!a.eligible, &a.node).cmp(&(!b.eligible, &b.node)));

    let lease = lease_state(input, &namespace, &name, &verdict);
    // Spec §2.4: offline, the holder of an unexpired Lease is who answers (LBD141 flags a bad holder).
    verdict.announcer = lease.holder.clone().filter(|_| lease.fresh == Some(true));
    verdict.lease = Some(lease);
    verdict
}

fn lease_state(input: &Input, namespace: &str, name: &str, verdict: &Verdict) -> LeaseState {
    let ns = &input.setup.namespace;
    let names = [format!("{LEASE_PREFIX}-{namespace}.{name}"), format!("{LEASE_PREFIX}-{namespace}-{name}")];
    let found = names.iter().find_map(|n| {
        input
            .leases
            .iter()
            .find(|l| l.metadata.namespace.as_deref() == Some(ns) && l.metadata.name.as_deref() == Some(n))
    });
    let spec = found.and_then(|l| l.spec.as_ref());
    let holder = spec.and_then(|s| s.holder_identity.clone()).filter(|h| !h.is_empty());
    let renewed = spec.and_then(|s| s.renew_time.as_ref().or(s.acquire_time.as_ref())).map(|t| t.0);
    let duration = spec.and_then(|s| s.lease_duration_seconds);
    let fresh = match (renewed, duration, input.captured_at) {
        _ if found.is_some() && holder.is_none() => Some(false),
        (Some(r), Some(d), Some(now)) => Some(r.as_second() + i64::from(d) > now.as_second()),
        _ => None,
    };
    LeaseState {
        namespace: ns.clone(),
        name: found.and_then(|l| l.metadata.name.clone()),
        holder_eligible: holder.as_ref().map(|h| verdict.eligible.contains(h)),
        holder_agent_ready: holder.as_ref().and_then(|h| input.setup.agent_ready_on(h)),
        holder,
        renew_time: renewed.map(|t| t.to_string()),
        expires_at: renewed
            .zip(duration)
            .and_then(|(r, d)| r.checked_add(jiff::SignedDuration::from_secs(d.into())).ok())
            .map(|t| t.to_string()),
        lease_duration_seconds: duration,
        fresh,
        names,
        collides_with: input.collides_with.clone(),
    }
}

/// Services grouped by their dash-form Lease name `<ns>-<name>`: a group of two or more shares
/// one Lease on Cilium up to v1.20 (issue #48084).
pub fn dash_groups<'a>(all: impl IntoIterator<Item = (&'a str, &'a str)>) -> HashMap<String, Vec<String>> {
    let mut groups: HashMap<String, Vec<String>> = HashMap::new();
    for (ns, n) in all {
        groups.entry(format!("{ns}-{n}")).or_default().push(format!("{ns}/{n}"));
    }
    groups.retain(|_, v| v.len() > 1);
    for v in groups.values_mut() {
        v.sort();
    }
    groups
}

/// The other members of this Service's dash-form group.
pub fn dash_collisions(groups: &HashMap<String, Vec<String>>, namespace: &str, name: &str) -> Vec<String> {
    let me = format!("{namespace}/{name}");
    groups.get(&format!("{namespace}-{name}")).into_iter().flatten().filter(|s| **s != me).cloned().collect()
}

/// Whether this Cilium version names Leases `<ns>.<name>` (main after PR #48138, so v1.21 on);
/// `None` when the version does not say.
pub fn dotted_lease_names(version: &str) -> Option<bool> {
    let v = version.trim_start_matches('v');
    if matches!(v, "main" | "latest") {
        return Some(true);
    }
    let core = v.split(['-', '+']).next().unwrap_or("");
    let parts: Vec<u64> = core.split('.').filter_map(|p| p.parse().ok()).collect();
    match parts.as_slice() {
        [major, minor, ..] => Some((*major, *minor) >= (1, 21)),
        _ => None,
    }
}

/// v1.20.2 and later gate eTP=Local on a local backend.
pub fn etp_gate(version: Option<&str>) -> EtpGate {
    let Some(v) = version else {
        return EtpGate::Unknown;
    };
    let v = v.trim_start_matches('v');
    if matches!(v, "main" | "latest") {
        return EtpGate::Gated;
    }
    let core = v.split(['-', '+']).next().unwrap_or("");
    let parts: Vec<u64> = core.split('.').filter_map(|p| p.parse().ok()).collect();
    match parts.as_slice() {
        [major, minor, patch, ..] if (*major, *minor, *patch) >= (1, 20, 2) => EtpGate::Gated,
        [_, _, _, ..] => EtpGate::Ungated,
        _ => EtpGate::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn etp_gate_versions() {
        assert_eq!(etp_gate(Some("v1.20.2")), EtpGate::Gated);
        assert_eq!(etp_gate(Some("v1.21.0-pre.1")), EtpGate::Gated);
        assert_eq!(etp_gate(Some("v1.20.1")), EtpGate::Ungated);
        assert_eq!(etp_gate(Some("v1.16.5")), EtpGate::Ungated);
        assert_eq!(etp_gate(None), EtpGate::Unknown);
        assert_eq!(etp_gate(Some("stable")), EtpGate::Unknown);
    }

    #[test]
    fn dash_form_lease_names_collide() {
        let groups = dash_groups([("foo", "bar-baz"), ("foo-bar", "baz"), ("foo", "other")]);
        assert_eq!(dash_collisions(&groups, "foo", "bar-baz"), vec!["foo-bar/baz"]);
        assert!(dash_collisions(&groups, "foo", "other").is_empty());
    }
}
