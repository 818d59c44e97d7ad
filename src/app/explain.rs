//! `explain svc` and `explain pools`: one Service (every node, every filter), a line per Service,
//! or MetalLB's pools.

use std::io::Write;

use super::resolve::{Resolved, Resource};
use super::{detail, load, AppError, Env};
use crate::cli::NodeRows;
use crate::diagnose::{self, Options, Scope};
use crate::render::{self, View};
use crate::report::Report;
use crate::snapshot;

/// Up to this many nodes `explain svc NAME` lists every node unless `--nodes top`.
pub(super) const SMALL_CLUSTER: usize = 20;

pub(super) fn explain(
    r: &Resolved,
    env: &mut Env,
    resource: Resource,
    name: Option<&str>,
    nodes: Option<NodeRows>,
    watch: Option<&super::watch::WatchArgs>,
    out: &mut dyn Write,
) -> Result<bool, AppError> {
    if r.format == render::Format::Html && resource != Resource::Service {
        return Err(AppError::Usage(
            "-o html draws Services: `explain svc NAME -o html` (one Service) or `explain svc -A -o html`; explain pools and explain finding write -o table, wide, json or yaml".into(),
        ));
    }
    if resource == Resource::Finding {
        // The pages are in the binary: no cluster or snapshot is read.
        let code = match name {
            None => None,
            Some(n) => {
                Some(n.parse::<crate::report::Code>().map_err(|e| AppError::Usage(format!("explain finding: {e}")))?)
            }
        };
        render::render_findings(out, code, r.format, r.paint())?;
        return Ok(false);
    }
    if resource == Resource::Pool {
        let (snap, opts, _) = load(r, env, false)?;
        let report = diagnose::diagnose_pools(&snap, &opts, name)?;
        std::mem::forget(snap);
        render::render_pools(out, &report, r.format, name.is_some(), r.paint())?;
        // Like `explain svc`: only the findings about the pools explained count.
        return Ok(r.fails(report.pools.iter().flat_map(|p| &p.findings).map(|f| f.severity)));
    }
    if let Some(watch) = watch {
        let watched = super::watch::Watched::Explain { name: name.map(str::to_string), nodes };
        return super::watch::watch(r, env, watched, watch, out);
    }
    // resolve() has refused `explain svc NAME -A`.
    let view = if name.is_some() { View::Service } else { View::Services };
    let (snap, mut opts, default_ns) =
        load(r, env, detail(r.format, view, nodes == Some(NodeRows::All)) && nodes != Some(NodeRows::Top))?;
    // One Service on a small cluster: every node fits on a screen.
    if nodes.is_none() && view == View::Service && snap.nodes.len() <= SMALL_CLUSTER {
        opts.detail = true;
    }
    opts.map = r.format == render::Format::Html;
    let namespace = r.namespaces.namespace_or(default_ns);
    opts.scope = match (name, r.namespaces.all) {
        (Some(n), _) => Scope::Service { namespace, name: n.to_string() },
        (None, true) => Scope::All,
        (None, false) => Scope::Namespace(namespace),
    };
    super::known_namespace(&snap, &opts.scope, &r.source)?;
    let report = build_report(snap, &opts)?;
    render::render(out, &report, r.format, view, r.paint())?;
    // Only the findings of the Services explained count, not the configuration's (DESIGN §3).
    Ok(r.fails(report.services.iter().flat_map(|s| &s.findings).map(|f| f.severity)))
}

fn build_report(snap: snapshot::Snapshot, opts: &Options) -> Result<Report, AppError> {
    let r = diagnose::diagnose(&snap, opts)?;
    // Freeing a large snapshot object by object costs more than the process exit that follows.
    std::mem::forget(snap);
    Ok(r)
}
