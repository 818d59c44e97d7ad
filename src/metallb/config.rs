//! MetalLB's CRs turned into the internal configuration the speaker runs on (spec §5), with the
//! validation that makes MetalLB reject a configuration as a whole (controller spec §8).

use super::release::Rules;
use std::collections::{BTreeMap, BTreeSet};

use ipnet::IpNet;
use k8s_openapi::api::core::v1::Node;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use super::alloc::pools::{resolve_service_allocation, AllocPool};
use super::bgp::config::{self as bgp_config, BgpAd, BgpConfigError, Peer, PoolFamilies};
use super::parse::{
    compile_service_selectors, select_names, validate_duplicates, validate_selector_duplicates, with_context,
};
use crate::k8s::cidr::{overlaps, parse_pool_address};
use crate::k8s::selector::{go_selector_v, Labels, Selector};
use crate::report::ObjectRef;
use crate::snapshot::crd::{BfdProfile, BgpAdvertisement, BgpPeer, Community, IpAddressPool, L2Advertisement};
use crate::snapshot::BgpType;

/// The CRs of MetalLB's own namespace plus every Node, exactly what `config.For` reads.
pub struct ConfigInput<'a> {
    pub pools: Vec<&'a IpAddressPool>,
    pub l2_advertisements: Vec<&'a L2Advertisement>,
    pub bgp_advertisements: Vec<&'a BgpAdvertisement>,
    pub communities: Vec<&'a Community>,
    pub bgp_peers: Vec<&'a BgpPeer>,
    pub bfd_profiles: Vec<&'a BfdProfile>,
    /// The speaker's BGP backend, whose validation runs first; `None` for the controller,
    /// which validates nothing of BGP.
    pub bgp_type: Option<BgpType>,
    pub nodes: &'a [Node],
    /// Namespace names and labels, for pool `namespaceSelectors`.
    pub namespaces: &'a [(String, Labels)],
}

#[derive(Debug, Clone)]
pub struct Config {
    /// Sorted by name.
    pub pools: Vec<Pool>,
    /// One per L2Advertisement CR, sorted by name.
    pub l2_advertisements: Vec<L2Ad>,
    /// One per BGPAdvertisement CR, sorted by name.
    pub bgp_advertisements: Vec<BgpAd>,
    /// BGPPeers, sorted by name.
    pub peers: Vec<Peer>,
}

impl Config {
    /// Names of the BGPAdvertisements attached to `pool`, sorted and deduplicated.
    pub fn bgp_names(&self, pool: &Pool) -> Vec<String> {
        let names: std::collections::BTreeSet<&str> =
            pool.bgp.iter().map(|&i| self.bgp_advertisements[i].name.as_str()).collect();
        names.into_iter().map(str::to_string).collect()
    }
}

#[derive(Debug, Clone)]
pub struct Pool {
    pub name: String,
    pub labels: Labels,
    pub cidrs: Vec<IpNet>,
    /// The L2 advertisements attached to this pool, after MetalLB's dedupe.
    pub l2: Vec<PoolAd>,
    /// The BGP advertisements attached to this pool, as indices into `Config::bgp_advertisements`
    /// (MetalLB does not fold duplicates: an advertisement reaching the pool twice is listed twice).
    pub bgp: Vec<usize>,
    /// `spec.addresses` entries with the CIDRs each one summarises to.
    pub addresses: Vec<(String, Vec<IpNet>)>,
    /// The pool as the controller's allocator holds it.
    pub alloc: AllocPool,
}

/// An advertisement as attached to a pool; `merged` lists identical CRs v0.16.1 folded into it.
#[derive(Debug, Clone)]
pub struct PoolAd {
    pub ad: usize,
    pub merged: Vec<usize>,
}

impl PoolAd {
    /// The advertisement and the ones folded into it, as indices into `Config::l2_advertisements`.
    pub fn all(&self) -> impl Iterator<Item = usize> + '_ {
        std::iter::once(self.ad).chain(self.merged.iter().copied())
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct L2Ad {
    pub name: String,
    /// The resolved node set (`nodeSelectors` evaluated; empty selectors = every Node).
    pub nodes: BTreeSet<String>,
    pub has_node_selectors: bool,
    pub interfaces: Vec<String>,
    pub all_interfaces: bool,
    /// Parsed and sorted by their string form.
    pub service_selectors: Vec<Selector>,
    /// Newer MetalLB only: summed weights per eligible node; `None` is Go's nil map.
    pub preferred: Option<BTreeMap<String, i64>>,
    /// Names of the pools this advertisement reaches.
    pub pools: Vec<String>,
}

/// A configuration MetalLB rejects as a whole. `message` is MetalLB's own text.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigError {
    pub message: String,
    /// The object MetalLB's message is about, then any other object involved.
    pub objects: Vec<ObjectRef>,
}

/// `rules`: the release whose parser runs (fields it does not have are pruned by its CRDs).
pub fn parse(input: &ConfigInput, rules: Rules) -> Result<Config, ConfigError> {
    let mut pools_sorted = input.pools.clone();
    pools_sorted.sort_by(|a, b| a.name().cmp(b.name()));

    let bgp_err = |e: BgpConfigError| ConfigError { message: e.message, objects: vec![e.object] };
    let peers_read: Vec<BgpPeer> = input.bgp_peers.iter().map(|p| bgp_config::peer_as_read(p, rules)).collect();
    let mut peer_crs: Vec<&BgpPeer> = peers_read.iter().collect();
    peer_crs.sort_by(|a, b| a.name().cmp(b.name()));
    let ads_read: Vec<BgpAdvertisement> =
        input.bgp_advertisements.iter().map(|a| bgp_config::bgp_ad_as_read(a, rules)).collect();
    let mut bgp_sorted: Vec<&BgpAdvertisement> = ads_read.iter().collect();
    bgp_sorted.sort_by(|a, b| a.name().cmp(b.name()));
    let node_labels: Vec<(&str, &Labels)> =
        input.nodes.iter().map(|n| (n.metadata.name.as_deref().unwrap_or(""), node_labels(n))).collect();
    if let Some(bgp_type) = input.bgp_type {
        bgp_config::validate_backend(
            bgp_type,
            &peer_crs,
            &input.bfd_profiles,
            &bgp_sorted,
            &input.communities,
            &pools_sorted,
            &node_labels,
            rules,
        )
        .map_err(bgp_err)?;
    }
    bgp_config::check_bfd_profiles(&input.bfd_profiles).map_err(bgp_err)?;
    let peers = bgp_config::parse_peers(&peer_crs, &input.bfd_profiles, rules).map_err(bgp_err)?;

    validate_communities(&input.communities, rules)?;

    let mut pools: Vec<Pool> = Vec::new();
    let mut all_cidrs: Vec<(IpNet, String)> = Vec::new();
    for cr in &pools_sorted {
        let object = ObjectRef::new("IPAddressPool", cr.namespace(), cr.name());
        let pool = pool_from_cr(cr, input.namespaces, rules).map_err(|e| ConfigError {
            message: format!("parsing address pool {}: {e}", cr.name()),
            objects: vec![object.clone()],
        })?;
        if pools.iter().any(|p| p.name == pool.name) {
            return Err(ConfigError {
                message: format!("duplicate definition of pool {:?}", pool.name),
                objects: vec![object],
            });
        }
        for cidr in &pool.cidrs {
            if let Some((existing, other)) = all_cidrs.iter().find(|(c, _)| overlaps(c, cidr)) {
                return Err(ConfigError {
                    message: format!(
                        "CIDR {:?} in pool {:?} overlaps with already defined CIDR {:?}",
                        cidr.to_string(),
                        pool.name,
                        existing.to_string()
                    ),
                    objects: {
                        let other = ObjectRef::new("IPAddressPool", cr.namespace(), other);
                        if other == object {
                            vec![object]
                        } else {
                            vec![object, other]
                        }
                    },
                });
            }
            if rules.node_ip_overlap_rejected {
                node_ip_inside(cidr, input.nodes).map_err(|(message, node)| ConfigError {
                    message,
                    objects: vec![object.clone(), ObjectRef::cluster("Node", node)],
                })?;
            }
            all_cidrs.push((*cidr, pool.name.clone()));
        }
        pools.push(pool);
    }

    let mut ads_sorted = input.l2_advertisements.clone();
    ads_sorted.sort_by(|a, b| a.name().cmp(b.name()));
    let mut l2_advertisements = Vec::new();
    for cr in &ads_sorted {
        let object = ObjectRef::new("L2Advertisement", cr.namespace(), cr.name());
        let mut ad = l2_ad_from_cr(cr, input.nodes, rules)
            .map_err(|message| ConfigError { message, objects: vec![object.clone()] })?;
        let targets = attached_pools(&cr.spec.ip_address_pools, &cr.spec.ip_address_pool_selectors, &pools_sorted)
            .map_err(|message| ConfigError { message, objects: vec![object] })?;
        ad.pools = targets.iter().cloned().collect();
        let index = l2_advertisements.len();
        for pool in pools.iter_mut().filter(|p| targets.contains(&p.name)) {
            match pool.l2.iter_mut().find(|existing| is_duplicate(&l2_advertisements[existing.ad], &ad, rules.head)) {
                Some(existing) => existing.merged.push(index),
                None => pool.l2.push(PoolAd { ad: index, merged: Vec::new() }),
            }
        }
        l2_advertisements.push(ad);
    }

    let aliases = bgp_config::community_aliases(&input.communities, rules);
    let mut bgp_advertisements: Vec<BgpAd> = Vec::new();
    for cr in &bgp_sorted {
        let object = ObjectRef::new("BGPAdvertisement", cr.namespace(), cr.name());
        let fail = |message: String| ConfigError { message, objects: vec![object.clone()] };
        let mut ad = bgp_config::bgp_ad_from_cr(cr, &aliases, &node_labels, rules).map_err(fail)?;
        // Named pools in the CR's order, then selected ones; a pool both named and selected
        // gets the advertisement twice, as in MetalLB.
        let targets: Vec<String> =
            if cr.spec.ip_address_pools.is_empty() && cr.spec.ip_address_pool_selectors.is_empty() {
                pools.iter().map(|p| p.name.clone()).collect()
            } else {
                let labelled: Vec<(&str, &Labels)> = pools_sorted.iter().map(|p| (p.name(), p.labels())).collect();
                let selected = if cr.spec.ip_address_pool_selectors.is_empty() {
                    BTreeSet::new()
                } else {
                    select_names(&labelled, &cr.spec.ip_address_pool_selectors).map_err(fail)?
                };
                cr.spec.ip_address_pools.iter().cloned().chain(selected).collect()
            };
        let index = bgp_advertisements.len();
        let mut attached = Vec::new();
        for target in &targets {
            let Some(pool) = pools.iter_mut().find(|p| &p.name == target) else { continue };
            // The advertisement itself may already sit on the pool (named and selected).
            let existing: Vec<&BgpAd> =
                pool.bgp.iter().map(|&i| if i == index { &ad } else { &bgp_advertisements[i] }).collect();
            bgp_config::validate_ad_for_pool(
                &ad,
                &pool.addresses,
                &existing,
                PoolFamilies::of(&pool.cidrs),
                rules.local_pref_check,
            )
            .map_err(|message| ConfigError {
                message,
                objects: vec![object.clone(), ObjectRef::new("IPAddressPool", cr.namespace(), target)],
            })?;
            pool.bgp.push(index);
            attached.push(target.clone());
        }
        ad.pools = attached;
        bgp_advertisements.push(ad);
    }
    for pool in &pools {
        let ads: Vec<&BgpAd> = pool.bgp.iter().map(|&i| &bgp_advertisements[i]).collect();
        bgp_config::check_bfd_echo(&pool.name, PoolFamilies::of(&pool.cidrs).v6, &ads, &peers, &input.bfd_profiles)
            .map_err(|message| ConfigError {
                message,
                objects: vec![ObjectRef::unqualified("IPAddressPool", &pool.name)],
            })?;
    }

    Ok(Config { pools, l2_advertisements, bgp_advertisements, peers })
}

/// B-5 (v0.16.0 and later): what the speakers make of a configuration that is rejected as a
/// whole, when each parses only the BGPPeers and BGPAdvertisements that select its own Node.
#[derive(Debug, Clone)]
pub struct PerNode {
    /// The configuration the accepting nodes run: every object, minus the peers and
    /// advertisements that select only rejecting nodes.
    pub config: Config,
    /// The rejecting nodes, grouped by the objects they parse, with their error; sorted names.
    pub rejected: Vec<(Vec<String>, ConfigError)>,
}

/// B-5: `None` when no node accepts its part (or a nodeSelector does not compile, which fails
/// every speaker's reconcile), so the rejection stays whole.
pub fn parse_per_node(input: &ConfigInput, rules: Rules) -> Option<PerNode> {
    let labelled: Vec<(&str, &Labels)> =
        input.nodes.iter().map(|n| (n.metadata.name.as_deref().unwrap_or(""), node_labels(n))).collect();
    let peer_nodes: Vec<BTreeSet<String>> = input
        .bgp_peers
        .iter()
        .map(|p| select_names(&labelled, &p.spec.node_selectors))
        .collect::<Result<_, _>>()
        .ok()?;
    let ad_nodes: Vec<BTreeSet<String>> = input
        .bgp_advertisements
        .iter()
        .map(|a| select_names(&labelled, &a.spec.node_selectors))
        .collect::<Result<_, _>>()
        .ok()?;
    // Nodes that parse the same objects reach the same verdict.
    let mut groups: BTreeMap<(Vec<bool>, Vec<bool>), Vec<String>> = BTreeMap::new();
    for (name, _) in &labelled {
        let key = (
            peer_nodes.iter().map(|s| s.contains(*name)).collect(),
            ad_nodes.iter().map(|s| s.contains(*name)).collect(),
        );
        groups.entry(key).or_default().push(name.to_string());
    }
    let subset = |peers: &[bool], ads: &[bool]| ConfigInput {
        bgp_peers: input.bgp_peers.iter().zip(peers).filter(|(_, on)| **on).map(|(p, _)| *p).collect(),
        bgp_advertisements: input.bgp_advertisements.iter().zip(ads).filter(|(_, on)| **on).map(|(a, _)| *a).collect(),
        pools: input.pools.clone(),
        l2_advertisements: input.l2_advertisements.clone(),
        communities: input.communities.clone(),
        bfd_profiles: input.bfd_profiles.clone(),
        ..*input
    };
    let mut accepted = (vec![false; peer_nodes.len()], vec![false; ad_nodes.len()]);
    let mut rejected = Vec::new();
    let mut any_accepts = false;
    for ((peers, ads), mut nodes) in groups {
        match parse(&subset(&peers, &ads), rules) {
            Ok(_) => {
                any_accepts = true;
                accepted.0.iter_mut().zip(&peers).for_each(|(a, on)| *a |= *on);
                accepted.1.iter_mut().zip(&ads).for_each(|(a, on)| *a |= *on);
            }
            Err(e) => {
                nodes.sort();
                rejected.push((nodes, e));
            }
        }
    }
    if !any_accepts || rejected.is_empty() {
        return None;
    }
    let config = parse(&subset(&accepted.0, &accepted.1), rules).ok()?;
    rejected.sort_by(|a, b| a.0.cmp(&b.0));
    Some(PerNode { config, rejected })
}

/// C-23 (v0.15.0 only): a pool CIDR containing a Node's InternalIP of its family. The text is
/// not wrapped with the pool's name: v0.15.0 returns it from `poolsFor` itself.
fn node_ip_inside(cidr: &IpNet, nodes: &[Node]) -> Result<(), (String, String)> {
    for node in nodes {
        let addresses = node.status.as_ref().and_then(|s| s.addresses.as_ref());
        for a in addresses.into_iter().flatten().filter(|a| a.type_ == "InternalIP") {
            let Some(ip) = crate::k8s::ip::parse_go_ip(&a.address) else { continue };
            if cidr.contains(&crate::k8s::ip::normalize(ip)) {
                return Err((
                    format!("pool cidr {:?} contains nodeIp {:?}", cidr.to_string(), crate::k8s::ip::go_ip_string(ip)),
                    node.metadata.name.clone().unwrap_or_default(),
                ));
            }
        }
    }
    Ok(())
}

fn pool_from_cr(cr: &IpAddressPool, namespaces: &[(String, Labels)], rules: Rules) -> Result<Pool, String> {
    if cr.name().is_empty() {
        return Err("missing pool name".into());
    }
    if cr.spec.addresses.is_empty() {
        return Err("pool has no prefixes defined".into());
    }
    let mut cidrs = Vec::new();
    let mut addresses = Vec::new();
    for entry in &cr.spec.addresses {
        let parsed =
            parse_pool_address(entry).map_err(|e| format!("invalid CIDR {entry:?} in pool {:?}: {e}", cr.name()))?;
        cidrs.extend(parsed.iter().copied());
        addresses.push((entry.clone(), parsed));
    }
    // Fields the release's CRD does not have are pruned by its API server (C-1, C-4).
    let service_allocation = cr.spec.service_allocation.as_ref().filter(|_| rules.service_allocation);
    if let Some(alloc) = service_allocation {
        if rules.service_allocation_duplicates {
            validate_duplicates(&alloc.namespaces, "")
                .map_err(|_| "duplicate definition in namespaces field".to_string())?;
            validate_selector_duplicates(&alloc.namespace_selectors, "namespaceSelectors")?;
            validate_selector_duplicates(&alloc.service_selectors, "serviceSelectors")?;
        }
        // pkg/errors wrapping up to v0.14.5, errors.Join after (C-4).
        let wrap = |e: String, what: &str, sel| {
            let outer = format!("invalid {what} label selector {} in ip pool {}", go_selector_v(sel), cr.name());
            with_context(rules, &e, &outer, &outer)
        };
        for sel in &alloc.namespace_selectors {
            Selector::compile(sel).map_err(|e| wrap(e, "namespace", sel))?;
        }
        for sel in &alloc.service_selectors {
            Selector::compile(sel).map_err(|e| wrap(e, "service", sel))?;
        }
    }
    let alloc = AllocPool {
        name: cr.name().to_string(),
        cidrs: cidrs.clone(),
        auto_assign: cr.spec.auto_assign.unwrap_or(true),
        avoid_buggy_ips: rules.avoid_buggy_ips && cr.spec.avoid_buggy_ips.unwrap_or(false),
        service_allocation: service_allocation
            .map(|sa| resolve_service_allocation(sa, namespaces, rules.priority_only_pools)),
    };
    Ok(Pool {
        name: cr.name().to_string(),
        labels: cr.labels().clone(),
        cidrs,
        l2: Vec::new(),
        bgp: Vec::new(),
        addresses,
        alloc,
    })
}

/// `l2AdvertisementFromCR` (spec §5.2), in MetalLB's order of checks.
pub fn l2_ad_from_cr(cr: &L2Advertisement, nodes: &[Node], rules: Rules) -> Result<L2Ad, String> {
    let spec = &cr.spec;
    // A release's CRD prunes the fields it does not have: serviceSelectors before v0.16.0
    // (L-6), interfaces before v0.13.6 (L-7). Their absence also makes ads fold by node set
    // alone (L-9).
    let no_selectors = Vec::new();
    let service_selectors_cr = if rules.service_selectors { &spec.service_selectors } else { &no_selectors };
    let interfaces = if rules.ad_interfaces { spec.interfaces.clone() } else { Vec::new() };
    validate_duplicates(&spec.ip_address_pools, "ipAddressPools")?;
    validate_selector_duplicates(&spec.ip_address_pool_selectors, "ipAddressPoolSelectors")?;
    validate_selector_duplicates(&spec.node_selectors, "nodeSelectors")?;
    validate_selector_duplicates(service_selectors_cr, "serviceSelectors")?;
    let node_labels: Vec<(&str, &Labels)> =
        nodes.iter().map(|n| (n.metadata.name.as_deref().unwrap_or(""), node_labels(n))).collect();
    let name = cr.name();
    let selected = select_names(&node_labels, &spec.node_selectors).map_err(|e| {
        with_context(
            rules,
            &e,
            &format!("failed to parse node selector for {name}"),
            &format!("Failed to parse node selector for {name}"),
        )
    })?;
    let service_selectors = compile_service_selectors(service_selectors_cr)
        .map_err(|e| format!("{e}\nfailed to parse service selector for {name}"))?;
    let preferred = if rules.head {
        preferred_node_scores(&node_labels, &selected, &spec.preferred_node_selectors)
            .map_err(|e| format!("{e}\nfailed to parse preferred node selectors for {name}"))?
    } else {
        None
    };
    Ok(L2Ad {
        name: name.to_string(),
        nodes: selected,
        has_node_selectors: !spec.node_selectors.is_empty(),
        all_interfaces: interfaces.is_empty(),
        interfaces,
        service_selectors,
        preferred,
        pools: Vec::new(),
    })
}

pub(crate) fn node_labels(n: &Node) -> &Labels {
    static EMPTY: Labels = Labels::new();
    n.metadata.labels.as_ref().unwrap_or(&EMPTY)
}

/// Newer MetalLB: the summed weights of the preferred selectors matching each eligible node (spec §4.4).
pub fn preferred_node_scores(
    nodes: &[(&str, &Labels)],
    eligible: &BTreeSet<String>,
    preferred: &[crate::snapshot::crd::PreferredNodeSelector],
) -> Result<Option<BTreeMap<String, i64>>, String> {
    if preferred.is_empty() {
        return Ok(None);
    }
    let mut compiled = Vec::new();
    for p in preferred {
        let sel = Selector::compile(&p.preference)
            .map_err(|e| format!("{e}\ninvalid preferred node selector {}", go_selector_v(&p.preference)))?;
        compiled.push((sel, i64::from(p.weight)));
    }
    let mut scores = BTreeMap::new();
    for (name, labels) in nodes.iter().filter(|(n, _)| eligible.contains(*n)) {
        let total: i64 = compiled.iter().filter(|(s, _)| s.matches(labels)).map(|(_, w)| w).sum();
        if total > 0 {
            scores.insert(name.to_string(), total);
        }
    }
    Ok(if scores.is_empty() { None } else { Some(scores) })
}

/// The pools an advertisement reaches: every pool when it names none and selects none; otherwise
/// the named pools that exist plus those its selectors match (a selector matching nothing adds nothing).
fn attached_pools(
    names: &[String],
    selectors: &[LabelSelector],
    pools: &[&IpAddressPool],
) -> Result<BTreeSet<String>, String> {
    if names.is_empty() && selectors.is_empty() {
        return Ok(pools.iter().map(|p| p.name().to_string()).collect());
    }
    let mut out = BTreeSet::new();
    if !selectors.is_empty() {
        let labelled: Vec<(&str, &Labels)> = pools.iter().map(|p| (p.name(), p.labels())).collect();
        out.extend(select_names(&labelled, selectors)?);
    }
    out.extend(names.iter().filter(|n| pools.iter().any(|p| p.name() == n.as_str())).cloned());
    Ok(out)
}

/// `containsAdvertisement`: v0.16.1 folds identical ads on a pool; newer MetalLB never folds ads
/// that carry preferences, so their weights add up.
pub fn is_duplicate(existing: &L2Ad, candidate: &L2Ad, head: bool) -> bool {
    if head && (candidate.preferred.is_some() || existing.preferred.is_some()) {
        return false;
    }
    let set = |v: &[String]| v.iter().cloned().collect::<BTreeSet<_>>();
    existing.all_interfaces == candidate.all_interfaces
        && existing.nodes == candidate.nodes
        && set(&existing.interfaces) == set(&candidate.interfaces)
        && existing.service_selectors == candidate.service_selectors
}

/// Community CRs: a duplicate alias or an unparsable value rejects everything.
fn validate_communities(crs: &[&Community], rules: Rules) -> Result<(), ConfigError> {
    let mut seen = BTreeSet::new();
    for cr in crs {
        let object = ObjectRef::new("Community", cr.namespace(), cr.name());
        for alias in &cr.spec.communities {
            if !seen.insert(alias.name.clone()) {
                return Err(ConfigError {
                    message: format!("duplicate definition of community {:?}", alias.name),
                    objects: vec![object],
                });
            }
            // B-4: before v0.13.10 only `A:B` parses.
            let parsed = if rules.large_communities {
                parse_community(&alias.value)
            } else {
                crate::metallb::bgp::community::Community::parse_legacy(&alias.value)
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            };
            if let Err(e) = parsed {
                return Err(ConfigError {
                    message: format!("parsing community {:?}: {e}", alias.name),
                    objects: vec![object],
                });
            }
        }
    }
    Ok(())
}

fn parse_community(value: &str) -> Result<(), String> {
    let parts: Vec<&str> = value.split(':').collect();
    let ok = match parts.as_slice() {
        [a, b] => a.parse::<u16>().is_ok() && b.parse::<u16>().is_ok(),
        ["large", g, l1, l2] => [g, l1, l2].iter().all(|p| p.parse::<u32>().is_ok()),
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(format!("invalid community value {value:?}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metallb::release::Release;
    use serde_json::json;

    fn pool(name: &str, addresses: &[&str]) -> IpAddressPool {
        serde_json::from_value(json!({
            "apiVersion": "metallb.io/v1beta1", "kind": "IPAddressPool",
            "metadata": {"name": name, "namespace": "metallb-system", "labels": {"tier": name}},
            "spec": {"addresses": addresses}
        }))
        .unwrap()
    }

    fn ad(name: &str, spec: serde_json::Value) -> L2Advertisement {
        serde_json::from_value(json!({
            "apiVersion": "metallb.io/v1beta1", "kind": "L2Advertisement",
            "metadata": {"name": name, "namespace": "metallb-system"}, "spec": spec
        }))
        .unwrap()
    }

    fn node(name: &str, labels: serde_json::Value) -> Node {
        serde_json::from_value(json!({"metadata": {"name": name, "labels": labels}})).unwrap()
    }

    fn parse_with(
        pools: &[IpAddressPool],
        ads: &[L2Advertisement],
        nodes: &[Node],
        head: bool,
    ) -> Result<Config, ConfigError> {
        let rules = if head { Release::Main.rules() } else { Rules::default() };
        let input = ConfigInput {
            pools: pools.iter().collect(),
            l2_advertisements: ads.iter().collect(),
            bgp_advertisements: vec![],
            communities: vec![],
            bgp_peers: vec![],
            bfd_profiles: vec![],
            bgp_type: None,
            nodes,
            namespaces: &[],
        };
        parse(&input, rules)
    }

    #[test]
    fn overlapping_pools_reject_everything_with_metallbs_text() {
        let err = parse_with(&[pool("a", &["192.0.2.0/28"]), pool("b", &["192.0.2.8-192.0.2.20"])], &[], &[], false)
            .unwrap_err();
        assert_eq!(err.message, r#"CIDR "192.0.2.8/29" in pool "b" overlaps with already defined CIDR "192.0.2.0/28""#);
        assert_eq!(
            err.objects,
            [
                ObjectRef::new("IPAddressPool", "metallb-system", "b"),
                ObjectRef::new("IPAddressPool", "metallb-system", "a")
            ]
        );
    }

    #[test]
    fn invalid_cidr_is_wrapped_per_pool() {
        let err = parse_with(&[pool("a", &[" 192.0.2.0/24"])], &[], &[], false).unwrap_err();
        assert_eq!(
            err.message,
            r#"parsing address pool a: invalid CIDR " 192.0.2.0/24" in pool "a": invalid CIDR " 192.0.2.0/24""#
        );
        let err = parse_with(&[pool("a", &[])], &[], &[], false).unwrap_err();
        assert_eq!(err.message, "parsing address pool a: pool has no prefixes defined");
    }

    #[test]
    fn duplicate_node_selectors_are_rejected() {
        let sel = json!({"matchLabels": {"role": "worker"}});
        let err =
            parse_with(&[pool("a", &["192.0.2.0/24"])], &[ad("l2", json!({"nodeSelectors": [sel, sel]}))], &[], false)
                .unwrap_err();
        assert_eq!(err.message, r#"duplicate definition of nodeSelectors "{map[\"role\":\"worker\"] []}""#);
    }

    #[test]
    fn bad_operator_names_the_advertisement() {
        let sel = json!({"matchExpressions": [{"key": "role", "operator": "Equals", "values": ["x"]}]});
        let err = parse_with(&[pool("a", &["192.0.2.0/24"])], &[ad("l2", json!({"nodeSelectors": [sel]}))], &[], false)
            .unwrap_err();
        assert!(err.message.ends_with("failed to parse node selector for l2"), "{}", err.message);
        assert!(err.message.starts_with(r#""Equals" is not a valid label selector operator"#), "{}", err.message);
    }

    #[test]
    fn empty_node_selectors_select_every_node_and_selectors_select_some() {
        let nodes = [node("cp-1", json!({"role": "cp"})), node("w-1", json!({"role": "worker"}))];
        let cfg = parse_with(
            &[pool("a", &["192.0.2.0/24"])],
            &[ad("all", json!({})), ad("workers", json!({"nodeSelectors": [{"matchLabels": {"role": "worker"}}]}))],
            &nodes,
            false,
        )
        .unwrap();
        let by_name = |n: &str| cfg.l2_advertisements.iter().find(|a| a.name == n).unwrap();
        assert_eq!(by_name("all").nodes, BTreeSet::from(["cp-1".to_string(), "w-1".to_string()]));
        assert_eq!(by_name("workers").nodes, BTreeSet::from(["w-1".to_string()]));
    }

    #[test]
    fn pool_selector_matching_nothing_attaches_to_no_pool() {
        let cfg = parse_with(
            &[pool("a", &["192.0.2.0/24"])],
            &[ad("l2", json!({"ipAddressPoolSelectors": [{"matchLabels": {"tier": "gold"}}]}))],
            &[],
            false,
        )
        .unwrap();
        assert!(cfg.pools[0].l2.is_empty());
        assert!(cfg.l2_advertisements[0].pools.is_empty());
    }

    #[test]
    fn no_pool_fields_means_every_pool_and_unknown_names_are_ignored() {
        let cfg = parse_with(
            &[pool("a", &["192.0.2.0/25"]), pool("b", &["192.0.2.128/25"])],
            &[ad("all", json!({})), ad("named", json!({"ipAddressPools": ["b", "nope"]}))],
            &[],
            false,
        )
        .unwrap();
        assert_eq!(cfg.l2_advertisements[0].pools, vec!["a", "b"]);
        assert_eq!(cfg.l2_advertisements[1].pools, vec!["b"]);
    }

    #[test]
    fn identical_advertisements_fold_in_v0_16_1_but_preferences_stack_in_newer() {
        let nodes = [node("edge-a", json!({"role": "edge"}))];
        let spec = json!({"preferredNodeSelectors": [{"weight": 50, "preference": {"matchLabels": {"role": "edge"}}}]});
        let ads = [ad("one", json!({})), ad("two", json!({}))];
        let cfg = parse_with(&[pool("a", &["192.0.2.0/24"])], &ads, &nodes, false).unwrap();
        assert_eq!(cfg.pools[0].l2.len(), 1);
        assert_eq!(cfg.pools[0].l2[0].merged, vec![1]);
        let pref = [ad("one", spec.clone()), ad("two", spec)];
        let cfg = parse_with(&[pool("a", &["192.0.2.0/24"])], &pref, &nodes, true).unwrap();
        assert_eq!(cfg.pools[0].l2.len(), 2);
        let cfg = parse_with(&[pool("a", &["192.0.2.0/24"])], &pref, &nodes, false).unwrap();
        assert_eq!(cfg.pools[0].l2.len(), 1, "v0.16.1 has no preferences, so the two ads are identical");
    }
}
