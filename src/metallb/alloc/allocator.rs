//! MetalLB's IP allocator (`internal/allocator`, controller spec §7), state and all.
//!
//! Addresses are kept as their 16-byte form (`u128`), so IPv4 and IPv6 share one ordered space.
//! Allocation never walks a range one address at a time: the addresses that carry a sharing key
//! are kept as runs, so "lowest address nobody holds" is a couple of map lookups even in a /64.

use crate::metallb::release::{FamilyPolicy, Rules};
use std::collections::{BTreeMap, BTreeSet};

use crate::fast_hash::HashMap;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::Arc;

use ipnet::IpNet;

use super::error::AllocError;
use super::family::{for_addresses_ips, Family};
use super::pools::{AllocPool, Pools};
use super::svc::{Port, SvcView};
use crate::k8s::ip::{normalize, to16};
pub use crate::report::metallb::Counters;

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Key {
    pub sharing: String,
    pub backend: String,
}

impl Key {
    pub fn new(sharing: &str, backend: &str) -> Key {
        Key { sharing: sharing.to_string(), backend: backend.to_string() }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Alloc {
    pub pool: String,
    pub ips: Vec<IpAddr>,
    pub ports: Vec<Port>,
    pub key: Key,
}

/// MetalLB's allocation key: the string `backend + sharing`.
#[derive(Debug, Clone, Default)]
pub struct AllocationKey(Key);

impl PartialEq for AllocationKey {
    fn eq(&self, other: &Self) -> bool {
        let (a, b) = (&self.0, &other.0);
        a.backend.len() + a.sharing.len() == b.backend.len() + b.sharing.len()
            && a.backend.bytes().chain(a.sharing.bytes()).eq(b.backend.bytes().chain(b.sharing.bytes()))
    }
}

/// Free candidates a pool offers one Service: at most one address per family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Candidates {
    pub v4: Option<IpAddr>,
    pub v6: Option<IpAddr>,
}

impl Candidates {
    pub fn get(&self, family: Family) -> Option<IpAddr> {
        match family {
            Family::V4 => self.v4,
            Family::V6 => self.v6,
            _ => None,
        }
    }
}

/// Per-pool usage: distinct addresses in use and how many Services hold each.
#[derive(Debug, Clone, Default)]
struct PoolUse {
    users: HashMap<u128, u32>,
    v4: usize,
    v6: usize,
}

#[derive(Debug, Clone, Default)]
pub struct Allocator {
    pools: Pools,
    allocated: HashMap<String, Alloc>,
    sharing_key_for_ip: HashMap<u128, Key>,
    /// Addresses by the sharing key recorded for them (non-empty sharing keys only).
    ips_by_key: HashMap<Key, BTreeSet<u128>>,
    /// Addresses that carry a sharing key, as maximal runs `start -> end`.
    keyed: Runs,
    ports_in_use: HashMap<u128, Few<Port, Arc<str>>>,
    services_on_ip: HashMap<u128, Few<Arc<str>, ()>>,
    pool_use: HashMap<String, PoolUse>,
    /// While a simulation runs: sharing keys as they were before it touched them.
    journal: Option<Vec<(u128, Option<Key>)>>,
    /// The release whose allocator this is.
    pub rules: Rules,
}

/// A few entries kept sorted in a vector: an address has one or two Services and their ports,
/// and a `BTreeMap` per address cost a node of eleven slots (10,000 Services: 9 MB).
#[derive(Debug, Clone)]
struct Few<K, V>(Vec<(K, V)>);

impl<K, V> Default for Few<K, V> {
    fn default() -> Self {
        Few(Vec::new())
    }
}

impl<K: Ord, V> Few<K, V> {
    fn find<Q: Ord + ?Sized>(&self, key: &Q) -> Result<usize, usize>
    where
        K: std::borrow::Borrow<Q>,
    {
        self.0.binary_search_by(|(k, _)| k.borrow().cmp(key))
    }

    /// As `BTreeMap::insert`: a key present keeps its place and takes the new value.
    fn insert(&mut self, key: K, value: V) {
        match self.find(&key) {
            Ok(i) => self.0[i].1 = value,
            Err(i) => self.0.insert(i, (key, value)),
        }
    }

    fn remove<Q: Ord + ?Sized>(&mut self, key: &Q)
    where
        K: std::borrow::Borrow<Q>,
    {
        if let Ok(i) = self.find(key) {
            self.0.remove(i);
        }
    }

    fn get<Q: Ord + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: std::borrow::Borrow<Q>,
    {
        self.find(key).ok().map(|i| &self.0[i].1)
    }

    fn keys(&self) -> impl Iterator<Item = &K> {
        self.0.iter().map(|(k, _)| k)
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

pub fn ip_key(ip: IpAddr) -> u128 {
    u128::from_be_bytes(to16(ip))
}

pub fn key_ip(k: u128) -> IpAddr {
    normalize(IpAddr::V6(Ipv6Addr::from(k)))
}

const V4_MAPPED: u128 = 0xffff_0000_0000;

fn is_v4(k: u128) -> bool {
    k >> 32 == V4_MAPPED >> 32
}

/// `ipConfusesBuggyFirmwares`: an IPv4 address ending in .0 or .255.
pub fn is_buggy(k: u128) -> bool {
    is_v4(k) && matches!(k & 0xff, 0 | 255)
}

pub fn bounds(cidr: &IpNet) -> (u128, u128) {
    (ip_key(cidr.network()), ip_key(cidr.broadcast()))
}

fn pool_holds(pool: &AllocPool, ip: IpAddr) -> bool {
    if pool.avoid_buggy_ips && is_buggy(ip_key(ip)) {
        return false;
    }
    pool.cidrs.iter().any(|c| c.contains(&ip))
}

/// `poolFor`: the first pool (map order) whose CIDRs hold every IP; a nil IP is held by none.
pub fn pool_for<'p>(pools: &'p Pools, ips: &[Option<IpAddr>]) -> Option<&'p AllocPool> {
    pools.by_name.values().find(|p| ips.iter().all(|ip| ip.is_some_and(|ip| pool_holds(p, ip))))
}

/// `sharingOK`, with the reason MetalLB builds and then throws away.
pub fn sharing_refusal(existing: &Key, new: &Key) -> Option<&'static str> {
    if existing.sharing.is_empty() {
        Some("existingNoSharing")
    } else if new.sharing.is_empty() {
        Some("newNoSharing")
    } else if existing.sharing != new.sharing {
        Some("sharingKeyMismatch")
    } else if existing.backend != new.backend {
        Some("backendKeyMismatch")
    } else {
        None
    }
}

impl Allocator {
    pub fn new() -> Allocator {
        Allocator::default()
    }

    /// `ipFamilyPolicy` as this release reads it: up to v0.14.8 it is never read (C-16).
    pub fn policy<'s>(&self, svc: &'s SvcView) -> &'s str {
        match self.rules.family_policy {
            FamilyPolicy::ClusterFamily => "SingleStack",
            _ => svc.policy(),
        }
    }

    fn select(
        &self,
        free: &Candidates,
        pool: &str,
        family: Family,
        svc: &SvcView,
    ) -> Result<Vec<Option<IpAddr>>, AllocError> {
        select_ips(free, pool, family, self.policy(svc), self.rules.family_policy)
    }

    pub fn pools(&self) -> &Pools {
        &self.pools
    }

    /// Room for `services` Services' addresses at once: growing the per-address maps of 10,000
    /// Services by doubling copied each and faulted in fresh memory every time.
    pub fn reserve(&mut self, services: usize) {
        self.allocated.reserve(services);
        self.sharing_key_for_ip.reserve(services);
        self.ports_in_use.reserve(services);
        self.services_on_ip.reserve(services);
    }

    /// Keeps the pools and how much of each is in use ([`Allocator::counters`],
    /// [`Allocator::in_use`]), and forgets which Service holds which address: what reports read
    /// once a replay is over. 10,000 Services' assignments are about 9 MB.
    pub fn forget_assignments(&mut self) {
        self.allocated = HashMap::default();
        self.sharing_key_for_ip = HashMap::default();
        self.ips_by_key = HashMap::default();
        self.keyed = Runs::default();
        self.ports_in_use = HashMap::default();
        self.services_on_ip = HashMap::default();
        self.journal = None;
    }

    /// `SetPools`: drop allocations no pool holds any more, move the others to their new pool.
    pub fn set_pools(&mut self, pools: Pools) {
        self.pools = pools;
        let mut keys: Vec<String> = self.allocated.keys().cloned().collect();
        keys.sort();
        for svc in keys {
            let alloc = self.allocated[&svc].clone();
            let ips: Vec<Option<IpAddr>> = alloc.ips.iter().copied().map(Some).collect();
            match pool_for(&self.pools, &ips).map(|p| p.name.clone()) {
                None => self.unassign(&svc),
                Some(name) if name != alloc.pool => {
                    self.unassign(&svc);
                    self.record(&svc, Alloc { pool: name, ..alloc });
                }
                Some(_) => {}
            }
        }
    }

    pub fn allocation(&self, svc: &str) -> Option<&Alloc> {
        self.allocated.get(svc)
    }

    /// Every allocation, by Service key.
    pub fn allocations(&self) -> impl Iterator<Item = (&String, &Alloc)> {
        let mut all: Vec<(&String, &Alloc)> = self.allocated.iter().collect();
        all.sort_by(|a, b| a.0.cmp(b.0));
        all.into_iter()
    }

    pub fn ips(&self, svc: &str) -> Vec<IpAddr> {
        self.allocated.get(svc).map(|a| a.ips.clone()).unwrap_or_default()
    }

    pub fn pool(&self, svc: &str) -> &str {
        self.allocated.get(svc).map(|a| a.pool.as_str()).unwrap_or("")
    }

    /// Reorders a Service's recorded IPs when they are the same set (Go shares the slice).
    pub fn reorder_ips(&mut self, svc: &str, ips: &[Option<IpAddr>]) {
        if let Some(a) = self.allocated.get_mut(svc) {
            let new: Vec<IpAddr> = ips.iter().flatten().copied().collect();
            if new.len() == a.ips.len() && new.iter().all(|ip| a.ips.contains(ip)) {
                a.ips = new;
            }
        }
    }

    /// `AllocationKey`: backend key then sharing key (compared concatenated), `""` when nothing is allocated.
    pub fn allocation_key(&self, svc: &str) -> AllocationKey {
        AllocationKey(self.allocated.get(svc).map(|a| a.key.clone()).unwrap_or_default())
    }

    pub fn key_for_ip(&self, ip: IpAddr) -> Option<&Key> {
        self.sharing_key_for_ip.get(&ip_key(ip))
    }

    /// Distinct addresses in use per family, and MetalLB's `PoolCounters`.
    pub fn counters(&self, pool_name: &str) -> Counters {
        let used = self.pool_use.get(pool_name);
        let (v4, v6) = used.map_or((0, 0), |u| (u.v4 as i64, u.v6 as i64));
        let (_, cap4, cap6) =
            self.pools.by_name.values().find(|p| p.name == pool_name).map_or((0, 0, 0), |p| p.count());
        Counters {
            assigned_ipv4: v4,
            assigned_ipv6: v6,
            available_ipv4: cap4.wrapping_sub(v4),
            available_ipv6: cap6.wrapping_sub(v6),
        }
    }

    /// Distinct addresses in use in a pool.
    pub fn in_use(&self, pool_name: &str) -> usize {
        self.pool_use.get(pool_name).map_or(0, |u| u.users.len())
    }

    fn set_sharing_key(&mut self, ip: u128, key: Option<Key>) {
        let old = match &key {
            Some(k) => self.sharing_key_for_ip.insert(ip, k.clone()),
            None => self.sharing_key_for_ip.remove(&ip),
        };
        if let Some(journal) = &mut self.journal {
            journal.push((ip, old.clone()));
        }
        if let Some(old) = old {
            if !old.sharing.is_empty() {
                if let Some(set) = self.ips_by_key.get_mut(&old) {
                    set.remove(&ip);
                }
            }
        } else if key.is_some() {
            self.keyed.insert(ip);
        }
        match key {
            Some(k) => {
                if !k.sharing.is_empty() {
                    self.ips_by_key.entry(k).or_default().insert(ip);
                }
            }
            None => self.keyed.remove(ip),
        }
    }

    /// The internal `assign`: records an allocation without any check.
    fn record(&mut self, svc: &str, alloc: Alloc) {
        self.unassign(svc);
        let name: Arc<str> = Arc::from(svc);
        for &ip in &alloc.ips {
            let k = ip_key(ip);
            self.set_sharing_key(k, Some(alloc.key.clone()));
            let ports = self.ports_in_use.entry(k).or_default();
            for port in &alloc.ports {
                ports.insert(port.clone(), name.clone());
            }
            self.services_on_ip.entry(k).or_default().insert(name.clone(), ());
            if !self.pool_use.contains_key(&alloc.pool) {
                self.pool_use.insert(alloc.pool.clone(), PoolUse::default());
            }
            let usage = self.pool_use.get_mut(&alloc.pool).expect("inserted above");
            let users = usage.users.entry(k).or_insert(0);
            *users += 1;
            if *users == 1 {
                if is_v4(k) {
                    usage.v4 += 1;
                } else {
                    usage.v6 += 1;
                }
            }
        }
        self.allocated.insert(svc.to_string(), alloc);
    }

    /// `Unassign`: frees the Service's addresses; a no-op for an unknown Service.
    pub fn unassign(&mut self, svc: &str) {
        let Some(alloc) = self.allocated.remove(svc) else { return };
        for &ip in &alloc.ips {
            let k = ip_key(ip);
            let mut ports_left = true;
            if let Some(ports) = self.ports_in_use.get_mut(&k) {
                for port in &alloc.ports {
                    ports.remove(port);
                }
                ports_left = !ports.is_empty();
            }
            if let Some(users) = self.services_on_ip.get_mut(&k) {
                users.remove(svc);
                if users.is_empty() {
                    self.services_on_ip.remove(&k);
                }
            }
            if !ports_left {
                self.ports_in_use.remove(&k);
                self.set_sharing_key(k, None);
            }
            if let Some(usage) = self.pool_use.get_mut(&alloc.pool) {
                if let Some(users) = usage.users.get_mut(&k) {
                    *users -= 1;
                    if *users == 0 {
                        usage.users.remove(&k);
                        if is_v4(k) {
                            usage.v4 -= 1;
                        } else {
                            usage.v6 -= 1;
                        }
                    }
                }
            }
        }
    }

    /// `checkSharing` for one address.
    pub fn check_sharing(&self, svc: &str, ip: IpAddr, ports: &[Port], key: &Key) -> Result<(), AllocError> {
        let k = ip_key(ip);
        let Some(existing) = self.sharing_key_for_ip.get(&k) else { return Ok(()) };
        if sharing_refusal(existing, key).is_some() {
            let others: Vec<String> = self
                .services_on_ip
                .get(&k)
                .into_iter()
                .flat_map(Few::keys)
                .filter(|s| &***s != svc)
                .map(|s| s.to_string())
                .collect();
            if !others.is_empty() {
                return Err(AllocError::SharingConflict {
                    svc: svc.to_string(),
                    ip,
                    others,
                    sentinel: !self.rules.reallocates_on_sharing_refusal,
                });
            }
        }
        if let Some(in_use) = self.ports_in_use.get(&k) {
            for port in ports {
                if let Some(holder) = in_use.get(port).filter(|h| &***h != svc) {
                    return Err(AllocError::PortInUse { port: port.clone(), ip, holder: holder.to_string() });
                }
            }
        }
        Ok(())
    }

    /// `Assign`: the explicit path, with every check in MetalLB's order.
    pub fn assign(
        &mut self,
        svc_key: &str,
        svc: &SvcView,
        ips: &[Option<IpAddr>],
        ports: &[Port],
        key: &Key,
    ) -> Result<(), AllocError> {
        let pool = pool_for(&self.pools, ips).ok_or_else(|| AllocError::NotAllowed { ips: ips.to_vec() })?;
        if !pool.compatible_with(svc.namespace, svc.labels) {
            return Err(AllocError::PoolNotCompatible { pool: pool.name.clone() });
        }
        let pool_name = pool.name.clone();
        if ips.len() > 2 {
            return Err(AllocError::MoreThanTwo { ips: ips.to_vec() });
        }
        let ips: Vec<IpAddr> = ips.iter().map(|ip| ip.expect("pool_for holds only real IPs")).collect();
        if ips.len() == 2 && Family::of(ips[0]) == Family::of(ips[1]) {
            return Err(AllocError::SameFamily { a: Some(ips[0]), b: Some(ips[1]) });
        }
        for &ip in &ips {
            self.check_sharing(svc_key, ip, ports, key)?;
        }
        self.record(svc_key, Alloc { pool: pool_name, ips, ports: ports.to_vec(), key: key.clone() });
        Ok(())
    }

    fn first_unkeyed(&self, lo: u128, hi: u128, avoid_buggy: bool) -> Option<u128> {
        let mut a = lo;
        while a <= hi {
            if avoid_buggy && is_buggy(a) {
                a = a.checked_add(1)?;
                continue;
            }
            match self.keyed.end_of_run(a) {
                Some(end) => a = end.checked_add(1)?,
                None => return Some(a),
            }
        }
        None
    }

    /// `getIPFromCIDR`: the lowest address of the CIDR that `checkSharing` accepts for this Service.
    pub fn ip_from_cidr(
        &self,
        cidr: &IpNet,
        avoid_buggy: bool,
        svc: &str,
        ports: &[Port],
        key: &Key,
    ) -> Option<IpAddr> {
        let (lo, hi) = bounds(cidr);
        let mut best = self.first_unkeyed(lo, hi, avoid_buggy);
        let usable = |k: u128| (!avoid_buggy || !is_buggy(k)) && self.check_sharing(svc, key_ip(k), ports, key).is_ok();
        // Below the first unkeyed address only keyed ones remain: this Service's own, or ones
        // whose recorded key equals its key. Nothing else can pass checkSharing.
        if let Some(own) = self.allocated.get(svc) {
            for k in own.ips.iter().map(|ip| ip_key(*ip)) {
                if (lo..=hi).contains(&k) && best.is_none_or(|b| k < b) && usable(k) {
                    best = Some(k);
                }
            }
        }
        if !key.sharing.is_empty() {
            if let Some(set) = self.ips_by_key.get(key) {
                for &k in set.range(lo..=hi) {
                    if best.is_some_and(|b| k >= b) {
                        break;
                    }
                    if usable(k) {
                        best = Some(k);
                        break;
                    }
                }
            }
        }
        best.map(key_ip)
    }

    /// `getFreeIPsFromPool`: the first acceptable address per family, CIDRs in configured order.
    pub fn free_in_pool(
        &self,
        pool: &AllocPool,
        svc: &str,
        ports: &[Port],
        key: &Key,
    ) -> Result<Candidates, AllocError> {
        let mut c = Candidates::default();
        for cidr in &pool.cidrs {
            let slot = match cidr {
                IpNet::V4(_) => &mut c.v4,
                IpNet::V6(_) => &mut c.v6,
            };
            if slot.is_none() {
                *slot = self.ip_from_cidr(cidr, pool.avoid_buggy_ips, svc, ports, key);
            }
        }
        if c.v4.is_none() && c.v6.is_none() && self.rules.pool_exhausted_error {
            return Err(AllocError::NoAvailableInPool { pool: pool.name.clone() });
        }
        Ok(c)
    }

    /// `AllocateFromPool` (the `address-pool` annotation).
    pub fn allocate_from_pool(
        &mut self,
        svc_key: &str,
        svc: &SvcView,
        family: Family,
        pool_name: &str,
        ports: &[Port],
        key: &Key,
    ) -> Result<Vec<IpAddr>, AllocError> {
        if let Some(existing) = self.allocated.get(svc_key).map(|a| a.ips.clone()) {
            return self.reassign_existing(svc_key, svc, family, existing, ports, key);
        }
        let pool = self.pools.get(pool_name).ok_or_else(|| AllocError::UnknownPool { pool: pool_name.to_string() })?;
        let free = self.free_in_pool(pool, svc_key, ports, key)?;
        let ips = self.select(&free, &pool.name, family, svc)?;
        self.assign(svc_key, svc, &ips, ports, key)?;
        Ok(ips.into_iter().flatten().collect())
    }

    fn reassign_existing(
        &mut self,
        svc_key: &str,
        svc: &SvcView,
        family: Family,
        existing: Vec<IpAddr>,
        ports: &[Port],
        key: &Key,
    ) -> Result<Vec<IpAddr>, AllocError> {
        let as_opt: Vec<Option<IpAddr>> = existing.iter().copied().map(Some).collect();
        let allocated = for_addresses_ips(&as_opt).map_err(AllocError::Family)?;
        if allocated == Family::Unknown {
            return Err(AllocError::UnknownAllocFamily { family: allocated });
        }
        if self.policy(svc) != "PreferDualStack" && allocated != family {
            return Err(AllocError::WrongFamily { allocated, service: family });
        }
        self.assign(svc_key, svc, &as_opt, ports, key)?;
        Ok(existing)
    }

    /// `Allocate`: pinned pools, then the unrestricted auto-assign pools. Pool-name order stands
    /// in for Go's random map order; `automatic_outcomes` lists what other orders would give.
    pub fn allocate(
        &mut self,
        svc_key: &str,
        svc: &SvcView,
        family: Family,
        ports: &[Port],
        key: &Key,
    ) -> Result<Vec<IpAddr>, AllocError> {
        if let Some(existing) = self.allocated.get(svc_key).map(|a| a.ips.clone()) {
            let as_opt: Vec<Option<IpAddr>> = existing.iter().copied().map(Some).collect();
            self.assign(svc_key, svc, &as_opt, ports, key)?;
            return Ok(existing);
        }
        for list in [self.pinned_pools(svc, None), self.fallback_pools()] {
            if let Some((pool, free)) = self.best_pool(&list, svc_key, svc, family, ports, key) {
                if let Ok(ips) = self.select(&free, &pool, family, svc) {
                    if self.assign(svc_key, svc, &ips, ports, key).is_ok() {
                        return Ok(ips.into_iter().flatten().collect());
                    }
                }
            }
        }
        Err(AllocError::NoAvailable)
    }

    /// Pools automatic allocation falls back to: auto-assign pools without any serviceAllocation.
    pub fn fallback_pools(&self) -> Vec<String> {
        self.pools
            .by_name
            .iter()
            .filter(|(_, p)| p.auto_assign && p.service_allocation.is_none())
            .map(|(k, _)| k.clone())
            .collect()
    }

    /// `pinnedPoolsForService`: namespace pools (in `ns_order`, else key order), then selector
    /// pools by name, filtered, then ordered by Go's `sort.Slice` over MetalLB's comparator.
    pub fn pinned_pools(&self, svc: &SvcView, ns_order: Option<&[String]>) -> Vec<String> {
        let by_ns = self.pools.by_namespace.get(svc.namespace).map(Vec::as_slice).unwrap_or_default();
        let ns_list = ns_order.unwrap_or(by_ns);
        let mut out: Vec<String> = ns_list
            .iter()
            .chain(self.pools.by_service_selector.iter())
            .filter(|k| {
                self.pools.get(k).is_some_and(|p| p.auto_assign && p.compatible_with(svc.namespace, svc.labels))
            })
            .cloned()
            .collect();
        let prio: Vec<i64> = out.iter().map(|k| self.pools.by_name[k].priority()).collect();
        let mut order: Vec<usize> = (0..out.len()).collect();
        go_insertion_sort(&mut order, |a, b| sort_pools_less(prio[*a], prio[*b]));
        out = order.into_iter().map(|i| out[i].clone()).collect();
        out
    }

    /// `findBestPoolForService` over pools in the given order.
    pub fn best_pool(
        &self,
        order: &[String],
        svc_key: &str,
        svc: &SvcView,
        family: Family,
        ports: &[Port],
        key: &Key,
    ) -> Option<(String, Candidates)> {
        let (primary, secondary) = if svc.ipv6_primary() { (Family::V6, Family::V4) } else { (Family::V4, Family::V6) };
        let prefer_dual = self.policy(svc) == "PreferDualStack" && family == Family::Dual;
        let (mut first_primary, mut first_secondary) = (None, None);
        for name in order {
            let Some(pool) = self.pools.get(name) else { continue };
            let Ok(free) = self.free_in_pool(pool, svc_key, ports, key) else { continue };
            if free.get(family).is_some() || (free.v4.is_some() && free.v6.is_some()) {
                return Some((pool.name.clone(), free));
            }
            if !prefer_dual {
                continue;
            }
            if free.get(primary).is_some() && first_primary.is_none() {
                first_primary = Some((pool.name.clone(), free));
            }
            if free.get(secondary).is_some() && first_secondary.is_none() {
                first_secondary = Some((pool.name.clone(), free));
            }
        }
        first_primary.or(first_secondary)
    }

    /// `AllocateFromPoolForAdditionalFamily` (PreferDualStack with one IP).
    pub fn allocate_additional(
        &mut self,
        svc_key: &str,
        svc: &SvcView,
        existing: IpAddr,
        pool_name: &str,
        ports: &[Port],
        key: &Key,
    ) -> Result<Option<IpAddr>, AllocError> {
        let missing = if Family::of(existing) == Family::V4 { Family::V6 } else { Family::V4 };
        let pool = self.pools.get(pool_name).ok_or_else(|| AllocError::UnknownPool { pool: pool_name.to_string() })?;
        let free = self.free_in_pool(pool, svc_key, ports, key)?;
        let extra = select_ips(&free, &pool.name, missing, "SingleStack", self.rules.family_policy)?[0];
        self.assign(svc_key, svc, &[Some(existing), extra], ports, key)?;
        Ok(extra)
    }

    /// Starts a trial: every change from here on can be undone by `end_trial`.
    pub fn begin_trial(&mut self) {
        self.journal = Some(Vec::new());
    }

    /// Undoes a trial for one Service: drops what it holds now, restores the sharing keys the
    /// trial changed, then puts back `restore` (what the Service held before, if anything).
    pub fn end_trial(&mut self, svc_key: &str, restore: Option<Alloc>) {
        self.unassign(svc_key);
        let journal = self.journal.take().unwrap_or_default();
        for (ip, old) in journal.into_iter().rev() {
            if self.sharing_key_for_ip.get(&ip) != old.as_ref() {
                self.set_sharing_key(ip, old);
            }
        }
        if let Some(alloc) = restore {
            self.record(svc_key, alloc);
        }
    }
}

/// How a pool stands toward one Service's automatic allocation.
#[derive(Debug, Clone, PartialEq)]
pub enum PoolFit {
    /// It would offer these addresses.
    Candidate(Candidates),
    AutoAssignOff,
    /// Its serviceAllocation refuses the Service (the words say why).
    NotCompatible(String),
    /// Restricted, compatible, yet in neither index: never auto-assigned (spec §7.10 edge case).
    NeverAutoAssigned,
    /// No address at all that this Service could take.
    Exhausted,
    /// Free addresses, but none of the family the Service needs.
    NoAddressOfFamily(Family),
}

impl Allocator {
    /// Every outcome automatic allocation can have for this Service, where MetalLB's choice is
    /// random (Go map order): pinned pools of equal priority reached through namespaces, and
    /// the unrestricted fallback pools. Sorted by pool; empty when it fails whatever the order.
    pub fn automatic_outcomes(
        &self,
        svc_key: &str,
        svc: &SvcView,
        family: Family,
        ports: &[Port],
        key: &Key,
    ) -> Vec<(String, Vec<IpAddr>)> {
        let mut out: Vec<(String, Vec<IpAddr>)> = Vec::new();
        let by_ns = self.pools.by_namespace.get(svc.namespace).cloned().unwrap_or_default();
        // Namespace pools arrive in map order; try every order when there are few of them.
        let orders = if by_ns.len() <= 6 { permutations(&by_ns) } else { vec![by_ns.clone()] };
        for order in orders {
            let pinned = self.pinned_pools(svc, Some(&order));
            if let Some((pool, free)) = self.best_pool(&pinned, svc_key, svc, family, ports, key) {
                if let Ok(ips) = self.select(&free, &pool, family, svc) {
                    push_outcome(&mut out, pool, ips);
                }
            }
        }
        if !out.is_empty() {
            out.sort();
            return out;
        }
        let (primary, secondary) = if svc.ipv6_primary() { (Family::V6, Family::V4) } else { (Family::V4, Family::V6) };
        let frees: Vec<(String, Candidates)> = self
            .fallback_pools()
            .iter()
            .filter_map(|k| {
                let p = self.pools.get(k)?;
                self.free_in_pool(p, svc_key, ports, key).ok().map(|c| (p.name.clone(), c))
            })
            .collect();
        let both: Vec<&(String, Candidates)> = frees.iter().filter(|(_, c)| c.v4.is_some() && c.v6.is_some()).collect();
        let winners: Vec<&(String, Candidates)> = match family {
            Family::V4 | Family::V6 => frees.iter().filter(|(_, c)| c.get(family).is_some()).collect(),
            _ if !both.is_empty() => both,
            _ if self.policy(svc) == "PreferDualStack" => {
                let with = |f: Family| -> Vec<&(String, Candidates)> {
                    frees.iter().filter(|(_, c)| c.get(f).is_some()).collect()
                };
                let p = with(primary);
                if p.is_empty() {
                    with(secondary)
                } else {
                    p
                }
            }
            _ => Vec::new(),
        };
        for (pool, free) in winners {
            if let Ok(ips) = self.select(free, pool, family, svc) {
                push_outcome(&mut out, pool.clone(), ips);
            }
        }
        out.sort();
        out
    }

    /// How each pool stands toward this Service's automatic allocation, by pool name.
    pub fn pool_fits(
        &self,
        svc_key: &str,
        svc: &SvcView,
        family: Family,
        ports: &[Port],
        key: &Key,
    ) -> Vec<(String, PoolFit)> {
        let pinned = self.pinned_pools(svc, None);
        let mut out = Vec::new();
        for (map_key, pool) in &self.pools.by_name {
            let fit = if !pool.auto_assign {
                PoolFit::AutoAssignOff
            } else if let Some(why) = pool.incompatibility(svc.namespace, svc.labels) {
                PoolFit::NotCompatible(why)
            } else if pool.service_allocation.is_some() && !pinned.contains(map_key) {
                PoolFit::NeverAutoAssigned
            } else {
                match self.free_in_pool(pool, svc_key, ports, key) {
                    Err(_) => PoolFit::Exhausted,
                    Ok(c) => match family {
                        Family::V4 | Family::V6 if c.get(family).is_none() => PoolFit::NoAddressOfFamily(family),
                        Family::Dual
                            if self.policy(svc) == "RequireDualStack" && (c.v4.is_none() || c.v6.is_none()) =>
                        {
                            PoolFit::NoAddressOfFamily(if c.v4.is_none() { Family::V4 } else { Family::V6 })
                        }
                        _ => PoolFit::Candidate(c),
                    },
                }
            };
            out.push((pool.name.clone(), fit));
        }
        out
    }
}

fn push_outcome(out: &mut Vec<(String, Vec<IpAddr>)>, pool: String, ips: Vec<Option<IpAddr>>) {
    if ips.iter().any(Option::is_none) {
        return;
    }
    let item = (pool, ips.into_iter().flatten().collect());
    if !out.contains(&item) {
        out.push(item);
    }
}

fn permutations(items: &[String]) -> Vec<Vec<String>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut out = Vec::new();
    for i in 0..items.len() {
        let mut rest = items.to_vec();
        let first = rest.remove(i);
        for mut tail in permutations(&rest) {
            tail.insert(0, first.clone());
            out.push(tail);
        }
    }
    out
}

/// `selectIPsForFamilyAndPolicy` of the release; from v0.15.0 single families may yield `[nil]`.
pub fn select_ips(
    free: &Candidates,
    pool: &str,
    family: Family,
    policy: &str,
    rules: FamilyPolicy,
) -> Result<Vec<Option<IpAddr>>, AllocError> {
    let both = free.v4.is_some() && free.v6.is_some();
    let none = || AllocError::NoAvailableInPoolForFamily {
        pool: pool.to_string(),
        family,
        quoted: rules == FamilyPolicy::ClusterFamily,
    };
    match rules {
        // Up to v0.14.8: exactly the ClusterIPs' family, a dual one both from this pool.
        FamilyPolicy::ClusterFamily => {
            return match family {
                Family::Dual if both => Ok(vec![free.v4, free.v6]),
                Family::V4 | Family::V6 => free.get(family).map(|ip| vec![Some(ip)]).ok_or_else(none),
                _ => Err(none()),
            }
        }
        // C-18: a single-family Service gets its family, nil when none is free.
        FamilyPolicy::OwnFamily => match family {
            Family::V4 => return Ok(vec![free.v4]),
            Family::V6 => return Ok(vec![free.v6]),
            _ => {}
        },
        // v0.14.9 applies the policy to single families too.
        FamilyPolicy::AnyFamily => {}
    }
    match policy {
        "SingleStack" => {
            if let Some(ip) = free.get(family) {
                return Ok(vec![Some(ip)]);
            }
        }
        "RequireDualStack" if both => return Ok(vec![free.v4, free.v6]),
        "PreferDualStack" => {
            if both {
                return Ok(vec![free.v4, free.v6]);
            }
            if let Some(ip) = free.v4.or(free.v6) {
                return Ok(vec![Some(ip)]);
            }
        }
        _ => {}
    }
    Err(none())
}

/// MetalLB's `sortPools` comparator.
fn sort_pools_less(a: i64, b: i64) -> bool {
    if a > 0 && b > 0 {
        return a < b;
    }
    !(a == 0 && b > 0)
}

/// Go's `sort.Slice` for up to 12 elements is this insertion sort; ties keep or reverse input
/// order depending on the comparator, which MetalLB's pool order depends on.
fn go_insertion_sort<T>(v: &mut [T], less: impl Fn(&T, &T) -> bool)
where
    T: Copy,
{
    for i in 1..v.len() {
        let mut j = i;
        while j > 0 && less(&v[j], &v[j - 1]) {
            v.swap(j, j - 1);
            j -= 1;
        }
    }
}

/// A set of `u128` kept as maximal runs of consecutive values.
#[derive(Debug, Clone, Default)]
struct Runs(BTreeMap<u128, u128>);

impl Runs {
    fn end_of_run(&self, x: u128) -> Option<u128> {
        self.0.range(..=x).next_back().filter(|(_, &end)| end >= x).map(|(_, &end)| end)
    }

    fn insert(&mut self, x: u128) {
        if self.end_of_run(x).is_some() {
            return;
        }
        let mut start = x;
        let mut end = x;
        if let Some(left_end) = x.checked_sub(1).and_then(|p| self.end_of_run(p)) {
            start = *self.0.range(..x).next_back().expect("run exists").0;
            debug_assert_eq!(left_end, x - 1);
        }
        if let Some(next) = x.checked_add(1) {
            if let Some(right_end) = self.0.remove(&next) {
                end = right_end;
            }
        }
        self.0.insert(start, end);
    }

    fn remove(&mut self, x: u128) {
        let Some((&start, &end)) = self.0.range(..=x).next_back().filter(|(_, &e)| e >= x) else { return };
        self.0.remove(&start);
        if start < x {
            self.0.insert(start, x - 1);
        }
        if x < end {
            self.0.insert(x + 1, end);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// `Few` answers as the `BTreeMap` it replaces, whatever the inserts and removals.
        #[test]
        fn few_is_a_btree_map(ops in prop::collection::vec((0u8..3, 0u8..6, 0u8..4), 0..40)) {
            let (mut few, mut map) = (Few::default(), BTreeMap::new());
            for (op, key, value) in ops {
                match op {
                    0 => {
                        few.insert(key, value);
                        map.insert(key, value);
                    }
                    1 => {
                        few.remove(&key);
                        map.remove(&key);
                    }
                    _ => prop_assert_eq!(few.get(&key), map.get(&key)),
                }
                prop_assert_eq!(few.keys().collect::<Vec<_>>(), map.keys().collect::<Vec<_>>());
                prop_assert_eq!(few.is_empty(), map.is_empty());
            }
        }
    }

    #[test]
    fn runs_merge_and_split() {
        let mut r = Runs::default();
        for x in [5, 7, 6, 10, 9] {
            r.insert(x);
        }
        assert_eq!(r.0, BTreeMap::from([(5, 7), (9, 10)]));
        r.remove(6);
        assert_eq!(r.0, BTreeMap::from([(5, 5), (7, 7), (9, 10)]));
        r.insert(8);
        assert_eq!(r.0, BTreeMap::from([(5, 5), (7, 10)]));
        r.insert(u128::MAX);
        r.insert(0);
        assert_eq!(r.end_of_run(u128::MAX), Some(u128::MAX));
        assert_eq!(r.end_of_run(8), Some(10));
        assert_eq!(r.end_of_run(6), None);
    }

    #[test]
    fn priority_order_matches_go() {
        // Equal positive priorities keep input order; zeros come last, reversed.
        let mut v = [(1, 0i64), (2, 5), (3, 0), (4, 5), (5, 1)];
        go_insertion_sort(&mut v, |a, b| sort_pools_less(a.1, b.1));
        let names: Vec<i32> = v.iter().map(|x| x.0).collect();
        assert_eq!(names, [5, 2, 4, 3, 1]);
    }
}
