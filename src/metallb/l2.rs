//! The layer-2 election every speaker runs for itself (speaker spec §4, §7, §8, §11).
//!
//! One `Election` per Service holds every intermediate set, so each node's `ShouldAnnounce`
//! answer and the reasons it lost come from the same values as the decision.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::net::IpAddr;
use std::sync::Arc;

use compact_str::CompactString;
use fixedbitset::FixedBitSet;

use super::config::L2Ad;
use super::digest::{each_election_digest, election_digests, DigestWords, NameBlock};
use super::release::Rules;
use crate::k8s::ip::go_ip_string;
pub use crate::report::metallb::{Exclusion, L2Reason};

pub type NodeId = usize;

/// Every name the election can meet: Node objects, speakers, names in advertisement node sets.
#[derive(Debug, Clone, Default)]
pub struct NodeTable {
    pub names: Vec<String>,
    /// Each name laid out for the election digest, once for every Service.
    blocks: Vec<NameBlock>,
    index: HashMap<String, NodeId>,
    /// Names that have a Node object (the speaker's `nodes` map).
    pub has_object: FixedBitSet,
    pub network_unavailable: FixedBitSet,
    pub excluded: FixedBitSet,
    /// Cordoned (`spec.unschedulable`): no candidate on v0.14.9 (L-5).
    pub unschedulable: FixedBitSet,
}

/// What is known of one node for the election.
pub struct NodeFacts<'a> {
    pub name: &'a str,
    pub has_object: bool,
    pub network_unavailable: bool,
    pub excluded: bool,
    pub unschedulable: bool,
}

impl NodeTable {
    pub fn new<'a>(facts: impl IntoIterator<Item = NodeFacts<'a>>) -> NodeTable {
        let mut by_name: std::collections::BTreeMap<&str, (bool, bool, bool, bool)> = Default::default();
        for f in facts {
            let e = by_name.entry(f.name).or_default();
            e.0 |= f.has_object;
            e.1 |= f.network_unavailable;
            e.2 |= f.excluded;
            e.3 |= f.unschedulable;
        }
        let n = by_name.len();
        let mut t = NodeTable {
            names: Vec::with_capacity(n),
            blocks: Vec::with_capacity(n),
            index: HashMap::with_capacity(n),
            has_object: FixedBitSet::with_capacity(n),
            network_unavailable: FixedBitSet::with_capacity(n),
            excluded: FixedBitSet::with_capacity(n),
            unschedulable: FixedBitSet::with_capacity(n),
        };
        for (i, (name, (obj, unavailable, excluded, cordoned))) in by_name.into_iter().enumerate() {
            t.names.push(name.to_string());
            t.blocks.push(NameBlock::new(name));
            t.index.insert(name.to_string(), i);
            t.has_object.set(i, obj);
            t.network_unavailable.set(i, unavailable);
            t.excluded.set(i, excluded);
            t.unschedulable.set(i, cordoned);
        }
        t
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    pub fn id(&self, name: &str) -> Option<NodeId> {
        self.index.get(name).copied()
    }

    pub fn name(&self, id: NodeId) -> &str {
        &self.names[id]
    }

    /// The name and its digest block, as the election hashes them.
    fn hashed(&self, id: NodeId) -> (&str, &NameBlock) {
        (&self.names[id], &self.blocks[id])
    }

    pub fn set_of<'a>(&self, names: impl IntoIterator<Item = &'a String>) -> FixedBitSet {
        let mut set = FixedBitSet::with_capacity(self.len());
        for id in names.into_iter().filter_map(|n| self.id(n)) {
            set.insert(id);
        }
        set
    }
}

/// Which speakers are alive: memberlist's view, or "disabled" (every Node is a candidate, spec §7).
#[derive(Debug, Clone)]
pub enum Liveness {
    Memberlist(FixedBitSet),
    Disabled,
}

pub struct L2Context<'a> {
    pub nodes: &'a NodeTable,
    pub liveness: &'a Liveness,
    /// `--ignore-exclude-lb` as given; only releases that have the flag honour it.
    pub ignore_exclude_lb: bool,
    /// The release's switches (metallb-versions.md §4).
    pub rules: Rules,
    /// Keep the whole election order (ranks for every candidate), not only the winner.
    pub full_order: bool,
    /// The filters of step 5 that no Service changes, from [`NodeFilters::new`] with the fields above.
    pub filters: NodeFilters,
    /// Where the Elections' node sets are held once (the Services of one advertisement group
    /// have the same); `None`: each Election holds its own.
    pub sets: Option<&'a crate::intern::Interned<FixedBitSet>>,
}

/// The candidates after each node filter that does not depend on the Service (step 5 before the
/// advertisements). The same for every Service of a run: computed once and shared by every
/// Election, instead of three copies of the node set per Service.
#[derive(Debug, Clone)]
pub struct NodeFilters {
    pub eligible: Arc<FixedBitSet>,
    pub after_network: Arc<FixedBitSet>,
    pub after_exclude: Arc<FixedBitSet>,
}

impl NodeFilters {
    pub fn new(nodes: &NodeTable, liveness: &Liveness, ignore_exclude_lb: bool, rules: Rules) -> NodeFilters {
        let n = nodes.len();
        let eligible = match liveness {
            Liveness::Memberlist(alive) => alive.clone(),
            Liveness::Disabled if rules.memberlist_disabled_announces => nodes.has_object.clone(),
            // L-2: before v0.15.0 a speaker without memberlist has no usable speakers at all.
            Liveness::Disabled => FixedBitSet::with_capacity(n),
        };
        let mut after_network = eligible.clone();
        if rules.network_unavailable_filter {
            after_network.difference_with(&nodes.network_unavailable);
        }
        if rules.cordon_filter {
            after_network.difference_with(&nodes.unschedulable);
        }
        let mut after_exclude = after_network.clone();
        if exclude_label_applies(rules, ignore_exclude_lb) {
            after_exclude.difference_with(&nodes.excluded);
        }
        NodeFilters {
            eligible: Arc::new(eligible),
            after_network: Arc::new(after_network),
            after_exclude: Arc::new(after_exclude),
        }
    }
}

/// The exclude label removes candidates: the release filters on it (v0.14.0, L-4) and
/// `--ignore-exclude-lb` is off, or the release does not have the flag yet (v0.14.4).
fn exclude_label_applies(rules: Rules, ignore_exclude_lb: bool) -> bool {
    rules.exclude_label_filter && !(ignore_exclude_lb && rules.ignore_exclude_lb_flag)
}

/// An advertisement of the Service's pool with its node set resolved against the table.
pub struct AdNodes<'a> {
    pub ad: &'a L2Ad,
    pub nodes: FixedBitSet,
}

impl<'a> AdNodes<'a> {
    pub fn new(ad: &'a L2Ad, table: &NodeTable) -> AdNodes<'a> {
        AdNodes { ad, nodes: table.set_of(&ad.nodes) }
    }
}

pub struct ServiceInput<'a> {
    pub labels: &'a crate::k8s::labels::LabelMap,
    /// `metallb.io/allow-shared-ip` or `metallb.universe.tf/allow-shared-ip` is present.
    pub shared_ip_annotation: bool,
    /// `externalTrafficPolicy` is exactly `Local`.
    pub etp_local: bool,
    /// The first ingress IP.
    pub ip: IpAddr,
    pub endpoints: &'a [EndpointInput],
}

#[derive(Debug, Clone, Copy)]
pub struct EndpointInput {
    pub node: Option<NodeId>,
    /// Under the replayed release's predicate (metallb-versions.md L-1).
    pub can_serve: bool,
    /// The EndpointSlice conditions `ready` and `serving`, to judge under another release.
    pub ready: Option<bool>,
    pub serving: Option<bool>,
    /// BGP only counts endpoints with at least one address (spec T14).
    pub has_addresses: bool,
    /// The endpoint makes BGP's `hasHealthyEndpoint` true for its own node, and for the
    /// Service as a whole, under the replayed release (B-3: per address before v0.16.0).
    pub bgp_healthy_on_node: bool,
    pub bgp_healthy_anywhere: bool,
}

#[derive(Debug, Clone)]
pub struct Ranked {
    pub node: NodeId,
    pub score: i64,
    pub digest: DigestWords,
}

/// Every step of the election for one Service, as sets.
#[derive(Debug, Clone)]
pub struct Election {
    /// Some endpoint can serve (step 1).
    pub active_endpoint: bool,
    /// Indices (into the pool's ads) of the ads whose service selectors match (step 2).
    pub ads_for_service: Vec<usize>,
    /// Newer MetalLB: the shared-IP annotation meets an ad with service selectors (step 3).
    pub shared_ip_refusal: bool,
    /// Union of the node sets of `ads_for_service` (step 4 and the last filter of step 5).
    pub advertised: Arc<FixedBitSet>,
    /// Candidates after each filter of step 5, then the eTP Local intersection (step 6).
    pub eligible: Arc<FixedBitSet>,
    pub after_network: Arc<FixedBitSet>,
    pub after_exclude: Arc<FixedBitSet>,
    pub candidates: Arc<FixedBitSet>,
    /// eTP Local: every node hosting a serving endpoint, candidate or not (a fact per node).
    pub local_endpoints: Option<FixedBitSet>,
    pub available: Arc<FixedBitSet>,
    /// `available` sorted by (score desc, digest asc) (step 9). Without `L2Context::full_order`
    /// only its first [`RANKS_KEPT`] are kept: the winner needs every digest but no full sort.
    pub order: Vec<Ranked>,
    /// Go's text of the hashed IP.
    pub ip: CompactString,
    /// Newer MetalLB: summed preference per node name over the Service-matching ads.
    pub scores: Option<BTreeMap<String, i64>>,
    /// The release's switches the election ran under.
    pub rules: Rules,
}

/// `l2AdsForService`: ads with no service selectors, or with one that matches.
pub fn ads_for_service(ads: &[&L2Ad], labels: &(impl crate::k8s::labels::LabelLookup + ?Sized)) -> Vec<usize> {
    ads.iter()
        .enumerate()
        .filter(|(_, ad)| ad.service_selectors.is_empty() || ad.service_selectors.iter().any(|s| s.matches(labels)))
        .map(|(i, _)| i)
        .collect()
}

/// `nodesWithEndpoint`: nodes of `within` hosting an endpoint that can serve.
pub fn nodes_with_endpoint(endpoints: &[EndpointInput], within: &FixedBitSet) -> FixedBitSet {
    let mut out = FixedBitSet::with_capacity(within.len());
    for node in endpoints.iter().filter(|e| e.can_serve).filter_map(|e| e.node) {
        if within.contains(node) {
            out.insert(node);
        }
    }
    out
}

/// Newer MetalLB: each node's summed preference over the Service-matching ads; `None` is Go's nil map.
pub fn preferred_scores(ads: &[&L2Ad]) -> Option<BTreeMap<String, i64>> {
    let mut scores: BTreeMap<String, i64> = BTreeMap::new();
    for (node, weight) in ads.iter().filter_map(|a| a.preferred.as_ref()).flatten() {
        *scores.entry(node.clone()).or_default() += weight;
    }
    (!scores.is_empty()).then_some(scores)
}

/// Every candidate with its score and digest; each digest is computed once, in one batch.
fn ranked(
    table: &NodeTable,
    candidates: impl Iterator<Item = NodeId>,
    ip: &str,
    score: impl Fn(NodeId) -> i64,
) -> Vec<Ranked> {
    let nodes: Vec<NodeId> = candidates.collect();
    let digests = election_digests(nodes.iter().map(|&n| table.hashed(n)), ip);
    nodes.into_iter().zip(digests).map(|(node, digest)| Ranked { node, score: score(node), digest }).collect()
}

/// The election order: score descending, then digest ascending (spec §4.2 step 9).
fn election_order(a: &Ranked, b: &Ranked) -> std::cmp::Ordering {
    b.score.cmp(&a.score).then_with(|| a.digest.cmp(&b.digest))
}

/// Sorts the candidates into the election order.
pub fn sort_candidates(
    table: &NodeTable,
    candidates: impl Iterator<Item = NodeId>,
    ip: &str,
    score: impl Fn(NodeId) -> i64,
) -> Vec<Ranked> {
    let mut order = ranked(table, candidates, ip, score);
    order.sort_unstable_by(election_order);
    order
}

/// The first `k` nodes of the election order. Digests stream through a list of the `k` best so
/// far: nothing per candidate is kept (the whole order of one Service on 1,000 nodes is ~100 KB).
pub fn top_candidates(
    table: &NodeTable,
    candidates: impl Iterator<Item = NodeId>,
    ip: &str,
    score: impl Fn(NodeId) -> i64,
    scored: bool,
    k: usize,
) -> Vec<Ranked> {
    // Exactly `k`: an Election per Service holds it until its report is written.
    let mut best: Vec<Ranked> = Vec::with_capacity(k);
    if k == 0 {
        return best;
    }
    let items = candidates.map(|n| {
        let (name, block) = table.hashed(n);
        (n, name, block)
    });
    // Without preference scores the digest alone orders: once `k` are kept, a digest whose first
    // word is above the k-th's loses, and is not handed over at all.
    let bound = std::cell::Cell::new(u32::MAX);
    each_election_digest(items, ip, &bound, |node, digest| {
        let score = score(node);
        // Nearly every candidate loses to the k-th best: decide that before building anything.
        if let Some(last) = best.get(k - 1) {
            if last.score.cmp(&score).then_with(|| digest.cmp(&last.digest)).is_ge() {
                return;
            }
        }
        let r = Ranked { node, score, digest: *digest };
        let at = best.partition_point(|b| election_order(b, &r).is_lt());
        if best.len() == k {
            best.pop();
        }
        best.insert(at, r);
        if !scored && best.len() == k {
            bound.set(best[k - 1].digest.0[0]);
        }
    });
    best
}

/// How many of the election order a report keeps without `L2Context::full_order`.
pub const RANKS_KEPT: usize = 5;

/// Runs the election once for a Service whose pool has the advertisements `pool_ads`.
pub fn elect(ctx: &L2Context, pool_ads: &[AdNodes], svc: &ServiceInput) -> Election {
    let n = ctx.nodes.len();
    let active_endpoint = svc.endpoints.iter().any(|e| e.can_serve);
    let ads: Vec<&L2Ad> = pool_ads.iter().map(|a| a.ad).collect();
    // Before v0.16.0 advertisements have no serviceSelectors: every ad of the pool applies (L-6).
    let ads_for_service =
        if ctx.rules.service_selectors { ads_for_service(&ads, svc.labels) } else { (0..ads.len()).collect() };
    let shared_ip_refusal = ctx.rules.head
        && svc.shared_ip_annotation
        && ads_for_service.iter().any(|&i| !ads[i].service_selectors.is_empty());

    let mut advertised = FixedBitSet::with_capacity(n);
    for &i in &ads_for_service {
        advertised.union_with(&pool_ads[i].nodes);
    }

    let NodeFilters { eligible, after_network, after_exclude } = ctx.filters.clone();
    let mut candidates = advertised.clone();
    candidates.intersect_with(&after_exclude);

    let (local_endpoints, available) = if svc.etp_local {
        // The fact, on every node: a node a filter removed still shows the endpoint it hosts.
        let mut every = FixedBitSet::with_capacity(candidates.len());
        every.insert_range(..);
        let local = nodes_with_endpoint(svc.endpoints, &every);
        let mut available = local.clone();
        available.intersect_with(&candidates);
        (Some(local), available)
    } else {
        (None, candidates.clone())
    };

    let ip = CompactString::from(go_ip_string(svc.ip));
    let scores = if ctx.rules.head {
        let matching: Vec<&L2Ad> = ads_for_service.iter().map(|&i| ads[i]).collect();
        preferred_scores(&matching)
    } else {
        None
    };
    let score = |node: NodeId| scores.as_ref().and_then(|s| s.get(ctx.nodes.name(node))).copied().unwrap_or(0);
    // Steps 1 and 3 return before any candidate is ranked: there is no order to report.
    let order = if !active_endpoint || shared_ip_refusal {
        Vec::new()
    } else if ctx.full_order {
        sort_candidates(ctx.nodes, available.ones(), &ip, score)
    } else {
        top_candidates(ctx.nodes, available.ones(), &ip, score, scores.is_some(), RANKS_KEPT)
    };

    let share = |set: FixedBitSet| match ctx.sets {
        Some(held) => held.hold(set),
        None => Arc::new(set),
    };
    Election {
        active_endpoint,
        ads_for_service,
        shared_ip_refusal,
        advertised: share(advertised),
        eligible,
        after_network,
        after_exclude,
        candidates: share(candidates),
        local_endpoints,
        available: share(available),
        order,
        ip,
        scores,
        rules: ctx.rules,
    }
}

impl L2Context<'_> {
    /// The exclude label removes candidates: the release filters on it (v0.14.0, L-4) and
    /// `--ignore-exclude-lb` is off, or the release does not have the flag yet (v0.14.4).
    pub fn exclude_label_applies(&self) -> bool {
        exclude_label_applies(self.rules, self.ignore_exclude_lb)
    }

    /// Memberlist is disabled and the release then has no candidates at all (L-2).
    pub fn nobody_without_memberlist(&self) -> bool {
        matches!(self.liveness, Liveness::Disabled) && !self.rules.memberlist_disabled_announces
    }
}

impl Election {
    /// What the speaker on `node` returns from `ShouldAnnounce` (spec §4.2).
    pub fn reason(&self, node: NodeId) -> L2Reason {
        if !self.active_endpoint {
            return L2Reason::NotOwner;
        }
        if self.shared_ip_refusal {
            return L2Reason::SharedIpWithServiceSelector;
        }
        if !self.advertised.contains(node) {
            // L-6: the reason exists from v0.16.0; before, such a node answers notOwner.
            return if self.rules.service_selectors { L2Reason::NoMatchingAdvertisement } else { L2Reason::NotOwner };
        }
        match self.order.first() {
            Some(first) if first.node == node => L2Reason::Announce,
            _ => L2Reason::NotOwner,
        }
    }

    /// The first node of the election order (spec §11), or `None` when nobody can announce.
    pub fn expected_announcer(&self) -> Option<NodeId> {
        if !self.active_endpoint || self.shared_ip_refusal {
            return None;
        }
        self.order.first().map(|r| r.node)
    }

    /// 1-based rank of every node in the order (`None` when not ranked), indexed by node.
    pub fn ranks(&self, n_nodes: usize) -> Vec<Option<usize>> {
        let mut ranks = vec![None; n_nodes];
        for (i, r) in self.order.iter().enumerate() {
            ranks[r.node] = Some(i + 1);
        }
        ranks
    }

    /// Every filter that keeps `node` from announcing, in filter order.
    pub fn exclusions(&self, node: NodeId, rank: Option<usize>, ctx: &L2Context) -> Vec<Exclusion> {
        let mut out = Vec::new();
        if !self.active_endpoint {
            out.push(Exclusion::NoServingEndpoint);
        }
        if self.shared_ip_refusal {
            out.push(Exclusion::SharedIpRefused);
        }
        if ctx.nobody_without_memberlist() {
            out.push(Exclusion::MemberlistDisabled);
        }
        if matches!(ctx.liveness, Liveness::Memberlist(_)) && !self.eligible.contains(node) {
            out.push(Exclusion::NoSpeaker);
        }
        if ctx.rules.network_unavailable_filter && ctx.nodes.network_unavailable.contains(node) {
            out.push(Exclusion::NetworkUnavailable);
        }
        if ctx.rules.cordon_filter && ctx.nodes.unschedulable.contains(node) {
            out.push(Exclusion::Cordoned);
        }
        if ctx.exclude_label_applies() && ctx.nodes.excluded.contains(node) {
            out.push(Exclusion::ExcludeLabel);
        }
        if !self.advertised.contains(node) {
            out.push(Exclusion::NotSelected);
        }
        if let Some(local) = &self.local_endpoints {
            if !local.contains(node) {
                out.push(Exclusion::NoLocalEndpoint);
            }
        }
        if rank.is_some_and(|r| r > 1) {
            out.push(Exclusion::LostElection);
        }
        out
    }

    /// Every node that does not announce, grouped by the first filter that removes it (the order
    /// of [`Election::exclusions`], without the Service-wide steps 1 and 3): the same partition
    /// the per-node rows give, from the sets alone.
    pub fn exclusion_groups(&self, ctx: &L2Context) -> Vec<(Exclusion, FixedBitSet)> {
        let n = ctx.nodes.len();
        let mut rest = FixedBitSet::with_capacity(n);
        rest.insert_range(..);
        let mut out = Vec::new();
        let mut take = |x: Exclusion, removed: FixedBitSet, rest: &mut FixedBitSet| {
            rest.difference_with(&removed);
            if !removed.is_clear() {
                out.push((x, removed));
            }
        };
        let outside = |rest: &FixedBitSet, keep: &FixedBitSet| {
            let mut s = rest.clone();
            s.difference_with(keep);
            s
        };
        let inside = |rest: &FixedBitSet, set: &FixedBitSet| {
            let mut s = rest.clone();
            s.intersect_with(set);
            s
        };
        if ctx.nobody_without_memberlist() {
            take(Exclusion::MemberlistDisabled, rest.clone(), &mut rest);
        }
        if matches!(ctx.liveness, Liveness::Memberlist(_)) {
            take(Exclusion::NoSpeaker, outside(&rest, &self.eligible), &mut rest);
        }
        if ctx.rules.network_unavailable_filter {
            take(Exclusion::NetworkUnavailable, inside(&rest, &ctx.nodes.network_unavailable), &mut rest);
        }
        if ctx.rules.cordon_filter {
            take(Exclusion::Cordoned, inside(&rest, &ctx.nodes.unschedulable), &mut rest);
        }
        if ctx.exclude_label_applies() {
            take(Exclusion::ExcludeLabel, inside(&rest, &ctx.nodes.excluded), &mut rest);
        }
        take(Exclusion::NotSelected, outside(&rest, &self.advertised), &mut rest);
        if let Some(local) = &self.local_endpoints {
            take(Exclusion::NoLocalEndpoint, outside(&rest, local), &mut rest);
        }
        if let Some(winner) = self.expected_announcer() {
            let mut lost = inside(&rest, &self.available);
            lost.set(winner, false);
            take(Exclusion::LostElection, lost, &mut rest);
        }
        out
    }

    /// The filter that emptied the candidate set, if it is empty: the advertised nodes are taken
    /// through the filters in order, so the answer names what removed the nodes that were meant to win.
    pub fn emptied_by(&self, ctx: &L2Context) -> Option<Exclusion> {
        // Steps 1 and 3 end the speaker's work before any candidate set exists.
        if !self.active_endpoint {
            return Some(Exclusion::NoServingEndpoint);
        }
        if self.shared_ip_refusal {
            return Some(Exclusion::SharedIpRefused);
        }
        if !self.available.is_clear() {
            return None;
        }
        let mut set = FixedBitSet::clone(&self.advertised);
        set.intersect_with(&ctx.nodes.has_object);
        if set.is_clear() {
            return Some(Exclusion::NotSelected);
        }
        set.intersect_with(&self.eligible);
        if set.is_clear() {
            return Some(if ctx.nobody_without_memberlist() {
                Exclusion::MemberlistDisabled
            } else {
                Exclusion::NoSpeaker
            });
        }
        if ctx.rules.network_unavailable_filter {
            set.difference_with(&ctx.nodes.network_unavailable);
            if set.is_clear() {
                return Some(Exclusion::NetworkUnavailable);
            }
        }
        if ctx.rules.cordon_filter {
            set.difference_with(&ctx.nodes.unschedulable);
            if set.is_clear() {
                return Some(Exclusion::Cordoned);
            }
        }
        if ctx.exclude_label_applies() {
            set.difference_with(&ctx.nodes.excluded);
            if set.is_clear() {
                return Some(Exclusion::ExcludeLabel);
            }
        }
        Some(Exclusion::NoLocalEndpoint)
    }
}

/// `ipAdvertisementFor`: all interfaces if any ad has no interface list, else the union.
pub fn ip_advertisement_for(ads: &[&L2Ad]) -> (bool, BTreeSet<String>) {
    if ads.iter().any(|a| a.all_interfaces) {
        return (true, BTreeSet::new());
    }
    (false, ads.iter().flat_map(|a| a.interfaces.iter().cloned()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The streamed top `k`, with the digests past the k-th's first word never handed over,
        /// are the first `k` of the whole election order, with preference scores or without.
        #[test]
        fn the_top_k_are_the_first_k_of_the_whole_order(
            // Some names too long for one block with the address.
            names in prop::collection::btree_set("node-[a-z0-9]{1,12}|long-[a-z]{36,44}", 1..200),
            ip in "198\\.51\\.100\\.[0-9]{1,3}",
            k in 1usize..8,
            scored in any::<bool>(),
            // Every node a candidate, or about a third, or two thirds.
            keep in prop::collection::vec(0u8..3, 200),
            density in 0u8..3,
        ) {
            let table = NodeTable::new(names.iter().map(|name| NodeFacts {
                name,
                has_object: true,
                network_unavailable: false,
                excluded: false,
                unschedulable: false,
            }));
            let score = |n: NodeId| if scored { (n % 3) as i64 } else { 0 };
            let candidates = || (0..table.len()).filter(|&n| density == 0 || keep[n] < density);
            let whole = sort_candidates(&table, candidates(), &ip, score);
            let top = top_candidates(&table, candidates(), &ip, score, scored, k);
            let want: Vec<_> = whole.iter().take(k).map(|r| (r.node, r.score, r.digest)).collect();
            let got: Vec<_> = top.iter().map(|r| (r.node, r.score, r.digest)).collect();
            prop_assert_eq!(got, want);
        }
    }
}
