//! `history` as tables: IPs and their owners, a row per day and node, the flapping nodes, the fix.

use std::io::Write;

use comfy_table::{Cell, Color};

use super::style::{findings, new_table, print_table, Paint};
use crate::report::{History, IpHistory};

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
        writeln!(out, "  {}: no speaker Pod of that name in the snapshot, so its node is unknown", l.source)?;
    }
    if let Some(since) = &h.since {
        writeln!(out, "Since {since}")?;
    }
    writeln!(out)?;

    let mut t = new_table(
        paint,
        &["IP", "SERVICES", "ELECTED", "RECORDED", "OWNERS (takeovers, nodeAssigned events)", "CHANGES"],
    );
    for ip in &h.ips {
        t.add_row(vec![
            Cell::new(&ip.ip),
            Cell::new(if ip.services.is_empty() { "<none now>".into() } else { ip.services.join(",") }),
            Cell::new(ip.expected_announcer.as_deref().unwrap_or("<none>")),
            Cell::new(ip.current_owner.as_deref().unwrap_or("?")),
            Cell::new(owners(ip)),
            changes_cell(ip),
        ]);
    }
    print_table(out, &t)?;

    let active: Vec<_> =
        h.days.iter().filter(|d| d.announced + d.withdrawn + d.suspect + d.failed + d.rejoins + d.starts > 0).collect();
    if !active.is_empty() {
        writeln!(out)?;
        let mut t =
            new_table(paint, &["DAY", "NODE", "ANNOUNCED", "WITHDRAWN", "SUSPECT", "FAILED", "REJOINS", "STARTS"]);
        for d in active {
            t.add_row(vec![
                Cell::new(&d.day),
                Cell::new(&d.node),
                Cell::new(d.announced),
                Cell::new(d.withdrawn),
                Cell::new(d.suspect),
                Cell::new(d.failed),
                Cell::new(d.rejoins),
                Cell::new(d.starts),
            ]);
        }
        print_table(out, &t)?;
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
        let restarts = f.restarts.map(|r| format!("restarted {r} times, ")).unwrap_or_default();
        writeln!(
            out,
            "  {}. {}: {restarts}marked failed {} times, rejoined {} times; took IPs back {} times",
            i + 1,
            f.node,
            f.failed,
            f.rejoins,
            f.takebacks
        )?;
        for d in &f.ips {
            writeln!(
                out,
                "     {} ({}): takes it back from {}{}",
                d.ip,
                if d.services.is_empty() { "no Service now".into() } else { d.services.join(", ") },
                d.displaced.join(", "),
                d.owner_changes.map(|c| format!(", {c} owner changes")).unwrap_or_default()
            )?;
        }
    }
    if let Some(fix) = &h.fix {
        writeln!(out, "\n{} {}", paint.bold("Fix:"), fix.summary)?;
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

fn changes_cell(ip: &IpHistory) -> Cell {
    match ip.owner_changes {
        None => Cell::new("?"),
        Some(c) if !ip.disturbed_by.is_empty() => Cell::new(c).fg(Color::Red),
        Some(c) => Cell::new(c),
    }
}
