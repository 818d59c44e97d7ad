//! `simulate` and `check --spof` as tables and sentences.

use std::io::Write;

use compact_str::CompactString;

use comfy_table::{Cell, Color};
use serde_json::Value;

use super::style::{finding_row, name_list, new_table, print_table, Paint};
use crate::report::{Change, NodeMoves, ObjectRef, Report, ServiceStatus, Simulation, SpofNode};

pub fn simulation(out: &mut dyn Write, sim: &Simulation, wide: bool, paint: Paint) -> std::io::Result<()> {
    writeln!(out, "{}", paint.bold("Edits:"))?;
    for e in &sim.edits {
        writeln!(out, "  {:<12} {}: {}", e.edit, e.object, e.detail)?;
    }
    writeln!(out)?;
    if sim.changes.is_empty() {
        writeln!(out, "Nothing moves: every IP keeps its announcer, every Service its addresses.")?;
    } else {
        changes_table(out, &sim.changes, wide, paint)?;
        writeln!(out)?;
    }
    for line in summary_lines(sim) {
        writeln!(out, "{line}")?;
    }
    if !sim.findings.is_empty() {
        writeln!(out, "\n{}", paint.bold("Findings the change brings:"))?;
        finding_table(out, &sim.findings, paint)?;
    }
    if !sim.resolved.is_empty() {
        writeln!(out, "\n{}", paint.bold("Findings it clears:"))?;
        finding_table(out, &sim.resolved, paint)?;
    }
    Ok(())
}

fn finding_table(out: &mut dyn Write, list: &[crate::report::Finding], paint: Paint) -> std::io::Result<()> {
    let mut t = new_table(paint, &["SEVERITY", "CODE", "OBJECT", "MESSAGE"]);
    for f in list {
        t.add_row(finding_row(f, f.code.to_string()));
    }
    print_table(out, &t)
}

fn changes_table(out: &mut dyn Write, changes: &[Change], wide: bool, paint: Paint) -> std::io::Result<()> {
    let mut head = vec!["NAMESPACE", "NAME", "IP", "PROTOCOL", "BEFORE", "AFTER", "CAUSE"];
    if wide {
        head.push("DETAIL");
    }
    let mut t = new_table(paint, &head);
    for c in changes {
        let after = match (&c.after, &c.candidates) {
            (Value::Null, Some(cands)) if !cands.is_empty() => format!("one of {}", cands.join(",")),
            (v, _) => side(v),
        };
        let lost = c.after.is_null() && c.candidates.as_ref().is_none_or(|x| x.is_empty())
            || c.after.as_array().is_some_and(|a| a.is_empty())
            || c.after["status"] == "pending";
        let mut row = vec![
            Cell::new(&c.namespace),
            Cell::new(&c.name),
            Cell::new(c.ip.as_deref().unwrap_or("-")),
            Cell::new(c.protocol),
            Cell::new(side(&c.before)),
            if lost { Cell::new(after).fg(Color::Red) } else { Cell::new(after) },
            Cell::new(c.cause.as_deref().unwrap_or("-")),
        ];
        if wide {
            row.push(Cell::new(&c.detail));
        }
        t.add_row(row);
    }
    print_table(out, &t)
}

/// A node, a node list, an address list, or an allocation state, as a table cell.
fn side(v: &Value) -> String {
    match v {
        Value::Null => "<none>".into(),
        Value::String(s) => s.clone(),
        Value::Array(a) if a.is_empty() => "<none>".into(),
        Value::Array(a) => a.iter().map(side).collect::<Vec<_>>().join(","),
        Value::Object(o) => {
            let status = o.get("status").and_then(Value::as_str).unwrap_or("?");
            match o.get("ips") {
                Some(Value::Array(ips)) if !ips.is_empty() => format!("{status} {}", side(&Value::Array(ips.clone()))),
                _ => status.to_string(),
            }
        }
        other => other.to_string(),
    }
}

fn lose(n: usize) -> String {
    if n == 1 {
        "1 IP loses its announcer".into()
    } else {
        format!("{n} IPs lose their announcer")
    }
}

fn ips(n: usize) -> String {
    if n == 1 {
        "1 IP".into()
    } else {
        format!("{n} IPs")
    }
}

/// "worker-a going down moves 4 IPs to worker-b; 0 IPs lose their announcer", per node that loses
/// any, then the totals.
pub(super) fn summary_lines(sim: &Simulation) -> Vec<String> {
    let s = &sim.summary;
    let mut lines = Vec::new();
    for m in s.nodes.iter().filter(|m| m.lost > 0) {
        lines.push(node_line(sim, m));
    }
    let mut total =
        vec![format!("{} move{}", ips(s.ips_moved), if s.ips_moved == 1 { "s" } else { "" }), lose(s.ips_unannounced)];
    if s.ips_announced > 0 {
        total.push(format!("{} gain one", ips(s.ips_announced)));
    }
    if s.bgp_changes > 0 {
        total.push(format!("{} BGP change{}", s.bgp_changes, if s.bgp_changes == 1 { "" } else { "s" }));
    }
    if s.nodeipam_changes > 0 {
        total.push(format!(
            "{} Node IPAM ingress change{}",
            s.nodeipam_changes,
            if s.nodeipam_changes == 1 { "" } else { "s" }
        ));
    }
    if s.allocation_changes > 0 {
        total.push(format!(
            "{} allocation change{} ({} Service{} pending)",
            s.allocation_changes,
            if s.allocation_changes == 1 { "" } else { "s" },
            s.services_pending,
            if s.services_pending == 1 { " becomes" } else { "s become" }
        ));
    }
    lines.push(format!("In all: {}.", total.join("; ")));
    lines
}

fn node_line(sim: &Simulation, m: &NodeMoves) -> String {
    let object = ObjectRef::cluster("Node", &m.node);
    let verb = match sim.edits.iter().find(|e| e.object == object).map(|e| e.edit) {
        Some("down") => format!("{} going down", m.node),
        Some("delete") => format!("deleting {}", m.node),
        Some("speakerDown") => format!("stopping the speaker on {}", m.node),
        Some("label" | "unlabel") => format!("relabelling {}", m.node),
        _ => m.node.clone(),
    };
    let moved = m.lost - m.unannounced - m.undecided;
    let mut parts = Vec::new();
    match m.to.as_slice() {
        [] => {}
        [one] => parts.push(format!("moves {} to {}", ips(moved), one.node)),
        many => {
            let to: Vec<String> = many.iter().map(|t| format!("{} ({})", t.node, t.ips)).collect();
            parts.push(format!("moves {} to {}", ips(moved), to.join(", ")));
        }
    }
    if m.undecided > 0 {
        parts.push(format!("hands {} to whichever node takes the Cilium Lease", ips(m.undecided)));
    }
    if parts.is_empty() && verb == m.node {
        let them = if m.unannounced == 1 { "it" } else { "them" };
        return format!("{} stops announcing {}: nobody takes {them} over", m.node, ips(m.unannounced));
    }
    if parts.is_empty() {
        return format!("{verb}: {}", lose(m.unannounced));
    }
    format!("{verb} {}; {}", parts.join(", "), lose(m.unannounced))
}

/// `check --spof`, after the check table.
pub fn spof(out: &mut dyn Write, report: &Report, nodes: &[SpofNode], paint: Paint) -> std::io::Result<()> {
    writeln!(
        out,
        "\n{}",
        paint.bold("Single points of failure (one node down alone, its speaker and endpoints with it):")
    )?;
    // IPs nobody answers for now cannot be lost: say so before "none".
    let mut dark: Vec<&str> = report
        .services
        .iter()
        .filter(|s| s.status == ServiceStatus::Dark)
        .flat_map(|s| s.ips.iter().map(CompactString::as_str))
        .collect();
    dark.sort_unstable();
    dark.dedup();
    let already = match dark.len() {
        0 => String::new(),
        1 => "1 IP is dark already; of the rest, ".to_string(),
        n => format!("{n} IPs are dark already; of the rest, "),
    };
    let announced = report
        .services
        .iter()
        .filter(|s| s.status != ServiceStatus::Dark)
        .flat_map(|s| s.ips.iter().map(CompactString::as_str))
        .filter(|ip| !dark.contains(ip))
        .count();
    if nodes.is_empty() {
        return match (dark.len(), announced) {
            (0, _) => writeln!(out, "  none: every announced IP has another node to take over."),
            (n, 0) => writeln!(out, "  none to lose: all {n} IPs are dark already (see CAUSES)."),
            _ => writeln!(out, "  none: {already}every announced one has another node to take over."),
        };
    }
    if !already.is_empty() {
        writeln!(out, "  {already}these lose their announcer with one node:")?;
    }
    let mut t = new_table(paint, &["NODE", "IPS LOST", "SERVICES", "CAUSE"]);
    for n in nodes {
        let mut services: Vec<String> = n.losses.iter().map(|c| format!("{}/{}", c.namespace, c.name)).collect();
        services.dedup();
        let mut causes: Vec<&str> = n.losses.iter().filter_map(|c| c.cause.as_deref()).collect();
        causes.sort_unstable();
        causes.dedup();
        t.add_row(vec![
            Cell::new(&n.node),
            Cell::new(n.ips).fg(Color::Red),
            Cell::new(name_list(&services, services.len(), 5)),
            Cell::new(if causes.is_empty() { "-".into() } else { causes.join(",") }),
        ]);
    }
    print_table(out, &t)
}
