//! kubectl-style tables and the prose around them.

use std::collections::BTreeMap;
use std::io::Write;

use comfy_table::{Cell, Color};

use super::style::{compact_nodes, finding_row, findings, mark, new_table, print_table, Paint};
use crate::report::{
    AllocationStatus, Bgp, BgpReason, Code, Exclusion, FamilyUsage, Finding, L2Node, L2Reason, Layer2, ObjectRef,
    PoolsReport, Report, ServiceReport, ServiceStatus, Severity,
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
    let reasons: Vec<&str> = n
        .excluded_by
        .iter()
        .filter_map(|c| match *c {
            Exclusion::NoSpeaker => Some("no live speaker"),
            Exclusion::NetworkUnavailable => Some("NetworkUnavailable"),
            Exclusion::ExcludeLabel => Some("exclude-lb label"),
            Exclusion::NotSelected => Some("not selected"),
            Exclusion::NoLocalEndpoint => Some("no local endpoint"),
            Exclusion::NoServingEndpoint => Some("no serving endpoint"),
            Exclusion::SharedIpRefused => Some("shared IP refused"),
            Exclusion::LostElection => None,
        })
        .collect();
    if !reasons.is_empty() {
        return format!("excluded: {}", reasons.join(", "));
    }
    match (&l2.expected_announcer, n.rank) {
        (Some(w), Some(_))
            if n.score.is_some_and(|s| s > 0) || l2.nodes.first().and_then(|f| f.score).is_some_and(|s| s > 0) =>
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
            writeln!(out)?;
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
            for n in &l2.nodes {
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
            print_table(out, &t)?;
            writeln!(out)?;
            observed_line(out, l2, paint)?;
            writeln!(out, "{}", paint.bold(&l2.verdict))?;
        }
        if let Some(bgp) = &m.bgp {
            if m.layer2.is_some() {
                writeln!(out)?;
            }
            bgp_section(out, bgp, m.pool.as_deref(), paint)?;
        }
        super::cilium::sections(out, svc, cilium_devices(report), wide, paint)?;
        findings(out, &svc.findings, paint)?;
    }
    cluster_findings(out, report, paint)
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
    // Every peer some node runs a session with, in name order, with its type.
    let mut peers: BTreeMap<&str, Option<bool>> = BTreeMap::new();
    for n in &bgp.nodes {
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
    for n in &bgp.nodes {
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
    let unused_pref = bgp
        .nodes
        .iter()
        .flat_map(|n| &n.sessions)
        .any(|s| s.ibgp != Some(true) && s.routes.iter().any(|r| r.local_pref.is_some()));
    if unused_pref {
        writeln!(out, "LOCAL_PREF is handed to every session but only iBGP peers receive it on the wire.")?;
    }
    match &bgp.actual {
        None => writeln!(out, "Observed: unknown (no ServiceBGPStatus in the snapshot)")?,
        Some(actual) => {
            let said = if actual.is_empty() {
                "nobody".to_string()
            } else {
                actual.iter().map(|a| format!("{} → {}", a.node, a.peers.join(","))).collect::<Vec<_>>().join("; ")
            };
            let expected: Vec<(String, Vec<String>)> = bgp
                .nodes
                .iter()
                .filter(|n| n.announces)
                .map(|n| {
                    let mut p: Vec<String> =
                        n.sessions.iter().filter(|s| !s.routes.is_empty()).map(|s| s.peer.clone()).collect();
                    p.sort();
                    p.dedup();
                    (n.node.to_string(), p)
                })
                .filter(|(_, p)| !p.is_empty())
                .collect();
            let agrees = actual.len() == expected.len()
                && actual.iter().zip(&expected).all(|(a, (n, p))| &a.node == n && &a.peers == p);
            let tail = if agrees { paint.good("agrees") } else { paint.bad(&format!("differs ({})", Code::LBD132)) };
            writeln!(out, "Observed (serviceBGPStatus): {said}, {tail}")?;
        }
    }
    writeln!(out, "{}", paint.bold(&bgp.verdict))
}

/// The controller's side: what MetalLB assigns, or why it cannot.
fn allocation_lines(out: &mut dyn Write, svc: &ServiceReport, paint: Paint) -> std::io::Result<()> {
    let Some(a) = &svc.allocation else { return Ok(()) };
    let status = serde_json::to_value(a.status).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default();
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
    writeln!(
        out,
        "{}   {}   externalTrafficPolicy={}   implementation={}",
        paint.bold(&format!("Service {}/{}", svc.namespace, svc.name)),
        svc.type_,
        svc.external_traffic_policy.as_deref().unwrap_or("Cluster (unset)"),
        serde_json::to_value(svc.implementation).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default()
    )?;
    if let Some(m) = &report.source.metallb {
        let speakers = match (m.live_speakers, m.speaker_pods) {
            (Some(l), Some(t)) => format!("{l}/{t} speakers live"),
            _ => "speakers assumed on every node".into(),
        };
        let memberlist =
            serde_json::to_value(m.memberlist).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default();
        writeln!(
            out,
            "MetalLB {} in {} ({} rules: {})   memberlist {memberlist}   {speakers}",
            m.version.as_deref().unwrap_or("(version unknown)"),
            m.namespace,
            serde_json::to_value(m.behaviour).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default(),
            m.behaviour_reason,
        )?;
    }
    for a in &report.source.assumptions {
        writeln!(out, "assumption: {a}")?;
    }
    Ok(())
}

fn observed_line(out: &mut dyn Write, l2: &Layer2, paint: Paint) -> std::io::Result<()> {
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
        .filter(|e| l2.nodes.iter().find(|n| *n.node == ***e).is_none_or(|n| n.speaker != Some(false)));
    let agrees = match answering {
        Some(e) => actual.len() == 1 && &actual[0] == e,
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

pub fn services(out: &mut dyn Write, report: &Report, wide: bool, paint: Paint, check: bool) -> std::io::Result<()> {
    let mut head = vec!["NAMESPACE", "NAME", "IP", "ANNOUNCER", "OBSERVED", "STATUS", "FINDINGS"];
    if wide {
        head.extend(["POOL", "POLICY", "CANDIDATES", "ADVERTISEMENTS", "REASON"]);
    }
    let mut t = new_table(paint, &head);
    for svc in &report.services {
        let m = svc.metallb.as_ref();
        let l2 = m.and_then(|m| m.layer2.as_ref());
        let bgp = m.and_then(|m| m.bgp.as_ref());
        let mut announcer = l2.map(|l| l.expected_announcer.clone().unwrap_or_else(|| "<none>".into()));
        let mut observed = l2
            .and_then(|l| l.actual_announcers.as_ref())
            .map(|a| if a.is_empty() { "<none>".into() } else { a.join(",") })
            .or(l2.map(|_| "?".into()));
        if let Some(b) = bgp {
            let add = |slot: &mut Option<String>, text: String| {
                *slot = Some(match slot.take() {
                    Some(l2) => format!("{l2} bgp:{text}"),
                    None => format!("bgp:{text}"),
                });
            };
            add(&mut announcer, compact_nodes(&b.announcing, wide));
            let seen = b.actual.as_ref().map(|a| a.iter().map(|x| x.node.clone()).collect::<Vec<_>>());
            add(&mut observed, seen.map(|s| compact_nodes(&s, wide)).unwrap_or_else(|| "?".into()));
        }
        if let (None, Some((a, o))) = (&announcer, super::cilium::compact(svc, wide)) {
            announcer = Some(a);
            observed = Some(o);
        }
        let announcer = announcer.unwrap_or_else(|| "-".into());
        let observed = observed.unwrap_or_else(|| "?".into());
        let st_cell = status_cell(svc.status);
        let codes: Vec<String> = svc
            .findings
            .iter()
            .map(|f| f.code.to_string())
            .chain(svc.suppressed.iter().map(|s| format!("({})", s.finding.code)))
            .collect();
        let mut row = vec![
            Cell::new(&svc.namespace),
            Cell::new(&svc.name),
            Cell::new(if svc.ips.is_empty() { "<pending>".into() } else { svc.ips.join(",") }),
            Cell::new(announcer),
            Cell::new(observed),
            st_cell,
            Cell::new(if codes.is_empty() { "-".into() } else { codes.join(",") }),
        ];
        if wide {
            row.push(Cell::new(m.and_then(|m| m.pool.clone()).unwrap_or_else(|| "-".into())));
            row.push(Cell::new(svc.external_traffic_policy.as_deref().unwrap_or("-")));
            row.push(Cell::new(l2.map(|l| l.candidates.to_string()).unwrap_or_else(|| "-".into())));
            row.push(Cell::new(
                l2.map(|l| l.advertisements.join(",")).filter(|s| !s.is_empty()).unwrap_or_else(|| "-".into()),
            ));
            row.push(Cell::new(
                m.and_then(|m| m.withdraw_reason.map(|w| w.as_str()))
                    .or_else(|| l2.and_then(|l| l.emptied_by.map(|x| x.as_str())))
                    .unwrap_or("-"),
            ));
        }
        t.add_row(row);
    }
    if report.services.is_empty() {
        writeln!(out, "No LoadBalancer Services found.")?;
    } else {
        print_table(out, &t)?;
    }
    if check {
        // Suppressed cluster findings have no Service row to show their code in parentheses.
        let mut sorted: Vec<(bool, &Finding)> = report
            .all_findings()
            .map(|f| (false, f))
            .chain(report.suppressed.iter().map(|s| (true, &s.finding)))
            .collect();
        if !sorted.is_empty() {
            writeln!(out)?;
            let mut ft = new_table(paint, &["SEVERITY", "CODE", "OBJECT", "MESSAGE"]);
            sorted.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.severity.cmp(&a.1.severity)).then(a.1.code.cmp(&b.1.code)));
            for (suppressed, f) in &sorted {
                let code = if *suppressed { format!("({})", f.code) } else { f.code.to_string() };
                ft.add_row(finding_row(f, code));
            }
            print_table(out, &ft)?;
        }
        let count = |s: Severity| report.all_findings().filter(|f| f.severity == s).count();
        let plural = |n: usize, word: &str| if n == 1 { format!("{n} {word}") } else { format!("{n} {word}s") };
        write!(
            out,
            "\n{}: {}, {}, {} info",
            plural(report.services.len(), "service"),
            plural(count(Severity::Error), "error"),
            plural(count(Severity::Warning), "warning"),
            count(Severity::Info)
        )?;
        match report.all_suppressed().count() {
            0 => writeln!(out)?,
            n => writeln!(out, "; {n} suppressed (codes in parentheses; -o json has their reasons)")?,
        }
    } else {
        cluster_findings(out, report, paint)?;
    }
    Ok(())
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
        writeln!(
            out,
            "status counters as MetalLB writes them: assignedIPv4 {} assignedIPv6 {} availableIPv4 {} availableIPv6 {}",
            p.counters.assigned_ipv4, p.counters.assigned_ipv6, p.counters.available_ipv4, p.counters.available_ipv6
        )?;
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
fn status_cell(status: ServiceStatus) -> Cell {
    let cell = Cell::new(status.as_str());
    match status {
        ServiceStatus::Ok => cell.fg(Color::Green),
        ServiceStatus::Dark | ServiceStatus::Error | ServiceStatus::Conflict => cell.fg(Color::Red),
        ServiceStatus::NotMetallb => cell,
        _ => cell.fg(Color::Yellow),
    }
}
