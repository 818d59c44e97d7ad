//! What-if: the engines re-run on an edited snapshot, and only what differs reported. The
//! election is a pure function of the snapshot, so "what if worker-a goes down?" is a second run.

pub(crate) mod diff;
pub(crate) mod edit;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use compact_str::CompactString;
use rayon::prelude::*;

use crate::diagnose::world::World;
use crate::diagnose::{self, reports_of, DiagnoseError, Options, Prepared, RowsKept, Scope, Shape};
use crate::report::{Change, Code, Report, ServiceReport, Simulation, SpofNode, API_VERSION};
use crate::snapshot::{EndpointSlice, Service, Snapshot};
use edit::{Applied, Edit, EditError};

#[derive(Debug, thiserror::Error)]
pub enum SimulateError {
    #[error(transparent)]
    Edit(#[from] EditError),
    #[error(transparent)]
    Diagnose(#[from] DiagnoseError),
}

/// Findings that compare the engines with what the cluster recorded (status, ServiceL2Status,
/// ServiceBGPStatus, conditions): the records are the state before, so after an edit these
/// findings only restate the change.
pub const RECORD_CODES: &[Code] = &[Code::LBD105, Code::LBD121, Code::LBD127, Code::LBD132, Code::LBD151];

/// Runs every engine on the snapshot before and after the edits. What the cluster observed
/// (ServiceL2Status, nodeAssigned Events) describes the state before only, so both runs leave it
/// out: the comparison is between the engines' two answers. The runs are brief (no per-node
/// rows, which on a large cluster weigh gigabytes) but keep the node lists a comparison reads;
/// only the Services whose answer moved are asked again in full, for the words of their changes.
pub fn simulate(snap: &Snapshot, edits: &[Edit], opts: &Options) -> Result<Simulation, SimulateError> {
    simulate_owned(snap.clone(), edits, opts)
}

/// [`simulate`] of a snapshot the caller no longer needs: one copy fewer of a large cluster.
pub fn simulate_owned(mut base: Snapshot, edits: &[Edit], opts: &Options) -> Result<Simulation, SimulateError> {
    edit::forget_observations(&mut base);
    let (after_snap, applied) = edit::apply(&base, edits)?;
    let (bw, aw) = (World::build(&base, &opts.overrides), World::build(&after_snap, &opts.overrides));
    let (bp, ap) = (Prepared::new(&base, &bw), Prepared::new(&after_snap, &aw));
    let brief = Options { detail: false, ..opts.clone() };
    let before = diagnose::diagnose_prepared(&base, &bw, &bp, &brief, true)?;
    let after = diagnose::diagnose_prepared(&after_snap, &aw, &ap, &brief, true)?;
    let deleted = deleted_nodes(&base, &after_snap);
    let (before_by_key, after_by_key) = (services_by_key(&before), services_by_key(&after));
    let moved: BTreeSet<Key> = before_by_key
        .iter()
        .filter(|(k, b)| after_by_key.get(*k).is_some_and(|a| may_move((&bw, b), (&aw, a))))
        .map(|(k, _)| *k)
        .collect();
    let changes = if moved.is_empty() {
        Vec::new()
    } else {
        // The Services sharing their IPs answer beside them, on either side.
        let ips: BTreeSet<&str> = moved
            .iter()
            .flat_map(|k| before_by_key[k].ips.iter().chain(&after_by_key[k].ips))
            .map(CompactString::as_str)
            .collect();
        let asked = |r: &ServiceReport| {
            moved.contains(&(r.namespace.as_str(), r.name.as_str())) || r.ips.iter().any(|ip| ips.contains(ip.as_str()))
        };
        let keys: BTreeSet<(String, String)> = (before.services.iter().chain(&after.services))
            .filter(|r| asked(r))
            .map(|r| (r.namespace.to_string(), r.name.to_string()))
            .collect();
        // diff reads the layer-2 rows of the winners before and after only.
        let rows: RowsKept = moved
            .iter()
            .map(|k| {
                let nodes = [before_by_key[k], after_by_key[k]].into_iter().filter_map(winner).map(str::to_string);
                ((k.0.to_string(), k.1.to_string()), nodes.collect())
            })
            .collect();
        let detailed = |snap: &Snapshot, world: &World, prepared: &Prepared| {
            let svcs: Vec<&Service> = (snap.services.iter())
                .filter(|s| {
                    let (ns, name) = (key_str(&s.metadata.namespace), key_str(&s.metadata.name));
                    keys.contains(&(ns.to_string(), name.to_string()))
                })
                .collect();
            reports_of(world, prepared, &svcs, Shape { detail: true, rows: Some(&rows), ..Shape::default() })
        };
        diff::service_changes(&detailed(&base, &bw, &bp), &detailed(&after_snap, &aw, &ap), &deleted)
    };
    Ok(simulation(before, &after, applied, changes))
}

/// The Nodes the edits removed.
fn deleted_nodes(base: &Snapshot, after: &Snapshot) -> Vec<String> {
    let names = |s: &Snapshot| -> BTreeSet<String> { s.nodes.iter().filter_map(|n| n.metadata.name.clone()).collect() };
    names(base).difference(&names(after)).cloned().collect()
}

/// The Simulation of `changes` between the Reports before and after the edits: the counts, and
/// the findings the change brings or clears (not those that only restate the records).
fn simulation(before: Report, after: &Report, applied: Vec<Applied>, changes: Vec<Change>) -> Simulation {
    let summary = diff::summary(&changes);
    let (mut findings, mut resolved) = diff::new_findings(&before, after);
    findings.retain(|f| !RECORD_CODES.contains(&f.code));
    resolved.retain(|f| !RECORD_CODES.contains(&f.code));
    Simulation {
        api_version: API_VERSION,
        kind: "Simulation",
        source: before.source,
        edits: applied,
        changes,
        summary,
        findings,
        resolved,
    }
}

fn services_by_key(report: &Report) -> HashMap<Key<'_>, &ServiceReport> {
    report.services.iter().map(|s| ((s.namespace.as_str(), s.name.as_str()), s)).collect()
}

/// Whether a Service's answer may differ between two brief reports with whole node lists: a
/// superset of what [`diff::service_changes`] calls a change (the answering layer-2 node, Cilium
/// L2's holder and eligible nodes, the BGP announcers, Node IPAM's ingress, the allocation).
fn may_move(before: (&World, &ServiceReport), after: (&World, &ServiceReport)) -> bool {
    let ((bw, b), (aw, a)) = (before, after);
    let cilium_l2 = |r: &ServiceReport| {
        r.cilium
            .as_ref()
            .and_then(|c| c.l2.as_ref())
            .map(|v| (v.skipped.is_none(), v.announcer.clone(), v.eligible.clone()))
    };
    let bgp = |r: &ServiceReport| -> Option<BTreeSet<String>> {
        r.metallb.as_ref().and_then(|m| m.bgp.as_ref()).map(|g| g.announcing.iter().map(|n| n.to_string()).collect())
    };
    let ipam =
        |r: &ServiceReport| r.cilium.as_ref().and_then(|c| c.nodeipam.as_ref()).map(|n| n.expected_ingress.clone());
    let allocation = |r: &ServiceReport| r.allocation.as_ref().map(|x| (x.status, x.expected_ips.clone()));
    answering(bw, b) != answering(aw, a)
        || cilium_l2(b) != cilium_l2(a)
        || bgp(b) != bgp(a)
        || ipam(b) != ipam(a)
        || allocation(b) != allocation(a)
}

/// The winner of a Service's layer-2 election.
fn winner(r: &ServiceReport) -> Option<&str> {
    r.metallb.as_ref()?.layer2.as_ref()?.expected_announcer.as_deref()
}

/// The node whose speaker answers for a Service's layer-2 IP, as [`diff`] reads it from the
/// per-node rows: the election's winner unless it runs no live speaker.
fn answering<'r>(world: &World, r: &'r ServiceReport) -> Option<&'r str> {
    let node = winner(r)?;
    let live = world.table.id(node).and_then(|n| world.speaker_live(n));
    (live != Some(false)).then_some(node)
}

/// `check --spof`: for every node that announces something, the IPs that it going down alone
/// leaves without an announcer, as `simulate --down` finds them. Only the Services a node wins,
/// announces alone or hosts endpoints of can lose their announcer with it, so each node's
/// question is asked of those (and the Services sharing their IPs) only; MetalLB's allocation
/// does not look at nodes. `report` is a Report of `snap` over every Service, with or without
/// per-node rows, diagnosed in `world` with `prepared` (so its controller replay ran): what the
/// cluster observed enters no change `simulate` words, so the same World serves.
pub(crate) fn spof_in(
    snap: &Snapshot,
    world: &World,
    prepared: &Prepared,
    report: &Report,
    opts: &Options,
) -> Result<Vec<SpofNode>, SimulateError> {
    let affected = affected_by_node(snap, report);
    let opts = Options { detail: true, scope: Scope::All, ..opts.clone() };
    if !prepared.metallb_only() {
        // Cilium, ServiceLB and kube-vip read the Pods and Nodes themselves: each node's
        // question is a second run of every engine on the edited snapshot.
        return spof_by_rerun(snap, &affected, &opts);
    }
    let by_key: HashMap<Key, &Service> =
        snap.services.iter().map(|s| ((key_str(&s.metadata.namespace), key_str(&s.metadata.name)), s)).collect();
    // Before, the engines' answers are `report`'s: what the cluster observed does not enter them.
    let before = services_by_key(report);
    let mut slices: HashMap<Key, Vec<&EndpointSlice>> = HashMap::new();
    for slice in &snap.endpoint_slices {
        if let Some(name) = &slice.service {
            slices.entry((slice.namespace.as_str(), name.as_str())).or_default().push(slice);
        }
    }
    let per_node: Vec<Option<SpofNode>> = affected
        .par_iter()
        .map(|(node, keys)| {
            let keys: Vec<Key> =
                keys.iter().copied().filter(|k| by_key.contains_key(k) && before.contains_key(k)).collect();
            let dark: BTreeSet<Key> = keys.iter().copied().filter(|k| may_go_dark(world, node, k, before[k])).collect();
            if dark.is_empty() {
                return None;
            }
            // The Services sharing their IPs answer beside them.
            let with_partners = |of: &BTreeSet<Key>| -> Vec<Key> {
                let ips: BTreeSet<&str> = of.iter().flat_map(|k| &before[k].ips).map(CompactString::as_str).collect();
                keys.iter()
                    .copied()
                    .filter(|k| of.contains(k) || before[k].ips.iter().any(|ip| ips.contains(ip.as_str())))
                    .collect()
            };
            let asked = with_partners(&dark);
            let down = world.with_node_down(node, asked.iter().filter_map(|k| slices.get(k)).flatten().copied());
            let svcs: Vec<&Service> = asked.iter().map(|k| by_key[k]).collect();
            let brief = reports_of(&down, prepared, &svcs, Shape::default());
            let suspects: BTreeSet<Key> = asked
                .iter()
                .zip(&brief)
                .filter(|(k, after)| dark.contains(*k) && may_lose((world, before[*k]), (&down, after)))
                .map(|(k, _)| *k)
                .collect();
            if suspects.is_empty() {
                return None;
            }
            // The words of each loss come from the per-node rows, as simulate writes them: only
            // the suspects need them, and only the rows of the winners before and after and of
            // the node going down (`diff` reads no other).
            let rows: RowsKept = asked
                .iter()
                .zip(&brief)
                .filter(|(k, _)| suspects.contains(*k))
                .map(|(k, after)| {
                    let mut nodes = vec![node.to_string()];
                    nodes.extend([before[k], after].into_iter().filter_map(winner).map(str::to_string));
                    ((k.0.to_string(), k.1.to_string()), nodes)
                })
                .collect();
            let svcs: Vec<&Service> = with_partners(&suspects).iter().map(|k| by_key[k]).collect();
            let shape = Shape { detail: true, rows: Some(&rows), ..Shape::default() };
            let b = reports_of(world, prepared, &svcs, shape);
            let a = reports_of(&down, prepared, &svcs, shape);
            spof_node(node, diff::service_changes(&b, &a, &[]))
        })
        .collect();
    Ok(per_node.into_iter().flatten().collect())
}

/// Whether `node` going down could leave the Service of `before` (this World's brief report)
/// without an announcer, without asking the engines again. A node that neither wins the
/// layer-2 election nor announces alone over BGP changes nothing for the Service while any of
/// its serving endpoints runs elsewhere: the winner keeps its speaker and its endpoints, the
/// election order is a hash of names, and the other announcers keep theirs (one endpoint fewer
/// only ever makes an address healthier, B-3). Cilium's answers are not looked at (`metallb_only`).
fn may_go_dark(world: &World, node: &str, key: &Key, before: &ServiceReport) -> bool {
    let id = world.table.id(node);
    let serves_elsewhere =
        world.endpoints_of(key.0, key.1).iter().any(|e| e.node != id && e.can_serve && e.bgp_healthy_anywhere);
    let metallb = before.metallb.as_ref();
    let l2 = metallb
        .and_then(|m| m.layer2.as_ref())
        .and_then(|l| l.expected_announcer.as_deref())
        .filter(|w| world.table.id(w).and_then(|n| world.speaker_live(n)) != Some(false))
        .is_some_and(|w| w == node || !serves_elsewhere);
    let bgp = metallb.and_then(|m| m.bgp.as_ref()).is_some_and(|b| match b.announcing_count {
        0 => false,
        1 => b.announcing.first().is_none_or(|a| &**a == node) || !serves_elsewhere,
        _ => !serves_elsewhere,
    });
    l2 || bgp || before.cilium.is_some()
}

fn key_str(s: &Option<compact_str::CompactString>) -> &str {
    s.as_deref().unwrap_or("")
}

/// Whether a Service could have lost its announcer between the two brief reports: a superset of
/// [`is_loss`] over the changes `diff` finds, from what brief reports keep whole (the winner, and
/// whether each announcing set is empty).
fn may_lose(before: (&World, &ServiceReport), after: (&World, &ServiceReport)) -> bool {
    let bgp =
        |r: &ServiceReport| r.metallb.as_ref().and_then(|m| m.bgp.as_ref()).is_some_and(|b| !b.announcing.is_empty());
    let ipam = |r: &ServiceReport| {
        r.cilium.as_ref().and_then(|c| c.nodeipam.as_ref()).is_some_and(|n| !n.expected_ingress.is_empty())
    };
    let cilium_l2 =
        |r: &ServiceReport| r.cilium.as_ref().and_then(|c| c.l2.as_ref()).is_some_and(|v| !v.eligible.is_empty());
    let ((bw, b), (aw, a)) = (before, after);
    (answering(bw, b).is_some() && answering(aw, a).is_none())
        || (bgp(b) && !bgp(a))
        || (ipam(b) && !ipam(a))
        || (cilium_l2(b) && !cilium_l2(a))
}

fn spof_node(node: &str, changes: Vec<Change>) -> Option<SpofNode> {
    let losses: Vec<Change> = changes.into_iter().filter(is_loss).collect();
    if losses.is_empty() {
        return None;
    }
    let distinct: BTreeSet<&Option<String>> = losses.iter().map(|c| &c.ip).collect();
    Some(SpofNode { node: node.to_string(), ips: distinct.len(), losses })
}

/// [`spof`] by running every engine twice per node, on the snapshot restricted to the node's
/// Services, before and after `--down`.
fn spof_by_rerun(
    snap: &Snapshot,
    affected: &BTreeMap<&str, BTreeSet<Key>>,
    opts: &Options,
) -> Result<Vec<SpofNode>, SimulateError> {
    // Each node's runs are independent: spread them over the cores.
    let per_node: Vec<Option<SpofNode>> = affected
        .par_iter()
        .map(|(node, keys)| spof_of(snap, opts, node, keys))
        .collect::<Result<_, SimulateError>>()?;
    Ok(per_node.into_iter().flatten().collect())
}

type Key<'s> = (&'s str, &'s str);

/// Per node, the Services it can leave dark, with the Services sharing their IPs: one pass over
/// the Report and the EndpointSlices, not one per node.
fn affected_by_node<'s>(snap: &'s Snapshot, report: &'s Report) -> BTreeMap<&'s str, BTreeSet<Key<'s>>> {
    let mut direct: BTreeMap<&str, BTreeSet<Key>> = BTreeMap::new();
    for slice in &snap.endpoint_slices {
        let Some(name) = &slice.service else {
            continue;
        };
        let key = (slice.namespace.as_str(), name.as_str());
        for node in slice.endpoints.iter().filter_map(|e| e.node_name.as_deref()) {
            direct.entry(node).or_default().insert(key);
        }
    }
    let mut by_ip: BTreeMap<&str, Vec<Key>> = BTreeMap::new();
    for s in &report.services {
        let key = (s.namespace.as_str(), s.name.as_str());
        for node in sole_announcers(s) {
            direct.entry(node).or_default().insert(key);
        }
        for ip in &s.ips {
            by_ip.entry(ip.as_str()).or_default().push(key);
        }
    }
    let nodes: BTreeSet<&str> = snap.nodes.iter().filter_map(|n| n.metadata.name.as_deref()).collect();
    let ips_of: BTreeMap<Key, &[CompactString]> =
        report.services.iter().map(|s| ((s.namespace.as_str(), s.name.as_str()), &*s.ips)).collect();
    direct
        .into_iter()
        .map(|(node, keys)| {
            // Only Services the Report holds; an EndpointSlice's Service may be of another type.
            let mut all: BTreeSet<Key> = BTreeSet::new();
            for key in keys.iter().filter(|k| ips_of.contains_key(*k)) {
                all.insert(*key);
                for ip in ips_of[key].iter() {
                    all.extend(by_ip[ip.as_str()].iter().copied());
                }
            }
            (node, all)
        })
        // Only Nodes of the snapshot can go down: an endpoint may name one that is gone.
        .filter(|(node, keys)| !keys.is_empty() && nodes.contains(node))
        .collect()
}

fn spof_of(
    snap: &Snapshot,
    opts: &Options,
    node: &str,
    keys: &BTreeSet<Key>,
) -> Result<Option<SpofNode>, SimulateError> {
    let restricted = restrict(snap, keys);
    let before = diagnose::diagnose(&restricted, opts)?;
    let (after_snap, _) = edit::apply(&restricted, &[Edit::Down(node.to_string())])?;
    let after = diagnose::diagnose(&after_snap, opts)?;
    Ok(spof_node(node, diff::changes(&before, &after, &[])))
}

/// The nodes whose going down alone could leave the Service dark: the layer-2 winner, the only
/// BGP announcer, the only Node IPAM address, the only Cilium L2 candidate.
fn sole_announcers(s: &crate::report::ServiceReport) -> Vec<&str> {
    let mut out = Vec::new();
    let metallb = s.metallb.as_ref();
    out.extend(metallb.and_then(|m| m.layer2.as_ref()).and_then(|l| l.expected_announcer.as_deref()));
    if let Some(b) = metallb.and_then(|m| m.bgp.as_ref()).filter(|b| b.announcing.len() == 1) {
        out.push(&*b.announcing[0]);
    }
    let cilium = s.cilium.as_ref();
    if let Some(n) = cilium.and_then(|c| c.nodeipam.as_ref()) {
        let used: Vec<&str> = n.nodes.iter().filter(|x| x.used).map(|x| x.node.as_str()).collect();
        if let [only] = used.as_slice() {
            out.push(only);
        }
    }
    if let Some(v) = cilium.and_then(|c| c.l2.as_ref()).filter(|v| v.eligible.len() == 1) {
        out.push(&*v.eligible[0]);
    }
    out
}

fn is_loss(c: &Change) -> bool {
    let empty = |v: &serde_json::Value| v.is_null() || v.as_array().is_some_and(|a| a.is_empty());
    match c.protocol {
        "layer2" => !c.before.is_null() && c.after.is_null() && c.candidates.as_ref().is_none_or(|x| x.is_empty()),
        "bgp" | "nodeipam" => !empty(&c.before) && empty(&c.after),
        _ => false,
    }
}

/// The snapshot with only the named Services and their EndpointSlices.
pub(crate) fn restrict(snap: &Snapshot, keys: &BTreeSet<(&str, &str)>) -> Snapshot {
    let service_of = |slice: &crate::snapshot::EndpointSlice| {
        slice.service.as_deref().is_some_and(|n| keys.contains(&(slice.namespace.as_str(), n)))
    };
    Snapshot {
        services: snap
            .services
            .iter()
            .filter(|s| {
                keys.contains(&(
                    s.metadata.namespace.as_deref().unwrap_or(""),
                    s.metadata.name.as_deref().unwrap_or(""),
                ))
            })
            .cloned()
            .collect(),
        endpoint_slices: snap.endpoint_slices.iter().filter(|s| service_of(s)).cloned().collect(),
        info: snap.info.clone(),
        nodes: snap.nodes.clone(),
        namespaces: snap.namespaces.clone(),
        pods: snap.pods.clone(),
        events: Vec::new(),
        config_maps: snap.config_maps.clone(),
        daemon_sets: snap.daemon_sets.clone(),
        deployments: snap.deployments.clone(),
        metallb: {
            let m = &snap.metallb;
            crate::snapshot::MetallbObjects {
                ip_address_pools: m.ip_address_pools.clone(),
                l2_advertisements: m.l2_advertisements.clone(),
                bgp_advertisements: m.bgp_advertisements.clone(),
                bgp_peers: m.bgp_peers.clone(),
                communities: m.communities.clone(),
                bfd_profiles: m.bfd_profiles.clone(),
                frr_configurations: m.frr_configurations.clone(),
                service_l2_statuses: Vec::new(),
                service_bgp_statuses: Vec::new(),
            }
        },
        cilium: snap.cilium.clone(),
        leases: snap.leases.clone(),
        ignored_kinds: Default::default(),
        ignored_objects: Default::default(),
        ignored_fields: Default::default(),
        live: snap.live,
        origins: Default::default(),
        bundles: snap.bundles.clone(),
    }
}

#[cfg(test)]
mod tests;
