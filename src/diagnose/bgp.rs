//! MetalLB's BGP handler run for every node with a speaker (spec §9): who advertises each
//! Service, to which sessions, with which attributes, and why the other nodes do not.

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
use crate::report::{Bgp, BgpActual, BgpNode, BgpRoute, BgpSession, Code, Finding, ObjectRef};
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
    for ep in endpoints.iter().filter(|ep| ep.has_addresses && ep.can_serve) {
        healthy_anywhere = true;
        if let Some(n) = ep.node {
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
        speakers: &world.acting,
        network_unavailable: &world.table.network_unavailable,
        excluded: &world.table.excluded,
        healthy: &healthy,
        svc: ServiceFacts { etp_local, healthy_anywhere },
        ignore_exclude_lb: world.setup.ignore_exclude_lb,
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

pub(crate) fn report(world: &World, e: &Evaluation, o: &BgpOutcome, detail: bool) -> Option<Bgp> {
    let config = world.config.as_ref().ok()?;
    let index = world.bgp.as_ref()?;
    let pool = &config.pools[e.pool?];
    let ads = pool_ads(config, pool);
    let advertisements: BTreeSet<String> =
        ads.iter().zip(&o.matches_service).filter(|(_, m)| **m).map(|(a, _)| a.name.clone()).collect();
    let announcing = world.node_list(o.announcing());
    let peers: BTreeSet<String> = o.peers_reached().map(|p| config.peers[p].name.clone()).collect();
    let nodes = if detail {
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
    } else {
        Vec::new()
    };
    Some(Bgp {
        advertisements: advertisements.into_iter().collect(),
        verdict: if detail {
            let names = |set: &mut dyn Iterator<Item = NodeId>| set.map(|n| world.table.name(n).to_string()).collect();
            let announcing: Vec<String> = names(&mut o.announcing());
            let delivering: Vec<String> = names(&mut o.delivering().ones());
            verdict(world, o, &announcing, &delivering, &peers)
        } else {
            String::new()
        },
        announcing,
        peers: peers.into_iter().collect(),
        actual: world.bgp_actual.for_service(&e.namespace, &e.name),
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

pub(crate) fn service_findings(world: &World, e: &Evaluation, o: &BgpOutcome) -> Vec<Finding> {
    let mut out = Vec::new();
    let (Ok(config), Some(index), Some(pool_idx)) = (world.config.as_ref(), world.bgp.as_ref(), e.pool) else {
        return out;
    };
    let pool = &config.pools[pool_idx];
    let ns = &world.setup.namespace;
    let svc_obj = ObjectRef::new("Service", &e.namespace, &e.name);
    let ips: Vec<String> = o.ips.iter().map(|ip| crate::k8s::ip::go_ip_string(*ip)).collect();
    let ads = pool_ads(config, pool);
    let ad_objs: Vec<ObjectRef> = ads
        .iter()
        .map(|a| ObjectRef::new("BGPAdvertisement", ns, &a.name))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    if o.delivering().is_clear() {
        let announcing: Vec<NodeId> = o.announcing().collect();
        let (message, hint) = if announcing.is_empty() {
            // notOwner is normal for nodes an advertisement leaves out: the hint follows
            // the most common other reason, if any.
            let count = |r: BgpReason| o.reasons.iter().filter(|x| **x == Some(r)).count();
            let top = o
                .reasons
                .iter()
                .flatten()
                .copied()
                .filter(|r| *r != BgpReason::NotOwner)
                .max_by_key(|r| (count(*r), std::cmp::Reverse(*r)))
                .or(o.reasons.iter().flatten().copied().next());
            let hint = match top {
                Some(BgpReason::NoEndpoints) => "MetalLB's BGP handler needs a ready (or serving) endpoint with an address; check the Service's selector and its Pods".to_string(),
                Some(BgpReason::NoLocalEndpoints) => "with externalTrafficPolicy Local only nodes hosting a ready endpoint advertise; run Pods on nodes that peer, or use Cluster".to_string(),
                Some(BgpReason::NotOwner) => "no BGPAdvertisement of the pool selects these nodes: fix the advertisement's nodeSelectors".to_string(),
                Some(BgpReason::NoMatchingAdvertisement) => "the advertisements' serviceSelectors do not match the Service's labels".to_string(),
                Some(BgpReason::ConflictingAdvertisements) => format!("two matching advertisements set different localPref for the same prefixes and peers: align them ({})", Code::LBD212),
                Some(BgpReason::NodeLabeledExcludeBalancers) => format!("remove the {} label (its key alone excludes), or run the speaker with --ignore-exclude-lb", crate::k8s::EXCLUDE_LB_LABEL),
                Some(BgpReason::NodeNetworkUnavailable) => "the nodes report NetworkUnavailable=True; fix the CNI on them".to_string(),
                _ => "check the nodes' speakers".to_string(),
            };
            (format!("no node advertises {} over BGP: {}", ips.join(", "), reason_summary(world, o)), hint)
        } else {
            (
                format!(
                    "{} {} {} over BGP, but no BGP session receives a route: no BGPPeer runs a session there, or the matching advertisements' spec.peers name only other peers",
                    super::checks::names(world, announcing.iter().copied(), 4),
                    if announcing.len() == 1 { "advertises" } else { "advertise" },
                    ips.join(", ")
                ),
                "give a BGPPeer nodeSelectors that include these nodes, or fix spec.peers of the BGPAdvertisement".to_string(),
            )
        };
        let mut objects = vec![svc_obj.clone()];
        objects.extend(ad_objs.iter().cloned());
        out.push(Finding::new(Code::LBD130, message, hint, objects));
    }

    // eTP Local: endpoints on nodes that advertise to nobody lose their share of the traffic.
    let etp_local = e.svc.spec.as_ref().and_then(|s| s.external_traffic_policy.as_deref()) == Some("Local");
    if etp_local {
        let lonely: Vec<NodeId> = o
            .healthy
            .ones()
            .filter(|&n| o.reasons[n].is_some())
            .filter(|&n| !index.peer_sets.iter().any(|s| s.contains(n)))
            .collect();
        if !lonely.is_empty() {
            out.push(Finding::new(
                Code::LBD131,
                format!(
                    "externalTrafficPolicy Local: the endpoints on {} are never advertised over BGP, because no BGPPeer runs a session there",
                    super::checks::names(world, lonely.iter().copied(), 4)
                ),
                "add those nodes to a BGPPeer's nodeSelectors, keep the Pods on peering nodes, or use externalTrafficPolicy Cluster",
                std::iter::once(svc_obj.clone())
                    .chain(lonely.iter().map(|&n| ObjectRef::cluster("Node", world.table.name(n))))
                    .collect(),
            ));
        }
    }

    if let Some(actual) = world.bgp_actual.for_service(&e.namespace, &e.name) {
        let expected = expected_peers(world, config, o);
        if actual != expected {
            let show = |v: &[BgpActual]| {
                if v.is_empty() {
                    "nothing".to_string()
                } else {
                    v.iter().map(|a| format!("{} → {}", a.node, a.peers.join(","))).collect::<Vec<_>>().join("; ")
                }
            };
            out.push(Finding::new(
                Code::LBD132,
                format!(
                    "ServiceBGPStatus shows {}, but MetalLB's rules give {}",
                    show(&actual),
                    show(&expected)
                ),
                format!("a speaker may run an older configuration (rejected update, {}), miss a Node label change, or be restarting; check the speaker logs on the nodes that differ", Code::LBD201),
                vec![svc_obj],
            ));
        }
    }
    out
}

/// Cluster-level BGP findings: advertisements nobody can carry, peers that do not exist,
/// LOCAL_PREF conflicts, pools announced both ways, peers without speakers, frr-k8s drift.
pub(crate) fn cluster_findings(world: &World, evals: &[Evaluation]) -> Vec<Finding> {
    let mut out = Vec::new();
    let (Ok(config), Some(index)) = (world.config.as_ref(), world.bgp.as_ref()) else {
        return out;
    };
    let ns = &world.setup.namespace;
    let ad_obj = |a: &BgpAd| ObjectRef::new("BGPAdvertisement", ns, &a.name);
    let peer_obj = |name: &str| ObjectRef::new("BGPPeer", ns, name);

    for (i, ad) in config.bgp_advertisements.iter().enumerate() {
        let missing: Vec<&String> = ad.peers.iter().filter(|p| !config.peers.iter().any(|x| &x.name == *p)).collect();
        if !missing.is_empty() {
            out.push(Finding::new(
                Code::LBD211,
                format!(
                    "BGPAdvertisement {} names BGPPeer {} which does not exist: its routes go to no session for that name, silently",
                    ad.name,
                    missing.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
                ),
                format!("fix spec.peers (peers are matched by metadata.name in {ns})"),
                vec![ad_obj(ad)],
            ));
        }
        if ad.pools.is_empty() {
            continue;
        }
        let mut reach = FixedBitSet::with_capacity(world.table.len());
        for (p, peer) in config.peers.iter().enumerate() {
            if ad.reaches_peer(&peer.name) {
                reach.union_with(&index.peer_sets[p]);
            }
        }
        reach.intersect_with(&index.ad_sets[i]);
        if reach.is_clear() {
            let peers_named = if ad.peers.is_empty() { "any BGPPeer".to_string() } else { ad.peers.join(", ") };
            out.push(Finding::new(
                Code::LBD210,
                format!(
                    "nobody advertises through BGPAdvertisement {}: none of the nodes it selects runs a session with {peers_named}",
                    ad.name
                ),
                "make the advertisement's nodeSelectors and the BGPPeer's nodeSelectors share nodes",
                std::iter::once(ad_obj(ad))
                    .chain(config.peers.iter().filter(|p| ad.reaches_peer(&p.name)).map(|p| peer_obj(&p.name)))
                    .collect(),
            ));
        }
    }

    for (pool_idx, pool) in config.pools.iter().enumerate() {
        let ads = pool_ads(config, pool);
        let k = ads.len();
        let compat = &index.compat[pool_idx];
        let mut reported = BTreeSet::new();
        for i in 0..k {
            for j in i + 1..k {
                if compat[i * k + j] || pool.bgp[i] == pool.bgp[j] || !reported.insert((pool.bgp[i], pool.bgp[j])) {
                    continue;
                }
                out.push(Finding::new(
                    Code::LBD212,
                    format!(
                        "BGPAdvertisements {} (localPref {}) and {} (localPref {}) of pool {} overlap in nodes, peers and aggregation: a Service both select is withdrawn on the shared nodes (conflictingAdvertisements)",
                        ads[i].name, ads[i].local_pref, ads[j].name, ads[j].local_pref, pool.name
                    ),
                    "give both the same localPref, or make their serviceSelectors, peers or nodeSelectors disjoint",
                    vec![ad_obj(ads[i]), ad_obj(ads[j]), ObjectRef::new("IPAddressPool", ns, &pool.name)],
                ));
            }
        }
        if !pool.l2.is_empty() && !pool.bgp.is_empty() {
            let l2: BTreeSet<&str> =
                pool.l2.iter().flat_map(|pa| pa.all()).map(|a| config.l2_advertisements[a].name.as_str()).collect();
            out.push(Finding::new(
                Code::LBD213,
                format!(
                    "pool {} is announced both ways at once: layer 2 from one elected node ({}) and BGP from every eligible node ({})",
                    pool.name,
                    l2.into_iter().collect::<Vec<_>>().join(", "),
                    config.bgp_names(pool).join(", ")
                ),
                "intended only when routers and hosts on the segment should both reach the IPs; otherwise narrow the advertisements' ipAddressPools",
                vec![ObjectRef::new("IPAddressPool", ns, &pool.name)],
            ));
        }
    }

    if world.live_speakers.is_some() {
        for (p, peer) in config.peers.iter().enumerate() {
            let dark: Vec<NodeId> = index.peer_sets[p]
                .ones()
                .filter(|&n| world.table.has_object.contains(n) && !world.speaker_acts(n))
                .collect();
            if !dark.is_empty() {
                out.push(Finding::new(
                    Code::LBD214,
                    format!(
                        "BGPPeer {} selects {}, which {} no live speaker: the router expects sessions there that never come up",
                        peer.name,
                        super::checks::names(world, dark.iter().copied(), 4),
                        if dark.len() == 1 { "runs" } else { "run" }
                    ),
                    "check the speaker DaemonSet's placement (nodeSelector, tolerations) or narrow the peer's nodeSelectors",
                    vec![peer_obj(&peer.name)],
                ));
            }
        }
    }

    if world.setup.bgp_type == crate::snapshot::BgpType::FrrK8s {
        out.extend(frr_drift(world, index, config, evals));
    }
    out
}

/// LBD215: each node's FRRConfiguration against the one MetalLB's speaker would write.
fn frr_drift(world: &World, index: &BgpIndex, config: &Config, evals: &[Evaluation]) -> Vec<Finding> {
    use crate::metallb::bgp::frrk8s::{self, FrrDiff, NodeFrr};
    let objects = &world.snap.metallb.frr_configurations;
    if objects.is_empty() {
        return Vec::new();
    }
    let mut expected: Vec<NodeFrr> = vec![NodeFrr::new(); world.table.len()];
    for n in (0..world.table.len()).filter(|&n| world.speaker_acts(n)) {
        for p in index.node_peers[n].ones() {
            expected[n].entry(frrk8s::neighbor_key(&config.peers[p])).or_default();
        }
    }
    // (peer, prefix) → the nodes whose session with that peer is allowed the prefix. Nodes of one
    // Service that choose the same advertisements share their routes, so routes are built per group.
    let mut allowed: BTreeMap<(usize, ipnet::IpNet), FixedBitSet> = BTreeMap::new();
    for e in evals {
        let (Some(o), Some(pool_idx)) = (&e.bgp, e.pool) else { continue };
        let pool = &config.pools[pool_idx];
        let mut groups: BTreeMap<Vec<usize>, FixedBitSet> = BTreeMap::new();
        for n in o.announcing() {
            let chosen = chosen_ads(index, pool, o, n);
            groups.entry(chosen).or_insert_with(|| FixedBitSet::with_capacity(world.table.len())).insert(n);
        }
        for (chosen, nodes) in groups {
            let ads: Vec<&BgpAd> = chosen.iter().map(|&i| &config.bgp_advertisements[i]).collect();
            for route in routes(&o.ips, &ads) {
                for (p, peer) in config.peers.iter().enumerate() {
                    let reaches = route.peers.is_empty() || route.peers.contains(&peer.name);
                    if !reaches || frrk8s::allowed_prefixes(peer, [&route.prefix]).is_empty() {
                        continue;
                    }
                    let mut on = nodes.clone();
                    on.intersect_with(&index.peer_sets[p]);
                    allowed
                        .entry((p, route.prefix))
                        .or_insert_with(|| FixedBitSet::with_capacity(world.table.len()))
                        .union_with(&on);
                }
            }
        }
    }
    for ((p, prefix), nodes) in &allowed {
        let key = frrk8s::neighbor_key(&config.peers[*p]);
        for n in nodes.ones() {
            expected[n].entry(key.clone()).or_default().insert(prefix.to_string());
        }
    }
    let ns = &world.setup.namespace;
    let mut out = Vec::new();
    for (n, want) in expected.iter().enumerate() {
        if want.is_empty() {
            continue;
        }
        let name = frrk8s::config_name(world.table.name(n));
        let mut candidates: Vec<_> = objects.iter().filter(|o| o.name() == name).collect();
        candidates.sort_by_key(|o| o.namespace() != ns);
        let (diffs, object) = match candidates.first() {
            Some(o) => {
                (frrk8s::diff(want, &frrk8s::actual(o)), ObjectRef::new("FRRConfiguration", o.namespace(), o.name()))
            }
            None => (
                want.keys().map(|k| FrrDiff::MissingNeighbor(k.clone())).collect(),
                ObjectRef::unqualified("FRRConfiguration", &name),
            ),
        };
        if diffs.is_empty() {
            continue;
        }
        let text: Vec<String> = diffs
            .iter()
            .map(|d| match d {
                FrrDiff::MissingNeighbor(k) => format!("missing neighbour {k}"),
                FrrDiff::ExtraNeighbor(k) => format!("extra neighbour {k}"),
                FrrDiff::MissingPrefix(k, p) => format!("missing prefix {p} for {k}"),
                FrrDiff::ExtraPrefix(k, p) => format!("extra prefix {p} for {k}"),
            })
            .collect();
        let shown = if text.len() > 6 {
            format!("{}; and {} more", text[..6].join("; "), text.len() - 6)
        } else {
            text.join("; ")
        };
        out.push(Finding::new(
            Code::LBD215,
            format!(
                "{object} does not match what the speaker on {} should write: {shown}",
                world.table.name(n)
            ),
            "the speaker applies changes with a 3 s debounce; if this persists, check its logs and whether another controller edits the object",
            vec![object],
        ));
    }
    out
}
