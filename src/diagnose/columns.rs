//! A Service's ANNOUNCER and OBSERVED words, decided once from its finished report: the table
//! prints them and the JSON carries them (`services[].announcer`, `.observed`).

use compact_str::CompactString;

use crate::report::{Implementation, ServiceReport};

/// Up to three node names, else a count.
fn compact<S: AsRef<str>>(nodes: &[S], total: usize) -> String {
    match total {
        0 => "<none>".into(),
        n if n > 3 => format!("{n} nodes"),
        _ => nodes.iter().map(AsRef::as_ref).collect::<Vec<&str>>().join(","),
    }
}

pub(super) fn announcer_and_observed(svc: &ServiceReport) -> (CompactString, CompactString) {
    let m = svc.metallb.as_ref();
    let l2 = m.and_then(|m| m.layer2.as_ref());
    let bgp = m.and_then(|m| m.bgp.as_ref());
    let mut announcer = l2.map(|l| l.expected_announcer.as_deref().unwrap_or("<none>").to_string());
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
        add(&mut announcer, compact(&b.announcing, b.announcing_count));
        let seen = b.actual.as_ref().map(|a| a.iter().map(|x| x.node.clone()).collect::<Vec<_>>());
        add(&mut observed, seen.map(|s| compact(&s, s.len())).unwrap_or_else(|| "?".into()));
    }
    if let (None, Some((a, o))) = (&announcer, others(svc)) {
        announcer = Some(a);
        observed = Some(o);
    }
    (
        announcer.map_or_else(|| "-".into(), CompactString::from),
        observed.map_or_else(|| "?".into(), CompactString::from),
    )
}

/// For Services no MetalLB election covers: Cilium's L2 Lease, Node IPAM, k3s ServiceLB.
fn others(svc: &ServiceReport) -> Option<(String, String)> {
    let list = |n: Vec<&str>| compact(&n, n.len());
    let servicelb = || {
        svc.servicelb.as_ref().map(|v| {
            let used: Vec<&str> = v.nodes.iter().filter(|r| r.used).map(|r| r.node.as_str()).collect();
            (format!("svclb:{}", list(used)), "-".to_string())
        })
    };
    if svc.implementation == Implementation::K3sServicelb {
        return servicelb();
    }
    // A Service no L2 policy selects is not announced by L2: show what else covers it.
    let l2 = svc.cilium.as_ref().and_then(|c| c.l2.as_ref());
    if let Some(l2) = l2.filter(|v| v.skipped.is_none() && v.policies.iter().any(|p| p.selects)) {
        let holder = match &l2.lease {
            Some(lease) if !lease.leases_captured => "?".into(),
            Some(lease) if lease.fresh == Some(true) => lease.holder.clone().unwrap_or_else(|| "<none>".into()),
            Some(lease) if lease.fresh.is_none() && lease.holder.is_some() => {
                format!("{}?", lease.holder.as_deref().unwrap_or(""))
            }
            _ => "<none>".into(),
        };
        let eligible: Vec<&str> = l2.eligible.iter().map(|n| &**n).collect();
        return Some((format!("l2-lease:{}", compact(&eligible, l2.eligible_count)), holder));
    }
    if let Some(n) = svc.cilium.as_ref().and_then(|c| c.nodeipam.as_ref()) {
        if n.selector_error.is_some() {
            return Some(("nodeipam:(selector error)".into(), "-".into()));
        }
        let used: Vec<&str> = n.nodes.iter().filter(|r| r.used).map(|r| r.node.as_str()).collect();
        return Some((format!("nodeipam:{}", list(used)), "-".into()));
    }
    servicelb()
}
