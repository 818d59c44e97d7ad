//! k3s ServiceLB's findings: LBD150, LBD151.

use crate::report::{Code, Finding, ObjectRef};
use crate::servicelb;

pub(super) fn findings(v: &servicelb::Verdict, object: &ObjectRef, findings: &mut Vec<Finding>) {
    if v.expected_ingress.is_empty() {
        let no_pod = v.nodes.iter().filter(|n| n.excluded_by.contains(&servicelb::Exclusion::NoReadySvclbPod)).count();
        findings.push(Finding::new(
            Code::LBD150,
            format!("k3s ServiceLB has no node to take an address from ({} svclb Pod(s); {no_pod} of {} node(s) without a Ready one): it writes an empty ingress list and emits UnAvailableLoadBalancer", v.svclb_pods, v.nodes.len()),
            "svclb Pods use hostPorts equal to the Service ports: a port another LoadBalancer Service already uses keeps them Pending; with enablelb labels only nodes labelled svccontroller.k3s.cattle.io/enablelb=true run them",
            vec![object.clone()],
        ));
    } else if v.expected_ingress != v.actual_ingress {
        findings.push(Finding::new(
            Code::LBD151,
            format!("status.loadBalancer.ingress is [{}], k3s ServiceLB would write [{}]", v.actual_ingress.join(", "), v.expected_ingress.join(", ")),
            format!("k3s rewrites it on the next svclb Pod or EndpointSlice change; a lasting difference means another controller writes the status too ({})", Code::LBD120),
            vec![object.clone()],
        ));
    }
}
