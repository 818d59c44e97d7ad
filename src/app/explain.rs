//! `explain svc` and `explain pools`: one Service (every node, every filter), a line per Service,
//! or MetalLB's pools.

use std::io::Write;

use super::{detail, fails, is_pool_resource, is_service_resource, load, AppError, Env};
use crate::cli::GlobalArgs;
use crate::diagnose::{self, Options, Scope};
use crate::render::{self, Format, View};
use crate::report::Report;
use crate::snapshot;

pub(super) fn explain(
    g: &GlobalArgs,
    env: &mut Env,
    resource: &str,
    name: Option<&String>,
    out: &mut dyn Write,
    output: Format,
    color: bool,
) -> Result<bool, AppError> {
    if is_pool_resource(resource) {
        let (snap, opts, _) = load(g, env, false)?;
        let report = diagnose::diagnose_pools(&snap, &opts, name.map(String::as_str))?;
        std::mem::forget(snap);
        render::render_pools(out, &report, output, name.is_some(), color)?;
        // Like `explain svc`: only the findings about the pools explained count.
        return Ok(g
            .fail_on
            .threshold()
            .is_some_and(|t| report.pools.iter().flat_map(|p| &p.findings).any(|f| f.severity >= t)));
    }
    if !is_service_resource(resource) {
        return Err(AppError::Usage(format!(
            "explain: unknown resource type {resource:?}; supported: svc (service, services), pool (pools, ipaddresspool)"
        )));
    }
    if name.is_some() && g.all_namespaces {
        return Err(AppError::Usage("explain svc NAME takes -n NAMESPACE, not -A".into()));
    }
    let view = if name.is_some() { View::Service } else { View::Services };
    let (snap, mut opts, default_ns) = load(g, env, detail(output, view))?;
    let namespace = g.namespace.clone().unwrap_or(default_ns);
    opts.scope = match (name, g.all_namespaces) {
        (Some(n), _) => Scope::Service { namespace, name: n.clone() },
        (None, true) => Scope::All,
        (None, false) => Scope::Namespace(namespace),
    };
    let report = build_report(snap, &opts)?;
    render::render(out, &report, output, view, color)?;
    Ok(fails(&report, g, true))
}

fn build_report(snap: snapshot::Snapshot, opts: &Options) -> Result<Report, AppError> {
    let r = diagnose::diagnose(&snap, opts)?;
    // Freeing a large snapshot object by object costs more than the process exit that follows.
    std::mem::forget(snap);
    Ok(r)
}
