//! Before against after: two Reports of the same cluster in, the differences out, each with
//! the filter or reason that caused it. Pure.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use compact_str::CompactString;
use serde_json::{json, Value};

use crate::report::*;

/// Every change between two detailed Reports, sorted. `deleted` names the Nodes whose objects
/// the edits removed: their rows can linger (a speaker keeps every Node it has seen), but the
/// cause of their losses is the deletion.
pub fn changes(before: &Report, after: &Report, deleted: &[String]) -> Vec<Change> {
    service_changes(&before.services, &after.services, deleted)
}

/// [`changes`] of the Services given: `before`'s rows may be the bounded ones (no per-node rows).
pub fn service_changes(before: &[ServiceReport], after: &[ServiceReport], deleted: &[String]) -> Vec<Change> {
    let after_by_key: HashMap<(&str, &str), &ServiceReport> =
        after.iter().map(|s| ((s.namespace.as_str(), s.name.as_str()), s)).collect();
    let mut out = Vec::new();
    for b in before {
        let Some(a) = after_by_key.get(&(b.namespace.as_str(), b.name.as_str())) else {
            continue;
        };
        layer2(b, a, deleted, &mut out);
        cilium_l2(b, a, &mut out);
        bgp(b, a, &mut out);
        nodeipam(b, a, &mut out);
        allocation(b, a, &mut out);
    }
    out.sort_by(|x, y| (&x.namespace, &x.name, x.protocol, &x.ip).cmp(&(&y.namespace, &y.name, y.protocol, &y.ip)));
    out
}

/// The IPs a change is about: the Service's after the edits, or before when it has none left.
fn service_ips<'r>(b: &'r ServiceReport, a: &'r ServiceReport) -> &'r [CompactString] {
    if a.ips.is_empty() {
        &b.ips
    } else {
        &a.ips
    }
}

fn change(svc: &ServiceReport, ip: Option<String>, protocol: &'static str, before: Value, after: Value) -> Change {
    Change {
        namespace: svc.namespace.to_string(),
        name: svc.name.to_string(),
        ip,
        protocol,
        implementation: svc.implementation,
        before,
        after,
        cause: None,
        candidates: None,
        detail: String::new(),
    }
}

/// The node whose speaker answers: the election's first node, unless it runs no live speaker.
fn answering(l2: &Layer2) -> Option<&str> {
    let expected = l2.expected_announcer.as_deref()?;
    let row = l2.nodes.iter().flatten().find(|n| &*n.node == expected);
    (row.and_then(|r| r.speaker) != Some(false)).then_some(expected)
}

fn l2_of(svc: &ServiceReport) -> Option<&Layer2> {
    svc.metallb.as_ref().and_then(|m| m.layer2.as_ref())
}

fn row<'a>(l2: Option<&'a Layer2>, node: &str) -> Option<&'a L2Node> {
    l2?.nodes.iter().flatten().find(|n| &*n.node == node)
}

/// The first exclusion other than losing the election, else `lostElection`.
fn exclusion(row: &L2Node) -> Option<Exclusion> {
    row.excluded_by.iter().copied().find(|c| *c != Exclusion::LostElection).or_else(|| row.excluded_by.first().copied())
}

fn layer2(b: &ServiceReport, a: &ServiceReport, deleted: &[String], out: &mut Vec<Change>) {
    let (bl, al) = (l2_of(b), l2_of(a));
    if bl.is_none() && al.is_none() {
        return;
    }
    let (from, to) = (bl.and_then(answering), al.and_then(answering));
    if from == to {
        return;
    }
    let (cause, detail) = match (from, to) {
        (Some(from), Some(to)) if deleted.iter().any(|d| d == from) => {
            (Some("nodeDeleted".to_string()), format!("Node {from} is gone; {to} takes over"))
        }
        _ => l2_cause(a, bl, al, from, to),
    };
    let ips = service_ips(b, a);
    for ip in ips {
        let mut c = change(a, Some(ip.to_string()), "layer2", json!(from), json!(to));
        c.cause = cause.clone();
        c.detail = detail.clone();
        out.push(c);
    }
}

fn l2_cause(
    a: &ServiceReport,
    bl: Option<&Layer2>,
    al: Option<&Layer2>,
    from: Option<&str>,
    to: Option<&str>,
) -> (Option<String>, String) {
    let withdraw = a.metallb.as_ref().and_then(|m| m.withdraw_reason);
    match (from, to) {
        (Some(from), _) if al.is_none() || withdraw.is_some() => {
            let why = withdraw
                .map(|w| w.as_str().to_string())
                .or_else(|| a.metallb.as_ref().and_then(|m| m.unknown_because.as_deref().map(str::to_string)));
            (
                why.clone(),
                format!("{from} withdraws: {}", why.as_deref().unwrap_or("no layer-2 announcement after the change")),
            )
        }
        (Some(from), to) => {
            let after_row = row(al, from);
            let expected = al.and_then(|l| l.expected_announcer.as_deref());
            let (cause, why) = match after_row {
                None => ("nodeDeleted".to_string(), format!("Node {from} is gone")),
                Some(r) if r.speaker == Some(false) && expected == Some(from) => (
                    "noSpeaker".to_string(),
                    format!(
                        "{from} still wins the election but runs no live speaker (memberlist disabled: no failover)"
                    ),
                ),
                Some(r) => match exclusion(r) {
                    Some(Exclusion::LostElection) => {
                        let winner = expected.unwrap_or("another node");
                        ("lostElection".to_string(), format!("{winner} now ranks above {from}"))
                    }
                    Some(Exclusion::NoServingEndpoint) => {
                        ("noServingEndpoint".to_string(), "the Service has no serving endpoint left".to_string())
                    }
                    Some(x) => (x.as_str().to_string(), format!("{from} is now excluded by {}", x.as_str())),
                    None => (
                        r.reason.map_or("unknown", L2Reason::as_str).to_string(),
                        format!("{from} returns {:?}", r.reason.map_or("unknown", L2Reason::as_str)),
                    ),
                },
            };
            let detail = match to {
                Some(to) => format!("{why}; {to} takes over"),
                None => match al.and_then(|l| l.emptied_by) {
                    Some(filter) if cause == filter.as_str() => format!("{why}; no node announces it for this Service"),
                    Some(filter) => {
                        format!("{why}; nobody is left to announce ({} empties the candidate set)", filter.as_str())
                    }
                    None if expected.is_some()
                        && to.is_none()
                        && after_row.is_some_and(|r| r.speaker == Some(false)) =>
                    {
                        why
                    }
                    None => format!("{why}; no node announces it for this Service"),
                },
            };
            // An emptied candidate set names the filter responsible for the IP going dark.
            let cause = match (to, al.and_then(|l| l.emptied_by)) {
                (None, Some(filter)) if cause == Exclusion::LostElection.as_str() => filter.as_str().to_string(),
                _ => cause,
            };
            (Some(cause), detail)
        }
        (None, Some(to)) => {
            let was = row(bl, to).and_then(exclusion);
            let cause = was.or_else(|| bl.and_then(|l| l.emptied_by)).map(|x| x.as_str().to_string());
            let detail = match (&cause, bl.and_then(answering_expected_without_speaker)) {
                (_, Some(dead)) => format!("{dead} no longer wins without a live speaker; {to} announces"),
                (Some(code), None) => format!("{to} announces: it was excluded by {code}"),
                (None, None) => format!("{to} announces; nobody did before"),
            };
            (cause, detail)
        }
        (None, None) => (None, String::new()),
    }
}

/// Before: the election's winner when it runs no live speaker (so nobody answered).
fn answering_expected_without_speaker(l2: &Layer2) -> Option<&str> {
    let expected = l2.expected_announcer.as_deref()?;
    (answering(l2).is_none()).then_some(expected)
}

/// Cilium L2 has no computed winner: the Lease holder keeps it while it may compete; when it
/// leaves, whichever eligible node takes the Lease first announces.
fn cilium_l2(b: &ServiceReport, a: &ServiceReport, out: &mut Vec<Change>) {
    fn get(s: &ServiceReport) -> Option<&crate::cilium::l2::Verdict> {
        s.cilium.as_ref().and_then(|c| c.l2.as_ref()).filter(|v| v.skipped.is_none())
    }
    let (Some(bv), Some(av)) = (get(b), get(a)) else {
        return;
    };
    #[derive(PartialEq)]
    enum State<'v> {
        Holder(&'v str),
        Race,
        Nobody,
    }
    let holder = bv.announcer.as_deref();
    let classify = |v: &crate::cilium::l2::Verdict| match holder {
        Some(h) if v.eligible.iter().any(|e| &**e == h) => State::Holder(h),
        _ if v.eligible.is_empty() => State::Nobody,
        _ => State::Race,
    };
    let (before, after) = (classify(bv), classify(av));
    if before == after {
        return;
    }
    let eligible: Vec<String> = av.eligible.iter().map(|n| n.to_string()).collect();
    let from = match before {
        State::Holder(h) => Some(h),
        _ => None,
    };
    // A race with a single runner has a known winner.
    let to = match (&after, eligible.as_slice()) {
        (State::Holder(h), _) => Some(h.to_string()),
        (State::Race, [only]) => Some(only.clone()),
        _ => None,
    };
    if from.is_none() && to.is_none() && after != State::Nobody {
        return;
    }
    let ips = if av.lb_addresses.is_empty() { &bv.lb_addresses } else { &av.lb_addresses };
    for ip in ips {
        let mut c = change(a, Some(ip.to_string()), "layer2", json!(from), json!(to));
        if let Some(h) = from {
            let r = av.nodes.iter().find(|n| &*n.node == h);
            c.cause = Some(match r {
                None => "nodeDeleted".to_string(),
                Some(r) => r.excluded_by.first().map(value_str).unwrap_or_else(|| {
                    if r.agent_ready == Some(false) {
                        "agentNotReady".into()
                    } else {
                        "notEligible".into()
                    }
                }),
            });
        }
        c.detail = match (&after, &to) {
            (State::Nobody, _) => "no node may compete for the Lease: nobody announces".to_string(),
            (_, Some(to)) if from.is_some() => {
                format!("{} leaves the Lease race; {to} is the only node left to take it", from.unwrap_or_default())
            }
            (_, Some(to)) => format!("{to} may now take the Lease"),
            (_, None) => {
                format!("the Lease holder leaves; the first of {} to take the Lease announces", eligible.join(", "))
            }
        };
        if to.is_none() && after == State::Race {
            c.candidates = Some(eligible.clone());
        }
        out.push(c);
    }
}

fn value_str<T: serde::Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => "unknown".into(),
    }
}

fn bgp(b: &ServiceReport, a: &ServiceReport, out: &mut Vec<Change>) {
    fn get(s: &ServiceReport) -> Option<&Bgp> {
        s.metallb.as_ref().and_then(|m| m.bgp.as_deref())
    }
    let (bb, ab) = (get(b), get(a));
    let set = |g: Option<&Bgp>| -> BTreeSet<String> {
        g.map(|g| g.announcing.iter().map(|n| n.to_string()).collect()).unwrap_or_default()
    };
    let (before, after) = (set(bb), set(ab));
    if before == after {
        return;
    }
    let lost: Vec<&String> = before.difference(&after).collect();
    let gained: Vec<&String> = after.difference(&before).collect();
    let mut causes = BTreeSet::new();
    for n in &lost {
        let r = ab.and_then(|g| g.nodes.iter().flatten().find(|x| &*x.node == n.as_str()));
        causes.insert(match r {
            None if ab.is_none() => a
                .metallb
                .as_ref()
                .and_then(|m| m.withdraw_reason)
                .map_or_else(|| "noBGPAdvertisement".into(), |w| w.as_str().to_string()),
            None => "nodeDeleted".into(),
            Some(r) if r.speaker == Some(false) => "noSpeaker".into(),
            Some(r) => r.reason.map_or("unknown", BgpReason::as_str).to_string(),
        });
    }
    for n in &gained {
        if let Some(r) = bb.and_then(|g| g.nodes.iter().flatten().find(|x| &*x.node == n.as_str())) {
            causes.insert(
                r.reason.filter(|r| *r != BgpReason::Announce).map_or("noSpeaker", BgpReason::as_str).to_string(),
            );
        }
    }
    let mut detail = Vec::new();
    if !lost.is_empty() {
        detail.push(format!("{} {}", join(&lost), verb(lost.len(), "stops", "stop", "announcing")));
    }
    if !gained.is_empty() {
        detail.push(format!("{} {}", join(&gained), verb(gained.len(), "starts", "start", "announcing")));
    }
    if after.is_empty() {
        detail.push("no node announces".into());
    }
    let ips = service_ips(b, a);
    for ip in ips {
        let mut c = change(a, Some(ip.to_string()), "bgp", json!(before), json!(after));
        c.cause = (!causes.is_empty()).then(|| causes.iter().cloned().collect::<Vec<_>>().join(","));
        c.detail = detail.join("; ");
        out.push(c);
    }
}

fn verb(n: usize, one: &str, many: &str, rest: &str) -> String {
    format!("{} {rest}", if n == 1 { one } else { many })
}

fn join(names: &[&String]) -> String {
    names.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
}

fn nodeipam(b: &ServiceReport, a: &ServiceReport, out: &mut Vec<Change>) {
    fn get(s: &ServiceReport) -> Option<&NodeIpam> {
        s.cilium.as_ref().and_then(|c| c.nodeipam.as_ref())
    }
    let (Some(bn), Some(an)) = (get(b), get(a)) else {
        return;
    };
    if bn.expected_ingress == an.expected_ingress {
        return;
    }
    let used =
        |n: &NodeIpam| -> BTreeSet<String> { n.nodes.iter().filter(|x| x.used).map(|x| x.node.clone()).collect() };
    let (ub, ua) = (used(bn), used(an));
    let mut causes = BTreeSet::new();
    for node in ub.difference(&ua) {
        causes.insert(match an.nodes.iter().find(|x| &x.node == node) {
            None => "nodeDeleted".to_string(),
            Some(r) => r.excluded_by.first().map(value_str).unwrap_or_else(|| "unknown".into()),
        });
    }
    let mut c = change(a, None, "nodeipam", json!(bn.expected_ingress), json!(an.expected_ingress));
    c.cause = (!causes.is_empty()).then(|| causes.into_iter().collect::<Vec<_>>().join(","));
    let lost: Vec<&String> = ub.difference(&ua).collect();
    let gained: Vec<&String> = ua.difference(&ub).collect();
    let mut detail = Vec::new();
    if !lost.is_empty() {
        detail.push(format!("{} {}", join(&lost), verb(lost.len(), "leaves", "leave", "the ingress")));
    }
    if !gained.is_empty() {
        detail.push(format!("{} {}", join(&gained), verb(gained.len(), "joins", "join", "it")));
    }
    if an.expected_ingress.is_empty() {
        detail.push("no ingress address is left".into());
    }
    c.detail = detail.join("; ");
    out.push(c);
}

fn allocation(b: &ServiceReport, a: &ServiceReport, out: &mut Vec<Change>) {
    let (Some(ba), Some(aa)) = (&b.allocation, &a.allocation) else {
        return;
    };
    if ba.status == aa.status && ba.expected_ips == aa.expected_ips {
        return;
    }
    let state = |x: &Allocation| json!({"status": x.status, "ips": x.expected_ips});
    let ip =
        aa.expected_ips.iter().flatten().next().or(ba.expected_ips.iter().flatten().next()).map(|ip| ip.to_string());
    let mut c = change(a, ip, "allocation", state(ba), state(aa));
    c.cause = Some(aa.reason.to_string());
    c.detail = aa.detail.to_string();
    out.push(c);
}

/// Counts of what moved, per node.
pub fn summary(changes: &[Change]) -> SimulationSummary {
    let mut s = SimulationSummary::default();
    // Services sharing an IP move together: count each (IP, from, to) once.
    let mut seen = BTreeSet::new();
    let mut nodes: BTreeMap<String, NodeMoves> = BTreeMap::new();
    let mut targets: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut unannounced = BTreeSet::new();
    let mut announced = BTreeSet::new();
    for c in changes {
        match c.protocol {
            "layer2" => {
                let (from, to) = (c.before.as_str(), c.after.as_str());
                if !seen.insert((c.ip.clone(), from.map(str::to_string), to.map(str::to_string))) {
                    continue;
                }
                if let Some(from) = from {
                    let m = moves(&mut nodes, from);
                    m.lost += 1;
                    match (to, &c.candidates) {
                        (Some(to), _) => {
                            *targets.entry((from.to_string(), to.to_string())).or_default() += 1;
                        }
                        (None, Some(cands)) if !cands.is_empty() => m.undecided += 1,
                        (None, _) => {
                            m.unannounced += 1;
                            unannounced.insert(c.ip.clone());
                        }
                    }
                    if to.is_some() || c.candidates.as_ref().is_some_and(|x| !x.is_empty()) {
                        s.ips_moved += 1;
                    }
                }
                if let Some(to) = to {
                    let m = moves(&mut nodes, to);
                    m.gained += 1;
                    if from.is_none() {
                        announced.insert(c.ip.clone());
                    }
                }
            }
            "bgp" => {
                s.bgp_changes += 1;
                let empty = |v: &Value| v.as_array().is_some_and(|a| a.is_empty());
                if empty(&c.after) && !empty(&c.before) {
                    unannounced.insert(c.ip.clone());
                } else if empty(&c.before) && !empty(&c.after) {
                    announced.insert(c.ip.clone());
                }
            }
            "nodeipam" => s.nodeipam_changes += 1,
            "allocation" => {
                s.allocation_changes += 1;
                if c.after["status"] == "pending" && c.before["status"] != "pending" {
                    s.services_pending += 1;
                }
            }
            _ => {}
        }
    }
    for ((from, to), ips) in targets {
        if let Some(m) = nodes.get_mut(&from) {
            m.to.push(MoveTarget { node: to, ips });
        }
    }
    for m in nodes.values_mut() {
        m.to.sort_by(|x, y| y.ips.cmp(&x.ips).then_with(|| x.node.cmp(&y.node)));
    }
    s.ips_unannounced = unannounced.len();
    s.ips_announced = announced.len();
    s.nodes = nodes.into_values().collect();
    s
}

fn moves<'a>(nodes: &'a mut BTreeMap<String, NodeMoves>, node: &str) -> &'a mut NodeMoves {
    nodes.entry(node.to_string()).or_insert_with(|| NodeMoves { node: node.to_string(), ..Default::default() })
}

/// Findings of `after` that `before` lacks, and the reverse. A finding is the same when its code
/// and the first object it names are (its message may change with the state, e.g. a count).
pub fn new_findings(before: &Report, after: &Report) -> (Vec<Finding>, Vec<Finding>) {
    let key = |f: &Finding| (f.code, f.objects.first().cloned());
    let b: BTreeSet<_> = before.all_findings().map(key).collect();
    let a: BTreeSet<_> = after.all_findings().map(key).collect();
    let added = after.all_findings().filter(|f| !b.contains(&key(f))).cloned().collect();
    let resolved = before.all_findings().filter(|f| !a.contains(&key(f))).cloned().collect();
    (added, resolved)
}
