//! The controller's restart, replayed over a whole snapshot (controller spec §1, §12): Services
//! that hold IPs re-register them first (most ingress entries first, then by namespace/name),
//! then every Service without an IP is tried on its own against that state.

use crate::fast_hash::HashMap;
use crate::metallb::release::Rules;
use std::net::IpAddr;

use super::allocator::{sharing_refusal, Key, PoolFit};
use super::controller::{desired_lb_ips, service_family, ClearCause, Controller, Failure, Sync};
use super::error::AllocError;
use super::family::Family;
use super::pools::Pools;
use super::svc::{Ann, SvcView};
use crate::k8s::ip::parse_go_ip;
pub use crate::report::AllocationStatus as Status;

/// Which sharing rule refused an address, and who holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct Conflict {
    pub ip: IpAddr,
    pub others: Vec<String>,
    /// `existingNoSharing`, `newNoSharing`, `sharingKeyMismatch`, `backendKeyMismatch`, or
    /// `None` when the keys agree and a port clashes.
    pub refusal: Option<&'static str>,
    pub existing: Option<Key>,
    pub new: Key,
}

#[derive(Debug, Clone)]
pub struct Outcome {
    pub status: Status,
    /// The status IPs the Service had in the snapshot.
    /// `CompactString`s: an outcome is held per Service until its report is written.
    pub held: Vec<compact_str::CompactString>,
    /// Its IPs once MetalLB is done; `None` when the choice is random (see `possible`).
    pub expected: Option<Vec<IpAddr>>,
    pub possible: Vec<(String, Vec<IpAddr>)>,
    pub pool: Option<compact_str::CompactString>,
    pub sync: Sync,
    /// The IPs came (or would come) from automatic allocation.
    pub automatic: bool,
    /// Boxed, as `Sync`'s rare parts: few Services have one, and each Outcome (one per Service,
    /// held until the reports are written) carried its 160 bytes.
    pub conflict: Option<Box<Conflict>>,
    /// For a failed automatic allocation: how each pool stands toward the Service.
    pub fits: Vec<(String, PoolFit)>,
    /// Services with as many ingress entries (any holder, before v0.14.0) whose processing
    /// order decided this outcome.
    pub order_peers: Vec<String>,
    /// Before v0.14.0 (C-14): Services that take this Service's address when a controller
    /// restart happens to sync them first; it is then released and re-allocated.
    pub restart_takers: Vec<String>,
    pub family: Option<Family>,
    /// Index of the Service in `Replay::views`.
    pub view: usize,
}

pub struct Replay<'a> {
    /// The allocator after every Service that holds IPs was re-registered.
    pub controller: Controller,
    /// Boxed: an Outcome is ~700 bytes and the table keeps a third of its slots empty.
    pub outcomes: HashMap<String, Box<Outcome>>,
    /// The Services as the controller read them.
    pub views: Vec<SvcView<'a>>,
}

impl<'a> Replay<'a> {
    pub fn view(&self, o: &Outcome) -> &SvcView<'a> {
        &self.views[o.view]
    }
}

/// `rules`: the controller's release; `services` must have been read `under` the same rules.
pub fn replay(pools: Pools, services: Vec<SvcView>, rules: Rules, handled: impl Fn(&SvcView) -> bool) -> Replay {
    let mut controller = Controller::with_rules(rules);
    // C-14: before v0.14.0 a restart syncs Services in no particular order; one synced before
    // every holder sees an allocator holding nothing.
    let mut unregistered = (!rules.holders_first).then(|| {
        let mut c = Controller::with_rules(rules);
        c.set_pools(Some(pools.clone()));
        c
    });
    controller.set_pools(Some(pools));
    let mut outcomes = HashMap::with_capacity_and_hasher(services.len(), Default::default());

    let mut owned: Vec<(usize, usize, &SvcView)> =
        services.iter().enumerate().filter(|(_, s)| handled(s)).map(|(i, s)| (ingress_count(s), i, s)).collect();
    // MetalLB leaves the order among equal counts unspecified; the name decides here.
    owned.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| (&a.2.namespace, &a.2.name).cmp(&(&b.2.namespace, &b.2.name))));
    let counts: HashMap<String, usize> = owned.iter().map(|(n, _, s)| (s.key(), *n)).collect();
    controller.alloc.reserve(owned.iter().filter(|(count, ..)| *count > 0).count());

    for (count, i, svc) in &owned {
        let key = svc.key();
        if *count == 0 {
            continue;
        }
        let sync = controller.set_balancer(&key, Some(svc));
        let mut outcome = outcome_for(&controller, svc, sync, false, *i);
        let reallocates = outcome.sync.cleared_held.as_deref() != Some(&ClearCause::NotLoadBalancer);
        if outcome.automatic && outcome.status == Status::Mismatch && outcome.sync.failure.is_none() && reallocates {
            let now = controller.alloc.allocation(&key).cloned();
            controller.alloc.begin_trial();
            controller.alloc.unassign(&key);
            set_possible(&controller, svc, &mut outcome);
            controller.alloc.end_trial(&key, now);
        }
        outcome.order_peers = peers(&outcome, *count, &counts, rules.holders_first);
        outcomes.insert(key, Box::new(outcome));
    }
    order_effects_of_reallocation(&owned, &mut outcomes, rules.holders_first);
    link_order_peers(&mut outcomes);
    for (count, i, svc) in &owned {
        if *count > 0 || svc.type_ != "LoadBalancer" {
            continue;
        }
        let key = svc.key();
        controller.alloc.begin_trial();
        let sync = controller.set_balancer(&key, Some(svc));
        let mut outcome = outcome_for(&controller, svc, sync, true, *i);
        controller.alloc.end_trial(&key, None);
        if outcome.automatic {
            if outcome.sync.failure.is_none() {
                set_possible(&controller, svc, &mut outcome);
            } else if let Some(f) = outcome.family {
                let sk = Key::new(svc.sharing_key(), &svc.backend_key());
                outcome.fits = controller.alloc.pool_fits(&key, svc, f, &svc.ports, &sk);
            }
        }
        outcomes.insert(key, Box::new(outcome));
    }
    if let Some(first) = &mut unregistered {
        takers_at_restart(first, &owned, &mut outcomes);
    }
    for (i, svc) in services.iter().enumerate().filter(|(_, s)| !handled(s)) {
        outcomes.insert(svc.key(), Box::new(not_ours(svc, i)));
    }
    drop(owned);
    Replay { controller, outcomes, views: services }
}

/// C-12: a v0.13.x controller refuses a pool configuration under which a Service it handles holds
/// IPs no one pool contains, with its log line (Go's map order picks which Service it names; the
/// first by name here); `None` when it takes the configuration.
pub fn refused_configuration(
    pools: &Pools,
    services: &[SvcView],
    handled: impl Fn(&SvcView) -> bool,
) -> Option<String> {
    let mut orphans: Vec<&SvcView> = services
        .iter()
        .filter(|s| s.type_ == "LoadBalancer" && handled(s))
        .filter(|s| {
            let ips: Vec<Option<IpAddr>> = s.lb_ip_texts().iter().map(|t| parse_go_ip(t)).collect();
            !ips.is_empty() && super::allocator::pool_for(pools, &ips).is_none()
        })
        .collect();
    orphans.sort_by_key(|s| s.key());
    let svc = orphans.first()?;
    Some(format!(
        "new config not compatible with assigned IPs: service {:?} cannot own {} under new config",
        svc.key(),
        super::family::go_q_strings(&svc.lb_ip_texts())
    ))
}

fn ingress_count(svc: &SvcView) -> usize {
    svc.ingress.as_ref().map_or(0, Vec::len)
}

fn not_ours(svc: &SvcView, view: usize) -> Outcome {
    Outcome {
        status: Status::NotOurs,
        held: svc.lb_ip_texts().iter().map(|&s| s.into()).collect(),
        expected: None,
        possible: Vec::new(),
        pool: None,
        sync: Controller::idle_sync(),
        automatic: false,
        conflict: None,
        fits: Vec::new(),
        order_peers: Vec::new(),
        restart_takers: Vec::new(),
        family: None,
        view,
    }
}

fn outcome_for(controller: &Controller, svc: &SvcView, mut sync: Sync, pending: bool, view: usize) -> Outcome {
    let key = svc.key();
    let held: Vec<compact_str::CompactString> = svc.lb_ip_texts().iter().map(|&s| s.into()).collect();
    let final_ips: Vec<IpAddr> = sync.written.take().map(|w| w.ips(svc)).unwrap_or_default();
    let wiped =
        matches!(sync.failure.as_deref(), Some(Failure::NoPools | Failure::NoClusterIp | Failure::NotEnoughClusterIps));
    let status = if pending {
        Status::Pending
    } else if sync.cleared_held.is_some() || wiped {
        Status::Mismatch
    } else {
        Status::Allocated
    };
    let automatic = svc.annotation(Ann::AddressPool).is_empty() && matches!(desired_lb_ips(svc), Ok(None));
    let allocation_error = match sync.failure.as_deref() {
        Some(Failure::Allocation(e)) => Some(e),
        _ => match sync.cleared_held.as_deref() {
            Some(ClearCause::NotAllowed(e)) => Some(e),
            _ => None,
        },
    };
    let sk = Key::new(svc.sharing_key(), &svc.backend_key());
    let conflict = allocation_error.and_then(|e| conflict_of(controller, e, &sk)).map(Box::new);
    let pool = (!final_ips.is_empty())
        .then(|| controller.alloc.pool(&key).into())
        .filter(|p: &compact_str::CompactString| !p.is_empty());
    Outcome {
        status,
        held,
        expected: Some(final_ips),
        possible: Vec::new(),
        pool,
        automatic,
        conflict,
        fits: Vec::new(),
        order_peers: Vec::new(),
        restart_takers: Vec::new(),
        family: service_family(svc).ok(),
        sync,
        view,
    }
}

fn conflict_of(controller: &Controller, e: &AllocError, new: &Key) -> Option<Conflict> {
    let (ip, others) = match e {
        AllocError::SharingConflict { ip, others, .. } => (*ip, others.clone()),
        AllocError::PortInUse { ip, holder, .. } => (*ip, vec![holder.clone()]),
        _ => return None,
    };
    let existing = controller.alloc.key_for_ip(ip).cloned();
    let refusal = match (&existing, e) {
        (_, AllocError::PortInUse { .. }) => None,
        (Some(k), _) => sharing_refusal(k, new),
        (None, _) => None,
    };
    Some(Conflict { ip, others, refusal, existing, new: new.clone() })
}

fn set_possible(controller: &Controller, svc: &SvcView, outcome: &mut Outcome) {
    let Some(family) = outcome.family else { return };
    let sk = Key::new(svc.sharing_key(), &svc.backend_key());
    let possible = controller.alloc.automatic_outcomes(&svc.key(), svc, family, &svc.ports, &sk);
    if possible.len() > 1 {
        outcome.expected = None;
        outcome.pool = None;
        outcome.possible = possible;
    }
}

fn peers(outcome: &Outcome, count: usize, counts: &HashMap<String, usize>, holders_first: bool) -> Vec<String> {
    let Some(c) = &outcome.conflict else { return Vec::new() };
    let competes = |other: usize| if holders_first { other == count } else { other > 0 };
    c.others.iter().filter(|o| counts.get(*o).is_some_and(|n| competes(*n))).cloned().collect()
}

/// C-14: a Service that is (re-)allocated, synced first after a restart, takes the lowest free
/// address as if no Service held any; when a Service that keeps its address holds it, that one
/// loses it. Recorded on the loser.
fn takers_at_restart(
    first: &mut Controller,
    owned: &[(usize, usize, &SvcView)],
    outcomes: &mut HashMap<String, Box<Outcome>>,
) {
    let mut keepers: HashMap<IpAddr, Vec<String>> = HashMap::default();
    for (_, _, svc) in owned {
        let key = svc.key();
        if outcomes.get(&key).is_some_and(|o| o.status == Status::Allocated) {
            for ip in svc.lb_ip_texts().iter().filter_map(|t| parse_go_ip(t)) {
                keepers.entry(ip).or_default().push(key.clone());
            }
        }
    }
    if keepers.is_empty() {
        return;
    }
    let mut links: Vec<(String, String)> = Vec::new();
    for (_, _, svc) in owned {
        let key = svc.key();
        let Some(o) = outcomes.get(&key) else { continue };
        if !matches!(o.status, Status::Pending | Status::Mismatch) || svc.type_ != "LoadBalancer" {
            continue;
        }
        first.alloc.begin_trial();
        first.set_balancer(&key, Some(svc));
        let taken = first.alloc.ips(&key);
        first.alloc.end_trial(&key, None);
        for ip in taken {
            if o.expected.as_ref().is_some_and(|e| e.contains(&ip)) {
                continue;
            }
            for loser in keepers.get(&ip).into_iter().flatten().filter(|l| **l != key) {
                links.push((loser.clone(), key.clone()));
            }
        }
    }
    for (loser, taker) in links {
        if let Some(o) = outcomes.get_mut(&loser) {
            if !o.restart_takers.contains(&taker) {
                o.restart_takers.push(taker);
                o.restart_takers.sort();
            }
        }
    }
}

/// A Service re-allocated during the restart pass can take an address that a Service with as
/// many ingress entries, processed later, still lists in its status: then both outcomes
/// depend on MetalLB's unspecified order.
fn order_effects_of_reallocation(
    owned: &[(usize, usize, &SvcView)],
    outcomes: &mut HashMap<String, Box<Outcome>>,
    holders_first: bool,
) {
    if !outcomes.values().any(|o| o.status == Status::Mismatch) {
        return;
    }
    let mut holders: HashMap<IpAddr, Vec<(String, usize)>> = HashMap::default();
    for (count, _, svc) in owned {
        for ip in svc.lb_ip_texts().iter().filter_map(|t| parse_go_ip(t)) {
            holders.entry(ip).or_default().push((svc.key(), *count));
        }
    }
    let mut links: Vec<(String, String)> = Vec::new();
    for (count, _, svc) in owned {
        let key = svc.key();
        let Some(o) = outcomes.get(&key) else { continue };
        if o.status != Status::Mismatch {
            continue;
        }
        for ip in o.expected.iter().flatten() {
            for (other, other_count) in holders.get(ip).into_iter().flatten() {
                if *other != key && (other_count == count || !holders_first) {
                    links.push((key.clone(), other.clone()));
                    links.push((other.clone(), key.clone()));
                }
            }
        }
    }
    for (a, b) in links {
        add_peer(outcomes, &a, b);
    }
}

fn add_peer(outcomes: &mut HashMap<String, Box<Outcome>>, to: &str, peer: String) {
    if let Some(o) = outcomes.get_mut(to) {
        if !o.order_peers.contains(&peer) {
            o.order_peers.push(peer);
            o.order_peers.sort();
        }
    }
}

/// Order dependence goes both ways: the Service that kept the address would have lost it had
/// its peer been processed first.
fn link_order_peers(outcomes: &mut HashMap<String, Box<Outcome>>) {
    let links: Vec<(String, String)> =
        outcomes.iter().flat_map(|(k, o)| o.order_peers.iter().map(move |p| (p.clone(), k.clone()))).collect();
    for (a, b) in links {
        add_peer(outcomes, &a, b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metallb::alloc::pools::AllocPool;

    fn view(name: &str, ip: &str) -> SvcView<'static> {
        let svc: crate::snapshot::Service = serde_json::from_value(serde_json::json!({
            "metadata": {"namespace": "default", "name": name},
            "spec": {"type": "LoadBalancer", "clusterIP": "10.96.0.1", "ports": [{"port": 80, "protocol": "TCP"}]},
            "status": {"loadBalancer": {"ingress": [{"ip": ip}]}}
        }))
        .unwrap();
        SvcView::from_service(Box::leak(Box::new(svc)))
    }

    #[test]
    fn two_holders_of_one_ip_depend_on_the_order_both_ways() {
        let pool = AllocPool {
            name: "p".into(),
            cidrs: crate::k8s::cidr::parse_pool_address("192.0.2.0/28").unwrap(),
            auto_assign: true,
            avoid_buggy_ips: false,
            service_allocation: None,
        };
        let r = replay(
            Pools::from_list(vec![pool]),
            vec![view("b", "192.0.2.5"), view("a", "192.0.2.5")],
            Rules::default(),
            |_| true,
        );
        let (a, b) = (&r.outcomes["default/a"], &r.outcomes["default/b"]);
        assert_eq!(a.status, Status::Allocated, "namespace/name order: a first");
        assert_eq!(b.status, Status::Mismatch);
        assert_eq!(b.expected, Some(vec!["192.0.2.0".parse().unwrap()]));
        assert_eq!(a.order_peers, ["default/b"]);
        assert_eq!(b.order_peers, ["default/a"]);
    }

    /// C-14: from v0.14.0 the holder with more ingress entries is registered first and nothing
    /// depends on the order; before, either may be synced first.
    #[test]
    fn before_v0_14_0_any_two_holders_of_one_ip_depend_on_the_order() {
        let svc: crate::snapshot::Service = serde_json::from_value(serde_json::json!({
            "metadata": {"namespace": "default", "name": "dual"},
            "spec": {"type": "LoadBalancer", "clusterIP": "10.96.0.2", "clusterIPs": ["10.96.0.2", "fd00::2"],
                     "ports": [{"port": 443, "protocol": "TCP"}]},
            "status": {"loadBalancer": {"ingress": [{"ip": "192.0.2.5"}, {"ip": "2001:db8::5"}]}}
        }))
        .unwrap();
        let dual = SvcView::from_service(Box::leak(Box::new(svc)));
        let pool = AllocPool {
            name: "p".into(),
            cidrs: ["192.0.2.0/28", "2001:db8::/124"]
                .iter()
                .flat_map(|c| crate::k8s::cidr::parse_pool_address(c).unwrap())
                .collect(),
            auto_assign: true,
            avoid_buggy_ips: false,
            service_allocation: None,
        };
        let run = |release: crate::metallb::release::Release| {
            let views = vec![dual.clone(), view("single", "192.0.2.5")];
            let r = replay(Pools::from_list(vec![pool.clone()]), views, release.rules(), |_| true);
            let (d, s) = (&r.outcomes["default/dual"], &r.outcomes["default/single"]);
            assert_eq!((d.status, s.status), (Status::Allocated, Status::Mismatch), "{release}");
            (d.order_peers.clone(), s.order_peers.clone(), d.restart_takers.clone())
        };
        let none: Vec<String> = Vec::new();
        assert_eq!(run(crate::metallb::release::Release::Tag(14, 0)), (none.clone(), none.clone(), none.clone()));
        let single = vec!["default/single".to_string()];
        assert_eq!(
            run(crate::metallb::release::Release::Tag(13, 12)),
            (single.clone(), vec!["default/dual".to_string()], single)
        );
    }
}
