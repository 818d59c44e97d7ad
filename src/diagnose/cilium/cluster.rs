//! Cilium configuration problems that affect every Service: LBD220–LBD223.

use super::super::implementations::Implementations;
use crate::report::{Code, Finding, ObjectRef, Severity};
use crate::snapshot::Snapshot;

pub(crate) fn cluster_findings(snap: &Snapshot, imps: &Implementations) -> Vec<Finding> {
    let mut out = Vec::new();
    let c = &imps.cilium;
    for p in &imps.ledger.pools {
        let object = ObjectRef::cluster("CiliumLoadBalancerIPPool", &p.name);
        let marked = p.actual_conflict.as_ref().map(|c| c.status == "True");
        if let Some(conflict) = &p.conflict {
            let seen = match marked {
                Some(true) => "; its status agrees",
                Some(false) => "; its status does not show it yet",
                None => "",
            };
            out.push(Finding::new(
                Code::LBD220,
                format!("{object}: {conflict}; Cilium marks it cilium.io/PoolConflict and allocates nothing new from it{seen}"),
                "Remove the overlap (the pool created later is the one marked); existing allocations stay until then",
                vec![object.clone()],
            ));
        } else if marked == Some(true) {
            out.push(Finding::new(
                Code::LBD220,
                format!("{object}: its status says cilium.io/PoolConflict True, but no pool in the snapshot overlaps it: Cilium lifts the mark on its next reconcile"),
                "If the mark stays, check that cilium-operator runs and that the snapshot holds every CiliumLoadBalancerIPPool",
                vec![object.clone()],
            ).with_severity(Severity::Info));
        }
        if p.cidrs_only {
            out.push(Finding::new(
                Code::LBD221,
                format!("{object} sets only the deprecated spec.cidrs: current Cilium reads spec.blocks alone, so the pool offers no address"),
                "Move the entries to spec.blocks (`- cidr: …`)",
                vec![object.clone()],
            ));
        }
        let problem =
            p.invalid_block.clone().or_else(|| p.selector.as_ref().err().map(|e| format!("serviceSelector: {e}")));
        if let Some(problem) = problem {
            out.push(Finding::new(
                Code::LBD221,
                format!("{object} is not usable: {problem}"),
                if p.invalid_block.is_some() {
                    "Blocks take `cidr`, or `start` with an optional `stop` of the same family; fix the pool and check `kubectl get ciliumloadbalancerippools`"
                } else {
                    "Fix spec.serviceSelector (operators In, NotIn, Exists, DoesNotExist; In/NotIn need values)"
                },
                vec![object],
            ));
        }
    }
    if c.installed && !c.l2_announcements && !snap.cilium.l2_policies.is_empty() {
        out.push(Finding::new(
            Code::LBD222,
            format!("{} CiliumL2AnnouncementPolicy object(s) exist but enable-l2-announcements is not true in cilium-config: no agent announces anything", snap.cilium.l2_policies.len()),
            "Set l2announcements.enabled=true (cilium-config enable-l2-announcements: \"true\") with kubeProxyReplacement, then restart the agents",
            vec![ObjectRef::new("ConfigMap", &c.namespace, "cilium-config")],
        ));
    }
    if c.installed && c.l2_announcements {
        let kpr = c.kube_proxy_replacement.as_deref();
        if !matches!(kpr, Some("true" | "strict")) {
            let what = match kpr {
                Some(v) => format!("kube-proxy-replacement is {v:?}"),
                None => "cilium-config does not set kube-proxy-replacement (off by default)".to_string(),
            };
            out.push(Finding::new(
                Code::LBD222,
                format!("enable-l2-announcements is on but {what}: L2 announcements answer through Cilium's service datapath, which needs kube-proxy replacement"),
                "Enable kubeProxyReplacement (cilium-config kube-proxy-replacement: \"true\")",
                vec![ObjectRef::new("ConfigMap", &c.namespace, "cilium-config")],
            ));
        }
        if !c.lease.corrections.is_empty() {
            let t = &c.lease;
            out.push(Finding::new(
                Code::LBD222,
                format!(
                    "Cilium corrects its L2 lease timing and uses lease {}s, renew deadline {}s, retry period {}s; it logs: {}",
                    t.lease_duration,
                    t.renew_deadline,
                    t.retry_period,
                    t.corrections.join(" / ")
                ),
                "Set l2announcements leaseDuration > leaseRenewDeadline > 1.2 × leaseRetryPeriod",
                vec![ObjectRef::new("ConfigMap", &c.namespace, "cilium-config")],
            ).with_severity(Severity::Info));
        }
    }
    for p in &imps.l2.policies {
        for (condition, error) in p.problems() {
            out.push(Finding::new(
                Code::LBD223,
                format!(
                    "CiliumL2AnnouncementPolicy {}: {error} (Cilium sets {condition} and ignores the policy)",
                    p.name
                ),
                "Fix the selector or the interface regular expression; Cilium clears the condition once it parses",
                vec![ObjectRef::cluster("CiliumL2AnnouncementPolicy", &p.name)],
            ));
        }
    }
    out
}
