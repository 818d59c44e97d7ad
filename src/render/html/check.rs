//! `check -o html`: the causes first, then the counts, the cluster's setup and every Service in
//! a table the page sorts and filters itself.

use std::collections::BTreeSet;
use std::io::Write;

use maud::{html, Markup};

use super::{count, page, section_heading};
use crate::report::{Cause, Finding, Report, ServiceReport};

pub fn check(out: &mut dyn Write, report: &Report) -> std::io::Result<()> {
    let context = report.source.context.as_deref().unwrap_or(report.source.mode);
    let title = format!("lbdoctor check: {context}");
    let metallb_map = report
        .services
        .iter()
        .any(|s| s.metallb.as_ref().and_then(|m| m.layer2.as_ref()).is_some_and(|l| l.cells.is_some()));
    let cilium_map = report
        .services
        .iter()
        .any(|s| s.cilium.as_ref().and_then(|c| c.l2.as_ref()).is_some_and(|l| l.cells.is_some()));
    let body = html! {
        header {
            h1 { "Load balancer check: " (context) }
            p.note { (summary_line(report)) }
        }
        nav aria-label="Sections" {
            a href="#causes" { "Causes" } " · " a href="#counts" { "Counts" } " · "
            a href="#setup" { "Cluster" } " · "
            @if metallb_map { a href="#map" { "Layer 2 map" } " · " }
            @if cilium_map { a href="#cilium-map" { "Cilium L2 map" } " · " }
            a href="#services" { "Services" }
        }
        (causes(report))
        (counts(report))
        (setup(report))
        (super::map::map(report))
        (super::map::cilium_map(report))
        (spof(report))
        (services(report))
    };
    page(out, &title, body)
}

fn summary_line(report: &Report) -> String {
    let s = &report.summary;
    let bad: usize = s.by_status.iter().filter(|(k, _)| **k != "ok").map(|(_, n)| n).sum();
    format!(
        "{} checked, {} not ok; {} error, {} warning, {} info findings; {}.",
        count(s.services, "Service", "Services"),
        bad,
        s.findings.error,
        s.findings.warning,
        s.findings.info,
        count(s.causes, "cause", "causes")
    )
}

fn causes(report: &Report) -> Markup {
    html! {
        (section_heading("causes", "Causes"))
        @if report.causes.is_empty() {
            p { "No cause found: every finding, if any, stands alone (see the Services below)." }
        } @else {
            p.note { "The worst first. Each names the object to fix, the command to start with and the Services it darkens." }
            ol.causes {
                @for (i, c) in report.causes.iter().enumerate() { (cause(i, c)) }
            }
        }
        @if !report.findings.is_empty() {
            h3 { "Cluster findings" }
            ul { @for f in &report.findings { li { (finding(f)) } } }
        }
    }
}

/// Services a cause names in the page; the table filters to every one.
const CAUSE_SERVICES_SHOWN: usize = 100;

fn cause(i: usize, c: &Cause) -> Markup {
    let sev = c.severity.as_str();
    let code = c.code.to_string();
    html! {
        li id={ "cause-" (i + 1) } class={ "sev-box-" (sev) } {
            span class={ "sev sev-" (sev) } { (sev) } " "
            code { (c.code.to_string()) } " "
            strong { (c.object.to_string()) } ": " (c.message)
            @if !c.hint.is_empty() { div.hint { (c.hint) } }
            div.fix { "Fix, starting with: " code { (c.fix) } }
            @if !c.services.is_empty() {
                div.affected {
                    details {
                        summary { (count(c.services.len(), "Service", "Services")) " affected" }
                        ul { @for s in c.services.iter().take(CAUSE_SERVICES_SHOWN) { li.mono { (s) } } }
                        @if c.services.len() > CAUSE_SERVICES_SHOWN {
                            p { "… and " (c.services.len() - CAUSE_SERVICES_SHOWN) " more. " }
                        }
                    }
                    button type="button" data-finding=(code.to_lowercase()) { "Show them in the table" }
                }
            }
        }
    }
}

fn finding(f: &Finding) -> Markup {
    let sev = f.severity.as_str();
    html! {
        span class={ "sev sev-" (sev) } { (sev) } " " code { (f.code.to_string()) } " " (f.message)
        @if !f.hint.is_empty() { div.hint { (f.hint) } }
    }
}

fn counts(report: &Report) -> Markup {
    let s = &report.summary;
    html! {
        (section_heading("counts", "Counts"))
        h3 { "Services by status" }
        ul.counts {
            @for (status, n) in &s.by_status {
                li {
                    button type="button" data-status=(status) title={ "Show the " (status) " Services in the table" } {
                        span class={ "st st-" (status) } { (status) } " " (n)
                    }
                }
            }
        }
        h3 { "Findings by severity" }
        ul.counts {
            li { span class="sev sev-error" { "error" } " " (s.findings.error) }
            li { span class="sev sev-warning" { "warning" } " " (s.findings.warning) }
            li { span class="sev sev-info" { "info" } " " (s.findings.info) }
            li { "suppressed " (s.suppressed) }
        }
    }
}

fn setup(report: &Report) -> Markup {
    let src = &report.source;
    html! {
        (section_heading("setup", "Cluster"))
        dl.facts {
            dt { "Read from" } dd { (src.mode) @if let Some(c) = &src.context { " (context " code { (c) } ")" } }
            dt { "Captured at" } dd { (src.captured_at.as_deref().unwrap_or("unknown: the snapshot does not say")) }
            @for b in &src.bundles {
                dt { "Bundle" }
                dd {
                    code { (b.path) } " (" (b.layout) "): " (b.object_files) " object files, " (b.speaker_logs) " speaker logs, "
                    (b.controller_logs) " controller logs, " (b.frr_views) " FRR views"
                    @if !b.not_read.is_empty() { "; not read: " (b.not_read.len()) }
                }
            }
            dt { "Implementations" }
            dd {
                @if src.implementations.is_empty() { "none found" }
                @for (i, imp) in src.implementations.iter().enumerate() {
                    @if i > 0 { "; " }
                    strong { (imp.implementation) }
                    @if !imp.evidence.is_empty() { span.muted { " (" (imp.evidence.join(", ")) ")" } }
                }
            }
            @if let Some(m) = &src.metallb {
                dt { "MetalLB" }
                dd {
                    "namespace " code { (m.namespace) } ", version "
                    (m.version.as_deref().unwrap_or("unknown"))
                    "; speaker rules of " (m.behaviour.to_string()) " (" (m.behaviour_reason) ")"
                    "; controller rules of " (m.controller_behaviour.to_string()) " (" (m.controller_behaviour_reason) ")"
                }
                @if m.speaker_versions.len() > 1 {
                    dt { "Speaker versions" }
                    dd { @for (v, n) in &m.speaker_versions { (v) ": " (n) " " } }
                }
                dt { "Speakers" }
                dd {
                    @match (m.live_speakers, m.speaker_pods) {
                        (Some(live), Some(pods)) => { (live) " live of " (pods) " speaker Pods" }
                        _ => { "unknown: the snapshot holds no speaker Pods" }
                    }
                    "; configuration " @if m.config_valid { "accepted" } @else { strong { "rejected" } }
                }
            }
            @if !src.assumptions.is_empty() {
                dt { "Assumed" } dd { ul { @for a in &src.assumptions { li { (a) } } } }
            }
            @if !src.ignored_objects.is_empty() {
                dt { "Objects left out" }
                dd { ul { @for o in &src.ignored_objects { li { code { (o.object) } " (" (o.at) "): " (o.reason) } } } }
            }
            @if !src.ignored_fields.is_empty() {
                dt { "Fields not read" }
                dd { (count(src.ignored_fields.len(), "field", "fields")) " no API server returns, e.g. "
                     @for f in src.ignored_fields.iter().take(5) { code { (f.object) " " (f.at) } " " } }
            }
            @if !src.unreadable.is_empty() {
                dt { "Not readable" } dd { ul { @for u in &src.unreadable { li { (u) } } } }
            }
        }
    }
}

/// The columns of the Services table, in order; the filters name them by index.
const COLUMNS: [&str; 9] =
    ["Namespace", "Name", "Status", "IP", "Pool", "Announcer", "Observed", "Implementation", "Findings"];
const NAMESPACE: usize = 0;
const FINDINGS: usize = 8;
/// Up to this many Services the table repeats each finding's message under its code; a larger
/// cluster's page links each code to its cause instead (the messages were half of 13 MB).
const MESSAGES_UP_TO: usize = 1_000;
const STATUS: usize = 2;
const POOL: usize = 4;
const ANNOUNCER: usize = 5;

fn pool(svc: &ServiceReport) -> Option<&str> {
    svc.metallb.as_ref().and_then(|m| m.pool.as_deref()).or_else(|| svc.allocation.as_ref()?.pool.as_deref())
}

fn services(report: &Report) -> Markup {
    let distinct = |f: &dyn Fn(&ServiceReport) -> Option<&str>| -> BTreeSet<String> {
        report.services.iter().filter_map(f).map(str::to_string).collect()
    };
    let namespaces = distinct(&|s| Some(s.namespace.as_str()));
    let statuses = distinct(&|s| Some(s.status.as_str()));
    let pools = distinct(&pool);
    let codes: BTreeSet<String> = report
        .services
        .iter()
        .flat_map(|s| {
            s.findings.iter().map(|f| f.code.to_string()).chain(s.suppressed.iter().map(|f| f.finding.code.to_string()))
        })
        .collect();
    // Which cause a Service's finding folds into: its code links there.
    let mut cause_of: std::collections::HashMap<(crate::report::Code, &str), usize> = Default::default();
    for (i, c) in report.causes.iter().enumerate() {
        for s in &c.services {
            cause_of.entry((c.code, s.as_str())).or_insert(i + 1);
        }
    }
    let messages = report.services.len() <= MESSAGES_UP_TO;
    let nodes: BTreeSet<String> = report.nodes.iter().map(|n| n.name.to_string()).collect();
    let select = |label: &str, name: &str, col: usize, values: &BTreeSet<String>| {
        html! {
            label { (label)
                select name=(name) data-col=(col) {
                    option value="" { "any" }
                    @for v in values { option value=(v.to_lowercase()) { (v) } }
                }
            }
        }
    };
    html! {
        (section_heading("services", "Services"))
        @if report.services.is_empty() {
            p { "No LoadBalancer Services found." }
        } @else {
            form.filters data-table="services-table" role="search" aria-label="Filter the Services" {
                label { "Search" input type="search" name="q" data-col="1" placeholder="name"; }
                (select("Status", "status", STATUS, &statuses))
                (select("Namespace", "namespace", NAMESPACE, &namespaces))
                @if !pools.is_empty() { (select("Pool", "pool", POOL, &pools)) }
                @if !nodes.is_empty() { (select("Announcing node", "node", ANNOUNCER, &nodes)) }
                @if !codes.is_empty() { (select("Finding", "finding", FINDINGS, &codes)) }
                output aria-live="polite" {}
            }
            div.lazy { table #services-table data-sortable {
                caption.note { "Every Service; a column header sorts by it." }
                thead { tr { @for c in COLUMNS { th scope="col" { button type="button" { (c) } } } } }
                tbody {
                    @for svc in &report.services { (service_row(svc, &cause_of, messages)) }
                }
            } }
        }
    }
}

fn service_row(
    svc: &ServiceReport,
    cause_of: &std::collections::HashMap<(crate::report::Code, &str), usize>,
    messages: bool,
) -> Markup {
    let status = svc.status.as_str();
    let key = format!("{}/{}", svc.namespace, svc.name);
    // What the Findings column sorts and filters by: the codes, not the messages under them.
    let codes = svc.finding_codes();
    html! {
        tr {
            td { (svc.namespace) }
            td.mono { (svc.name) }
            td { span class={ "st st-" (status) } { (status) } }
            td.mono { @if svc.ips.is_empty() { "<pending>" } @else { (svc.ips.join(", ")) } }
            td { (pool(svc).unwrap_or("-")) }
            td.mono { (svc.announcer) }
            td.mono { (svc.observed) }
            td { (svc.implementation.as_str()) }
            td data-sort=(codes.join(" ")) {
                @if svc.findings.is_empty() && svc.suppressed.is_empty() { "-" }
                @for (i, f) in svc.findings.iter().enumerate() {
                    @if i > 0 { ", " }
                    @match cause_of.get(&(f.code, key.as_str())) {
                        Some(n) => { a href={ "#cause-" (n) } { (f.code.to_string()) } }
                        None => { (f.code.to_string()) }
                    }
                }
                @for (i, s) in svc.suppressed.iter().enumerate() {
                    @if i > 0 || !svc.findings.is_empty() { ", " }
                    span title="suppressed" { "(" (s.finding.code.to_string()) ")" }
                }
                @if messages { @for f in &svc.findings { div.hint { (f.message) } } }
            }
        }
    }
}

/// `check --spof`: per node that announces anything, what it alone going down leaves dark.
fn spof(report: &Report) -> Markup {
    let Some(nodes) = &report.spof else { return html! {} };
    html! {
        (section_heading("spof", "Single points of failure"))
        @if nodes.is_empty() {
            p { "No single node going down leaves an IP dark." }
        } @else {
            p.note { "Each node whose loss alone leaves IPs nobody announces, with what goes dark (as simulate --down NODE says)." }
            table data-sortable {
                thead { tr { @for h in ["Node", "IPs left dark", "Services"] { th scope="col" { button type="button" { (h) } } } } }
                tbody {
                    @for n in nodes {
                        tr {
                            td.mono { (n.node) }
                            td { (n.ips) }
                            td {
                                @for (i, c) in n.losses.iter().take(CAUSE_SERVICES_SHOWN).enumerate() {
                                    @if i > 0 { ", " }
                                    span.mono { (c.namespace) "/" (c.name) } @if let Some(ip) = &c.ip { " (" (ip) ")" }
                                }
                                @if n.losses.len() > CAUSE_SERVICES_SHOWN { " … and " (n.losses.len() - CAUSE_SERVICES_SHOWN) " more" }
                            }
                        }
                    }
                }
            }
        }
    }
}
