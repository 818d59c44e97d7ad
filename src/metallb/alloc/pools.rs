//! Pools as MetalLB's allocator holds them (`config.Pools`): by name, by namespace and by
//! Service selector, plus its capacity arithmetic (controller spec §7.10, §9.1).

use std::collections::{BTreeMap, BTreeSet};

use ipnet::IpNet;

use crate::k8s::selector::{LabelLookup, Labels, Selector};

#[derive(Debug, Clone, PartialEq)]
pub struct AllocPool {
    pub name: String,
    pub cidrs: Vec<IpNet>,
    pub auto_assign: bool,
    pub avoid_buggy_ips: bool,
    pub service_allocation: Option<ServiceAllocation>,
}

/// `spec.serviceAllocation` after parsing: namespaceSelectors already resolved into names.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ServiceAllocation {
    pub priority: i64,
    pub namespaces: BTreeSet<String>,
    pub service_selectors: Vec<Selector>,
}

impl AllocPool {
    pub fn priority(&self) -> i64 {
        self.service_allocation.as_ref().map_or(0, |s| s.priority)
    }

    /// `isPoolCompatibleWithService`: namespace list, then Service labels against the selectors.
    pub fn compatible_with(&self, namespace: &str, labels: &(impl LabelLookup + ?Sized)) -> bool {
        let Some(sa) = &self.service_allocation else { return true };
        if !sa.namespaces.is_empty() && !sa.namespaces.contains(namespace) {
            return false;
        }
        if !sa.service_selectors.is_empty() {
            return sa.service_selectors.iter().any(|s| s.matches(labels));
        }
        true
    }

    /// Why `compatible_with` refuses, in words; `None` when it accepts.
    pub fn incompatibility(&self, namespace: &str, labels: &(impl LabelLookup + ?Sized)) -> Option<String> {
        let sa = self.service_allocation.as_ref()?;
        if !sa.namespaces.is_empty() && !sa.namespaces.contains(namespace) {
            let list: Vec<&str> = sa.namespaces.iter().map(String::as_str).collect();
            return Some(format!("namespace {namespace} is not among the pool's namespaces ({})", list.join(", ")));
        }
        if !sa.service_selectors.is_empty() && !sa.service_selectors.iter().any(|s| s.matches(labels)) {
            let sels: Vec<String> = sa.service_selectors.iter().map(Selector::to_kube_string).collect();
            return Some(format!(
                "the Service's labels match none of the pool's serviceSelectors ({})",
                sels.join("; ")
            ));
        }
        None
    }

    /// `poolCount`: (total, ipv4, ipv6) with MetalLB's int64 arithmetic, wrap-around included.
    pub fn count(&self) -> (i64, i64, i64) {
        let (mut total, mut v4, mut v6) = (0i64, 0i64, 0i64);
        for cidr in &self.cidrs {
            let (o, b) = (cidr.prefix_len() as i64, cidr.max_prefix_len() as i64);
            if b - o >= 62 {
                total = i64::MAX;
                v6 = i64::MAX;
                continue;
            }
            let mut size = 1i64 << (b - o);
            if self.avoid_buggy_ips {
                if let IpNet::V4(n) = cidr {
                    if o <= 24 {
                        size -= (1i64 << (24 - o)) * 2;
                    } else {
                        let buggy = |ip: std::net::Ipv4Addr| matches!(ip.octets()[3], 0 | 255);
                        size -= buggy(n.network()) as i64;
                        size -= buggy(n.broadcast()) as i64;
                    }
                }
            }
            total = total.wrapping_add(size);
            match cidr {
                IpNet::V4(_) => v4 = v4.wrapping_add(size),
                IpNet::V6(_) => v6 = v6.wrapping_add(size),
            }
        }
        (total, v4, v6)
    }
}

/// `config.Pools`. `by_name` is keyed like Go's map (usually the pool name); iterating it in
/// key order stands in for Go's random map order wherever the result does not depend on it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pools {
    pub by_name: BTreeMap<String, AllocPool>,
    pub by_namespace: BTreeMap<String, Vec<String>>,
    pub by_service_selector: Vec<String>,
}

impl Pools {
    pub fn new(pools: impl IntoIterator<Item = (String, AllocPool)>) -> Pools {
        let by_name: BTreeMap<String, AllocPool> = pools.into_iter().collect();
        let mut by_namespace: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut by_service_selector = Vec::new();
        for (key, pool) in &by_name {
            let Some(sa) = &pool.service_allocation else { continue };
            for ns in &sa.namespaces {
                by_namespace.entry(ns.clone()).or_default().push(key.clone());
            }
            if !sa.service_selectors.is_empty() {
                by_service_selector.push(key.clone());
            }
        }
        by_service_selector.sort_by(|a, b| by_name[a].name.cmp(&by_name[b].name));
        Pools { by_name, by_namespace, by_service_selector }
    }

    pub fn from_list(pools: Vec<AllocPool>) -> Pools {
        Pools::new(pools.into_iter().map(|p| (p.name.clone(), p)))
    }

    /// The pool of this name (pools are looked up by their map key, as in Go).
    pub fn get(&self, name: &str) -> Option<&AllocPool> {
        self.by_name.get(name)
    }
}

/// Builds `ServiceAllocation` the way `config.For` does (config.go:557-602). `priority_only`:
/// a serviceAllocation with nothing but a priority selects every Service (C-21, v0.15.0); before,
/// it selects none and the pool is never used for automatic allocation.
pub fn resolve_service_allocation(
    spec: &crate::snapshot::crd::ServiceAllocation,
    namespaces: &[(String, Labels)],
    priority_only: bool,
) -> ServiceAllocation {
    let mut names: BTreeSet<String> = spec.namespaces.iter().cloned().collect();
    let ns_selectors: Vec<Selector> =
        spec.namespace_selectors.iter().filter_map(|s| Selector::compile(s).ok()).collect();
    for (name, labels) in namespaces {
        if ns_selectors.iter().any(|s| s.matches(labels)) {
            names.insert(name.clone());
        }
    }
    let mut service_selectors: Vec<Selector> =
        spec.service_selectors.iter().filter_map(|s| Selector::compile(s).ok()).collect();
    if priority_only
        && spec.namespaces.is_empty()
        && spec.namespace_selectors.is_empty()
        && spec.service_selectors.is_empty()
    {
        service_selectors = vec![Selector::default()];
    }
    ServiceAllocation { priority: spec.priority.unwrap_or(0), namespaces: names, service_selectors }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::k8s::cidr::parse_pool_address;

    fn pool(addresses: &[&str], avoid: bool) -> AllocPool {
        AllocPool {
            name: "p".into(),
            cidrs: addresses.iter().flat_map(|a| parse_pool_address(a).unwrap()).collect(),
            auto_assign: true,
            avoid_buggy_ips: avoid,
            service_allocation: None,
        }
    }

    #[test]
    fn capacity_quirks_from_the_spec() {
        assert_eq!(pool(&["fd00::/64", "10.10.0.0/24"], false).count().0, -9223372036854775553);
        assert_eq!(pool(&["10.10.0.0/24", "fd00::/64"], false).count().0, i64::MAX);
        assert!(pool(&["fd00::/66", "fd01::/67"], false).count().0 < 0);
        assert_eq!(pool(&["10.0.0.255/32"], true).count(), (-1, -1, 0));
        assert_eq!(pool(&["10.0.0.255-10.0.1.0"], true).count().0, -2);
        assert_eq!(pool(&["1.2.3.0/24", "2.3.4.128/25"], true).count(), (381, 381, 0));
    }
}
