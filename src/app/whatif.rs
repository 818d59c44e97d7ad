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
        let objects = crate::snapshot::load_paths(std::slice::from_ref(file), env.stdin).map_err(|e| match e {
            crate::snapshot::LoadError::Io { path, source } if path == *file => {
                AppError::Usage(format!("--apply {file}: {}", crate::plain::io(&source)))
            }
            e => AppError::Usage(format!("--apply {file}: {e}")),
        })?;
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
    let sim = simulate::simulate(&snap, &edits, &opts)?;
    std::mem::forget(snap);
    render::render_simulation(out, &sim, r.format, r.paint())?;
    Ok(r.fails(sim.findings.iter().map(|f| f.severity)))
}
