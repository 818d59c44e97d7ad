//! `history` as tables: IPs and their owners, a row per day and node, the flapping nodes, the fix.

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
        for d in &h.change_days {
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
        for d in active {
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
