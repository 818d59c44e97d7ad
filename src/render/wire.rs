//! `arping` results and `announce --dry-run` plans.

use std::io::Write;

use super::style::{findings, new_table, Paint};
use super::{document, Format};
use crate::report::IpContext;
use crate::report::{AnnouncePlan, ArpingReport};

pub fn arping(out: &mut dyn Write, r: &ArpingReport, format: Format, paint: Paint) -> std::io::Result<()> {
    if matches!(format, Format::Json | Format::Yaml) {
        return document(out, r, format);
    }
    writeln!(
        out,
        "{} on {}: {} over {:.1}s, {} answered",
        paint.bold(&r.ip),
        r.interface,
        match (r.requests, r.ip.contains(':')) {
            (1, true) => "1 neighbor solicitation".to_string(),
            (n, true) => format!("{n} neighbor solicitations"),
            (1, false) => "1 ARP request".to_string(),
            (n, false) => format!("{n} ARP requests"),
        },
        r.window_ms as f64 / 1000.0,
        match r.replies.len() {
            0 => "no MAC".to_string(),
            1 => "1 MAC".to_string(),
            n => format!("{n} MACs"),
        }
    )?;
    if !r.replies.is_empty() {
        writeln!(out)?;
        let mut t = new_table(paint, &["MAC", "REPLIES", "FIRST", "LAST", "NODE"]);
        for (reply, answer) in r.replies.iter().zip(&r.answers) {
            let node = match (&answer.node, &answer.node_source) {
                (Some(node), Some(source)) => format!("{node} ({})", source_words(source)),
                _ => "unknown".into(),
            };
            t.add_row(vec![
                reply.mac.to_string(),
                reply.count.to_string(),
                format!("{:.1}ms", reply.first_ms),
                format!("{:.1}ms", reply.last_ms),
                node,
            ]);
        }
        writeln!(out, "{t}")?;
    }
    writeln!(out)?;
    match (&r.cluster, &r.cluster_unknown_because) {
        (Some(ctx), _) => context(out, ctx, None)?,
        (None, Some(why)) => writeln!(out, "Cluster: unknown ({why})")?,
        (None, None) => writeln!(out, "Cluster: unknown")?,
    }
    let expected = r
        .cluster
        .as_ref()
        .and_then(|c| c.services.iter().find(|s| s.protocol == "layer2"))
        .and_then(|s| s.expected_announcer.as_deref());
    let verdict = match (r.replies.len(), r.matches_election, r.answers.first()) {
        (0, ..) => paint.bad("nobody answers"),
        (1, Some(true), Some(a)) => {
            paint.good(&format!("one MAC answers: the elected node ({})", a.node.as_deref().unwrap_or_default()))
        }
        (1, Some(false), Some(a)) => {
            let owner = a.node.as_deref().unwrap_or_default();
            let owner = match a.node_source.as_deref() {
                Some("macMap") | None => format!("it is {owner}'s"),
                Some(source) => format!("it is presumably {owner}'s ({})", source_words(source)),
            };
            paint.bad(&format!("one MAC answers, but {owner}, not the elected {}'s", expected.unwrap_or("nobody")))
        }
        (1, _, _) => match expected {
            Some(e) => format!(
                "one MAC answers; whether it is the elected node's ({e}) is unknown: name its node with --mac-map"
            ),
            None => "one MAC answers".to_string(),
        },
        (n, ..) => paint.bad(&format!("split brain: {n} MACs answer")),
    };
    writeln!(out, "Verdict: {verdict}")?;
    findings(out, &r.findings, paint)
}

fn source_words(source: &str) -> &str {
    match source {
        "macMap" => "mac-map",
        "serviceL2Status" => "per ServiceL2Status",
        "events" => "per Events",
        "speakerLogs" => "per speaker logs",
        "lease" => "per Lease",
        other => other,
    }
}

fn context(out: &mut dyn Write, ctx: &IpContext, ip: Option<&str>) -> std::io::Result<()> {
    let prefix = ip.map(|ip| format!("{ip}: ")).unwrap_or_default();
    let pools = match &ctx.pools {
        Some(p) if p.is_empty() => "in no pool".to_string(),
        Some(p) => format!("pool {}", p.join(", ")),
        None => "pool unknown (MetalLB's configuration does not parse)".to_string(),
    };
    if ctx.services.is_empty() {
        return writeln!(out, "Cluster: {prefix}no Service holds it; {pools}");
    }
    for s in &ctx.services {
        let imp = s.implementation.as_str();
        let expected = match (s.protocol, &s.expected_announcer) {
            ("layer2", Some(n)) => format!("; the election picks {n}"),
            ("layer2", None) => "; the election picks nobody".to_string(),
            _ => String::new(),
        };
        let reported = match (&s.actual_announcers, &s.actual_source) {
            (Some(a), Some(source)) if !a.is_empty() => {
                format!("; {} reports {}", source_words(source).trim_start_matches("per "), a.join(", "))
            }
            _ => String::new(),
        };
        writeln!(
            out,
            "Cluster: {prefix}{}/{} ({imp}, {}){expected}{reported}; {pools}",
            s.namespace, s.name, s.protocol
        )?;
    }
    Ok(())
}

pub fn plan(out: &mut dyn Write, p: &AnnouncePlan, format: Format, paint: Paint) -> std::io::Result<()> {
    if matches!(format, Format::Json | Format::Yaml) {
        return document(out, p, format);
    }
    writeln!(out, "{}", paint.bold("announce --dry-run: nothing is sent and nothing answered."))?;
    let from = p.link_local.as_ref().map(|l| format!(", NDP from {l}")).unwrap_or_default();
    writeln!(out, "Interface: {} ({}{from})", p.interface, p.mac)?;
    writeln!(out)?;
    let mut t = new_table(paint, &["IP", "ANSWERS", "GRATUITOUS FRAMES PER BURST"]);
    for ip in &p.ips {
        let answers = if ip.protocol == "arp" { "ARP requests" } else { "neighbor solicitations" };
        t.add_row(vec![ip.ip.clone(), answers.to_string(), ip.gratuitous_frames.join(", ")]);
    }
    writeln!(out, "{t}")?;
    writeln!(out)?;
    let refuse =
        if p.force { "answers even if another MAC does (--force)" } else { "refuses (exit 1) if another MAC answers" };
    writeln!(out, "First:  asks who answers for each IP for {:.1}s; {refuse}", p.probe_window_ms as f64 / 1000.0)?;
    let at: Vec<String> = p.gratuitous_at_ms.iter().map(|ms| format!("{}", *ms as f64 / 1000.0)).collect();
    writeln!(
        out,
        "Then:   gratuitous bursts at {} s; replies with {} to every request for the IPs",
        at.join(", "),
        p.mac
    )?;
    match p.duration_seconds {
        Some(s) => writeln!(out, "For:    {}, or until SIGINT/SIGTERM", go_duration(s))?,
        None => writeln!(out, "For:    until SIGINT/SIGTERM")?,
    }
    writeln!(out, "Never:  changes the host's addresses, routes or interface settings")?;
    writeln!(out)?;
    match (&p.cluster, &p.cluster_unknown_because) {
        (Some(set), _) => {
            for (ip, ctx) in &set.0 {
                context(out, ctx, Some(ip))?;
            }
        }
        (None, Some(why)) => writeln!(out, "Cluster: unknown ({why})")?,
        (None, None) => writeln!(out, "Cluster: unknown")?,
    }
    findings(out, &p.findings, paint)
}

/// Seconds as Go prints a duration (`10m0s`, `1h30m0s`, `1.5s`), the way flags are written.
fn go_duration(seconds: f64) -> String {
    let whole = seconds.trunc() as u64;
    if seconds.fract() != 0.0 || whole < 60 {
        return format!("{seconds}s");
    }
    let (h, m, s) = (whole / 3600, whole % 3600 / 60, whole % 60);
    if h > 0 {
        format!("{h}h{m}m{s}s")
    } else {
        format!("{m}m{s}s")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn durations_print_as_go_does() {
        assert_eq!(super::go_duration(600.0), "10m0s");
        assert_eq!(super::go_duration(5400.0), "1h30m0s");
        assert_eq!(super::go_duration(1.5), "1.5s");
        assert_eq!(super::go_duration(30.0), "30s");
    }
}
