//! Tables for Cilium's features and k3s ServiceLB in `explain svc NAME`.

use std::io::Write;

use comfy_table::{Cell, Color};

use super::style::{mark, new_table, print_table, Paint};
use crate::report::cilium::{l2, lbipam};
use crate::report::servicelb;
use crate::report::{Code, NodeIpam, Ownership, ServiceReport};

fn json_str<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default()
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "none".into()
    } else {
        items.join(", ")
    }
}

pub(super) fn ownership(out: &mut dyn Write, o: &Ownership, paint: Paint) -> std::io::Result<()> {
    let claimants: Vec<&str> = o.claimants.iter().map(|c| c.as_str()).collect();
    let who = match claimants.len() {
        0 => "no implementation claims it".to_string(),
        1 => format!("{} (its rules claim the Service)", claimants[0]),
        _ => paint.bad(&format!("claimed by {} ({})", claimants.join(" and "), Code::LBD120)),
    };
    let writers: Vec<String> = o
        .status_writers
        .iter()
        .map(|w| format!("{}{}", w.manager, w.time.as_deref().map(|t| format!(" at {t}")).unwrap_or_default()))
        .collect();
    let mut line = format!("Owner: {who}");
    if !writers.is_empty() {
        line.push_str(&format!("   status field managers: {}", writers.join(", ")));
    }
    writeln!(out, "{line}")?;
    if !o.evidence.is_empty() {
        writeln!(out, "  evidence: {}", o.evidence.join(", "))?;
    }
    Ok(())
}

pub(super) fn sections(
    out: &mut dyn Write,
    svc: &ServiceReport,
    devices: Option<&[String]>,
    wide: bool,
    paint: Paint,
) -> std::io::Result<()> {
    if let Some(c) = &svc.cilium {
        if let Some(n) = &c.nodeipam {
            node_ipam(out, n, paint)?;
        }
        if let Some(v) = &c.lbipam {
            lb_ipam(out, v, paint)?;
        }
        if let Some(v) = &c.l2 {
            l2_section(out, v, devices, wide, paint)?;
        }
    }
    if let Some(v) = &svc.servicelb {
        service_lb(out, v, paint)?;
    }
    Ok(())
}

fn node_ipam(out: &mut dyn Write, n: &NodeIpam, paint: Paint) -> std::io::Result<()> {
    writeln!(out)?;
    let selector = n.match_node_labels.as_deref().map(|s| format!("{s:?}")).unwrap_or_else(|| "-".into());
    if let Some(e) = &n.selector_error {
        writeln!(out, "{}   match-node-labels: {selector}", paint.bold("Cilium Node IPAM"))?;
        return writeln!(
            out,
            "  the selector does not parse ({e}): the reconcile fails, status stays {}",
            list(&n.actual_ingress)
        );
    }
    let choice = if n.chose_external {
        "ExternalIPs (some candidate has one)"
    } else if n.nodes.iter().all(|r| !r.used) {
        "none (no candidate node)"
    } else {
        "InternalIPs (no candidate has an ExternalIP)"
    };
    writeln!(out, "{}   match-node-labels: {selector}   addresses: {choice}", paint.bold("Cilium Node IPAM"))?;
    let agrees = if n.expected_ingress == n.actual_ingress { paint.good("agrees") } else { paint.bad("differs") };
    writeln!(
        out,
        "  expected ingress: {}   actual: {}   {agrees}",
        list(&n.expected_ingress),
        list(&n.actual_ingress)
    )?;
    if n.no_nodes_warning {
        writeln!(out, "  Cilium logs: level=WARN msg=\"No Nodes found with configured label selector\"")?;
    }
    writeln!(out)?;
    let mut t = new_table(paint, &["NODE", "USED", "ADDRESSES", "EXCLUDED-BY"]);
    for row in &n.nodes {
        let excluded: Vec<String> = row.excluded_by.iter().map(json_str).collect();
        t.add_row(vec![
            Cell::new(&row.node),
            mark(row.used),
            Cell::new(if row.addresses.is_empty() { "-".into() } else { row.addresses.join(",") }),
            Cell::new(if excluded.is_empty() { "-".into() } else { excluded.join(",") }),
        ]);
    }
    print_table(out, &t)
}

fn lb_ipam(out: &mut dyn Write, v: &lbipam::Verdict, paint: Paint) -> std::io::Result<()> {
    writeln!(out)?;
    let request = if v.requested_ips.is_empty() {
        format!("families {}", v.requested_families.join(","))
    } else {
        format!("addresses {}", v.requested_ips.join(","))
    };
    writeln!(
        out,
        "{}   requests {request}{}",
        paint.bold("Cilium LB-IPAM"),
        v.sharing_key.as_deref().map(|k| format!("   sharing key {k:?}")).unwrap_or_default()
    )?;
    let held: Vec<String> = v.held.iter().map(|h| format!("{} (pool {})", h.ip, h.pool)).collect();
    writeln!(out, "  holds: {}   removes: {}", list(&held), list(&v.stripped))?;
    for c in &v.contested {
        writeln!(out, "  contested: {} is also in the status of {} ({})", c.ip, c.with.join(", "), c.reason)?;
    }
    if !v.unparsable_requests.is_empty() {
        writeln!(out, "  skipped, not an IP: {}", v.unparsable_requests.join(", "))?;
    }
    let expected = match v.expected.reason {
        Some(r) => format!(
            "{} {}{}",
            v.expected.status,
            r.as_str(),
            if v.expected.message.is_empty() { String::new() } else { format!(" {:?}", v.expected.message) }
        ),
        None => v.expected.message.clone(),
    };
    let expected = match (v.satisfied, v.expected.reason) {
        (false, Some(lbipam::Reason::Satisfied)) => {
            format!("{expected} at its next reconcile (LB-IPAM holds no address for it yet)")
        }
        _ => expected,
    };
    let expected = if v.satisfied { paint.good(&expected) } else { paint.bad(&expected) };
    writeln!(out, "  condition expected: {expected}")?;
    match &v.actual {
        Some(a) => writeln!(out, "  condition actual:   {} {} {} {:?}", a.type_, a.status, a.reason, a.message)?,
        None => writeln!(out, "  condition actual:   none on the Service")?,
    }
    if !v.candidate_pools.is_empty() {
        writeln!(
            out,
            "  a new address may come from any of: {} (Cilium's pool order is random)",
            v.candidate_pools.join(", ")
        )?;
    }
    restart_line(out, v, paint)
}

/// What the next cilium-operator start leaves, next to what holds now.
fn restart_line(out: &mut dyn Write, v: &lbipam::Verdict, paint: Paint) -> std::io::Result<()> {
    let r = &v.restart;
    let now: Vec<&str> = v.held.iter().map(|h| h.ip.as_str()).collect();
    let unchanged = r.outcomes.len() == 1 && r.outcomes[0].condition.is_none() && r.outcomes[0].ingress == now;
    let options: Vec<String> = r
        .outcomes
        .iter()
        .map(|o| {
            let ingress = if o.ingress.is_empty() { "no address".to_string() } else { o.ingress.join(",") };
            match &o.condition {
                None => format!("{ingress} (condition kept)"),
                Some(c) => format!("{ingress} ({} {})", c.status, c.reason.map_or("", lbipam::Reason::as_str)),
            }
        })
        .collect();
    let text = if unchanged {
        "no change".to_string()
    } else if options.len() == 1 {
        options[0].clone()
    } else {
        format!("one of {}", options.join(" | "))
    };
    let text = if r.loses.is_empty() { text } else { paint.bad(&text).to_string() };
    writeln!(
        out,
        "  after an operator restart ({} rules{}): {text}",
        r.rules,
        if r.exhaustive { "" } else { ", sampled orders" }
    )
}

fn l2_section(
    out: &mut dyn Write,
    v: &l2::Verdict,
    devices: Option<&[String]>,
    wide: bool,
    paint: Paint,
) -> std::io::Result<()> {
    writeln!(out)?;
    let policies: Vec<String> = v
        .policies
        .iter()
        .map(|p| {
            if p.selects {
                format!("{} ✓", p.policy)
            } else {
                format!("{} ✗ ({})", p.policy, p.why_not.unwrap_or(""))
            }
        })
        .collect();
    writeln!(
        out,
        "{}   LB addresses: {}   externalIPs: {}   policies: {}",
        paint.bold("Cilium L2 announcements"),
        list(&v.lb_addresses),
        list(&v.external_addresses),
        if policies.is_empty() { "none".into() } else { policies.join(", ") }
    )?;
    if let Some(skip) = v.skipped {
        return writeln!(out, "  not announced: {}", json_str(&skip));
    }
    if let Some(lease) = &v.lease {
        let state = match (&lease.name, &lease.holder) {
            _ if !lease.leases_captured => {
                format!("Lease: unknown (the snapshot holds no Lease in {})", lease.namespace)
            }
            (None, _) => {
                format!("no Lease: neither {} nor {} exists in {}", lease.names[0], lease.names[1], lease.namespace)
            }
            (Some(name), None) => format!("Lease {}/{name}: no holder", lease.namespace),
            (Some(name), Some(h)) => {
                let fresh = match lease.fresh {
                    Some(true) => paint.good("fresh"),
                    Some(false) => paint.bad("expired"),
                    None => "freshness unknown".into(),
                };
                let eligible = match lease.holder_eligible {
                    Some(true) => paint.good("eligible"),
                    Some(false) => paint.bad("not eligible"),
                    None => "?".into(),
                };
                format!(
                    "Lease {}/{name}: holder {}, renewed {} for {}s, {fresh}, holder {eligible}",
                    lease.namespace,
                    paint.bold(h),
                    lease.renew_time.as_deref().unwrap_or("?"),
                    lease.lease_duration_seconds.map(|d| d.to_string()).unwrap_or_else(|| "?".into())
                )
            }
        };
        writeln!(out, "  {state}")?;
    }
    writeln!(
        out,
        "  no computed winner: every eligible agent races for the Lease; the first to write it answers ARP/NDP"
    )?;
    writeln!(out)?;
    let mut head = vec!["NODE", "ELIGIBLE", "POLICY", "AGENT-READY"];
    let local = v.etp_gate != l2::EtpGate::NotLocal;
    if local {
        head.push("LOCAL-EP");
    }
    head.extend(["EXCLUDE-LB", "INTERFACES"]);
    let mut t = new_table(paint, &head);
    for n in &v.nodes {
        let has = |x: l2::Exclusion| n.excluded_by.contains(&x);
        let mut row = vec![
            Cell::new(&n.node),
            mark(n.eligible),
            mark(!has(l2::Exclusion::NotSelectedByPolicy)),
            match n.agent_ready {
                Some(r) => mark(r),
                None => Cell::new("?"),
            },
        ];
        if local {
            row.push(match v.etp_gate {
                l2::EtpGate::Gated => mark(!has(l2::Exclusion::NoLocalEndpoint)),
                _ => Cell::new("not checked"),
            });
        }
        row.push(if n.exclude_label { Cell::new("set (ignored)").fg(Color::Yellow) } else { Cell::new("-") });
        let wildcard = devices.is_some_and(|d| d.iter().any(|x| x.ends_with('+')));
        row.push(Cell::new(match &n.interfaces {
            _ if has(l2::Exclusion::NotSelectedByPolicy) => "-".to_string(),
            Some(i) if i.is_empty() => "none match".to_string(),
            Some(i) => i.join(","),
            None if wildcard => "per node (devices use +)".into(),
            None => "auto-detected".into(),
        }));
        t.add_row(row);
    }
    if wide || !v.nodes.is_empty() {
        print_table(out, &t)?;
    }
    if v.nodes.iter().any(|n| n.exclude_label) {
        writeln!(
            out,
            "  note: node.kubernetes.io/exclude-from-external-load-balancers does not apply to Cilium L2 announcements"
        )?;
    }
    let namespace = v.lease.as_ref().map_or("kube-system", |l| l.namespace.as_str());
    if let Some(line) = v.interfaces.as_ref().and_then(|i| devices_line(i, namespace)) {
        writeln!(out, "  devices: {line}")?;
    }
    Ok(())
}

/// Which devices the leader announces on, when the INTERFACES column cannot say it whole: a
/// policy without `interfaces`, or devices each agent chooses for itself.
fn devices_line(i: &l2::Interfaces, namespace: &str) -> Option<String> {
    if i.source == l2::DeviceSource::Listed && i.every_device.is_empty() {
        return None;
    }
    let who = match i.every_device.as_slice() {
        [] => "the policies' interfaces are matched against the devices the leader's agent selected".to_string(),
        [one] => format!("policy {one} sets no interfaces, so the leader announces on every device its agent selected"),
        many => format!(
            "policies {} set no interfaces, so the leader announces on every device its agent selected",
            many.join(", ")
        ),
    };
    let how = match i.source {
        l2::DeviceSource::Listed => format!("cilium-config `devices` lists {}", i.devices.join(", ")),
        l2::DeviceSource::Wildcard => format!(
            "on each node, the devices whose names match cilium-config `devices` {} (`+` ends a prefix)",
            i.devices.join(", ")
        ),
        l2::DeviceSource::AutoDetected => "cilium-config sets no `devices`, so each agent picks its own: every device \
            that is up with an address and a global unicast route, except loopback, bond and bridge ports, bridges and \
            Open vSwitch, names starting cilium_, lo, lxc, cni or docker, and veth without a default route"
            .to_string(),
    };
    let check = match (i.source, &i.agent_pod) {
        (l2::DeviceSource::Listed, _) => String::new(),
        (_, pod) => format!(
            "; an agent's choice: `kubectl -n {namespace} exec {} -- cilium-dbg status --verbose`",
            pod.as_deref().unwrap_or("ds/cilium")
        ),
    };
    Some(format!("{who}: {how}{check}"))
}

fn service_lb(out: &mut dyn Write, v: &servicelb::Verdict, paint: Paint) -> std::io::Result<()> {
    writeln!(out)?;
    let agrees = if v.expected_ingress == v.actual_ingress { paint.good("agrees") } else { paint.bad("differs") };
    writeln!(
        out,
        "{}   svclb Pods: {}   expected ingress: {}   actual: {}   {agrees}",
        paint.bold("k3s ServiceLB"),
        v.svclb_pods,
        list(&v.expected_ingress),
        list(&v.actual_ingress)
    )?;
    writeln!(out)?;
    let mut t = new_table(paint, &["NODE", "USED", "EXCLUDED-BY"]);
    for n in &v.nodes {
        let excluded: Vec<String> = n.excluded_by.iter().map(json_str).collect();
        t.add_row(vec![
            Cell::new(&n.node),
            mark(n.used),
            Cell::new(if excluded.is_empty() { "-".into() } else { excluded.join(",") }),
        ]);
    }
    print_table(out, &t)
}
