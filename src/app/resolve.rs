//! What the user typed and the environment, resolved once (as ripgrep's `HiArgs`): `Cli` + `Env`
//! become a [`Resolved`] every verb reads, and a [`Verb`] with the subcommand's own arguments
//! already typed. Defaults, the colour decision, the source, durations and resource words are
//! settled here, so no verb reads `GlobalArgs` or the environment, and none re-parses a flag.

use std::path::PathBuf;
use std::time::Duration;

use super::check::CheckArgs;
use super::history::HistoryArgs;
use super::watch::WatchArgs;
use super::wire::{AnnounceArgs, ArpingArgs};
use super::{AppError, Env};
use crate::cli::{Cli, ColorChoice, Command, CompletionShell, GlobalArgs, NodeRows, SimulateArgs};
use crate::demo::Demo;
use crate::diagnose::Scope;
use crate::live::{KubeEnv, LiveOptions};
use crate::metallb::install::Overrides;
use crate::render::Format;
use crate::report::Severity;

/// The global options, resolved: what every verb reads instead of the flags.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// `-o`, else the command's default (JSON for `snapshot`, a table otherwise); always one the
    /// command writes.
    pub format: Format,
    /// `--color always|never`, or with `auto` a terminal on stdout, no `NO_COLOR` and a `TERM`
    /// other than `dumb`.
    pub color: bool,
    /// The width tables fit in: none with `-o wide` (every cell in full, as kubectl), else
    /// `COLUMNS` when a positive number, else the terminal's width, else (a pipe) none.
    pub width: Option<usize>,
    /// `--no-headers`.
    pub no_headers: bool,
    /// Progress on stderr while lists run: only when stderr is a terminal.
    pub progress: bool,
    /// `--fail-on`: findings at or above it fail the run; `None` with `never`.
    pub fail_on: Option<Severity>,
    /// Where the objects come from.
    pub source: Source,
    /// `--fill-from-cluster`: what the `--from` bundles lack is read from the cluster.
    pub fill_from_cluster: bool,
    /// `-n` and `-A`.
    pub namespaces: Namespaces,
    /// The engine switches (`--ignore-exclude-lb`, `--lb-class`, `--memberlist`, …).
    pub overrides: Overrides,
    /// How the cluster is reached (live mode; kubeconfig names for completion either way).
    pub kube: Kube,
}

/// Where the objects the engines read come from.
#[derive(Debug, Clone)]
pub enum Source {
    /// The cluster the kubeconfig points at.
    Live,
    /// `--from`: files, directories or `-` (stdin).
    Files(Vec<String>),
    /// `--demo`: a snapshot built into the binary.
    Demo(Demo),
}

impl Source {
    /// The `--from` paths; none for a live or demo source.
    pub fn files(&self) -> &[String] {
        match self {
            Source::Files(paths) => paths,
            Source::Live | Source::Demo(_) => &[],
        }
    }

    /// The inputs as messages name them: `-` is `<stdin>`, as the loader's own errors say.
    pub fn shown(&self) -> String {
        self.files().iter().map(|f| if f == "-" { "<stdin>" } else { f.as_str() }).collect::<Vec<_>>().join(", ")
    }
}

/// `-n NAMESPACE` and `-A`, with the rules the commands share.
#[derive(Debug, Clone)]
pub struct Namespaces {
    pub namespace: Option<String>,
    pub all: bool,
}

impl Namespaces {
    /// `-n`, else `default`: the context's namespace, live or as recorded in the snapshot.
    pub fn namespace_or(&self, default: String) -> String {
        self.namespace.clone().unwrap_or(default)
    }

    /// `check` and `simulate`: every namespace, unless `-n` narrows it (and `-A` does not widen it again).
    pub fn every_unless_n(&self) -> Scope {
        match (&self.namespace, self.all) {
            (Some(ns), false) => Scope::Namespace(ns.clone()),
            _ => Scope::All,
        }
    }
}

/// kubectl's connection flags, and what the environment says about kubeconfig.
#[derive(Debug, Clone)]
pub struct Kube {
    pub kubeconfig: Option<PathBuf>,
    pub context: Option<String>,
    pub cluster: Option<String>,
    pub user: Option<String>,
    pub request_timeout: RequestTimeout,
    /// `--chunk-size`; `None` for kubectl's `0`, no paging.
    pub page_size: Option<u32>,
    /// `$KUBECONFIG` and the home directory.
    pub env: KubeEnv,
}

/// `--request-timeout`, parsed. Only a live source reads it, so only then is a bad value an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestTimeout {
    /// No flag: wait as long as the server takes, as kubectl does.
    Unset,
    /// `0`: wait as long as the server takes, whatever a command would default to.
    Never,
    After(Duration),
}

impl RequestTimeout {
    /// `default` unless the user gave `--request-timeout` (commands that must answer fast).
    pub fn or(self, default: Duration) -> Self {
        match self {
            RequestTimeout::Unset => RequestTimeout::After(default),
            given => given,
        }
    }
}

impl Kube {
    pub fn live_options(&self, keep_objects: bool) -> LiveOptions {
        LiveOptions {
            kubeconfig: self.kubeconfig.clone(),
            context: self.context.clone(),
            cluster: self.cluster.clone(),
            user: self.user.clone(),
            request_timeout: match self.request_timeout {
                RequestTimeout::After(d) => Some(d),
                RequestTimeout::Unset | RequestTimeout::Never => None,
            },
            env: self.env.clone(),
            keep_objects,
            page_size: self.page_size,
            ..LiveOptions::default()
        }
    }
}

impl Resolved {
    /// How the renderers draw: colour, width, headers.
    pub fn paint(&self) -> crate::render::Paint {
        crate::render::Paint { color: self.color, width: self.width, no_headers: self.no_headers }
    }

    /// Whether the source is the live cluster.
    pub fn live(&self) -> bool {
        matches!(self.source, Source::Live)
    }

    /// Whether any of these severities reaches `--fail-on`.
    pub fn fails(&self, severities: impl IntoIterator<Item = Severity>) -> bool {
        self.fail_on.is_some_and(|t| severities.into_iter().any(|s| s >= t))
    }
}

/// `explain`'s and `history`'s resource word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resource {
    /// `svc`, `service`, `services`.
    Service,
    /// `pool`, `pools`, `ipaddresspool`, `ipaddresspools`, `ipaddresspools.metallb.io`.
    Pool,
    /// `finding`, `findings`: the pages of the finding codes, compiled in.
    Finding,
}

impl Resource {
    pub fn parse(word: &str) -> Option<Resource> {
        match word {
            "svc" | "service" | "services" => Some(Resource::Service),
            "pool" | "pools" | "ipaddresspool" | "ipaddresspools" | "ipaddresspools.metallb.io" => Some(Resource::Pool),
            "finding" | "findings" => Some(Resource::Finding),
            _ => None,
        }
    }
}

/// The subcommand, with its arguments checked and typed.
pub enum Verb {
    Explain { resource: Resource, name: Option<String>, nodes: Option<NodeRows>, watch: Option<WatchArgs> },
    Check(CheckArgs),
    Simulate(SimulateArgs),
    History(HistoryArgs),
    Snapshot,
    Arping(ArpingArgs),
    Announce(AnnounceArgs),
    Version,
    Completion(CompletionShell),
}

/// `Cli` + `Env` → the options and the verb. Usage errors come in the order the commands have
/// always reported them: the format, the subcommand's arguments, then `--request-timeout`.
pub fn resolve(cli: Cli, env: &Env) -> Result<(Resolved, Verb), AppError> {
    let command = cli.command.name();
    let format = match cli.global.output {
        Some(format) => format.written_by(command).map_err(AppError::Usage)?,
        None if command == "snapshot" => Format::Json,
        None => Format::Table,
    };
    let verb = verb(cli.command, &cli.global)?;
    Ok((globals(cli.global, env, format)?, verb))
}

/// The global options alone. Completion resolves them without a command to check `format` against.
pub fn globals(g: GlobalArgs, env: &Env, format: Format) -> Result<Resolved, AppError> {
    let source = match g.demo {
        Some(demo) => Source::Demo(demo),
        None if g.from.is_empty() => Source::Live,
        None => Source::Files(g.from),
    };
    let request_timeout = match (&source, g.request_timeout.as_deref()) {
        (Source::Live, Some(text)) => request_timeout(text)?,
        // What the bundles lack is read live.
        (Source::Files(_), Some(text)) if g.fill_from_cluster => request_timeout(text)?,
        _ => RequestTimeout::Unset,
    };
    Ok(Resolved {
        format,
        color: match g.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => env.stdout_is_terminal && !env.no_color && env.term.as_deref() != Some("dumb"),
        },
        width: width(format, env),
        no_headers: g.no_headers,
        progress: env.stderr_is_terminal,
        fail_on: g.fail_on.threshold(),
        source,
        fill_from_cluster: g.fill_from_cluster,
        namespaces: Namespaces { namespace: g.namespace, all: g.all_namespaces },
        overrides: Overrides {
            ignore_exclude_lb: g.ignore_exclude_lb,
            lb_class: g.lb_class,
            memberlist: g.memberlist,
            bgp_type: g.bgp_type,
            version: g.metallb_version,
        },
        kube: Kube {
            kubeconfig: g.kubeconfig.map(Into::into),
            context: g.context,
            cluster: g.cluster,
            user: g.user,
            request_timeout,
            // kubectl's 0 means "no paging".
            page_size: (g.chunk_size > 0).then_some(g.chunk_size),
            env: env.kube.clone(),
        },
    })
}

/// `-o wide` draws every cell in full; else `COLUMNS` (a positive number), else the terminal's
/// width when stdout is one; a pipe without `COLUMNS` has no width either.
fn width(format: Format, env: &Env) -> Option<usize> {
    if format == Format::Wide {
        return None;
    }
    match env.columns.as_deref().and_then(|c| c.trim().parse::<usize>().ok()).filter(|&n| n > 0) {
        Some(n) => Some(n),
        None if env.stdout_is_terminal => env.terminal_width,
        None => None,
    }
}

fn verb(command: Command, g: &GlobalArgs) -> Result<Verb, AppError> {
    Ok(match command {
        Command::Explain { resource, name, nodes, watch, timeout } => {
            // kubectl's TYPE/NAME form: `explain svc/web`.
            let (resource, name) = match (resource.split_once('/'), &name) {
                (Some((kind, n)), None) if !n.is_empty() => (kind.to_string(), Some(n.to_string())),
                (Some(_), Some(extra)) => {
                    return Err(AppError::Usage(format!(
                        "explain {resource} {extra}: give the Service as TYPE/NAME or as TYPE NAME, not both"
                    )))
                }
                _ => (resource, name),
            };
            let resource = Resource::parse(&resource).ok_or_else(|| {
                AppError::Usage(format!(
                    "explain: unknown resource type {resource:?}; supported: svc (service, services), pool (pools, ipaddresspool), finding (findings)"
                ))
            })?;
            if resource == Resource::Service && name.is_some() && g.all_namespaces {
                return Err(AppError::Usage("explain svc NAME takes -n NAMESPACE, not -A".into()));
            }
            if resource != Resource::Service && watch {
                return Err(AppError::Usage("--watch follows Services: explain svc [NAME] --watch".into()));
            }
            let watch = watch_args(watch, timeout, g, "explain svc NAME")?;
            Verb::Explain { resource, name, nodes, watch }
        }
        Command::Check { ignore, config, no_config, spof, nodes, watch, timeout, all } => {
            let watch = watch_args(watch, timeout, g, "check")?;
            Verb::Check(CheckArgs { ignore, config, no_config, spof, all_nodes: nodes == NodeRows::All, watch, all })
        }
        Command::Simulate(args) => {
            if args.is_empty() {
                return Err(AppError::Usage(
                    "simulate needs at least one edit: --down NODE, --delete NODE, --speaker-down NODE, --label NODE KEY=VALUE, --unlabel NODE KEY or --apply FILE".into(),
                ));
            }
            Verb::Simulate(args)
        }
        Command::History { resource, name, all, since, logs } => {
            if all && name.is_some() {
                return Err(AppError::Usage("history: svc NAME or --all, not both".into()));
            }
            // `svc NAME` narrows the history to one Service; no resource word is every Service.
            let service = match resource {
                None => None,
                Some(word) => match (Resource::parse(&word), name) {
                    (Some(Resource::Service), Some(name)) => Some(name),
                    (Some(Resource::Service), None) => {
                        return Err(AppError::Usage("history svc NAME: name the Service, or use --all".into()))
                    }
                    _ => {
                        return Err(AppError::Usage(format!(
                            "history: unknown resource type {word:?}; supported: svc NAME"
                        )))
                    }
                },
            };
            Verb::History(HistoryArgs { service, since: since.as_deref().map(since_window).transpose()?, logs })
        }
        Command::Snapshot => Verb::Snapshot,
        Command::Arping { ip, interface, count, timeout, mac_map } => {
            Verb::Arping(ArpingArgs { ip, interface, count, timeout: positive("--timeout", &timeout)?, mac_map })
        }
        Command::Announce { ips, interface, duration, until_interrupted, force, dry_run, ndp_source, node } => {
            let duration = match (duration, until_interrupted) {
                (Some(text), _) => Some(positive("--duration", &text)?),
                (None, true) => None,
                (None, false) => return Err(AppError::Usage(
                    "announce needs --duration (e.g. --duration 10m), or --until-interrupted to answer until SIGINT/SIGTERM"
                        .into(),
                )),
            };
            Verb::Announce(AnnounceArgs { ips, interface, duration, force, dry_run, node, ndp_source })
        }
        Command::Version => Verb::Version,
        Command::Completion { shell } => Verb::Completion(shell),
    })
}

/// The longest duration Go (and so kubectl and MetalLB) can hold: 2^63 - 1 nanoseconds.
const GO_MAX_SECONDS: f64 = 9_223_372_036.854_775;

/// A duration flag's seconds, range-checked here so that no conversion downstream can overflow.
fn duration_seconds(flag: &str, text: &str, expected: &str, zero_allowed: bool) -> Result<f64, AppError> {
    let seconds = crate::k8s::go_duration_seconds(text)
        .filter(|s| s.is_finite() && (*s > 0.0 || (zero_allowed && *s == 0.0)))
        .ok_or_else(|| AppError::Usage(format!("{flag} {text:?}: expected {expected}")))?;
    if seconds > GO_MAX_SECONDS {
        return Err(too_long(flag, text));
    }
    Ok(seconds)
}

fn too_long(flag: &str, text: &str) -> AppError {
    AppError::Usage(format!(
        "{flag} {text:?}: longer than the longest duration Kubernetes tools accept (about 292 years, 2562047h)"
    ))
}

/// kubectl's `--request-timeout`: `0` is none, a bare number is seconds, else a duration (`30s`, `1m`).
fn request_timeout(text: &str) -> Result<RequestTimeout, AppError> {
    let flag = "--request-timeout";
    let seconds = match text.parse::<u64>() {
        Ok(n) if n as f64 <= GO_MAX_SECONDS => n as f64,
        Ok(_) => return Err(too_long(flag, text)),
        Err(_) => duration_seconds(flag, text, "a duration such as 30s, 1m or 0 (no timeout)", true)?,
    };
    Ok(if seconds > 0.0 { RequestTimeout::After(Duration::from_secs_f64(seconds)) } else { RequestTimeout::Never })
}

/// `history --since`: the window before the snapshot was taken, as the timestamps it is taken off need.
fn since_window(text: &str) -> Result<jiff::SignedDuration, AppError> {
    let seconds = duration_seconds("--since", text, "a duration such as 48h, 90m or 1h30m", false)?;
    Ok(jiff::SignedDuration::from_secs_f64(seconds))
}

/// `arping --timeout`, `announce --duration`.
/// `--watch` needs a cluster that changes, and an output that can grow a line at a time.
fn watch_args(watch: bool, timeout: Option<String>, g: &GlobalArgs, verb: &str) -> Result<Option<WatchArgs>, AppError> {
    if !watch {
        return Ok(None);
    }
    if g.demo.is_some() || !g.from.is_empty() {
        return Err(AppError::Usage(format!(
            "--watch follows a live cluster; --from and --demo are snapshots that never change. Run `kubectl lbdoctor {verb} --watch` with a kubeconfig, or drop --watch"
        )));
    }
    if let Some(format @ (Format::Name | Format::Junit | Format::Sarif | Format::Html)) = g.output {
        let name = clap::ValueEnum::to_possible_value(&format).map(|v| v.get_name().to_string()).unwrap_or_default();
        return Err(AppError::Usage(format!(
            "--watch writes a line per change (the table), a JSON object per line (-o json) or YAML documents (-o yaml), not -o {name}"
        )));
    }
    let parsed = timeout.as_deref().map(|t| positive("--timeout", t)).transpose()?;
    Ok(Some(WatchArgs { timeout: parsed, timeout_text: timeout }))
}

fn positive(flag: &str, text: &str) -> Result<Duration, AppError> {
    let seconds = duration_seconds(flag, text, "a positive duration such as 500ms, 30s or 10m", false)?;
    Ok(Duration::from_secs_f64(seconds))
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    /// What the environment says, beyond the arguments.
    #[derive(Default)]
    struct Given {
        tty: bool,
        no_color: bool,
        term: Option<&'static str>,
        columns: Option<&'static str>,
        terminal_width: Option<usize>,
    }

    fn resolved_in(args: &[&str], given: Given) -> Result<(Resolved, Verb), AppError> {
        let argv = std::iter::once("kubectl-lbdoctor").chain(args.iter().copied()).map(Into::into);
        let cli = Cli::try_parse_from(crate::cli::normalize_args(argv)).unwrap();
        let env = Env {
            stdin: &mut std::io::empty(),
            stdout_is_terminal: given.tty,
            stderr_is_terminal: false,
            no_color: given.no_color,
            term: given.term.map(Into::into),
            columns: given.columns.map(Into::into),
            terminal_width: given.terminal_width,
            kube: KubeEnv::default(),
            now: String::new(),
            cwd: PathBuf::new(),
        };
        resolve(cli, &env)
    }

    fn resolved(args: &[&str], tty: bool, no_color: bool) -> Result<(Resolved, Verb), AppError> {
        resolved_in(args, Given { tty, no_color, ..Given::default() })
    }

    fn usage(args: &[&str]) -> String {
        match resolved(args, false, false) {
            Err(AppError::Usage(text)) => text,
            Err(e) => panic!("{args:?}: not a usage error: {e}"),
            Ok(_) => panic!("{args:?}: resolved"),
        }
    }

    #[test]
    fn the_format_defaults_per_command_and_is_checked_once() {
        assert_eq!(resolved(&["check", "--demo"], false, false).unwrap().0.format, Format::Table);
        assert_eq!(resolved(&["snapshot", "--demo"], false, false).unwrap().0.format, Format::Json);
        assert_eq!(resolved(&["snapshot", "-o", "yaml"], false, false).unwrap().0.format, Format::Yaml);
        assert_eq!(usage(&["snapshot", "-o", "wide"]), "snapshot writes -o json or -o yaml, not wide");
        assert!(usage(&["explain", "svc", "-o", "sarif"]).starts_with("-o sarif: JUnit and SARIF are for `check`"));
    }

    #[test]
    fn colour_follows_the_flag_then_the_terminal_and_no_color() {
        let color = |args: &[&str], tty, no_color| resolved(args, tty, no_color).unwrap().0.color;
        assert!(color(&["version"], true, false));
        assert!(!color(&["version"], true, true));
        assert!(!color(&["version"], false, false));
        assert!(color(&["version", "--color", "always"], false, true));
        assert!(!color(&["version", "--color", "never"], true, false));
    }

    #[test]
    fn term_dumb_turns_auto_colour_off() {
        let color =
            |args: &[&str], term| resolved_in(args, Given { tty: true, term, ..Given::default() }).unwrap().0.color;
        assert!(!color(&["version"], Some("dumb")));
        assert!(color(&["version"], Some("xterm-256color")));
        assert!(color(&["version"], None));
        assert!(color(&["version", "--color", "always"], Some("dumb")));
    }

    #[test]
    fn width_is_unlimited_for_wide_else_columns_then_the_terminal() {
        let width = |args: &[&str], tty, columns, terminal_width| {
            resolved_in(args, Given { tty, columns, terminal_width, ..Given::default() }).unwrap().0.width
        };
        // A terminal: its width, unless COLUMNS says otherwise.
        assert_eq!(width(&["check"], true, None, Some(120)), Some(120));
        assert_eq!(width(&["check"], true, Some("80"), Some(120)), Some(80));
        // A pipe: unlimited, unless COLUMNS is set.
        assert_eq!(width(&["check"], false, None, None), None);
        assert_eq!(width(&["check"], false, Some("100"), None), Some(100));
        // COLUMNS that is not a positive number is not read.
        assert_eq!(width(&["check"], false, Some("0"), None), None);
        assert_eq!(width(&["check"], false, Some("wide"), None), None);
        assert_eq!(width(&["check"], true, Some("-5"), Some(90)), Some(90));
        // -o wide: full cells, as kubectl, whatever the terminal.
        assert_eq!(width(&["check", "-o", "wide"], true, Some("80"), Some(120)), None);
        // --no-headers reaches the renderers with the rest.
        let r = resolved(&["check", "--no-headers"], false, false).unwrap().0;
        assert!(r.no_headers && r.paint().no_headers);
    }

    #[test]
    fn name_output_is_for_what_lists_services_or_pools() {
        assert_eq!(resolved(&["check", "-o", "name"], false, false).unwrap().0.format, Format::Name);
        assert_eq!(resolved(&["explain", "svc", "-o", "name"], false, false).unwrap().0.format, Format::Name);
        assert_eq!(resolved(&["explain", "pools", "-o", "name"], false, false).unwrap().0.format, Format::Name);
        assert_eq!(
            usage(&["history", "--all", "-o", "name"]),
            "-o name lists Services or pools, for `check` and `explain`; history writes -o table, wide, json or yaml"
        );
        assert!(usage(&["simulate", "--down", "n1", "-o", "name"]).starts_with("-o name lists Services or pools"));
        assert_eq!(usage(&["snapshot", "-o", "name"]), "snapshot writes -o json or -o yaml, not name");
    }

    #[test]
    fn the_source_is_one_of_live_files_or_demo() {
        let source = |args: &[&str]| resolved(args, false, false).unwrap().0.source;
        assert!(matches!(source(&["check"]), Source::Live));
        assert!(matches!(source(&["check", "--demo"]), Source::Demo(Demo::Healthy)));
        assert!(matches!(source(&["--demo", "trap", "check"]), Source::Demo(Demo::Trap)));
        match source(&["check", "--from", "a.yaml", "--from", "b"]) {
            Source::Files(paths) => assert_eq!(paths, ["a.yaml", "b"]),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn request_timeout_is_parsed_for_a_live_source_only() {
        let timeout = |args: &[&str]| resolved(args, false, false).unwrap().0.kube.request_timeout;
        assert_eq!(timeout(&["check"]), RequestTimeout::Unset);
        assert_eq!(timeout(&["check", "--request-timeout", "0"]), RequestTimeout::Never);
        assert_eq!(timeout(&["check", "--request-timeout", "7"]), RequestTimeout::After(Duration::from_secs(7)));
        assert_eq!(timeout(&["check", "--request-timeout", "1m"]), RequestTimeout::After(Duration::from_secs(60)));
        assert_eq!(
            usage(&["check", "--request-timeout", "soon"]),
            "--request-timeout \"soon\": expected a duration such as 30s, 1m or 0 (no timeout)"
        );
        // Nothing connects: the flag is not read, as before.
        assert_eq!(timeout(&["check", "--demo", "--request-timeout", "soon"]), RequestTimeout::Unset);
        // A command's own default yields to the flag, `0` included.
        assert_eq!(RequestTimeout::Unset.or(Duration::from_secs(5)), RequestTimeout::After(Duration::from_secs(5)));
        assert_eq!(RequestTimeout::Never.or(Duration::from_secs(5)), RequestTimeout::Never);
    }

    #[test]
    fn durations_become_durations_with_the_flag_named_in_errors() {
        match resolved(&["arping", "192.0.2.1", "--timeout", "500ms"], false, false).unwrap().1 {
            Verb::Arping(a) => assert_eq!(a.timeout, Duration::from_millis(500)),
            _ => panic!("not arping"),
        }
        match resolved(&["announce", "192.0.2.1", "-I", "eth0", "--until-interrupted"], false, false).unwrap().1 {
            Verb::Announce(a) => assert_eq!(a.duration, None),
            _ => panic!("not announce"),
        }
        match resolved(&["history", "--since", "1h30m", "--demo"], false, false).unwrap().1 {
            Verb::History(h) => assert_eq!(h.since, Some(jiff::SignedDuration::from_mins(90))),
            _ => panic!("not history"),
        }
        assert_eq!(
            usage(&["arping", "192.0.2.1", "--timeout", "0s"]),
            "--timeout \"0s\": expected a positive duration such as 500ms, 30s or 10m"
        );
        assert_eq!(
            usage(&["announce", "192.0.2.1", "-I", "eth0", "--duration", "soon"]),
            "--duration \"soon\": expected a positive duration such as 500ms, 30s or 10m"
        );
        assert!(usage(&["announce", "192.0.2.1", "-I", "eth0"]).starts_with("announce needs --duration"));
        assert_eq!(usage(&["history", "--since", "x"]), "--since \"x\": expected a duration such as 48h, 90m or 1h30m");
    }

    #[test]
    fn resource_words_are_parsed_once() {
        for word in ["svc", "service", "services"] {
            assert_eq!(Resource::parse(word), Some(Resource::Service));
        }
        for word in ["pool", "pools", "ipaddresspool", "ipaddresspools", "ipaddresspools.metallb.io"] {
            assert_eq!(Resource::parse(word), Some(Resource::Pool));
        }
        assert_eq!(Resource::parse("Service"), None);
        assert_eq!(
            usage(&["explain", "foo"]),
            "explain: unknown resource type \"foo\"; supported: svc (service, services), pool (pools, ipaddresspool), finding (findings)"
        );
        for word in ["finding", "findings"] {
            assert_eq!(Resource::parse(word), Some(Resource::Finding));
        }
        assert_eq!(usage(&["explain", "svc", "web", "-A"]), "explain svc NAME takes -n NAMESPACE, not -A");
        assert!(resolved(&["explain", "pool", "main", "-A"], false, false).is_ok());
        assert_eq!(usage(&["history", "pool", "main"]), "history: unknown resource type \"pool\"; supported: svc NAME");
        assert_eq!(usage(&["history", "svc"]), "history svc NAME: name the Service, or use --all");
    }

    #[test]
    fn namespaces_follow_the_rules_the_commands_share() {
        let ns = |args: &[&str]| resolved(args, false, false).unwrap().0.namespaces;
        assert!(matches!(ns(&["check"]).every_unless_n(), Scope::All));
        assert!(matches!(ns(&["check", "-n", "a"]).every_unless_n(), Scope::Namespace(n) if n == "a"));
        assert!(matches!(ns(&["check", "-n", "a", "-A"]).every_unless_n(), Scope::All));
        assert_eq!(ns(&["check"]).namespace_or("ctx".into()), "ctx");
        assert_eq!(ns(&["check", "-n", "a"]).namespace_or("ctx".into()), "a");
    }
}
