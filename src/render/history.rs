//! `history` as tables: IPs and their owners, a row per day and node, the flapping nodes, the fix.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

use comfy_table::{Cell, Color};

use super::style::{findings, new_table, print_table, Paint};
use crate::report::{ChangeDay, History, IpHistory};

pub fn history(out: &mut dyn Write, h: &History, paint: Paint) -> std::io::Result<()> {
    match &h.logs_unknown_because {
        None => {
            let sum = |f: fn(&crate::report::LogSource) -> u64| h.logs.iter().map(f).sum::<u64>();
            writeln!(
                out,
                "Speaker logs: {} ({} lines; {} malformed, {} truncated, {} without a timestamp: counted, skipped)",
                h.logs.len(),
                sum(|l| l.lines),
                sum(|l| l.malformed),
                sum(|l| l.truncated),
                sum(|l| l.untimed)
            )?;
        }
        Some(why) => super::style::wrapped(out, &format!("Speaker logs: {why}"), paint, 2, false)?,
    }
    for l in h.logs.iter().filter(|l| l.node.is_none()) {
        writeln!(out, "  {}: no speaker Pod and no node of that name in the snapshot, so its node is unknown (name the file POD.log or NODE.log)", l.source)?;
    }
    for l in h.logs.iter().filter(|l| l.timeline_dropped > 0) {
        writeln!(
            out,
            "  {}: {} moments past the 4,000,000 a log's timeline keeps were dropped: its later owner changes and departures are not counted",
            l.source, l.timeline_dropped
        )?;
    }
    if let Some(since) = &h.since {
        writeln!(out, "Since {since}")?;
    }
    writeln!(out)?;

    let mut t = new_table(
        paint,
        &["IP", "SERVICES", "ELECTED", "RECORDED", "CHANGES", "OWNERS (takeovers/nodeAssigned events)"],
    );
    for ip in &h.ips {
        t.add_row(vec![
            Cell::new(&ip.ip),
            Cell::new(if ip.services.is_empty() { "<none now>".into() } else { ip.services.join(",") }),
            Cell::new(ip.expected_announcer.as_deref().unwrap_or("<none>")),
            Cell::new(ip.current_owner.as_deref().unwrap_or("?")),
            changes_cell(ip),
            Cell::new(owners(ip)),
        ]);
    }
    print_table(out, &t)?;

    if !h.change_days.is_empty() {
        writeln!(out, "\n{}", paint.bold("Owner changes per day:"))?;
        let mut t = new_table(paint, &["DAY", "IP", "CHANGES", "TAKEOVERS", "TAKEBACKS", "HANDOVERS", "CAUSED BY"]);
        let shown = busiest(&h.change_days, |d| d.ip.as_str(), |d| d.owner_changes);
        for d in h.change_days.iter().filter(|d| shown.contains(d.ip.as_str())) {
            t.add_row(vec![
                Cell::new(&d.day),
                Cell::new(&d.ip),
                Cell::new(d.owner_changes),
                Cell::new(d.takeovers),
                Cell::new(d.takebacks),
                Cell::new(d.handovers),
                Cell::new(caused_by(d)),
            ]);
        }
        print_table(out, &t)?;
        left_out(out, &h.change_days, |d| shown.contains(d.ip.as_str()), "IPs with fewer changes")?;
        if let Some(w) = &h.worst_day {
            writeln!(out, "Worst day: {}, {} owner changes over all IPs.", w.day, w.owner_changes)?;
        }
    }

    let active: Vec<_> = h
        .days
        .iter()
        .filter(|d| {
            d.announced + d.withdrawn + d.suspect + d.departures + d.rejoins + d.starts + d.owner_changes_caused > 0
        })
        .collect();
    if !active.is_empty() {
        writeln!(out)?;
        let mut t = new_table(paint, &["DAY", "NODE", "ANN", "WDR", "SUS", "LEFT", "FAIL", "JOIN", "START", "MOVED"]);
        let shown = busiest(
            &active,
            |d| d.node.as_str(),
            |d| d.suspect + d.departures + d.rejoins + d.starts + d.owner_changes_caused,
        );
        for d in active.iter().filter(|d| shown.contains(d.node.as_str())) {
            t.add_row(vec![
                Cell::new(&d.day),
                Cell::new(&d.node),
                Cell::new(d.announced),
                Cell::new(d.withdrawn),
                Cell::new(d.suspect),
                Cell::new(d.departures),
                Cell::new(d.failed),
                Cell::new(d.rejoins),
                Cell::new(d.starts),
                Cell::new(d.owner_changes_caused),
            ]);
        }
        print_table(out, &t)?;
        left_out(out, &active, |d| shown.contains(d.node.as_str()), "nodes with less churn")?;
        super::style::wrapped(
            out,
            "ANN, WDR: announce and withdraw lines in the node's own log; SUS: Suspect lines about it; \
             LEFT: its departures from memberlist, each once (FAIL: of them, marked failed); JOIN: its rejoins; \
             START: container starts; MOVED: owner changes it caused",
            paint,
            0,
            false,
        )?;
    }

    writeln!(out)?;
    let mut t = new_table(paint, &["NODE", "SPEAKER POD", "RESTARTS", "LAST TERMINATION"]);
    for n in &h.nodes {
        let restarts = match n.restarts {
            Some(r) if r > 0 => Cell::new(r).fg(Color::Yellow),
            Some(r) => Cell::new(r),
            None => Cell::new("?"),
        };
        let last = match (&n.last_termination_reason, &n.last_termination) {
            (Some(r), Some(t)) => format!("{r} at {t}"),
            (Some(r), None) => r.clone(),
            _ => "-".into(),
        };
        t.add_row(vec![Cell::new(&n.node), Cell::new(n.pod.as_deref().unwrap_or("<none>")), restarts, Cell::new(last)]);
    }
    print_table(out, &t)?;

    if h.flapping.is_empty() {
        writeln!(out, "\nNo flapping node: no IP changes owner because a higher-ranked speaker keeps coming back.")?;
        return Ok(());
    }
    writeln!(out, "\n{}", paint.bold("Flapping nodes (worst first):"))?;
    for (i, f) in h.flapping.iter().enumerate() {
        let restarts = f.restarts.map(|r| format!("restarted {r} times; ")).unwrap_or_default();
        let span = match (&f.first_change, &f.last_change) {
            (Some(a), Some(b)) => format!(", {a} to {b}"),
            _ => String::new(),
        };
        let line = format!(
            "{}. {}: {restarts}left memberlist {} times ({} marked failed), rejoined {} times; caused {} owner changes ({} takeovers, {} takebacks){span}",
            i + 1,
            f.node,
            f.departures,
            f.failed,
            f.rejoins,
            f.owner_changes,
            f.takeovers,
            f.takebacks
        );
        super::style::wrapped(out, &format!("  {line}"), paint, 5, false)?;
        for d in &f.ips {
            let services = if d.services.is_empty() { "no Service now".into() } else { d.services.join(", ") };
            let changes = d.owner_changes.map(|c| format!(" {c} times")).unwrap_or_default();
            let now = match d.rank_now {
                Some(r) => format!("rank {r} now"),
                None => "no candidate now".into(),
            };
            let line =
                format!("{} ({services}): moved between it and {}{changes}; {now}", d.ip, d.displaced.join(", "));
            super::style::wrapped(out, &format!("     {line}"), paint, 7, false)?;
        }
    }
    if let Some(fix) = &h.fix {
        writeln!(out)?;
        super::style::wrapped(out, &format!("{} {}", paint.bold("Fix:"), fix.summary), paint, 2, false)?;
        for p in &fix.patches {
            writeln!(out, "  {}", p.command)?;
        }
        if !fix.effect.is_empty() {
            writeln!(out, "  With the patch (kubectl lbdoctor simulate --apply computes the same):")?;
            for c in &fix.effect {
                let side = |v: &serde_json::Value| v.as_str().unwrap_or("<none>").to_string();
                writeln!(
                    out,
                    "    {} {}/{}: {} -> {}",
                    c.ip.as_deref().unwrap_or("-"),
                    c.namespace,
                    c.name,
                    side(&c.before),
                    side(&c.after)
                )?;
            }
        }
    }
    if h.findings.is_empty() {
        return Ok(());
    }
    findings(out, &h.findings, paint)
}

fn owners(ip: &IpHistory) -> String {
    if ip.owners.is_empty() {
        return "-".into();
    }
    ip.owners
        .iter()
        .map(|o| {
            let rank = o.rank.map(|r| format!("#{r} ")).unwrap_or_default();
            let takeovers = o.takeovers.map(|t| t.to_string()).unwrap_or_else(|| "?".into());
            let events = o.events.as_ref().map(|e| e.count.to_string()).unwrap_or_else(|| "-".into());
            format!("{rank}{} {takeovers}/{events}", o.node)
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A per-day table keeps at most this many rows; `-o json` has them all.
const DAY_ROWS: usize = 100;

/// The keys (IPs, nodes) whose rows are shown: all when they fit in [`DAY_ROWS`], else the ones
/// with the most `weight`, as many as fit (at least one).
fn busiest<'a, T>(rows: &'a [T], key: impl Fn(&'a T) -> &'a str, weight: impl Fn(&T) -> u64) -> BTreeSet<&'a str> {
    let mut by_key: BTreeMap<&str, (u64, usize)> = BTreeMap::new();
    for r in rows {
        let e = by_key.entry(key(r)).or_default();
        e.0 += weight(r);
        e.1 += 1;
    }
    if rows.len() <= DAY_ROWS {
        return by_key.into_keys().collect();
    }
    let mut ranked: Vec<(&str, (u64, usize))> = by_key.into_iter().collect();
    ranked.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then(a.0.cmp(b.0)));
    let mut shown = BTreeSet::new();
    let mut used = 0;
    for (k, (_, n)) in ranked {
        if !shown.is_empty() && used + n > DAY_ROWS {
            break;
        }
        used += n;
        shown.insert(k);
    }
    shown
}

/// "(+1,234 rows for 987 IPs with fewer changes: -o json has them all)".
fn left_out<T>(out: &mut dyn Write, rows: &[T], shown: impl Fn(&T) -> bool, what: &str) -> std::io::Result<()> {
    let hidden = rows.iter().filter(|r| !shown(r)).count();
    if hidden == 0 {
        return Ok(());
    }
    writeln!(out, "(+{hidden} rows for {what}: -o json has them all)")
}

/// "gpu-1 286" or "gpu-1 280, (none) 1", most first.
fn caused_by(d: &ChangeDay) -> String {
    let mut by: Vec<(&String, &u64)> = d.caused_by.iter().collect();
    by.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    by.iter().map(|(n, c)| format!("{n} {c}")).collect::<Vec<_>>().join(", ")
}

fn changes_cell(ip: &IpHistory) -> Cell {
    match ip.owner_changes {
        None => Cell::new("?"),
        Some(c) if !ip.disturbed_by.is_empty() => Cell::new(c).fg(Color::Red),
        Some(c) => Cell::new(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_day_table_keeps_the_busiest_keys_whole_and_says_what_it_left_out() {
        // 30 IPs × 5 days = 150 rows; IP n has n changes a day.
        let rows: Vec<(String, u64)> =
            (0..30).flat_map(|ip| (0..5).map(move |_| (format!("192.0.2.{ip}"), ip as u64))).collect();
        let shown = busiest(&rows, |r| r.0.as_str(), |r| r.1);
        assert_eq!(shown.len(), 20, "20 IPs × 5 days = the 100 rows that fit");
        assert!(shown.contains("192.0.2.29") && shown.contains("192.0.2.10") && !shown.contains("192.0.2.9"));
        let mut out = Vec::new();
        left_out(&mut out, &rows, |r| shown.contains(r.0.as_str()), "IPs with fewer changes").unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "(+50 rows for IPs with fewer changes: -o json has them all)\n");

        let few = &rows[..10];
        assert_eq!(busiest(few, |r| r.0.as_str(), |r| r.1).len(), 2, "what fits is all shown");
        let mut out = Vec::new();
        left_out(&mut out, few, |_| true, "x").unwrap();
        assert!(out.is_empty());
    }
}
