//! What-if: the engines re-run on an edited snapshot, and only what differs reported. The
//! election is a pure function of the snapshot, so "what if worker-a goes down?" is a second run.

pub mod diff;
pub mod edit;

use std::collections::BTreeSet;

use rayon::prelude::*;

use crate::diagnose::{self, DiagnoseError, Options, Scope};
use crate::report::{Change, Report, Simulation, SpofNode, API_VERSION};
use crate::snapshot::Snapshot;
use edit::{Edit, EditError};

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
pub const RECORD_CODES: &[&str] = &["LBD105", "LBD121", "LBD127", "LBD132", "LBD151"];

/// Runs every engine on the snapshot before and after the edits. What the cluster observed
/// (ServiceL2Status, nodeAssigned Events) describes the state before only, so both runs leave it
/// out: the comparison is between the engines' two answers.
pub fn simulate(snap: &Snapshot, edits: &[Edit], opts: &Options) -> Result<Simulation, SimulateError> {
    let base = edit::without_observations(snap);
    let (after_snap, applied) = edit::apply(&base, edits)?;
    let opts = Options { detail: true, ..opts.clone() };
    let before = diagnose::diagnose(&base, &opts)?;
    let after = diagnose::diagnose(&after_snap, &opts)?;
    let names = |s: &Snapshot| -> BTreeSet<String> { s.nodes.iter().filter_map(|n| n.metadata.name.clone()).collect() };
    let deleted: Vec<String> = names(&base).difference(&names(&after_snap)).cloned().collect();
    let changes = diff::changes(&before, &after, &deleted);
    let summary = diff::summary(&changes);
    let (mut findings, mut resolved) = diff::new_findings(&before, &after);
    findings.retain(|f| !RECORD_CODES.contains(&f.code));
    resolved.retain(|f| !RECORD_CODES.contains(&f.code));
    Ok(Simulation {
        api_version: API_VERSION,
        kind: "Simulation",
        source: before.source,
        edits: applied,
        changes,
        summary,
        findings,
        resolved,
    })
}

/// `check --spof`: for every node that announces something, the IPs that it going down alone
/// leaves without an announcer. Only the Services a node wins, announces alone or hosts
/// endpoints of can lose their announcer with it, so each node's before-and-after runs are
/// limited to those (and the Services sharing their IPs); MetalLB's allocation does not look at
/// nodes. Which Services a node can affect comes from one run without per-node rows.
pub fn spof(snap: &Snapshot, opts: &Options) -> Result<Vec<SpofNode>, SimulateError> {
    let report = diagnose::diagnose(snap, &Options { detail: false, scope: Scope::All, ..opts.clone() })?;
    let mut nodes: Vec<&str> = snap.nodes.iter().filter_map(|n| n.metadata.name.as_deref()).collect();
    nodes.sort_unstable();
    let opts = Options { detail: true, scope: Scope::All, ..opts.clone() };
    // Each node's runs are independent: spread them over the cores.
    let per_node: Vec<Option<SpofNode>> =
        nodes.par_iter().map(|node| spof_of(snap, &report, &opts, node)).collect::<Result<_, SimulateError>>()?;
    Ok(per_node.into_iter().flatten().collect())
}

fn spof_of(snap: &Snapshot, report: &Report, opts: &Options, node: &str) -> Result<Option<SpofNode>, SimulateError> {
    let serving = services_with_endpoints_on(snap, node);
    let involved: BTreeSet<(&str, &str)> = report
        .services
        .iter()
        .filter(|s| depends_on(s, node) || serving.contains(&(s.namespace.as_str(), s.name.as_str())))
        .map(|s| (s.namespace.as_str(), s.name.as_str()))
        .collect();
    if involved.is_empty() {
        return Ok(None);
    }
    let ips: BTreeSet<&str> = report
        .services
        .iter()
        .filter(|s| involved.contains(&(s.namespace.as_str(), s.name.as_str())))
        .flat_map(|s| s.ips.iter().map(String::as_str))
        .collect();
    let keys: BTreeSet<(&str, &str)> = report
        .services
        .iter()
        .map(|s| (s.namespace.as_str(), s.name.as_str()))
        .filter(|k| involved.contains(k))
        .chain(
            report
                .services
                .iter()
                .filter(|s| s.ips.iter().any(|ip| ips.contains(ip.as_str())))
                .map(|s| (s.namespace.as_str(), s.name.as_str())),
        )
        .collect();
    let restricted = restrict(snap, &keys);
    let before = diagnose::diagnose_freeing(&restricted, opts)?;
    let (after_snap, _) = edit::apply(&restricted, &[Edit::Down(node.to_string())])?;
    let after = diagnose::diagnose_freeing(&after_snap, opts)?;
    let losses: Vec<Change> = diff::changes(&before, &after, &[]).into_iter().filter(is_loss).collect();
    if losses.is_empty() {
        return Ok(None);
    }
    let distinct: BTreeSet<&Option<String>> = losses.iter().map(|c| &c.ip).collect();
    Ok(Some(SpofNode { node: node.to_string(), ips: distinct.len(), losses }))
}

/// Whether the Service's announcement could go dark with this node: it is the layer-2 winner,
/// the only BGP announcer, the only Node IPAM address, or the only Cilium L2 candidate.
fn depends_on(s: &crate::report::ServiceReport, node: &str) -> bool {
    let metallb = s.metallb.as_ref();
    let l2 = metallb.and_then(|m| m.layer2.as_ref()).and_then(|l| l.expected_announcer.as_deref()) == Some(node);
    let bgp =
        metallb.and_then(|m| m.bgp.as_ref()).is_some_and(|b| b.announcing.len() == 1 && &*b.announcing[0] == node);
    let cilium = s.cilium.as_ref();
    let ipam = cilium.and_then(|c| c.nodeipam.as_ref()).is_some_and(|n| {
        let used: Vec<&str> = n.nodes.iter().filter(|x| x.used).map(|x| x.node.as_str()).collect();
        used == [node]
    });
    let cl2 = cilium.and_then(|c| c.l2.as_ref()).is_some_and(|v| v.eligible.len() == 1 && &*v.eligible[0] == node);
    l2 || bgp || ipam || cl2
}

/// Services with an endpoint on the node: they can lose their last one with it.
fn services_with_endpoints_on<'s>(snap: &'s Snapshot, node: &str) -> BTreeSet<(&'s str, &'s str)> {
    snap.endpoint_slices
        .iter()
        .filter(|s| s.endpoints.iter().any(|e| e.node_name.as_deref() == Some(node)))
        .filter_map(|s| {
            let name = s.metadata.labels.as_ref()?.get("kubernetes.io/service-name")?;
            Some((s.metadata.namespace.as_deref().unwrap_or(""), name.as_str()))
        })
        .collect()
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
fn restrict(snap: &Snapshot, keys: &BTreeSet<(&str, &str)>) -> Snapshot {
    let service_of = |slice: &k8s_openapi::api::discovery::v1::EndpointSlice| {
        let ns = slice.metadata.namespace.as_deref().unwrap_or("");
        let name = slice.metadata.labels.as_ref().and_then(|l| l.get("kubernetes.io/service-name"));
        name.is_some_and(|n| keys.contains(&(ns, n.as_str())))
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
        live: snap.live,
        origins: Default::default(),
    }
}
