//! What one speaker decides for one Service in BGP mode (spec §9.1, §9.2): no election, every node
//! whose own checks pass advertises, to every session its advertisements reach.

use std::collections::BTreeSet;
use std::net::IpAddr;

use fixedbitset::FixedBitSet;
use ipnet::IpNet;

use super::community::Community;
use super::config::BgpAd;
use crate::metallb::release::Rules;
pub use crate::report::metallb::BgpReason;

/// What the speaker knows about its own node, and whether the Service has a healthy endpoint there.
#[derive(Debug, Clone, Copy, Default)]
pub struct OwnNode {
    pub unschedulable: bool,
    pub network_unavailable: bool,
    pub excluded: bool,
    pub healthy_endpoint: bool,
}

/// The Service as the BGP handler sees it.
#[derive(Debug, Clone, Copy)]
pub struct ServiceFacts {
    pub etp_local: bool,
    /// A healthy endpoint on any node ([`has_healthy_endpoint`]).
    pub healthy_anywhere: bool,
}

/// The pool's advertisements as one speaker weighs them for one Service. Closures keep the
/// node-set and LOCAL_PREF questions cheap for callers that evaluate thousands of nodes.
pub struct PoolAds<'a, H, C>
where
    H: Fn(usize) -> bool,
    C: Fn(usize, usize) -> bool,
{
    /// Does advertisement `i`'s node set hold this node?
    pub holds_node: H,
    /// Does advertisement `i` select the Service (no service selector, or one matches)?
    pub matches_service: &'a [bool],
    /// `BGPAdvertisementsHaveCompatibleLocalPref` for the pair.
    pub compatible: C,
}

/// The outcome on one node, and the first incompatible pair behind `conflictingAdvertisements`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    pub reason: BgpReason,
    pub conflict: Option<(usize, usize)>,
}

/// `ShouldAnnounce` on one node, in the order of `rules`' release (metallb-versions.md §5).
pub fn should_announce<H, C>(
    ads: &PoolAds<'_, H, C>,
    own: OwnNode,
    svc: ServiceFacts,
    ignore_exclude_lb: bool,
    rules: Rules,
) -> Decision
where
    H: Fn(usize) -> bool,
    C: Fn(usize, usize) -> bool,
{
    let n = ads.matches_service.len();
    let decided = |reason| Decision { reason, conflict: None };
    if !(0..n).any(|i| (ads.holds_node)(i)) {
        return decided(BgpReason::NotOwner);
    }
    // B-1: the Service-level checks exist from v0.16.0.
    if rules.service_selectors {
        // The chosen advertisements are walked again rather than collected: this runs per node × Service.
        let chosen = || (0..n).filter(|&i| (ads.holds_node)(i) && ads.matches_service[i]);
        if chosen().next().is_none() {
            return decided(BgpReason::NoMatchingAdvertisement);
        }
        if let Some(pair) = first_conflict(chosen(), &ads.compatible) {
            return Decision { reason: BgpReason::ConflictingAdvertisements, conflict: Some(pair) };
        }
    }
    decided(if rules.cordon_filter && own.unschedulable {
        BgpReason::NodeUnschedulable
    } else if rules.network_unavailable_filter && own.network_unavailable {
        BgpReason::NodeNetworkUnavailable
    } else if rules.exclude_label_filter && own.excluded && !ignore_exclude_lb {
        BgpReason::NodeLabeledExcludeBalancers
    } else if svc.etp_local && !own.healthy_endpoint {
        BgpReason::NoLocalEndpoints
    } else if !svc.healthy_anywhere {
        BgpReason::NoEndpoints
    } else {
        BgpReason::Announce
    })
}

/// `bgpAdsForService`: the advertisements holding the node that select the Service.
pub fn ads_for_service<H, C>(ads: &PoolAds<'_, H, C>) -> Vec<usize>
where
    H: Fn(usize) -> bool,
    C: Fn(usize, usize) -> bool,
{
    (0..ads.matches_service.len()).filter(|&i| (ads.holds_node)(i) && ads.matches_service[i]).collect()
}

/// `checkBGPAdvConflicts`: the first LOCAL_PREF-incompatible pair among `chosen` (ascending).
pub fn first_conflict<I>(chosen: I, compatible: impl Fn(usize, usize) -> bool) -> Option<(usize, usize)>
where
    I: Iterator<Item = usize> + Clone,
{
    let mut rest = chosen;
    while let Some(i) = rest.next() {
        if let Some(j) = rest.clone().find(|&j| !compatible(i, j)) {
            return Some((i, j));
        }
    }
    None
}

/// An endpoint as the BGP handler weighs it.
#[derive(Debug, Clone, Copy)]
pub struct EndpointHealth<'a> {
    pub node: Option<&'a str>,
    pub has_addresses: bool,
    pub can_serve: bool,
}

/// `hasHealthyEndpoint`: an endpoint with at least one address that can serve (unlike layer 2,
/// an endpoint without addresses never counts). `node` restricts it to one node; a null
/// nodeName never matches one.
pub fn has_healthy_endpoint<'a>(endpoints: impl IntoIterator<Item = EndpointHealth<'a>>, node: Option<&str>) -> bool {
    endpoints.into_iter().any(|ep| ep.has_addresses && ep.can_serve && node.is_none_or(|n| ep.node == Some(n)))
}

/// B-3, up to v0.15.3: `hasHealthyEndpoint` weighs addresses, not endpoints. An address counts
/// only when every endpoint in scope carrying it can serve (one that cannot wins), so an
/// endpoint is healthy only through an address no unready endpoint shares. For each endpoint
/// `(node, can serve, addresses)`: is it healthy within its node, and within the Service? An
/// endpoint without a node is healthy within no node.
pub fn per_address_health<S: AsRef<str>>(endpoints: &[(Option<usize>, bool, &[S])]) -> Vec<(bool, bool)> {
    use std::collections::HashMap;
    let mut anywhere: HashMap<&str, bool> = HashMap::new();
    let mut on_node: HashMap<(usize, &str), bool> = HashMap::new();
    for (node, can_serve, addresses) in endpoints {
        for a in addresses.iter() {
            *anywhere.entry(a.as_ref()).or_insert(true) &= *can_serve;
            if let Some(n) = node {
                *on_node.entry((*n, a.as_ref())).or_insert(true) &= *can_serve;
            }
        }
    }
    endpoints
        .iter()
        .map(|(node, _, addresses)| {
            let local = node.is_some_and(|n| addresses.iter().any(|a| on_node[&(n, a.as_ref())]));
            (local, addresses.iter().any(|a| anywhere[a.as_ref()]))
        })
        .collect()
}

/// One advertisement handed to the sessions: a prefix with its attributes.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Route {
    pub prefix: IpNet,
    pub local_pref: u32,
    /// Sorted the way MetalLB sorts them.
    pub communities: Vec<Community>,
    /// BGPPeer names this route is for; empty = every peer.
    pub peers: Vec<String>,
}

/// `SetBalancer`: every ingress IP × every matching advertisement, in that order (duplicates kept).
pub fn routes(ips: &[IpAddr], ads: &[&BgpAd]) -> Vec<Route> {
    let mut out = Vec::with_capacity(ips.len() * ads.len());
    for ip in ips {
        for ad in ads {
            let prefix = match ip {
                IpAddr::V4(v4) => IpNet::new(IpAddr::V4(*v4), ad.aggregation_length.clamp(0, 32) as u8),
                IpAddr::V6(v6) => IpNet::new(IpAddr::V6(*v6), ad.aggregation_length_v6.clamp(0, 128) as u8),
            }
            .expect("prefix length clamped to the family")
            .trunc();
            out.push(Route {
                prefix,
                local_pref: ad.local_pref,
                communities: ad.communities.iter().copied().collect(),
                peers: ad.peers.clone(),
            });
        }
    }
    out
}

/// The routes a session with `peer` receives (`adsForPeer`), deduplicated and sorted.
pub fn routes_for_peer<'r>(routes: &'r [Route], peer: &str) -> BTreeSet<&'r Route> {
    routes.iter().filter(|r| r.peers.is_empty() || r.peers.iter().any(|p| p == peer)).collect()
}

/// Every node's `ShouldAnnounce` at once, over node ids as bit positions. It gives exactly what
/// [`should_announce`] gives node by node (a property test holds them together), with word-wide
/// set operations instead of one walk over the advertisements per node.
pub struct Bulk<'a, C: Fn(usize, usize) -> bool> {
    /// Node set of each of the pool's advertisements, by position.
    pub ad_nodes: &'a [&'a FixedBitSet],
    pub matches_service: &'a [bool],
    pub compatible: C,
    /// Nodes with a speaker: the only ones that decide anything.
    pub speakers: &'a FixedBitSet,
    pub unschedulable: &'a FixedBitSet,
    pub network_unavailable: &'a FixedBitSet,
    pub excluded: &'a FixedBitSet,
    /// Nodes with a healthy endpoint of the Service.
    pub healthy: &'a FixedBitSet,
    pub svc: ServiceFacts,
    pub ignore_exclude_lb: bool,
    /// The speakers' release: which checks run (metallb-versions.md §5).
    pub rules: Rules,
}

/// The outcome for every node: its reason (`None` without a speaker) and, for
/// `conflictingAdvertisements`, the first incompatible pair.
#[derive(Debug, Clone, PartialEq)]
pub struct BulkDecision {
    pub reasons: Vec<Option<BgpReason>>,
    pub conflicts: std::collections::BTreeMap<usize, (usize, usize)>,
    pub announce: FixedBitSet,
}

impl<C: Fn(usize, usize) -> bool> Bulk<'_, C> {
    pub fn decide(&self, node_count: usize) -> BulkDecision {
        let empty = || FixedBitSet::with_capacity(node_count);
        let mut reasons = vec![None; node_count];
        let mut assign = |set: &FixedBitSet, reason: BgpReason| {
            for n in set.ones() {
                reasons[n] = Some(reason);
            }
        };
        let mut rest = self.speakers.clone();
        rest.grow(node_count);
        // 1. notOwner: no advertisement of the pool holds the node.
        let mut owned = empty();
        for set in self.ad_nodes {
            owned.union_with(set);
        }
        let mut out = rest.clone();
        out.difference_with(&owned);
        assign(&out, BgpReason::NotOwner);
        rest.intersect_with(&owned);
        // 2. noMatchingAdvertisement: none of those selects the Service (v0.16.0).
        let chosen: Vec<usize> = if self.rules.service_selectors {
            (0..self.ad_nodes.len()).filter(|&i| self.matches_service[i]).collect()
        } else {
            Vec::new()
        };
        if self.rules.service_selectors {
            let mut matching = empty();
            for &i in &chosen {
                matching.union_with(self.ad_nodes[i]);
            }
            out = rest.clone();
            out.difference_with(&matching);
            assign(&out, BgpReason::NoMatchingAdvertisement);
            rest.intersect_with(&matching);
        }
        // 3. conflictingAdvertisements: the first incompatible pair both holding the node, in the
        //    order the per-node walk tries pairs.
        let mut conflicts = std::collections::BTreeMap::new();
        let mut conflicted = empty();
        for (x, &i) in chosen.iter().enumerate() {
            for &j in &chosen[x + 1..] {
                if (self.compatible)(i, j) {
                    continue;
                }
                let mut both = self.ad_nodes[i].clone();
                both.grow(node_count);
                both.intersect_with(self.ad_nodes[j]);
                both.intersect_with(&rest);
                both.difference_with(&conflicted);
                for n in both.ones() {
                    conflicts.insert(n, (i, j));
                }
                conflicted.union_with(&both);
            }
        }
        assign(&conflicted, BgpReason::ConflictingAdvertisements);
        rest.difference_with(&conflicted);
        // 4–7: the node's own state, then endpoints.
        let mut step = |set: Option<&FixedBitSet>, invert: bool, reason: BgpReason, rest: &mut FixedBitSet| {
            let mut hit = rest.clone();
            match (set, invert) {
                (Some(s), false) => hit.intersect_with(s),
                (Some(s), true) => hit.difference_with(s),
                (None, _) => {}
            }
            assign(&hit, reason);
            rest.difference_with(&hit);
        };
        if self.rules.cordon_filter {
            step(Some(self.unschedulable), false, BgpReason::NodeUnschedulable, &mut rest);
        }
        if self.rules.network_unavailable_filter {
            step(Some(self.network_unavailable), false, BgpReason::NodeNetworkUnavailable, &mut rest);
        }
        if self.rules.exclude_label_filter && !self.ignore_exclude_lb {
            step(Some(self.excluded), false, BgpReason::NodeLabeledExcludeBalancers, &mut rest);
        }
        if self.svc.etp_local {
            step(Some(self.healthy), true, BgpReason::NoLocalEndpoints, &mut rest);
        }
        if !self.svc.healthy_anywhere {
            step(None, false, BgpReason::NoEndpoints, &mut rest);
        }
        assign(&rest, BgpReason::Announce);
        BulkDecision { reasons, conflicts, announce: rest }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Random pools of up to four advertisements over up to nine nodes.
    #[derive(Debug, Clone)]
    struct Case {
        nodes: usize,
        ad_nodes: Vec<Vec<bool>>,
        matches: Vec<bool>,
        local_prefs: Vec<u8>,
        speakers: Vec<bool>,
        unschedulable: Vec<bool>,
        unavailable: Vec<bool>,
        excluded: Vec<bool>,
        healthy: Vec<bool>,
        etp_local: bool,
        healthy_anywhere: bool,
        ignore_exclude_lb: bool,
        release: crate::metallb::release::Release,
    }

    fn case() -> impl Strategy<Value = Case> {
        (1usize..10, 0usize..5).prop_flat_map(|(nodes, ads)| {
            let flags = move |p: f64| prop::collection::vec(prop::bool::weighted(p), nodes);
            (
                prop::collection::vec(flags(0.6), ads),
                prop::collection::vec(prop::bool::weighted(0.7), ads),
                prop::collection::vec(0u8..3, ads),
                (flags(0.85), flags(0.15), flags(0.2), flags(0.4)),
                (any::<bool>(), prop::bool::weighted(0.8), prop::bool::weighted(0.2)),
                (flags(0.2), prop::sample::select(crate::metallb::release::Release::all().collect::<Vec<_>>())),
            )
                .prop_map(
                    move |(
                        ad_nodes,
                        matches,
                        local_prefs,
                        (speakers, unavailable, excluded, healthy),
                        (etp_local, healthy_anywhere, ignore_exclude_lb),
                        (unschedulable, release),
                    )| Case {
                        nodes,
                        ad_nodes,
                        matches,
                        local_prefs,
                        speakers,
                        unavailable,
                        excluded,
                        healthy: healthy.clone(),
                        etp_local,
                        // A local healthy endpoint is a healthy endpoint.
                        healthy_anywhere: healthy_anywhere || healthy.contains(&true),
                        ignore_exclude_lb,
                        unschedulable,
                        release,
                    },
                )
        })
    }

    fn set(flags: &[bool]) -> FixedBitSet {
        let mut s = FixedBitSet::with_capacity(flags.len());
        for (i, f) in flags.iter().enumerate() {
            s.set(i, *f);
        }
        s
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]
        #[test]
        fn bulk_equals_the_per_node_walk(c in case()) {
            let ad_sets: Vec<FixedBitSet> = c.ad_nodes.iter().map(|f| set(f)).collect();
            let ad_refs: Vec<&FixedBitSet> = ad_sets.iter().collect();
            let compatible = |i: usize, j: usize| c.local_prefs[i] == c.local_prefs[j];
            let svc = ServiceFacts { etp_local: c.etp_local, healthy_anywhere: c.healthy_anywhere };
            let (speakers, unavailable, excluded, healthy) =
                (set(&c.speakers), set(&c.unavailable), set(&c.excluded), set(&c.healthy));
            let unschedulable = set(&c.unschedulable);
            let rules = c.release.rules();
            let bulk = Bulk {
                ad_nodes: &ad_refs,
                matches_service: &c.matches,
                compatible,
                speakers: &speakers,
                unschedulable: &unschedulable,
                network_unavailable: &unavailable,
                excluded: &excluded,
                healthy: &healthy,
                svc,
                ignore_exclude_lb: c.ignore_exclude_lb,
                rules,
            }
            .decide(c.nodes);
            for n in 0..c.nodes {
                let view = PoolAds { holds_node: |i: usize| c.ad_nodes[i][n], matches_service: &c.matches, compatible };
                let own = OwnNode {
                    unschedulable: c.unschedulable[n],
                    network_unavailable: c.unavailable[n],
                    excluded: c.excluded[n],
                    healthy_endpoint: c.healthy[n],
                };
                let one = should_announce(&view, own, svc, c.ignore_exclude_lb, rules);
                let want = c.speakers[n].then_some(one.reason);
                prop_assert_eq!(bulk.reasons[n], want, "node {}", n);
                if c.speakers[n] {
                    prop_assert_eq!(bulk.conflicts.get(&n).copied(), one.conflict, "node {}", n);
                    prop_assert_eq!(bulk.announce.contains(n), one.reason == BgpReason::Announce);
                }
            }
        }
    }

    /// B-3's vector: two endpoints with one address on node-a, one ready and one not (a
    /// migrating VM): before v0.16.0 the unready one wins and nothing is healthy.
    #[test]
    fn before_v0_16_0_an_unready_endpoint_spoils_its_address() {
        let shared = ["10.1.1.1".to_string()];
        let other = ["10.1.1.2".to_string()];
        let health = per_address_health(&[(Some(0), true, &shared), (Some(0), false, &shared)]);
        assert_eq!(health, [(false, false), (false, false)]);
        let health = per_address_health(&[(Some(0), true, &shared), (Some(1), false, &shared), (None, true, &other)]);
        assert_eq!(health, [(true, false), (false, false), (false, true)], "per node, then over the Service");
    }

    /// metallb-versions.md §5: the order of ShouldAnnounce per release, one row per change.
    #[test]
    fn each_release_checks_its_own_node_in_its_order() {
        use crate::metallb::release::Release;
        let svc = ServiceFacts { etp_local: false, healthy_anywhere: true };
        let decide = |release: &str, own: OwnNode, matches: bool| {
            let matches = [matches];
            let view = PoolAds {
                holds_node: |_: usize| true,
                matches_service: &matches,
                compatible: |_: usize, _: usize| true,
            };
            should_announce(&view, own, svc, false, release.parse::<Release>().unwrap().rules()).reason
        };
        let all = OwnNode { unschedulable: true, network_unavailable: true, excluded: true, healthy_endpoint: true };
        let rows = [
            ("v0.13.9", all, BgpReason::Announce),
            ("v0.13.10", all, BgpReason::NodeNetworkUnavailable),
            ("v0.14.0", OwnNode { network_unavailable: false, ..all }, BgpReason::NodeLabeledExcludeBalancers),
            ("v0.13.12", OwnNode { network_unavailable: false, ..all }, BgpReason::Announce),
            ("v0.14.9", all, BgpReason::NodeUnschedulable),
            ("v0.14.8", all, BgpReason::NodeNetworkUnavailable),
            ("v0.15.0", all, BgpReason::NodeNetworkUnavailable),
        ];
        for (release, own, want) in rows {
            assert_eq!(decide(release, own, true), want, "{release}");
        }
        // B-1: a Service no advertisement selects is noMatchingAdvertisement from v0.16.0 only.
        let fine = OwnNode { healthy_endpoint: true, ..OwnNode::default() };
        assert_eq!(decide("v0.16.0", fine, false), BgpReason::NoMatchingAdvertisement);
        assert_eq!(decide("v0.15.3", fine, false), BgpReason::Announce);
    }
}
