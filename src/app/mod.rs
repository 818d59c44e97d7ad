//! One function per verb, from resolved options to a rendered result and an exit status.

use std::io::{Read, Write};
use std::sync::Arc;

use crate::cli::Cli;
use crate::diagnose::{self, DiagnoseError, Options, Scope};
use crate::live::{self, KubeEnv, LiveError};
use crate::render::{self, Format, View};
use crate::snapshot::{self, LoadError};

mod check;
pub use check::DEFAULT_CONFIG;
mod complete;
pub use complete::{complete, write_completion};
mod explain;
mod history;
mod resolve;
use resolve::{Resolved, Source, Verb};
mod watch;
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

/// The environment the binary reads once; `resolve` turns it and the flags into the options the
/// verbs read, so nothing below reads the environment.
pub struct Env<'a> {
    pub stdin: &'a mut dyn Read,
    pub stdout_is_terminal: bool,
    /// Progress goes to stderr only when it is a terminal.
    pub stderr_is_terminal: bool,
    pub no_color: bool,
    /// `$TERM`: `dumb` turns colour off under `--color auto`.
    pub term: Option<String>,
    /// `$COLUMNS` as set, checked by `resolve`: the width tables fit in.
    pub columns: Option<String>,
    /// The terminal's width, when stdout is one.
    pub terminal_width: Option<usize>,
    pub kube: KubeEnv,
    /// The wall clock, RFC 3339: a live snapshot's `capturedAt`.
    pub now: String,
    /// Where `check` looks for `.lbdoctor.yaml`.
    pub cwd: std::path::PathBuf,
}

/// Runs the command; `Ok(true)` means findings reached `--fail-on`.
pub fn run(cli: Cli, mut env: Env, out: &mut dyn Write) -> Result<bool, AppError> {
    let (r, verb) = resolve::resolve(cli, &env)?;
    let env = &mut env;
    match verb {
        Verb::Version => {
            let info = crate::version::current();
            match r.format {
                Format::Json | Format::Yaml => render::document(out, &info, r.format)?,
                _ => write!(out, "{info}")?,
            }
            Ok(false)
        }
        Verb::Snapshot => snapshot(&r, env, out),
        Verb::Simulate(args) => whatif::simulate(&r, env, &args, out),
        Verb::History(args) => history::history(&r, env, args, out),
        Verb::Completion(shell) => {
            write_completion(shell, out)?;
            Ok(false)
        }
        Verb::Arping(args) => wire::arping(&r, env, args, out),
        Verb::Announce(args) => wire::announce(&r, env, args, out),
        Verb::Explain { resource, name, nodes, watch } => {
            explain::explain(&r, env, resource, name.as_deref(), nodes, watch.as_ref(), out)
        }
        Verb::Check(args) => check::check(&r, env, args, out),
    }
}

/// Every node's row, only where asked for: `--nodes all`, `-o wide` of one Service, and one
/// Service's `-o json/yaml` (`explain svc NAME`); everywhere else the report stays bounded.
pub(super) fn detail(format: Format, view: View, all_nodes: bool) -> bool {
    all_nodes || (view == View::Service && matches!(format, Format::Json | Format::Yaml | Format::Wide | Format::Html))
}

/// The snapshot, the engine options (scope `All` until the caller narrows it), and the namespace
/// `-n` defaults to: the context's, live or as recorded in the snapshot.
fn load(r: &Resolved, env: &mut Env, detail: bool) -> Result<(snapshot::Snapshot, Options, String), AppError> {
    let recorded = |snap: snapshot::Snapshot| {
        let ns = snap.info.namespace.clone().unwrap_or_else(|| "default".into());
        (snap, ns)
    };
    let (mut snap, default_ns) = match &r.source {
        Source::Live => {
            let c = collect(r, env, false)?;
            (c.snapshot, c.default_namespace)
        }
        Source::Files(paths) => {
            let mut snap = snapshot::load_paths(paths, env.stdin)?;
            if r.fill_from_cluster {
                fill_from_cluster(r, env, &mut snap)?;
            }
            recorded(snap)
        }
        Source::Demo(demo) => recorded(demo.load()?),
    };
    // What each bundle held comes first: it explains a refusal for what it lacks.
    for line in bundle_lines(&snap) {
        eprintln!("{line}");
    }
    if let Some(message) = unreadable_message(&snap).or_else(|| bundle_lacks(&snap)) {
        return Err(AppError::Unavailable(message));
    }
    for line in skipped_lines(&snap) {
        eprintln!("{line}");
    }
    // An empty file is a failed capture, not a healthy cluster: say so rather than exit 0.
    if !snap.live && snap.origins.is_empty() && snap.ignored_kinds.is_empty() {
        return Err(AppError::Usage(format!(
            "{}: no Kubernetes objects in the snapshot (a failed capture?); `kubectl lbdoctor snapshot > FILE` writes one",
            r.source.shown()
        )));
    }
    // Only SARIF points at where an object was read: for every other output the index of each
    // object's place is freed before the engines run.
    if r.format != Format::Sarif {
        snap.origins = Default::default();
    }
    let opts = Options { scope: Scope::All, detail, map: false, overrides: r.overrides.clone() };
    Ok((snap, opts, default_ns))
}

/// What each bundle held, for stderr: its layout, what was read from it and what was not.
fn bundle_lines(snap: &snapshot::Snapshot) -> Vec<String> {
    let count = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    snap.bundles
        .iter()
        .map(|b| {
            let speakers = b.speaker_logs().count();
            let controllers = b.logs.len() - speakers;
            let mut read = vec![count(b.object_files, "object file", "object files")];
            if speakers > 0 {
                read.push(count(speakers, "speaker log", "speaker logs"));
            }
            if controllers > 0 {
                read.push(count(controllers, "controller log", "controller logs"));
            }
            if !b.frr.is_empty() {
                read.push(count(b.frr.len(), "node's FRR view", "nodes' FRR views"));
            }
            let mut line = format!("note: {}: {}: read {}", b.path, b.layout.words(), read.join(", "));
            if !b.skipped.is_empty() {
                let shown: Vec<&str> = b.skipped.iter().take(3).map(String::as_str).collect();
                let more = b.skipped.len().saturating_sub(shown.len());
                let more = if more > 0 { format!("; and {more} more") } else { String::new() };
                line.push_str(&format!("; {} not read ({}{more})", b.skipped.len(), shown.join("; ")));
            }
            line
        })
        .collect()
}

/// A bundle lacks kinds every answer needs (MetalLB's report has no Nodes, Services,
/// EndpointSlices or Pods; a sysdump no EndpointSlices) and no other input gave them: which, and
/// the command that captures them. No answer is better than one built on a guess.
fn bundle_lacks(snap: &snapshot::Snapshot) -> Option<String> {
    let (first, missing) = bundle_missing(snap)?;
    let froms: Vec<String> = snap
        .bundles
        .iter()
        .map(|b| format!("--from {}", if b.path == "<stdin>" { "-" } else { b.path.as_str() }))
        .collect();
    Some(format!(
        "{} is {}: it holds no {}, which every answer needs, and no other --from gave them. No answer is given rather than a guess. Capture them where the cluster is reachable and pass both:\n  kubectl get {} -A -o yaml > cluster.yaml\n  kubectl lbdoctor check {} --from cluster.yaml\nor add --fill-from-cluster to read them from the cluster kubectl reads now.",
        first.path,
        first.layout.words(),
        match missing.split_last() {
            Some((last, [])) => last.to_string(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        },
        missing.join(","),
        froms.join(" ")
    ))
}

/// The first bundle that lacks kinds no other input gave, and every such kind once (as
/// `kubectl get` names them).
fn bundle_missing(snap: &snapshot::Snapshot) -> Option<(&snapshot::bundle::Bundle, Vec<&'static str>)> {
    let has = |kind: &str| match kind {
        "nodes" => !snap.nodes.is_empty(),
        "services" => !snap.services.is_empty(),
        "endpointslices" => !snap.endpoint_slices.is_empty(),
        "pods" => !snap.pods.is_empty(),
        _ => true,
    };
    let lacking: Vec<&snapshot::bundle::Bundle> =
        snap.bundles.iter().map(|b| b.as_ref()).filter(|b| b.layout.lacks().iter().any(|k| !has(k))).collect();
    let first = lacking.first()?;
    let mut missing: Vec<&'static str> = Vec::new();
    for kind in lacking.iter().flat_map(|b| b.layout.lacks()).filter(|k| !has(k)) {
        if !missing.contains(kind) {
            missing.push(kind);
        }
    }
    Some((first, missing))
}

/// `--fill-from-cluster`: the kinds the bundles lack, read now from the cluster kubectl reads
/// (GET and LIST only, as every live read); everything else stays the bundle's. What the cluster
/// refuses to list is unknown, as in live mode.
fn fill_from_cluster(r: &Resolved, env: &Env, snap: &mut snapshot::Snapshot) -> Result<(), AppError> {
    let Some((_, missing)) = bundle_missing(snap) else {
        eprintln!("note: --fill-from-cluster: no --from bundle lacks anything, so the cluster was not read");
        return Ok(());
    };
    let live = collect(r, env, false)?.snapshot;
    for kind in &missing {
        match *kind {
            "nodes" => snap.nodes = live.nodes.clone(),
            "services" => snap.services = live.services.clone(),
            "endpointslices" => snap.endpoint_slices = live.endpoint_slices.clone(),
            "pods" => snap.pods = live.pods.clone(),
            _ => {}
        }
    }
    for denied in live.info.denied.iter().filter(|d| missing.contains(&d.resource.split('.').next().unwrap_or(""))) {
        snap.info.unreadable.push(denied.summary());
        snap.info.denied.push(denied.clone());
    }
    let context = live.info.context.as_deref().map(|c| format!(" (context {c})")).unwrap_or_default();
    eprintln!(
        "note: {} read from the cluster{context} at {}; the bundle's objects and logs are from when it was collected",
        missing.join(", "),
        live.info.captured_at.as_deref().unwrap_or("an unknown time")
    );
    Ok(())
}

/// What the loader left out, for stderr: each object of a kind the engines read that no server
/// would hold (with its place and why), then one line counting the kinds no engine reads.
fn skipped_lines(snap: &snapshot::Snapshot) -> Vec<String> {
    let mut lines: Vec<String> =
        snap.ignored_objects.iter().map(|o| format!("warning: {}: {} ignored: {}", o.at, o.object, o.reason)).collect();
    lines.extend(snap.ignored_fields.iter().map(|f| {
        let meant = f.nearest.as_ref().map(|n| format!(" (did you mean {n}?)")).unwrap_or_default();
        format!(
            "warning: {}: {}: unknown field {}{meant} not read: no API server returns it for this kind (a typo, or a newer version's field)",
            f.at, f.object, f.field
        )
    }));
    let count: usize = snap.ignored_kinds.values().sum();
    if count > 0 {
        let kinds: Vec<String> =
            snap.ignored_kinds.iter().map(|(k, n)| format!("{} ×{n}", snapshot::served::short(k))).collect();
        let what = if count == 1 { "object" } else { "objects" };
        lines.push(format!("note: {count} {what} of kinds no engine reads skipped: {}", kinds.join(", ")));
    }
    lines
}

/// A `-n` naming no Namespace the snapshot holds is a typo, not an empty namespace: as a CI gate
/// "no Services found" would pass it. Unknown when the Namespaces were not read.
fn known_namespace(snap: &snapshot::Snapshot, scope: &Scope, source: &Source) -> Result<(), AppError> {
    let ns = match scope {
        Scope::Namespace(ns) | Scope::Service { namespace: ns, .. } => ns,
        Scope::All => return Ok(()),
    };
    let names: Vec<&str> = snap.namespaces.iter().filter_map(|n| n.metadata.name.as_deref()).collect();
    if names.is_empty() || names.contains(&ns.as_str()) {
        return Ok(());
    }
    let mut shown: Vec<&str> = names.iter().take(8).copied().collect();
    if names.len() > shown.len() {
        shown.push("…");
    }
    let place = match source {
        Source::Live => "in the cluster".to_string(),
        Source::Demo(_) => "in the demo".to_string(),
        Source::Files(_) => format!("in {}", source.shown()),
    };
    Err(AppError::Usage(format!(
        "namespace {ns:?} does not exist {place} (namespaces: {}); -A covers every namespace",
        shown.join(", ")
    )))
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
    // A list that expired while paging is not a permission problem: say what to do instead.
    let retry = gaps.iter().find_map(|g| g.retry);
    if let Some(retry) = retry {
        text.push_str(&format!(" A list that keeps expiring while paging needs fewer, larger pages: {retry}."));
    }
    if checks.is_empty() {
        if retry.is_none() {
            text.push_str(" Collect the snapshot with permission to list these kinds.");
        }
    } else {
        text.push_str(&format!(
            " These commands show the permissions that are missing (ask for get/list on them):\n{}",
            checks.join("\n")
        ));
    }
    Some(text)
}

fn collect(r: &Resolved, env: &Env, keep_objects: bool) -> Result<live::Collected, AppError> {
    let opts = r.kube.live_options(keep_objects);
    if r.progress {
        let bars = Arc::new(live::progress::Bars::new());
        let result = live::collect(&opts, bars.clone(), env.now.clone());
        bars.clear();
        Ok(result?)
    } else {
        Ok(live::collect(&opts, Arc::new(live::progress::Silent), env.now.clone())?)
    }
}

/// `snapshot`: what the engines read from the live cluster, as a `kind: List` with the
/// SnapshotInfo first; `--from` on it gives the same answers as the cluster did.
fn snapshot(r: &Resolved, env: &mut Env, out: &mut dyn Write) -> Result<bool, AppError> {
    match r.source {
        Source::Live => {}
        Source::Files(_) => {
            return Err(AppError::Usage(
                "snapshot reads a live cluster; files given with --from are a snapshot already".into(),
            ))
        }
        Source::Demo(demo) => {
            let items = snapshot::file::yaml_documents(demo.name(), demo.text())?;
            let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items});
            render::document(out, &list, r.format)?;
            return Ok(false);
        }
    }
    // `snapshot` is the one verb --from cannot stand in for: do not suggest it.
    const FROM_HINT: &str = ", or read a snapshot with --from FILE.";
    let mut collected = collect(r, env, true).map_err(|e| match e {
        AppError::Live(crate::live::LiveError::Unreachable(m)) if m.ends_with(FROM_HINT) => {
            AppError::Live(crate::live::LiveError::Unreachable(format!("{}.", &m[..m.len() - FROM_HINT.len()])))
        }
        other => other,
    })?;
    let detected = diagnose::describe_installation(&collected.snapshot);
    if let Some(spec) = collected.objects.first_mut().and_then(|info| info.get_mut("spec")) {
        spec["detected"] = detected;
    }
    let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": collected.objects});
    render::document(out, &list, r.format)?;
    if let Some(message) = unreadable_message(&collected.snapshot) {
        out.flush()?;
        return Err(AppError::Unavailable(format!("the snapshot was written, but {message}")));
    }
    Ok(false)
}
