//! Ownership history, reconstructed: the speakers' log counts, `nodeAssigned` Events, ServiceL2Status
//! and speaker restarts, put beside the election order of each IP. Pure: the logs come in already
//! scanned. MetalLB's log lines carry no Service and no node (spec T13): the file is the node and
//! the IP is the key, so Services are found through their IPs.

use std::collections::{BTreeMap, BTreeSet};

use jiff::Timestamp;
use k8s_openapi::api::core::v1::Pod;
use serde_json::json;

use super::logs::LogStats;
use crate::k8s::selector::Selector;
use crate::metallb::install::is_speaker_labelled;
use crate::report::*;
use crate::snapshot::Snapshot;

/// One scanned speaker log.
pub struct SpeakerLog {
    /// File name (`speaker-x7k2p.log`) or `pods/NAME/log`.
    pub source: String,
    pub stats: LogStats,
}

pub struct Inputs<'a> {
    pub snap: &'a Snapshot,
    /// The detailed Report of `snap`: election orders.
    pub report: &'a Report,
    pub logs: &'a [SpeakerLog],
    pub logs_unknown_because: Option<String>,
    pub since: Option<Timestamp>,
    /// `namespace/name` of the one Service asked about.
    pub service: Option<String>,
}

/// An IP is flapping from this many owner changes on, a node from this many restarts, failures
/// or rejoins.
const FLAPS: u64 = 3;

pub fn history(i: &Inputs) -> History {
    let pods = speaker_pods(i.snap);
    let logs: Vec<(LogSource, &LogStats)> = i.logs.iter().map(|l| (log_source(l, &pods), &l.stats)).collect();
    let churn = node_churn(i.snap, &pods, &logs);
    let events = node_assigned(i.snap, i.since);

    let mut ips: BTreeMap<String, IpHistory> = BTreeMap::new();
    for s in &i.report.services {
        let key = format!("{}/{}", s.namespace, s.name);
        let Some(l2) = s.metallb.as_ref().and_then(|m| m.layer2.as_ref()) else {
            continue;
        };
        for ip in &s.ips {
            let entry = ips.entry(ip.clone()).or_insert_with(|| IpHistory {
                expected_announcer: l2.expected_announcer.clone(),
                order: {
                    let mut ranked: Vec<(usize, String)> =
                        l2.nodes.iter().flatten().filter_map(|n| Some((n.rank?, n.node.to_string()))).collect();
                    ranked.sort();
                    ranked.into_iter().map(|(_, n)| n).collect()
                },
                ..ip_history(ip)
            });
            entry.services.push(key.clone());
            // What ServiceL2Status (or the latest nodeAssigned Event) says, as the Report read it.
            if entry.current_owner.is_none() {
                entry.current_owner = l2.actual_announcers.as_ref().map(|a| a.join(","));
            }
        }
    }
    // IPs the logs name that no Service holds now.
    for (_, stats) in &logs {
        for ip in stats.ips.keys() {
            ips.entry(ip.clone()).or_insert_with(|| ip_history(ip));
        }
    }

    for h in ips.values_mut() {
        let mut owners: BTreeMap<String, IpOwner> = BTreeMap::new();
        let rank = |node: &str| h.order.iter().position(|n| n == node).map(|p| p + 1);
        for (src, stats) in &logs {
            let (Some(node), Some(c)) = (&src.node, stats.ips.get(&h.ip)) else {
                continue;
            };
            for (reason, n) in &c.withdrawals_by_reason {
                *h.withdrawals_by_reason.entry(reason.clone()).or_default() += n;
            }
            if c.takeovers == 0 && c.withdrawals_by_reason.is_empty() {
                continue;
            }
            let o = owners.entry(node.clone()).or_insert_with(|| owner(node, rank(node)));
            *o.takeovers.get_or_insert(0) += c.takeovers;
            *o.withdrawn_not_owner.get_or_insert(0) += c.withdrawals_by_reason.get("notOwner").copied().unwrap_or(0);

            for (day, n) in &c.takeovers_by_day {
                *o.takeovers_by_day.entry(day.clone()).or_default() += n;
            }
        }
        for (node, count) in h.services.iter().filter_map(|svc| events.get(svc)).flatten() {
            let o = owners.entry(node.clone()).or_insert_with(|| owner(node, rank(node)));
            if let Some(count) = count {
                add_count(&mut o.events, count);
            }
        }
        h.owners = owners.into_values().collect();
        h.owners.sort_by_key(|o| (o.rank.unwrap_or(usize::MAX), o.node.clone()));
        h.owner_changes = (!logs.is_empty()).then(|| owner_changes(&h.owners));
        let worst_rank = h.owners.iter().map(|o| o.rank.unwrap_or(usize::MAX)).max();
        h.disturbed_by = h
            .owners
            .iter()
            .filter(|o| o.rank.is_some() && o.rank < worst_rank && h.owners.len() > 1)
            .filter(|o| churn.get(&o.node).is_some_and(churns))
            .filter(|_| h.owner_changes.is_none_or(|c| c >= FLAPS))
            .map(|o| o.node.clone())
            .collect();
    }
    if let Some(svc) = &i.service {
        ips.retain(|_, h| h.services.contains(svc));
    }

    let flapping = flapping(&ips, &churn);
    let fix = fix(i, &flapping);
    let findings = findings(&flapping, &churn);
    History {
        api_version: API_VERSION,
        kind: "History",
        source: i.report.source.clone(),
        since: i.since.map(|t| t.to_string()),
        days: days(&logs),
        logs: logs.into_iter().map(|(s, _)| s).collect(),
        logs_unknown_because: i.logs_unknown_because.clone(),
        ips: ips.into_values().collect(),
        nodes: churn.into_values().collect(),
        flapping,
        fix,
        findings,
    }
}

/// Each change shows as the new owner's takeover, and, when a higher-ranked node takes the IP
/// back, as the old owner's `notOwner` withdrawal. A crash-looping speaker's log holds only its
/// current container, so its takebacks are counted from the withdrawals of the owners below it.
fn owner_changes(owners: &[IpOwner]) -> u64 {
    let Some(top) = owners.first().filter(|o| o.rank.is_some()) else {
        return owners.iter().filter_map(|o| o.takeovers).sum::<u64>().saturating_sub(1);
    };
    let yielded: u64 = owners[1..].iter().filter_map(|o| o.withdrawn_not_owner).sum();
    let rest: u64 = owners[1..].iter().filter_map(|o| o.takeovers).sum();
    (top.takeovers.unwrap_or(0).max(yielded) + rest).saturating_sub(1)
}

fn owner(node: &str, rank: Option<usize>) -> IpOwner {
    IpOwner {
        node: node.to_string(),
        rank,
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
    restarts.max(c.failed).max(c.rejoins) >= FLAPS
}

/// Speaker Pods by name.
fn speaker_pods(snap: &Snapshot) -> BTreeMap<String, &Pod> {
    snap.pods
        .iter()
        .filter(|p| is_speaker_labelled(p.metadata.labels.as_ref()))
        .filter_map(|p| Some((p.metadata.name.clone()?, p)))
        .collect()
}

fn node_of(pod: &Pod) -> Option<String> {
    pod.spec.as_ref()?.node_name.clone()
}

/// The Pod a log file belongs to: its name without the extension, as `kubectl logs POD > POD.log`
/// writes it; else the longest Pod name the file name contains; else a node name.
fn log_source(log: &SpeakerLog, pods: &BTreeMap<String, &Pod>) -> LogSource {
    // Live: `pods/NAME/log`.
    let live = log.source.strip_prefix("pods/").and_then(|r| r.strip_suffix("/log"));
    let file = live.unwrap_or_else(|| log.source.rsplit('/').next().unwrap_or(&log.source));
    let stem = file.strip_suffix(".log").or_else(|| file.strip_suffix(".txt")).unwrap_or(file);
    let pod = pods
        .get(stem)
        .map(|_| stem.to_string())
        .or_else(|| pods.keys().filter(|p| file.contains(p.as_str())).max_by_key(|p| p.len()).cloned());
    let s = &log.stats;
    LogSource {
        source: log.source.clone(),
        node: pod.as_ref().and_then(|p| node_of(pods[p])),
        pod,
        lines: s.lines,
        malformed: s.malformed,
        truncated: s.truncated,
        untimed: s.untimed,
        first_ts: s.first_ts.clone(),
        last_ts: s.last_ts.clone(),
        starts: s.start_count,
    }
}

fn node_churn(
    snap: &Snapshot,
    pods: &BTreeMap<String, &Pod>,
    logs: &[(LogSource, &LogStats)],
) -> BTreeMap<String, NodeChurn> {
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
                failed: 0,
                rejoins: 0,
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
    for (member, days) in logs.iter().flat_map(|(_, s)| &s.members) {
        let Some(c) = out.get_mut(member) else {
            continue;
        };
        for m in days.values() {
            c.suspect += m.suspect;
        }
    }
    // Failures and rejoins: each peer logs each one once, so the most any peer saw is the count.
    for c in out.values_mut() {
        let per_peer = |f: fn(&super::logs::MemberCounts) -> u64| {
            logs.iter()
                .map(|(_, s)| s.members.get(&c.node).map(|d| d.values().map(f).sum::<u64>()).unwrap_or(0))
                .max()
                .unwrap_or(0)
        };
        c.failed = per_peer(|m| m.failed);
        c.rejoins = per_peer(|m| m.join);
    }
    out
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

fn days(logs: &[(LogSource, &LogStats)]) -> Vec<DayRow> {
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
            for (day, m) in days {
                let r = row(&mut rows, day, member);
                r.suspect += m.suspect;
                r.failed = r.failed.max(m.failed);
                r.rejoins = r.rejoins.max(m.join);
            }
        }
    }
    rows.into_values().collect()
}

fn flapping(ips: &BTreeMap<String, IpHistory>, churn: &BTreeMap<String, NodeChurn>) -> Vec<Flapping> {
    let mut by_node: BTreeMap<&str, Flapping> = BTreeMap::new();
    for h in ips.values() {
        for node in &h.disturbed_by {
            let me = h.owners.iter().find(|o| &o.node == node);
            let my_rank = me.and_then(|o| o.rank);
            let c = &churn[node];
            let f = by_node.entry(node).or_insert_with(|| Flapping {
                node: node.clone(),
                restarts: c.restarts,
                failed: c.failed,
                rejoins: c.rejoins,
                takebacks: 0,
                ips: Vec::new(),
            });
            f.takebacks += h
                .owners
                .iter()
                .filter(|o| o.rank.is_none_or(|r| Some(r) > my_rank))
                .filter_map(|o| o.withdrawn_not_owner)
                .sum::<u64>();
            f.ips.push(Disturbed {
                ip: h.ip.clone(),
                services: h.services.clone(),
                displaced: h
                    .owners
                    .iter()
                    .filter(|o| o.rank.is_none_or(|r| Some(r) > my_rank))
                    .map(|o| o.node.clone())
                    .collect(),
                owner_changes: h.owner_changes,
            });
        }
    }
    let mut out: Vec<Flapping> = by_node.into_values().collect();
    out.sort_by(|a, b| (b.takebacks, b.restarts, &a.node).cmp(&(a.takebacks, a.restarts, &b.node)));
    out
}

/// Keep the flapping nodes out of the L2Advertisements that make them candidates for the IPs they
/// disturb: each nodeSelector term gets a `kubernetes.io/hostname NotIn` requirement (terms are
/// ORed, so each needs it). The effect is computed by the what-if engine.
fn fix(i: &Inputs, flapping: &[Flapping]) -> Option<Fix> {
    if flapping.is_empty() {
        return None;
    }
    let labels_of = |node: &str| {
        let n = i.snap.nodes.iter().find(|n| n.metadata.name.as_deref() == Some(node));
        n.and_then(|n| n.metadata.labels.clone()).unwrap_or_default()
    };
    let labels: Vec<crate::k8s::selector::Labels> = flapping.iter().map(|f| labels_of(&f.node)).collect();
    let hostnames: Vec<String> = flapping
        .iter()
        .zip(&labels)
        .map(|(f, l)| l.get("kubernetes.io/hostname").cloned().unwrap_or_else(|| f.node.clone()))
        .collect();
    let disturbed: BTreeSet<&str> =
        flapping.iter().flat_map(|f| f.ips.iter().flat_map(|d| d.services.iter().map(String::as_str))).collect();
    let mut ads: BTreeSet<String> = BTreeSet::new();
    for s in &i.report.services {
        if disturbed.contains(format!("{}/{}", s.namespace, s.name).as_str()) {
            if let Some(l2) = s.metallb.as_ref().and_then(|m| m.layer2.as_ref()) {
                ads.extend(l2.advertisements.iter().cloned());
            }
        }
    }
    let requirement = json!({"key": "kubernetes.io/hostname", "operator": "NotIn", "values": hostnames});
    let mut patches = Vec::new();
    let mut applied = crate::snapshot::Snapshot::default();
    for ad in i.snap.metallb.l2_advertisements.iter().filter(|a| ads.contains(a.name())) {
        let selects_flapper = labels.iter().any(|labels| {
            ad.spec.node_selectors.is_empty()
                || ad.spec.node_selectors.iter().any(|s| Selector::compile(s).is_ok_and(|s| s.matches(labels)))
        });
        if !selects_flapper {
            continue;
        }
        let terms: Vec<serde_json::Value> = if ad.spec.node_selectors.is_empty() {
            vec![json!({"matchExpressions": [requirement]})]
        } else {
            ad.spec
                .node_selectors
                .iter()
                .map(|s| {
                    let mut term = serde_json::to_value(s).unwrap_or_else(|_| json!({}));
                    let list = term.as_object_mut().map(|o| o.entry("matchExpressions").or_insert_with(|| json!([])));
                    if let Some(serde_json::Value::Array(exprs)) = list {
                        exprs.push(requirement.clone());
                    }
                    term
                })
                .collect()
        };
        let patch = json!({"spec": {"nodeSelectors": terms}});
        let mut patched = ad.clone();
        if let Ok(sel) = serde_json::from_value(json!(terms)) {
            patched.spec.node_selectors = sel;
        }
        applied.metallb.l2_advertisements.push(patched);
        patches.push(AdPatch {
            namespace: ad.namespace().to_string(),
            name: ad.name().to_string(),
            command: format!(
                "kubectl -n {} patch l2advertisement {} --type merge -p '{}'",
                ad.namespace(),
                ad.name(),
                serde_json::to_string(&patch).unwrap_or_default()
            ),
            patch,
        });
    }
    let nodes: Vec<&str> = flapping.iter().map(|f| f.node.as_str()).collect();
    let effect = if applied.metallb.l2_advertisements.is_empty() {
        Vec::new()
    } else {
        let opts = crate::diagnose::Options {
            scope: crate::diagnose::Scope::All,
            detail: true,
            overrides: Default::default(),
        };
        let edit = crate::simulate::edit::Edit::Apply { file: "the fix".into(), objects: Box::new(applied) };
        crate::simulate::simulate(i.snap, &[edit], &opts).map(|s| s.changes).unwrap_or_default()
    };
    Some(Fix {
        summary: format!(
            "restrict the L2Advertisement nodeSelectors to stable nodes: keep {} out of the election for the IPs {}{}",
            nodes.join(", "),
            if nodes.len() == 1 { "it disturbs" } else { "they disturb" },
            if patches.is_empty() { " (no L2Advertisement found to patch)" } else { "" }
        ),
        patches,
        effect,
    })
}

fn findings(flapping: &[Flapping], churn: &BTreeMap<String, NodeChurn>) -> Vec<Finding> {
    flapping
        .iter()
        .map(|f| {
            let c = &churn[&f.node];
            let ips: Vec<String> = f
                .ips
                .iter()
                .map(|d| {
                    format!(
                        "{} ({})",
                        d.ip,
                        if d.services.is_empty() { "no Service now".into() } else { d.services.join(", ") }
                    )
                })
                .collect();
            let displaced: BTreeSet<&str> = f.ips.iter().flat_map(|d| d.displaced.iter().map(String::as_str)).collect();
            let changes: Vec<String> = f
                .ips
                .iter()
                .filter_map(|d| Some(format!("{} of {}", d.owner_changes.filter(|c| *c > 0)?, d.ip)))
                .collect();
            let mut objects = vec![ObjectRef::cluster("Node", &f.node)];
            objects.extend(c.pod.iter().map(|p| ObjectRef::unqualified("Pod", p)));
            objects.extend(f.ips.iter().flat_map(|d| d.services.iter().map(|s| ObjectRef::from_key("Service", s))));
            Finding::new(
                Code::LBD108,
                format!(
                    "{}'s speaker {}; it ranks first for {} and takes {} back from {} every time it rejoins{}",
                    f.node,
                    match f.restarts {
                        Some(r) => format!("restarted {r} times (memberlist marked it failed {} times)", f.failed),
                        None => format!("was marked failed by memberlist {} times", f.failed),
                    },
                    ips.join(", "),
                    if f.ips.len() == 1 { "it" } else { "them" },
                    displaced.into_iter().collect::<Vec<_>>().join(", "),
                    if changes.is_empty() {
                        String::new()
                    } else {
                        format!(" (owner changes the logs show, at least: {})", changes.join(", "))
                    }
                ),
                "find why the speaker restarts (kubectl logs --previous, its lastState), and keep the node out of \
                       the L2Advertisement's nodeSelectors until it is stable (the patch below)",
                objects,
            )
        })
        .collect()
}
