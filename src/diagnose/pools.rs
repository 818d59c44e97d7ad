//! `explain pools`: every IPAddressPool as MetalLB's controller counts it, who holds which
//! address, and which Services could get one automatically.

use std::collections::BTreeMap;

use super::world::World;
use super::{implementations::Implementations, source_with, DiagnoseError, Options};
use crate::k8s::ip::go_ip_string;
use crate::metallb::alloc::allocator::{ip_key, Key, PoolFit};
use crate::metallb::alloc::family::Family;
use crate::metallb::alloc::replay::Status;
use crate::report::{FamilyUsage, ObjectRef, PoolCandidate, PoolHolder, PoolReport, PoolsReport, API_VERSION};
use crate::snapshot::Snapshot;

pub fn diagnose_pools(snap: &Snapshot, opts: &Options, name: Option<&str>) -> Result<PoolsReport, DiagnoseError> {
    let world = World::build(snap, &opts.overrides);
    world.run_replay();
    let mut findings = super::checks::cluster_findings(&world);
    findings.extend(super::allocation::pool_findings(&world));
    let mut pools = Vec::new();
    if let Some(r) = world.replay() {
        let alloc = &r.controller.alloc;
        let ns = &world.setup.namespace;
        // Per Service, how every pool stands toward it (computed once, not once per pool).
        let mut fits: BTreeMap<String, BTreeMap<String, PoolFit>> = BTreeMap::new();
        let mut keys: Vec<&String> = r.outcomes.keys().collect();
        keys.sort();
        for key in keys {
            let o = &r.outcomes[key];
            let svc = r.view(o);
            if o.status == Status::NotOurs || svc.type_ != "LoadBalancer" {
                continue;
            }
            let family = o.family.unwrap_or(Family::V4);
            let sk = Key::new(svc.sharing_key(), &svc.backend_key());
            fits.insert(key.clone(), alloc.pool_fits(key, svc, family, &svc.ports, &sk).into_iter().collect());
        }
        for pool in alloc.pools().by_name.values() {
            if name.is_some_and(|n| n != pool.name) {
                continue;
            }
            let (_, cap4, cap6) = pool.count();
            let c = alloc.counters(&pool.name);
            let usage = |cap: i64, used: i64| {
                let total = (0..(1i64 << 62)).contains(&cap).then_some(cap);
                FamilyUsage { total, used, free: total.map(|t| t - used), metallb_total: cap }
            };
            let mut by_ip: BTreeMap<u128, (String, Vec<String>)> = BTreeMap::new();
            for (svc, a) in alloc.allocations().filter(|(_, a)| a.pool == pool.name) {
                for ip in &a.ips {
                    by_ip.entry(ip_key(*ip)).or_insert_with(|| (go_ip_string(*ip), Vec::new())).1.push(svc.clone());
                }
            }
            let holders: Vec<PoolHolder> =
                by_ip.into_values().map(|(ip, services)| PoolHolder { ip, services }).collect();
            let holding: Vec<&String> = holders.iter().flat_map(|h| &h.services).collect();
            let services: Vec<PoolCandidate> = fits
                .iter()
                .map(|(svc, per_pool)| {
                    if holding.contains(&svc) {
                        return PoolCandidate { service: svc.clone(), fit: "holds", detail: String::new() };
                    }
                    let (fit, detail) = match per_pool.get(&pool.name) {
                        Some(PoolFit::Candidate(c)) => {
                            let ips: Vec<String> = [c.v4, c.v6].into_iter().flatten().map(go_ip_string).collect();
                            ("candidate", format!("would be offered {}", ips.join(", ")))
                        }
                        Some(PoolFit::AutoAssignOff) => {
                            ("autoAssignOff", "only by metallb.io/address-pool or explicit IPs".into())
                        }
                        Some(PoolFit::NotCompatible(why)) => ("notCompatible", why.clone()),
                        Some(PoolFit::NeverAutoAssigned) => (
                            "neverAutoAssigned",
                            "the serviceAllocation selects no namespace or Service: never auto-assigned".into(),
                        ),
                        Some(PoolFit::Exhausted) => ("exhausted", "no address left it could take".into()),
                        Some(PoolFit::NoAddressOfFamily(f)) => ("noAddressOfFamily", format!("no free {f} address")),
                        None => ("unknown", String::new()),
                    };
                    PoolCandidate { service: svc.clone(), fit, detail }
                })
                .collect();
            let (l2, bgp) = match world
                .config
                .as_ref()
                .ok()
                .and_then(|cfg| cfg.pools.iter().find(|p| p.name == pool.name).map(|p| (cfg, p)))
            {
                Some((cfg, p)) => {
                    let mut l2: Vec<String> =
                        p.l2.iter().flat_map(|pa| pa.all()).map(|i| cfg.l2_advertisements[i].name.clone()).collect();
                    l2.sort();
                    (l2, cfg.bgp_names(p))
                }
                None => (Vec::new(), Vec::new()),
            };
            let obj = ObjectRef::new("IPAddressPool", ns, &pool.name);
            let sa = pool.service_allocation.as_ref();
            pools.push(PoolReport {
                name: pool.name.clone(),
                addresses: pool.cidrs.iter().map(|c| c.to_string()).collect(),
                auto_assign: pool.auto_assign,
                avoid_buggy_ips: pool.avoid_buggy_ips,
                priority: sa.map(|s| s.priority),
                namespaces: sa.map(|s| s.namespaces.iter().cloned().collect()),
                service_selectors: sa.map(|s| s.service_selectors.iter().map(|x| x.to_kube_string()).collect()),
                ipv4: usage(cap4, c.assigned_ipv4),
                ipv6: usage(cap6, c.assigned_ipv6),
                counters: c,
                status_written: world.setup.controller_release.rules().pool_status,
                l2_advertisements: l2,
                bgp_advertisements: bgp,
                holders,
                services,
                findings: findings.iter().filter(|f| f.objects.contains(&obj)).cloned().collect(),
            });
        }
    }
    if let Some(n) = name {
        if pools.is_empty() {
            return Err(DiagnoseError::PoolNotFound {
                name: n.to_string(),
                place: super::place(world.snap),
                hint: match &world.controller_config {
                    Err(e) => format!(": MetalLB rejects its configuration ({})", e.message),
                    Ok(cfg) if !cfg.pools.is_empty() => format!(
                        " (pools: {})",
                        cfg.pools.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", ")
                    ),
                    Ok(_) => format!(" (there is no IPAddressPool in {})", world.setup.namespace),
                },
            });
        }
    }
    // The same `source` as a Report of the snapshot: the implementations found included.
    let source = source_with(&world, &Implementations::build(snap));
    Ok(PoolsReport { api_version: API_VERSION, kind: "PoolReport", source, pools, findings })
}
