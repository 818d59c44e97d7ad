//! LB-IPAM's findings: LBD125–LBD127.

use crate::cilium::lbipam::{self, Reason};
use crate::report::{Code, Finding, ObjectRef};

pub(super) fn findings(v: &lbipam::Verdict, object: &ObjectRef, findings: &mut Vec<Finding>) {
    if let (false, Some(reason)) = (v.satisfied, v.expected.reason) {
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
    if let Some(actual) = v.actual.as_ref().filter(|_| v.contested.is_empty()) {
        let expected_reason = v.expected.reason.map(Reason::as_str);
        let agrees = match expected_reason {
            Some(r) => actual.reason == r && actual.status == v.expected.status,
            // A free address exists: any condition on the Service predates it (stale).
            None => false,
        };
        if !agrees {
            findings.push(Finding::new(
                Code::LBD127,
                format!(
                    "its {} condition says {} ({}) but {}",
                    actual.type_,
                    actual.status,
                    actual.reason,
                    match expected_reason {
                        Some(r) => format!("the pools and Services in the snapshot give {} ({r})", v.expected.status),
                        None => "LB-IPAM holds no address for it in the snapshot (a free one exists: it would allocate on its next reconcile)".to_string(),
                    }
                ),
                "The condition is stale (cilium-operator not running, or not reconciled since the change) or the snapshot misses pools/Services; check `kubectl -n kube-system logs deploy/cilium-operator | grep -i ipam`",
                vec![object.clone()],
            ));
        }
    }
}
