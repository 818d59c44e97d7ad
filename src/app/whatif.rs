//! `simulate` and `check --spof`: loading the edits at the edge, then the pure what-if engine.

use std::io::Write;

use super::resolve::Resolved;
use super::{load, AppError, Env};
use crate::cli::SimulateArgs;
use crate::render;
use crate::simulate::edit::{self, Edit};
use crate::simulate::{self, SimulateError};

impl From<SimulateError> for AppError {
    fn from(e: SimulateError) -> Self {
        match e {
            SimulateError::Diagnose(d) => AppError::Diagnose(d),
            SimulateError::Edit(e) => AppError::Usage(e.to_string()),
        }
    }
}

/// `args` has at least one edit (resolve() checks).
pub(super) fn simulate(
    r: &Resolved,
    env: &mut Env,
    args: &SimulateArgs,
    out: &mut dyn Write,
) -> Result<bool, AppError> {
    // Edits are checked before any cluster is read: a typo should not cost a LIST of everything.
    let mut edits = Vec::new();
    for file in &args.apply {
        let usage = |e: crate::snapshot::LoadError| match e {
            crate::snapshot::LoadError::Io { path, source } if path == *file => {
                AppError::Usage(format!("--apply {file}: {}", crate::plain::io(&source)))
            }
            e => AppError::Usage(format!("--apply {file}: {e}")),
        };
        let texts = crate::snapshot::read_inputs(std::slice::from_ref(file), env.stdin).map_err(usage)?;
        let objects = crate::snapshot::load_texts_strict(&texts).map_err(usage)?;
        // kubectl apply refuses what no server serves: a what-if of it can never happen.
        if let Some(o) = objects.ignored_objects.first() {
            return Err(AppError::Usage(format!("--apply {}: {}: {}", o.at, o.object, o.reason)));
        }
        strict(&texts, &objects)?;
        edits.push(Edit::Apply { file: file.clone(), objects: Box::new(objects) });
    }
    for pair in args.label.chunks(2) {
        edits.push(edit::label_edit(&pair[0], &pair[1]).map_err(|e| AppError::Usage(e.to_string()))?);
    }
    for pair in args.unlabel.chunks(2) {
        edits.push(Edit::Unlabel { node: pair[0].clone(), key: pair[1].clone() });
    }
    edits.extend(args.down.iter().cloned().map(Edit::Down));
    edits.extend(args.delete.iter().cloned().map(Edit::Delete));
    edits.extend(args.speaker_down.iter().cloned().map(Edit::SpeakerDown));

    let (snap, mut opts, _) = load(r, env, true)?;
    opts.scope = r.namespaces.every_unless_n();
    super::known_namespace(&snap, &opts.scope, &r.source)?;
    let sim = simulate::simulate_owned(snap, &edits, &opts)?;
    render::render_simulation(out, &sim, r.format, r.paint())?;
    Ok(r.fails(sim.findings.iter().map(|f| f.severity)))
}

/// `kubectl apply` refuses a field the server does not know: so does `--apply`, naming the file,
/// line, field path and the field that was probably meant (the strict load found them).
fn strict(texts: &[(std::sync::Arc<str>, String)], objects: &crate::snapshot::Snapshot) -> Result<(), AppError> {
    let Some(f) = objects.ignored_fields.first() else { return Ok(()) };
    let text = texts.iter().find(|(name, _)| *name == f.file).map(|(_, text)| text.as_str());
    let line = text.and_then(|t| crate::snapshot::strict::line_of(t, f.line.unwrap_or(1) as usize, &f.keys));
    let at = match line {
        Some(line) => format!("{}:{line}", f.file),
        None => f.at.clone(),
    };
    let meant = f.nearest.as_ref().map(|n| format!(" (did you mean {n}?)")).unwrap_or_default();
    Err(AppError::Usage(format!(
        "--apply {at}: {}: unknown field {}{meant}; kubectl apply refuses it, so this what-if could never happen",
        f.object, f.field
    )))
}
