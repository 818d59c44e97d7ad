//! `check`: every Service and the MetalLB configuration, with the suppressions of `.lbdoctor.yaml`
//! and `--ignore`, and optionally the single points of failure (`--spof`).

use std::io::Write;

use super::resolve::Resolved;
use super::{detail, load, AppError, Env};
use crate::diagnose::{self, Scope};
use crate::render::{self, View};

pub struct CheckArgs {
    pub ignore: Vec<String>,
    pub config: Option<std::path::PathBuf>,
    pub no_config: bool,
    pub spof: bool,
    /// `--nodes all`: every per-node row in -o json/yaml.
    pub all_nodes: bool,
    /// `--watch`.
    pub watch: Option<super::watch::WatchArgs>,
    /// `--all`: every Service in the table, the healthy ones too, however many.
    pub all: bool,
}

pub(super) fn check(r: &Resolved, env: &mut Env, args: CheckArgs, out: &mut dyn Write) -> Result<bool, AppError> {
    // A bad suppression file is a usage error before any cluster is read.
    let rules = suppressions(&args.ignore, args.config.as_deref(), args.no_config, env)?;
    if let Some(watch) = &args.watch {
        return super::watch::watch(r, env, super::watch::Watched::Check { rules }, watch, out);
    }
    let (mut snap, mut opts, _) = load(r, env, detail(r.format, View::Check, args.all_nodes))?;
    opts.scope = r.namespaces.every_unless_n();
    opts.map = r.format == render::Format::Html;
    super::known_namespace(&snap, &opts.scope, &r.source)?;
    // Only SARIF points at where an object was read (`load` kept the index for it alone).
    let mut origins = std::mem::take(&mut snap.origins).labelled();
    let world = diagnose::world::World::build(&snap, &opts.overrides);
    let prepared = diagnose::Prepared::new(&snap, &world);
    let mut report = diagnose::diagnose_prepared(&snap, &world, &prepared, &opts, false)?;
    if args.spof {
        // Every node is checked against every Service, whatever -n narrows the table to.
        let all_report;
        let all = match opts.scope {
            Scope::All => &report,
            _ => {
                let all = diagnose::Options { scope: Scope::All, detail: false, ..opts.clone() };
                all_report = diagnose::diagnose_prepared(&snap, &world, &prepared, &all, false)?;
                &all_report
            }
        };
        report.spof = Some(crate::simulate::spof_in(&snap, &world, &prepared, all, &opts)?);
    }
    // As explain's build_report: the process exit frees a large snapshot faster.
    std::mem::forget(prepared);
    std::mem::forget(world);
    std::mem::forget(snap);
    let report = concluded(report, &rules);
    if r.format == render::Format::Sarif {
        let named: std::collections::HashSet<String> = report
            .all_findings()
            .chain(report.all_suppressed().map(|s| &s.finding))
            .flat_map(|f| f.objects.iter().map(ToString::to_string))
            .collect();
        origins.retain(|object, _| named.contains(object));
    }
    let ci = render::CiOptions { threshold: r.fail_on, origins, list_all: args.all };
    render::render_check(out, &report, r.format, r.paint(), &ci)?;
    // Every finding counts, the configuration's too (DESIGN §3).
    let fails = r.fails(report.all_findings().map(|f| f.severity));
    // Freeing 10,000 Service reports one by one costs more than the exit that follows.
    std::mem::forget(report);
    Ok(fails)
}

/// The suppressions applied, then the causes and counts of what they left.
pub(super) fn concluded(mut report: crate::report::Report, rules: &[crate::suppress::Rule]) -> crate::report::Report {
    // diagnose concluded the report already: only suppressions change what it concludes.
    if !rules.is_empty() {
        crate::suppress::apply(&mut report, rules);
        diagnose::conclude(&mut report);
    }
    report
}

/// `--ignore` codes, then `--config FILE` or `./.lbdoctor.yaml` (when present and not `--no-config`).
fn suppressions(
    ignore: &[String],
    config: Option<&std::path::Path>,
    no_config: bool,
    env: &Env,
) -> Result<Vec<crate::suppress::Rule>, AppError> {
    let usage = |e: crate::suppress::ConfigError| AppError::Usage(e.to_string());
    let mut rules = crate::suppress::from_ignore(ignore).map_err(usage)?;
    let path = match config {
        Some(path) => Some(path.to_path_buf()),
        None if no_config => None,
        None => Some(env.cwd.join(DEFAULT_CONFIG)).filter(|p| p.is_file()),
    };
    if let Some(path) = path {
        let name = path.display().to_string();
        if name == "-" {
            return Err(AppError::Usage(
                "--config -: suppressions are read from a file, not from <stdin>; save them to a file and pass its path".into(),
            ));
        }
        let text = std::fs::read_to_string(&path).map_err(|e| {
            AppError::Usage(format!("{name}: {} (suppressions for check; --no-config skips it)", crate::plain::io(&e)))
        })?;
        rules.extend(crate::suppress::from_config(&name, &text).map_err(usage)?);
    }
    Ok(rules)
}

/// The suppressions file `check` reads from the working directory.
pub const DEFAULT_CONFIG: &str = ".lbdoctor.yaml";
