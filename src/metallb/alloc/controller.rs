//! MetalLB's controller: `SetBalancer` and `convergeBalancer` (controller spec §3-§6), over the
//! allocator. Returns what MetalLB would do as data: the sync result, the Events it would emit
//! and the status it would write.

use crate::metallb::release::{FamilyPolicy, ReleaseRetry, Rules};
use std::collections::BTreeMap;
use std::net::IpAddr;

use super::allocator::{Allocator, Key};
use super::error::AllocError;
use super::family::{for_addresses, for_addresses_ips, go_q_ips, go_q_strings, go_v_strings, Family};
use super::pools::Pools;
use super::svc::{Ann, Ingress, SvcView, ANN_ALLOCATED_FROM};
use crate::k8s::ip::{go_ip_string, parse_go_ip};
pub use crate::report::metallb::Event;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum SyncState {
    Success,
    Error,
    ReprocessAll,
    ErrorNoRetry,
}

impl Event {
    fn normal(reason: &'static str, message: String) -> Event {
        Event { type_: "Normal", reason, message }
    }
    fn warning(reason: &'static str, message: String) -> Event {
        Event { type_: "Warning", reason, message }
    }
}

/// What went wrong in one converge, as data (MetalLB only logs most of these).
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    NoPools,
    NoClusterIp,
    NotEnoughClusterIps,
    ClusterIpFamily(String),
    InvalidRequest(AllocError),
    Allocation(AllocError),
    /// C-2 (up to v0.13.7): a held IP refused for its sharing key; the status stays, retried.
    SharingKeyRefused(AllocError),
    Internal(&'static str),
}

/// The outcome of one `SetBalancer`.
#[derive(Debug, Clone)]
pub struct Sync {
    pub state: SyncState,
    pub events: Vec<Event>,
    /// The fields MetalLB writes, as it leaves them; written only when `status_written`.
    pub written: Option<Written>,
    pub status_written: bool,
    /// Why converge stopped, when it did. This and the two below are boxed: rare, and a replay
    /// keeps a Sync per Service (240 bytes of `None` each, inline).
    pub failure: Option<Box<Failure>>,
    /// Converge released the IPs the Service held (ClearAssignment, changed request, family).
    pub cleared_held: Option<Box<ClearCause>>,
    /// The PreferDualStack additional-family step failed (a Normal event, every sync).
    pub additional_failed: Option<Box<AllocError>>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ClearCause {
    /// No longer `type: LoadBalancer` while its status still holds IPs (controller spec §2).
    NotLoadBalancer,
    NotAllowed(AllocError),
    PoolAnnotationChanged {
        wanted: String,
        held: String,
    },
    RequestedIpsChanged,
    FamilyChanged,
}

/// What MetalLB changes on a Service: the `ip-allocated-from-pool` annotation and
/// `status.loadBalancer.ingress`, kept as changes against the input so that nothing is copied.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Written {
    /// The annotation the release writes the pool into (C-6); `None` before v0.13.8.
    key: Option<&'static str>,
    /// `None`: untouched; `Some(None)`: removed; `Some(Some(pool))`: set.
    allocated_from: Option<Option<String>>,
    /// `None`: untouched; `Some(None)`: cleared; `Some(Some(list))`: written.
    ingress: Option<Option<Vec<Ingress>>>,
}

impl Written {
    fn for_release(rules: &Rules) -> Written {
        Written { key: rules.allocated_from_annotation, ..Written::default() }
    }

    fn clear(&mut self) {
        if self.key.is_some() {
            self.allocated_from = Some(None);
        }
        self.ingress = Some(None);
    }

    fn set_pool(&mut self, pool: String) {
        if self.key.is_some() {
            self.allocated_from = Some(Some(pool));
        }
    }

    /// The annotations as MetalLB writes them.
    pub fn annotations(&self, input: &SvcView) -> Option<BTreeMap<String, String>> {
        let mut a = input.annotations.map(|m| m.to_btree());
        let key = self.key.unwrap_or(ANN_ALLOCATED_FROM);
        match &self.allocated_from {
            None => {}
            Some(None) => {
                if let Some(m) = &mut a {
                    m.remove(key);
                }
            }
            Some(Some(pool)) => {
                a.get_or_insert_with(BTreeMap::new).insert(key.to_string(), pool.clone());
            }
        }
        a
    }

    /// `status.loadBalancer.ingress` as MetalLB leaves it.
    pub fn ingress<'a>(&'a self, input: &'a SvcView) -> Option<&'a [Ingress]> {
        match &self.ingress {
            None => input.ingress.as_deref(),
            Some(list) => list.as_deref(),
        }
    }

    pub fn ips(&self, input: &SvcView) -> Vec<IpAddr> {
        self.ingress(input).into_iter().flatten().filter_map(|i| parse_go_ip(&i.ip)).collect()
    }

    /// MetalLB's deep-equal test, on the only two fields it changes.
    fn changed(&self, input: &SvcView) -> bool {
        let ingress = self.ingress.as_ref().is_some_and(|l| l.as_deref() != input.ingress.as_deref());
        let current = input.annotations.as_ref().and_then(|m| m.get(self.key.unwrap_or(ANN_ALLOCATED_FROM)));
        let annotation = match &self.allocated_from {
            None => false,
            Some(None) => current.is_some(),
            Some(Some(pool)) => current != Some(pool),
        };
        ingress || annotation
    }
}

/// The controller: an allocator plus the pools it was given (`None` = no configuration yet).
#[derive(Debug, Clone, Default)]
pub struct Controller {
    pub pools_loaded: bool,
    /// Its `rules` are the release whose controller is replayed.
    pub alloc: Allocator,
}

impl Controller {
    /// The controller of `rules`' release, before any configuration.
    pub fn with_rules(rules: Rules) -> Controller {
        let mut c = Controller::default();
        c.alloc.rules = rules;
        c
    }

    /// `SetPools`; `None` is the nil configuration MetalLB refuses.
    pub fn set_pools(&mut self, pools: Option<Pools>) -> SyncState {
        match pools {
            None => SyncState::ErrorNoRetry,
            Some(p) => {
                self.alloc.set_pools(p);
                self.pools_loaded = true;
                SyncState::ReprocessAll
            }
        }
    }

    /// A sync that did nothing.
    pub fn idle_sync() -> Sync {
        Sync {
            state: SyncState::Success,
            events: Vec::new(),
            written: None,
            status_written: false,
            failure: None,
            cleared_held: None,
            additional_failed: None,
        }
    }

    /// `SetBalancer` for `key`; `None` is a deleted Service.
    pub fn set_balancer(&mut self, key: &str, input: Option<&SvcView>) -> Sync {
        let mut sync = Controller::idle_sync();
        let Some(input) = input else {
            let held = self.alloc.allocation(key).is_some();
            if held {
                self.alloc.unassign(key);
            }
            // C-10: up to v0.13.9 any deletion retries the pending Services.
            if held || self.alloc.rules.deletion_retries_always {
                sync.state = SyncState::ReprocessAll;
            }
            return sync;
        };
        if !self.pools_loaded {
            return sync;
        }
        let mut out = Written::for_release(&self.alloc.rules);
        let prev_ips = self.alloc.ips(key);
        let prev_alloc_key = self.alloc.allocation_key(key);
        let was_allocated = self.alloc.allocation(key).is_some();

        if let Err(failure) = self.converge(key, input, &mut out, &mut sync) {
            // SyncStateError: retried with back-off, unlike every other failure (C-2); C-9: up
            // to v0.13.9 the others end as a success.
            sync.state = if matches!(failure, Failure::SharingKeyRefused(_)) {
                SyncState::Error
            } else if self.alloc.rules.failure_no_retry {
                SyncState::ErrorNoRetry
            } else {
                SyncState::Success
            };
            sync.failure = Some(Box::new(failure));
        }
        // C-7: v0.13.8 … v0.13.12 retry the pending Services whenever this one lost its
        // allocation, changed or not, inside a pool or not.
        if self.alloc.rules.release_retry == ReleaseRetry::WhenReleased
            && was_allocated
            && self.alloc.allocation(key).is_none()
        {
            sync.state = SyncState::ReprocessAll;
        }
        if self.alloc.rules.reprocess_on_key_change && self.alloc.allocation_key(key) != prev_alloc_key {
            sync.state = SyncState::ReprocessAll;
        }
        if !out.changed(input) {
            sync.written = Some(out);
            return sync;
        }
        for ann in input.deprecated_annotations() {
            sync.events
                .push(Event::warning("deprecatedAnnotation", format!("Service uses deprecated annotation {ann}")));
        }
        if self.alloc.rules.release_retry == ReleaseRetry::WhenReleasedInPool
            && !prev_ips.is_empty()
            && self.alloc.ips(key).is_empty()
        {
            let prev: Vec<Option<IpAddr>> = prev_ips.iter().copied().map(Some).collect();
            if super::allocator::pool_for(self.alloc.pools(), &prev).is_some() {
                sync.state = SyncState::ReprocessAll;
            }
        }
        sync.status_written = true;
        sync.written = Some(out);
        sync
    }

    fn clear(&mut self, key: &str, out: &mut Written) {
        self.alloc.unassign(key);
        out.clear();
    }

    fn converge(&mut self, key: &str, svc: &SvcView, out: &mut Written, sync: &mut Sync) -> Result<(), Failure> {
        let mut lb_ips: Vec<Option<IpAddr>> = svc.lb_ip_texts().iter().map(|s| parse_go_ip(s)).collect();
        if svc.type_ != "LoadBalancer" {
            if !lb_ips.is_empty() {
                sync.cleared_held = Some(Box::new(ClearCause::NotLoadBalancer));
            }
            self.clear(key, out);
            return Ok(());
        }
        // C-13: v0.13.x takes no pool as nothing to allocate from ("no available IPs" below);
        // a held IP never gets here, its configuration being refused (C-12).
        if self.alloc.pools().by_name.is_empty() && self.alloc.rules.pools_may_orphan {
            self.clear(key, out);
            return Err(Failure::NoPools);
        }
        if svc.cluster_ips.is_empty() && svc.cluster_ip.is_empty() {
            self.clear(key, out);
            return Err(Failure::NoClusterIp);
        }
        let policy = self.alloc.policy(svc).to_string();
        // C-19: refused from v0.15.0; older releases treat it as single-stack.
        let own_family = self.alloc.rules.family_policy == FamilyPolicy::OwnFamily;
        if own_family && policy == "RequireDualStack" && svc.cluster_ips.len() < 2 {
            sync.events.push(Event::warning(
                "not enough clusterips",
                format!("Service requires dual stack but not enough clusterips {}", go_v_strings(svc.cluster_ips)),
            ));
            self.clear(key, out);
            return Err(Failure::NotEnoughClusterIps);
        }
        if lb_ips.is_empty() {
            self.clear(key, out);
        } else {
            // C-17: before v0.14.0 one unparsable address is taken for IPv6.
            let lenient = !self.alloc.rules.invalid_address_error && matches!(lb_ips[..], [None]);
            let lb_family = match if lenient { Ok(Family::V6) } else { for_addresses_ips(&lb_ips) } {
                Ok(f) => f,
                Err(e) => {
                    sync.events.push(Event::warning(
                        "nolbIPsIPFamily",
                        format!("Failed to retrieve LBIPs IPFamily for {}: {e}", go_q_ips(&lb_ips)),
                    ));
                    // C-5: v0.13.0 … v0.13.7 stop here and keep the status as it is.
                    if !self.alloc.rules.clears_unknown_family {
                        return Ok(());
                    }
                    Family::Unknown
                }
            };
            let cluster_family = match service_family(svc) {
                Ok(f) => f,
                Err(e) => {
                    sync.events.push(Event::warning(
                        "noclusterIPsIPFamily",
                        format!(
                            "Failed to retrieve ClusterIPs IPFamily for {} {}: {e}",
                            go_q_strings(svc.cluster_ips),
                            svc.cluster_ip
                        ),
                    ));
                    return Err(Failure::ClusterIpFamily(e));
                }
            };
            if family_changed(lb_family, cluster_family, &policy) {
                self.clear(key, out);
                lb_ips.clear();
                sync.cleared_held = Some(Box::new(ClearCause::FamilyChanged));
            }
        }

        let ports = svc.ports.clone();
        let sk = Key::new(svc.sharing_key(), &svc.backend_key());
        if !lb_ips.is_empty() {
            if let Err(e) = self.alloc.assign(key, svc, &lb_ips, &ports, &sk) {
                // C-2: up to v0.13.7 a sharing refusal ends the sync; the status is not written.
                if !self.alloc.rules.reallocates_on_sharing_refusal && matches!(e, AllocError::SharingConflict { .. }) {
                    sync.events
                        .push(Event::warning("svcCannotShareKey", format!("current IP not allowed by config:{e}")));
                    self.alloc.unassign(key);
                    sync.cleared_held = Some(Box::new(ClearCause::NotAllowed(e.clone())));
                    return Err(Failure::SharingKeyRefused(e));
                }
                // C-8: silent before v0.13.10.
                if self.alloc.rules.clear_assignment_event {
                    sync.events.push(Event::normal(
                        "ClearAssignment",
                        format!(
                            "current IP for {key:?} not allowed by config, will attempt for new IP assignment: {e}"
                        ),
                    ));
                }
                self.clear(key, out);
                lb_ips.clear();
                sync.cleared_held = Some(Box::new(ClearCause::NotAllowed(e)));
            }
            let desired_pool = svc.annotation(Ann::AddressPool).to_string();
            if !desired_pool.is_empty() && desired_pool != self.alloc.pool(key) {
                let held = self.alloc.pool(key).to_string();
                self.clear(key, out);
                if !lb_ips.is_empty() {
                    sync.cleared_held =
                        Some(Box::new(ClearCause::PoolAnnotationChanged { wanted: desired_pool, held }));
                }
                lb_ips.clear();
            }
            let desired = match desired_lb_ips(svc) {
                Ok(d) => d,
                Err(e) => {
                    sync.events
                        .push(Event::warning("LoadBalancerFailed", format!("invalid requested loadbalancer IPs: {e}")));
                    return Err(Failure::InvalidRequest(e));
                }
            };
            if let Some((mut desired, _)) = desired {
                let equal = is_equal_ips(&mut lb_ips, &mut desired);
                // MetalLB's allocator holds the very slice that was just sorted in place.
                self.alloc.reorder_ips(key, &lb_ips);
                if !equal {
                    self.clear(key, out);
                    if !lb_ips.is_empty() {
                        sync.cleared_held = Some(Box::new(ClearCause::RequestedIpsChanged));
                    }
                    lb_ips.clear();
                }
            }
        }

        if lb_ips.len() == 1 && policy == "PreferDualStack" {
            let existing = lb_ips[0].expect("assigned IPs parse");
            let pool = self.alloc.pool(key).to_string();
            match self.alloc.allocate_additional(key, svc, existing, &pool, &ports, &sk) {
                Ok(extra) => {
                    lb_ips.push(extra);
                    sync.events.push(Event::normal(
                        "IPAllocated",
                        format!("Assigned additional IP {:?}", super::family::ip_text(extra)),
                    ));
                }
                Err(e) => {
                    sync.events.push(Event::normal(
                        "AdditionalAssignFailed",
                        format!("cannot assign additional IP in PreferDualStack: {e}"),
                    ));
                    sync.additional_failed = Some(Box::new(e));
                }
            }
        }

        if lb_ips.is_empty() {
            match self.allocate_ips(key, svc, &sk) {
                Ok(ips) => {
                    lb_ips = ips.into_iter().map(Some).collect();
                    sync.events.push(Event::normal("IPAllocated", format!("Assigned IP {}", go_q_ips(&lb_ips))));
                }
                Err(e) => {
                    sync.events
                        .push(Event::warning("AllocationFailed", format!("Failed to allocate IP for {key:?}: {e}")));
                    return Err(Failure::Allocation(e));
                }
            }
        }
        if lb_ips.is_empty() {
            sync.events.push(Event::warning("InternalError", "didn't allocate an IP but also did not fail".into()));
            self.clear(key, out);
            return Err(Failure::Internal("noIP"));
        }
        let pool = self.alloc.pool(key).to_string();
        if pool.is_empty() || self.alloc.pools().get(&pool).is_none() {
            sync.events.push(Event::warning("InternalError", "allocated an IP that has no pool".into()));
            self.clear(key, out);
            return Err(Failure::Internal("noPool"));
        }
        out.ingress = Some(Some(lb_ips.iter().map(|ip| Ingress::ip_only(super::family::ip_text(*ip))).collect()));
        out.set_pool(pool);
        Ok(())
    }

    /// `allocateIPs` (spec §5): explicit IPs, else the address-pool annotation, else automatic.
    fn allocate_ips(&mut self, key: &str, svc: &SvcView, sk: &Key) -> Result<Vec<IpAddr>, AllocError> {
        let family = service_family(svc).map_err(AllocError::Family)?;
        let desired = desired_lb_ips(svc)?;
        let desired_pool = svc.annotation(Ann::AddressPool).to_string();
        let ports = svc.ports.clone();
        if let Some((ips, ips_family)) = desired {
            if ips_family != family {
                return Err(AllocError::RequestFamilyMismatch { ips });
            }
            self.alloc.assign(key, svc, &ips, &ports, sk)?;
            // C-11: before v0.13.10 requested IPs come from any pool, whatever address-pool says.
            let checked = self.alloc.rules.requested_ips_pool_check;
            if checked && !desired_pool.is_empty() && self.alloc.pool(key) != desired_pool {
                self.alloc.unassign(key);
                return Err(AllocError::RequestPoolMismatch { ips, pool: desired_pool });
            }
            return Ok(ips.into_iter().flatten().collect());
        }
        if !desired_pool.is_empty() {
            return self.alloc.allocate_from_pool(key, svc, family, &desired_pool, &ports, sk);
        }
        self.alloc.allocate(key, svc, family, &ports, sk)
    }
}

/// `ipfamily.ForService`: ClusterIPs decide, `spec.ipFamilies` does not.
pub fn service_family(svc: &SvcView) -> Result<Family, String> {
    if svc.cluster_ips.is_empty() {
        for_addresses(std::slice::from_ref(&svc.cluster_ip))
    } else {
        for_addresses(svc.cluster_ips)
    }
}

/// `serviceFamilyChanged`.
fn family_changed(lb: Family, cluster: Family, policy: &str) -> bool {
    lb == Family::Unknown || (lb != cluster && !(cluster == Family::Dual && policy == "PreferDualStack"))
}

/// Requested IPs (nil where MetalLB would hold a nil IP) and their family.
pub type Requested = (Vec<Option<IpAddr>>, Family);

/// `getDesiredLbIPs`: the requested IPs and their family, `None` when nothing is requested.
pub fn desired_lb_ips(svc: &SvcView) -> Result<Option<Requested>, AllocError> {
    let raw = svc.annotation(Ann::LoadBalancerIps);
    if !raw.is_empty() && !svc.load_balancer_ip.is_empty() {
        return Err(AllocError::BothRequests { annotation: svc.annotation_name(Ann::LoadBalancerIps) });
    }
    if !raw.is_empty() {
        let mut ips = Vec::new();
        for item in raw.split(',') {
            ips.push(Some(parse_go_ip(item.trim()).ok_or_else(|| AllocError::InvalidAnnotation {
                raw: raw.to_string(),
                annotation: svc.annotation_name(Ann::LoadBalancerIps),
            })?));
        }
        let family = for_addresses_ips(&ips).map_err(AllocError::Family)?;
        return Ok(Some((ips, family)));
    }
    if !svc.load_balancer_ip.is_empty() {
        let ip = parse_go_ip(svc.load_balancer_ip)
            .ok_or_else(|| AllocError::InvalidSpecIp { raw: svc.load_balancer_ip.to_string() })?;
        return Ok(Some((vec![Some(ip)], Family::of(ip))));
    }
    Ok(None)
}

/// `isEqualIPs`, including its side effect: both lists end up sorted by their text.
fn is_equal_ips(a: &mut [Option<IpAddr>], b: &mut [Option<IpAddr>]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let text = |ip: &Option<IpAddr>| super::family::ip_text(*ip);
    a.sort_by_key(text);
    b.sort_by_key(text);
    a.iter().zip(b.iter()).all(|(x, y)| x.map(go_ip_string) == y.map(go_ip_string))
}
