//! What the user typed: clap definitions with kubectl's flag vocabulary.

mod examples;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::metallb::release::Release;
use crate::render::Format;
use crate::report::Severity;
use crate::snapshot::{BgpType, Memberlist};

#[derive(Debug, Parser)]
#[command(
    name = "kubectl-lbdoctor",
    bin_name = "kubectl lbdoctor",
    version,
    about = "Explains why a LoadBalancer IP is (not) announced, or still pending: re-runs MetalLB's controller and speakers offline",
    propagate_version = true,
    // The terminal's width, not clap's default cap of 100: pasted examples must stay whole.
    max_term_width = 1000,
    after_help = "Examples:\n  \
      # Who should announce web's IP, and why not every other node? Why pending?\n  \
      kubectl lbdoctor explain svc web -n shop\n\n  \
      # MetalLB's pools: usage, who holds which IP, who could get one\n  \
      kubectl lbdoctor explain pools\n\n  \
      # Every LoadBalancer Service and every finding; exit 1 on errors (for CI)\n  \
      kubectl lbdoctor check -o json\n\n  \
      # Save the cluster's state, then diagnose it anywhere, offline\n  \
      kubectl lbdoctor snapshot > s.json\n  \
      kubectl lbdoctor check --from s.json\n\n\
Without --from, lbdoctor reads the cluster kubectl reads ($KUBECONFIG, --kubeconfig, --context),\n\
with GET requests only. kubectl's flags go after the plugin name: `kubectl lbdoctor --context x check`."
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Clone, Args)]
pub struct GlobalArgs {
    /// Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config, else in-cluster)
    #[arg(long, global = true, value_name = "PATH")]
    pub kubeconfig: Option<String>,
    /// The kubeconfig context to use (live mode)
    #[arg(long, global = true)]
    pub context: Option<String>,
    /// The kubeconfig cluster to use (live mode)
    #[arg(long, global = true)]
    pub cluster: Option<String>,
    /// The kubeconfig user to use (live mode)
    #[arg(long, global = true)]
    pub user: Option<String>,
    /// Only this namespace: explain and history default to the context's; check and simulate cover
    /// every namespace unless -n is given
    #[arg(short = 'n', long, global = true)]
    pub namespace: Option<String>,
    /// Every namespace
    #[arg(short = 'A', long, global = true)]
    pub all_namespaces: bool,
    /// How long to wait for one API request, e.g. 30s, 1m; 0 waits forever (live mode)
    #[arg(long, global = true, value_name = "DURATION")]
    pub request_timeout: Option<String>,
    /// Objects per page when listing (kubectl's --chunk-size)
    #[arg(long, global = true, default_value_t = 500, value_name = "N")]
    pub chunk_size: u32,
    /// Read a snapshot instead of a cluster: file, directory, archive (metallb_report.tgz, a sysdump .zip) or - (repeatable)
    #[arg(long = "from", global = true, value_name = "PATH")]
    pub from: Vec<String>,
    /// Take what the --from bundles lack (MetalLB's report: Nodes, Services, EndpointSlices, Pods) from the cluster kubectl reads
    #[arg(long, global = true, requires = "from")]
    pub fill_from_cluster: bool,
    /// Run on a demo cluster built into the binary instead: healthy, or trap (nodeSelectors that pick only excluded nodes)
    #[arg(long, global = true, value_enum, num_args = 0..=1, default_missing_value = "healthy", value_name = "WHICH", conflicts_with = "from")]
    pub demo: Option<crate::demo::Demo>,
    /// Output format [default: table; json for snapshot]
    #[arg(short = 'o', long, global = true, value_enum)]
    pub output: Option<Format>,
    /// Colour: auto follows the terminal, NO_COLOR and TERM=dumb
    #[arg(long, global = true, value_enum, default_value = "auto")]
    pub color: ColorChoice,
    /// Tables without their header row (for scripts)
    #[arg(long, global = true)]
    pub no_headers: bool,
    /// Exit 1 when a finding is at or above this severity
    #[arg(long, global = true, value_enum, default_value = "error")]
    pub fail_on: FailOn,
    /// Behave as speakers run with --ignore-exclude-lb (default: what the snapshot shows)
    #[arg(long, global = true, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub ignore_exclude_lb: Option<bool>,
    /// The speakers' --lb-class (default: what the snapshot shows, else unset)
    #[arg(long, global = true, value_name = "CLASS")]
    pub lb_class: Option<String>,
    /// Speaker memberlist (default: what the snapshot shows)
    #[arg(long, global = true, value_enum)]
    pub memberlist: Option<Memberlist>,
    /// MetalLB BGP backend (default: what the snapshot shows, else native)
    #[arg(long, global = true, value_enum)]
    pub bgp_type: Option<BgpType>,
    /// Which MetalLB release's rules to replay, for the speakers and the controller: v0.13.0 …
    /// v0.16.1 or main (default: each from its image tag, else the Helm chart labels, else what
    /// the objects imply)
    #[arg(long, global = true, value_enum, value_name = "RELEASE", hide_possible_values = true)]
    pub metallb_version: Option<Release>,
}

/// `--demo` takes an optional value; clap would read `kubectl lbdoctor --demo check` as the demo
/// named "check". A bare `--demo` followed by anything but a demo name is the healthy one.
pub fn normalize_args(args: impl IntoIterator<Item = std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let args: Vec<std::ffi::OsString> = args.into_iter().collect();
    let is_demo_name = |a: Option<&std::ffi::OsString>| {
        a.and_then(|a| a.to_str()).is_some_and(|a| crate::demo::Demo::from_str(a, false).is_ok())
    };
    let end = args.iter().position(|a| a == "--").unwrap_or(args.len());
    args.iter()
        .enumerate()
        .map(|(i, a)| {
            if i < end && a == "--demo" && !is_demo_name(args.get(i + 1)) {
                "--demo=healthy".into()
            } else {
                a.clone()
            }
        })
        .collect()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    Error,
    Warning,
    Info,
    Never,
}

impl FailOn {
    pub fn threshold(self) -> Option<Severity> {
        match self {
            FailOn::Error => Some(Severity::Error),
            FailOn::Warning => Some(Severity::Warning),
            FailOn::Info => Some(Severity::Info),
            FailOn::Never => None,
        }
    }
}

impl Command {
    pub fn name(&self) -> &'static str {
        match self {
            Command::Explain { .. } => "explain",
            Command::Check { .. } => "check",
            Command::Snapshot => "snapshot",
            Command::Simulate(_) => "simulate",
            Command::History { .. } => "history",
            Command::Arping { .. } => "arping",
            Command::Announce { .. } => "announce",
            Command::Version => "version",
            Command::Completion { .. } => "completion",
        }
    }
}

/// How many per-node rows a Service's report carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum NodeRows {
    /// The winner and the next ranks (5), and per filter a count and the first names.
    Top,
    /// Every node, every session.
    All,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Explain one Service (allocation, every node, every filter) or list them; or MetalLB's pools
    Explain {
        /// Resource type: svc (service, services), pool (pools, ipaddresspool) or finding (a code's page)
        resource: String,
        /// Service, pool or finding code (LBD104); omit it to list (Services: with -A or -n)
        name: Option<String>,
        /// Per-node rows: top (the first ranks and a line per filter) or all (every node, as -o wide)
        /// [default: all for one Service on up to 20 nodes, else top]
        #[arg(long, value_enum, value_name = "WHICH")]
        nodes: Option<NodeRows>,
        /// Keep watching the cluster and print a line per change (announcer, status, allocation, causes)
        #[arg(long, short = 'w')]
        watch: bool,
        /// With --watch: end after this long (e.g. 10m, for a CI canary) [default: until Ctrl-C]
        #[arg(long, value_name = "DURATION", requires = "watch")]
        timeout: Option<String>,
    },
    /// Check every Service and the MetalLB configuration; exit 1 on findings (for CI)
    #[command(after_help = "Examples:\n  \
      # Every Service and every finding, exit 1 on errors\n  \
      kubectl lbdoctor check --from s.json\n\n  \
      # A JUnit report for the CI dashboard, failing on warnings too\n  \
      kubectl lbdoctor check --from s.json -o junit --fail-on warning > lbdoctor.xml\n\n  \
      # Known issues accepted in .lbdoctor.yaml (with reasons), one more ignored\n  \
      kubectl lbdoctor check --config .lbdoctor.yaml --ignore LBD106\n\n  \
      # Follow an incident: a line per announcer move, status change or cause\n  \
      kubectl lbdoctor check --watch\n\n\
Exit status: 0 no finding at or above --fail-on; 1 findings at or above it; 2 usage or input\n\
error (also a bad .lbdoctor.yaml); 3 the cluster could not be read. See docs/ci.md.")]
    Check {
        /// Finding codes to suppress everywhere, e.g. LBD106,LBD202 (must be known codes)
        #[arg(long, value_delimiter = ',', value_name = "CODE")]
        ignore: Vec<String>,
        /// Suppressions file [default: ./.lbdoctor.yaml when it exists]
        #[arg(long, value_name = "PATH", conflicts_with = "no_config")]
        config: Option<std::path::PathBuf>,
        /// Do not read ./.lbdoctor.yaml
        #[arg(long)]
        no_config: bool,
        /// Also list, per node, the IPs that lose their announcer if that node alone goes down
        #[arg(long, conflicts_with = "watch")]
        spof: bool,
        /// Per-node rows in -o json/yaml: top (the first ranks and a group per filter) or all
        #[arg(long, value_enum, default_value = "top", value_name = "WHICH")]
        nodes: NodeRows,
        /// Keep watching the cluster and print a line per change (announcer, status, allocation, causes)
        #[arg(long, short = 'w')]
        watch: bool,
        /// With --watch: end after this long (e.g. 10m, for a CI canary) [default: until Ctrl-C]
        #[arg(long, value_name = "DURATION", requires = "watch")]
        timeout: Option<String>,
        /// List every Service, the healthy ones too: past 40 Services a terminal gets the problems first
        #[arg(long)]
        all: bool,
    },
    /// What moves if nodes go down, labels change or edited objects are applied: every engine run before and after
    #[command(after_help = "Examples:\n  \
      # worker-a fails: which IPs move where, and does any lose its announcer?\n  \
      kubectl lbdoctor simulate --down worker-a\n\n  \
      # Gate a label change in CI: exit 1 if it would leave an IP unannounced\n  \
      kubectl lbdoctor simulate --from s.json --label worker-b \\\n      node.kubernetes.io/exclude-from-external-load-balancers=\n\n  \
      # A new L2Advertisement, before it is applied\n  \
      kubectl lbdoctor simulate --from s.json --apply l2advertisement.yaml -o json\n\n\
Only what differs is listed. Exit status as check, counting the findings the change brings:\n\
0 none at or above --fail-on; 1 some (an IP left unannounced is an error, LBD101); 2 usage or\n\
input error (an unknown node); 3 the cluster could not be read. See docs/simulate.md.")]
    Simulate(SimulateArgs),
    /// How often each IP changed owner, and why: speaker logs, nodeAssigned Events, ServiceL2Status, restarts
    #[command(after_help = "Examples:\n  \
      # Live: every speaker's log (pods/log), Events and restarts, for every IP\n  \
      kubectl lbdoctor history --since 48h\n\n  \
      # Offline: a snapshot, one `kubectl logs` file per speaker Pod (speaker-x7k2p.log)\n  \
      kubectl lbdoctor history --from s.json --logs ./speaker-logs\n\n  \
      # One Service\n  \
      kubectl lbdoctor history svc web -n shop --from s.json --logs ./speaker-logs\n\n\
Speaker log lines name neither the Service nor the node: the file (or Pod) is the node and the IP\n\
is the key. Malformed and truncated lines are counted, never fatal. See docs/history.md.")]
    History {
        /// `svc` to narrow the history to one Service
        resource: Option<String>,
        /// The Service's name (with svc)
        name: Option<String>,
        /// Every Service (the default without svc NAME)
        #[arg(long)]
        all: bool,
        /// Only what happened in this window before the snapshot was taken (live: before now), e.g. 48h, 90m
        #[arg(long, value_name = "DURATION")]
        since: Option<String>,
        /// Speaker logs: a directory with one file per speaker Pod, as `kubectl logs POD -c speaker > POD.log` writes them (default: those of a --from MetalLB report bundle)
        #[arg(long, value_name = "DIR")]
        logs: Option<std::path::PathBuf>,
    },
    /// Save what the engines read from the live cluster, for --from later (JSON, or -o yaml)
    Snapshot,
    /// Who answers ARP/NDP for an IP right now: every MAC, not only the first (Linux; root or CAP_NET_RAW)
    #[command(after_help = "Examples:\n  \
      # Every MAC that answers for the IP, on the interface whose subnet holds it\n  \
      sudo kubectl lbdoctor arping 192.0.2.10\n\n  \
      # Compared with the election of a saved snapshot; MACs named by node\n  \
      sudo kubectl lbdoctor arping 192.0.2.10 --from s.json --mac-map macs.txt\n\n\
Exit status: 0 one MAC answers; 1 none or several (split brain: errors, so at the default\n\
--fail-on error), or findings at --fail-on; \
2 usage; 3 no raw-socket permission.")]
    Arping {
        /// The IP to ask for (IPv4: ARP who-has; IPv6: Neighbor Solicitation)
        ip: std::net::IpAddr,
        /// Interface to ask on [default: the one whose subnet holds the IP]
        #[arg(long, short = 'I', value_name = "IF")]
        interface: Option<String>,
        /// Requests to send, spread evenly over the listening window
        #[arg(long, short = 'c', default_value_t = 3, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
        count: u32,
        /// How long to listen for answers, from the first request (e.g. 1s, 500ms)
        #[arg(long, default_value = "1s", value_name = "DURATION")]
        timeout: String,
        /// File of `MAC NODE [INTERFACE]` lines naming the node behind each MAC
        #[arg(long, value_name = "FILE")]
        mac_map: Option<std::path::PathBuf>,
    },
    /// Answer ARP/NDP for IPs from this host, as MetalLB's speaker does: a last resort (Linux; root or CAP_NET_RAW)
    #[command(after_help = "Examples:\n  \
      # Show what would be sent and answered, and what the cluster says about the IP\n  \
      sudo kubectl lbdoctor announce 192.0.2.10 --dry-run --interface eth0 --duration 10m\n\n  \
      # Answer for 10 minutes (Ctrl-C stops it sooner)\n  \
      sudo kubectl lbdoctor announce 192.0.2.10 --interface eth0 --duration 10m\n\n\
It first asks who answers for each IP (1 s) and refuses if another MAC does, unless --force.\n\
It never changes the host's addresses, routes or interface settings. See docs/announce.md.")]
    Announce {
        /// The IPs to answer for
        #[arg(required = true, value_name = "IP")]
        ips: Vec<std::net::IpAddr>,
        /// The interface to answer on (its MAC is the one announced)
        #[arg(long, short = 'I', value_name = "IF", required = true)]
        interface: String,
        /// How long to answer, counted from the first answer-ready moment (e.g. 30s, 10m, 1h)
        #[arg(long, value_name = "DURATION", conflicts_with = "until_interrupted")]
        duration: Option<String>,
        /// Answer until SIGINT or SIGTERM instead of for a --duration
        #[arg(long)]
        until_interrupted: bool,
        /// Answer even when another MAC already answers for an IP (split brain)
        #[arg(long)]
        force: bool,
        /// Print what would be sent and answered; send nothing
        #[arg(long)]
        dry_run: bool,
        /// Source address of solicited Neighbor Advertisements: MetalLB's (link-local) or the announced IP
        #[arg(long, value_enum, default_value = "link-local", value_name = "SOURCE")]
        ndp_source: crate::net::responder::NdpSource,
        /// This host's node name, to compare with the election [default: the hostname]
        #[arg(long, value_name = "NAME")]
        node: Option<String>,
    },
    /// Print the version, git commit, build date and Kubernetes API version (-o json for CI)
    Version,
    /// Print a shell completion script: bash, zsh, fish, or kubectl (the kubectl_complete-lbdoctor script)
    #[command(after_help = "Examples:\n  \
      # kubectl lbdoctor <TAB>: kubectl 1.26+ runs kubectl_complete-lbdoctor\n  \
      kubectl lbdoctor completion kubectl > ~/.local/bin/kubectl_complete-lbdoctor\n  \
      chmod +x ~/.local/bin/kubectl_complete-lbdoctor\n\n  \
      # kubectl-lbdoctor <TAB>, called directly\n  \
      source <(kubectl lbdoctor completion bash)\n  \
      kubectl lbdoctor completion zsh > \"${fpath[1]}/_kubectl-lbdoctor\"\n  \
      kubectl lbdoctor completion fish \\\n      > ~/.config/fish/completions/kubectl-lbdoctor.fish")]
    Completion { shell: CompletionShell },
}

/// The edits of `simulate`; applied files first, then labels, then nodes going down.
#[derive(Debug, Clone, Args)]
pub struct SimulateArgs {
    /// The node fails (not a drain): its Pods stop, its speaker and endpoints go; the Node object stays, Ready Unknown (repeatable)
    #[arg(long, value_name = "NODE")]
    pub down: Vec<String>,
    /// Like --down, and the Node object is deleted too (repeatable)
    #[arg(long, value_name = "NODE")]
    pub delete: Vec<String>,
    /// Only the node's MetalLB speaker stops (repeatable)
    #[arg(long, value_name = "NODE")]
    pub speaker_down: Vec<String>,
    /// Set a label on a node: --label NODE KEY=VALUE (repeatable; KEY= sets an empty value)
    #[arg(long, num_args = 2, value_names = ["NODE", "KEY=VALUE"], action = clap::ArgAction::Append)]
    pub label: Vec<String>,
    /// Remove a label from a node: --unlabel NODE KEY (repeatable)
    #[arg(long, num_args = 2, value_names = ["NODE", "KEY"], action = clap::ArgAction::Append)]
    pub unlabel: Vec<String>,
    /// Objects (YAML/JSON) that replace those of the same kind, namespace and name, or are added (repeatable)
    #[arg(long, value_name = "FILE")]
    pub apply: Vec<String>,
}

impl SimulateArgs {
    pub fn is_empty(&self) -> bool {
        self.down.is_empty()
            && self.delete.is_empty()
            && self.speaker_down.is_empty()
            && self.label.is_empty()
            && self.unlabel.is_empty()
            && self.apply.is_empty()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CompletionShell {
    /// for kubectl-lbdoctor called directly
    Bash,
    /// for kubectl-lbdoctor called directly
    Zsh,
    /// for kubectl-lbdoctor called directly
    Fish,
    /// the kubectl_complete-lbdoctor script kubectl's own completion runs
    Kubectl,
}

/// The global flags by what they are for, as the subcommands read them.
const CLUSTER_FLAGS: &[&str] = &["kubeconfig", "context", "cluster", "user", "request_timeout", "chunk_size"];
const SCOPE_FLAGS: &[&str] = &["namespace", "all_namespaces"];
const INPUT_FLAGS: &[&str] = &["from", "demo"];
const REPORT_FLAGS: &[&str] = &["no_headers", "fail_on"];
const REPLAY_FLAGS: &[&str] = &["ignore_exclude_lb", "lb_class", "memberlist", "bgp_type", "metallb_version"];

/// The global flags each subcommand does not read: hidden from its help, still accepted (and
/// refused with a reason where they would mislead, as `snapshot --from`).
const NOT_READ: &[(&str, &[&[&str]])] = &[
    ("version", &[CLUSTER_FLAGS, SCOPE_FLAGS, INPUT_FLAGS, REPORT_FLAGS, REPLAY_FLAGS]),
    ("completion", &[CLUSTER_FLAGS, SCOPE_FLAGS, INPUT_FLAGS, &["output"], REPORT_FLAGS, REPLAY_FLAGS]),
    // `snapshot --demo` writes the demo as a snapshot file.
    ("snapshot", &[SCOPE_FLAGS, &["from"], REPORT_FLAGS, REPLAY_FLAGS]),
];

/// [`Cli`] as parsed and as its help shows it: each subcommand's help lists only the global
/// flags it reads. A subcommand that defines an argument itself does not receive the global one,
/// so it gets a hidden copy.
pub fn command() -> clap::Command {
    command_for_width(help_width())
}

/// The width clap prints help at: the terminal's, else `COLUMNS`, else 100 (clap's own order).
fn help_width() -> usize {
    terminal_size::terminal_size()
        .map(|(w, _)| usize::from(w.0))
        .or_else(|| std::env::var("COLUMNS").ok()?.trim().parse().ok())
        .filter(|w| *w > 0)
        .unwrap_or(100)
}

/// The command with its help pinned to `width` columns and the examples laid out for it
/// (`examples`): an example is never cut into two shell lines.
pub fn command_for_width(width: usize) -> clap::Command {
    use clap::ValueEnum;
    let fit = |c: clap::Command| {
        let c = c.term_width(width);
        match c.get_after_help().map(|h| examples::layout(&h.to_string(), width)) {
            Some(help) => c.after_help(help),
            None => c,
        }
    };
    let root = fit(<Cli as clap::CommandFactory>::command());
    let globals: Vec<clap::Arg> = root.get_arguments().filter(|a| a.is_global_set()).cloned().collect();
    let output = globals.iter().find(|a| a.get_id() == "output").cloned();
    let subs: Vec<String> = root.get_subcommands().map(|s| s.get_name().to_string()).collect();
    let mut cmd = root;
    for sub in subs {
        let hidden: Vec<&str> = NOT_READ
            .iter()
            .filter(|(name, _)| *name == sub)
            .flat_map(|(_, groups)| groups.iter().copied().flatten().copied())
            .collect();
        cmd = cmd.mut_subcommand(&sub, |s| {
            let mut s = fit(s);
            for arg in globals.iter().filter(|a| hidden.contains(&a.get_id().as_str())) {
                s = s.arg(arg.clone().hide(true));
            }
            // `-o` shows only the formats this subcommand writes; the others still parse, so the
            // refusal can say why (JUnit and SARIF are for `check`).
            if let (false, Some(output)) = (hidden.contains(&"output"), &output) {
                let values: Vec<clap::builder::PossibleValue> = Format::value_variants()
                    .iter()
                    .filter_map(|f| Some(f.to_possible_value()?.hide(f.written_by(&sub).is_err())))
                    .collect();
                if values.iter().any(|v| v.is_hide_set()) {
                    let parser = clap::builder::TypedValueParser::map(
                        clap::builder::PossibleValuesParser::new(values),
                        |name: String| Format::from_str(&name, false).unwrap_or(Format::Table),
                    );
                    s = s.arg(output.clone().value_parser(parser));
                }
            }
            s
        });
    }
    cmd
}
