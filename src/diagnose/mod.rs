//! Runs the engines over a Snapshot and assembles the Report: which implementation owns each
//! Service, what MetalLB's speakers decide for it, and whether reality agrees.

pub(crate) mod access;
mod allocation;
mod bgp;
mod causes;
mod checks;
mod cilium;
mod columns;
mod implementations;
mod ownership;
mod placement;
mod pools;
mod release;
mod status;
mod verdict;
pub(crate) mod wire;
pub(crate) mod world;

pub use pools::diagnose_pools;

use std::collections::HashMap;

use crate::snapshot::Service;
use compact_str::CompactString;
use fixedbitset::FixedBitSet;
use rayon::prelude::*;

use crate::k8s::ip::go_ip_string;
use crate::metallb::actual::Observed;
use crate::metallb::config::Config;
use crate::metallb::install::Overrides;
use crate::metallb::l2::{self, AdNodes, Election, L2Context, NodeId, ServiceInput};
use crate::metallb::release::Rules;
use crate::metallb::service::{
    handles_class, has_shared_ip_annotation, ingress_ips, service_level, service_type, Withdraw,
};
use crate::report::*;
use crate::snapshot::Snapshot;
use world::World;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    All,
    Namespace(String),
    Service { namespace: String, name: String },
}

#[derive(Debug, Clone)]
pub struct Options {
    pub scope: Scope,
    /// Build the per-node rows and verdict prose (needed by JSON/YAML and the single-Service table).
    pub detail: bool,
    /// Keep every node's part in each layer-2 election (`Layer2::cells`), for `-o html`'s map.
    pub map: bool,
    pub overrides: Overrides,
}

/// Where a missing object was looked for, in an error's words.
pub(crate) fn place(snap: &Snapshot) -> &'static str {
    if snap.live {
        "the cluster"
    } else {
        "the snapshot"
    }
}

#[derive(Debug, thiserror::Error)]
pub enum DiagnoseError {
    /// `place`: "the cluster" read live, else "the snapshot".
    #[error("Service {namespace}/{name} is not in {place}{hint}")]
    ServiceNotFound { namespace: String, name: String, place: &'static str, hint: String },
    #[error("IPAddressPool {name} is not in {place}{hint}")]
    PoolNotFound { name: String, place: &'static str, hint: String },
}

/// One Service as the speakers see it, before it becomes report rows.
pub(crate) struct Evaluation<'w> {
    pub svc: &'w Service,
    /// Borrowed from the Service.
    pub namespace: &'w str,
    pub name: &'w str,
    pub handled: bool,
    pub ips: Vec<CompactString>,
    pub withdraw: Option<Withdraw>,
    pub pool: Option<usize>,
    /// Boxed, as `bgp`: an Evaluation per Service is held until its report is written.
    pub l2: Option<Box<L2Outcome>>,
    /// Only when the pool has BGPAdvertisements.
    pub bgp: Option<Box<bgp::BgpOutcome>>,
    pub observed: Option<Observed>,
}

pub(crate) struct L2Outcome {
    pub election: Election,
    /// Indices into `Config::l2_advertisements` of the pool's ads, in pool order.
    pub pool_ads: Vec<usize>,
    /// The announcer under the other MetalLB behaviour, when it differs.
    pub alternate_expected: Option<Option<NodeId>>,
}

impl L2Outcome {
    /// The node whose speaker actually answers: the expected announcer when its speaker acts.
    pub fn answering(&self, world: &World) -> Option<NodeId> {
        self.election.expected_announcer().filter(|&n| world.speaker_acts(n))
    }
}

pub fn diagnose(snap: &Snapshot, opts: &Options) -> Result<Report, DiagnoseError> {
    let world = World::build(snap, &opts.overrides);
    diagnose_in(snap, &world, opts)
}

/// [`diagnose`] over a World the caller built, for callers that read the World too.
pub(crate) fn diagnose_in(snap: &Snapshot, world: &World, opts: &Options) -> Result<Report, DiagnoseError> {
    diagnose_prepared(snap, world, &Prepared::new(snap, world), opts, false)
}

/// [`diagnose_in`] with what the World's evaluations share already prepared, for callers that
/// evaluate Services again afterwards ([`reports_of`]); `whole_lists`: brief reports keep the
/// node lists a comparison of two runs reads ([`Shape::whole_lists`]).
pub(crate) fn diagnose_prepared(
    snap: &Snapshot,
    world: &World,
    prepared: &Prepared,
    opts: &Options,
    whole_lists: bool,
) -> Result<Report, DiagnoseError> {
    let Prepared { imps, ad_sets, alternate_sets } = prepared;
    let one = matches!(opts.scope, Scope::Service { .. });

    let in_scope = |namespace: &str, name: &str| match &opts.scope {
        Scope::All => true,
        Scope::Namespace(ns) => namespace == ns,
        Scope::Service { namespace: ns, name: n } => namespace == ns && name == n,
    };
    // Every Service is evaluated (Services sharing an IP answer for each other), but only those
    // in scope get the full election order. The election's hashing dominates: spread it over the cores.
    // The controller replay is sequential; run it beside the speaker evaluation.
    let ((), mut evals) = rayon::join(
        || world.run_replay_for_reports(),
        || {
            // Filtered first so that the parallel map knows its length and writes each Evaluation
            // in place, instead of collecting per-thread vectors and copying them together.
            let candidates: Vec<&Service> = snap
                .services
                .iter()
                .filter(|s| service_type(s) == "LoadBalancer" || !ingress_ips(s).is_empty())
                .collect();
            candidates
                .par_iter()
                .map(|svc| {
                    let (ns, name) = crate::snapshot::key_of(&svc.metadata);
                    evaluate(world, ad_sets, alternate_sets, svc, opts.detail && in_scope(&ns, &name))
                })
                .collect::<Vec<Evaluation>>()
        },
    );
    evals.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));

    if let Scope::Service { namespace, name } = &opts.scope {
        if !evals.iter().any(|e| e.namespace == namespace && e.name == name) {
            let hint = match snap.services.iter().find(|s| {
                s.metadata.namespace.as_deref() == Some(namespace) && s.metadata.name.as_deref() == Some(name)
            }) {
                Some(s) => format!(
                    " as a LoadBalancer: it is of type {} and carries no load-balancer ingress",
                    service_type(s)
                ),
                None => {
                    let elsewhere: Vec<String> =
                        evals.iter().filter(|e| e.name == name).map(|e| e.namespace.to_string()).collect();
                    if elsewhere.is_empty() {
                        String::new()
                    } else {
                        format!(" (found in namespace {}: use -n)", elsewhere.join(", "))
                    }
                }
            };
            return Err(DiagnoseError::ServiceNotFound {
                namespace: namespace.clone(),
                name: name.clone(),
                place: place(snap),
                hint,
            });
        }
    }

    let answered = answered_by_ip(world, &evals);
    let bgp_findings = bgp::cluster_findings(world, &evals);

    // Cilium's per-Service work (Lease, eligible set, LB-IPAM) happens here: spread it too.
    // Each Evaluation is dropped once its report is written.
    let in_scope_evals: Vec<Evaluation> = evals.into_iter().filter(|e| in_scope(e.namespace, e.name)).collect();
    let services = in_scope_evals
        .into_par_iter()
        .map(|e| {
            service_report(
                world,
                imps,
                &e,
                &answered,
                Shape { detail: opts.detail, one, whole_lists, rows: None, map: opts.map },
            )
        })
        .collect();

    let mut report = Report {
        api_version: API_VERSION,
        kind: "Report",
        source: source_with(world, imps),
        summary: Summary::default(),
        causes: Vec::new(),
        nodes: node_facts(world),
        node_sets: node_sets(world, ad_sets),
        services,
        findings: {
            let mut f = checks::cluster_findings(world);
            f.extend(allocation::pool_findings(world));
            f.extend(bgp_findings);
            f.extend(cilium::cluster_findings(snap, imps));
            f.extend(access::findings(snap));
            // Stable: within a code, the order each check found them in.
            f.sort_by_key(|x| x.code);
            f
        },
        suppressed: Vec::new(),
        spof: None,
    };
    drop(answered);
    if let (Scope::Service { .. }, [svc]) = (&opts.scope, report.services.as_slice()) {
        let related = related_objects(world, svc);
        report.findings.retain(|f| {
            matches!(f.code, Code::LBD201 | Code::LBD230) || f.objects.iter().any(|o| related.contains(&o.to_string()))
        });
    }
    causes::conclude(&mut report);
    Ok(report)
}

pub use causes::conclude;

/// Which node answers for each IP, over every Service given (sharing Services answer for each
/// other). Borrows the Services, not their Evaluations, which are dropped as reports are written.
fn answered_by_ip<'w>(world: &World, evals: &[Evaluation<'w>]) -> Answered<'w> {
    let mut answered: Answered = Vec::new();
    for e in evals {
        if let (Some(l2), Some(ip)) = (&e.l2, e.ips.first()) {
            if let Some(node) = l2.answering(world) {
                let m = &e.svc.metadata;
                let key = (m.namespace.as_deref().unwrap_or(""), m.name.as_deref().unwrap_or(""));
                answered.push((ip.as_str().into(), key, node));
            }
        }
    }
    // Stable: the Services of one IP stay in evaluation order.
    answered.sort_by(|a, b| a.0.cmp(&b.0));
    answered
}

/// The Services (namespace, name) whose announcer answers for an IP, and that node, sorted by
/// IP: a flat list, where a map of one vector per IP took about 200 bytes per Service.
type Answered<'w> = Vec<(compact_str::CompactString, (&'w str, &'w str), NodeId)>;

/// What every Service's evaluation in a World shares beyond the World itself. Depends on the
/// configuration and the labels only, so the what-if Worlds of [`World::with_node_down`] share
/// their origin's.
pub(crate) struct Prepared<'s> {
    pub imps: implementations::Implementations<'s>,
    ad_sets: Vec<FixedBitSet>,
    alternate_sets: Vec<FixedBitSet>,
}

impl<'s> Prepared<'s> {
    pub fn new(snap: &'s Snapshot, world: &World) -> Prepared<'s> {
        Prepared {
            imps: implementations::Implementations::build(snap),
            ad_sets: world.config.as_ref().map(|c| ad_node_sets(c, world)).unwrap_or_default(),
            alternate_sets: world.alternate.as_ref().map(|(_, c)| ad_node_sets(c, world)).unwrap_or_default(),
        }
    }

    /// Only MetalLB answers for Services here: no other implementation reads the snapshot's
    /// Pods, Nodes or EndpointSlices for them.
    pub fn metallb_only(&self) -> bool {
        !(self.imps.cilium.installed || self.imps.servicelb.installed || self.imps.kube_vip.installed)
    }
}

/// The reports of `services` in `world`, as [`diagnose`] writes them, when `services` holds
/// every Service sharing an IP with one of them (they answer for each other). The World's
/// controller replay must have run.
pub(crate) fn reports_of(
    world: &World,
    prepared: &Prepared,
    services: &[&Service],
    shape: Shape,
) -> Vec<ServiceReport> {
    // Many Services (what an applied file moves) spread over the cores; a few stay on this one.
    let evals: Vec<Evaluation> = services
        .par_iter()
        .with_min_len(16)
        .map(|svc| evaluate(world, &prepared.ad_sets, &prepared.alternate_sets, svc, shape.detail))
        .collect();
    let answered = answered_by_ip(world, &evals);
    evals
        .into_par_iter()
        .with_min_len(16)
        .map(|e| service_report(world, &prepared.imps, &e, &answered, shape))
        .collect()
}

/// What a Service's cluster findings may name to concern it: the Service, its pool, its
/// advertisements and peers, and whatever its own findings name.
fn related_objects(world: &World, svc: &ServiceReport) -> std::collections::HashSet<String> {
    let ns = &world.setup.namespace;
    let mut out: std::collections::HashSet<String> =
        svc.findings.iter().flat_map(|f| &f.objects).map(ToString::to_string).collect();
    out.insert(ObjectRef::new("Service", svc.namespace.as_str(), svc.name.as_str()).to_string());
    if let Some(m) = &svc.metallb {
        out.extend(m.pool.iter().map(|p| ObjectRef::new("IPAddressPool", ns, p.as_str()).to_string()));
        if let Some(l2) = &m.layer2 {
            out.extend(l2.advertisements.iter().map(|a| ObjectRef::new("L2Advertisement", ns, a).to_string()));
        }
        if let Some(b) = &m.bgp {
            out.extend(b.advertisements.iter().map(|a| ObjectRef::new("BGPAdvertisement", ns, a).to_string()));
            out.extend(b.peers.iter().map(|p| ObjectRef::new("BGPPeer", ns, p).to_string()));
        }
    }
    out
}

fn node_facts(world: &World) -> Vec<NodeFacts> {
    let t = &world.table;
    (0..t.len())
        .map(|n| NodeFacts {
            name: world.node_names[n].clone(),
            speaker: world.speaker_live(n),
            network_unavailable: t.network_unavailable.contains(n),
            exclude_label: world.exclude_values[n].clone(),
            excluded: !world.setup.ignore_exclude_lb && t.excluded.contains(n),
            roles: world.node_roles[n].clone(),
        })
        .collect()
}

/// The nodes of every L2Advertisement, BGPAdvertisement and BGPPeer, once.
/// `ad_sets`: the L2Advertisements' node sets, as `ad_node_sets` resolved them.
fn node_sets(world: &World, ad_sets: &[FixedBitSet]) -> Vec<NodeSet> {
    let Ok(config) = world.config.as_ref() else { return Vec::new() };
    let set = |kind: &'static str, name: &str, nodes: &FixedBitSet| NodeSet {
        kind,
        name: name.to_string(),
        count: nodes.count_ones(..),
        nodes: nodes.ones().map(|n| world.node_names[n].clone()).collect(),
    };
    let mut out: Vec<NodeSet> =
        config.l2_advertisements.iter().zip(ad_sets).map(|(ad, s)| set("L2Advertisement", &ad.name, s)).collect();
    if let Some(index) = world.bgp.as_ref() {
        out.extend(
            config.bgp_advertisements.iter().zip(&index.ad_sets).map(|(ad, s)| set("BGPAdvertisement", &ad.name, s)),
        );
        out.extend(config.peers.iter().zip(&index.peer_sets).map(|(p, s)| set("BGPPeer", &p.name, s)));
    }
    out
}

/// The unreadable sources of observed announcers, when any.
fn observation_gaps(world: &World) -> Option<String> {
    let gaps: Vec<&str> = world
        .snap
        .info
        .unreadable
        .iter()
        .filter(|u| u.starts_with("events") || u.starts_with("servicel2statuses"))
        .map(String::as_str)
        .collect();
    (!gaps.is_empty()).then(|| gaps.join("; "))
}

fn ad_node_sets(config: &Config, world: &World) -> Vec<FixedBitSet> {
    config.l2_advertisements.iter().map(|ad| world.table.set_of(&ad.nodes)).collect()
}

fn evaluate<'w>(
    world: &'w World,
    ad_sets: &[FixedBitSet],
    alternate_sets: &[FixedBitSet],
    svc: &'w Service,
    detail: bool,
) -> Evaluation<'w> {
    let namespace = svc.metadata.namespace.as_deref().unwrap_or_default();
    let name = svc.metadata.name.as_deref().unwrap_or_default();
    let handled = world.setup.installed && handles_class(svc, &world.setup.lb_class);
    let ips: Vec<CompactString> = crate::metallb::service::ingress_ip_texts(svc)
        .map(|s| crate::k8s::ip::parse_go_ip(s).map_or_else(|| s.into(), |ip| go_ip_string(ip).into()))
        .collect();
    let observed = world.actual.for_service(namespace, name, &ips);
    let mut eval =
        Evaluation { svc, namespace, name, handled, ips, withdraw: None, pool: None, l2: None, bgp: None, observed };
    let Ok(config) = world.config.as_ref() else {
        return eval;
    };
    if !handled {
        return eval;
    }
    let (pool, parsed) = match service_level(svc, config) {
        Ok(ok) => ok,
        Err(w) => {
            eval.withdraw = Some(w);
            return eval;
        }
    };
    eval.pool = Some(pool);

    let endpoints = world.endpoints_of(eval.namespace, eval.name);
    let labels = svc.metadata.labels.as_ref().unwrap_or(crate::k8s::labels::LabelMap::empty());
    let input = ServiceInput {
        labels,
        shared_ip_annotation: has_shared_ip_annotation(svc),
        etp_local: svc.spec.as_ref().and_then(|s| s.external_traffic_policy.as_deref()) == Some("Local"),
        ip: parsed[0],
        endpoints,
    };

    if let (false, Some(index)) = (config.pools[pool].bgp.is_empty(), world.bgp.as_ref()) {
        eval.bgp = Some(Box::new(bgp::evaluate(world, index, config, pool, &parsed, &input)));
        // A BGP-only pool has no layer-2 election to show.
        if config.pools[pool].l2.is_empty() {
            return eval;
        }
    }
    let run = |config: &Config, sets: &[FixedBitSet], pool: usize, rules: Rules, input: &ServiceInput, full: bool| {
        let pool_ads: Vec<usize> = config.pools[pool].l2.iter().map(|pa| pa.ad).collect();
        let ads: Vec<AdNodes> =
            pool_ads.iter().map(|&i| AdNodes { ad: &config.l2_advertisements[i], nodes: sets[i].clone() }).collect();
        let ctx = world.l2_context(rules, full);
        (l2::elect(&ctx, &ads, input), pool_ads)
    };
    let (election, pool_ads) = run(config, ad_sets, pool, world.setup.rules(), &input, detail);
    let alternate_expected = world.alternate.as_ref().and_then(|&(rules, ref other)| {
        // The same CRs under the other rules; only its winner is compared, so no full order.
        let pool_name = &config.pools[pool].name;
        let their_pool = other.pools.iter().position(|p| &p.name == pool_name)?;
        // Their endpoints as the other release judges them (L-1).
        let judged: Vec<l2::EndpointInput>;
        let their_input = if rules.can_serve == world.setup.rules().can_serve {
            None
        } else {
            judged = endpoints
                .iter()
                .map(|e| l2::EndpointInput { can_serve: rules.can_serve.can_serve(e.ready, e.serving), ..*e })
                .collect();
            Some(ServiceInput { endpoints: &judged, ..input })
        };
        let (theirs, _) = run(other, alternate_sets, their_pool, rules, their_input.as_ref().unwrap_or(&input), false);
        let theirs = theirs.expected_announcer();
        (theirs != election.expected_announcer()).then_some(theirs)
    });
    eval.l2 = Some(Box::new(L2Outcome { election, pool_ads, alternate_expected }));
    eval
}

/// Per Service (namespace, name), the nodes whose layer-2 rows a report keeps.
pub(crate) type RowsKept = HashMap<(String, String), Vec<String>>;

/// What a Service's report keeps.
#[derive(Clone, Copy, Default)]
pub(crate) struct Shape<'r> {
    /// The per-node rows and the whole election order (JSON, YAML, the single-Service table).
    pub detail: bool,
    /// The report explains a single Service: every group names its nodes.
    pub one: bool,
    /// Without `detail`, the node lists a comparison of two runs reads (BGP announcers, Cilium
    /// L2's eligible nodes) are kept whole instead of cut to `NodeGroup::SHOWN`.
    pub whole_lists: bool,
    /// With `detail`, per Service (namespace, name), the nodes whose layer-2 rows are kept:
    /// a comparison reads a few. Every row when `None` or for a Service not in the map.
    pub rows: Option<&'r RowsKept>,
    /// Every node's part in the layer-2 election (`-o html`'s map).
    pub map: bool,
}

fn service_report(
    world: &World,
    imps: &implementations::Implementations,
    e: &Evaluation,
    answered: &Answered,
    shape: Shape,
) -> ServiceReport {
    let Shape { detail, one, whole_lists, rows, map } = shape;
    let spec = e.svc.spec.as_ref();
    let is_lb = service_type(e.svc) == "LoadBalancer";
    let (allocation, allocation_findings) = allocation::assess(world, e.namespace, e.name, is_lb);
    let anything_installed =
        world.setup.installed || imps.cilium.installed || imps.servicelb.installed || imps.kube_vip.installed;
    let ownership = ownership::ownership(e.svc, ownership::claimants(world, imps, e.svc), &world.names);
    let implementation = ownership::decide(anything_installed, &ownership);
    let others = cilium::service(
        world.snap,
        imps,
        &cilium::Subject::new(e.svc, e.namespace, e.name),
        &ownership.claimants,
        detail,
        map,
    );
    let ownership_finding = ownership::finding(world, imps, e, &ownership, anything_installed);
    let config = world.config.as_ref().ok();
    let shared = shared_by(world, e, answered);
    let metallb = e.handled.then(|| MetallbService {
        unknown_because: config.is_none().then(|| {
            format!("MetalLB rejects the configuration in the snapshot ({}): the speakers keep their last good configuration, which the snapshot does not show", Code::LBD201).into()
        }),
        pool: e.pool.and_then(|p| config.map(|c| c.pools[p].name.as_str().into())),
        withdraw_reason: e.withdraw,
        layer2: e.l2.as_ref().map(|l2| layer2_report(world, e, l2, &shared, Shape { detail, one, rows, map, whole_lists })),
        bgp: e.bgp.as_ref().and_then(|o| bgp::report(world, e, o, detail, whole_lists)).map(Box::new),
        bgp_reason: e
            .pool
            .zip(config)
            .filter(|(p, c)| c.pools[*p].bgp.is_empty() && world.bgp.is_some())
            .map(|_| crate::report::BgpReason::NotOwner),
    });
    let mut report = ServiceReport {
        namespace: e.namespace.into(),
        name: e.name.into(),
        type_: service_type(e.svc).into(),
        external_traffic_policy: spec
            .and_then(|s| s.external_traffic_policy.as_deref())
            .filter(|p| !p.is_empty())
            .map(CompactString::from),
        load_balancer_class: spec.and_then(|s| s.load_balancer_class.as_deref()).map(CompactString::from),
        implementation,
        // Decided from the finished report just below.
        status: ServiceStatus::Ok,
        announcer: CompactString::default(),
        observed: CompactString::default(),
        ownership,
        ips: e.ips.as_slice().into(),
        allocation,
        metallb,
        cilium: others.cilium.map(Box::new),
        servicelb: others.servicelb.map(Box::new),
        findings: {
            let mut f = Vec::new();
            f.extend(ownership_finding);
            f.extend(allocation_findings);
            f.extend(checks::service_findings(world, e, &shared));
            if let Some(o) = &e.bgp {
                f.extend(bgp::service_findings(world, e, o));
            }
            f.extend(others.findings);
            f
        },
        suppressed: Vec::new(),
    };
    report.status = status::of(&report);
    (report.announcer, report.observed) = columns::announcer_and_observed(&report);
    if !detail {
        // Bounded without --nodes all: node lists that grow with the cluster are cut after the
        // words above were decided from them.
        if let Some(l2) = report.cilium.as_mut().and_then(|c| c.l2.as_mut()).filter(|_| !whole_lists) {
            if l2.eligible.len() > NodeGroup::SHOWN {
                l2.eligible = l2.eligible.iter().take(NodeGroup::SHOWN).cloned().collect();
            }
        }
        if let Some(n) = report.cilium.as_mut().and_then(|c| c.nodeipam.as_mut()) {
            n.nodes.retain(|r| r.used);
        }
    }
    report
}

/// How much of the election order a report of many Services keeps per Service (one Service
/// explained keeps `l2::RANKS_KEPT`, `--nodes all` every candidate).
const RANKS_IN_LISTS: usize = 3;

/// Another Service whose announcer answers ARP/NDP for the same IP: MetalLB elects per Service,
/// but ARP answers per IP.
pub(super) struct SharedAnswer {
    pub node: String,
    /// `namespace/name`.
    pub service: String,
}

impl std::fmt::Display for SharedAnswer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} for {}", self.node, self.service)
    }
}

/// Every other Service whose announcer answers ARP/NDP for `e`'s IP.
fn shared_by(world: &World, e: &Evaluation, answered: &Answered) -> Vec<SharedAnswer> {
    let Some(ip) = e.l2.as_ref().map(|l2| l2.election.ip.as_str()) else {
        return Vec::new();
    };
    let from = answered.partition_point(|(held, ..)| held.as_str() < ip);
    answered[from..]
        .iter()
        .take_while(|(held, ..)| held.as_str() == ip)
        .map(|(_, key, node)| (key, node))
        .filter(|((namespace, name), _)| !(*namespace == e.namespace && *name == e.name))
        .map(|((namespace, name), node)| SharedAnswer {
            node: world.table.name(*node).to_string(),
            service: format!("{namespace}/{name}"),
        })
        .collect()
}

/// A node set's size as a report holds it (a cluster has far fewer than 2^32 nodes).
fn count(set: &FixedBitSet) -> u32 {
    u32::try_from(set.count_ones(..)).unwrap_or(u32::MAX)
}

/// `one`: the report explains a single Service, so every group names its nodes.
fn layer2_report(world: &World, e: &Evaluation, l2: &L2Outcome, shared_by: &[SharedAnswer], shape: Shape) -> Layer2 {
    let Shape { detail, one, rows, map, .. } = shape;
    let config = world.config.as_ref().expect("layer2 is only computed with a valid config");
    let el = &l2.election;
    let ctx = world.l2_context(world.setup.rules(), detail);
    let pool = &config.pools[e.pool.expect("pool is set with layer2")];
    let mut advertisements: Vec<String> = Vec::new();
    for &i in &el.ads_for_service {
        advertisements.extend(pool.l2[i].all().map(|a| config.l2_advertisements[a].name.clone()));
    }
    advertisements.sort();
    let groups = el.exclusion_groups(&ctx);
    // A report made for simulate's comparison (`rows`) is read for its rows and winner only:
    // its election order, excluded names and sentence stay as short as a brief report's (every
    // candidate of thousands of moved Services, twice, was 80 MB on 10,000 Services).
    let listed = (detail || one) && rows.is_none();
    let shown = if listed { usize::MAX } else { NodeGroup::SHOWN };
    Layer2 {
        ip: el.ip.clone(),
        expected_announcer: el.expected_announcer().map(|n| world.table.name(n).into()),
        actual_announcers: e.observed.as_ref().map(|o| o.nodes.as_slice().into()),
        actual_source: e.observed.as_ref().map(|o| o.source.into()),
        actual_unknown_because: e
            .observed
            .is_none()
            .then(|| observation_gaps(world))
            .flatten()
            .map(String::into_boxed_str),
        advertisements: world.names.hold(advertisements),
        candidates: count(&el.candidates),
        available: count(&el.available),
        emptied_by: el.emptied_by(&ctx),
        verdict: verdict::sentence(world, pool, l2, &groups, listed, shared_by),
        ranks: el
            .order
            .iter()
            .take(if listed { usize::MAX } else { RANKS_IN_LISTS })
            .enumerate()
            .map(|(i, r)| L2Rank {
                rank: i + 1,
                node: world.node_names[r.node].clone(),
                hash: Hex32(r.digest.to_bytes()),
                score: ctx.rules.head.then_some(r.score),
            })
            .collect(),
        excluded: world.groups.hold(
            groups
                .iter()
                .map(|(x, set)| NodeGroup {
                    excluded_by: *x,
                    count: set.count_ones(..),
                    // Node-wide filters name the same nodes for every Service: the top-level
                    // `nodes` lists them once. The election's losers are in `ranks`.
                    nodes: (detail || one || !(x.node_wide() || *x == Exclusion::LostElection))
                        .then(|| set.ones().take(shown).map(|n| world.node_names[n].clone()).collect()),
                })
                .collect::<Vec<_>>(),
        ),
        nodes: detail.then(|| node_rows(world, e, el, &ctx, rows).into()),
        cells: map.then(|| l2_cells(world, el, &groups)),
    }
}

/// Every node's part in one election, by node index: the first filter that removes it, else
/// where the election placed it. The groups are the same filters in the same order.
fn l2_cells(world: &World, el: &Election, groups: &[(Exclusion, FixedBitSet)]) -> Box<[L2Cell]> {
    let n = world.table.len();
    // Steps 1 and 3 end every speaker's work before any node filter runs.
    let before_filters = if !el.active_endpoint {
        Some(Exclusion::NoServingEndpoint)
    } else if el.shared_ip_refusal {
        Some(Exclusion::SharedIpRefused)
    } else {
        None
    };
    if let Some(x) = before_filters {
        return vec![L2Cell::Out(x); n].into_boxed_slice();
    }
    let mut cells = vec![L2Cell::Lost; n];
    for (x, set) in groups.iter().filter(|(x, _)| *x != Exclusion::LostElection) {
        for node in set.ones() {
            cells[node] = L2Cell::Out(*x);
        }
    }
    if let Some(winner) = el.expected_announcer() {
        cells[winner] = if world.speaker_acts(winner) { L2Cell::Announces } else { L2Cell::ElectedNoSpeaker };
    }
    cells.into_boxed_slice()
}

fn node_rows(world: &World, e: &Evaluation, el: &Election, ctx: &L2Context, rows: Option<&RowsKept>) -> Vec<L2Node> {
    let key = (e.namespace.to_string(), e.name.to_string());
    let only: Option<FixedBitSet> = rows.and_then(|r| r.get(&key)).map(|names| {
        let mut set = FixedBitSet::with_capacity(world.table.len());
        set.extend(names.iter().filter_map(|n| world.table.id(n)));
        set
    });
    let mut per_node = vec![0usize; world.table.len()];
    for ep in world.endpoints_of(e.namespace, e.name).iter().filter(|ep| ep.can_serve) {
        if let Some(n) = ep.node {
            per_node[n] += 1;
        }
    }
    let mut order: Vec<NodeId> = el.order.iter().map(|r| r.node).collect();
    // Ranked nodes first, then the rest by name (the table is already sorted by name).
    let ranks = el.ranks(world.table.len());
    let rest: Vec<NodeId> = (0..world.table.len()).filter(|n| ranks[*n].is_none()).collect();
    order.extend(rest);
    order
        .into_iter()
        .filter(|&n| only.as_ref().is_none_or(|set| set.contains(n)))
        .map(|n| {
            let rank = ranks[n];
            L2Node {
                node: world.node_names[n].clone(),
                speaker: world.speaker_live(n),
                reason: world.speaker_acts(n).then(|| el.reason(n)),
                rank,
                hash: rank.map(|r| Hex32(el.order[r - 1].digest.to_bytes())),
                score: ctx
                    .rules
                    .head
                    .then(|| el.scores.as_ref().and_then(|s| s.get(world.table.name(n))).copied().unwrap_or(0)),
                excluded_by: el.exclusions(n, rank, ctx),
                exclude_label_value: world.exclude_values[n].clone(),
                roles: world.node_roles[n].clone(),
                endpoints: per_node[n],
            }
        })
        .collect()
}

/// The implementations found, their versions and settings, as `source` reports them: what a
/// snapshot records as `detected`.
pub fn describe_installation(snap: &Snapshot) -> serde_json::Value {
    let world = World::build(snap, &Overrides::default());
    let imps = implementations::Implementations::build(snap);
    let s = source_with(&world, &imps);
    serde_json::json!({
        "implementations": s.implementations,
        "metallb": s.metallb,
        "cilium": s.cilium,
        "assumptions": s.assumptions,
    })
}

fn source_with(world: &World, imps: &implementations::Implementations) -> Source {
    let mut s = source(world);
    let mut found = Vec::new();
    if world.setup.installed {
        found.push(InstalledImplementation {
            implementation: "metallb",
            evidence: vec![format!("namespace {} ({})", world.setup.namespace, world.setup.namespace_source)],
        });
    }
    if imps.cilium.installed {
        found.push(InstalledImplementation { implementation: "cilium", evidence: imps.cilium.evidence.clone() });
        if !imps.cilium.config_found {
            s.assumptions.push(format!(
                "Cilium runs but the snapshot has no {}/cilium-config ConfigMap: its defaults are assumed (node IPAM off, LB-IPAM on, default-lb-service-ipam lbipam, L2 announcements off)",
                imps.cilium.namespace
            ));
        }
        if imps.cilium.l2_announcements && imps.nodes_without_cilium_node > 0 {
            s.assumptions.push(format!(
                "{} node(s) have no CiliumNode object: L2 policies' nodeSelectors are matched against their Node labels instead",
                imps.nodes_without_cilium_node
            ));
        }
        if imps.cilium.l2_announcements && imps.l2.lease_objects == 0 && !imps.l2.leases_listed {
            s.assumptions.push(format!(
                "the snapshot holds no Lease in {}: who holds Cilium's L2 Leases is unknown (capture `kubectl get leases -n {}`)",
                imps.cilium.namespace, imps.cilium.namespace
            ));
        }
        if imps.cilium.l2_announcements && imps.captured_at.is_none() {
            s.assumptions.push("the snapshot has no capture time (SnapshotInfo capturedAt): whether an L2 Lease has expired is unknown".into());
        }
        s.cilium = Some(imps.cilium.clone());
    }
    if imps.servicelb.installed {
        found.push(InstalledImplementation {
            implementation: "k3s-servicelb",
            evidence: imps.servicelb.evidence.clone(),
        });
    }
    if imps.kube_vip.installed {
        found.push(InstalledImplementation { implementation: "kube-vip", evidence: imps.kube_vip.evidence.clone() });
    }
    if found.is_empty() && world.snap.services.iter().any(|svc| service_type(svc) == "LoadBalancer") {
        s.assumptions.push("no load-balancer implementation (MetalLB, Cilium, k3s ServiceLB, kube-vip) is visible in the snapshot: every LoadBalancer Service's owner is unknown".into());
    }
    s.implementations = found;
    s
}

pub(crate) fn source(world: &World) -> Source {
    let s = &world.setup;
    let info = &world.snap.info;
    let mut assumptions = s.assumptions.clone();
    if world.snap.nodes.is_empty() {
        assumptions.push("the snapshot has no Node objects: node filters cannot be evaluated".into());
    }
    if !world.snap.metallb.frr_configurations.is_empty() && s.bgp_type != crate::snapshot::BgpType::FrrK8s {
        assumptions.push(format!(
            "the snapshot holds FRRConfiguration objects, but MetalLB's BGP type is {}: they are not compared with what the speakers should write (pass --bgp-type frr-k8s if the speakers run with METALLB_BGP_TYPE=frr-k8s)",
            s.bgp_type.as_str()
        ));
    }
    Source {
        mode: if world.snap.live { "live" } else { "snapshot" },
        context: info.context.clone(),
        captured_at: info.captured_at.clone(),
        unreadable: info.unreadable.clone(),
        metallb: s.installed.then(|| MetallbSource {
            namespace: s.namespace.clone(),
            namespace_source: s.namespace_source.clone(),
            version: s.version.clone(),
            behaviour: s.release,
            behaviour_reason: s.release_reason.clone(),
            speaker_versions: s.speaker_versions.iter().map(|(v, pods)| (v.clone(), pods.len())).collect(),
            controller_version: s.controller_version.clone(),
            controller_behaviour: s.controller_release,
            controller_behaviour_reason: s.controller_release_reason.clone(),
            memberlist: s.memberlist,
            memberlist_source: s.memberlist_source.clone(),
            ignore_exclude_lb: s.ignore_exclude_lb,
            lb_class: s.lb_class.clone(),
            bgp_type: s.bgp_type,
            live_speakers: s.speaker_pods.as_ref().map(|p| p.iter().filter(|p| p.live).count()),
            speaker_pods: s.speaker_pods.as_ref().map(Vec::len),
            config_valid: world.config.is_ok(),
        }),
        cilium: None,
        implementations: Vec::new(),
        assumptions,
        ignored_kinds: world.snap.ignored_kinds.clone(),
        ignored_fields: (world.snap.ignored_fields.iter())
            .map(|f| crate::report::IgnoredField {
                object: f.object.clone(),
                at: f.at.clone(),
                field: f.field.clone(),
                nearest: f.nearest.clone(),
            })
            .collect(),
        ignored_objects: (world.snap.ignored_objects.iter())
            .map(|o| crate::report::IgnoredObject {
                object: o.object.clone(),
                at: o.at.clone(),
                reason: o.reason.clone(),
            })
            .collect(),
        bundles: world
            .snap
            .bundles
            .iter()
            .map(|b| {
                let speakers = b.speaker_logs().count();
                crate::report::BundleRead {
                    path: b.path.clone(),
                    layout: b.layout.as_str(),
                    object_files: b.object_files,
                    speaker_logs: speakers,
                    controller_logs: b.logs.len() - speakers,
                    frr_views: b.frr.len(),
                    not_read: b.skipped.clone(),
                }
            })
            .collect(),
    }
}
