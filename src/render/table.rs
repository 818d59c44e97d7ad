//! kubectl-style tables and the prose around them.

use std::collections::BTreeMap;
use std::io::Write;

use comfy_table::{Cell, Color};

use super::style::{findings, hang_words, mark, name_list, new_table, print_rows, print_table, wrapped, Paint};
use crate::report::{
    AllocationStatus, Bgp, BgpNode, BgpReason, Code, Exclusion, FamilyUsage, L2Node, L2Reason, Layer2, ObjectRef,
    PoolsReport, Report, ServiceReport, ServiceStatus,
};

fn has(n: &L2Node, x: Exclusion) -> bool {
    n.excluded_by.contains(&x)
}

/// The words for one node's outcome.
fn node_verdict(n: &L2Node, l2: &Layer2) -> String {
    if n.reason == Some(L2Reason::Announce) {
        return "announces".into();
    }
    if n.rank == Some(1) {
        return "elected, but runs no live speaker: nobody answers".into();
    }
    let reasons: Vec<&str> =
        n.excluded_by.iter().filter(|&&c| c != Exclusion::LostElection).map(|c| c.words()).collect();
    if !reasons.is_empty() {
        return format!("excluded: {}", reasons.join(", "));
    }
    match (&l2.expected_announcer, n.rank) {
        (Some(w), Some(_))
            if n.score.is_some_and(|s| s > 0) || l2.ranks.first().and_then(|f| f.score).is_some_and(|s| s > 0) =>
        {
            format!("lost the election to {w} (preference score, then hash)")
        }
        (Some(w), Some(_)) => format!("lost the election to {w}"),
        _ => "does not announce".into(),
    }
}

pub fn service(out: &mut dyn Write, report: &Report, wide: bool, paint: Paint) -> std::io::Result<()> {
    for svc in &report.services {
        header(out, report, svc, paint)?;
        super::cilium::ownership(out, &svc.ownership, paint)?;
        if let Some(why) = svc.metallb.as_ref().and_then(|m| m.unknown_because.as_ref()) {
            writeln!(out, "Unknown: {why}.")?;
            findings(out, &svc.findings, paint)?;
            continue;
        }
        allocation_lines(out, svc, paint)?;
        let Some(m) = &svc.metallb else {
            if report.source.metallb.is_some() || (svc.cilium.is_none() && svc.servicelb.is_none()) {
                writeln!(out, "MetalLB does not handle this Service{}.", not_handled_why(report, svc))?;
            }
            super::cilium::sections(out, svc, cilium_devices(report), wide, paint)?;
            findings(out, &svc.findings, paint)?;
            continue;
        };
        if let Some(w) = &m.withdraw_reason {
            writeln!(out, "Every speaker withdraws this Service before any election: {}", paint.bad(w.as_str()))?;
        }
        if let Some(l2) = &m.layer2 {
            writeln!(
                out,
                "IP {}   pool {}   advertisements: {}",
                paint.bold(&l2.ip),
                m.pool.as_deref().unwrap_or("-"),
                if l2.advertisements.is_empty() { "none matching".to_string() } else { l2.advertisements.join(", ") }
            )?;
            wrapped(out, &l2.verdict.to_string(), paint, 2, true)?;
            observed_line(out, report, l2, paint)?;
            writeln!(out)?;
            match &l2.nodes {
                Some(nodes) => node_table(out, svc, l2, nodes, wide, paint)?,
                None => election_summary(out, report, l2, paint)?,
            }
        }
        if let Some(bgp) = &m.bgp {
            if m.layer2.is_some() {
                writeln!(out)?;
            }
            bgp_section(out, bgp, m.pool.as_deref(), paint)?;
        }
        if let Some(reason) = m.bgp_reason {
            if m.layer2.is_some() {
                writeln!(out)?;
            }
            let line = format!(
                "BGP   no BGPAdvertisement selects pool {}: every node's BGP handler answers {}",
                m.pool.as_deref().unwrap_or("-"),
                reason.as_str()
            );
            wrapped(out, &line, paint, 6, false)?;
        }
        super::cilium::sections(out, svc, cilium_devices(report), wide, paint)?;
        findings(out, &svc.findings, paint)?;
    }
    cluster_findings(out, report, paint)
}

/// Every node of one Service's election (`--nodes all`, `-o wide`).
fn node_table(
    out: &mut dyn Write,
    svc: &ServiceReport,
    l2: &Layer2,
    nodes: &[L2Node],
    wide: bool,
    paint: Paint,
) -> std::io::Result<()> {
    let mut head = vec!["RANK", "NODE", "SPEAKER", "NETWORK", "EXCLUDE-LB", "SELECTED"];
    let local = svc.external_traffic_policy.as_deref() == Some("Local");
    if local {
        head.push("LOCAL-EP");
    }
    head.extend(["HASH", "REASON", "VERDICT"]);
    if wide {
        head.extend(["ENDPOINTS", "ROLES"]);
    }
    let mut t = new_table(paint, &head);
    for n in nodes {
        let mut row = vec![
            Cell::new(n.rank.map(|r| r.to_string()).unwrap_or_else(|| "-".into())),
            Cell::new(&n.node),
            match n.speaker {
                Some(live) => mark(live),
                None => Cell::new("?"),
            },
            mark(!has(n, Exclusion::NetworkUnavailable)),
            if has(n, Exclusion::ExcludeLabel) || n.exclude_label_value.is_some() {
                let v = n.exclude_label_value.as_deref().unwrap_or("");
                let excluded = has(n, Exclusion::ExcludeLabel);
                let text = format!("{} (={v:?})", if excluded { "✗" } else { "✓" });
                Cell::new(text).fg(if excluded { Color::Red } else { Color::Green })
            } else {
                mark(true)
            },
            mark(!has(n, Exclusion::NotSelected)),
        ];
        if local {
            row.push(mark(!has(n, Exclusion::NoLocalEndpoint)));
        }
        let hash = n.hash.map(|h| if wide { h.to_string() } else { h.to_string()[..12].to_string() });
        row.push(Cell::new(hash.unwrap_or_else(|| "-".into())));
        row.push(Cell::new(match n.reason {
            Some(r) => format!("{:?}", r.as_str()),
            None => "(no speaker)".into(),
        }));
        let verdict = node_verdict(n, l2);
        let cell = Cell::new(&verdict);
        row.push(if n.reason == Some(L2Reason::Announce) { cell.fg(Color::Green) } else { cell });
        if wide {
            row.push(Cell::new(n.endpoints));
            row.push(Cell::new(if n.roles.is_empty() { "-".into() } else { n.roles.join(",") }));
        }
        t.add_row(row);
    }
    print_table(out, &t)
}

/// The head of the election order and one line per filter: what a Service's election comes to
/// without a row per node.
fn election_summary(out: &mut dyn Write, report: &Report, l2: &Layer2, paint: Paint) -> std::io::Result<()> {
    let speaker = |node: &str| report.nodes.iter().find(|n| &*n.name == node).and_then(|n| n.speaker);
    if !l2.ranks.is_empty() {
        let scored = l2.ranks.iter().any(|r| r.score.is_some_and(|s| s > 0));
        let mut head = vec!["RANK", "NODE", "SPEAKER", "HASH"];
        if scored {
            head.push("SCORE");
        }
        head.push("VERDICT");
        let mut t = new_table(paint, &head);
        let winner = l2.ranks[0].node.clone();
        for r in &l2.ranks {
            let live = speaker(&r.node);
            let mut row = vec![
                Cell::new(r.rank),
                Cell::new(&r.node),
                live.map_or_else(|| Cell::new("?"), mark),
                Cell::new(&r.hash.to_string()[..12]),
            ];
            if scored {
                row.push(Cell::new(r.score.unwrap_or(0)));
            }
            row.push(match (r.rank, live) {
                (1, Some(false)) => Cell::new("elected, but runs no live speaker: nobody answers").fg(Color::Red),
                (1, _) => Cell::new("announces").fg(Color::Green),
                _ => Cell::new(format!("lost the election to {winner}")),
            });
            t.add_row(row);
        }
        print_table(out, &t)?;
    }
    for g in l2.excluded.iter() {
        if g.excluded_by == Exclusion::LostElection && !l2.ranks.is_empty() {
            let unshown = g.count.saturating_sub(l2.ranks.len() - 1);
            if unshown > 0 {
                writeln!(out, "  … {unshown} more {} lost the election", if unshown == 1 { "node" } else { "nodes" })?;
            }
            continue;
        }
        let why = match g.excluded_by {
            Exclusion::MemberlistDisabled => "memberlist disabled: this release elects nobody without it",
            Exclusion::NoSpeaker => "no live speaker",
            Exclusion::NetworkUnavailable => "NetworkUnavailable=True",
            Exclusion::Cordoned => "cordoned (v0.14.9 drops unschedulable nodes)",
            Exclusion::ExcludeLabel => "excluded by the exclude-from-external-load-balancers label",
            Exclusion::NotSelected => "not selected by the Service's L2Advertisements",
            Exclusion::NoLocalEndpoint => "no local serving endpoint (externalTrafficPolicy Local)",
            Exclusion::NoServingEndpoint => "no serving endpoint",
            Exclusion::SharedIpRefused => "shared IP refused",
            Exclusion::LostElection => "lost the election",
        };
        let noun = if g.count == 1 { "node" } else { "nodes" };
        let names = g.nodes.as_deref().map(|n| format!(" ({})", name_list(n, g.count, 3))).unwrap_or_default();
        let line = format!("  {} {noun}: {why}{names}", g.count);
        wrapped(out, &line, paint, 4, false)?;
    }
    if l2.excluded.iter().any(|g| g.count > 3) || l2.ranks.len() > 1 {
        writeln!(out, "  (--nodes all or -o wide lists every node)")?;
    }
    Ok(())
}

/// BGP: rows are nodes, columns are the peers, cells the routes each session receives.
fn bgp_section(out: &mut dyn Write, bgp: &Bgp, pool: Option<&str>, paint: Paint) -> std::io::Result<()> {
    writeln!(
        out,
        "BGP   pool {}   advertisements: {}",
        pool.unwrap_or("-"),
        if bgp.advertisements.is_empty() { "none matching".to_string() } else { bgp.advertisements.join(", ") }
    )?;
    writeln!(out)?;
    match bgp.nodes.as_deref() {
        Some(nodes) => bgp_node_table(out, nodes, paint)?,
        None => {
            let line = format!(
                "  announcing: {}   peers receiving routes: {}",
                if bgp.announcing_count == 0 {
                    "no node".to_string()
                } else {
                    format!("{} ({})", bgp.announcing_count, name_list(&bgp.announcing, bgp.announcing_count, 5))
                },
                if bgp.peers.is_empty() { "none".to_string() } else { bgp.peers.join(", ") }
            );
            wrapped(out, &line, paint, 4, false)?;
            writeln!(out, "  (--nodes all or -o wide lists every node and session)")?;
            writeln!(out)?;
        }
    }
    match (&bgp.actual, bgp.actual_agrees) {
        (Some(actual), agrees) => {
            let said = if actual.is_empty() {
                "nobody".to_string()
            } else {
                actual.iter().map(|a| format!("{} → {}", a.node, a.peers.join(","))).collect::<Vec<_>>().join("; ")
            };
            let tail = if agrees == Some(true) {
                paint.good("agrees")
            } else {
                paint.bad(&format!("differs ({})", Code::LBD132))
            };
            wrapped(out, &format!("Observed (serviceBGPStatus): {said}, {tail}"), paint, 2, false)?;
        }
        (None, _) => writeln!(out, "Observed: unknown (no ServiceBGPStatus in the snapshot)")?,
    }
    writeln!(out, "{}", paint.bold(&bgp.verdict))
}

/// Every node's BGP sessions and routes (`--nodes all`, `-o wide`).
fn bgp_node_table(out: &mut dyn Write, nodes: &[BgpNode], paint: Paint) -> std::io::Result<()> {
    // Every peer some node runs a session with, in name order, with its type.
    let mut peers: BTreeMap<&str, Option<bool>> = BTreeMap::new();
    for n in nodes {
        for s in &n.sessions {
            peers.insert(&s.peer, s.ibgp);
        }
    }
    let mut head: Vec<String> = vec!["NODE".into(), "SPEAKER".into(), "REASON".into()];
    head.extend(peers.iter().map(|(p, ibgp)| match ibgp {
        Some(true) => format!("{p} (iBGP)"),
        Some(false) => format!("{p} (eBGP)"),
        None => p.to_string(),
    }));
    let head_refs: Vec<&str> = head.iter().map(String::as_str).collect();
    let mut t = new_table(paint, &head_refs);
    for n in nodes {
        let reason = match n.reason {
            Some(r) => {
                let mut text = format!("{:?}", r.as_str());
                if let Some([a, b]) = &n.conflicting {
                    text.push_str(&format!(" ({a} vs {b})"));
                }
                let cell = Cell::new(text);
                if r == BgpReason::Announce {
                    cell.fg(Color::Green)
                } else {
                    cell
                }
            }
            None => Cell::new("(no speaker)"),
        };
        let mut row = vec![
            Cell::new(&n.node),
            match n.speaker {
                Some(live) => mark(live),
                None => Cell::new("?"),
            },
            reason,
        ];
        for (peer, ibgp) in &peers {
            let cell = match n.sessions.iter().find(|s| s.peer == *peer) {
                None => "-".to_string(),
                Some(s) if s.routes.is_empty() => "(session, no route)".to_string(),
                Some(s) => s
                    .routes
                    .iter()
                    .map(|r| {
                        let mut text = r.prefix.clone();
                        if let Some(lp) = r.local_pref {
                            text.push_str(&format!(" lp {lp}"));
                            if *ibgp == Some(false) {
                                text.push_str(" (unused on eBGP)");
                            }
                        }
                        if !r.communities.is_empty() {
                            text.push_str(&format!(" [{}]", r.communities.join(" ")));
                        }
                        text
                    })
                    .collect::<Vec<_>>()
                    .join("\n"),
            };
            row.push(Cell::new(cell));
        }
        t.add_row(row);
    }
    print_table(out, &t)?;
    writeln!(out)?;
    let unused_pref = nodes
        .iter()
        .flat_map(|n| &n.sessions)
        .any(|s| s.ibgp != Some(true) && s.routes.iter().any(|r| r.local_pref.is_some()));
    if unused_pref {
        writeln!(out, "LOCAL_PREF is handed to every session but only iBGP peers receive it on the wire.")?;
    }
    Ok(())
}

/// The controller's side: what MetalLB assigns, or why it cannot.
fn allocation_lines(out: &mut dyn Write, svc: &ServiceReport, paint: Paint) -> std::io::Result<()> {
    let Some(a) = &svc.allocation else { return Ok(()) };
    let status = a.status.as_str().to_string();
    let status = match a.status {
        AllocationStatus::Allocated => paint.good(&status),
        AllocationStatus::NotOurs => status,
        _ => paint.bad(&status),
    };
    let ips = match (&a.expected_ips, &a.possible_outcomes) {
        (Some(ips), _) if !ips.is_empty() => ips.join(", "),
        (_, Some(list)) => {
            list.iter().map(|o| format!("{} ({})", o.ips.join(", "), o.pool)).collect::<Vec<_>>().join(" or ")
        }
        _ => "none".into(),
    };
    writeln!(
        out,
        "Allocation {status} ({})   pool {}   MetalLB's IPs: {ips}",
        a.reason,
        a.pool.as_deref().unwrap_or("-")
    )?;
    writeln!(out, "  {}", a.detail)?;
    if let Some(e) = &a.metallb_event {
        writeln!(out, "  MetalLB's event: {} {} {:?}", e.type_, e.reason, e.message)?;
    }
    if let Some(logged) = &a.controller_log {
        let at = logged.at.as_deref().map(|t| format!(" at {t}")).unwrap_or_default();
        writeln!(out, "  MetalLB's controller logged{at}: IP allocation failed: {}", logged.error)?;
    }
    writeln!(out)
}

fn not_handled_why(report: &Report, svc: &ServiceReport) -> String {
    match &report.source.metallb {
        None => ": no MetalLB installation in the snapshot".into(),
        Some(m) => format!(
            ": its loadBalancerClass is {} and the speakers run with --lb-class={:?}",
            svc.load_balancer_class.as_deref().map(|c| format!("{c:?}")).unwrap_or_else(|| "unset".into()),
            m.lb_class
        ),
    }
}

fn header(out: &mut dyn Write, report: &Report, svc: &ServiceReport, paint: Paint) -> std::io::Result<()> {
    let title = format!("Service {}/{}", svc.namespace, svc.name);
    let rest = format!(
        "{}   externalTrafficPolicy={}   implementation={}",
        svc.type_,
        svc.external_traffic_policy.as_deref().unwrap_or("Cluster (unset)"),
        svc.implementation.as_str()
    );
    match paint.width {
        Some(w) if title.chars().count() + 3 + rest.chars().count() > w => {
            writeln!(out, "{}", paint.bold(&title))?;
            wrapped(out, &format!("  {rest}"), paint, 2, false)?;
        }
        _ => writeln!(out, "{}   {rest}", paint.bold(&title))?,
    }
    if let Some(m) = &report.source.metallb {
        let speakers = match (m.live_speakers, m.speaker_pods) {
            (Some(l), Some(t)) => format!("{l}/{t} speakers live"),
            _ => "speakers assumed on every node".into(),
        };
        let memberlist =
            serde_json::to_value(m.memberlist).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default();
        let line = format!(
            "MetalLB {} in {} ({} rules: {})   memberlist {memberlist}   {speakers}",
            m.version.as_deref().unwrap_or("(version unknown)"),
            m.namespace,
            m.behaviour,
            m.behaviour_reason,
        );
        wrapped(out, &line, paint, 2, false)?;
        // Allocation follows the controller: say so when its rules are not the speakers'.
        if m.controller_behaviour != m.behaviour {
            let line = format!("  controller: {} rules ({})", m.controller_behaviour, m.controller_behaviour_reason);
            wrapped(out, &line, paint, 4, false)?;
        }
    }
    for a in &report.source.assumptions {
        wrapped(out, &format!("assumption: {a}"), paint, 2, false)?;
    }
    Ok(())
}

fn observed_line(out: &mut dyn Write, report: &Report, l2: &Layer2, paint: Paint) -> std::io::Result<()> {
    let Some(actual) = &l2.actual_announcers else {
        return match &l2.actual_unknown_because {
            Some(why) => writeln!(out, "Observed: unknown (could not read {why})"),
            None => writeln!(out, "Observed: unknown (no ServiceL2Status or nodeAssigned Event in the snapshot)"),
        };
    };
    let source = l2.actual_source.as_deref().unwrap_or("?");
    let said = if actual.is_empty() { "nobody".to_string() } else { actual.join(", ") };
    // A winner without a live speaker answers nothing: compare with who really answers (as LBD105 does).
    let answering = l2
        .expected_announcer
        .as_ref()
        .filter(|e| report.nodes.iter().find(|n| *n.name == ***e).is_none_or(|n| n.speaker != Some(false)));
    let agrees = match answering {
        Some(e) => actual.len() == 1 && actual[0] == e,
        None => actual.is_empty(),
    };
    let tail = if agrees {
        paint.good("agrees with the election")
    } else {
        paint.bad(&format!("differs from the election ({})", Code::LBD105))
    };
    writeln!(out, "Observed ({source}): {said}, {tail}")
}

fn cluster_findings(out: &mut dyn Write, report: &Report, paint: Paint) -> std::io::Result<()> {
    if report.findings.is_empty() {
        return Ok(());
    }
    writeln!(out, "{}", paint.bold("Cluster findings:"))?;
    for f in &report.findings {
        writeln!(out, "{} {}: {}", paint.severity(f.severity), paint.bold(f.code.as_str()), f.message)?;
        writeln!(out, "    objects: {}", ObjectRef::join(&f.objects, ", "))?;
        writeln!(out, "    hint: {}", f.hint)?;
    }
    Ok(())
}

fn cilium_devices(report: &Report) -> Option<&[String]> {
    report.source.cilium.as_ref().and_then(|c| c.devices.as_deref())
}

/// Causes the table lists before it counts the rest.
const CAUSES_SHOWN: usize = 10;

/// `check`'s first section: each root cause once, with the Services it darkens and its fix.
fn causes(out: &mut dyn Write, report: &Report, paint: Paint) -> std::io::Result<()> {
    if report.causes.is_empty() && report.suppressed.is_empty() {
        return Ok(());
    }
    writeln!(out, "{}", paint.bold("CAUSES"))?;
    // A long list is counted: the worst come first, -o json (and -o wide) has every one.
    let shown = if paint.width.is_none() { usize::MAX } else { CAUSES_SHOWN };
    for c in report.causes.iter().take(shown) {
        // Never cut: the message wraps under the code, the fix under itself, between words.
        let line = format!("{:<8} {}   {}: {}", c.severity.as_str(), c.code, c.object, c.message);
        for (i, text) in hang_words(&line, paint.width, 9).iter().enumerate() {
            let text =
                if i == 0 { text.replacen(c.severity.as_str(), &paint.severity(c.severity), 1) } else { text.clone() };
            writeln!(out, "{text}")?;
        }
        let mut line = format!("{:9}fix: {}", "", c.fix);
        let n = c.services.len();
        if n > 0 {
            let noun = if n == 1 { "Service" } else { "Services" };
            line.push_str(&format!("   ({n} {noun}: {})", name_list(&c.services, n, n.min(5))));
        }
        for text in hang_words(&line, paint.width, 14) {
            writeln!(out, "{text}")?;
        }
    }
    if report.causes.len() > shown {
        let mut by_code: BTreeMap<crate::report::Code, usize> = BTreeMap::new();
        for c in &report.causes[shown..] {
            *by_code.entry(c.code).or_default() += 1;
        }
        let codes: Vec<String> = by_code.iter().map(|(code, n)| format!("{n}× {code}")).collect();
        let line = format!(
            "… {} more causes ({}); -o wide lists every one, -o json every one with its Services",
            report.causes.len() - shown,
            codes.join(", ")
        );
        for text in hang_words(&line, paint.width, 2) {
            writeln!(out, "{text}")?;
        }
    }
    // Suppressed cluster findings have no Service row to show their code in parentheses.
    for s in &report.suppressed {
        let f = &s.finding;
        let object = f.objects.first().map(ToString::to_string).unwrap_or_default();
        let line = format!("{:<8} ({})   {object}: suppressed: {}", f.severity.as_str(), f.code, s.suppression.reason);
        for text in hang_words(&line, paint.width, 9) {
            writeln!(out, "{text}")?;
        }
    }
    writeln!(out)
}

/// Past this many Services, `check` in a terminal lists the problems first and counts the rest.
const SCREEN: usize = 40;

/// `check: Some(all)` is `check` (CAUSES, summary; `all`: every Service even on a large
/// cluster), `None` is `explain svc -A`.
pub fn services(
    out: &mut dyn Write,
    report: &Report,
    wide: bool,
    paint: Paint,
    check: Option<bool>,
) -> std::io::Result<()> {
    let (check, all) = (check.is_some(), check.unwrap_or(true));
    // A large cluster's few broken Services first, worst first; the healthy ones counted. Small
    // clusters, pipes, -o wide, --no-headers and --all keep every row in name order.
    let crowded =
        check && !all && !wide && !paint.no_headers && paint.width.is_some() && report.services.len() > SCREEN;
    let mut rows: Vec<&ServiceReport> = report.services.iter().collect();
    if crowded {
        let worst = |s: &ServiceReport| s.findings.iter().map(|f| f.severity).max();
        rows.retain(|s| s.status != ServiceStatus::Ok || !s.findings.is_empty());
        rows.sort_by_key(|s| std::cmp::Reverse(worst(s)));
    }
    let hidden = report.services.len() - rows.len();
    // --no-headers is for scripts reading the rows, as kubectl's: the rows alone.
    if check && !paint.no_headers {
        causes(out, report, paint)?;
    }
    let mut head = vec!["NAMESPACE", "NAME", "IP", "ANNOUNCER", "OBSERVED", "STATUS", "FINDINGS"];
    if wide {
        head.extend(["POOL", "POLICY", "CANDIDATES", "ADVERTISEMENTS", "REASON"]);
    }
    let mut lines: Vec<Vec<String>> = Vec::with_capacity(rows.len());
    for svc in &rows {
        let m = svc.metallb.as_ref();
        let l2 = m.and_then(|m| m.layer2.as_ref());
        let codes = svc.finding_codes();
        let mut row = vec![
            svc.namespace.to_string(),
            svc.name.to_string(),
            if svc.ips.is_empty() { "<pending>".into() } else { svc.ips.join(",") },
            svc.announcer.to_string(),
            svc.observed.to_string(),
            svc.status.as_str().to_string(),
            if codes.is_empty() { "-".into() } else { codes.join(",") },
        ];
        if wide {
            row.push(m.and_then(|m| m.pool.as_deref()).unwrap_or("-").to_string());
            row.push(svc.external_traffic_policy.as_deref().unwrap_or("-").to_string());
            row.push(l2.map(|l| l.candidates.to_string()).unwrap_or_else(|| "-".into()));
            row.push(l2.map(|l| l.advertisements.join(",")).filter(|s| !s.is_empty()).unwrap_or_else(|| "-".into()));
            row.push(
                m.and_then(|m| m.withdraw_reason.map(|w| w.as_str()))
                    .or_else(|| l2.and_then(|l| l.emptied_by.map(|x| x.as_str())))
                    .unwrap_or("-")
                    .to_string(),
            );
        }
        lines.push(row);
    }
    if report.services.is_empty() {
        writeln!(out, "No LoadBalancer Services found.")?;
    } else if hidden == report.services.len() {
        writeln!(out, "All {hidden} Services are ok: -o wide or --all lists them.")?;
    } else if paint.color {
        let mut t = new_table(paint, &head);
        for (svc, row) in rows.iter().zip(lines) {
            t.add_row(row.into_iter().enumerate().map(|(i, c)| {
                if i == STATUS {
                    status_cell(svc.status)
                } else {
                    Cell::new(c)
                }
            }));
        }
        print_table(out, &t)?;
    } else {
        print_rows(out, paint, &head, lines)?;
    }
    if hidden > 0 && hidden < report.services.len() {
        let noun = if hidden == 1 { "Service is" } else { "Services are" };
        writeln!(out, "… and {} more {noun} ok: -o wide or --all lists them", thousands(hidden))?;
    }
    if !check {
        return cluster_findings(out, report, paint);
    }
    if let Some(nodes) = &report.spof {
        super::simulate::spof(out, report, nodes, paint)?;
    }
    if paint.no_headers {
        return Ok(());
    }
    summary_line(out, report)?;
    next_line(out, report)
}

/// `10 services (10 dark): 20 errors, 3 warnings, 0 info; 4 causes`.
fn summary_line(out: &mut dyn Write, report: &Report) -> std::io::Result<()> {
    let s = &report.summary;
    let plural = |n: usize, word: &str| if n == 1 { format!("{n} {word}") } else { format!("{n} {word}s") };
    let not_ok: Vec<String> =
        s.by_status.iter().filter(|(w, _)| **w != "ok").map(|(w, n)| format!("{n} {w}")).collect();
    let states = if not_ok.is_empty() { String::new() } else { format!(" ({})", not_ok.join(", ")) };
    write!(
        out,
        "\n{}{states}: {}, {}, {} info; {}",
        plural(s.services, "service"),
        plural(s.findings.error, "error"),
        plural(s.findings.warning, "warning"),
        s.findings.info,
        plural(s.causes, "cause"),
    )?;
    match s.suppressed {
        0 => writeln!(out),
        n => writeln!(out, "; {n} suppressed (codes in parentheses; -o json has their reasons)"),
    }
}

/// The one command to run next.
fn next_line(out: &mut dyn Write, report: &Report) -> std::io::Result<()> {
    let next = match report.causes.first() {
        Some(c) => c.fix.clone(),
        None => match report.services.iter().find(|s| s.status != ServiceStatus::Ok) {
            Some(s) => format!("kubectl lbdoctor explain svc {} -n {}", s.name, s.namespace),
            None => "nothing to fix".into(),
        },
    };
    writeln!(out, "next: {next}")
}

fn usage(u: &FamilyUsage) -> String {
    match u.total {
        Some(0) => "-".into(),
        Some(t) => format!("{}/{t}", u.used),
        None if u.metallb_total == i64::MAX => format!("{}/unlimited", u.used),
        None => format!("{}/? (MetalLB counts {})", u.used, u.metallb_total),
    }
}

/// `explain pools`: a line per pool; `explain pool NAME`: holders and candidates too.
pub fn pools(out: &mut dyn Write, report: &PoolsReport, single: bool, wide: bool, paint: Paint) -> std::io::Result<()> {
    if report.pools.is_empty() && !single {
        writeln!(out, "No IPAddressPool that MetalLB's controller would use.")?;
    }
    if !single {
        let mut t = new_table(
            paint,
            &["NAME", "ADDRESSES", "IPV4 USED", "IPV6 USED", "AUTO", "RESTRICTED TO", "ADVERTISEMENTS", "FINDINGS"],
        );
        for p in &report.pools {
            let restricted = match (&p.namespaces, &p.service_selectors) {
                (None, _) => "-".to_string(),
                (Some(ns), sels) => {
                    let mut parts = Vec::new();
                    if !ns.is_empty() {
                        parts.push(format!("ns {}", ns.join(",")));
                    }
                    if let Some(s) = sels.as_ref().filter(|s| !s.is_empty()) {
                        parts.push(format!(
                            "svc {}",
                            s.iter()
                                .map(|x| if x.is_empty() { "(all)" } else { x.as_str() })
                                .collect::<Vec<_>>()
                                .join("; ")
                        ));
                    }
                    if let Some(pr) = p.priority.filter(|p| *p != 0) {
                        parts.push(format!("prio {pr}"));
                    }
                    if parts.is_empty() {
                        "nothing".into()
                    } else {
                        parts.join(" ")
                    }
                }
            };
            let mut ads: Vec<String> = p.l2_advertisements.iter().map(|a| format!("l2:{a}")).collect();
            ads.extend(p.bgp_advertisements.iter().map(|a| format!("bgp:{a}")));
            let codes: Vec<&str> = p.findings.iter().map(|f| f.code.as_str()).collect();
            t.add_row(vec![
                Cell::new(&p.name),
                Cell::new(p.addresses.join(" ")),
                Cell::new(usage(&p.ipv4)),
                Cell::new(usage(&p.ipv6)),
                mark(p.auto_assign),
                Cell::new(restricted),
                Cell::new(if ads.is_empty() { "none".into() } else { ads.join(" ") }),
                Cell::new(if codes.is_empty() { "-".into() } else { codes.join(",") }),
            ]);
        }
        print_table(out, &t)?;
        if !report.findings.is_empty() {
            writeln!(out)?;
        }
        return findings(out, &report.findings, paint);
    }
    for p in &report.pools {
        writeln!(out, "{}   {}", paint.bold(&format!("IPAddressPool {}", p.name)), p.addresses.join(" "))?;
        writeln!(
            out,
            "IPv4 {}   IPv6 {}   autoAssign {}   avoidBuggyIPs {}",
            usage(&p.ipv4),
            usage(&p.ipv6),
            p.auto_assign,
            p.avoid_buggy_ips
        )?;
        if let Some(ns) = &p.namespaces {
            writeln!(
                out,
                "serviceAllocation: priority {}   namespaces [{}]   serviceSelectors [{}]",
                p.priority.unwrap_or(0),
                ns.join(", "),
                p.service_selectors.clone().unwrap_or_default().join("; ")
            )?;
        }
        let c = &p.counters;
        let counters = format!(
            "assignedIPv4 {} assignedIPv6 {} availableIPv4 {} availableIPv6 {}",
            c.assigned_ipv4, c.assigned_ipv6, c.available_ipv4, c.available_ipv6
        );
        if p.status_written {
            writeln!(out, "status counters as MetalLB writes them: {counters}")?;
        } else {
            writeln!(out, "status: none, MetalLB writes it from v0.15.0 (which would write {counters})")?;
        }
        writeln!(out)?;
        if p.holders.is_empty() {
            writeln!(out, "No Service holds an address of this pool.")?;
        } else {
            let mut t = new_table(paint, &["IP", "HELD BY"]);
            let limit = if wide { usize::MAX } else { 100 };
            for h in p.holders.iter().take(limit) {
                t.add_row(vec![Cell::new(&h.ip), Cell::new(h.services.join(", "))]);
            }
            if p.holders.len() > limit {
                t.add_row(vec![
                    Cell::new(format!("… {} more", p.holders.len() - limit)),
                    Cell::new("-o wide or -o json lists them all"),
                ]);
            }
            print_table(out, &t)?;
        }
        let others: Vec<_> = p.services.iter().filter(|c| c.fit != "holds").collect();
        if !others.is_empty() {
            writeln!(out)?;
            // Large clusters: a few rows per verdict, the rest counted (-o json lists every one).
            let per_fit = if wide { usize::MAX } else { 20 };
            let mut shown: BTreeMap<&str, usize> = BTreeMap::new();
            let mut t = new_table(paint, &["SERVICE", "AUTOMATIC ALLOCATION", "WHY"]);
            for c in &others {
                let n = shown.entry(c.fit).or_default();
                *n += 1;
                if *n > per_fit {
                    continue;
                }
                let fit = if c.fit == "candidate" { paint.good(c.fit) } else { c.fit.to_string() };
                t.add_row(vec![Cell::new(&c.service), Cell::new(fit), Cell::new(&c.detail)]);
            }
            for (fit, n) in shown.iter().filter(|(_, n)| **n > per_fit) {
                t.add_row(vec![
                    Cell::new(format!("… {} more", n - per_fit)),
                    Cell::new(*fit),
                    Cell::new("-o wide or -o json lists them all"),
                ]);
            }
            print_table(out, &t)?;
        }
        findings(out, &p.findings, paint)?;
        writeln!(out)?;
    }
    Ok(())
}

/// The status word in its colour: red for what is broken, plain for what lbdoctor does not judge.
/// The STATUS column of the Services table.
const STATUS: usize = 5;

fn status_cell(status: ServiceStatus) -> Cell {
    let cell = Cell::new(status.as_str());
    match status {
        ServiceStatus::Ok => cell.fg(Color::Green),
        ServiceStatus::Dark | ServiceStatus::Error | ServiceStatus::Conflict => cell.fg(Color::Red),
        ServiceStatus::NotMetallb => cell,
        _ => cell.fg(Color::Yellow),
    }
}

/// `9013` → `9,013`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
