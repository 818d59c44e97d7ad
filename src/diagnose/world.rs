//! Everything derived once per snapshot that every Service's evaluation shares.

use compact_str::CompactString;
use std::collections::BTreeMap;

use crate::fast_hash::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use fixedbitset::FixedBitSet;
use rayon::prelude::*;

use super::bgp::BgpIndex;
use crate::k8s::{endpoint_can_serve_under, has_exclude_label, is_network_unavailable, EXCLUDE_LB_LABEL};
use crate::metallb::actual::{ActualIndex, BgpActualIndex};
use crate::metallb::alloc::pools::Pools;
use crate::metallb::alloc::replay::{refused_configuration, replay, Replay};
use crate::metallb::alloc::svc::SvcView;
use crate::metallb::bgp::speaker::per_address_health;
use crate::metallb::config::{self, Config, ConfigError, ConfigInput};
use crate::metallb::install::{self, Overrides, Setup};
use crate::metallb::l2::{EndpointInput, L2Context, Liveness, NodeFacts, NodeFilters, NodeTable};
use crate::metallb::release::{Release, Rules};
use crate::metallb::service::class_handled;
use crate::snapshot::{Memberlist, Snapshot};

pub struct World<'a> {
    pub snap: &'a Snapshot,
    /// The installation as the snapshot shows it; a what-if World shares its origin's.
    pub setup: Arc<Setup>,
    /// What no edit of a node's readiness changes, shared by the what-if Worlds derived from
    /// this one (`with_node_down`): reached through `Deref`, so `world.config` reads it.
    shared: Arc<Shared<'a>>,
    /// The Service-independent node filters, per release rules they were computed under.
    l2_filters: std::sync::Mutex<Vec<(Rules, NodeFilters)>>,
    pub liveness: Liveness,
    /// Nodes running a live speaker Pod; `None` when speakers are assumed everywhere.
    pub live_speakers: Option<FixedBitSet>,
    /// Nodes where a live (or assumed) speaker acts: the live speakers, else every Node object.
    pub acting: FixedBitSet,
    /// `acting` without the nodes that reject the configuration (B-5): their BGP verdicts are
    /// unknown.
    pub bgp_acting: FixedBitSet,
    /// The endpoints of the Services that a node going down changed, in place of `endpoints`'.
    endpoints_after: HashMap<EndpointsKey, Vec<EndpointInput>>,
}

/// The part of a [`World`] that depends on the objects' configuration and labels only.
pub struct Shared<'a> {
    pub config: Result<Config, ConfigError>,
    /// MetalLB's controller replayed over every Service; `None` without MetalLB or a valid
    /// controller configuration.
    replay: OnceLock<Option<Replay<'a>>>,
    refused_pools: OnceLock<Option<String>>,
    /// The configuration as MetalLB's controller parses it (pools, communities, namespaces).
    pub controller_config: Result<Config, ConfigError>,
    /// The same CRs read under the release LBD107 compares with, when it could change an answer:
    /// the newest release for an older cluster (what an upgrade changes), main for v0.16.x when
    /// newer rules can matter, v0.16.1 for main.
    pub alternate: Option<(Rules, Config)>,
    pub table: NodeTable,
    /// B-5: the nodes that reject the configuration while others run it, with their error.
    pub rejected_on: Vec<(Vec<String>, ConfigError)>,
    /// The same nodes as a set.
    pub rejecting: FixedBitSet,
    /// Per Service, its endpoints as the speakers judge them: read through `endpoints_of`.
    endpoints: HashMap<EndpointsKey, Vec<EndpointInput>>,
    pub actual: ActualIndex,
    pub bgp_actual: BgpActualIndex,
    /// BGP node sets and pool compatibility; `None` without a valid configuration.
    pub(crate) bgp: Option<BgpIndex>,
    /// Shared by every Service's node rows, which would otherwise copy them per Service.
    pub node_names: Vec<Arc<str>>,
    pub node_roles: Vec<Arc<[String]>>,
    /// The nodes of each role: whether a whole group shares one is a subset test, not a string
    /// comparison per node and Service.
    pub role_nodes: HashMap<String, FixedBitSet>,
    pub exclude_values: Vec<Option<String>>,
    /// Node-name lists handed out by `node_list`, by node set.
    node_lists: Mutex<HashMap<FixedBitSet, Arc<[Arc<str>]>>>,
    /// The verdicts' clauses about the node groups the filters removed, by what decides their
    /// words: many Services' reports repeat them word for word.
    pub tails: crate::intern::Memo<Vec<super::verdict::Clause>, str>,
    /// The node groups of the layer-2 verdicts (counts, and names when listed): most Services
    /// of a cluster have the same ones.
    pub groups: crate::intern::Interned<[crate::report::NodeGroup]>,
    /// Lists of object names many reports repeat (a pool's advertisements).
    pub names: crate::intern::Interned<[String]>,
    /// The layer-2 elections' node sets (advertised, candidates, available): the Services of one
    /// advertisement group share them.
    sets: crate::intern::Interned<FixedBitSet>,
}

impl<'a> std::ops::Deref for World<'a> {
    type Target = Shared<'a>;
    fn deref(&self) -> &Shared<'a> {
        &self.shared
    }
}

impl<'a> World<'a> {
    pub fn build(snap: &'a Snapshot, overrides: &Overrides) -> World<'a> {
        let setup = install::discover(snap, overrides);
        let ns = setup.namespace.as_str();
        let in_ns = |o: &str| o == ns;
        let namespaces: Vec<(String, crate::k8s::selector::Labels)> = snap
            .namespaces
            .iter()
            .map(|n| (n.metadata.name.clone().unwrap_or_default(), n.metadata.labels.clone().unwrap_or_default()))
            .collect();
        let input = ConfigInput {
            pools: snap.metallb.ip_address_pools.iter().filter(|o| in_ns(o.namespace())).collect(),
            l2_advertisements: snap.metallb.l2_advertisements.iter().filter(|o| in_ns(o.namespace())).collect(),
            bgp_advertisements: snap.metallb.bgp_advertisements.iter().filter(|o| in_ns(o.namespace())).collect(),
            communities: snap.metallb.communities.iter().filter(|o| in_ns(o.namespace())).collect(),
            bgp_peers: snap.metallb.bgp_peers.iter().filter(|o| in_ns(o.namespace())).collect(),
            bfd_profiles: snap.metallb.bfd_profiles.iter().filter(|o| in_ns(o.namespace())).collect(),
            bgp_type: Some(setup.bgp_type),
            nodes: &snap.nodes,
            namespaces: &namespaces,
        };
        // The configurations and the node-side indexes read the snapshot independently: built
        // side by side, as everything after waits for both (a third of the World's
        // 9 ms on 1,000 nodes and 10,000 Services).
        let ((config, rejected_on, controller_config, alternate), (table, endpoints)) = rayon::join(
            || {
                let mut config = config::parse(&input, setup.rules());
                // B-5: from v0.16.0 a rejection may hold only on the nodes whose BGP objects fail.
                let mut rejected_on = Vec::new();
                if config.is_err() && setup.rules().per_node_bgp_config {
                    if let Some(per_node) = config::parse_per_node(&input, setup.rules()) {
                        config = Ok(per_node.config);
                        rejected_on = per_node.rejected;
                    }
                }
                // The controller reads only pools, communities and namespaces: a broken
                // advertisement stops the speakers, not allocation.
                let controller_input = ConfigInput {
                    pools: input.pools.clone(),
                    communities: input.communities.clone(),
                    l2_advertisements: Vec::new(),
                    bgp_advertisements: Vec::new(),
                    bgp_peers: Vec::new(),
                    bfd_profiles: Vec::new(),
                    bgp_type: None,
                    // It is given no Nodes either (C-23).
                    nodes: &[],
                    ..input
                };
                let controller_config = config::parse(&controller_input, setup.controller_release.rules());
                // main differs from v0.16.x only through preferredNodeSelectors and allow-shared-ip (spec §12).
                let newer_rules_matter =
                    input.l2_advertisements.iter().any(|a| !a.spec.preferred_node_selectors.is_empty())
                        || snap.services.iter().any(crate::metallb::service::has_shared_ip_annotation);
                let alternate_release = match setup.release {
                    Release::Main => Some(Release::NEWEST),
                    r if r < Release::V0_16_0 => Some(Release::NEWEST),
                    _ if newer_rules_matter => Some(Release::Main),
                    _ => None,
                };
                let alternate =
                    alternate_release.map(Release::rules).and_then(|r| Some((r, config::parse(&input, r).ok()?)));
                (config, rejected_on, controller_config, alternate)
            },
            || {
                let speaker_nodes: Vec<String> =
                    setup.speaker_pods.iter().flatten().filter_map(|p| p.node.clone()).collect();
                let facts = snap
                    .nodes
                    .iter()
                    .map(|n| NodeFacts {
                        name: n.metadata.name.as_deref().unwrap_or(""),
                        has_object: true,
                        network_unavailable: is_network_unavailable(n),
                        excluded: has_exclude_label(n),
                        unschedulable: n.spec.as_ref().and_then(|s| s.unschedulable) == Some(true),
                    })
                    .chain(speaker_nodes.iter().map(|name| NodeFacts {
                        name,
                        has_object: false,
                        network_unavailable: false,
                        excluded: false,
                        unschedulable: false,
                    }));
                let table = NodeTable::new(facts);
                let endpoints = endpoints_of_slices(snap.endpoint_slices.iter(), &table, setup.rules(), None);
                (table, endpoints)
            },
        );

        let live_speakers = setup.speaker_pods.as_ref().map(|pods| {
            let live: Vec<String> = pods.iter().filter(|p| p.live).filter_map(|p| p.node.clone()).collect();
            table.set_of(&live)
        });
        let liveness = match (&live_speakers, setup.memberlist) {
            (Some(live), Memberlist::Enabled) => Liveness::Memberlist(live.clone()),
            _ => Liveness::Disabled,
        };

        let node_names: Vec<Arc<str>> = table.names.iter().map(|n| Arc::from(n.as_str())).collect();
        let mut node_roles: Vec<Arc<[String]>> = vec![Arc::from(Vec::new()); table.len()];
        let mut exclude_values = vec![None; table.len()];
        for n in &snap.nodes {
            let Some(id) = n.metadata.name.as_deref().and_then(|name| table.id(name)) else {
                continue;
            };
            let labels = n.metadata.labels.clone().unwrap_or_default();
            node_roles[id] = roles(&labels).into();
            exclude_values[id] = labels.get(EXCLUDE_LB_LABEL).cloned();
        }
        let mut role_nodes: HashMap<String, FixedBitSet> = HashMap::default();
        for (id, roles) in node_roles.iter().enumerate() {
            for role in roles.iter() {
                role_nodes.entry(role.clone()).or_insert_with(|| FixedBitSet::with_capacity(table.len())).insert(id);
            }
        }

        let actual = ActualIndex::new(snap, ns);
        let bgp_actual = BgpActualIndex::new(snap, ns);
        let acting = live_speakers.clone().unwrap_or_else(|| table.has_object.clone());
        let mut rejecting = FixedBitSet::with_capacity(table.len());
        for name in rejected_on.iter().flat_map(|(nodes, _)| nodes) {
            rejecting.extend(table.id(name));
        }
        // Their speakers run a configuration the snapshot does not show: no BGP verdict.
        let mut bgp_acting = acting.clone();
        bgp_acting.difference_with(&rejecting);
        let bgp = config.as_ref().ok().map(|c| BgpIndex::build(c, snap, &table));
        World {
            snap,
            setup: Arc::new(setup),
            shared: Arc::new(Shared {
                config,
                replay: OnceLock::new(),
                refused_pools: OnceLock::new(),
                controller_config,
                alternate,
                table,
                rejected_on,
                rejecting,
                endpoints,
                actual,
                bgp_actual,
                bgp,
                node_names,
                node_roles,
                role_nodes,
                exclude_values,
                node_lists: Mutex::default(),
                tails: Default::default(),
                groups: Default::default(),
                names: Default::default(),
                sets: Default::default(),
            }),
            l2_filters: Default::default(),
            liveness,
            live_speakers,
            acting,
            bgp_acting,
            endpoints_after: HashMap::default(),
        }
    }

    /// This World after `node` stops, as `simulate --down` edits the snapshot: every Pod on it
    /// stops being Ready (so its speaker leaves), its endpoints go, and the Node object stays.
    /// Nothing the configuration or the labels decide moves, so that part is shared, not
    /// rebuilt: what-if per node at the cost of what moves. The Setup describes the
    /// installation as listed (its speaker Pods keep their readiness there); the engines read
    /// a speaker's liveness from `live_speakers`, `liveness` and `acting`, which the stop changes. `slices` are the EndpointSlices of
    /// the Services read from the result (the others keep this World's endpoints). MetalLB's
    /// answers only: Cilium, ServiceLB and kube-vip read the snapshot itself
    /// (`Prepared::metallb_only`).
    pub fn with_node_down<'s>(
        &self,
        node: &str,
        slices: impl Iterator<Item = &'s crate::snapshot::EndpointSlice>,
    ) -> World<'a> {
        let id = self.table.id(node);
        let mut live_speakers = self.live_speakers.clone();
        if let (Some(live), Some(id)) = (live_speakers.as_mut(), id) {
            live.set(id, false);
        }
        let liveness = match (&live_speakers, &self.liveness) {
            (Some(live), Liveness::Memberlist(_)) => Liveness::Memberlist(live.clone()),
            (_, other) => other.clone(),
        };
        let acting = live_speakers.clone().unwrap_or_else(|| self.table.has_object.clone());
        let mut bgp_acting = acting.clone();
        bgp_acting.difference_with(&self.rejecting);
        let endpoints_after = endpoints_of_slices(slices, &self.table, self.setup.rules(), Some(node));
        World {
            snap: self.snap,
            setup: self.setup.clone(),
            shared: self.shared.clone(),
            l2_filters: Default::default(),
            liveness,
            live_speakers,
            acting,
            bgp_acting,
            endpoints_after,
        }
    }

    /// The endpoints of a Service, as the speakers judge them.
    pub fn endpoints_of(&self, namespace: &str, name: &str) -> &[EndpointInput] {
        // Names of up to 24 bytes take no allocation to look up.
        let key = (CompactString::from(namespace), CompactString::from(name));
        if let Some(after) = self.endpoints_after.get(&key) {
            return after;
        }
        self.endpoints.get(&key).map(Vec::as_slice).unwrap_or_default()
    }

    /// The names of `nodes`, sorted, as one list shared by every caller asking for the same set.
    pub fn node_list(&self, nodes: impl Iterator<Item = usize>) -> Arc<[Arc<str>]> {
        let mut set = FixedBitSet::with_capacity(self.table.len());
        set.extend(nodes);
        let mut lists = self.node_lists.lock().unwrap_or_else(|e| e.into_inner());
        lists.entry(set).or_insert_with_key(|set| set.ones().map(|n| self.node_names[n].clone()).collect()).clone()
    }

    /// Replays MetalLB's controller over every Service. Sequential by nature, so callers run it
    /// beside the (parallel) speaker evaluation. The allocator keeps which Service holds which
    /// address (`pools` lists them); see [`World::run_replay_for_reports`].
    pub fn run_replay(&self) {
        self.replay_keeping(true)
    }

    /// [`World::run_replay`] for the reports, which read each Service's outcome and the pools'
    /// counters but not the allocator's assignments: those are freed when it is over.
    pub fn run_replay_for_reports(&self) {
        self.replay_keeping(false)
    }

    fn replay_keeping(&self, assignments: bool) {
        let (replay, refused) = match (&self.controller_config, self.setup.installed) {
            (Ok(cfg), true) => {
                let pools = Pools::from_list(cfg.pools.iter().map(|p| p.alloc.clone()).collect());
                let rules = self.setup.controller_release.rules();
                let views: Vec<SvcView> =
                    self.snap.services.par_iter().map(|s| SvcView::from_service(s).under(&rules)).collect();
                let lb_class = &self.setup.lb_class;
                let handled = |v: &SvcView| class_handled(v.load_balancer_class, lb_class);
                // C-12: the controller runs on with pools the snapshot does not hold: unknown.
                // Only v0.13.x refuses, so only then are the held IPs checked.
                let refused =
                    if rules.pools_may_orphan { None } else { refused_configuration(&pools, &views, handled) };
                match refused {
                    Some(line) => (None, Some(line)),
                    None => {
                        let mut r = replay(pools, views, rules, handled);
                        if !assignments {
                            r.controller.alloc.forget_assignments();
                        }
                        (Some(r), None)
                    }
                }
            }
            _ => (None, None),
        };
        let _ = self.shared.replay.set(replay);
        let _ = self.shared.refused_pools.set(refused);
    }

    /// C-12: the log line of a v0.13.x controller refusing the snapshot's pools; `None` when it
    /// takes them (or before `run_replay`).
    pub fn refused_pools(&self) -> Option<&str> {
        self.refused_pools.get().and_then(|r| r.as_deref())
    }

    /// The controller replay; `None` before `run_replay`, without MetalLB, or when its
    /// configuration is rejected.
    pub fn replay(&self) -> Option<&Replay<'a>> {
        self.replay.get().and_then(Option::as_ref)
    }

    pub fn l2_context(&self, rules: Rules, full_order: bool) -> L2Context<'_> {
        let filters = {
            let mut cache = self.l2_filters.lock().unwrap_or_else(|e| e.into_inner());
            match cache.iter().find(|(r, _)| *r == rules) {
                Some((_, f)) => f.clone(),
                None => {
                    let f = NodeFilters::new(&self.table, &self.liveness, self.setup.ignore_exclude_lb, rules);
                    cache.push((rules, f.clone()));
                    f
                }
            }
        };
        L2Context {
            nodes: &self.table,
            liveness: &self.liveness,
            ignore_exclude_lb: self.setup.ignore_exclude_lb,
            rules,
            full_order,
            filters,
            sets: Some(&self.sets),
        }
    }

    /// Does a speaker answer on this node? `None` when speakers are only assumed.
    pub fn speaker_live(&self, node: usize) -> Option<bool> {
        self.live_speakers.as_ref().map(|l| l.contains(node))
    }

    /// Would a live (or assumed) speaker act on this node?
    pub fn speaker_acts(&self, node: usize) -> bool {
        self.acting.contains(node)
    }
}

/// Per Service, its endpoints as the speakers of `rules` judge them; `without` a node's endpoints
/// when it is down.
/// A Service's namespace and name, as its EndpointSlices say them.
type EndpointsKey = (CompactString, CompactString);

fn endpoints_of_slices<'s>(
    slices: impl Iterator<Item = &'s crate::snapshot::EndpointSlice>,
    table: &NodeTable,
    rules: Rules,
    without: Option<&str>,
) -> HashMap<EndpointsKey, Vec<EndpointInput>> {
    let mut endpoints: HashMap<EndpointsKey, Vec<EndpointInput>> = HashMap::default();
    // B-3: before v0.16.0 BGP weighs each address, the worst endpoint carrying it winning;
    // only then are the addresses kept, beside their endpoints.
    let per_address = !rules.bgp_health_per_endpoint;
    let mut addresses: HashMap<EndpointsKey, Vec<&[CompactString]>> = HashMap::default();
    for slice in slices {
        let Some(svc) = &slice.service else {
            continue;
        };
        let key = (slice.namespace.clone(), svc.clone());
        let kept = || slice.endpoints.iter().filter(|e| without.is_none() || e.node_name.as_deref() != without);
        if per_address {
            addresses.entry(key.clone()).or_default().extend(kept().map(|e| &e.addresses[..]));
        }
        let list = endpoints.entry(key).or_default();
        for ep in kept() {
            let can_serve = endpoint_can_serve_under(ep.conditions.as_ref(), rules.can_serve);
            let healthy = can_serve && !ep.addresses.is_empty();
            list.push(EndpointInput {
                node: ep.node_name.as_deref().and_then(|n| table.id(n)),
                can_serve,
                ready: ep.conditions.as_ref().and_then(|c| c.ready),
                serving: ep.conditions.as_ref().and_then(|c| c.serving),
                has_addresses: !ep.addresses.is_empty(),
                bgp_healthy_on_node: healthy,
                bgp_healthy_anywhere: healthy,
            });
        }
    }
    for (key, addresses) in &addresses {
        let list = endpoints.get_mut(key).expect("filled beside it");
        let input: Vec<(Option<usize>, bool, &[CompactString])> =
            list.iter().zip(addresses).map(|(e, a)| (e.node, e.can_serve, *a)).collect();
        for (e, (local, any)) in list.iter_mut().zip(per_address_health(&input)) {
            e.bgp_healthy_on_node = local;
            e.bgp_healthy_anywhere = any;
        }
    }
    endpoints
}

fn roles(labels: &BTreeMap<String, String>) -> Vec<String> {
    let mut out: Vec<String> = labels
        .keys()
        .filter_map(|k| k.strip_prefix("node-role.kubernetes.io/"))
        .filter(|r| !r.is_empty())
        .map(str::to_string)
        .collect();
    out.sort();
    out
}
