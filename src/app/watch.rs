//! `check --watch` and `explain svc NAME --watch`: the first evaluation as the verb prints it,
//! then a line per change while the cluster's watches report changes, then a summary.

use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::resolve::Resolved;
use super::{known_namespace, unreadable_message, AppError, Env};
use crate::cli::NodeRows;
use crate::diagnose::{self, Options, Scope};
use crate::live::watch::{Session, Wake};
use crate::render::{self, Format, View};
use crate::report::{Report, WatchStart, API_VERSION};
use crate::snapshot::Snapshot;

/// Changes closer together than this are one evaluation (a rollout of a hundred Pods).
const QUIET: Duration = Duration::from_millis(200);
/// However busy the cluster, it is evaluated at least this often.
const LONGEST: Duration = Duration::from_secs(2);

/// What is watched, and how the first evaluation is printed.
pub(super) enum Watched {
    Check { rules: Vec<crate::suppress::Rule> },
    Explain { name: Option<String>, nodes: Option<NodeRows> },
}

pub(super) struct WatchArgs {
    pub timeout: Option<Duration>,
    /// `--timeout` as given, for the messages.
    pub timeout_text: Option<String>,
}

pub(super) fn watch(
    r: &Resolved,
    env: &mut Env,
    watched: Watched,
    args: &WatchArgs,
    out: &mut dyn Write,
) -> Result<bool, AppError> {
    let opts = r.kube.live_options(false);
    let (mut session, snap) = if r.progress {
        let bars = Arc::new(crate::live::progress::Bars::new());
        let started = Session::start(&opts, bars.clone(), env.now.clone());
        bars.clear();
        started?
    } else {
        Session::start(&opts, Arc::new(crate::live::progress::Silent), env.now.clone())?
    };
    if let Some(message) = unreadable_message(&snap) {
        return Err(AppError::Unavailable(message));
    }
    let (scope, detail, view) = match &watched {
        Watched::Check { .. } => (r.namespaces.every_unless_n(), false, View::Check),
        // Per-node rows as `explain svc NAME` shows them: asked for, or a small cluster.
        Watched::Explain { name: Some(n), nodes } => (
            Scope::Service { namespace: r.namespaces.namespace_or(session.default_namespace.clone()), name: n.clone() },
            *nodes == Some(NodeRows::All)
                || (nodes.is_none()
                    && snap.nodes.len() <= super::explain::SMALL_CLUSTER
                    && !matches!(r.format, Format::Json | Format::Yaml)),
            View::Service,
        ),
        Watched::Explain { name: None, .. } => {
            let ns = r.namespaces.namespace_or(session.default_namespace.clone());
            (if r.namespaces.all { Scope::All } else { Scope::Namespace(ns) }, false, View::Services)
        }
    };
    known_namespace(&snap, &scope, &r.source)?;
    let opts = Options { scope: scope.clone(), detail, map: false, overrides: r.overrides.clone() };
    let rules: &[crate::suppress::Rule] = match &watched {
        Watched::Check { rules } => rules,
        Watched::Explain { .. } => &[],
    };
    let mut last = evaluate(&snap, &opts, rules)?;
    drop(snap);
    let started_at = now();
    let ci = render::CiOptions { threshold: r.fail_on, origins: Default::default(), list_all: true };
    match r.format {
        Format::Json | Format::Yaml => {}
        _ => {
            match view {
                View::Check => render::render_check(out, &last, r.format, r.paint(), &ci)?,
                _ => render::render(out, &last, r.format, view, r.paint())?,
            }
            writeln!(out)?;
        }
    }
    let start = WatchStart {
        api_version: API_VERSION,
        kind: "WatchStart",
        time: started_at.clone(),
        context: session.context.clone(),
        scope: match &scope {
            Scope::All => "all".to_string(),
            Scope::Namespace(ns) => format!("namespace {ns}"),
            Scope::Service { namespace, name } => format!("service {namespace}/{name}"),
        },
        summary: last.summary.clone(),
        watching: session.watching(),
    };
    render::watch::start(out, &start, r.format, args.timeout_text.as_deref(), r.paint())?;

    let stop = super::wire::interrupt_flag()?;
    let deadline = args.timeout.map(|t| Instant::now() + t);
    let mut tally = crate::watch::Tally::default();
    let mut failure = None;
    let ended_by = loop {
        let wake = match session.wait(QUIET, LONGEST, deadline, &stop) {
            Ok(wake) => wake,
            Err(e) => {
                failure = Some(e);
                break "error";
            }
        };
        match wake {
            Wake::End => break if stop.load(std::sync::atomic::Ordering::Relaxed) { "interrupted" } else { "timeout" },
            Wake::Notes(notes) => say(&notes),
            Wake::Changed { triggers, notes } => {
                say(&notes);
                let (next, reasons) = match reevaluate(&session, &last, &opts, rules) {
                    Ok(done) => done,
                    // An object the API server took and the loader refuses: say so, keep watching.
                    Err(e) => {
                        say(&[format!("the cluster as it is now cannot be evaluated ({e}); the last state stands")]);
                        continue;
                    }
                };
                let time = now();
                for change in crate::watch::changes(&last, &next, &reasons, &triggers, &time) {
                    tally.record(&change);
                    render::watch::change(out, &change, r.format, r.paint())?;
                }
                tally.evaluations += 1;
                last = next;
            }
        }
    };
    let fails = r.fails(last.all_findings().map(|f| f.severity));
    let summary = tally.summary(&now(), &started_at, ended_by, session.events, last.summary.clone());
    // A watch that lost the cluster still says what it saw, then exits 3.
    let exit = if failure.is_some() { 3 } else { u8::from(fails) };
    render::watch::summary(out, &summary, r.format, exit, r.paint())?;
    match failure {
        Some(e) => Err(e.into()),
        None => Ok(fails),
    }
}

/// The cluster as the watches now see it, evaluated, with the reasons of what changed since `last`.
fn reevaluate(
    session: &Session,
    last: &Report,
    opts: &Options,
    rules: &[crate::suppress::Rule],
) -> Result<(Report, Vec<crate::report::Change>), AppError> {
    let snap = session.snapshot()?;
    let next = evaluate_again(&snap, opts, rules)?;
    let reasons = crate::watch::reasons(&snap, last, &next, opts)?;
    Ok((next, reasons))
}

/// As `evaluate`; the one Service explained may go (and come back): then its namespace's
/// evaluation without it, so the change reads "deleted" and the watch goes on.
fn evaluate_again(snap: &Snapshot, opts: &Options, rules: &[crate::suppress::Rule]) -> Result<Report, AppError> {
    let report = match (diagnose::diagnose(snap, opts), &opts.scope) {
        (Err(diagnose::DiagnoseError::ServiceNotFound { .. }), Scope::Service { namespace, .. }) => {
            let wider = Options { scope: Scope::Namespace(namespace.clone()), ..opts.clone() };
            let mut report = diagnose::diagnose(snap, &wider)?;
            report.services.clear();
            report
        }
        (other, _) => other?,
    };
    Ok(super::check::concluded(report, rules))
}

/// What `check` computes: the engines, the suppressions, then the causes of what is left.
fn evaluate(snap: &Snapshot, opts: &Options, rules: &[crate::suppress::Rule]) -> Result<Report, AppError> {
    Ok(super::check::concluded(diagnose::diagnose(snap, opts)?, rules))
}

fn say(notes: &[String]) {
    for n in notes {
        eprintln!("{} note: {n}", now());
    }
}

/// The wall clock, to the second: the edge of the program, as `Env::now` is for the start.
fn now() -> String {
    jiff::Timestamp::now().round(jiff::Unit::Second).map(|t| t.to_string()).unwrap_or_default()
}
