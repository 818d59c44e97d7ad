//! k3s ServiceLB's findings: LBD150, LBD151.

use crate::report::{Finding, Severity};
use crate::servicelb;

pub(super) fn findings(v: &servicelb::Verdict, object: &str, findings: &mut Vec<Finding>) {
    if v.expected_ingress.is_empty() {
        let no_pod = v.nodes.iter().filter(|n| n.excluded_by.contains(&servicelb::Exclusion::NoReadySvclbPod)).count();
        findings.push(Finding {
            code: "LBD150",
            severity: Severity::Error,
            message: format!("k3s ServiceLB has no node to take an address from ({} svclb Pod(s); {no_pod} of {} node(s) without a Ready one): it writes an empty ingress list and emits UnAvailableLoadBalancer", v.svclb_pods, v.nodes.len()),
            hint: "svclb Pods use hostPorts equal to the Service ports: a port another LoadBalancer Service already uses keeps them Pending; with enablelb labels only nodes labelled svccontroller.k3s.cattle.io/enablelb=true run them".into(),
            objects: vec![object.to_string()],
        });
    } else if v.expected_ingress != v.actual_ingress {
        findings.push(Finding {
            code: "LBD151",
            severity: Severity::Warning,
            message: format!("status.loadBalancer.ingress is [{}], k3s ServiceLB would write [{}]", v.actual_ingress.join(", "), v.expected_ingress.join(", ")),
            hint: "k3s rewrites it on the next svclb Pod or EndpointSlice change; a lasting difference means another controller writes the status too (LBD120)".into(),
            objects: vec![object.to_string()],
        });
    }
}
