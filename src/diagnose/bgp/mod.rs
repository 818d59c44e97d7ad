//! MetalLB's BGP handler run for every node with a speaker (spec §9): who advertises each
//! Service, to which sessions, with which attributes, and why the other nodes do not.

mod findings;

pub(crate) use findings::{cluster_findings, service_findings};

use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;

use fixedbitset::FixedBitSet;

use super::world::World;
use super::Evaluation;
use crate::k8s::selector::Labels;
use crate::metallb::bgp::config::{compatible_local_pref, BgpAd, PoolFamilies};
use crate::metallb::bgp::speaker::{ads_for_service, routes, BgpReason, Bulk, PoolAds, ServiceFacts};
use crate::metallb::config::{Config, Pool};
use crate::metallb::l2::{NodeId, NodeTable, ServiceInput};
use crate::report::{Bgp, BgpActual, BgpNode, BgpRoute, BgpSession, NodeGroup};
use crate::snapshot::Snapshot;

/// Node sets of every advertisement and peer, and LOCAL_PREF compatibility per pool, resolved once.
pub(crate) struct BgpIndex {
    pub ad_sets: Vec<FixedBitSet>,
    /// Nodes on which each peer's session runs (its nodeSelectors match the Node's labels).
    pub peer_sets: Vec<FixedBitSet>,
    /// Per pool: `compat[i * k + j]` for its advertisements at positions i and j.
    compat: Vec<Vec<bool>>,
    /// Per node: the peers it runs a session with (the transpose of `peer_sets`).
    node_peers: Vec<FixedBitSet>,
    /// Per advertisement: the peers its routes are meant for (`spec.peers`, empty = all).
    ad_reach: Vec<FixedBitSet>,
}

impl BgpIndex {
    pub fn build(config: &Config, snap: &Snapshot, table: &NodeTable) -> BgpIndex {
        let ad_sets = config.bgp_advertisements.iter().map(|a| table.set_of(&a.nodes)).collect();
        static EMPTY: Labels = Labels::new();
        let mut labels: Vec<&Labels> = vec![&EMPTY; table.len()];
        for n in &snap.nodes {
            if let Some(id) = n.metadata.name.as_deref().and_then(|name| table.id(name)) {
                labels[id] = n.metadata.labels.as_ref().unwrap_or(&EMPTY);
            }
        }
        let peer_sets: Vec<FixedBitSet> = config
            .peers
            .iter()
            .map(|p| {
                let mut set = FixedBitSet::with_capacity(table.len());
                for (id, l) in labels.iter().enumerate() {
                    set.set(id, p.runs_on(l));
                }
                set
            })
            .collect();
        let compat = config
            .pools
            .iter()
            .map(|pool| {
                let ads = pool_ads(config, pool);
                let families = PoolFamilies::of(&pool.cidrs);
                let k = ads.len();
                (0..k * k).map(|x| compatible_local_pref(ads[x / k], ads[x % k], families)).collect()
            })
            .collect();
        let mut node_peers = vec![FixedBitSet::with_capacity(config.peers.len()); table.len()];
        for (p, set) in peer_sets.iter().enumerate() {
            for n in set.ones() {
                node_peers[n].insert(p);
            }
        }
        let ad_reach = config
            .bgp_advertisements
            .iter()
            .map(|ad| {
                let mut set = FixedBitSet::with_capacity(config.peers.len());
                for (p, peer) in config.peers.iter().enumerate() {
                    set.set(p, ad.reaches_peer(&peer.name));
                }
                set
            })
            .collect();
        BgpIndex { ad_sets, peer_sets, compat, node_peers, ad_reach }
    }
}

fn pool_ads<'c>(config: &'c Config, pool: &Pool) -> Vec<&'c BgpAd> {
    pool.bgp.iter().map(|&i| &config.bgp_advertisements[i]).collect()
}

/// One Service through every node's BGP handler.
pub(crate) struct BgpOutcome {
    pub ips: Vec<IpAddr>,
    /// Per position in the pool's advertisement list: does it select the Service?
    pub matches_service: Vec<bool>,
    /// Per node: the reason, `None` where no speaker runs.
    pub reasons: Vec<Option<BgpReason>>,
    /// Per node: the first incompatible pair (pool positions) behind `conflictingAdvertisements`.
    pub conflicts: BTreeMap<NodeId, (usize, usize)>,
    /// Nodes with a healthy endpoint (an address, and able to serve).
    pub healthy: FixedBitSet,
    /// Per peer: the announcing nodes whose session with it receives a route for the Service.
    pub reach: Vec<FixedBitSet>,
}

impl BgpOutcome {
    pub fn announcing(&self) -> impl Iterator<Item = NodeId> + '_ {
        (0..self.reasons.len()).filter(|&n| self.reasons[n] == Some(BgpReason::Announce))
    }

    /// Announcing nodes that hand a route to at least one peer.
    pub fn delivering(&self) -> FixedBitSet {
        let mut all = FixedBitSet::with_capacity(self.reasons.len());
        for set in &self.reach {
            all.union_with(set);
        }
        all
    }

    /// Peers (indices) that receive a route from some node.
    pub fn peers_reached(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.reach.len()).filter(|&p| !self.reach[p].is_clear())
    }
}

pub(crate) fn evaluate(
    world: &World,
    index: &BgpIndex,
    config: &Config,
    pool_idx: usize,
    ips: &[IpAddr],
    svc: &ServiceInput,
) -> BgpOutcome {
    let (svc_labels, etp_local, endpoints) = (svc.labels, svc.etp_local, svc.endpoints);
    let pool = &config.pools[pool_idx];
    let ads = pool_ads(config, pool);
    let matches_service: Vec<bool> = ads.iter().map(|a| a.matches_service(svc_labels)).collect();
    let mut healthy = FixedBitSet::with_capacity(world.table.len());
    let mut healthy_anywhere = false;
    for ep in endpoints {
        healthy_anywhere |= ep.bgp_healthy_anywhere;
        if let Some(n) = ep.node.filter(|_| ep.bgp_healthy_on_node) {
            healthy.insert(n);
        }
    }
    let k = ads.len();
    let compat = &index.compat[pool_idx];
    let ad_nodes: Vec<&FixedBitSet> = pool.bgp.iter().map(|&i| &index.ad_sets[i]).collect();
    let decision = Bulk {
        ad_nodes: &ad_nodes,
        matches_service: &matches_service,
        compatible: |i: usize, j: usize| compat[i * k + j],
        speakers: &world.bgp_acting,
        unschedulable: &world.table.unschedulable,
        network_unavailable: &world.table.network_unavailable,
        excluded: &world.table.excluded,
        healthy: &healthy,
        svc: ServiceFacts { etp_local, healthy_anywhere },
        ignore_exclude_lb: world.setup.ignore_exclude_lb,
        rules: world.setup.rules(),
    }
    .decide(world.table.len());
    // Who hands a route to which peer: an announcing node, in a session with a peer, held by a
    // matching advertisement meant for that peer.
    let reach = index
        .peer_sets
        .iter()
        .enumerate()
        .map(|(p, on_peer)| {
            let mut reach = FixedBitSet::with_capacity(world.table.len());
            if !ips.is_empty() {
                for (i, &ad) in pool.bgp.iter().enumerate() {
                    if matches_service[i] && index.ad_reach[ad].contains(p) {
                        reach.union_with(&index.ad_sets[ad]);
                    }
                }
                reach.intersect_with(on_peer);
                reach.intersect_with(&decision.announce);
            }
            reach
        })
        .collect();
    BgpOutcome {
        ips: ips.to_vec(),
        matches_service,
        reasons: decision.reasons,
        conflicts: decision.conflicts,
        healthy,
        reach,
    }
}

/// The advertisements (config indices) node `n` builds routes from.
fn chosen_ads(index: &BgpIndex, pool: &Pool, o: &BgpOutcome, n: NodeId) -> Vec<usize> {
    let view = PoolAds {
        holds_node: |i: usize| index.ad_sets[pool.bgp[i]].contains(n),
        matches_service: &o.matches_service,
        compatible: |_: usize, _: usize| true,
    };
    ads_for_service(&view).into_iter().map(|i| pool.bgp[i]).collect()
}

/// The sessions node `n` runs and, when it announces, the routes each receives for this Service.
pub(crate) fn sessions(index: &BgpIndex, config: &Config, pool: &Pool, o: &BgpOutcome, n: NodeId) -> Vec<BgpSession> {
    let announces = o.reasons[n] == Some(BgpReason::Announce);
    let chosen: Vec<&BgpAd> = if announces {
        chosen_ads(index, pool, o, n).into_iter().map(|i| &config.bgp_advertisements[i]).collect()
    } else {
        Vec::new()
    };
    let all_routes = routes(&o.ips, &chosen);
    config
        .peers
        .iter()
        .enumerate()
        .filter(|(p, _)| index.peer_sets[*p].contains(n))
        .map(|(_, peer)| {
            let set: BTreeSet<BgpRoute> = all_routes
                .iter()
                .filter(|r| r.peers.is_empty() || r.peers.contains(&peer.name))
                .map(|r| BgpRoute {
                    prefix: r.prefix.to_string(),
                    local_pref: (r.local_pref != 0).then_some(r.local_pref),
                    communities: r.communities.iter().map(|c| c.to_string()).collect(),
                })
                .collect();
            BgpSession {
                peer: peer.name.clone(),
                address: peer.endpoint(),
                asn: (peer.dynamic_asn.is_empty()).then_some(peer.asn),
                dynamic_asn: (!peer.dynamic_asn.is_empty()).then(|| peer.dynamic_asn.clone()),
                my_asn: peer.my_asn,
                vrf: peer.vrf.clone(),
                ibgp: peer.is_ibgp(),
                routes: set.into_iter().collect(),
            }
        })
        .collect()
}

/// Per announcing node, the peers that receive a route: what ServiceBGPStatus should show.
pub(crate) fn expected_peers(world: &World, config: &Config, o: &BgpOutcome) -> Vec<BgpActual> {
    o.delivering()
        .ones()
        .map(|n| {
            let mut peers: Vec<String> =
                o.peers_reached().filter(|&p| o.reach[p].contains(n)).map(|p| config.peers[p].name.clone()).collect();
            peers.sort();
            peers.dedup();
            BgpActual { node: world.table.name(n).to_string(), peers }
        })
        .collect()
}

/// `whole_list`: every announcing node is named even without `detail`.
pub(crate) fn report(world: &World, e: &Evaluation, o: &BgpOutcome, detail: bool, whole_list: bool) -> Option<Bgp> {
    let config = world.config.as_ref().ok()?;
    let index = world.bgp.as_ref()?;
    let pool = &config.pools[e.pool?];
    let ads = pool_ads(config, pool);
    let advertisements: BTreeSet<String> =
        ads.iter().zip(&o.matches_service).filter(|(_, m)| **m).map(|(a, _)| a.name.clone()).collect();
    let announcing_count = o.announcing().count();
    let announcing = if detail || whole_list || announcing_count <= NodeGroup::SHOWN {
        world.node_list(o.announcing())
    } else {
        world.node_list(o.announcing().take(NodeGroup::SHOWN))
    };
    let peers: BTreeSet<String> = o.peers_reached().map(|p| config.peers[p].name.clone()).collect();
    let actual = world.bgp_actual.for_service(e.namespace, e.name);
    let nodes = detail.then(|| {
        (0..world.table.len())
            .filter(|&n| o.reasons[n].is_some() || world.table.has_object.contains(n))
            .map(|n| BgpNode {
                node: world.node_names[n].clone(),
                speaker: world.speaker_live(n),
                announces: o.reasons[n] == Some(BgpReason::Announce),
                reason: o.reasons[n],
                conflicting: o.conflicts.get(&n).map(|&(i, j)| [ads[i].name.clone(), ads[j].name.clone()]),
                sessions: if o.reasons[n].is_some() { sessions(index, config, pool, o, n) } else { Vec::new() },
            })
            .collect()
    });
    Some(Bgp {
        advertisements: advertisements.into_iter().collect(),
        verdict: {
            let names = |set: &mut dyn Iterator<Item = NodeId>| set.map(|n| world.table.name(n).to_string()).collect();
            let announcing: Vec<String> = names(&mut o.announcing());
            let delivering: Vec<String> = names(&mut o.delivering().ones());
            verdict(world, o, &announcing, &delivering, &peers)
        },
        announcing,
        announcing_count,
        peers: peers.into_iter().collect(),
        actual_agrees: actual.as_ref().map(|actual| *actual == expected_peers(world, config, o)),
        actual,
        nodes,
    })
}

/// "reason on nodes; reason on nodes" over the nodes with a speaker, most common first.
fn reason_summary(world: &World, o: &BgpOutcome) -> String {
    let mut by_reason: BTreeMap<BgpReason, Vec<NodeId>> = BTreeMap::new();
    for (n, r) in o.reasons.iter().enumerate() {
        if let Some(r) = r.filter(|r| *r != BgpReason::Announce) {
            by_reason.entry(r).or_default().push(n);
        }
    }
    let total: usize = by_reason.values().map(Vec::len).sum();
    let mut groups: Vec<(BgpReason, Vec<NodeId>)> = by_reason.into_iter().collect();
    groups.sort_by_key(|(r, nodes)| (std::cmp::Reverse(nodes.len()), *r));
    groups
        .iter()
        .map(|(r, nodes)| {
            if nodes.len() == total && total > 1 {
                format!("{} on every node", r.as_str())
            } else {
                format!("{} on {}", r.as_str(), super::checks::names(world, nodes.iter().copied(), 4))
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn verdict(
    world: &World,
    o: &BgpOutcome,
    announcing: &[String],
    delivering: &[String],
    peers: &BTreeSet<String>,
) -> String {
    let ips: Vec<String> = o.ips.iter().map(|ip| crate::k8s::ip::go_ip_string(*ip)).collect();
    let ips = ips.join(", ");
    let list = |v: &[String]| {
        if v.len() > 4 {
            format!("{} and {} more", v[..4].join(", "), v.len() - 4)
        } else {
            v.join(", ")
        }
    };
    if announcing.is_empty() {
        return format!("no node advertises {ips} over BGP: {}", reason_summary(world, o));
    }
    if peers.is_empty() {
        return format!(
            "{} would advertise {ips} over BGP, but no BGP session receives a route: no BGPPeer runs a session there, or the matching advertisements' spec.peers name only other peers",
            list(announcing)
        );
    }
    let peers: Vec<String> = peers.iter().cloned().collect();
    let verb = if delivering.len() == 1 { "advertises" } else { "advertise" };
    let mut text = format!("{} {verb} {ips} over BGP to {}", list(delivering), list(&peers));
    let idle: Vec<String> = announcing.iter().filter(|n| !delivering.contains(n)).cloned().collect();
    if !idle.is_empty() {
        text.push_str(&format!("; {} would too, but no session there receives a route", list(&idle)));
    }
    text
}
