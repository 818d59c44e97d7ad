//! `kubectl lbdoctor __complete WORDS… PARTIAL`: kubectl's plugin-completion protocol (cobra's).
//! kubectl ≥ 1.26 runs `kubectl_complete-lbdoctor` with the words after `kubectl lbdoctor`; that
//! script calls this. Output: one candidate a line (`value<TAB>description`), then `:<directive>`.
//! main.rs hands `__complete` over before clap parses, so the words' own flags are left alone.

use std::io::Write;

use clap::CommandFactory;

use super::{load, AppError, Env};
use crate::cli::{Cli, GlobalArgs};
use crate::metallb::service::{ingress_ips, service_type};

/// Cobra's ShellCompDirective bits.
const ERROR: u32 = 1;
const NO_FILE_COMP: u32 = 4;
const FILTER_FILE_EXT: u32 = 8;

/// Flags whose value is a file: the shell completes paths (with these extensions, if any).
const FILE_FLAGS: &[(&str, &[&str])] =
    &[("from", &["yaml", "yml", "json"]), ("kubeconfig", &[]), ("config", &["yaml", "yml"]), ("mac-map", &[])];

pub fn complete(words: &[String], mut env: Env, out: &mut dyn Write) -> Result<bool, AppError> {
    let env = &mut env;
    let (partial, before) = match words.split_last() {
        Some((last, rest)) => (last.as_str(), rest),
        None => ("", &[][..]),
    };
    let mut root = Cli::command();
    root.build();
    // Progress bars would land in the middle of the user's command line.
    env.stderr_is_terminal = false;
    let (candidates, directive) = candidates(&root, before, partial, env);
    for (value, help) in candidates.iter().filter(|(v, _)| v.starts_with(partial)) {
        match help {
            Some(h) if !h.is_empty() => writeln!(out, "{value}\t{}", first_line(h))?,
            _ => writeln!(out, "{value}")?,
        }
    }
    writeln!(out, ":{directive}")?;
    Ok(false)
}

type Candidates = Vec<(String, Option<String>)>;

fn candidates(root: &clap::Command, before: &[String], partial: &str, env: &mut Env) -> (Candidates, u32) {
    let words = Words::parse(root, before);
    let sub = words.positionals.first().and_then(|name| root.find_subcommand(name));

    // `--flag=value`: complete the value, keeping the `--flag=` prefix.
    if let Some((flag, _)) = partial.strip_prefix("--").and_then(|p| p.split_once('=')) {
        if let Some(arg) = find_flag(root, sub, flag) {
            let (values, directive) = flag_values(arg, sub, &words, env);
            let values = values.into_iter().map(|(v, h)| (format!("--{flag}={v}"), h)).collect();
            return (values, directive);
        }
    }
    if let Some(arg) = words.pending_value {
        return flag_values(arg, sub, &words, env);
    }
    if partial.starts_with('-') {
        return (flags(root, sub), NO_FILE_COMP);
    }
    let (mut found, directive) = positional(root, sub, &words, env);
    // `check --demo <TAB>`: the optional value, or whatever comes next.
    if let Some(arg) = words.optional_value {
        let mut values = possible_values(Some(arg));
        values.append(&mut found);
        found = values;
    }
    (found, directive)
}

fn positional(root: &clap::Command, sub: Option<&clap::Command>, words: &Words, env: &mut Env) -> (Candidates, u32) {
    let Some(sub) = sub else {
        let subs = root
            .get_subcommands()
            .filter(|s| !s.is_hide_set())
            .map(|s| (s.get_name().to_string(), s.get_about().map(|a| a.to_string())))
            .collect();
        return (subs, NO_FILE_COMP);
    };
    let args = &words.positionals[1..];
    match (sub.get_name(), args) {
        ("explain", []) => (
            vec![
                ("svc".into(), Some("a LoadBalancer Service: every node, every filter".into())),
                ("pool".into(), Some("a MetalLB IPAddressPool: usage and holders".into())),
            ],
            NO_FILE_COMP,
        ),
        ("explain", [resource]) => match snapshot_names(resource, words, env) {
            Some(names) => (names, NO_FILE_COMP),
            None => (Vec::new(), NO_FILE_COMP | ERROR),
        },
        ("completion", []) => (possible_values(sub.get_arguments().find(|a| a.is_positional())), NO_FILE_COMP),
        _ => (Vec::new(), NO_FILE_COMP),
    }
}

/// The words before the one being completed, read the way clap would read them.
struct Words<'a> {
    positionals: Vec<String>,
    /// The flag the word being completed is the value of.
    pending_value: Option<&'a clap::Arg>,
    /// A flag with an optional value (`--demo`) right before the word being completed.
    optional_value: Option<&'a clap::Arg>,
    /// Global flags and their values, to parse into `GlobalArgs` for cluster access.
    globals: Vec<String>,
}

impl<'a> Words<'a> {
    fn parse(root: &'a clap::Command, before: &[String]) -> Self {
        let mut w = Words { positionals: Vec::new(), pending_value: None, optional_value: None, globals: Vec::new() };
        let mut i = 0;
        while i < before.len() {
            let word = &before[i];
            i += 1;
            let sub = w.positionals.first().and_then(|n| root.find_subcommand(n));
            let name = if let Some(long) = word.strip_prefix("--") {
                if long.contains('=') {
                    w.keep_global(root, long.split('=').next().unwrap_or_default(), [word.as_str()]);
                    continue;
                }
                long.to_string()
            } else if let Some(short) = word.strip_prefix('-').filter(|s| s.len() == 1) {
                match short.chars().next().and_then(|c| find_short(root, sub, c)) {
                    Some(arg) => arg.get_long().unwrap_or_default().to_string(),
                    None => continue,
                }
            } else {
                w.positionals.push(word.clone());
                continue;
            };
            let Some(arg) = find_flag(root, sub, &name) else { continue };
            let takes = arg.get_num_args().is_some_and(|n| n.min_values() > 0);
            let optional = arg.get_num_args().is_some_and(|n| n.min_values() == 0 && n.max_values() > 0);
            if takes {
                match before.get(i) {
                    Some(value) => {
                        w.keep_global(root, &name, [word.as_str(), value.as_str()]);
                        i += 1;
                    }
                    None => w.pending_value = Some(arg),
                }
            } else if optional {
                // `--demo trap`: the next word is its value when it is one of them.
                let next = before.get(i).filter(|v| arg.get_possible_values().iter().any(|p| p.matches(v, false)));
                match next {
                    Some(value) => {
                        w.keep_global(root, &name, [word.as_str(), value.as_str()]);
                        i += 1;
                    }
                    None => {
                        w.keep_global(root, &name, [word.as_str()]);
                        if i == before.len() {
                            w.optional_value = Some(arg);
                        }
                    }
                }
            } else {
                w.keep_global(root, &name, [word.as_str()]);
            }
        }
        w
    }

    fn keep_global<const N: usize>(&mut self, root: &clap::Command, long: &str, words: [&str; N]) {
        if root.get_arguments().any(|a| a.get_long() == Some(long) && a.is_global_set()) {
            self.globals.extend(words.iter().map(|w| w.to_string()));
        }
    }

    /// The global flags as typed, for loading the snapshot or cluster the user points at.
    fn global_args(&self) -> Option<GlobalArgs> {
        // The subcommand first: a value-optional flag (`--demo`) then ends the line.
        let argv =
            ["kubectl-lbdoctor".to_string(), "version".to_string()].into_iter().chain(self.globals.iter().cloned());
        clap::Parser::try_parse_from(argv).ok().map(|cli: Cli| cli.global)
    }
}

fn find_flag<'a>(root: &'a clap::Command, sub: Option<&'a clap::Command>, long: &str) -> Option<&'a clap::Arg> {
    sub.into_iter().flat_map(|s| s.get_arguments()).chain(root.get_arguments()).find(|a| a.get_long() == Some(long))
}

fn find_short<'a>(root: &'a clap::Command, sub: Option<&'a clap::Command>, short: char) -> Option<&'a clap::Arg> {
    sub.into_iter().flat_map(|s| s.get_arguments()).chain(root.get_arguments()).find(|a| a.get_short() == Some(short))
}

fn flags(root: &clap::Command, sub: Option<&clap::Command>) -> Candidates {
    let mut out: Candidates = sub
        .into_iter()
        .flat_map(|s| s.get_arguments())
        .chain(root.get_arguments().filter(|a| a.is_global_set()))
        .filter(|a| !a.is_hide_set())
        .filter_map(|a| a.get_long().map(|l| (format!("--{l}"), a.get_help().map(|h| h.to_string()))))
        .collect();
    let mut seen = std::collections::HashSet::new();
    out.retain(|(flag, _)| seen.insert(flag.clone()));
    out
}

fn possible_values(arg: Option<&clap::Arg>) -> Candidates {
    arg.map(|a| {
        a.get_possible_values()
            .iter()
            .filter(|p| !p.is_hide_set())
            .map(|p| (p.get_name().to_string(), p.get_help().map(|h| h.to_string())))
            .collect()
    })
    .unwrap_or_default()
}

fn flag_values(arg: &clap::Arg, sub: Option<&clap::Command>, words: &Words, env: &mut Env) -> (Candidates, u32) {
    let long = arg.get_long().unwrap_or_default();
    if let Some((_, exts)) = FILE_FLAGS.iter().find(|(f, _)| *f == long) {
        return match exts {
            [] => (Vec::new(), 0),
            exts => (exts.iter().map(|e| (e.to_string(), None)).collect(), FILTER_FILE_EXT),
        };
    }
    let mut values = possible_values(Some(arg));
    if long == "output" {
        // The formats each command accepts.
        match sub.map(|s| s.get_name()) {
            Some("check") | None => {}
            Some("snapshot") => values.retain(|(v, _)| matches!(v.as_str(), "json" | "yaml")),
            Some(_) => values.retain(|(v, _)| !matches!(v.as_str(), "junit" | "sarif")),
        }
    }
    if !values.is_empty() {
        return (values, NO_FILE_COMP);
    }
    match long {
        "namespace" => match namespaces(words, env) {
            Some(names) => (names, NO_FILE_COMP),
            None => (Vec::new(), NO_FILE_COMP | ERROR),
        },
        "context" | "cluster" | "user" => (kubeconfig_names(long, words, env), NO_FILE_COMP),
        _ => (Vec::new(), NO_FILE_COMP),
    }
}

/// Service (namespace from `-n` or the context's) or pool names, from the snapshot or cluster.
fn snapshot_names(resource: &str, words: &Words, env: &mut Env) -> Option<Candidates> {
    let g = completion_args(words)?;
    let (snap, _, default_ns) = load(&g, env, false).ok()?;
    if super::is_pool_resource(resource) {
        let mut pools: Candidates = snap
            .metallb
            .ip_address_pools
            .iter()
            .map(|p| (p.name().to_string(), Some(p.spec.addresses.join(","))))
            .collect();
        pools.sort();
        return Some(pools);
    }
    if !matches!(resource, "svc" | "service" | "services") {
        return Some(Vec::new());
    }
    let namespace = g.namespace.clone().unwrap_or(default_ns);
    let mut names: Candidates = snap
        .services
        .iter()
        .filter(|s| s.metadata.namespace.as_deref() == Some(namespace.as_str()))
        .filter(|s| service_type(s) == "LoadBalancer" || !ingress_ips(s).is_empty())
        .filter_map(|s| {
            let ips = ingress_ips(s).into_iter().filter(|ip| !ip.is_empty()).collect::<Vec<_>>();
            let help = if ips.is_empty() { "<pending>".to_string() } else { ips.join(",") };
            s.metadata.name.clone().map(|n| (n, Some(help)))
        })
        .collect();
    names.sort();
    Some(names)
}

fn namespaces(words: &Words, env: &mut Env) -> Option<Candidates> {
    let g = completion_args(words)?;
    let (snap, _, _) = load(&g, env, false).ok()?;
    // Namespace objects, and those of Services when Namespaces were not collected.
    let mut names: Vec<String> = snap
        .namespaces
        .iter()
        .filter_map(|n| n.metadata.name.clone())
        .chain(snap.services.iter().filter_map(|s| s.metadata.namespace.clone()))
        .collect();
    names.sort();
    names.dedup();
    Some(names.into_iter().map(|n| (n, None)).collect())
}

fn kubeconfig_names(kind: &str, words: &Words, env: &Env) -> Candidates {
    let Some(g) = words.global_args() else { return Vec::new() };
    let Ok(opts) = super::live_options(&g, env, false) else { return Vec::new() };
    let Ok(Some(kc)) = crate::snapshot::live::connect::find_kubeconfig(&opts) else { return Vec::new() };
    let mut names: Vec<String> = match kind {
        "context" => kc.contexts.into_iter().map(|c| c.name).collect(),
        "cluster" => kc.clusters.into_iter().map(|c| c.name).collect(),
        _ => kc.auth_infos.into_iter().map(|u| u.name).collect(),
    };
    names.sort();
    names.into_iter().map(|n| (n, None)).collect()
}

/// Completion must answer fast: a live cluster gets a short request timeout.
fn completion_args(words: &Words) -> Option<GlobalArgs> {
    let mut g = words.global_args()?;
    if !g.offline() {
        g.request_timeout.get_or_insert_with(|| "5s".into());
    }
    Some(g)
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}
