//! `history -o html`: owner changes per IP and day as a heatmap, the nodes' departures, rejoins
//! and restarts per day beside it, the day the configuration changed marked on both, then the
//! flapping nodes, the fix, and every IP.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

use maud::{html, Markup};

use super::{count, page, section_heading};
use crate::report::History;

pub fn history(out: &mut dyn Write, h: &History) -> std::io::Result<()> {
    let context = h.source.context.as_deref().unwrap_or(h.source.mode);
    let title = format!("lbdoctor history: {context}");
    let days = days(h);
    let changed = configuration_days(h);
    let body = html! {
        header {
            h1 { "Owner changes: " (context) }
            p.note { (summary(h)) }
        }
        nav aria-label="Sections" {
            a href="#heatmap" { "Per IP and day" } " · " a href="#churn" { "Per node and day" } " · "
            a href="#flapping" { "Flapping nodes" } " · " a href="#ips" { "IPs" } " · " a href="#findings" { "Findings" }
        }
        (heatmap(h, &days, &changed))
        (churn(h, &days, &changed))
        (flapping(h))
        (ips(h))
        (findings(h))
    };
    page(out, &title, body)
}

fn summary(h: &History) -> String {
    let lines: u64 = h.logs.iter().map(|l| l.lines).sum();
    let mut parts = vec![match &h.logs_unknown_because {
        Some(why) => format!("no speaker logs ({why}): Events and restarts only"),
        None => format!("{} read ({lines} lines)", count(h.logs.len(), "speaker log", "speaker logs")),
    }];
    if let Some(since) = &h.since {
        parts.push(format!("records since {since}"));
    }
    if let Some(w) = &h.worst_day {
        parts.push(format!("worst day {}: {} owner changes", w.day, w.owner_changes));
    }
    parts.push(count(h.flapping.len(), "flapping node", "flapping nodes"));
    format!("{}.", parts.join("; "))
}

/// Every UTC day some row counts, in order.
fn days(h: &History) -> Vec<&str> {
    let mut all: BTreeSet<&str> = h.days.iter().map(|d| d.day.as_str()).collect();
    all.extend(h.ips.iter().flat_map(|ip| ip.owner_changes_by_day.keys().map(String::as_str)));
    all.into_iter().collect()
}

/// Days on which today's configuration took a flapping node out (the election itself changed).
fn configuration_days(h: &History) -> BTreeMap<String, Vec<&str>> {
    let mut out: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for f in &h.flapping {
        if let Some(at) = f.fixed.as_ref().filter(|x| x.by_configuration_change).and_then(|x| x.at.as_deref()) {
            out.entry(at.chars().take(10).collect()).or_default().push(&f.node);
        }
    }
    out
}

/// A shade from 0 (none) to 5 (the most in the table), on a log scale: one change and a
/// thousand both stay visible.
fn shade(n: u64, max: u64) -> u8 {
    if n == 0 || max == 0 {
        return 0;
    }
    let level = ((n as f64 + 1.0).ln() / (max as f64 + 1.0).ln() * 5.0).ceil();
    level.clamp(1.0, 5.0) as u8
}

fn day_header(days: &[&str], changed: &BTreeMap<String, Vec<&str>>) -> Markup {
    html! {
        @for d in days {
            @match changed.get(*d) {
                Some(nodes) => {
                    th.day.changed scope="col" title={ "The configuration changed: " (nodes.join(", ")) " out of the election" } {
                        span { (&d[5..]) " ⚑" }
                    }
                }
                None => { th.day scope="col" title=(d) { span { (&d[5..]) } } }
            }
        }
    }
}

fn heatmap(h: &History, days: &[&str], changed: &BTreeMap<String, Vec<&str>>) -> Markup {
    let max = h.ips.iter().flat_map(|ip| ip.owner_changes_by_day.values()).copied().max().unwrap_or(0);
    html! {
        (section_heading("heatmap", "Owner changes per IP and day"))
        @if h.logs_unknown_because.is_some() {
            p { "Without speaker logs the owner changes per day are unknown; the IPs below say what Events and restarts show." }
        } @else {
            p.note {
                "Each cell counts the owner changes of the IP that day (UTC): takeovers, takebacks and handovers. "
                "Darker is more, on a log scale up to " (max) "."
                @if !changed.is_empty() { " ⚑ marks the day the configuration took a flapping node out of the election." }
            }
            div.scroll {
                table.heat {
                    thead { tr { th scope="col" { "IP" } th scope="col" { "Services" } (day_header(days, changed)) th scope="col" { "Total" } } }
                    tbody {
                        @for ip in &h.ips {
                            tr {
                                th.mono scope="row" { (ip.ip) }
                                td { (ip.services.join(", ")) }
                                @for d in days {
                                    @let n = ip.owner_changes_by_day.get(*d).copied().unwrap_or(0);
                                    td class={ "h h" (shade(n, max)) @if changed.contains_key(*d) { " changed" } } title={ (ip.ip) " on " (d) ": " (n) " owner changes" } {
                                        @if n > 0 { (n) }
                                    }
                                }
                                td { (ip.owner_changes.map(|n| n.to_string()).unwrap_or_else(|| "unknown".into())) }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Per node and day: departures from memberlist and rejoins (the flapping), container starts.
fn churn(h: &History, days: &[&str], changed: &BTreeMap<String, Vec<&str>>) -> Markup {
    let mut by_node: BTreeMap<&str, BTreeMap<&str, &crate::report::DayRow>> = BTreeMap::new();
    for row in &h.days {
        by_node.entry(&row.node).or_default().insert(&row.day, row);
    }
    let max = h.days.iter().map(|d| d.departures + d.starts).max().unwrap_or(0);
    let flapping: BTreeSet<&str> = h.flapping.iter().map(|f| f.node.as_str()).collect();
    html! {
        (section_heading("churn", "Departures and rejoins per node and day"))
        @if by_node.is_empty() {
            p { "No speaker log counts any departure, rejoin or restart." }
        } @else {
            p.note { "Each cell: ↓ departures from memberlist (each once, however many peers logged it), ↑ rejoins, ⟳ container starts. Darker is more. Flapping nodes are marked ⚠." }
            div.scroll {
                table.heat {
                    thead { tr { th scope="col" { "Node" } (day_header(days, changed)) } }
                    tbody {
                        @for (node, rows) in &by_node {
                            tr {
                                th.mono scope="row" { (node) @if flapping.contains(node) { " ⚠" } }
                                @for d in days {
                                    @match rows.get(*d) {
                                        Some(r) if r.departures + r.rejoins + r.starts > 0 => {
                                            td class={ "h h" (shade(r.departures + r.starts, max)) @if changed.contains_key(*d) { " changed" } }
                                               title={ (node) " on " (d) ": left " (r.departures) " times (" (r.failed) " marked failed), rejoined " (r.rejoins) ", started " (r.starts) ", caused " (r.owner_changes_caused) " owner changes" } {
                                                @if r.departures > 0 { "↓" (r.departures) " " }
                                                @if r.rejoins > 0 { "↑" (r.rejoins) " " }
                                                @if r.starts > 0 { "⟳" (r.starts) }
                                            }
                                        }
                                        _ => { td class={ "h h0" @if changed.contains_key(*d) { " changed" } } {} }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

fn flapping(h: &History) -> Markup {
    html! {
        (section_heading("flapping", "Flapping nodes"))
        @if h.flapping.is_empty() { p { "No node's churn moves an IP." } }
        ol {
            @for f in &h.flapping {
                li {
                    strong.mono { (f.node) } ": "
                    @if let Some(r) = f.restarts { "restarted " (r) " times; " }
                    "left memberlist " (f.departures) " times (" (f.failed) " marked failed), rejoined " (f.rejoins) " times; caused "
                    (f.owner_changes) " owner changes (" (f.takeovers) " takeovers, " (f.takebacks) " takebacks)"
                    @if let (Some(a), Some(b)) = (&f.first_change, &f.last_change) { ", " (a) " to " (b) }
                    "."
                    @match &f.fixed {
                        Some(x) => {
                            div { "Out of the election today (" (x.excluded_by.join(", ")) ")"
                                @if let Some(at) = &x.at { ", since " (at) }
                                @if x.by_configuration_change { ": the configuration changed then" } "." }
                        }
                        None => { div { "Still a candidate today." } }
                    }
                    ul {
                        @for d in &f.ips {
                            li.mono { (d.ip) " (" (d.services.join(", ")) "): moved between it and " (d.displaced.join(", "))
                                @if let Some(n) = d.owner_changes { " " (n) " times" }
                                "; " @match d.rank_now { Some(r) => { "rank " (r) " now" } None => { "no candidate now" } } }
                        }
                    }
                }
            }
        }
        @if let Some(fix) = &h.fix {
            h3 { "Fix" }
            p { (fix.summary) }
            @for p in &fix.patches { pre { code { (p.command) } } }
        }
    }
}

fn ips(h: &History) -> Markup {
    html! {
        (section_heading("ips", "IPs"))
        table data-sortable {
            thead { tr { @for c in ["IP", "Services", "Elected", "Recorded", "Changes", "Owners (takeovers/nodeAssigned events)"] { th scope="col" { button type="button" { (c) } } } } }
            tbody {
                @for ip in &h.ips {
                    tr {
                        td.mono { (ip.ip) }
                        td { (ip.services.join(", ")) }
                        td.mono { (ip.expected_announcer.as_deref().unwrap_or("<none>")) }
                        td.mono { (ip.current_owner.as_deref().unwrap_or("?")) }
                        td { (ip.owner_changes.map(|n| n.to_string()).unwrap_or_else(|| "unknown".into())) }
                        td {
                            @for (i, o) in ip.owners.iter().enumerate() {
                                @if i > 0 { ", " }
                                @if let Some(r) = o.rank { "#" (r) " " }
                                (o.node) " "
                                (o.takeovers.map(|n| n.to_string()).unwrap_or_else(|| "?".into())) "/"
                                (o.events.as_ref().map(|e| e.count.to_string()).unwrap_or_else(|| "-".into()))
                            }
                        }
                    }
                }
            }
        }
    }
}

fn findings(h: &History) -> Markup {
    html! {
        (section_heading("findings", "Findings"))
        @if h.findings.is_empty() { p { "None." } }
        ul {
            @for f in &h.findings {
                li {
                    span class={ "sev sev-" (f.severity.as_str()) } { (f.severity.as_str()) } " " code { (f.code.to_string()) } " " (f.message)
                    @if !f.hint.is_empty() { div.hint { (f.hint) } }
                }
            }
        }
    }
}
