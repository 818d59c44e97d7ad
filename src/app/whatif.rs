//! `simulate` and `check --spof`: loading the edits at the edge, then the pure what-if engine.

use std::io::Write;

use super::{load, AppError, Env};
use crate::cli::{GlobalArgs, SimulateArgs};
use crate::render::{self, Format};
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

pub(super) fn simulate(
    g: &GlobalArgs,
    env: &mut Env,
    args: &SimulateArgs,
    out: &mut dyn Write,
    color: bool,
) -> Result<bool, AppError> {
    if args.is_empty() {
        return Err(AppError::Usage(
            "simulate needs at least one edit: --down NODE, --delete NODE, --speaker-down NODE, --label NODE KEY=VALUE, --unlabel NODE KEY or --apply FILE".into(),
        ));
    }
    // Edits are checked before any cluster is read: a typo should not cost a LIST of everything.
    let mut edits = Vec::new();
    for file in &args.apply {
        let objects = crate::snapshot::load_paths(std::slice::from_ref(file), env.stdin)
            .map_err(|e| AppError::Usage(format!("--apply {file}: {e}")))?;
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

    let (snap, mut opts, _) = load(g, env, true)?;
    opts.scope = super::every_namespace_unless_n(g);
    let sim = simulate::simulate(&snap, &edits, &opts)?;
    std::mem::forget(snap);
    let output = g.output.unwrap_or(Format::Table);
    render::render_simulation(out, &sim, output, color)?;
    Ok(g.fail_on.threshold().is_some_and(|t| sim.findings.iter().any(|f| f.severity >= t)))
}
