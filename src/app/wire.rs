//! `arping` and `announce`: the wire commands. The cluster only adds context here, so a cluster
//! that cannot be read is a note on stderr, not a failure (unless `--from` names files).

use std::io::Write;
use std::net::IpAddr;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use super::resolve::Resolved;
use super::{load, AppError, Env};
use crate::diagnose::wire::{self, IpContext, IpContextSet, MacMap};
use crate::net::iface;
use crate::net::link::Link;
use crate::net::probe::Probe;
use crate::net::responder::{gratuitous_schedule, Responder};
use crate::net::session::{self, Event};
use crate::net::NetError;
use crate::render;
use crate::report::{AnnouncePlan, ArpingReport, Finding, PlannedIp};

/// `announce` asks who answers for this long before it answers itself (DESIGN §3).
const ANNOUNCE_PROBE: Duration = Duration::from_secs(1);
const ANNOUNCE_PROBE_REQUESTS: u32 = 3;
/// Cluster context must not hold up an emergency: live requests get this long unless told otherwise.
const CONTEXT_REQUEST_TIMEOUT: Duration = Duration::from_secs(5);

impl From<NetError> for AppError {
    fn from(e: NetError) -> AppError {
        match e {
            NetError::NotPermitted { .. } | NetError::Io { .. } => AppError::Unavailable(e.to_string()),
            NetError::NotLinux { .. }
            | NetError::NoSuchInterface { .. }
            | NetError::NoInterfaceFor { .. }
            | NetError::Unsuitable { .. } => AppError::Usage(e.to_string()),
        }
    }
}

pub struct ArpingArgs {
    pub ip: IpAddr,
    pub interface: Option<String>,
    pub count: u32,
    /// `--timeout`: how long to listen.
    pub timeout: Duration,
    pub mac_map: Option<std::path::PathBuf>,
}

pub fn arping(r: &Resolved, env: &mut Env, a: ArpingArgs, out: &mut dyn Write) -> Result<bool, AppError> {
    let macs = match &a.mac_map {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| AppError::Usage(format!("--mac-map {}: {}", path.display(), crate::plain::io(&e))))?;
            MacMap::parse(&text, &path.display().to_string()).map_err(|e| AppError::Usage(format!("--mac-map {e}")))?
        }
        None => MacMap::default(),
    };
    let all = iface::list();
    let interface = match &a.interface {
        Some(name) => iface::find(&all, name)?,
        None => iface::for_ip(&all, a.ip)?,
    };
    let mac = interface.mac()?;
    let source = interface.source_for(a.ip).ok_or_else(|| NetError::Unsuitable {
        interface: interface.name.clone(),
        what: "Neighbor Solicitations",
        why: "it has no IPv6 address to send them from".into(),
    })?;
    if interface.owns(a.ip) {
        return Err(AppError::Usage(format!(
            "{} is an address of {} itself: the kernel answers for it with this MAC, which a probe from here \
             cannot see; run arping from another host on the segment",
            a.ip, interface.name
        )));
    }
    // Permission first: no point reading a cluster for a probe that cannot be sent.
    let mut link = Link::open(interface, "arping")?;
    let (context, unknown_because) = match cluster_contexts(r, env, &[a.ip])? {
        Ok((mut contexts, _)) => (contexts.pop(), None),
        Err(why) => (None, Some(why)),
    };
    let stop = interrupt_flag()?;
    let probe = Probe { target: a.ip, mac, source };
    let run = session::probe(&mut link, &[probe], a.count, a.timeout, &stop)?.remove(0);
    let judgement = wire::judge(a.ip, &interface.name, &run.replies, context.as_ref(), &macs);
    let report = ArpingReport {
        api_version: "lbdoctor/v1alpha1",
        kind: "Arping",
        ip: a.ip.to_string(),
        interface: interface.name.clone(),
        requests: run.requests,
        window_ms: run.listened.as_millis() as u64,
        split_brain: run.replies.len() >= 2,
        replies: run.replies,
        answers: judgement.answers,
        matches_election: judgement.matches_election,
        cluster: context,
        cluster_unknown_because: unknown_because,
        findings: judgement.findings,
    };
    render::wire::arping(out, &report, r.format, r.paint())?;
    Ok(r.fails(report.findings.iter().map(|f| f.severity)))
}

pub struct AnnounceArgs {
    pub ips: Vec<IpAddr>,
    pub interface: String,
    /// `--duration`; `None` with `--until-interrupted`.
    pub duration: Option<Duration>,
    pub force: bool,
    pub dry_run: bool,
    pub node: Option<String>,
    pub ndp_source: crate::net::responder::NdpSource,
}

pub fn announce(r: &Resolved, env: &mut Env, a: AnnounceArgs, out: &mut dyn Write) -> Result<bool, AppError> {
    let duration = a.duration;
    let mut ips: Vec<IpAddr> = Vec::new();
    for ip in &a.ips {
        if !ips.contains(ip) {
            ips.push(*ip);
        }
    }
    let all = iface::list();
    let interface = iface::find(&all, &a.interface)?;
    for family_v6 in [false, true] {
        if ips.iter().any(|ip| ip.is_ipv6() == family_v6) {
            interface.check_responder(family_v6)?;
        }
    }
    let mac = interface.mac()?;
    let link_local = ips.iter().any(IpAddr::is_ipv6).then(|| interface.link_local()).flatten();
    let responder = Responder { mac, link_local, ips: ips.clone(), ndp_source: a.ndp_source };

    // Permission first (a dry run sends nothing and needs none).
    let link = if a.dry_run { None } else { Some(Link::open(interface, "announce")?) };
    let (contexts, unknown_because, findings) = match cluster_contexts(r, env, &ips)? {
        Ok((contexts, nodes)) => {
            if let Some(node) = a.node.as_deref().filter(|n| !nodes.iter().any(|known| known == n)) {
                return Err(AppError::Usage(format!(
                    "--node {node:?} is not a node of the cluster (nodes: {})",
                    if nodes.is_empty() { "none".to_string() } else { nodes.join(", ") }
                )));
            }
            let this_node = a.node.clone().or_else(hostname).filter(|n| nodes.contains(n));
            let findings: Vec<Finding> = ips
                .iter()
                .zip(&contexts)
                .flat_map(|(ip, ctx)| wire::announce_warnings(*ip, ctx, this_node.as_deref()))
                .collect();
            let set = IpContextSet(ips.iter().map(|ip| ip.to_string()).zip(contexts).collect());
            (Some(set), None, findings)
        }
        Err(why) => (None, Some(why), Vec::new()),
    };

    let Some(mut link) = link else {
        let plan = AnnouncePlan {
            api_version: "lbdoctor/v1alpha1",
            kind: "AnnouncePlan",
            interface: interface.name.clone(),
            mac,
            link_local: link_local.map(|l| l.to_string()),
            ips: ips.iter().map(planned).collect(),
            probe_window_ms: ANNOUNCE_PROBE.as_millis() as u64,
            force: a.force,
            gratuitous_at_ms: gratuitous_schedule().iter().map(|d| d.as_millis() as u64).collect(),
            duration_seconds: duration.map(|d| d.as_secs_f64()),
            cluster: contexts,
            cluster_unknown_because: unknown_because,
            findings,
        };
        render::wire::plan(out, &plan, r.format, r.paint())?;
        return Ok(r.fails(plan.findings.iter().map(|f| f.severity)));
    };

    let mut log = std::io::stderr().lock();
    for f in &findings {
        writeln!(log, "{} {}: {}\n    hint: {}", f.severity.as_str(), f.code, f.message, f.hint)?;
    }
    if let Some(why) = &unknown_because {
        writeln!(log, "note: no cluster context ({why})")?;
    }
    let stop = interrupt_flag()?;
    let probes: Vec<Probe> =
        ips.iter().filter_map(|&ip| Some(Probe { target: ip, mac, source: interface.source_for(ip)? })).collect();
    let runs = session::probe(&mut link, &probes, ANNOUNCE_PROBE_REQUESTS, ANNOUNCE_PROBE, &stop)?;
    let taken: Vec<String> = probes
        .iter()
        .zip(&runs)
        .filter(|(_, run)| !run.replies.is_empty())
        .map(|(p, run)| {
            let macs: Vec<String> = run.replies.iter().map(|r| r.mac.to_string()).collect();
            format!("{} is answered by {}", p.target, macs.join(", "))
        })
        .collect();
    if !taken.is_empty() {
        if !a.force {
            return Err(AppError::Refused(format!(
                "not announcing: {}. Answering too would split the traffic between two MACs (split brain). \
                 Stop the other responder first, or pass --force if it is the one being replaced.",
                taken.join("; ")
            )));
        }
        writeln!(log, "warning: --force: answering although {}", taken.join("; "))?;
    }
    if stop.load(std::sync::atomic::Ordering::Relaxed) {
        writeln!(log, "interrupted before answering; nothing was announced")?;
        return Ok(false);
    }
    for ip in &ips {
        if let IpAddr::V6(v6) = ip {
            link.join(crate::net::frame::solicited_node(*v6), interface.index)?;
        }
    }
    let list: Vec<String> = ips.iter().map(ToString::to_string).collect();
    let until = match duration {
        Some(d) => format!("for {}", human(d)),
        None => "until interrupted".into(),
    };
    writeln!(
        log,
        "{} answering for {} on {} as {mac} {until} (SIGINT/SIGTERM stops); gratuitous bursts at 0, 1.1, 2.2, 3.3, 4.4 s",
        now(),
        list.join(", "),
        interface.name
    )?;
    let mut on_event = |event: Event| {
        let _ = match event {
            Event::Burst { number, frames } => {
                writeln!(log, "{} gratuitous burst {number}: {}", now(), plural(frames, "frame"))
            }
            Event::Reply(sent) => writeln!(
                log,
                "{} {} reply: {} is-at {mac} -> {} ({})",
                now(),
                sent.protocol.as_str(),
                sent.ip,
                sent.requester_mac,
                sent.requester_ip
            ),
        };
    };
    let summary = session::announce(&mut link, &responder, duration, &stop, &mut on_event)?;
    let dropped: Vec<String> =
        summary.dropped.iter().map(|((p, why), n)| format!("{n} {} {}", p.as_str(), why.as_str())).collect();
    writeln!(
        log,
        "{} stopped after {}{}: {} replies sent, {} gratuitous bursts{}",
        now(),
        human(summary.ran_for),
        if summary.interrupted { " (signal)" } else { "" },
        summary.replies,
        summary.bursts,
        if dropped.is_empty() { String::new() } else { format!("; not answered: {}", dropped.join(", ")) }
    )?;
    Ok(false)
}

fn planned(ip: &IpAddr) -> PlannedIp {
    let (protocol, gratuitous_frames) = match ip {
        IpAddr::V4(_) => ("arp", vec!["arp-request", "arp-reply"]),
        IpAddr::V6(_) => ("ndp", vec!["unsolicited-na"]),
    };
    PlannedIp { ip: ip.to_string(), protocol, gratuitous_frames }
}

/// Context per IP plus the snapshot's node names; `Err(why)` when there is no cluster to ask.
/// With `--from`, unreadable files are errors: the user asked for them.
#[allow(clippy::type_complexity)]
fn cluster_contexts(
    r: &Resolved,
    env: &mut Env,
    ips: &[IpAddr],
) -> Result<Result<(Vec<IpContext>, Vec<String>), String>, AppError> {
    let loaded = if r.live() {
        let mut r = r.clone();
        r.kube.request_timeout = r.kube.request_timeout.or(CONTEXT_REQUEST_TIMEOUT);
        match load(&r, env, false) {
            Ok(loaded) => loaded,
            Err(e) => return Ok(Err(first_line(&e.to_string()))),
        }
    } else {
        load(r, env, false)?
    };
    let (snap, opts, _) = loaded;
    let nodes = snap.nodes.iter().filter_map(|n| n.metadata.name.clone()).collect();
    Ok(Ok((wire::ip_contexts(&snap, &opts, ips)?, nodes)))
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().to_string()
}

/// SIGINT and SIGTERM raise the flag; a second one ends the process at once.
pub(super) fn interrupt_flag() -> Result<Arc<AtomicBool>, AppError> {
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register_conditional_shutdown(signal, 130, stop.clone())?;
        signal_hook::flag::register(signal, stop.clone())?;
    }
    Ok(stop)
}

fn hostname() -> Option<String> {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname").ok()?;
    Some(name.trim().to_string()).filter(|n| !n.is_empty())
}

/// UTC with milliseconds, fixed width so log columns line up.
fn now() -> String {
    jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

fn human(d: Duration) -> String {
    format!("{:.1}s", d.as_secs_f64())
}
