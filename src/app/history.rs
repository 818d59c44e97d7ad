//! `history`: scanning the speaker logs (files, or pods/log live) at the edge, then the pure
//! correlation in `history::engine`.

use std::io::Write;
use std::path::Path;

use jiff::Timestamp;
use rayon::prelude::*;

use super::resolve::Resolved;
use super::{load, AppError, Env};
use crate::diagnose::{self, Scope};
use crate::history::engine::{self, SpeakerLog};
use crate::history::logs;
use crate::render;

pub struct HistoryArgs {
    /// `svc NAME`: the Service to narrow the history to.
    pub service: Option<String>,
    /// `--since`: the window before the snapshot was taken (live: before now).
    pub since: Option<jiff::SignedDuration>,
    pub logs: Option<std::path::PathBuf>,
}

pub(super) fn history(r: &Resolved, env: &mut Env, args: HistoryArgs, out: &mut dyn Write) -> Result<bool, AppError> {
    if let Some(dir) = &args.logs {
        let what = match std::fs::metadata(dir) {
            Ok(m) if m.is_dir() => None,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some("no such directory"),
            Err(_) => Some("cannot be read"),
            Ok(m) if m.is_file() => Some("a file, not a directory"),
            Ok(_) => Some("not a directory (a FIFO, socket or device)"),
        };
        if let Some(what) = what {
            return Err(AppError::Usage(format!(
                "--logs {}: {what}; pass a directory with one file per speaker Pod, e.g. `kubectl logs -n metallb-system POD -c speaker > DIR/POD.log`",
                dir.display()
            )));
        }
    }
    // Per-node rows only for the Services whose history needs them (engine::Inputs::detail).
    let (snap, mut opts, default_ns) = load(r, env, false)?;
    opts.scope = Scope::All;
    let report = diagnose::diagnose(&snap, &opts)?;
    // -n without svc NAME narrows as check's -n does, and a namespace that does not exist is a typo.
    let namespace = match (&args.service, r.namespaces.every_unless_n()) {
        (None, Scope::Namespace(ns)) => {
            super::known_namespace(&snap, &Scope::Namespace(ns.clone()), &r.source)?;
            Some(ns)
        }
        _ => None,
    };
    let service = match &args.service {
        None => None,
        Some(name) => {
            let ns = r.namespaces.namespace_or(default_ns);
            if !report.services.iter().any(|s| s.namespace == ns && s.name == *name) {
                // explain's error, with its hints (another namespace, not a LoadBalancer).
                let one = Scope::Service { namespace: ns.clone(), name: name.clone() };
                diagnose::diagnose(&snap, &diagnose::Options { scope: one, detail: false, ..opts.clone() })?;
            }
            Some(format!("{ns}/{name}"))
        }
    };
    // The window ends when the snapshot was taken (live: now).
    let since = match args.since {
        None => None,
        Some(window) => {
            let end = if snap.live { Some(env.now.clone()) } else { snap.info.captured_at.clone() };
            let end: Timestamp = end.and_then(|t| t.parse().ok()).ok_or_else(|| {
                AppError::Usage(
                    "--since needs the time the snapshot was taken, and its SnapshotInfo has no capturedAt".into(),
                )
            })?;
            Some(end - window)
        }
    };
    let bundled: Vec<&crate::snapshot::bundle::PodLog> = snap.bundled_speaker_logs().collect();
    let (speaker_logs, unknown, refused) = match &args.logs {
        Some(dir) => (scan_dir(dir, since)?, None, Vec::new()),
        None if !bundled.is_empty() => (scan_bundled(&bundled, since)?, None, Vec::new()),
        None if snap.live => live_logs(r, &snap, since)?,
        None => (
            Vec::new(),
            Some("no speaker logs: pass --logs DIR, one `kubectl logs -n NAMESPACE POD -c speaker > DIR/POD.log` file per speaker Pod, or --from a MetalLB report bundle that holds them".into()),
            Vec::new(),
        ),
    };
    let detail = |wanted: &engine::Wanted| {
        let keys: std::collections::BTreeSet<(&str, &str)> =
            wanted.iter().map(|(ns, name)| (ns.as_str(), name.as_str())).collect();
        let only = crate::simulate::restrict(&snap, &keys);
        diagnose::diagnose(&only, &diagnose::Options { detail: true, ..opts.clone() }).ok()
    };
    let inputs = engine::Inputs {
        snap: &snap,
        report: &report,
        detail: &detail,
        logs: &speaker_logs,
        logs_unknown_because: unknown,
        since,
        service,
        namespace,
    };
    let mut history = engine::history(&inputs);
    history.findings.extend(diagnose::access::refused_findings(&refused));
    std::mem::forget(snap);
    render::render_history(out, &history, r.format, r.paint())?;
    Ok(r.fails(history.findings.iter().map(|f| f.severity)))
}

/// Every regular file of the directory, scanned in parallel (one file per speaker).
fn scan_dir(dir: &Path, since: Option<Timestamp>) -> Result<Vec<SpeakerLog>, AppError> {
    let read = |e: std::io::Error| AppError::Usage(format!("--logs {}: {}", dir.display(), crate::plain::io(&e)));
    let entries: Vec<std::path::PathBuf> =
        std::fs::read_dir(dir).map_err(read)?.filter_map(|e| e.ok().map(|e| e.path())).collect();
    // Only regular files (symlinks followed): a FIFO or a device would block or never end.
    let (mut files, mut skipped): (Vec<_>, Vec<_>) = entries.into_iter().partition(|p| p.is_file());
    files.sort();
    if files.is_empty() {
        skipped.sort();
        let names: Vec<String> =
            skipped.iter().take(5).filter_map(|p| p.file_name()).map(|n| n.to_string_lossy().into_owned()).collect();
        let what = if names.is_empty() {
            "the directory is empty".to_string()
        } else {
            format!("the directory holds no regular files (skipped, not regular files: {})", names.join(", "))
        };
        return Err(AppError::Usage(format!("--logs {}: {what}", dir.display())));
    }
    files
        .par_iter()
        .map(|path| {
            let file = std::fs::File::open(path)
                .map_err(|e| AppError::Usage(format!("--logs: {}: {}", path.display(), crate::plain::io(&e))))?;
            let stats = logs::scan(std::io::BufReader::with_capacity(1 << 20, file), since)
                .map_err(|e| AppError::Usage(format!("--logs: {}: {}", path.display(), crate::plain::io(&e))))?;
            let source = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            Ok(SpeakerLog { source, stats })
        })
        .collect()
}

/// The speaker logs a bundle held (MetalLB's report: `…/pods/POD/speaker.log`), named by their
/// place in it: the Pod is the node.
fn scan_bundled(
    logs: &[&crate::snapshot::bundle::PodLog],
    since: Option<Timestamp>,
) -> Result<Vec<SpeakerLog>, AppError> {
    logs.par_iter()
        .map(|log| {
            let stats = logs::scan(log.text.as_bytes(), since)
                .map_err(|e| AppError::Usage(format!("{}: {}", log.entry, crate::plain::io(&e))))?;
            Ok(SpeakerLog { source: log.entry.clone(), stats })
        })
        .collect()
}

/// The speakers' logs read from the cluster; why some could not be read, one clause per cause;
/// the reads RBAC refused, one per namespace (they become LBD230).
type LiveLogs = (Vec<SpeakerLog>, Option<String>, Vec<crate::snapshot::Denied>);

fn live_logs(r: &Resolved, snap: &crate::snapshot::Snapshot, since: Option<Timestamp>) -> Result<LiveLogs, AppError> {
    let opts = r.kube.live_options(false);
    let pods: Vec<(String, String)> = snap
        .pods
        .iter()
        .filter(|p| crate::metallb::install::is_speaker_labelled(p.metadata.labels.as_ref()))
        .filter_map(|p| Some((p.metadata.namespace.as_deref()?.to_string(), p.metadata.name.as_deref()?.to_string())))
        .collect();
    if pods.is_empty() {
        return Ok((Vec::new(), Some("no speaker Pods in the cluster, so no speaker logs".into()), Vec::new()));
    }
    let (scanned, failed) = crate::live::logs::read(&opts, &pods, since)?;
    let nodes: std::collections::HashMap<&str, &str> = snap
        .pods
        .iter()
        .filter_map(|p| Some((p.metadata.name.as_deref()?, p.spec.as_ref()?.node_name.as_deref()?)))
        .collect();
    let logs = scanned.into_iter().map(|(source, stats)| SpeakerLog { source, stats }).collect();
    let (forbidden, other): (Vec<_>, Vec<_>) = failed.into_iter().partition(|f| f.code == Some(403));
    let mut refused: Vec<crate::snapshot::Denied> = Vec::new();
    for f in &forbidden {
        if !refused.iter().any(|d| d.namespace == f.namespace) {
            refused.push(crate::snapshot::Denied {
                resource: "pods/log".into(),
                verb: "get".into(),
                namespace: f.namespace.clone(),
                name: String::new(),
                reason: "forbidden".into(),
                message: f.why.clone(),
            });
        }
    }
    Ok((logs, log_failures(&other, &forbidden, &nodes), refused))
}

/// One clause per cause, the Pods it hit listed once: "3 speaker logs (speaker-a, speaker-b,
/// speaker-c) could not be read: 500 …". Messages that differ only in their Pod's and node's
/// names are one cause, shown with POD and NODE in their place.
fn log_failures(
    other: &[crate::live::logs::Failed],
    forbidden: &[crate::live::logs::Failed],
    nodes: &std::collections::HashMap<&str, &str>,
) -> Option<String> {
    let mut causes: Vec<(String, String, Vec<&str>)> = Vec::new();
    for f in other {
        let mut general = f.why.replace(&f.pod, "POD");
        if let Some(node) = nodes.get(f.pod.as_str()).filter(|n| !n.is_empty()) {
            general = general.replace(node, "NODE");
        }
        match causes.iter_mut().find(|(g, ..)| *g == general) {
            Some((_, _, pods)) => pods.push(&f.pod),
            None => causes.push((general, f.why.clone(), vec![&f.pod])),
        }
    }
    let mut clauses: Vec<String> = causes
        .iter()
        .map(|(general, why, pods)| {
            let why = if pods.len() == 1 { why } else { general };
            format!("{} could not be read: {why}", speaker_logs(pods))
        })
        .collect();
    if !forbidden.is_empty() {
        let pods: Vec<&str> = forbidden.iter().map(|f| f.pod.as_str()).collect();
        clauses.push(format!("{} are forbidden (see LBD230)", speaker_logs(&pods)));
    }
    (!clauses.is_empty()).then(|| clauses.join("; "))
}

fn speaker_logs(pods: &[&str]) -> String {
    let shown: Vec<&str> = pods.iter().take(3).copied().collect();
    let more = if pods.len() > shown.len() { format!(", … (+{})", pods.len() - shown.len()) } else { String::new() };
    let noun = if pods.len() == 1 { "speaker log" } else { "speaker logs" };
    format!("{} {noun} ({}{more})", pods.len(), shown.join(", "))
}
