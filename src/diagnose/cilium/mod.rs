//! Cilium's (and k3s ServiceLB's) part of a Service's report, and their findings: one module
//! per feature, as in `crate::cilium`.

mod cluster;
mod l2;
mod lbipam;
mod nodeipam;
mod servicelb;

pub(crate) use cluster::cluster_findings;

use k8s_openapi::api::core::v1::Service;

use super::implementations::Implementations;
use crate::cilium::lbipam::CLASS_L2;
use crate::report::{CiliumService, Finding, Implementation, Severity};
use crate::snapshot::Snapshot;

pub(crate) struct Parts {
    pub cilium: Option<CiliumService>,
    pub servicelb: Option<crate::servicelb::Verdict>,
    pub findings: Vec<Finding>,
}

pub(crate) fn service(
    snap: &Snapshot,
    imps: &Implementations,
    svc: &Service,
    namespace: &str,
    name: &str,
    claimants: &[Implementation],
    detail: bool,
) -> Parts {
    let mut findings = Vec::new();
    let object = format!("Service {namespace}/{name}");
    let c = &imps.cilium;
    let cilium = c.installed.then(|| {
        let nodeipam = c.node_ipam.then(|| nodeipam::report(snap, imps, svc, namespace, name, &object, &mut findings)).flatten();
        let lbipam = imps.ledger_index.get(&(namespace.to_string(), name.to_string())).map(|&i| {
            let v = crate::cilium::lbipam::evaluate(&imps.ledger, i);
            lbipam::findings(&v, &object, &mut findings);
            v
        });
        let expects_l2 = svc.spec.as_ref().and_then(|s| s.load_balancer_class.as_deref()) == Some(CLASS_L2)
            || (lbipam.is_some() && !c.bgp_control_plane);
        let l2 = c
            .l2_announcements
            .then(|| l2::report(imps, svc, namespace, name, &object, expects_l2, detail, &mut findings));
        let l2 = l2.filter(|v| v.skipped != Some(crate::cilium::l2::Skip::OtherClass) && v.skipped != Some(crate::cilium::l2::Skip::Disabled));
        let selecting: Vec<&str> =
            l2.iter().flat_map(|v| v.policies.iter()).filter(|p| p.selects).map(|p| p.policy.as_str()).collect();
        let others: Vec<&str> = claimants
            .iter()
            .filter(|c| matches!(c, Implementation::Metallb | Implementation::K3sServicelb | Implementation::KubeVip))
            .map(|c| c.as_str())
            .collect();
        // Only status addresses come from another implementation, and only policies with
        // loadBalancerIPs announce them.
        let lb_policy =
            imps.l2.policies.iter().any(|p| p.load_balancer_ips && selecting.contains(&p.name.as_str()));
        let foreign: Vec<&str> = match (&l2, &lbipam, lb_policy && !others.is_empty()) {
            (Some(v), None, true) => v.lb_addresses.iter().map(String::as_str).collect(),
            _ => Vec::new(),
        };
        if !foreign.is_empty() {
            let one = foreign.len() == 1;
            let holder = l2.as_ref().and_then(|v| v.announcer.as_deref());
            findings.push(Finding {
                code: "LBD145",
                severity: Severity::Warning,
                message: format!(
                    "{} {} {} from {}, and Cilium L2 policy {} selects the Service too: the Lease holder{} answers ARP/NDP for {} as well, so two nodes may answer with different MACs",
                    if one { "address" } else { "addresses" },
                    foreign.join(", "),
                    if one { "comes" } else { "come" },
                    others.join(" and "),
                    selecting.join(", "),
                    holder.map(|h| format!(" ({h})")).unwrap_or_default(),
                    if one { "it" } else { "them" }
                ),
                hint: "Give Cilium L2 policies a serviceSelector that leaves out Services another implementation announces (e.g. match a label only your Cilium Services carry)".into(),
                objects: vec![object.clone()],
            });
        }
        if let Some(n) = &nodeipam {
            if !selecting.is_empty() && !n.expected_ingress.is_empty() {
                findings.push(Finding {
                    code: "LBD145",
                    severity: Severity::Warning,
                    message: format!("its addresses are node addresses from Node IPAM ({}), and L2 policy {} selects it too: the L2 leader would answer ARP/NDP for other nodes' own addresses", n.expected_ingress.join(", "), selecting.join(", ")),
                    hint: "Exclude Node IPAM Services from L2 policies (serviceSelector), or give the Service class io.cilium/node, which L2 never announces".into(),
                    objects: vec![object.clone()],
                });
            }
        }
        CiliumService { nodeipam, lbipam, l2 }
    });
    let servicelb = (imps.servicelb.installed && crate::servicelb::handles(svc)).then(|| {
        let v = crate::servicelb::evaluate(&imps.servicelb, svc, &snap.nodes, &snap.pods, &snap.endpoint_slices);
        servicelb::findings(&v, &object, &mut findings);
        v
    });
    Parts { cilium, servicelb, findings }
}
