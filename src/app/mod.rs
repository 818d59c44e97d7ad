//! One function per verb, from resolved options to a rendered result and an exit status.

use std::io::{Read, Write};
use std::sync::Arc;

use crate::cli::{Cli, ColorChoice, Command, GlobalArgs};
use crate::diagnose::{self, DiagnoseError, Options, Scope};
use crate::metallb::install::Overrides;
use crate::render::{self, Format, View};
use crate::report::Report;
use crate::snapshot::live::{self, KubeEnv, LiveError, LiveOptions};
use crate::snapshot::{self, LoadError};

mod check;
pub use check::DEFAULT_CONFIG;
mod complete;
pub use complete::{complete, write_completion};
mod explain;
mod history;
mod whatif;
mod wire;

/// Errors mapped to the documented exit codes in one place.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error("{0}")]
    Usage(String),
    #[error(transparent)]
    Load(#[from] LoadError),
    #[error(transparent)]
    Diagnose(#[from] DiagnoseError),
    #[error(transparent)]
    Live(#[from] LiveError),
    #[error("{0}")]
    Unavailable(String),
    /// A safety check refused the action (exit 1).
    #[error("{0}")]
    Refused(String),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

impl AppError {
    pub fn exit_code(&self) -> u8 {
        match self {
            AppError::Usage(_) | AppError::Load(_) | AppError::Diagnose(_) => 2,
            AppError::Live(LiveError::Usage(_) | LiveError::Load(_)) => 2,
            AppError::Live(_) | AppError::Unavailable(_) => 3,
            AppError::Refused(_) => 1,
            AppError::Io(_) => 2,
        }
    }
}

/// The environment the binary resolves once, so nothing below reads it.
pub struct Env<'a> {
    pub stdin: &'a mut dyn Read,
    pub stdout_is_terminal: bool,
    /// Progress goes to stderr only when it is a terminal.
    pub stderr_is_terminal: bool,
    pub no_color: bool,
    pub kube: KubeEnv,
    /// The wall clock, RFC 3339: a live snapshot's `capturedAt`.
    pub now: String,
    /// Where `check` looks for `.lbdoctor.yaml`.
    pub cwd: std::path::PathBuf,
}

/// Runs the command; `Ok(true)` means findings reached `--fail-on`.
pub fn run(cli: Cli, mut env: Env, out: &mut dyn Write) -> Result<bool, AppError> {
    let g = &cli.global;
    if let Some(format) = g.output {
        format.written_by(cli.command.name()).map_err(AppError::Usage)?;
    }
    let output = g.output.unwrap_or(Format::Table);
    let color = color(g, &env);
    match &cli.command {
        Command::Version => {
            let info = crate::version::current();
            match output {
                Format::Json | Format::Yaml => render::document(out, &info, output)?,
                _ => write!(out, "{info}")?,
            }
            Ok(false)
        }
        Command::Snapshot => snapshot(g, &mut env, out),
        Command::Simulate(args) => whatif::simulate(g, &mut env, args, out, color),
        Command::History { resource, name, all, since, logs } => {
            if *all && name.is_some() {
                return Err(AppError::Usage("history: svc NAME or --all, not both".into()));
            }
            let args = history::HistoryArgs {
                resource: resource.as_deref(),
                name: name.as_deref(),
                since: since.as_deref(),
                logs: logs.as_deref(),
            };
            history::history(g, &mut env, args, out, color)
        }
        Command::Completion { shell } => {
            write_completion(*shell, out)?;
            Ok(false)
        }
        Command::Arping { ip, interface, count, timeout, mac_map } => {
            let args = wire::ArpingArgs {
                ip: *ip,
                interface: interface.as_deref(),
                count: *count,
                timeout,
                mac_map: mac_map.as_deref(),
            };
            wire::arping(g, &mut env, args, out)
        }
        Command::Announce { ips, interface, duration, until_interrupted, force, dry_run, node, ndp_source } => {
            let args = wire::AnnounceArgs {
                ips,
                interface,
                duration: duration.as_deref(),
                until_interrupted: *until_interrupted,
                force: *force,
                dry_run: *dry_run,
                node: node.as_deref(),
                ndp_source: *ndp_source,
            };
            wire::announce(g, &mut env, args, out)
        }
        Command::Explain { resource, name } => {
            explain::explain(g, &mut env, resource, name.as_ref(), out, output, color)
        }
        Command::Check { ignore, config, no_config, spof } => {
            let args = check::CheckArgs { ignore, config: config.as_deref(), no_config: *no_config, spof: *spof };
            check::check(g, &mut env, args, out, output, color)
        }
    }
}

fn color(g: &GlobalArgs, env: &Env) -> bool {
    match g.color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => env.stdout_is_terminal && !env.no_color,
    }
}

/// Per-node rows are only built where they are printed.
pub(super) fn detail(format: Format, view: View) -> bool {
    matches!(format, Format::Json | Format::Yaml) || view == View::Service
}

/// `check` counts every finding; `explain` only those of the Services it explains (DESIGN §3).
pub(super) fn fails(report: &Report, g: &GlobalArgs, services_only: bool) -> bool {
    let Some(threshold) = g.fail_on.threshold() else {
        return false;
    };
    if services_only {
        report.services.iter().flat_map(|s| &s.findings).any(|f| f.severity >= threshold)
    } else {
        report.all_findings().any(|f| f.severity >= threshold)
    }
}

pub(crate) fn is_service_resource(resource: &str) -> bool {
    matches!(resource, "svc" | "service" | "services")
}

/// `check` and `simulate`: every namespace, unless `-n` narrows it (and `-A` does not widen it again).
pub(super) fn every_namespace_unless_n(g: &GlobalArgs) -> Scope {
    match (&g.namespace, g.all_namespaces) {
        (Some(ns), false) => Scope::Namespace(ns.clone()),
        _ => Scope::All,
    }
}

pub(crate) fn is_pool_resource(resource: &str) -> bool {
    matches!(resource, "pool" | "pools" | "ipaddresspool" | "ipaddresspools" | "ipaddresspools.metallb.io")
}

/// The snapshot, the engine options (scope `All` until the caller narrows it), and the namespace
/// `-n` defaults to: the context's, live or as recorded in the snapshot.
fn load(g: &GlobalArgs, env: &mut Env, detail: bool) -> Result<(snapshot::Snapshot, Options, String), AppError> {
    let (snap, default_ns) = if !g.offline() {
        let c = collect(g, env, false)?;
        (c.snapshot, c.default_namespace)
    } else {
        let snap = match g.demo {
            Some(demo) => demo.load()?,
            None => snapshot::load_paths(&g.from, env.stdin)?,
        };
        let ns = snap.info.namespace.clone().unwrap_or_else(|| "default".into());
        (snap, ns)
    };
    if let Some(message) = unreadable_message(&snap) {
        return Err(AppError::Unavailable(message));
    }
    // An empty file is a failed capture, not a healthy cluster: say so rather than exit 0.
    if !snap.live && snap.origins.is_empty() && snap.ignored_kinds.is_empty() {
        return Err(AppError::Usage(format!(
            "{}: no Kubernetes objects in the snapshot (a failed capture?); `kubectl lbdoctor snapshot > FILE` writes one",
            g.from.join(", ")
        )));
    }
    let opts = Options {
        scope: Scope::All,
        detail,
        overrides: Overrides {
            ignore_exclude_lb: g.ignore_exclude_lb,
            lb_class: g.lb_class.clone(),
            memberlist: g.memberlist,
            bgp_type: g.bgp_type,
            version: g.metallb_version,
        },
    };
    Ok((snap, opts, default_ns))
}

/// Why no answer can be given, when a resource the answer needs could not be read.
fn unreadable_message(snap: &snapshot::Snapshot) -> Option<String> {
    let gaps: Vec<_> = diagnose::access::gaps(snap).into_iter().filter(|g| g.required).collect();
    if gaps.is_empty() {
        return None;
    }
    let missing: Vec<&str> = gaps.iter().map(|g| g.entry.as_str()).collect();
    let checks: Vec<String> = gaps.iter().filter_map(|g| g.check.as_ref()).map(|c| format!("  {c}")).collect();
    let mut text = format!(
        "could not read what the answer needs: {}. No answer is given rather than a guess.",
        missing.join("; ")
    );
    if checks.is_empty() {
        text.push_str(" Collect the snapshot with permission to list these kinds.");
    } else {
        text.push_str(&format!(
            " These commands show the permissions that are missing (ask for get/list on them):\n{}",
            checks.join("\n")
        ));
    }
    Some(text)
}

pub(crate) fn live_options(g: &GlobalArgs, env: &Env, keep_objects: bool) -> Result<LiveOptions, AppError> {
    Ok(LiveOptions {
        kubeconfig: g.kubeconfig.as_ref().map(Into::into),
        context: g.context.clone(),
        cluster: g.cluster.clone(),
        user: g.user.clone(),
        request_timeout: request_timeout(g.request_timeout.as_deref())?,
        env: env.kube.clone(),
        keep_objects,
        // kubectl's 0 means "no paging".
        page_size: (g.chunk_size > 0).then_some(g.chunk_size),
        ..LiveOptions::default()
    })
}

fn collect(g: &GlobalArgs, env: &Env, keep_objects: bool) -> Result<live::Collected, AppError> {
    let opts = live_options(g, env, keep_objects)?;
    if env.stderr_is_terminal {
        let bars = Arc::new(live::progress::Bars::new());
        let result = live::collect(&opts, bars.clone(), env.now.clone());
        bars.clear();
        Ok(result?)
    } else {
        Ok(live::collect(&opts, Arc::new(live::progress::Silent), env.now.clone())?)
    }
}

/// kubectl's `--request-timeout`: `0` is none, a bare number is seconds, else a duration (`30s`, `1m`).
fn request_timeout(text: Option<&str>) -> Result<Option<std::time::Duration>, AppError> {
    let Some(text) = text else {
        return Ok(None);
    };
    let seconds = match text.parse::<u64>() {
        Ok(n) => n as f64,
        Err(_) => crate::k8s::go_duration_seconds(text).filter(|s| *s >= 0.0).ok_or_else(|| {
            AppError::Usage(format!(
                "--request-timeout {text:?}: expected a duration such as 30s, 1m or 0 (no timeout)"
            ))
        })?,
    };
    Ok((seconds > 0.0).then(|| std::time::Duration::from_secs_f64(seconds)))
}

/// `snapshot`: what the engines read from the live cluster, as a `kind: List` with the
/// SnapshotInfo first; `--from` on it gives the same answers as the cluster did.
fn snapshot(g: &GlobalArgs, env: &mut Env, out: &mut dyn Write) -> Result<bool, AppError> {
    if !g.from.is_empty() {
        return Err(AppError::Usage(
            "snapshot reads a live cluster; files given with --from are a snapshot already".into(),
        ));
    }
    // run() has refused every other format.
    let format = g.output.unwrap_or(Format::Json);
    if let Some(demo) = g.demo {
        let items = snapshot::file::yaml_documents(demo.name(), demo.text())?;
        let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items});
        render::document(out, &list, format)?;
        return Ok(false);
    }
    let mut collected = collect(g, env, true)?;
    let detected = diagnose::describe_installation(&collected.snapshot);
    if let Some(spec) = collected.objects.first_mut().and_then(|info| info.get_mut("spec")) {
        spec["detected"] = detected;
    }
    let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": collected.objects});
    render::document(out, &list, format)?;
    if let Some(message) = unreadable_message(&collected.snapshot) {
        out.flush()?;
        return Err(AppError::Unavailable(format!("the snapshot was written, but {message}")));
    }
    Ok(false)
}
