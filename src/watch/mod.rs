//! `--watch`: two evaluations of the same cluster in, what changed between them out, each change
//! with its reason and the watch events that led to it. Pure: the caller reads the cluster,
//! stamps the time and prints.

mod tally;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use compact_str::CompactString;
use serde_json::{json, Value};

use crate::snapshot::Snapshot;

use crate::diagnose::{self, DiagnoseError, Options, Scope};
use crate::report::{
    Cause, Change, ChangeKind, Finding, ObjectRef, Report, ServiceReport, ServiceStatus, Severity, Trigger,
    WatchChange, API_VERSION,
};
pub use tally::Tally;

/// Services whose reasons one per-node run works out at a time: bounds its memory.
const CHUNK: usize = 256;

/// `namespace/name`.
pub type ServiceKey = (String, String);

/// The Services whose verdict differs between the two evaluations (announcer, status, IPs,
/// allocation, what the cluster records), with the Services sharing their IPs, whose elections
/// run together: the ones whose reasons need per-node rows.
pub fn affected(before: &Report, after: &Report) -> BTreeSet<ServiceKey> {
    let old = by_key(before);
    let mut out = BTreeSet::new();
    for a in &after.services {
        let key = key(a);
        if old.get(&(a.namespace.as_str(), a.name.as_str())).is_none_or(|b| differs(b, a)) {
            out.insert(key);
        }
    }
    if out.is_empty() {
        return out;
    }
    let mut by_ip: HashMap<&str, Vec<&ServiceReport>> = HashMap::new();
    for s in &after.services {
        for ip in &s.ips {
            by_ip.entry(ip.as_str()).or_default().push(s);
        }
    }
    let direct: Vec<ServiceKey> = out.iter().cloned().collect();
    let after_by_key = by_key(after);
    for k in direct {
        let Some(s) = after_by_key.get(&(k.0.as_str(), k.1.as_str())) else { continue };
        for ip in &s.ips {
            out.extend(by_ip[ip.as_str()].iter().map(|x| key(x)));
        }
    }
    out
}

fn differs(b: &ServiceReport, a: &ServiceReport) -> bool {
    b.status != a.status
        || b.announcer != a.announcer
        || b.observed != a.observed
        || b.ips != a.ips
        || allocation_state(b) != allocation_state(a)
        || l2_announcers(b) != l2_announcers(a)
}

/// The engines' per-node reasons for the Services whose verdict changed: a run with per-node
/// rows over just those Services (and the Services sharing their IPs), a chunk at a time, against
/// the bounded rows of the evaluation before.
pub fn reasons(snap: &Snapshot, before: &Report, after: &Report, opts: &Options) -> Result<Vec<Change>, DiagnoseError> {
    let affected = affected(before, after);
    if affected.is_empty() {
        return Ok(Vec::new());
    }
    let names = |r: &Report| -> BTreeSet<String> { r.nodes.iter().map(|n| n.name.to_string()).collect() };
    let deleted: Vec<String> = names(before).difference(&names(after)).cloned().collect();
    let detailed = Options { scope: Scope::All, detail: true, ..opts.clone() };
    let mut out = Vec::new();
    for set in chunks(&affected, after, CHUNK) {
        let restricted = crate::simulate::restrict(snap, &set);
        let rows = diagnose::diagnose(&restricted, &detailed)?;
        let old: Vec<crate::report::ServiceReport> = before
            .services
            .iter()
            .filter(|s| set.contains(&(s.namespace.as_str(), s.name.as_str())))
            .cloned()
            .collect();
        out.extend(crate::simulate::diff::service_changes(&old, &rows.services, &deleted));
    }
    Ok(out)
}

/// The Services in groups of at most `size`, never parting Services that share an IP (their
/// elections run together): each group is one per-node run.
fn chunks<'k>(keys: &'k BTreeSet<ServiceKey>, after: &Report, size: usize) -> Vec<BTreeSet<(&'k str, &'k str)>> {
    // Services linked by a shared IP, directly or through another one, by union-find.
    let list: Vec<&ServiceKey> = keys.iter().collect();
    let mut parent: Vec<usize> = (0..list.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let index: HashMap<(&str, &str), usize> =
        list.iter().enumerate().map(|(i, (ns, n))| ((ns.as_str(), n.as_str()), i)).collect();
    let mut first_with_ip: HashMap<&str, usize> = HashMap::new();
    for s in &after.services {
        let Some(&i) = index.get(&(s.namespace.as_str(), s.name.as_str())) else { continue };
        for ip in &s.ips {
            let j = *first_with_ip.entry(ip.as_str()).or_insert(i);
            let (a, b) = (root(&mut parent, i), root(&mut parent, j));
            parent[a] = b;
        }
    }
    let mut groups: BTreeMap<usize, Vec<(&str, &str)>> = BTreeMap::new();
    for (i, (ns, n)) in list.iter().enumerate() {
        let r = root(&mut parent, i);
        groups.entry(r).or_default().push((ns.as_str(), n.as_str()));
    }
    let mut out: Vec<BTreeSet<(&str, &str)>> = Vec::new();
    for group in groups.into_values() {
        match out.last_mut() {
            Some(chunk) if chunk.len() + group.len() <= size => chunk.extend(group),
            _ => out.push(group.into_iter().collect()),
        }
    }
    out
}

/// Every change from `before` to `after`. `reasons` are the engines' changes between the same
/// Services with per-node rows on the `after` side (simulate's diff): they give the why.
pub fn changes(
    before: &Report,
    after: &Report,
    reasons: &[Change],
    triggers: &[Trigger],
    time: &str,
) -> Vec<WatchChange> {
    let old = by_key(before);
    let new = by_key(after);
    let why: HashMap<(&str, &str, Option<&str>, &str), &Change> =
        reasons.iter().map(|c| ((c.namespace.as_str(), c.name.as_str(), c.ip.as_deref(), c.protocol), c)).collect();
    let mut out = Vec::new();
    let keys: BTreeSet<(&str, &str)> = old.keys().chain(new.keys()).copied().collect();
    for k in keys {
        let service = format!("{}/{}", k.0, k.1);
        let base = |change: ChangeKind, s: &ServiceReport| WatchChange {
            api_version: API_VERSION,
            kind: "Change",
            time: time.to_string(),
            change,
            service: Some(service.clone()),
            ip: None,
            before: Value::Null,
            after: Value::Null,
            reason: None,
            detail: String::new(),
            object: None,
            services: None,
            observed: Some(s.observed.to_string()),
            drift: drift(s),
            triggers: Vec::new(),
            triggers_total: 0,
        };
        match (old.get(&k), new.get(&k)) {
            (None, None) => {}
            (None, Some(a)) => {
                let mut c = base(ChangeKind::Service, a);
                c.after = json!(a.status.as_str());
                c.ip = a.ips.first().map(ToString::to_string);
                c.reason = worst_code(&a.findings);
                c.detail = format!("{service} appeared: {}", status_detail(a));
                out.push(c);
            }
            (Some(b), None) => {
                let mut c = base(ChangeKind::Service, b);
                c.before = json!(b.status.as_str());
                c.ip = b.ips.first().map(ToString::to_string);
                c.observed = None;
                c.drift = false;
                c.detail = format!("{service} is gone");
                out.push(c);
            }
            (Some(b), Some(a)) => {
                // Layer 2, per IP: the node that answers.
                let (bl, al) = (l2_announcers(b), l2_announcers(a));
                for (ip, to) in &al {
                    let from = bl.iter().find(|(i, _)| i == ip).map(|(_, n)| n.clone()).unwrap_or(None);
                    if from == *to {
                        continue;
                    }
                    let mut c = base(ChangeKind::Announcer, a);
                    c.ip = Some(ip.clone());
                    c.before = json!(from);
                    c.after = json!(to);
                    let reason = why.get(&(k.0, k.1, Some(ip.as_str()), "layer2"));
                    c.reason = reason.and_then(|r| r.cause.clone());
                    c.detail = announcer_detail(from.as_deref(), to.as_deref(), reason.copied());
                    out.push(c);
                }
                // BGP, Node IPAM, Cilium: the engines' change, else the ANNOUNCER column's text.
                if bl.is_empty() && al.is_empty() && b.announcer != a.announcer {
                    let mut found: Vec<&Change> = why
                        .iter()
                        .filter(|((ns, name, _, protocol), _)| (*ns, *name) == k && *protocol != "allocation")
                        .map(|(_, c)| *c)
                        .collect();
                    found.sort_by(|x, y| (x.protocol, &x.ip).cmp(&(y.protocol, &y.ip)));
                    if found.is_empty() {
                        let mut c = base(ChangeKind::Announcer, a);
                        c.ip = a.ips.first().map(ToString::to_string);
                        c.before = json!(b.announcer);
                        c.after = json!(a.announcer);
                        c.detail = format!("{} → {}", b.announcer, a.announcer);
                        out.push(c);
                    }
                    for r in found {
                        let mut c = base(ChangeKind::Announcer, a);
                        c.ip = r.ip.clone();
                        c.before = r.before.clone();
                        c.after = r.after.clone();
                        c.reason = r.cause.clone();
                        c.detail = r.detail.clone();
                        out.push(c);
                    }
                }
                if b.status != a.status {
                    let mut c = base(ChangeKind::Status, a);
                    c.ip = a.ips.first().or(b.ips.first()).map(ToString::to_string);
                    c.before = json!(b.status.as_str());
                    c.after = json!(a.status.as_str());
                    c.reason =
                        if a.status == ServiceStatus::Ok { worst_code(&b.findings) } else { worst_code(&a.findings) };
                    c.detail = if a.status == ServiceStatus::Ok {
                        format!("ok again ({} cleared)", c.reason.as_deref().unwrap_or("nothing"))
                    } else {
                        status_detail(a)
                    };
                    out.push(c);
                }
                if allocation_state(b) != allocation_state(a) {
                    let mut c = base(ChangeKind::Allocation, a);
                    c.before = allocation_value(b);
                    c.after = allocation_value(a);
                    c.ip = a
                        .allocation
                        .as_ref()
                        .and_then(|x| x.expected_ips.as_ref())
                        .and_then(|ips| ips.first())
                        .map(ToString::to_string);
                    c.reason = a.allocation.as_ref().map(|x| x.reason.to_string());
                    c.detail = a.allocation.as_ref().map(|x| x.detail.to_string()).unwrap_or_default();
                    out.push(c);
                }
                if b.ips != a.ips {
                    let mut c = base(ChangeKind::Ips, a);
                    c.before = json!(b.ips);
                    c.after = json!(a.ips);
                    c.ip = a.ips.first().or(b.ips.first()).map(ToString::to_string);
                    c.detail = format!("the Service's status now holds {}", list_or_none(&a.ips));
                    out.push(c);
                }
                if b.observed != a.observed {
                    let mut c = base(ChangeKind::Observed, a);
                    c.ip = a.ips.first().map(ToString::to_string);
                    c.before = json!(b.observed);
                    c.after = json!(a.observed);
                    c.detail = if c.drift {
                        format!("the cluster records {} while the replay says {}", a.observed, a.announcer)
                    } else {
                        format!("the cluster records {}, as the replay says", a.observed)
                    };
                    out.push(c);
                }
            }
        }
    }
    out.extend(cause_changes(before, after, time));
    for c in &mut out {
        let (shown, total) = related(c, triggers);
        c.triggers = shown;
        c.triggers_total = total;
    }
    out
}

/// Causes that appeared or cleared, by code and object.
fn cause_changes(before: &Report, after: &Report, time: &str) -> Vec<WatchChange> {
    let index = |r: &Report| -> BTreeMap<(crate::report::Code, ObjectRef), Cause> {
        r.causes.iter().map(|c| ((c.code, c.object.clone()), c.clone())).collect()
    };
    let (b, a) = (index(before), index(after));
    let make = |c: &Cause, appeared: bool| WatchChange {
        api_version: API_VERSION,
        kind: "Change",
        time: time.to_string(),
        change: ChangeKind::Cause,
        service: None,
        ip: None,
        before: if appeared { Value::Null } else { json!(c.message) },
        after: if appeared { json!(c.message) } else { Value::Null },
        reason: Some(c.code.to_string()),
        detail: if appeared { format!("fix: {}", c.fix) } else { "cleared".to_string() },
        object: Some(c.object.clone()),
        services: Some(c.services.len()),
        observed: None,
        drift: false,
        triggers: Vec::new(),
        triggers_total: 0,
    };
    let mut out: Vec<WatchChange> = a.iter().filter(|(k, _)| !b.contains_key(*k)).map(|(_, c)| make(c, true)).collect();
    out.extend(b.iter().filter(|(k, _)| !a.contains_key(*k)).map(|(_, c)| make(c, false)));
    out
}

/// The layer-2 node that answers per IP: the election's winner, unless its speaker is known dead.
fn l2_announcers(s: &ServiceReport) -> Vec<(String, Option<String>)> {
    let Some(l2) = s.metallb.as_ref().and_then(|m| m.layer2.as_ref()) else {
        return Vec::new();
    };
    let dead = |node: &str| l2.nodes.iter().flatten().any(|n| &*n.node == node && n.speaker == Some(false));
    // The ANNOUNCER column reads `<none>` when the winner does not answer (withdrawn, no live
    // speaker): rows or not, both evaluations agree on that.
    let answering = l2.expected_announcer.as_deref().filter(|n| s.announcer != "<none>" && !dead(n));
    let ips = if s.ips.is_empty() { std::slice::from_ref(&l2.ip) } else { &*s.ips };
    ips.iter().map(|ip| (ip.to_string(), answering.map(str::to_string))).collect()
}

fn allocation_state(s: &ServiceReport) -> Option<(crate::report::AllocationStatus, Option<&[CompactString]>)> {
    s.allocation.as_ref().map(|a| (a.status, a.expected_ips.as_deref()))
}

fn allocation_value(s: &ServiceReport) -> Value {
    match &s.allocation {
        Some(a) => json!({"status": a.status, "ips": a.expected_ips}),
        None => Value::Null,
    }
}

fn drift(s: &ServiceReport) -> bool {
    !matches!(s.observed.as_str(), "?" | "-" | "") && !matches!(s.announcer.as_str(), "-") && s.observed != s.announcer
}

fn worst_code(findings: &[Finding]) -> Option<String> {
    findings.iter().max_by_key(|f| f.severity).filter(|f| f.severity > Severity::Info).map(|f| f.code.to_string())
}

fn status_detail(s: &ServiceReport) -> String {
    match s.findings.iter().max_by_key(|f| f.severity) {
        Some(f) => format!("{}: {}", f.code, f.message),
        None => s.status.as_str().to_string(),
    }
}

fn list_or_none(ips: &[CompactString]) -> String {
    if ips.is_empty() {
        "no IP".into()
    } else {
        ips.join(", ")
    }
}

/// `worker-b → worker-a (worker-b: excludeLabel)`: the move, and why the old node stopped.
fn announcer_detail(from: Option<&str>, to: Option<&str>, reason: Option<&Change>) -> String {
    let name = |n: Option<&str>| n.unwrap_or("nobody").to_string();
    let mut text = format!("{} → {}", name(from), name(to));
    match (from, reason.and_then(|r| r.cause.as_deref())) {
        (Some(from), Some(cause)) => text.push_str(&format!(" ({from}: {cause})")),
        (None, Some(cause)) => text.push_str(&format!(" (was {cause})")),
        _ => {}
    }
    text
}

/// The triggers that name this change's objects first (the Service, its EndpointSlices and
/// Events, the nodes it moved between, the cause's object), then the rest; at most
/// [`WatchChange::TRIGGERS`], and how many there were.
fn related(c: &WatchChange, triggers: &[Trigger]) -> (Vec<Trigger>, usize) {
    let (ns, name) = c.service.as_deref().and_then(|s| s.split_once('/')).unwrap_or(("", ""));
    let nodes: Vec<&str> = [&c.before, &c.after].into_iter().filter_map(Value::as_str).collect();
    let object = c.object.as_ref().map(ToString::to_string);
    let score = |t: &Trigger| -> u8 {
        let in_ns = t.namespace.as_deref() == Some(ns);
        let named = match t.kind.as_str() {
            "Service" => in_ns && t.name == name,
            "EndpointSlice" => in_ns && t.name.starts_with(&format!("{name}-")),
            "Event" => in_ns && t.name.starts_with(&format!("{name}.")),
            "Node" => nodes.contains(&t.name.as_str()),
            _ => object.as_deref().is_some_and(|o| o.ends_with(&t.name) && o.starts_with(&t.kind)),
        };
        u8::from(!named)
    };
    let mut ranked: Vec<&Trigger> = triggers.iter().collect();
    ranked.sort_by_key(|t| score(t));
    (ranked.into_iter().take(WatchChange::TRIGGERS).cloned().collect(), triggers.len())
}

fn key(s: &ServiceReport) -> ServiceKey {
    (s.namespace.to_string(), s.name.to_string())
}

fn by_key(r: &Report) -> BTreeMap<(&str, &str), &ServiceReport> {
    r.services.iter().map(|s| ((s.namespace.as_str(), s.name.as_str()), s)).collect()
}

#[cfg(test)]
mod tests;
