//! Ownership history, reconstructed: the speakers' log counts, `nodeAssigned` Events, ServiceL2Status
//! and speaker restarts, put beside the election order of each IP. Pure: the logs come in already
//! scanned. MetalLB's log lines carry no Service and no node (spec T13): the file is the node and
//! the IP is the key, so Services are found through their IPs.

use std::collections::{BTreeMap, BTreeSet};

use crate::snapshot::Pod;
use jiff::Timestamp;

use super::logs::LogStats;
use super::story::{self, Kind, OwnerChange, Story, Teller};
use crate::metallb::install::is_speaker_labelled;
use crate::report::*;
use crate::snapshot::Snapshot;

/// One scanned speaker log.
pub struct SpeakerLog {
    /// File name (`speaker-x7k2p.log`) or `pods/NAME/log`.
    pub source: String,
    pub stats: LogStats,
}

/// The Services (`namespace`, `name`) whose every candidate and per-node row history needs.
pub type Wanted = BTreeSet<(String, String)>;

pub struct Inputs<'a> {
    pub snap: &'a Snapshot,
    /// The Report of `snap` (without per-node rows: on 1,000 nodes they are most of its size).
    pub report: &'a Report,
    /// The detailed Report of only these Services: the IPs with more than one owner or an owner
    /// change, whose owners need their rank now. `None`: none asked for, or it failed.
    pub detail: &'a dyn Fn(&Wanted) -> Option<Report>,
    pub logs: &'a [SpeakerLog],
    pub logs_unknown_because: Option<String>,
    pub since: Option<Timestamp>,
    /// `namespace/name` of the one Service asked about.
    pub service: Option<String>,
    /// `-n NS` without `svc NAME`: only the IPs of that namespace's Services.
    pub namespace: Option<String>,
}

/// An IP is flapping from this many owner changes on, a node from this many restarts, failures
/// or rejoins.
const FLAPS: u64 = 3;

pub fn history(i: &Inputs) -> History {
    let pods = speaker_pods(i.snap);
    let nodes: Vec<&str> = i.snap.nodes.iter().filter_map(|n| n.metadata.name.as_deref()).collect();
    let logs: Vec<(LogSource, &LogStats)> = i.logs.iter().map(|l| (log_source(l, &pods, &nodes), &l.stats)).collect();
    let tellers: Vec<Teller> =
        logs.iter().map(|(src, stats)| Teller { node: src.node.as_deref(), timeline: &stats.timeline }).collect();
    let story = story::tell(&tellers);
    let with_logs = !logs.is_empty();
    let mut churn = node_churn(i.snap, &pods, &story);
    suspects(&logs, &mut churn);
    let events = node_assigned(i.snap, i.since);

    let mut ips: BTreeMap<String, IpHistory> = BTreeMap::new();
    for (s, l2) in layer2(i.report) {
        for ip in &s.ips {
            let entry = ips.entry(ip.to_string()).or_insert_with(|| ip_history(ip));
            entry.services.push(format!("{}/{}", s.namespace, s.name));
            // Services sharing the IP: the one with an election speaks for it (one without a
            // ready endpoint holds none), and the first record of an announcer counts.
            if entry.expected_announcer.is_none() && entry.order.is_empty() {
                entry.expected_announcer = l2.expected_announcer.as_deref().map(str::to_string);
                entry.order = election_order(l2);
            }
            if entry.current_owner.is_none() {
                entry.current_owner = l2.actual_announcers.as_ref().filter(|a| !a.is_empty()).map(|a| a.join(","));
            }
        }
    }
    // IPs the logs name that no Service holds now.
    for (_, stats) in &logs {
        for ip in stats.ips.keys() {
            ips.entry(ip.clone()).or_insert_with(|| ip_history(ip));
        }
    }
    if let Some(svc) = &i.service {
        ips.retain(|_, h| h.services.contains(svc));
    } else if let Some(ns) = &i.namespace {
        // An IP only the logs name belongs to no namespace: -n leaves it out.
        ips.retain(|_, h| h.services.iter().any(|s| s.split_once('/').is_some_and(|(n, _)| n == ns)));
    }

    let mut change_days: Vec<ChangeDay> = Vec::new();
    for h in ips.values_mut() {
        h.owners = owners(h, &logs, &events);
        if with_logs {
            change_days.extend(tell_changes(h, story.ips.get(&h.ip).map(Vec::as_slice).unwrap_or(&[])));
        }
    }
    change_days.sort_by(|a, b| (&a.day, &a.ip).cmp(&(&b.day, &b.ip)));
    // The whole election order, and every node's row, only where the story needs them.
    let wanted: Wanted = (ips.values())
        .filter(|h| h.owner_changes.unwrap_or(0) > 0 || h.owners.len() > 1)
        .flat_map(|h| h.services.iter())
        .filter_map(|key| key.split_once('/').map(|(ns, n)| (ns.to_string(), n.to_string())))
        .collect();
    let detailed = if wanted.is_empty() { None } else { (i.detail)(&wanted) };
    if let Some(d) = &detailed {
        // As above, the first sharer with an election speaks for the IP.
        let mut redone: BTreeSet<String> = BTreeSet::new();
        for (s, l2) in layer2(d) {
            let order = election_order(l2);
            for ip in &s.ips {
                if let Some(h) = ips.get_mut(ip.as_str()).filter(|_| !order.is_empty() && !redone.contains(ip.as_str()))
                {
                    h.order = order.clone();
                    redone.insert(ip.to_string());
                }
            }
        }
    }
    for h in ips.values_mut() {
        let order = &h.order;
        for o in &mut h.owners {
            o.rank = order.iter().position(|n| *n == o.node).map(|p| p + 1);
        }
        h.owners.sort_by_key(|o| (o.rank.unwrap_or(usize::MAX), o.node.clone()));
        h.disturbed_by = if with_logs { disturbed_by(h, &story, &churn) } else { disturbed_by_rank(h, &churn) };
    }
    // The per-node totals are the per-day rows summed.
    let days = days(&logs, &story);
    for d in &days {
        if let Some(c) = churn.get_mut(&d.node) {
            c.owner_changes_caused += d.owner_changes_caused;
        }
    }
    let worst_day = worst_day(&change_days);
    let flapping = flapping(detailed.as_ref().unwrap_or(i.report), &ips, &churn, &story);
    let fix = super::fix::fix(i, &flapping);
    let findings = super::fix::findings(&flapping, &churn);
    History {
        api_version: API_VERSION,
        kind: "History",
        source: i.report.source.clone(),
        since: i.since.map(|t| t.to_string()),
        days,
        change_days,
        worst_day,
        logs: logs.into_iter().map(|(s, _)| s).collect(),
        logs_unknown_because: i.logs_unknown_because.clone(),
        ips: ips.into_values().collect(),
        nodes: churn.into_values().collect(),
        flapping,
        fix,
        findings,
    }
}

/// The Services with a layer-2 election, and it.
fn layer2(r: &Report) -> impl Iterator<Item = (&ServiceReport, &Layer2)> {
    r.services.iter().filter_map(|s| Some((s, s.metallb.as_ref()?.layer2.as_ref()?)))
}

/// The layer-2 election order now, candidates only, winner first: every candidate from the
/// per-node rows, or the head `check` keeps (its `ranks`) without them.
fn election_order(l2: &Layer2) -> Vec<String> {
    let mut ranked: Vec<(usize, String)> = match &l2.nodes {
        Some(rows) => rows.iter().filter_map(|n| Some((n.rank?, n.node.to_string()))).collect(),
        None => l2.ranks.iter().map(|r| (r.rank, r.node.to_string())).collect(),
    };
    ranked.sort();
    ranked.into_iter().map(|(_, n)| n).collect()
}

/// Every node that announced the IP, by its own log's counts and the `nodeAssigned` Events,
/// by name: their ranks come once the election order is known.
fn owners(
    h: &mut IpHistory,
    logs: &[(LogSource, &LogStats)],
    events: &BTreeMap<String, BTreeMap<String, Option<EventCount>>>,
) -> Vec<IpOwner> {
    let mut owners: BTreeMap<String, IpOwner> = BTreeMap::new();
    for (src, stats) in logs {
        let (Some(node), Some(c)) = (&src.node, stats.ips.get(&h.ip)) else {
            continue;
        };
        for (reason, n) in &c.withdrawals_by_reason {
            *h.withdrawals_by_reason.entry(reason.clone()).or_default() += n;
        }
        if c.takeovers == 0 && c.withdrawals_by_reason.is_empty() {
            continue;
        }
        let o = owners.entry(node.clone()).or_insert_with(|| owner(node));
        *o.takeovers.get_or_insert(0) += c.takeovers;
        *o.withdrawn_not_owner.get_or_insert(0) += c.withdrawals_by_reason.get("notOwner").copied().unwrap_or(0);
        for (day, n) in &c.takeovers_by_day {
            *o.takeovers_by_day.entry(day.clone()).or_default() += n;
        }
    }
    for (node, count) in h.services.iter().filter_map(|svc| events.get(svc)).flatten() {
        let o = owners.entry(node.clone()).or_insert_with(|| owner(node));
        if let Some(count) = count {
            add_count(&mut o.events, count);
        }
    }
    owners.into_values().collect()
}

/// The IP's owner changes, as counted: totals, the last few, and its rows of `changeDays` (by
/// day, kind and cause), from which `ownerChangesByDay` is read.
fn tell_changes(h: &mut IpHistory, changes: &[OwnerChange]) -> Vec<ChangeDay> {
    let count = |k: Kind| changes.iter().filter(|c| c.kind == k).count() as u64;
    h.owner_changes = Some(changes.len() as u64);
    h.takeovers = Some(count(Kind::Takeover));
    h.takebacks = Some(count(Kind::Takeback));
    h.handovers = Some(count(Kind::Handover));
    h.last_changes = changes[changes.len().saturating_sub(10)..].iter().map(change_row).collect();
    let mut rows: BTreeMap<String, ChangeDay> = BTreeMap::new();
    for c in changes {
        let day = day_of(c.at);
        let r = rows.entry(day.clone()).or_insert_with(|| ChangeDay {
            day,
            ip: h.ip.clone(),
            services: h.services.clone(),
            ..Default::default()
        });
        r.owner_changes += 1;
        match c.kind {
            Kind::Takeover => r.takeovers += 1,
            Kind::Takeback => r.takebacks += 1,
            Kind::Handover => r.handovers += 1,
        }
        *r.caused_by.entry(c.cause.clone().unwrap_or_else(|| super::logs::MISSING.into())).or_default() += 1;
    }
    h.owner_changes_by_day = rows.iter().map(|(day, r)| (day.clone(), r.owner_changes)).collect();
    rows.into_values().collect()
}

fn change_row(c: &OwnerChange) -> OwnerChangeRow {
    OwnerChangeRow {
        at: instant(c.at),
        from: c.from.clone(),
        to: c.to.clone(),
        kind: kind_name(c.kind),
        cause: c.cause.clone(),
    }
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Takeover => "takeover",
        Kind::Takeback => "takeback",
        Kind::Handover => "handover",
    }
}

/// RFC 3339, whole seconds unless the logs had more.
fn instant(at: i64) -> String {
    Timestamp::from_nanosecond(i128::from(at)).map(|t| t.to_string()).unwrap_or_else(|_| at.to_string())
}

fn day_of(at: i64) -> String {
    let text = instant(at);
    text.get(..10).unwrap_or(&text).to_string()
}

/// With logs: the nodes whose departures, restarts and rejoins caused the IP's changes.
fn disturbed_by(h: &IpHistory, story: &Story, churn: &BTreeMap<String, NodeChurn>) -> Vec<String> {
    let mut caused: BTreeMap<&str, u64> = BTreeMap::new();
    for cause in story.ips.get(&h.ip).into_iter().flatten().filter_map(|c| c.cause.as_deref()) {
        *caused.entry(cause).or_default() += 1;
    }
    let mut nodes: Vec<(&str, u64)> =
        caused.into_iter().filter(|(n, c)| *c >= FLAPS && churn.get(*n).is_some_and(churns)).collect();
    nodes.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    nodes.into_iter().map(|(n, _)| n.to_string()).collect()
}

/// Without logs (Events only): owners that rank above another owner now and churn.
fn disturbed_by_rank(h: &IpHistory, churn: &BTreeMap<String, NodeChurn>) -> Vec<String> {
    let worst_rank = h.owners.iter().map(|o| o.rank.unwrap_or(usize::MAX)).max();
    h.owners
        .iter()
        .filter(|o| o.rank.is_some() && o.rank < worst_rank && h.owners.len() > 1)
        .filter(|o| churn.get(&o.node).is_some_and(churns))
        .map(|o| o.node.clone())
        .collect()
}

fn worst_day(rows: &[ChangeDay]) -> Option<WorstDay> {
    let mut by_day: BTreeMap<&str, u64> = BTreeMap::new();
    for r in rows {
        *by_day.entry(&r.day).or_default() += r.owner_changes;
    }
    // The most changes; the earliest such day.
    let (day, n) = by_day.into_iter().fold(None, |best: Option<(&str, u64)>, (d, n)| match best {
        Some((_, m)) if m >= n => best,
        _ => Some((d, n)),
    })?;
    Some(WorstDay { day: day.to_string(), owner_changes: n })
}

fn owner(node: &str) -> IpOwner {
    IpOwner {
        node: node.to_string(),
        rank: None,
        takeovers: None,
        takeovers_by_day: BTreeMap::new(),
        withdrawn_not_owner: None,
        events: None,
    }
}

/// An IP with nothing known about it yet.
fn ip_history(ip: &str) -> IpHistory {
    IpHistory {
        ip: ip.to_string(),
        services: Vec::new(),
        expected_announcer: None,
        current_owner: None,
        order: Vec::new(),
        owners: Vec::new(),
        owner_changes: None,
        owner_changes_by_day: BTreeMap::new(),
        takeovers: None,
        takebacks: None,
        handovers: None,
        last_changes: Vec::new(),
        withdrawals_by_reason: BTreeMap::new(),
        disturbed_by: Vec::new(),
    }
}

/// Adds Events to a total: counts summed, the earliest first and the latest last timestamp.
fn add_count(total: &mut Option<EventCount>, b: &EventCount) {
    match total {
        None => *total = Some(b.clone()),
        Some(a) => {
            a.count += b.count;
            a.first_timestamp = [a.first_timestamp.take(), b.first_timestamp.clone()].into_iter().flatten().min();
            a.last_timestamp = [a.last_timestamp.take(), b.last_timestamp.clone()].into_iter().flatten().max();
        }
    }
}

/// Churn enough to flap: a restart or a memberlist failure now and then is not.
fn churns(c: &NodeChurn) -> bool {
    let restarts = c.restarts.map(|r| r.max(0) as u64).unwrap_or(0);
    restarts.max(c.departures).max(c.rejoins) >= FLAPS
}

/// Speaker Pods by name.
fn speaker_pods(snap: &Snapshot) -> BTreeMap<String, &Pod> {
    snap.pods
        .iter()
        .filter(|p| is_speaker_labelled(p.metadata.labels.as_ref()))
        .filter_map(|p| Some((p.metadata.name.as_deref()?.to_string(), p)))
        .collect()
}

fn node_of(pod: &Pod) -> Option<String> {
    pod.spec.as_ref()?.node_name.clone()
}

/// The Pod a log file belongs to: its name without the extension, as `kubectl logs POD > POD.log`
/// writes it; else the longest Pod name the file name contains; else the node it is named after
/// (`worker-a.log`, `speaker-worker-a.log`), and that node's speaker Pod.
fn log_source(log: &SpeakerLog, pods: &BTreeMap<String, &Pod>, nodes: &[&str]) -> LogSource {
    // Live: `pods/NAME/log`.
    let live = log.source.strip_prefix("pods/").and_then(|r| r.strip_suffix("/log"));
    // A bundle's: MetalLB's report keeps `…/pods/POD/speaker.log`.
    let parts: Vec<&str> = log.source.rsplit('/').take(3).collect();
    let bundled = matches!(parts[..], ["speaker.log", pod, "pods"] if !pod.is_empty()).then(|| parts[1]);
    let file = live.or(bundled).unwrap_or_else(|| log.source.rsplit('/').next().unwrap_or(&log.source));
    let stem = file.strip_suffix(".log").or_else(|| file.strip_suffix(".txt")).unwrap_or(file);
    let pod = pods
        .get(stem)
        .map(|_| stem.to_string())
        .or_else(|| pods.keys().filter(|p| file.contains(p.as_str())).max_by_key(|p| p.len()).cloned());
    let named_after = |n: &&&str| {
        let n = **n;
        stem == n || stem.strip_suffix(n).is_some_and(|head| head.ends_with('-') || head.ends_with('_'))
    };
    let node = match &pod {
        Some(p) => node_of(pods[p]),
        None => nodes.iter().filter(named_after).max_by_key(|n| n.len()).map(|n| n.to_string()),
    };
    let pod = pod.or_else(|| {
        let node = node.as_deref()?;
        pods.iter().find(|(_, p)| node_of(p).as_deref() == Some(node)).map(|(name, _)| name.clone())
    });
    let s = &log.stats;
    LogSource {
        source: log.source.clone(),
        node,
        pod,
        lines: s.lines,
        malformed: s.malformed,
        truncated: s.truncated,
        untimed: s.untimed,
        first_ts: s.first_ts.clone(),
        last_ts: s.last_ts.clone(),
        starts: s.start_count,
        timeline_dropped: s.timeline.dropped,
    }
}

fn node_churn(snap: &Snapshot, pods: &BTreeMap<String, &Pod>, story: &Story) -> BTreeMap<String, NodeChurn> {
    let mut out: BTreeMap<String, NodeChurn> = BTreeMap::new();
    for n in snap.nodes.iter().filter_map(|n| n.metadata.name.clone()) {
        out.insert(
            n.clone(),
            NodeChurn {
                node: n,
                pod: None,
                restarts: None,
                last_termination: None,
                last_termination_reason: None,
                suspect: 0,
                departures: 0,
                failed: 0,
                rejoins: 0,
                last_departure: None,
                owner_changes_caused: 0,
            },
        );
    }
    for (name, pod) in pods {
        let Some(c) = node_of(pod).and_then(|n| out.get_mut(&n)) else {
            continue;
        };
        let statuses = pod.status.as_ref().and_then(|s| s.container_statuses.as_ref());
        let speaker = statuses.and_then(|cs| cs.iter().find(|c| c.name == "speaker").or(cs.first()));
        c.pod = Some(name.clone());
        c.restarts = speaker.map(|s| s.restart_count);
        let terminated = speaker.and_then(|s| s.last_state.as_ref()).and_then(|l| l.terminated.as_ref());
        c.last_termination = terminated.and_then(|t| t.finished_at.as_ref()).map(|t| t.0.to_string());
        c.last_termination_reason = terminated
            .map(|t| format!("{} (exit code {})", t.reason.clone().unwrap_or_else(|| "unknown".into()), t.exit_code));
    }
    for (member, m) in &story.members {
        let Some(c) = out.get_mut(member) else {
            continue;
        };
        c.departures = m.departures.len() as u64;
        c.failed = m.departures.iter().filter(|d| d.failed).count() as u64;
        c.rejoins = m.rejoins.len() as u64;
        c.last_departure = m.departures.last().map(|d| instant(d.at));
    }
    out
}

/// "Suspect NODE has failed" lines about each member, summed over every peer's log.
fn suspects(logs: &[(LogSource, &LogStats)], churn: &mut BTreeMap<String, NodeChurn>) {
    for (member, days) in logs.iter().flat_map(|(_, s)| &s.members) {
        if let Some(c) = churn.get_mut(member) {
            c.suspect += days.values().map(|m| m.suspect).sum::<u64>();
        }
    }
}

/// `nodeAssigned` Events per Service (`namespace/name`) and node, newer than `since`.
fn node_assigned(snap: &Snapshot, since: Option<Timestamp>) -> BTreeMap<String, BTreeMap<String, Option<EventCount>>> {
    let mut out: BTreeMap<String, BTreeMap<String, Option<EventCount>>> = BTreeMap::new();
    for e in snap.events.iter().filter(|e| e.reason.as_deref() == Some("nodeAssigned")) {
        let Some(node) = e.message.as_deref().and_then(announced_node) else {
            continue;
        };
        let last = e.last_timestamp.as_ref().map(|t| t.0).or(e.event_time.as_ref().map(|t| t.0));
        if let (Some(since), Some(last)) = (since, last) {
            if last < since {
                continue;
            }
        }
        let o = &e.involved_object;
        let service = format!("{}/{}", o.namespace.as_deref().unwrap_or(""), o.name.as_deref().unwrap_or(""));
        let count = EventCount {
            count: e.count.map(i64::from).unwrap_or(1),
            first_timestamp: e.first_timestamp.as_ref().map(|t| t.0.to_string()),
            last_timestamp: last.map(|t| t.to_string()),
        };
        add_count(out.entry(service).or_default().entry(node).or_default(), &count);
    }
    out
}

/// `announcing from node "worker-a" with protocol "layer2"` → worker-a (layer 2 only).
fn announced_node(message: &str) -> Option<String> {
    let rest = message.strip_prefix("announcing from node \"")?;
    let (node, tail) = rest.split_once('"')?;
    tail.contains("\"layer2\"").then(|| node.to_string())
}

fn days(logs: &[(LogSource, &LogStats)], story: &Story) -> Vec<DayRow> {
    let mut rows: BTreeMap<(String, String), DayRow> = BTreeMap::new();
    fn row<'r>(rows: &'r mut BTreeMap<(String, String), DayRow>, day: &str, node: &str) -> &'r mut DayRow {
        rows.entry((day.to_string(), node.to_string())).or_insert_with(|| DayRow {
            day: day.to_string(),
            node: node.to_string(),
            ..Default::default()
        })
    }
    for (src, stats) in logs {
        if let Some(node) = &src.node {
            for (day, d) in &stats.days {
                let r = row(&mut rows, day, node);
                r.announced += d.announced;
                r.withdrawn += d.withdrawn;
                for (reason, n) in &d.withdrawn_by_reason {
                    *r.withdrawn_by_reason.entry(reason.clone()).or_default() += n;
                }
            }
            for ts in &stats.starts {
                if let Some(day) = ts.get(..10) {
                    row(&mut rows, day, node).starts += 1;
                }
            }
        }
        for (member, days) in &stats.members {
            if member == super::logs::SELF_MEMBER {
                continue;
            }
            for (day, m) in days.iter().filter(|(_, m)| m.suspect > 0) {
                row(&mut rows, day, member).suspect += m.suspect;
            }
        }
    }
    for (member, m) in &story.members {
        for d in &m.departures {
            let r = row(&mut rows, &day_of(d.at), member);
            r.departures += 1;
            r.failed += u64::from(d.failed);
        }
        for &at in &m.rejoins {
            row(&mut rows, &day_of(at), member).rejoins += 1;
        }
    }
    for c in story.ips.values().flatten() {
        if let Some(cause) = &c.cause {
            row(&mut rows, &day_of(c.at), cause).owner_changes_caused += 1;
        }
    }
    rows.into_values().collect()
}

/// The nodes that disturbed some IP, worst first: by the owner changes they caused.
fn flapping(
    report: &Report,
    ips: &BTreeMap<String, IpHistory>,
    churn: &BTreeMap<String, NodeChurn>,
    story: &Story,
) -> Vec<Flapping> {
    let mut by_node: BTreeMap<&str, Flapping> = BTreeMap::new();
    for h in ips.values() {
        let changes = story.ips.get(&h.ip).map(Vec::as_slice).unwrap_or(&[]);
        for node in &h.disturbed_by {
            let c = &churn[node];
            let f = by_node.entry(node).or_insert_with(|| Flapping {
                node: node.clone(),
                restarts: c.restarts,
                departures: c.departures,
                failed: c.failed,
                rejoins: c.rejoins,
                owner_changes: 0,
                takeovers: 0,
                takebacks: 0,
                first_change: None,
                last_change: None,
                candidate_now: false,
                fixed: None,
                ips: Vec::new(),
            });
            let caused: Vec<&OwnerChange> = changes.iter().filter(|c| c.cause.as_deref() == Some(node)).collect();
            let mut displaced: BTreeSet<String> = BTreeSet::new();
            for c in &caused {
                f.owner_changes += 1;
                match c.kind {
                    Kind::Takeover => f.takeovers += 1,
                    _ => f.takebacks += 1,
                }
                let other = if c.from.as_deref() == Some(node) { &c.to } else { &c.from };
                displaced.extend(other.iter().cloned());
            }
            if let (Some(first), Some(last)) = (caused.first(), caused.last()) {
                let (first, last) = (instant(first.at), instant(last.at));
                f.first_change = f.first_change.take().map_or(Some(first.clone()), |f| Some(f.min(first)));
                f.last_change = f.last_change.take().map_or(Some(last.clone()), |l| Some(l.max(last)));
            }
            if caused.is_empty() {
                // Events only: the owners it ranks above.
                let mine = h.owners.iter().find(|o| &o.node == node).and_then(|o| o.rank);
                displaced
                    .extend(h.owners.iter().filter(|o| o.rank.is_none_or(|r| Some(r) > mine)).map(|o| o.node.clone()));
            }
            let rank_now = h.order.iter().position(|n| n == node).map(|p| p + 1);
            f.candidate_now |= rank_now.is_some();
            f.ips.push(Disturbed {
                ip: h.ip.clone(),
                services: h.services.clone(),
                displaced: displaced.into_iter().collect(),
                owner_changes: if caused.is_empty() { h.owner_changes } else { Some(caused.len() as u64) },
                rank_now,
            });
        }
    }
    for f in by_node.values_mut().filter(|f| !f.candidate_now) {
        let lost = f
            .ips
            .iter()
            .filter_map(|d| story.ips.get(&d.ip)?.iter().rev().find(|c| c.from.as_deref() == Some(&f.node)));
        let last = lost.max_by_key(|c| c.at);
        f.fixed = Some(Fixed {
            at: last.map(|c| instant(c.at)),
            by_configuration_change: last.is_some_and(|c| c.cause.is_none()),
            excluded_by: excluded_now(report, &f.node, &f.ips),
        });
    }
    let mut out: Vec<Flapping> = by_node.into_values().collect();
    out.sort_by(|a, b| {
        (b.owner_changes, b.departures, b.restarts, &a.node).cmp(&(a.owner_changes, a.departures, a.restarts, &b.node))
    });
    out
}

/// Why `node` is out of today's election for the Services of these IPs (explain's filters).
fn excluded_now(report: &Report, node: &str, ips: &[Disturbed]) -> Vec<String> {
    let services: BTreeSet<&str> = ips.iter().flat_map(|d| d.services.iter().map(String::as_str)).collect();
    let mut why: BTreeSet<&'static str> = BTreeSet::new();
    for s in &report.services {
        if !services.contains(format!("{}/{}", s.namespace, s.name).as_str()) {
            continue;
        }
        let Some(l2) = s.metallb.as_ref().and_then(|m| m.layer2.as_ref()) else { continue };
        let row = l2.nodes.iter().flatten().find(|n| &*n.node == node);
        match row {
            Some(row) => why.extend(row.excluded_by.iter().map(|e| e.as_str())),
            None => why.extend(
                (l2.excluded.iter())
                    .filter(|g| g.nodes.iter().flatten().any(|n| &**n == node))
                    .map(|g| g.excluded_by.as_str()),
            ),
        }
    }
    why.into_iter().map(str::to_string).collect()
}
