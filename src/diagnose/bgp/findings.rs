//! BGP findings: per Service LBD130–LBD132, per cluster LBD210–LBD215, one function per code.

use std::collections::{BTreeMap, BTreeSet};

use fixedbitset::FixedBitSet;

use super::super::world::World;
use super::super::Evaluation;
use super::{chosen_ads, expected_peers, pool_ads, reason_summary, BgpIndex, BgpOutcome};
use crate::metallb::bgp::config::BgpAd;
use crate::metallb::bgp::speaker::{routes, BgpReason};
use crate::metallb::config::{Config, Pool};
use crate::metallb::l2::NodeId;
use crate::report::{BgpActual, Code, Finding, ObjectRef};

/// What the per-Service BGP checks read.
struct ServiceCtx<'a, 'w> {
    world: &'a World<'w>,
    e: &'a Evaluation<'a>,
    o: &'a BgpOutcome,
    config: &'a Config,
    index: &'a BgpIndex,
    svc: ObjectRef,
    ips: Vec<String>,
    /// The pool's BGPAdvertisements, deduplicated and sorted.
    ads: Vec<ObjectRef>,
}

type ServiceCheck = fn(&ServiceCtx) -> Option<Finding>;

/// In report order.
const SERVICE_CHECKS: &[ServiceCheck] = &[nobody_advertises, local_endpoints_unadvertised, status_disagrees];

pub(crate) fn service_findings(world: &World, e: &Evaluation, o: &BgpOutcome) -> Vec<Finding> {
    let (Ok(config), Some(index), Some(pool_idx)) = (world.config.as_ref(), world.bgp.as_ref(), e.pool) else {
        return Vec::new();
    };
    let ns = &world.setup.namespace;
    let ctx = ServiceCtx {
        world,
        e,
        o,
        config,
        index,
        svc: ObjectRef::new("Service", e.namespace, e.name),
        ips: o.ips.iter().map(|ip| crate::k8s::ip::go_ip_string(*ip)).collect(),
        ads: pool_ads(config, &config.pools[pool_idx])
            .iter()
            .map(|a| ObjectRef::new("BGPAdvertisement", ns, &a.name))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect(),
    };
    SERVICE_CHECKS.iter().filter_map(|check| check(&ctx)).collect()
}

/// LBD130: no node delivers a route for the Service to any session.
fn nobody_advertises(c: &ServiceCtx) -> Option<Finding> {
    let (world, o) = (c.world, c.o);
    if !o.delivering().is_clear() {
        return None;
    }
    let announcing: Vec<NodeId> = o.announcing().collect();
    let (message, hint) = if announcing.is_empty() {
        (format!("no node advertises {} over BGP: {}", c.ips.join(", "), reason_summary(world, o)), reason_hint(o))
    } else {
        (
            format!(
                "{} {} {} over BGP, but no BGP session receives a route: no BGPPeer runs a session there, or the matching advertisements' spec.peers name only other peers",
                super::super::checks::names(world, announcing.iter().copied(), 4),
                if announcing.len() == 1 { "advertises" } else { "advertise" },
                c.ips.join(", ")
            ),
            "give a BGPPeer nodeSelectors that include these nodes, or fix spec.peers of the BGPAdvertisement".to_string(),
        )
    };
    Some(Finding::new(
        Code::LBD130,
        message,
        hint,
        std::iter::once(c.svc.clone()).chain(c.ads.iter().cloned()).collect(),
    ))
}

/// The fix for the most common reason no node advertises. notOwner is normal for nodes an
/// advertisement leaves out, so another reason wins when there is one.
fn reason_hint(o: &BgpOutcome) -> String {
    let count = |r: BgpReason| o.reasons.iter().filter(|x| **x == Some(r)).count();
    let top = o
        .reasons
        .iter()
        .flatten()
        .copied()
        .filter(|r| *r != BgpReason::NotOwner)
        .max_by_key(|r| (count(*r), std::cmp::Reverse(*r)))
        .or(o.reasons.iter().flatten().copied().next());
    match top {
        Some(BgpReason::NoEndpoints) => "MetalLB's BGP handler needs a ready (or serving) endpoint with an address; check the Service's selector and its Pods".to_string(),
        Some(BgpReason::NoLocalEndpoints) => "with externalTrafficPolicy Local only nodes hosting a ready endpoint advertise; run Pods on nodes that peer, or use Cluster".to_string(),
        Some(BgpReason::NotOwner) => "no BGPAdvertisement of the pool selects these nodes: fix the advertisement's nodeSelectors".to_string(),
        Some(BgpReason::NoMatchingAdvertisement) => "the advertisements' serviceSelectors do not match the Service's labels".to_string(),
        Some(BgpReason::ConflictingAdvertisements) => format!("two matching advertisements set different localPref for the same prefixes and peers: align them ({})", Code::LBD212),
        Some(BgpReason::NodeLabeledExcludeBalancers) => format!("remove the {} label (its key alone excludes), or run the speaker with --ignore-exclude-lb", crate::k8s::EXCLUDE_LB_LABEL),
        Some(BgpReason::NodeNetworkUnavailable) => "the nodes report NetworkUnavailable=True; fix the CNI on them".to_string(),
        Some(BgpReason::NodeUnschedulable) => "MetalLB v0.14.9 stops advertising from cordoned nodes: uncordon them (kubectl uncordon NODE), or upgrade MetalLB".to_string(),
        _ => "check the nodes' speakers".to_string(),
    }
}

/// LBD131: eTP Local, and endpoints on nodes that advertise to nobody lose their share of the traffic.
fn local_endpoints_unadvertised(c: &ServiceCtx) -> Option<Finding> {
    let etp_local = c.e.svc.spec.as_ref().and_then(|s| s.external_traffic_policy.as_deref()) == Some("Local");
    if !etp_local {
        return None;
    }
    let lonely: Vec<NodeId> =
        c.o.healthy
            .ones()
            .filter(|&n| c.o.reasons[n].is_some())
            .filter(|&n| !c.index.peer_sets.iter().any(|s| s.contains(n)))
            .collect();
    if lonely.is_empty() {
        return None;
    }
    Some(Finding::new(
        Code::LBD131,
        format!(
            "externalTrafficPolicy Local: the endpoints on {} are never advertised over BGP, because no BGPPeer runs a session there",
            super::super::checks::names(c.world, lonely.iter().copied(), 4)
        ),
        "add those nodes to a BGPPeer's nodeSelectors, keep the Pods on peering nodes, or use externalTrafficPolicy Cluster",
        std::iter::once(c.svc.clone())
            .chain(lonely.iter().map(|&n| ObjectRef::cluster("Node", c.world.table.name(n))))
            .collect(),
    ))
}

/// LBD132: ServiceBGPStatus against the sessions MetalLB's rules give.
fn status_disagrees(c: &ServiceCtx) -> Option<Finding> {
    let actual = c.world.bgp_actual.for_service(c.e.namespace, c.e.name)?;
    let expected = expected_peers(c.world, c.config, c.o);
    if actual == expected {
        return None;
    }
    let show = |v: &[BgpActual]| {
        if v.is_empty() {
            "nothing".to_string()
        } else {
            v.iter().map(|a| format!("{} → {}", a.node, a.peers.join(","))).collect::<Vec<_>>().join("; ")
        }
    };
    Some(Finding::new(
        Code::LBD132,
        format!("ServiceBGPStatus shows {}, but MetalLB's rules give {}", show(&actual), show(&expected)),
        format!("a speaker may run an older configuration (rejected update, {}), miss a Node label change, or be restarting; check the speaker logs on the nodes that differ", Code::LBD201),
        vec![c.svc.clone()],
    ))
}

/// What the cluster-level BGP checks read.
struct ClusterCtx<'a, 'w> {
    world: &'a World<'w>,
    config: &'a Config,
    index: &'a BgpIndex,
    evals: &'a [Evaluation<'a>],
}

impl ClusterCtx<'_, '_> {
    fn object(&self, kind: &'static str, name: &str) -> ObjectRef {
        ObjectRef::new(kind, &self.world.setup.namespace, name)
    }
}

type AdCheck = fn(&ClusterCtx, usize, &BgpAd) -> Option<Finding>;
type PoolCheck = fn(&ClusterCtx, usize, &Pool, &mut Vec<Finding>);

/// Run per advertisement, then per pool, then once; findings keep that order.
const AD_CHECKS: &[AdCheck] = &[missing_peer, unreachable_advertisement];
const POOL_CHECKS: &[PoolCheck] = &[conflicting_local_pref, announced_both_ways];
const CLUSTER_CHECKS: &[fn(&ClusterCtx, &mut Vec<Finding>)] = &[peers_without_speakers, frr_drift, frr_dumps];

/// Cluster-level BGP findings: advertisements nobody can carry, peers that do not exist,
/// LOCAL_PREF conflicts, pools announced both ways, peers without speakers, frr-k8s drift.
pub(crate) fn cluster_findings(world: &World, evals: &[Evaluation]) -> Vec<Finding> {
    let mut out = Vec::new();
    let (Ok(config), Some(index)) = (world.config.as_ref(), world.bgp.as_ref()) else {
        return out;
    };
    let c = ClusterCtx { world, config, index, evals };
    for (i, ad) in config.bgp_advertisements.iter().enumerate() {
        out.extend(AD_CHECKS.iter().filter_map(|check| check(&c, i, ad)));
    }
    for (i, pool) in config.pools.iter().enumerate() {
        for check in POOL_CHECKS {
            check(&c, i, pool, &mut out);
        }
    }
    for check in CLUSTER_CHECKS {
        check(&c, &mut out);
    }
    out
}

/// LBD211: spec.peers names a BGPPeer that does not exist.
fn missing_peer(c: &ClusterCtx, _: usize, ad: &BgpAd) -> Option<Finding> {
    let missing: Vec<&str> =
        ad.peers.iter().filter(|p| !c.config.peers.iter().any(|x| &x.name == *p)).map(String::as_str).collect();
    (!missing.is_empty()).then(|| {
        Finding::new(
            Code::LBD211,
            format!(
                "BGPAdvertisement {} names BGPPeer {} which does not exist: its routes go to no session for that name, silently",
                ad.name,
                missing.join(", ")
            ),
            format!("fix spec.peers (peers are matched by metadata.name in {})", c.world.setup.namespace),
            vec![c.object("BGPAdvertisement", &ad.name)],
        )
    })
}

/// LBD210: none of the nodes the advertisement selects runs a session with a peer it names.
fn unreachable_advertisement(c: &ClusterCtx, i: usize, ad: &BgpAd) -> Option<Finding> {
    if ad.pools.is_empty() {
        return None;
    }
    let mut reach = FixedBitSet::with_capacity(c.world.table.len());
    for (p, peer) in c.config.peers.iter().enumerate() {
        if ad.reaches_peer(&peer.name) {
            reach.union_with(&c.index.peer_sets[p]);
        }
    }
    reach.intersect_with(&c.index.ad_sets[i]);
    if !reach.is_clear() {
        return None;
    }
    let peers_named = if ad.peers.is_empty() { "any BGPPeer".to_string() } else { ad.peers.join(", ") };
    Some(Finding::new(
        Code::LBD210,
        format!("nobody advertises through BGPAdvertisement {}: none of the nodes it selects runs a session with {peers_named}", ad.name),
        "make the advertisement's nodeSelectors and the BGPPeer's nodeSelectors share nodes",
        std::iter::once(c.object("BGPAdvertisement", &ad.name))
            .chain(c.config.peers.iter().filter(|p| ad.reaches_peer(&p.name)).map(|p| c.object("BGPPeer", &p.name)))
            .collect(),
    ))
}

/// LBD212: two advertisements of a pool overlap but disagree on localPref.
fn conflicting_local_pref(c: &ClusterCtx, pool_idx: usize, pool: &Pool, out: &mut Vec<Finding>) {
    let ads = pool_ads(c.config, pool);
    let k = ads.len();
    let compat = &c.index.compat[pool_idx];
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
                vec![
                    c.object("BGPAdvertisement", &ads[i].name),
                    c.object("BGPAdvertisement", &ads[j].name),
                    c.object("IPAddressPool", &pool.name),
                ],
            ));
        }
    }
}

/// LBD213: a pool announced in layer 2 and BGP at once.
fn announced_both_ways(c: &ClusterCtx, _: usize, pool: &Pool, out: &mut Vec<Finding>) {
    if pool.l2.is_empty() || pool.bgp.is_empty() {
        return;
    }
    let l2: BTreeSet<&str> =
        pool.l2.iter().flat_map(|pa| pa.all()).map(|a| c.config.l2_advertisements[a].name.as_str()).collect();
    out.push(Finding::new(
        Code::LBD213,
        format!(
            "pool {} is announced both ways at once: layer 2 from one elected node ({}) and BGP from every eligible node ({})",
            pool.name,
            l2.into_iter().collect::<Vec<_>>().join(", "),
            c.config.bgp_names(pool).join(", ")
        ),
        "intended only when routers and hosts on the segment should both reach the IPs; otherwise narrow the advertisements' ipAddressPools",
        vec![c.object("IPAddressPool", &pool.name)],
    ));
}

/// LBD214: a peer's nodeSelectors pick nodes without a live speaker (only known with memberlist data).
fn peers_without_speakers(c: &ClusterCtx, out: &mut Vec<Finding>) {
    let world = c.world;
    if world.live_speakers.is_none() {
        return;
    }
    for (p, peer) in c.config.peers.iter().enumerate() {
        let dark: Vec<NodeId> = c.index.peer_sets[p]
            .ones()
            .filter(|&n| world.table.has_object.contains(n) && !world.speaker_acts(n))
            .collect();
        if dark.is_empty() {
            continue;
        }
        out.push(Finding::new(
            Code::LBD214,
            format!(
                "BGPPeer {} selects {}, which {} no live speaker: the router expects sessions there that never come up",
                peer.name,
                super::super::checks::names(world, dark.iter().copied(), 4),
                if dark.len() == 1 { "runs" } else { "run" }
            ),
            "check the speaker DaemonSet's placement (nodeSelector, tolerations) or narrow the peer's nodeSelectors",
            vec![c.object("BGPPeer", &peer.name)],
        ));
    }
}

/// Per node, the neighbours its speaker configures and the prefixes each may receive (spec
/// §9.4, §9.6): what MetalLB writes for FRR, as an FRRConfiguration or as frr.conf. Nodes that
/// reject the configuration write what their last good one said: left empty, not compared.
fn expected_frr(c: &ClusterCtx) -> Vec<crate::metallb::bgp::frrk8s::NodeFrr> {
    use crate::metallb::bgp::frrk8s::{self, NodeFrr};
    let (world, index, config, evals) = (c.world, c.index, c.config, c.evals);
    let mut expected: Vec<NodeFrr> = vec![NodeFrr::new(); world.table.len()];
    for n in world.bgp_acting.ones() {
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
    expected
}

/// The differences as LBD215 and LBD226 word them, more than six cut to `…; and K more`.
fn frr_diff_words(diffs: &[crate::metallb::bgp::frrk8s::FrrDiff]) -> Vec<String> {
    use crate::metallb::bgp::frrk8s::FrrDiff;
    diffs
        .iter()
        .map(|d| match d {
            FrrDiff::MissingNeighbor(k) => format!("missing neighbour {k}"),
            FrrDiff::ExtraNeighbor(k) => format!("extra neighbour {k}"),
            FrrDiff::MissingPrefix(k, p) => format!("missing prefix {p} for {k}"),
            FrrDiff::ExtraPrefix(k, p) => format!("extra prefix {p} for {k}"),
        })
        .collect()
}

fn first_six(text: &[String]) -> String {
    if text.len() > 6 {
        format!("{}; and {} more", text[..6].join("; "), text.len() - 6)
    } else {
        text.join("; ")
    }
}

/// LBD215: each node's FRRConfiguration against the one MetalLB's speaker would write.
fn frr_drift(c: &ClusterCtx, out: &mut Vec<Finding>) {
    use crate::metallb::bgp::frrk8s::{self, FrrDiff};
    let world = c.world;
    let objects = &world.snap.metallb.frr_configurations;
    // B-8: before v0.14.0 no speaker writes FRRConfigurations.
    let frr_k8s = world.setup.bgp_type == crate::snapshot::BgpType::FrrK8s && world.setup.rules().frr_k8s_mode;
    if !frr_k8s || objects.is_empty() {
        return;
    }
    let expected = expected_frr(c);
    let ns = &world.setup.namespace;
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
        let shown = first_six(&frr_diff_words(&diffs));
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
}

/// LBD226: FRR's own view of a node (a bundle's `dump_frr`: `show running-config`, `show bgp`,
/// `show bgp neighbor`) against what MetalLB configures there: the neighbours and the prefixes
/// each may receive, the prefixes the node originates, and whether each session is up.
fn frr_dumps(c: &ClusterCtx, out: &mut Vec<Finding>) {
    use crate::metallb::bgp::frrk8s::{self, NodeFrr};
    let world = c.world;
    let dumps: Vec<&crate::snapshot::bundle::PodFrr> = world.snap.bundles.iter().flat_map(|b| &b.frr).collect();
    if dumps.is_empty() {
        return;
    }
    let expected = expected_frr(c);
    let ns = &world.setup.namespace;
    for dump in dumps {
        // The Pod is the node; without the Pod, whose view it is stays unknown.
        let pod = world.snap.pods.iter().find(|p| {
            p.metadata.name.as_deref() == Some(dump.pod.as_str())
                && p.metadata.namespace.as_deref() == Some(ns.as_str())
        });
        let Some(n) = pod.and_then(|p| p.spec.as_ref()?.node_name.as_deref()).and_then(|node| world.table.id(node))
        else {
            continue;
        };
        if !world.bgp_acting.contains(n) {
            continue;
        }
        let want: &NodeFrr = &expected[n];
        let mut text = Vec::new();
        if let Some(config) = &dump.dump.config {
            text.extend(frr_diff_words(&frrk8s::diff(want, &config.node_frr())));
        }
        let should: BTreeSet<&String> = want.values().flatten().collect();
        let originates = dump.dump.originated.clone().or_else(|| dump.dump.config.as_ref().map(|c| c.networks()));
        if let Some(originates) = &originates {
            text.extend(should.iter().filter(|p| !originates.contains(**p)).map(|p| format!("does not originate {p}")));
            text.extend(
                originates
                    .iter()
                    .filter(|p| !should.contains(p))
                    .map(|p| format!("originates {p}, which MetalLB does not advertise from this node")),
            );
        }
        if let Some(sessions) = &dump.dump.sessions {
            // vtysh's `show bgp neighbor` shows the default VRF's sessions only.
            for key in want.keys().filter(|k| k.vrf.is_empty()) {
                match sessions.get(&key.endpoint).map(String::as_str) {
                    Some("Established") => {}
                    Some(state) => text.push(format!("session with {key} is {state}")),
                    None => text.push(format!("no session with {key} in show bgp neighbor")),
                }
            }
        }
        if text.is_empty() {
            continue;
        }
        let node = world.table.name(n);
        out.push(Finding::new(
            Code::LBD226,
            format!("FRR on {node} ({}) does not run what MetalLB configures there: {}", dump.entry, first_six(&text)),
            "a prefix or neighbour MetalLB writes but FRR lacks: the reloader did not apply the last frr.conf (read reloader.log and frr.log in the same bundle); a session not Established: check the router's side and the path to it",
            vec![ObjectRef::new("Pod", ns, &dump.pod), ObjectRef::unqualified("Node", node)],
        ));
    }
}
