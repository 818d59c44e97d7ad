//! Cilium L2 announcements (cilium-agent, spec cilium.md §2). There is no computed winner: every
//! eligible agent races for one Lease per Service. This engine finds the eligible set, reads the
//! Lease and judges it against the snapshot's capture time (never the clock).

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

use fixedbitset::FixedBitSet;

use crate::snapshot::Service;
use jiff::Timestamp;
use k8s_openapi::api::coordination::v1::Lease;
use regex::Regex;

use super::install::Setup;
use super::lbipam::CLASS_L2;
use crate::k8s::selector::{Labels, Selector};
use crate::metallb::install::version_numbers;
pub use crate::report::cilium::l2::{
    CellRow, DeviceSource, EtpGate, ExcludedCounts, Exclusion, Interfaces, L2Cell, LeaseState, NodeRow, PolicyMatch,
    Skip, Verdict,
};
use crate::snapshot::cilium::L2Policy;

pub const LEASE_PREFIX: &str = "cilium-l2announce";

pub struct Policy {
    pub name: String,
    pub node_selector: Result<Selector, String>,
    pub service_selector: Result<Selector, String>,
    pub interfaces: Result<Vec<Regex>, String>,
    pub external_ips: bool,
    pub load_balancer_ips: bool,
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
            external_ips: o.spec.external_ips,
            load_balancer_ips: o.spec.load_balancer_ips,
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

/// What every Service's evaluation shares: built once per snapshot.
pub struct Index<'a> {
    pub setup: Setup,
    pub policies: Vec<Policy>,
    /// Node names in snapshot order, with the labels policies match and the exclude label.
    /// Shared: `-o html`'s map rows are these, for every Service.
    pub names: Arc<[Arc<str>]>,
    exclude_label: Vec<bool>,
    /// Per policy: the nodes its nodeSelector matches (none for an invalid selector).
    policy_nodes: Vec<FixedBitSet>,
    /// Per policy: the devices its interface patterns match; `None` when devices are unknown.
    policy_devices: Vec<Option<Vec<String>>>,
    agent_ready: Vec<Option<bool>>,
    /// Leases in Cilium's namespace by name.
    leases: HashMap<&'a str, &'a Lease>,
    pub lease_objects: usize,
    /// The capture listed every Lease in Cilium's namespace: a missing Lease does not exist.
    pub leases_listed: bool,
    lists: Mutex<HashMap<FixedBitSet, Arc<[Arc<str>]>>>,
}

impl<'a> Index<'a> {
    /// `nodes`: every node's name, the labels its agent matches nodeSelectors against, and
    /// whether it carries the exclude-from-external-load-balancers label.
    pub fn new(setup: Setup, policies: Vec<Policy>, nodes: &[(String, &Labels, bool)], leases: &'a [Lease]) -> Self {
        let names: Arc<[Arc<str>]> = nodes.iter().map(|(n, ..)| Arc::from(n.as_str())).collect();
        let policy_nodes = policies
            .iter()
            .map(|p| {
                let mut set = FixedBitSet::with_capacity(nodes.len());
                if let Ok(sel) = &p.node_selector {
                    for (i, (_, labels, _)) in nodes.iter().enumerate() {
                        set.set(i, sel.matches(labels));
                    }
                }
                set
            })
            .collect();
        let policy_devices = policies.iter().map(|p| p.matching_devices(setup.devices.as_deref())).collect();
        let agent_ready = names.iter().map(|n| setup.agent_ready_on(n)).collect();
        let leases: HashMap<&str, &Lease> = leases
            .iter()
            .filter(|l| l.metadata.namespace.as_deref() == Some(setup.namespace.as_str()))
            .filter_map(|l| Some((l.metadata.name.as_deref()?, l)))
            .collect();
        Index {
            setup,
            policies,
            names,
            exclude_label: nodes.iter().map(|(_, _, x)| *x).collect(),
            policy_nodes,
            policy_devices,
            agent_ready,
            lease_objects: leases.len(),
            leases_listed: false,
            leases,
            lists: Mutex::new(HashMap::new()),
        }
    }

    fn node_list(&self, set: FixedBitSet) -> Arc<[Arc<str>]> {
        let mut lists = self.lists.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(list) = lists.get(&set) {
            return list.clone();
        }
        let mut names: Vec<Arc<str>> = set.ones().map(|i| self.names[i].clone()).collect();
        names.sort();
        let list: Arc<[Arc<str>]> = names.into();
        lists.insert(set, list.clone());
        list
    }
}

pub struct Input<'a> {
    pub index: &'a Index<'a>,
    pub service: &'a Service,
    pub ready_endpoint_nodes: &'a BTreeSet<String>,
    pub captured_at: Option<Timestamp>,
    pub collides_with: Vec<String>,
    /// Build the per-node rows (JSON, YAML and the single-Service table need them).
    pub detail: bool,
    /// Keep every node's part (`Verdict::cells`), for `-o html`'s map.
    pub map: bool,
}

pub fn evaluate(input: &Input) -> Verdict {
    let index = input.index;
    let setup = &index.setup;
    let svc = input.service;
    let spec = svc.spec.as_ref();
    let namespace = svc.metadata.namespace.clone().unwrap_or_default();
    let name = svc.metadata.name.clone().unwrap_or_default();
    let lb_addresses: Vec<String> =
        crate::metallb::service::ingress_ips(svc).into_iter().filter(|s| !s.is_empty()).collect();
    let external_addresses: Vec<String> =
        spec.and_then(|s| s.external_ips.as_deref()).unwrap_or_default().iter().map(|s| s.to_string()).collect();
    let class = spec.and_then(|s| s.load_balancer_class.as_deref());
    let etp_local = spec.and_then(|s| s.external_traffic_policy.as_deref()) == Some("Local");
    let mut verdict = Verdict {
        skipped: None,
        lb_addresses,
        external_addresses,
        policies: Vec::new(),
        etp_gate: if etp_local { etp_gate(setup.version.as_deref()) } else { EtpGate::NotLocal },
        eligible: Arc::from(Vec::new()),
        eligible_count: 0,
        excluded: ExcludedCounts::default(),
        nodes: Vec::new(),
        lease: None,
        interfaces: None,
        announcer: None,
        cells: None,
    };
    verdict.skipped = if !setup.l2_announcements {
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

    let labels = super::selector_labels(svc);
    let mut selecting: Vec<usize> = Vec::new();
    for (i, p) in index.policies.iter().enumerate() {
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
            selecting.push(i);
        }
    }

    let n = index.names.len();
    let mut selected = FixedBitSet::with_capacity(n);
    for &p in &selecting {
        selected.union_with(&index.policy_nodes[p]);
    }
    let gate = verdict.etp_gate == EtpGate::Gated;
    let mut eligible = selected.clone();
    for i in selected.ones() {
        let local_ok = !gate || input.ready_endpoint_nodes.contains(&*index.names[i]);
        if !local_ok || index.agent_ready[i] == Some(false) {
            eligible.set(i, false);
        }
    }
    let exclusions = |i: usize| {
        let mut excluded_by = Vec::new();
        if !selected.contains(i) {
            excluded_by.push(Exclusion::NotSelectedByPolicy);
        }
        if gate && !input.ready_endpoint_nodes.contains(&*index.names[i]) {
            excluded_by.push(Exclusion::NoLocalEndpoint);
        }
        if index.agent_ready[i] == Some(false) {
            excluded_by.push(Exclusion::AgentNotReady);
        }
        excluded_by
    };
    verdict.excluded = ExcludedCounts {
        not_selected_by_policy: n - selected.count_ones(..),
        no_local_endpoint: if gate {
            (0..n).filter(|&i| !input.ready_endpoint_nodes.contains(&*index.names[i])).count()
        } else {
            0
        },
        agent_not_ready: index.agent_ready.iter().filter(|r| **r == Some(false)).count(),
    };
    if input.detail {
        for i in 0..n {
            let excluded_by = exclusions(i);
            verdict.nodes.push(NodeRow {
                node: index.names[i].clone(),
                eligible: eligible.contains(i),
                excluded_by,
                agent_ready: index.agent_ready[i],
                exclude_label: index.exclude_label[i],
                interfaces: if selected.contains(i) { node_interfaces(index, &selecting, i) } else { None },
            });
        }
        verdict.nodes.sort_by(|a, b| (!a.eligible, &a.node).cmp(&(!b.eligible, &b.node)));
    }
    verdict.eligible = index.node_list(eligible);
    verdict.eligible_count = verdict.eligible.len();

    let mut lease = lease_state(input, &namespace, &name, &verdict);
    lease.holder_excluded_by =
        lease.holder.as_ref().and_then(|h| index.names.iter().position(|x| **x == **h)).map(exclusions);
    // Spec §2.4: offline, the holder of an unexpired Lease is who answers (LBD141 flags a bad holder).
    verdict.announcer = lease.holder.clone().filter(|_| lease.fresh == Some(true));
    if input.map {
        let cells = (0..n)
            .map(|i| match exclusions(i).first() {
                _ if verdict.announcer.as_deref() == Some(&*index.names[i]) => L2Cell::Holds,
                Some(x) => L2Cell::Out(*x),
                None => L2Cell::Competes,
            })
            .collect();
        verdict.cells = Some(CellRow { nodes: index.names.clone(), cells });
    }
    if !selecting.is_empty() {
        verdict.interfaces = Some(interfaces(index, &selecting, lease.holder.as_deref()));
    }
    verdict.lease = Some(lease);
    verdict
}

/// Where the devices the selecting policies announce on come from.
fn interfaces(index: &Index, selecting: &[usize], holder: Option<&str>) -> Interfaces {
    let setup = &index.setup;
    let devices = setup.devices.clone().unwrap_or_default();
    let source = match &setup.devices {
        None => DeviceSource::AutoDetected,
        Some(d) if d.iter().any(|x| x.ends_with('+')) => DeviceSource::Wildcard,
        Some(_) => DeviceSource::Listed,
    };
    let every_device = selecting
        .iter()
        .map(|&p| &index.policies[p])
        .filter(|p| p.interfaces.as_ref().is_ok_and(|i| i.is_empty()))
        .map(|p| p.name.clone())
        .collect();
    let agents = setup.agents.as_deref().unwrap_or_default();
    let agent_pod = agents
        .iter()
        .find(|a| holder.is_some() && a.node.as_deref() == holder)
        .or_else(|| agents.iter().find(|a| a.ready))
        .or(agents.first())
        .map(|a| a.pod.clone());
    Interfaces { source, devices, every_device, agent_pod }
}

/// Devices the selecting policies whose nodeSelector matches node `i` announce on; `None` when
/// the agent's devices are unknown.
pub fn node_interfaces(index: &Index, selecting: &[usize], i: usize) -> Option<Vec<String>> {
    let mut all = Vec::new();
    for &p in selecting.iter().filter(|&&p| index.policy_nodes[p].contains(i)) {
        all.extend(index.policy_devices[p].clone()?);
    }
    all.sort();
    all.dedup();
    Some(all)
}

/// The devices the announcer uses for this Service (what LBD146 checks): `None` when unknown.
pub fn announcer_interfaces(index: &Index, verdict: &Verdict, node: &str) -> Option<Vec<String>> {
    let i = index.names.iter().position(|n| &**n == node)?;
    let selecting: Vec<usize> = verdict
        .policies
        .iter()
        .filter(|m| m.selects)
        .filter_map(|m| index.policies.iter().position(|p| p.name == m.policy))
        .collect();
    if !selecting.iter().any(|&p| index.policy_nodes[p].contains(i)) {
        return None;
    }
    node_interfaces(index, &selecting, i)
}

/// The Lease names Cilium uses for a Service: `<ns>.<name>` (main), `<ns>-<name>` (up to v1.20).
fn lease_names(namespace: &str, name: &str) -> [String; 2] {
    [format!("{LEASE_PREFIX}-{namespace}.{name}"), format!("{LEASE_PREFIX}-{namespace}-{name}")]
}

/// What a Lease says: holder (empty counts as none), last renewal, duration, and whether it
/// is unexpired at `now` (`None` without the data to tell; a released Lease is not fresh).
struct LeaseFacts {
    holder: Option<String>,
    renewed: Option<Timestamp>,
    duration: Option<i32>,
    fresh: Option<bool>,
}

fn lease_facts(lease: &Lease, now: Option<Timestamp>) -> LeaseFacts {
    let spec = lease.spec.as_ref();
    let holder = spec.and_then(|s| s.holder_identity.clone()).filter(|h| !h.is_empty());
    let renewed = spec.and_then(|s| s.renew_time.as_ref().or(s.acquire_time.as_ref())).map(|t| t.0);
    let duration = spec.and_then(|s| s.lease_duration_seconds);
    let fresh = match (&holder, renewed, duration, now) {
        (None, ..) => Some(false),
        (_, Some(r), Some(d), Some(now)) => Some(r.as_second() + i64::from(d) > now.as_second()),
        _ => None,
    };
    LeaseFacts { holder, renewed, duration, fresh }
}

impl Index<'_> {
    /// The holder of the Service's Lease when it is known to be unexpired at `now`.
    pub fn fresh_holder(&self, namespace: &str, name: &str, now: Option<Timestamp>) -> Option<String> {
        let lease = lease_names(namespace, name).iter().find_map(|n| self.leases.get(n.as_str()).copied())?;
        let facts = lease_facts(lease, now);
        facts.holder.filter(|_| facts.fresh == Some(true))
    }
}

fn lease_state(input: &Input, namespace: &str, name: &str, verdict: &Verdict) -> LeaseState {
    let ns = &input.index.setup.namespace;
    let names = lease_names(namespace, name);
    let found = names.iter().find_map(|n| input.index.leases.get(n.as_str()).copied());
    let LeaseFacts { holder, renewed, duration, fresh } = match found {
        Some(lease) => lease_facts(lease, input.captured_at),
        None => LeaseFacts { holder: None, renewed: None, duration: None, fresh: None },
    };
    // A healthy holder renews every retry period; past the renew deadline client-go gives up
    // leading (and Cilium withdraws) while the others still wait for the Lease to expire.
    let renew_overdue = match (renewed, input.captured_at, fresh) {
        (Some(r), Some(now), Some(true)) => {
            Some((now.as_millisecond() - r.as_millisecond()) as f64 / 1000.0 > input.index.setup.lease.renew_deadline)
        }
        _ => None,
    };
    LeaseState {
        renew_overdue,
        namespace: ns.clone(),
        name: found.and_then(|l| l.metadata.name.clone()),
        holder_eligible: holder.as_ref().map(|h| verdict.eligible.iter().any(|e| **e == **h)),
        holder_agent_ready: holder.as_ref().and_then(|h| input.index.setup.agent_ready_on(h)),
        holder_excluded_by: None,
        leases_captured: input.index.lease_objects > 0 || input.index.leases_listed,
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
    if matches!(version.trim_start_matches('v'), "main" | "latest") {
        return Some(true);
    }
    match version_numbers(version).as_slice() {
        [major, minor, ..] => Some((*major, *minor) >= (1, 21)),
        _ => None,
    }
}

/// v1.20.2 and later gate eTP=Local on a local backend.
pub fn etp_gate(version: Option<&str>) -> EtpGate {
    let Some(v) = version else {
        return EtpGate::Unknown;
    };
    if matches!(v.trim_start_matches('v'), "main" | "latest") {
        return EtpGate::Gated;
    }
    match version_numbers(v).as_slice() {
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
