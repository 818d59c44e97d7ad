//! `explain svc NAME -o html`: one Service. What the rules expect beside what the cluster
//! records, the layer-2 election as a funnel from every node to the winner, the election order
//! with its hashes, and every node's row.

use std::io::Write;

use maud::{html, Markup};

use super::{count, page, section_heading};
use crate::report::{Exclusion, L2Node, Layer2, Report, ServiceReport};

pub fn service(out: &mut dyn Write, report: &Report, svc: &ServiceReport) -> std::io::Result<()> {
    let title = format!("lbdoctor explain: {}/{}", svc.namespace, svc.name);
    let status = svc.status.as_str();
    let l2 = svc.metallb.as_ref().and_then(|m| m.layer2.as_ref());
    let body = html! {
        header {
            h1 { "Service " span.mono { (svc.namespace) "/" (svc.name) } " " span class={ "st st-" (status) } { (status) } }
            @if let Some(l2) = l2 { p { (l2.verdict) } }
            @if let Some(why) = svc.metallb.as_ref().and_then(|m| m.unknown_because.as_ref()) { p { strong { "Unknown: " } (why) } }
        }
        nav aria-label="Sections" {
            a href="#compare" { "Expected and observed" }
            @if l2.is_some() { " · " a href="#funnel" { "Election" } " · " a href="#nodes" { "Every node" } }
            " · " a href="#findings" { "Findings" }
        }
        (compare(svc))
        @if let Some(l2) = l2 {
            (funnel(report, l2))
            (election(l2))
            (nodes(l2))
        }
        (findings(svc))
        p.note { "Read from " (report.source.mode) @if let Some(at) = &report.source.captured_at { ", captured at " (at) } "." }
    };
    page(out, &title, body)
}

/// What lbdoctor's replay expects, beside what the cluster records.
fn compare(svc: &ServiceReport) -> Markup {
    let l2 = svc.metallb.as_ref().and_then(|m| m.layer2.as_ref());
    let alloc = svc.allocation.as_ref();
    let expected_ips = alloc.and_then(|a| a.expected_ips.as_ref()).map(|ips| ips.join(", "));
    let writers: Vec<&str> = svc.ownership.status_writers.iter().map(|w| w.manager.as_str()).collect();
    let claimants: Vec<&str> = svc.ownership.claimants.iter().map(|c| c.as_str()).collect();
    html! {
        (section_heading("compare", "Expected and observed"))
        table.compare {
            thead { tr { th scope="col" { "" } th scope="col" { "Expected (the rules replayed)" } th scope="col" { "Observed (the cluster's records)" } } }
            tbody {
                tr {
                    th scope="row" { "Owner" }
                    td { (svc.implementation.as_str()) @if !claimants.is_empty() { span.muted { " (claimed by " (claimants.join(", ")) ")" } } }
                    td { @if writers.is_empty() { "no status writer recorded" } @else { "status written by " (writers.join(", ")) } }
                }
                tr {
                    th scope="row" { "IPs" }
                    td.mono { (expected_ips.as_deref().unwrap_or("unknown")) }
                    td.mono { @if svc.ips.is_empty() { "<pending>" } @else { (svc.ips.join(", ")) } }
                }
                @if let Some(a) = alloc {
                    tr {
                        th scope="row" { "Allocation" }
                        td { (a.status.as_str()) " (" code { (a.reason) } ") from pool " (a.pool.as_deref().unwrap_or("-")) div.hint { (a.detail) } }
                        td { @match &a.metallb_event { Some(e) => { "MetalLB's event: " (e.type_) " " (e.reason) ": " (e.message) } None => { "-" } } }
                    }
                }
                tr {
                    th scope="row" { "Announcer" }
                    td.mono { @match l2 { Some(l2) => { (l2.expected_announcer.as_deref().unwrap_or("<none>")) } None => { (svc.announcer) } } }
                    td.mono {
                        @match l2.and_then(|l| l.actual_announcers.as_ref()) {
                            Some(nodes) => {
                                @if nodes.is_empty() { "<none>" } @else { (nodes.join(", ")) }
                                span.muted { " (from " (l2.and_then(|l| l.actual_source.as_deref()).unwrap_or("?")) ")" }
                            }
                            None => {
                                (svc.observed)
                                @if let Some(why) = l2.and_then(|l| l.actual_unknown_because.as_deref()) { span.muted { " (" (why) ")" } }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// One filter of the funnel.
struct Step<'r> {
    words: String,
    removed: usize,
    left: usize,
    /// The nodes it removes, when the report names them.
    nodes: Option<&'r [std::sync::Arc<str>]>,
}

/// The filters in MetalLB's order, each with the nodes it removes: from every node to the winner.
fn funnel(report: &Report, l2: &Layer2) -> Markup {
    let total = report.nodes.len();
    let mut left = total;
    let mut steps: Vec<Step> = Vec::new();
    match l2.emptied_by {
        // Steps 1 and 3: every speaker stops before any node filter runs.
        Some(x @ (Exclusion::NoServingEndpoint | Exclusion::SharedIpRefused)) => {
            let words = format!("{} (before any node filter)", x.words());
            steps.push(Step { words, removed: total, left: 0, nodes: None });
        }
        _ => {
            for g in l2.excluded.iter().filter(|g| g.excluded_by != Exclusion::LostElection) {
                left = left.saturating_sub(g.count);
                let words = g.excluded_by.words().to_string();
                steps.push(Step { words, removed: g.count, left, nodes: g.nodes.as_deref() });
            }
        }
    }
    let winner = l2.expected_announcer.as_deref();
    let svg_height = 40 * (steps.len() + 2);
    // Widths on a 0–600 scale: a node's worth never drawn thinner than 2.
    let width = |n: usize| (n * 600).checked_div(total).unwrap_or(0).max(usize::from(n > 0) * 2);
    let label = {
        let mut words = vec![format!("{total} nodes")];
        words.extend(steps.iter().map(|s| format!("{} removes {}, {} left", s.words, s.removed, s.left)));
        words.push(match winner {
            Some(w) => format!("{} available, {w} wins", l2.available),
            None => "nobody is elected".into(),
        });
        words.join("; ")
    };
    html! {
        (section_heading("funnel", "Election"))
        p.note {
            "Every node, then each filter in MetalLB's order with how many nodes it removes, then the candidates "
            "with a local endpoint, sorted by sha256(node + \"#\" + " span.mono { (l2.ip) } "): the first one announces."
        }
        figure.funnel {
            svg viewBox={ "0 0 1000 " (svg_height) } role="img" aria-label=(label) {
                title { (label) }
                (bar(0, "all nodes", total, width(total), "f-all"))
                @for (i, s) in steps.iter().enumerate() {
                    (bar(i + 1, &format!("− {} ({})", s.words, s.removed), s.left, width(s.left), "f-step"))
                }
                @let last = steps.len() + 1;
                @match winner {
                    Some(w) => { (bar(last, &format!("winner: {w}"), 1, width(1), "f-win")) }
                    None => { (bar(last, "nobody is elected", 0, 0, "f-none")) }
                }
            }
            figcaption { (label) "." }
        }
        @for s in &steps {
            @if let Some(nodes) = s.nodes.filter(|n| !n.is_empty()) {
                details {
                    summary { (s.words) ": " (count(s.removed, "node", "nodes")) }
                    p.mono { @for (i, n) in nodes.iter().enumerate() { @if i > 0 { ", " } (n) } @if nodes.len() < s.removed { " …" } }
                }
            }
        }
    }
}

/// One funnel step: its words on the left, a bar centred on the right, the count after it.
fn bar(row: usize, words: &str, n: usize, width: usize, class: &str) -> Markup {
    let y = row * 40 + 6;
    let x = 350 + (600 - width) / 2;
    html! {
        g {
            text.f-words x="0" y=(y + 20) { (words) }
            rect class=(class) x=(x) y=(y) width=(width) height="28" rx="3" {}
            text.f-count x="990" y=(y + 20) text-anchor="end" { (n) }
        }
    }
}

fn election(l2: &Layer2) -> Markup {
    html! {
        h3 { "Election order" }
        @if l2.ranks.is_empty() {
            p { "No candidate is left: nobody announces " span.mono { (l2.ip) } "." }
        } @else {
            table {
                thead { tr { th scope="col" { "Rank" } th scope="col" { "Node" } th scope="col" { "sha256(node#ip)" } @if l2.ranks.iter().any(|r| r.score.is_some()) { th scope="col" { "Preference score" } } } }
                tbody {
                    @for r in &l2.ranks {
                        tr {
                            td { (r.rank) } td.mono { (r.node) } td.mono.hash { (r.hash.to_string()) }
                            @if let Some(s) = r.score { td { (s) } }
                        }
                    }
                }
            }
        }
    }
}

fn nodes(l2: &Layer2) -> Markup {
    let Some(rows) = &l2.nodes else { return html! {} };
    html! {
        (section_heading("nodes", "Every node"))
        p.note { "What each node's speaker answers for this Service (MetalLB's own reason string) and every filter that keeps it from announcing." }
        div.lazy { table data-sortable {
            thead { tr { @for h in ["Node", "Speaker", "Reason", "Rank", "Excluded by", "Exclude label", "Roles", "Local endpoints"] { th scope="col" { button type="button" { (h) } } } } }
            tbody { @for n in rows { (node_row(n)) } }
        } }
    }
}

fn node_row(n: &L2Node) -> Markup {
    let speaker = match n.speaker {
        Some(true) => "live",
        Some(false) => "not live",
        None => "unknown",
    };
    let reason = match n.reason {
        Some(r) if r.as_str().is_empty() => "\"\" (announces)",
        Some(r) => r.as_str(),
        None => "no speaker acts",
    };
    html! {
        tr {
            td.mono { (n.node) }
            td { (speaker) }
            td.mono { (reason) }
            td data-sort=(n.rank.map_or(u64::MAX, |r| r as u64)) { (n.rank.map(|r| r.to_string()).unwrap_or_else(|| "-".into())) }
            td { @if n.excluded_by.is_empty() { "-" } @else { (n.excluded_by.iter().map(|x| x.words()).collect::<Vec<_>>().join(", ")) } }
            td.mono { @match &n.exclude_label_value { Some(v) => { "\"" (v) "\"" } None => { "-" } } }
            td { (n.roles.join(", ")) }
            td { (n.endpoints) }
        }
    }
}

fn findings(svc: &ServiceReport) -> Markup {
    html! {
        (section_heading("findings", "Findings"))
        @if svc.findings.is_empty() { p { "None." } }
        ul {
            @for f in &svc.findings {
                li {
                    span class={ "sev sev-" (f.severity.as_str()) } { (f.severity.as_str()) } " " code { (f.code.to_string()) } " " (f.message)
                    @if !f.hint.is_empty() { div.hint { (f.hint) } }
                }
            }
        }
    }
}
