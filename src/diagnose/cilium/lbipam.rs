//! LB-IPAM's findings: LBD125–LBD128.

use crate::cilium::lbipam::{self, LostCause, Reason};
use crate::report::{Code, Finding, ObjectRef};

pub(super) fn findings(v: &lbipam::Verdict, object: &ObjectRef, findings: &mut Vec<Finding>) {
    if let (false, Some(reason)) = (v.satisfied, v.expected.reason.filter(|r| *r != Reason::Satisfied)) {
        let hint = match reason {
            Reason::NoPool if !v.requested_ips.is_empty() => "Add a CiliumLoadBalancerIPPool block containing the requested address, or change spec.loadBalancerIP / lbipam.cilium.io/ips",
            Reason::NoPool => "Create a CiliumLoadBalancerIPPool whose serviceSelector matches this Service (and that is not disabled or in conflict), for each family it requests",
            Reason::PoolSelectorMismatch => "Change the pool's serviceSelector or the Service's labels; the pseudo-labels io.kubernetes.service.namespace and io.kubernetes.service.name are available",
            Reason::AlreadyAllocated => "Another Service holds the address: give both the same lbipam.cilium.io/sharing-key (with distinct ports), or request another address; with allowFirstLastIPs: No the first and last address of a CIDR are reserved",
            Reason::AlreadyAllocatedIncompatibleService => "Make the sharing Services compatible (the reason says how) or request another address",
            Reason::OutOfIps => "Add blocks to a matching pool, or free addresses held by Services that no longer need them",
            Reason::Satisfied => "",
        };
        findings.push(Finding::new(
            Code::LBD125,
            format!("no address from Cilium LB-IPAM: {} ({})", v.expected.message, reason.as_str()),
            hint,
            vec![object.clone()],
        ));
    }
    for c in &v.contested {
        findings.push(Finding::new(
            Code::LBD126,
            format!(
                "{} is also in the status of {}, and they cannot share it ({}): LB-IPAM keeps it on the Service it allocated it to first and removes it from {}",
                c.ip,
                c.with.join(", "),
                c.reason,
                if c.with.len() == 1 { "the other" } else { "the others" }
            ),
            "Give the Services the same lbipam.cilium.io/sharing-key with distinct ports (and, across namespaces, lbipam.cilium.io/sharing-cross-namespace on both), or let one of them request another address",
            std::iter::once(object.clone()).chain(c.with.iter().map(|w| ObjectRef::from_key("Service", w))).collect(),
        ));
    }
    if !v.stripped.is_empty() {
        findings.push(Finding::new(
            Code::LBD126,
            format!("LB-IPAM removes {} from status.loadBalancer.ingress: not what the Service asks for (its requested IPs or families), or in no CiliumLoadBalancerIPPool that selects it", v.stripped.join(", ")),
            format!("These addresses were written by another controller (see {}) or belong to a deleted/changed pool; move them into a CiliumLoadBalancerIPPool or let one implementation own the Service", Code::LBD120),
            vec![object.clone()],
        ));
    }
    if let Some(actual) = &v.actual {
        let expected_reason = v.expected.reason.map(Reason::as_str);
        let agrees = match (v.satisfied, expected_reason) {
            // LB-IPAM holds nothing for it now: a True condition, or any condition while a free
            // address waits, predates the current state.
            (false, _) if actual.status == "True" => false,
            (false, Some("satisfied")) => false,
            (_, Some(r)) => actual.reason == r && actual.status == v.expected.status,
            // Cilium's order decides: no condition can be called stale.
            (_, None) => true,
        };
        if !agrees {
            let now = match (v.satisfied, expected_reason) {
                (true, r) => format!("the pools and Services in the snapshot give {} ({})", v.expected.status, r.unwrap_or("")),
                (false, Some("satisfied")) => "LB-IPAM holds no address for it in the snapshot (a free one exists: it would allocate on its next reconcile)".to_string(),
                (false, Some(r)) if actual.status != "True" => format!("the pools and Services in the snapshot give {} ({r})", v.expected.status),
                (false, Some(r)) => format!("LB-IPAM holds no address for it in the snapshot (its next reconcile gives {} ({r}))", v.expected.status),
                (false, None) => format!("LB-IPAM holds no address for it in the snapshot (what it gets {})", v.expected.message),
            };
            findings.push(Finding::new(
                Code::LBD127,
                format!("its {} condition says {} ({}) but {now}", actual.type_, actual.status, actual.reason),
                "The condition is stale (cilium-operator not running, or not reconciled since the change) or the snapshot misses pools/Services; check `kubectl -n kube-system logs deploy/cilium-operator | grep -i ipam`",
                vec![object.clone()],
            ));
        }
    }
    restart(v, object, findings);
}

/// LBD128: a restart of cilium-operator takes away an address the Service holds now.
fn restart(v: &lbipam::Verdict, object: &ObjectRef, findings: &mut Vec<Finding>) {
    let r = &v.restart;
    if r.loses.is_empty() {
        return;
    }
    let after: Vec<String> = r
        .outcomes
        .iter()
        .map(|o| {
            let ingress = if o.ingress.is_empty() { "no address".to_string() } else { o.ingress.join(", ") };
            match &o.condition {
                Some(c) if c.reason != Some(Reason::Satisfied) => {
                    format!("{ingress} ({})", c.reason.map_or("", Reason::as_str))
                }
                _ => ingress,
            }
        })
        .collect();
    let ips: Vec<&str> = r.loses.iter().map(|l| l.ip.as_str()).collect();
    let causes: Vec<String> = r
        .loses
        .iter()
        .map(|l| match l.cause {
            LostCause::PoolDisabled => format!("pool {} is disabled", l.pool),
            LostCause::PoolConflict => format!("pool {} is in cilium.io/PoolConflict", l.pool),
            LostCause::TakenFirst => format!("another Service may import or allocate {} first", l.ip),
        })
        .collect();
    let message = format!(
        "a running cilium-operator keeps {} ({}), but its next start (rules of {}) leaves {}{}",
        ips.join(", "),
        causes.join("; "),
        r.rules,
        if after.len() == 1 { after[0].clone() } else { format!("one of: {}", after.join(" | ")) },
        if r.exhaustive { "" } else { " (a sample of Cilium's orders; others may exist)" }
    );
    let hint = match r.loses.iter().find(|l| l.cause != LostCause::TakenFirst) {
        Some(l) if l.cause == LostCause::PoolDisabled => format!("Re-enable the pool before the operator restarts (kubectl patch ciliumloadbalancerippool {} --type merge -p '{{\"spec\":{{\"disabled\":false}}}}'), or move the Service deliberately now (pin a new address with lbipam.cilium.io/ips) so the change happens when you choose", l.pool),
        Some(l) => format!("Resolve the overlap of pool {} (kubectl get ciliumloadbalancerippool {} -o yaml: its PoolConflict condition names the other pool), or move the Service deliberately now", l.pool, l.pool),
        None => "Resolve the contest the other findings name (one Service per address, or a shared lbipam.cilium.io/sharing-key with distinct ports) before the operator restarts".to_string(),
    };
    findings.push(Finding::new(Code::LBD128, message, hint, vec![object.clone()]));
}
