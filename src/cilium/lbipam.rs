//! Cilium LB-IPAM (cilium-operator, spec cilium.md §3): which Services it is responsible for,
//! what they request, and why one has no address. Pool choice among several matching pools is
//! Go map order in Cilium, so a fresh generic allocation is named as the set of possible pools.

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;

use crate::snapshot::Service;
use ipnet::IpNet;
use jiff::Timestamp;

use super::install::Setup;
use super::nodeipam::Family;
use super::restart::{self, Outcomes, Rules};
use crate::k8s::selector::{Labels, Selector};
pub use crate::report::cilium::lbipam::{
    Contested, ExpectedCondition, Held, Lost, LostCause, NotResponsible, Reason, Restart, RestartOutcome, Verdict,
};
use crate::snapshot::cilium::{Condition, IpPool};

pub const CLASS_L2: &str = "io.cilium/l2-announcer";
pub const CLASS_BGP: &str = "io.cilium/bgp-control-plane";
pub const CONDITION: &str = "cilium.io/IPAMRequestSatisfied";
pub const LEGACY_CONDITION: &str = "io.cilium/lb-ipam-request-satisfied";
const IPS: [&str; 2] = ["lbipam.cilium.io/ips", "io.cilium/lb-ipam-ips"];
const SHARING_KEY: [&str; 2] = ["lbipam.cilium.io/sharing-key", "io.cilium/lb-ipam-sharing-key"];
const CROSS_NS: [&str; 2] = ["lbipam.cilium.io/sharing-cross-namespace", "io.cilium/lb-ipam-sharing-cross-namespace"];

/// One block of a pool as an inclusive address range.
#[derive(Debug, Clone)]
pub struct Range {
    pub from: IpAddr,
    pub to: IpAddr,
    /// `allowFirstLastIPs: No` on a CIDR of at least 3 addresses: its first and last are never handed out.
    pub reserves_first_last: bool,
}

impl Range {
    pub fn contains(&self, ip: IpAddr) -> bool {
        ip.is_ipv4() == self.from.is_ipv4() && self.from <= ip && ip <= self.to
    }
    pub fn family(&self) -> Family {
        if self.to.is_ipv4() {
            Family::V4
        } else {
            Family::V6
        }
    }
    pub(crate) fn reserved(&self, ip: IpAddr) -> bool {
        self.reserves_first_last && (ip == self.from || ip == self.to)
    }
    fn size(&self) -> u128 {
        (to_u128(self.to) - to_u128(self.from)).saturating_add(1) - if self.reserves_first_last { 2 } else { 0 }
    }
    pub fn text(&self) -> String {
        format!("{} - {}", self.from, self.to)
    }
}

pub(crate) fn to_u128(ip: IpAddr) -> u128 {
    match ip {
        IpAddr::V4(v4) => u32::from(v4) as u128,
        IpAddr::V6(v6) => u128::from(v6),
    }
}

#[derive(Debug, Clone)]
pub struct Pool {
    pub name: String,
    pub created: Option<Timestamp>,
    pub ranges: Vec<Range>,
    pub selector: Result<Selector, String>,
    pub disabled: bool,
    /// A block that does not parse: Cilium's upsert fails and the pool is not used.
    pub invalid_block: Option<String>,
    /// `cilium.io/PoolConflict` as Cilium would set it: the message.
    pub conflict: Option<String>,
    pub actual_conflict: Option<Condition>,
    /// Only the deprecated `spec.cidrs` (v2alpha1) is set; current Cilium reads `spec.blocks` alone.
    pub cidrs_only: bool,
}

impl Pool {
    pub(crate) fn usable(&self) -> bool {
        self.invalid_block.is_none()
    }
    pub(crate) fn allocates(&self) -> bool {
        self.usable() && !self.disabled && self.conflict.is_none()
    }
    pub(crate) fn selects(&self, labels: &Labels) -> bool {
        self.selector.as_ref().is_ok_and(|s| s.matches(labels))
    }
}

pub fn pools(objects: &[IpPool]) -> Vec<Pool> {
    let mut pools: Vec<Pool> = objects
        .iter()
        .map(|o| {
            let mut invalid_block = None;
            let reserve = o.spec.allow_first_last_ips.as_deref() == Some("No");
            let mut ranges = Vec::new();
            for b in &o.spec.blocks {
                match parse_block(b.cidr.as_deref(), b.start.as_deref(), b.stop.as_deref(), reserve) {
                    Ok(r) => ranges.push(r),
                    Err(e) => {
                        invalid_block.get_or_insert(e);
                    }
                }
            }
            Pool {
                name: o.name().to_string(),
                created: o.metadata.creation_timestamp.as_ref().map(|t| t.0),
                ranges,
                selector: match &o.spec.service_selector {
                    Some(s) => Selector::compile(s),
                    None => Ok(Selector::default()),
                },
                disabled: o.spec.disabled,
                invalid_block,
                conflict: None,
                actual_conflict: o
                    .status
                    .as_ref()
                    .and_then(|s| s.find(&["cilium.io/PoolConflict", "io.cilium/pool-conflict"]))
                    .cloned(),
                cidrs_only: o.spec.blocks.is_empty() && !o.spec.cidrs.is_empty(),
            }
        })
        .collect();
    // By name, so nothing downstream depends on the snapshot's object order.
    pools.sort_by(|a, b| a.name.cmp(&b.name));
    mark_conflicts(&mut pools);
    pools
}

fn parse_block(cidr: Option<&str>, start: Option<&str>, stop: Option<&str>, reserve: bool) -> Result<Range, String> {
    if let Some(cidr) = cidr {
        let net: IpNet = cidr.parse().map_err(|_| format!("invalid CIDR {cidr:?}"))?;
        let net = net.trunc();
        let size = to_u128(net.broadcast()) - to_u128(net.network());
        return Ok(Range { from: net.network(), to: net.broadcast(), reserves_first_last: reserve && size >= 2 });
    }
    let start_text = start.ok_or("block has neither cidr nor start")?;
    let from: IpAddr = start_text.parse().map_err(|_| format!("invalid start {start_text:?}"))?;
    let to: IpAddr = match stop {
        Some(s) if !s.is_empty() => s.parse().map_err(|_| format!("invalid stop {s:?}"))?,
        _ => from,
    };
    if from.is_ipv4() != to.is_ipv4() || to_u128(to) < to_u128(from) {
        return Err(format!("invalid range {from} - {to}"));
    }
    Ok(Range { from, to, reserves_first_last: false })
}

/// Overlapping ranges: the pool created later is marked (a pool overlapping itself too).
fn mark_conflicts(pools: &mut [Pool]) {
    let mut marks: Vec<Option<String>> = vec![None; pools.len()];
    for i in 0..pools.len() {
        if !pools[i].usable() {
            continue;
        }
        for (a_idx, a) in pools[i].ranges.iter().enumerate() {
            for b in pools[i].ranges.iter().skip(a_idx + 1) {
                if overlap(a, b) && marks[i].is_none() {
                    marks[i] = Some(conflict_message(a, b, &pools[i].name));
                }
            }
            for j in 0..pools.len() {
                if i == j || !pools[j].usable() {
                    continue;
                }
                for b in &pools[j].ranges {
                    if !overlap(a, b) {
                        continue;
                    }
                    let later = (pools[i].created, &pools[i].name) > (pools[j].created, &pools[j].name);
                    if later && marks[i].is_none() {
                        marks[i] = Some(conflict_message(a, b, &pools[j].name));
                    }
                }
            }
        }
    }
    for (p, m) in pools.iter_mut().zip(marks) {
        p.conflict = m;
    }
}

fn overlap(a: &Range, b: &Range) -> bool {
    a.from.is_ipv4() == b.from.is_ipv4() && a.from <= b.to && b.from <= a.to
}

fn conflict_message(a: &Range, b: &Range, other: &str) -> String {
    format!("Pool conflicts since range '{}' overlaps range '{}' from IP Pool '{other}'", a.text(), b.text())
}

impl Reason {
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Satisfied => "satisfied",
            Reason::NoPool => "no_pool",
            Reason::PoolSelectorMismatch => "pool_selector_mismatch",
            Reason::AlreadyAllocated => "already_allocated",
            Reason::AlreadyAllocatedIncompatibleService => "already_allocated_incompatible_service",
            Reason::OutOfIps => "out_of_ips",
        }
    }
}

pub fn responsible(setup: &Setup, pool_count: usize, svc: &Service) -> Result<(), NotResponsible> {
    if !setup.lb_ipam {
        return Err(NotResponsible::Disabled);
    }
    if pool_count == 0 {
        return Err(NotResponsible::NoPools);
    }
    let spec = svc.spec.as_ref();
    if spec.and_then(|s| s.type_.as_deref()) != Some("LoadBalancer") {
        return Err(NotResponsible::NotLoadBalancer);
    }
    match spec.and_then(|s| s.load_balancer_class.as_deref()) {
        None if setup.default_is("lbipam") => Ok(()),
        None => Err(NotResponsible::DefaultIpamNotLbipam),
        Some(CLASS_BGP) if setup.bgp_control_plane => Ok(()),
        Some(CLASS_BGP) => Err(NotResponsible::BgpControlPlaneDisabled),
        Some(CLASS_L2) if setup.l2_announcements => Ok(()),
        Some(CLASS_L2) => Err(NotResponsible::L2AnnouncementsDisabled),
        Some(_) => Err(NotResponsible::OtherClass),
    }
}

/// What LB-IPAM reads from one Service.
#[derive(Debug, Clone)]
pub struct Request {
    pub namespace: String,
    pub name: String,
    /// Service labels plus the two pseudo-labels.
    pub labels: Labels,
    pub specific: Vec<IpAddr>,
    pub unparsable: Vec<String>,
    pub families: Vec<Family>,
    pub sharing_key: Option<String>,
    pub cross_namespace: Vec<String>,
    pub ports: Vec<i32>,
    pub etp_local: bool,
    pub selector: BTreeMap<String, String>,
    pub ingress: Vec<IpAddr>,
    pub actual_condition: Option<Condition>,
}

/// The first alias present wins, even when empty.
fn annotation<'a>(svc: &'a Service, keys: &[&str]) -> Option<&'a str> {
    let a = svc.metadata.annotations.as_ref()?;
    keys.iter().find_map(|k| a.get(k))
}

pub fn request(setup: &Setup, svc: &Service) -> Request {
    let namespace = svc.metadata.namespace.clone().unwrap_or_default();
    let name = svc.metadata.name.clone().unwrap_or_default();
    let spec = svc.spec.clone().unwrap_or_default();
    let labels = super::selector_labels(svc);
    let (mut specific, mut unparsable) = (Vec::new(), Vec::new());
    let raw = spec
        .load_balancer_ip
        .iter()
        .filter(|s| !s.is_empty())
        .map(|s| s.to_string())
        .chain(annotation(svc, &IPS).into_iter().flat_map(|v| v.split(',')).map(|s| s.trim().to_string()));
    for text in raw {
        match text.parse::<IpAddr>() {
            Ok(ip) if specific.last() != Some(&ip) => specific.push(ip),
            Ok(_) => {}
            Err(_) => unparsable.push(text),
        }
    }
    let listed: Vec<Family> = spec
        .ip_families
        .iter()
        .flatten()
        .filter_map(|f| match f.as_str() {
            "IPv4" => Some(Family::V4),
            "IPv6" => Some(Family::V6),
            _ => None,
        })
        .collect();
    let enabled = |f: &Family| match f {
        Family::V4 => setup.ipv4,
        Family::V6 => setup.ipv6,
    };
    let families: Vec<Family> = match spec.ip_family_policy.as_deref() {
        Some("PreferDualStack") if listed.is_empty() => [Family::V4, Family::V6].into_iter().filter(enabled).collect(),
        Some("PreferDualStack") => listed.iter().copied().filter(enabled).collect(),
        Some("RequireDualStack") => [Family::V4, Family::V6].into_iter().filter(enabled).collect(),
        _ => match listed.first() {
            Some(f) => vec![*f],
            None if setup.ipv4 => vec![Family::V4],
            None => vec![Family::V6],
        },
    };
    let ingress = crate::metallb::service::ingress_ips(svc).iter().filter_map(|s| s.parse().ok()).collect();
    let conditions = svc.status.as_ref().and_then(|s| s.conditions.as_ref());
    let actual_condition = conditions.and_then(|c| {
        c.iter().find(|c| c.type_ == CONDITION || c.type_ == LEGACY_CONDITION).map(|c| Condition {
            type_: c.type_.clone(),
            status: c.status.clone(),
            reason: c.reason.clone(),
            message: c.message.clone(),
        })
    });
    Request {
        namespace: String::from(namespace),
        name: String::from(name),
        labels,
        specific,
        unparsable,
        families,
        sharing_key: annotation(svc, &SHARING_KEY).map(String::from),
        cross_namespace: annotation(svc, &CROSS_NS)
            .map(|v| v.split(',').map(String::from).collect())
            .unwrap_or_default(),
        ports: spec.ports.iter().flatten().map(|p| p.port).collect(),
        etp_local: spec.external_traffic_policy.as_deref() == Some("Local"),
        selector: spec.selector.map(|s| s.to_btree()).unwrap_or_default(),
        ingress,
        actual_condition,
    }
}

/// §3.6: `None` when `a` may join an IP held by `b`, else Cilium's reason text.
pub fn incompatibility(a: &Request, b: &Request) -> Option<&'static str> {
    if a.sharing_key != b.sharing_key {
        return Some("different sharing key");
    }
    if a.namespace != b.namespace {
        let permits = |x: &Request, other_ns: &str| x.cross_namespace.iter().any(|n| n == "*" || n == other_ns);
        if !(permits(a, &b.namespace) && permits(b, &a.namespace)) {
            return Some("different and not permitted namespace");
        }
    }
    if a.ports.iter().any(|p| b.ports.contains(p)) {
        return Some("same port");
    }
    if a.etp_local != b.etp_local {
        return Some("different ExternalTrafficPolicy");
    }
    if a.etp_local && (a.selector.is_empty() || b.selector.is_empty() || a.selector != b.selector) {
        return Some("compatible ExternalTrafficPolicy local but selecting different set of pods");
    }
    None
}

/// Every responsible Service's request, and which of them holds each address.
pub struct Ledger {
    pub pools: Vec<Pool>,
    pub requests: Vec<Request>,
    /// Address → indices into `requests` of the Services holding it.
    pub holders: HashMap<IpAddr, Vec<usize>>,
    /// Per pool, per range: held addresses inside it (reserved ones not counted).
    used: Vec<Vec<u128>>,
    pub rules: Rules,
    /// Per request: what the next operator start leaves on it.
    restart: Vec<Outcomes>,
}

impl Ledger {
    pub fn new(pools: Vec<Pool>, requests: Vec<Request>, rules: Rules) -> Ledger {
        let mut holders: HashMap<IpAddr, Vec<usize>> = HashMap::new();
        for (i, r) in requests.iter().enumerate() {
            for ip in &r.ingress {
                if pool_of(&pools, r, *ip).is_some() {
                    holders.entry(*ip).or_default().push(i);
                }
            }
        }
        let mut used: Vec<Vec<u128>> = pools.iter().map(|p| vec![0; p.ranges.len()]).collect();
        for ip in holders.keys() {
            for (p, pool) in pools.iter().enumerate() {
                for (g, range) in pool.ranges.iter().enumerate() {
                    if range.contains(*ip) && !range.reserved(*ip) {
                        used[p][g] += 1;
                    }
                }
            }
        }
        let restart = restart::replay(&pools, &requests, rules);
        Ledger { pools, requests, holders, used, rules, restart }
    }

    fn free_in(&self, pool: usize, range: usize) -> bool {
        self.pools[pool].ranges[range].size() > self.used[pool][range]
    }
}

/// The pool an ingress address counts as allocated from (§3.8): the Service asks for it (its
/// specific IPs, or its families when it asks for none) and a usable pool whose selector
/// matches holds it (disabled and conflicting pools keep what they hold).
fn pool_of<'p>(pools: &'p [Pool], r: &Request, ip: IpAddr) -> Option<&'p Pool> {
    let wanted = if r.specific.is_empty() {
        r.families.iter().any(|f| (*f == Family::V4) == ip.is_ipv4())
    } else {
        r.specific.contains(&ip)
    };
    if !wanted {
        return None;
    }
    pools
        .iter()
        .find(|p| p.usable() && p.selects(&r.labels) && p.ranges.iter().any(|g| g.contains(ip) && !g.reserved(ip)))
}

pub fn evaluate(ledger: &Ledger, index: usize) -> Verdict {
    let r = &ledger.requests[index];
    let pools = &ledger.pools;
    let mut held = Vec::new();
    let mut stripped = Vec::new();
    let mut contested = Vec::new();
    for ip in &r.ingress {
        match pool_of(pools, r, *ip) {
            Some(p) if ledger.holders[ip].len() == 1 || sharing_ok(ledger, index, *ip) => {
                held.push(Held { ip: ip.to_string(), pool: p.name.clone() })
            }
            Some(_) => {
                let others: Vec<usize> = ledger.holders[ip].iter().copied().filter(|&o| o != index).collect();
                let reason = match &r.sharing_key {
                    None => "no sharing key".to_string(),
                    Some(_) => others
                        .iter()
                        .find_map(|&o| incompatibility(r, &ledger.requests[o]))
                        .unwrap_or("incompatible")
                        .to_string(),
                };
                contested.push(Contested {
                    ip: ip.to_string(),
                    with: others
                        .iter()
                        .map(|&o| format!("{}/{}", ledger.requests[o].namespace, ledger.requests[o].name))
                        .collect(),
                    reason,
                });
            }
            None => stripped.push(ip.to_string()),
        }
    }
    let holds = |ip: IpAddr| held.iter().any(|h| h.ip == ip.to_string());
    let mut failure: Option<(Reason, String)> = None;
    let mut candidate_pools: Vec<String> = Vec::new();
    let satisfied;
    if !r.specific.is_empty() {
        satisfied = r.specific.iter().all(|ip| holds(*ip));
        for ip in r.specific.iter().filter(|ip| !holds(**ip)) {
            if let Some(f) = specific_failure(ledger, index, *ip) {
                failure = Some(f);
            }
        }
    } else {
        let has_family =
            |f: Family| held.iter().any(|h| h.ip.parse::<IpAddr>().is_ok_and(|ip| ip.is_ipv4() == (f == Family::V4)));
        satisfied = r.families.iter().all(|f| has_family(*f));
        for f in r.families.iter().filter(|f| !has_family(**f)) {
            let shared = shared_pools(ledger, index, *f);
            if !shared.is_empty() {
                // Joining comes first, from whichever pool holds the address (selectors aside).
                candidate_pools.extend(shared);
                continue;
            }
            let candidates: Vec<(usize, usize)> = pools
                .iter()
                .enumerate()
                .filter(|(_, p)| p.allocates() && p.selects(&r.labels))
                .flat_map(|(pi, p)| (0..p.ranges.len()).map(move |gi| (pi, gi)))
                .filter(|&(pi, gi)| pools[pi].ranges[gi].family() == *f)
                .collect();
            if candidates.is_empty() {
                failure = Some((
                    Reason::NoPool,
                    "There are no enabled CiliumLoadBalancerIPPools that match this service".into(),
                ));
                continue;
            }
            let mut free: Vec<String> = candidates
                .iter()
                .filter(|&&(pi, gi)| ledger.free_in(pi, gi))
                .map(|&(pi, _)| pools[pi].name.clone())
                .collect();
            free.dedup();
            if free.is_empty() {
                failure = Some((
                    Reason::OutOfIps,
                    "All enabled CiliumLoadBalancerIPPools that match this service ran out of allocatable IPs".into(),
                ));
            }
            candidate_pools.extend(free);
        }
    }
    candidate_pools.sort();
    candidate_pools.dedup();
    let restart = restart_report(ledger, index);
    let expected = match (satisfied, failure) {
        (true, _) => ExpectedCondition { status: "True", reason: Some(Reason::Satisfied), message: String::new() },
        (false, Some((reason, message))) if contested.is_empty() => {
            ExpectedCondition { status: "False", reason: Some(reason), message }
        }
        // Who gets a contested or still free address is Cilium's order: the replay says.
        (false, _) => from_replay(&restart),
    };
    Verdict {
        requested_ips: r.specific.iter().map(IpAddr::to_string).collect(),
        unparsable_requests: r.unparsable.clone(),
        requested_families: r.families.iter().map(|f| f.as_str()).collect(),
        sharing_key: r.sharing_key.clone(),
        held,
        stripped,
        contested,
        satisfied,
        expected,
        candidate_pools,
        actual: r.actual_condition.clone(),
        restart,
    }
}

fn restart_report(ledger: &Ledger, index: usize) -> Restart {
    let r = &ledger.requests[index];
    let outcomes = &ledger.restart[index];
    let held: Vec<IpAddr> = r
        .ingress
        .iter()
        .copied()
        .filter(|ip| ledger.holders.get(ip).is_some_and(|h| h.len() == 1 || sharing_ok(ledger, index, *ip)))
        .collect();
    let mut loses: Vec<Lost> = held
        .iter()
        .filter(|ip| outcomes.options.iter().any(|o| !o.ingress.contains(ip)))
        .filter_map(|ip| {
            let pool = pool_of(&ledger.pools, r, *ip)?;
            let cause = match () {
                _ if pool.disabled => LostCause::PoolDisabled,
                _ if pool.conflict.is_some() => LostCause::PoolConflict,
                _ => LostCause::TakenFirst,
            };
            Some(Lost { ip: ip.to_string(), pool: pool.name.clone(), cause })
        })
        .collect();
    loses.dedup_by(|a, b| a.ip == b.ip);
    let mut options: Vec<RestartOutcome> = outcomes
        .options
        .iter()
        .map(|o| RestartOutcome {
            ingress: o.ingress.iter().map(IpAddr::to_string).collect(),
            condition: o.condition.as_ref().map(|(reason, message)| condition(*reason, message)),
        })
        .collect();
    // The replay's discovery order follows the snapshot's object order; the report must not.
    options.sort_by_cached_key(|o| {
        let c = o.condition.as_ref().map(|c| (c.status, c.reason.map(Reason::as_str), c.message.clone()));
        (o.ingress.clone(), c)
    });
    Restart { rules: ledger.rules.label, outcomes: options, exhaustive: outcomes.exhaustive, loses }
}

fn condition(reason: Reason, message: &str) -> ExpectedCondition {
    let status = if reason == Reason::Satisfied { "True" } else { "False" };
    ExpectedCondition { status, reason: Some(reason), message: message.to_string() }
}

/// The condition the replay gives an unsatisfied Service: one when every order agrees, else
/// Unknown naming the possibilities. A Service its import satisfies keeps its condition, which
/// then reads satisfied.
fn from_replay(restart: &Restart) -> ExpectedCondition {
    let mut options: Vec<ExpectedCondition> = Vec::new();
    for o in &restart.outcomes {
        let c = o.condition.clone().unwrap_or_else(|| condition(Reason::Satisfied, ""));
        if !options.iter().any(|x| x.reason == c.reason && x.message == c.message) {
            options.push(c);
        }
    }
    match options.len() {
        1 => options.remove(0),
        0 => ExpectedCondition { status: "Unknown", reason: None, message: "not replayed".into() },
        _ => ExpectedCondition {
            status: "Unknown",
            reason: None,
            message: format!(
                "depends on the order cilium-operator takes the Services in: {}{}",
                options
                    .iter()
                    .map(|c| format!("{} {}", c.status, c.reason.map_or("", Reason::as_str)))
                    .collect::<Vec<_>>()
                    .join(" or "),
                if restart.exhaustive { "" } else { " (among others: a sample of the orders was replayed)" }
            ),
        },
    }
}

/// Several Services hold one address: this one keeps it if it is compatible with the others.
fn sharing_ok(ledger: &Ledger, index: usize, ip: IpAddr) -> bool {
    let r = &ledger.requests[index];
    r.sharing_key.is_some()
        && ledger.holders[&ip]
            .iter()
            .filter(|&&o| o != index)
            .all(|&o| incompatibility(r, &ledger.requests[o]).is_none())
}

/// The pools holding an address of family `f` this Service may join under its sharing key.
fn shared_pools(ledger: &Ledger, index: usize, f: Family) -> Vec<String> {
    let r = &ledger.requests[index];
    if r.sharing_key.is_none() {
        return vec![];
    }
    let mut out: Vec<String> = ledger
        .holders
        .iter()
        .filter(|(ip, hs)| {
            ip.is_ipv4() == (f == Family::V4)
                && hs.iter().any(|&o| o != index && ledger.requests[o].sharing_key == r.sharing_key)
                && hs.iter().filter(|&&o| o != index).all(|&o| incompatibility(r, &ledger.requests[o]).is_none())
        })
        .filter_map(|(ip, hs)| {
            let holder = hs.iter().find(|&&o| o != index)?;
            pool_of(&ledger.pools, &ledger.requests[*holder], *ip).map(|p| p.name.clone())
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

fn specific_failure(ledger: &Ledger, index: usize, ip: IpAddr) -> Option<(Reason, String)> {
    let r = &ledger.requests[index];
    let containing: Vec<(&Pool, &Range)> = ledger
        .pools
        .iter()
        .filter(|p| p.allocates())
        .flat_map(|p| p.ranges.iter().map(move |g| (p, g)))
        .filter(|(_, g)| g.contains(ip))
        .collect();
    let Some((_, range)) = containing.iter().find(|(p, _)| p.selects(&r.labels)) else {
        return Some(if containing.is_empty() {
            (Reason::NoPool, format!("No pool exists with a CIDR containing '{ip}'"))
        } else {
            (
                Reason::PoolSelectorMismatch,
                format!("The pool with the CIDR containing '{ip}', doesn't select this service"),
            )
        });
    };
    let others: Vec<usize> = ledger.holders.get(&ip).into_iter().flatten().copied().filter(|&o| o != index).collect();
    if range.reserved(ip) || (!others.is_empty() && r.sharing_key.is_none()) {
        return Some((Reason::AlreadyAllocated, format!("The IP '{ip}' is already allocated to another service")));
    }
    for o in others {
        if let Some(why) = incompatibility(r, &ledger.requests[o]) {
            return Some((
                Reason::AlreadyAllocatedIncompatibleService,
                format!("The IP '{ip}' is already allocated to an incompatible service. Reason: {why}"),
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(cidr: &str, reserve: bool) -> Range {
        parse_block(Some(cidr), None, None, reserve).unwrap()
    }

    #[test]
    fn first_last_reserved_only_for_explicit_no_on_cidrs_of_three_or_more() {
        assert_eq!(range("10.0.0.0/24", false).size(), 256);
        assert_eq!(range("10.0.0.0/24", true).size(), 254);
        assert_eq!(range("10.0.0.0/31", true).size(), 2);
        assert_eq!(range("10.0.0.5/32", true).size(), 1);
        assert_eq!(range("10.0.0.5/30", false).from.to_string(), "10.0.0.4");
        let r = parse_block(None, Some("10.0.0.10"), Some("10.0.0.12"), true).unwrap();
        assert_eq!(r.size(), 3);
        assert!(parse_block(None, Some("10.0.0.10"), None, false).unwrap().contains("10.0.0.10".parse().unwrap()));
    }
}
