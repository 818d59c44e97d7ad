//! One function per verb, from resolved options to a rendered result and an exit status.

use std::io::{Read, Write};

use crate::cli::{Cli, ColorChoice, Command, GlobalArgs};
use crate::diagnose::{self, DiagnoseError, Options, Scope};
use crate::metallb::install::Overrides;
use crate::render::{self, Format, View};
use crate::report::Report;
use crate::snapshot::{self, LoadError};

/// Errors mapped to the documented exit codes in one place.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error("{0}")]
    Usage(String),
    #[error(transparent)]
    Load(#[from] LoadError),
    #[error(transparent)]
    Diagnose(#[from] DiagnoseError),
    #[error("{0}")]
    Unavailable(String),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

impl AppError {
    pub fn exit_code(&self) -> u8 {
        match self {
            AppError::Usage(_) | AppError::Load(_) | AppError::Diagnose(_) => 2,
            AppError::Unavailable(_) => 3,
            AppError::Io(_) => 2,
        }
    }
}

/// The environment the binary resolves once, so nothing below reads it.
pub struct Env<'a> {
    pub stdin: &'a mut dyn Read,
    pub stdout_is_terminal: bool,
    pub no_color: bool,
}

/// Runs the command; `Ok(true)` means findings reached `--fail-on`.
pub fn run(cli: Cli, env: Env, out: &mut dyn Write) -> Result<bool, AppError> {
    let g = &cli.global;
    let color = match g.color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => env.stdout_is_terminal && !env.no_color,
    };
    match &cli.command {
        Command::Version => {
            writeln!(out, "kubectl-lbdoctor {}", env!("CARGO_PKG_VERSION"))?;
            Ok(false)
        }
        Command::Explain { resource, name } if is_pool_resource(resource) => {
            let (snap, opts) = load(g, env.stdin, Scope::All, false)?;
            let report = diagnose::diagnose_pools(&snap, &opts, name.as_deref())?;
            std::mem::forget(snap);
            render::render_pools(out, &report, g.output, name.is_some(), color)?;
            // Like `explain svc`: only the findings about the pools explained count.
            Ok(g.fail_on
                .threshold()
                .is_some_and(|t| report.pools.iter().flat_map(|p| &p.findings).any(|f| f.severity >= t)))
        }
        Command::Explain { resource, name } => {
            if !matches!(resource.as_str(), "svc" | "service" | "services") {
                return Err(AppError::Usage(format!(
                    "explain: unknown resource type {resource:?}; supported: svc (service, services), pool (pools, ipaddresspool)"
                )));
            }
            if name.is_some() && g.all_namespaces {
                return Err(AppError::Usage("explain svc NAME takes -n NAMESPACE, not -A".into()));
            }
            let scope = match (name, g.all_namespaces, &g.namespace) {
                (Some(n), _, ns) => {
                    Scope::Service { namespace: ns.clone().unwrap_or_else(|| "default".into()), name: n.clone() }
                }
                (None, true, _) => Scope::All,
                (None, false, Some(ns)) => Scope::Namespace(ns.clone()),
                (None, false, None) => Scope::Namespace("default".into()),
            };
            let view = if name.is_some() { View::Service } else { View::Services };
            let report = build_report(g, env.stdin, scope, detail(g.output, view))?;
            render::render(out, &report, g.output, view, color)?;
            Ok(fails(&report, g, true))
        }
        Command::Check { ignore } => {
            let scope = match (&g.namespace, g.all_namespaces) {
                (Some(ns), false) => Scope::Namespace(ns.clone()),
                _ => Scope::All,
            };
            let mut report = build_report(g, env.stdin, scope, detail(g.output, View::Check))?;
            let ignored = |code: &str| ignore.iter().any(|i| i.eq_ignore_ascii_case(code));
            report.findings.retain(|f| !ignored(f.code));
            for s in &mut report.services {
                s.findings.retain(|f| !ignored(f.code));
            }
            render::render(out, &report, g.output, View::Check, color)?;
            Ok(fails(&report, g, false))
        }
    }
}

/// Per-node rows are only built where they are printed.
fn detail(format: Format, view: View) -> bool {
    matches!(format, Format::Json | Format::Yaml) || view == View::Service
}

/// `check` counts every finding; `explain` only those of the Services it explains (DESIGN §3).
fn fails(report: &Report, g: &GlobalArgs, services_only: bool) -> bool {
    let Some(threshold) = g.fail_on.threshold() else {
        return false;
    };
    if services_only {
        report.services.iter().flat_map(|s| &s.findings).any(|f| f.severity >= threshold)
    } else {
        report.all_findings().any(|f| f.severity >= threshold)
    }
}

fn is_pool_resource(resource: &str) -> bool {
    matches!(resource, "pool" | "pools" | "ipaddresspool" | "ipaddresspools" | "ipaddresspools.metallb.io")
}

fn build_report(g: &GlobalArgs, stdin: &mut dyn Read, scope: Scope, detail: bool) -> Result<Report, AppError> {
    let (snap, opts) = load(g, stdin, scope, detail)?;
    let r = diagnose::diagnose(&snap, &opts)?;
    // Freeing a large snapshot object by object costs more than the process exit that follows.
    std::mem::forget(snap);
    Ok(r)
}

fn load(
    g: &GlobalArgs,
    stdin: &mut dyn Read,
    scope: Scope,
    detail: bool,
) -> Result<(snapshot::Snapshot, Options), AppError> {
    if g.from.is_empty() {
        return Err(AppError::Usage(
            "reading a live cluster is not available in this build yet; pass --from with a snapshot \
             (file, directory or -), e.g. kubectl get nodes,services,endpointslices -A -o yaml > s.yaml"
                .into(),
        ));
    }
    let snap = snapshot::load_paths(&g.from, stdin)?;
    let missing = snap.info.unreadable_required();
    if !missing.is_empty() {
        return Err(AppError::Unavailable(format!(
            "the snapshot could not read what the election needs: {}; collect it with permission to list these kinds",
            missing.join("; ")
        )));
    }
    let opts = Options {
        scope,
        detail,
        overrides: Overrides {
            ignore_exclude_lb: g.ignore_exclude_lb,
            lb_class: g.lb_class.clone(),
            memberlist: g.memberlist,
            bgp_type: g.bgp_type,
            version: g.metallb_version,
        },
    };
    Ok((snap, opts))
}
