//! Cilium's (and k3s ServiceLB's) part of a Service's report, and their findings.

use k8s_openapi::api::core::v1::Service;

use super::implementations::Implementations;
use crate::cilium::l2::{self, EtpGate, Exclusion as L2Exclusion};
use crate::cilium::lbipam::{self, Reason};
use crate::cilium::nodeipam::{self, Outcome};
use crate::metallb::service::ingress_ips;
use crate::report::{CiliumService, Finding, Implementation, NodeIpam, NodeIpamNode, Severity};
use crate::servicelb;
use crate::snapshot::Snapshot;

pub(crate) struct Parts {
    pub cilium: Option<CiliumService>,
    pub servicelb: Option<servicelb::Verdict>,
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
        let nodeipam = c.node_ipam.then(|| node_ipam(snap, imps, svc, namespace, name, &object, &mut findings)).flatten();
        let lbipam = imps.ledger_index.get(&(namespace.to_string(), name.to_string())).map(|&i| {
            let v = lbipam::evaluate(&imps.ledger, i);
            lbipam_findings(&v, &object, &mut findings);
            v
        });
        let expects_l2 = svc.spec.as_ref().and_then(|s| s.load_balancer_class.as_deref()) == Some(lbipam::CLASS_L2)
            || (lbipam.is_some() && !c.bgp_control_plane);
        let l2 = c
            .l2_announcements
            .then(|| l2_announcement(imps, svc, namespace, name, &object, expects_l2, detail, &mut findings));
        let l2 = l2.filter(|v| v.skipped != Some(l2::Skip::OtherClass) && v.skipped != Some(l2::Skip::Disabled));
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
    let servicelb = (imps.servicelb.installed && servicelb::handles(svc)).then(|| {
        let v = servicelb::evaluate(&imps.servicelb, svc, &snap.nodes, &snap.pods, &snap.endpoint_slices);
        servicelb_findings(&v, &object, &mut findings);
        v
    });
    Parts { cilium, servicelb, findings }
}

fn node_ipam(
    snap: &Snapshot,
    imps: &Implementations,
    svc: &Service,
    namespace: &str,
    name: &str,
    object: &str,
    findings: &mut Vec<Finding>,
) -> Option<NodeIpam> {
    let input = nodeipam::Input {
        service: svc,
        nodes: &snap.nodes,
        ready_endpoint_nodes: imps.ready_endpoints(namespace, name),
        default_nodeipam: imps.cilium.default_is("nodeipam"),
    };
    let actual: Vec<String> = ingress_ips(svc);
    match nodeipam::reconcile(&input) {
        Outcome::NotHandled(_) => None,
        Outcome::SelectorError { selector, error } => {
            findings.push(Finding {
                code: "LBD123",
                severity: Severity::Error,
                message: format!("the {} annotation {selector:?} is not a valid label selector ({error}); Node IPAM's reconcile fails and keeps the old status [{}]", nodeipam::MATCH_NODE_LABELS, actual.join(", ")),
                hint: "Fix the annotation: a kubectl -l style selector such as `role=edge,zone in (a,b)`; check it with `kubectl get nodes -l '<selector>'`".into(),
                objects: vec![object.to_string()],
            });
            Some(NodeIpam {
                expected_ingress: actual.clone(),
                actual_ingress: actual,
                match_node_labels: Some(selector),
                selector_error: Some(error),
                no_nodes_warning: false,
                chose_external: false,
                families_lost_to_external: Vec::new(),
                nodes: Vec::new(),
            })
        }
        Outcome::Written(c) => {
            if c.ingress.is_empty() {
                findings.push(Finding {
                    code: "LBD122",
                    severity: Severity::Error,
                    message: format!(
                        "Node IPAM writes an empty ingress list, so the Service is pending: {}",
                        empty_cause(&c)
                    ),
                    hint: empty_hint(&c),
                    objects: vec![object.to_string()],
                });
            } else if c.ingress != actual {
                let preferred: Vec<&str> = c
                    .nodes
                    .iter()
                    .filter(|n| n.excluded_by.contains(&nodeipam::Exclusion::ExternalPreferred))
                    .map(|n| n.node.as_str())
                    .collect();
                let cause = if preferred.is_empty() {
                    String::new()
                } else {
                    let with_external: Vec<&str> = c.nodes.iter().filter(|n| n.used).map(|n| n.node.as_str()).collect();
                    format!(
                        ": {} {} an ExternalIP, so Node IPAM uses ExternalIPs only (all or nothing) and {} {} nothing",
                        with_external.join(", "),
                        if with_external.len() == 1 { "has" } else { "have" },
                        preferred.join(", "),
                        if preferred.len() == 1 { "contributes" } else { "contribute" }
                    )
                };
                findings.push(Finding {
                    code: "LBD121",
                    severity: Severity::Warning,
                    message: format!("status.loadBalancer.ingress is [{}], Node IPAM would write [{}]{cause}", actual.join(", "), c.ingress.join(", ")),
                    hint: "Node IPAM rewrites the status on its next reconcile of this Service; if it stays different, check that cilium-operator runs with enable-node-ipam and whether another controller also writes this Service's status (LBD120)".into(),
                    objects: vec![object.to_string()],
                });
            }
            if !c.families_lost_to_external.is_empty() {
                let lost: Vec<&str> = c.families_lost_to_external.iter().map(|f| f.as_str()).collect();
                findings.push(Finding {
                    code: "LBD124",
                    severity: Severity::Warning,
                    message: format!("{} requested, but no {} address: a node has an ExternalIP, so Node IPAM uses ExternalIPs only (one choice for both families) and drops every InternalIP", families_text(c.wants), lost.join("/")),
                    hint: "Give every candidate node an ExternalIP of each family, remove the stray ExternalIP, or restrict the Service to the nodes you want with io.cilium.nodeipam/match-node-labels".into(),
                    objects: vec![object.to_string()],
                });
            }
            let ingress = c.ingress.clone();
            Some(NodeIpam {
                expected_ingress: ingress,
                actual_ingress: actual,
                match_node_labels: c.selector,
                selector_error: None,
                no_nodes_warning: c.no_nodes_warning,
                chose_external: c.chose_external,
                families_lost_to_external: c.families_lost_to_external.iter().map(|f| f.as_str()).collect(),
                nodes: c
                    .nodes
                    .into_iter()
                    .map(|n| NodeIpamNode {
                        node: n.node,
                        used: n.used,
                        excluded_by: n.excluded_by,
                        addresses: n.addresses,
                    })
                    .collect(),
            })
        }
    }
}

fn families_text(wants: (bool, bool)) -> &'static str {
    match wants {
        (true, true) => "IPv4 and IPv6",
        (true, false) => "IPv4",
        (false, true) => "IPv6",
        (false, false) => "no family",
    }
}

fn empty_cause(c: &nodeipam::Computed) -> String {
    use nodeipam::Exclusion::*;
    if c.wants == (false, false) {
        return "spec.ipFamilies is empty".into();
    }
    if c.no_nodes_warning {
        return format!("no Node matches the match-node-labels selector {:?} (Cilium logs \"No Nodes found with configured label selector\")", c.selector.as_deref().unwrap_or(""));
    }
    if c.nodes.is_empty() {
        return "the snapshot has no Node objects".into();
    }
    let count = |x: nodeipam::Exclusion| c.nodes.iter().filter(|n| n.excluded_by.contains(&x)).count();
    let mut parts: Vec<(usize, &str)> = Vec::new();
    for (x, what) in [
        (NotMatchingNodeLabels, "do not match match-node-labels"),
        (Deleting, "are being deleted"),
        (ExcludeLabel, "carry node.kubernetes.io/exclude-from-external-load-balancers"),
        (ToBeDeletedTaint, "carry the ToBeDeletedByClusterAutoscaler taint"),
        (NoLocalEndpoint, "have no ready endpoint (externalTrafficPolicy Local)"),
        (NoAddressOfFamily, "have no InternalIP/ExternalIP of the requested family"),
    ] {
        let n = count(x);
        if n > 0 {
            parts.push((n, what));
        }
    }
    match parts.as_slice() {
        [(n, what)] if *n == c.nodes.len() => format!("all {n} node(s) {what}"),
        _ => {
            let listed: Vec<String> = parts.iter().map(|(n, what)| format!("{n} node(s) {what}")).collect();
            format!("of {} node(s), {}", c.nodes.len(), listed.join(", "))
        }
    }
}

fn empty_hint(c: &nodeipam::Computed) -> String {
    if c.etp_local && c.nodes.iter().all(|n| n.excluded_by.contains(&nodeipam::Exclusion::NoLocalEndpoint)) {
        return "With externalTrafficPolicy Local only nodes with a ready endpoint are used: scale the backend up or check its readiness (`kubectl get endpointslices -l kubernetes.io/service-name=<svc>`); Cilium Ingress/Gateway Services have no node endpoints and need Cluster".into();
    }
    if c.no_nodes_warning {
        return "Fix the io.cilium.nodeipam/match-node-labels annotation; `kubectl get nodes -l '<selector>'` must list nodes".into();
    }
    "Remove the exclusion from at least one node (the exclude label's key alone excludes, whatever its value), or check the Service's ipFamilies".into()
}

fn lbipam_findings(v: &lbipam::Verdict, object: &str, findings: &mut Vec<Finding>) {
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
        findings.push(Finding {
            code: "LBD125",
            severity: Severity::Error,
            message: format!("no address from Cilium LB-IPAM: {} ({})", v.expected.message, reason.as_str()),
            hint: hint.into(),
            objects: vec![object.to_string()],
        });
    }
    for c in &v.contested {
        findings.push(Finding {
            code: "LBD126",
            severity: Severity::Warning,
            message: format!(
                "{} is also in the status of {}, and they cannot share it ({}): LB-IPAM keeps it on the Service it allocated it to first and removes it from {}",
                c.ip,
                c.with.join(", "),
                c.reason,
                if c.with.len() == 1 { "the other" } else { "the others" }
            ),
            hint: "Give the Services the same lbipam.cilium.io/sharing-key with distinct ports (and, across namespaces, lbipam.cilium.io/sharing-cross-namespace on both), or let one of them request another address".into(),
            objects: std::iter::once(object.to_string()).chain(c.with.iter().map(|w| format!("Service {w}"))).collect(),
        });
    }
    if !v.stripped.is_empty() {
        findings.push(Finding {
            code: "LBD126",
            severity: Severity::Warning,
            message: format!("LB-IPAM removes {} from status.loadBalancer.ingress: not what the Service asks for (its requested IPs or families), or in no CiliumLoadBalancerIPPool that selects it", v.stripped.join(", ")),
            hint: "These addresses were written by another controller (see LBD120) or belong to a deleted/changed pool; move them into a CiliumLoadBalancerIPPool or let one implementation own the Service".into(),
            objects: vec![object.to_string()],
        });
    }
    if let Some(actual) = v.actual.as_ref().filter(|_| v.contested.is_empty()) {
        let expected_reason = v.expected.reason.map(Reason::as_str);
        let agrees = match expected_reason {
            Some(r) => actual.reason == r && actual.status == v.expected.status,
            // A free address exists: any condition on the Service predates it (stale).
            None => false,
        };
        if !agrees {
            findings.push(Finding {
                code: "LBD127",
                severity: Severity::Warning,
                message: format!(
                    "its {} condition says {} ({}) but {}",
                    actual.type_,
                    actual.status,
                    actual.reason,
                    match expected_reason {
                        Some(r) => format!("the pools and Services in the snapshot give {} ({r})", v.expected.status),
                        None => "LB-IPAM holds no address for it in the snapshot (a free one exists: it would allocate on its next reconcile)".to_string(),
                    }
                ),
                hint: "The condition is stale (cilium-operator not running, or not reconciled since the change) or the snapshot misses pools/Services; check `kubectl -n kube-system logs deploy/cilium-operator | grep -i ipam`".into(),
                objects: vec![object.to_string()],
            });
        }
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// L2 Leases of one Service; `expects_l2`: Cilium L2 is how its address is meant to be reached
/// (class `io.cilium/l2-announcer`, or an LB-IPAM address without the BGP control plane).
#[allow(clippy::too_many_arguments)]
fn l2_announcement(
    imps: &Implementations,
    svc: &Service,
    namespace: &str,
    name: &str,
    object: &str,
    expects_l2: bool,
    detail: bool,
    findings: &mut Vec<Finding>,
) -> l2::Verdict {
    let input = l2::Input {
        index: &imps.l2,
        service: svc,
        ready_endpoint_nodes: imps.ready_endpoints(namespace, name),
        captured_at: imps.captured_at,
        collides_with: l2::dash_collisions(&imps.lease_name_groups, namespace, name),
        detail,
    };
    let v = l2::evaluate(&input);
    if v.skipped.is_some() {
        return v;
    }
    let selecting: Vec<&str> = v.policies.iter().filter(|p| p.selects).map(|p| p.policy.as_str()).collect();
    let lease = v.lease.as_ref().expect("lease state is set when not skipped");
    let lease_object =
        format!("Lease {}/{}", lease.namespace, lease.name.as_deref().unwrap_or(&lease.names[preferred_name(imps)]));
    let leases_known = lease.leases_captured;
    if let Some(holder) = lease.holder.as_ref().filter(|_| lease.fresh != Some(false)) {
        let not_eligible = lease.holder_eligible == Some(false);
        let agent_down = lease.holder_agent_ready == Some(false);
        if not_eligible || agent_down {
            let why = match &lease.holder_excluded_by {
                None => "it is not a Node in the snapshot".to_string(),
                Some(_) if agent_down => imps.cilium.agent_state(holder),
                Some(excluded) => format!(
                    "it no longer competes ({})",
                    excluded.iter().map(|x| exclusion_code(*x)).collect::<Vec<_>>().join(", ")
                ),
            };
            let until = match (&lease.expires_at, lease.fresh) {
                (Some(at), Some(true)) => format!("before the Lease runs out at {at}"),
                _ => "until the Lease expires".to_string(),
            };
            let takers = match v.eligible.len() {
                0 => "no node is eligible now".to_string(),
                1 => format!("then {} takes it", v.eligible[0]),
                _ => format!("then one of {} takes it", v.eligible.join(", ")),
            };
            let hint = if agent_down {
                format!("Check the agent on {holder} (`kubectl -n {} get pods -l k8s-app=cilium -o wide --field-selector spec.nodeName={holder}`); {takers}", imps.cilium.namespace)
            } else {
                format!("A node that stops competing releases its Lease (ReleaseOnCancel) once its agent sees the change; if the Lease stays held, check the agent on {holder} for `Error processing` lines; {takers}")
            };
            findings.push(Finding {
                code: "LBD141",
                severity: Severity::Error,
                message: format!("the L2 Lease is held by {holder}, which should not hold it: {why}. At best {holder}'s datapath still answers ARP/NDP; no other node takes over {until}"),
                hint,
                objects: vec![object.to_string(), lease_object.clone()],
            });
        }
    }
    if selecting.is_empty() {
        if expects_l2 {
            let why: Vec<String> =
                v.policies.iter().map(|p| format!("{}: {}", p.policy, p.why_not.unwrap_or(""))).collect();
            findings.push(Finding {
                code: "LBD140",
                severity: Severity::Error,
                message: format!(
                    "no CiliumL2AnnouncementPolicy selects it ({}), so nobody answers ARP/NDP for its addresses",
                    if why.is_empty() { "there are none".to_string() } else { why.join("; ") }
                ),
                hint: "Create or fix a CiliumL2AnnouncementPolicy: its serviceSelector must match the Service's labels (or io.kubernetes.service.namespace/name) and it must set loadBalancerIPs: true (externalIPs: true for spec.externalIPs)".into(),
                objects: vec![object.to_string()],
            });
        }
        return v;
    }
    if v.eligible.is_empty() {
        let policies = if selecting.len() == 1 {
            format!("policy {} selects", selecting[0])
        } else {
            format!("policies {} select", selecting.join(", "))
        };
        findings.push(Finding {
            code: "LBD142",
            severity: Severity::Error,
            message: format!("{policies} it but no node can compete for its L2 Lease ({})", exclusion_summary(&v)),
            hint: "Make a policy's nodeSelector match CiliumNode labels of nodes with a Ready agent (and, under externalTrafficPolicy Local, a ready endpoint); the exclude-from-external-load-balancers label plays no part in Cilium L2".into(),
            objects: vec![object.to_string()],
        });
    } else if leases_known && (lease.holder.is_none() || lease.fresh == Some(false)) {
        let state = match (&lease.name, &lease.holder) {
            (None, _) => format!("no Lease {} or {} exists in {}", lease.names[0], lease.names[1], lease.namespace),
            (Some(_), None) => "its Lease has no holder (released)".to_string(),
            (Some(_), Some(h)) => format!(
                "its Lease, held by {h}, expired at {} (renewed {}, {}s)",
                lease.expires_at.as_deref().unwrap_or("?"),
                lease.renew_time.as_deref().unwrap_or("?"),
                lease.lease_duration_seconds.unwrap_or(0)
            ),
        };
        findings.push(Finding {
            code: "LBD142",
            severity: Severity::Error,
            message: format!(
                "{} may announce it ({}) but {state}: nobody is known to answer ARP/NDP",
                plural(v.eligible.len(), "node", "nodes"),
                v.eligible.join(", ")
            ),
            hint: "Agents create or renew the Lease within the retry period; if none does, check the agents' logs for `Error processing` lines, the client rate limit (k8sClientRateLimit) and that the snapshot was taken while the Service existed".into(),
            objects: vec![object.to_string(), lease_object.clone()],
        });
    }
    if let (Some(true), Some(holder)) = (lease.renew_overdue, lease.holder.as_ref()) {
        findings.push(Finding {
            code: "LBD147",
            severity: Severity::Warning,
            message: format!(
                "{holder} last renewed the L2 Lease at {}; at capture time that is longer ago than the renew deadline ({}s), so it has stopped leading (and announcing), while no other node can take over before the Lease expires at {}",
                lease.renew_time.as_deref().unwrap_or("?"),
                imps.cilium.lease.renew_deadline,
                lease.expires_at.as_deref().unwrap_or("?")
            ),
            hint: format!("Check {holder}'s agent for API errors or throttling (k8sClientRateLimit must allow about #services / renewDeadline QPS); a clock difference between the capture machine and the cluster can also cause this"),
            objects: vec![object.to_string(), lease_object.clone()],
        });
    }
    if v.etp_gate != EtpGate::NotLocal {
        // Before v1.20.2 nothing stops a node without a local backend from holding the Lease.
        let stranded = match (v.etp_gate, v.announcer.as_deref()) {
            (EtpGate::Ungated | EtpGate::Unknown, Some(h)) => !imps.ready_endpoints(namespace, name).contains(h),
            _ => false,
        };
        let message = match v.etp_gate {
            EtpGate::Gated => format!(
                "externalTrafficPolicy Local: from Cilium v1.20.2 only nodes with a ready local backend compete for the Lease ({} of them)",
                v.eligible.len()
            ),
            EtpGate::Ungated if stranded => format!(
                "externalTrafficPolicy Local, and the Lease holder {} has no ready local endpoint: Cilium {} does not tie the L2 leader to a local backend, so the traffic it receives is dropped",
                v.announcer.as_deref().unwrap_or(""),
                imps.cilium.version.as_deref().unwrap_or("")
            ),
            _ if stranded => format!(
                "externalTrafficPolicy Local, and the Lease holder {} has no ready local endpoint: if Cilium is older than v1.20.2 (its version is unknown), the traffic it receives is dropped",
                v.announcer.as_deref().unwrap_or("")
            ),
            EtpGate::Ungated => format!(
                "externalTrafficPolicy Local, and Cilium {} does not tie the L2 leader to a local backend: a leader without a local pod drops the traffic",
                imps.cilium.version.as_deref().unwrap_or("")
            ),
            _ => "externalTrafficPolicy Local and Cilium's version is unknown: before v1.20.2 the L2 leader may have no local pod (traffic dropped); from v1.20.2 only nodes with a local backend compete".to_string(),
        };
        findings.push(Finding {
            code: "LBD143",
            severity: if stranded { Severity::Error } else { Severity::Warning },
            message,
            hint: "Prefer externalTrafficPolicy Cluster with Cilium L2 announcements, or run a backend on every node a policy selects; Cilium Ingress/Gateway Services are never announced under Local from v1.20.2".into(),
            objects: vec![object.to_string()],
        });
    }
    if !lease.collides_with.is_empty()
        && lease.name.as_deref() != Some(lease.names[0].as_str())
        && imps.cilium.version.as_deref().and_then(l2::dotted_lease_names) != Some(true)
    {
        findings.push(Finding {
            code: "LBD144",
            severity: Severity::Warning,
            message: format!(
                "its L2 Lease {} has the same name as that of {} (Cilium up to v1.20 joins namespace and name with '-'), so one Lease elects one leader for both",
                lease.names[1],
                lease.collides_with.join(", ")
            ),
            hint: "Rename one of the Services, or upgrade Cilium to a release that names Leases cilium-l2announce-<ns>.<name>".into(),
            objects: vec![object.to_string()],
        });
    }
    if let Some(holder) = v.announcer.as_ref() {
        {
            if l2::announcer_interfaces(&imps.l2, &v, holder).is_some_and(|i| i.is_empty()) {
                findings.push(Finding {
                    code: "LBD146",
                    severity: Severity::Error,
                    message: format!("{holder} holds the L2 Lease, but the selecting policies' interfaces match none of the agent's devices ({}): the leader announces nothing", imps.cilium.devices.as_deref().unwrap_or_default().join(", ")),
                    hint: "Interface patterns are unanchored regular expressions matched against cilium-config `devices`; fix spec.interfaces or the devices list".into(),
                    objects: vec![object.to_string()],
                });
            }
        }
    }
    v
}

/// Index into `LeaseState::names` of the form this Cilium writes: dash up to v1.20, dot after.
fn preferred_name(imps: &Implementations) -> usize {
    match imps.cilium.version.as_deref().and_then(l2::dotted_lease_names) {
        Some(false) => 1,
        _ => 0,
    }
}

pub(crate) fn exclusion_code(x: L2Exclusion) -> &'static str {
    match x {
        L2Exclusion::NotSelectedByPolicy => "notSelectedByPolicy",
        L2Exclusion::NoLocalEndpoint => "noLocalEndpoint",
        L2Exclusion::AgentNotReady => "agentNotReady",
    }
}

fn exclusion_summary(v: &l2::Verdict) -> String {
    let mut parts = Vec::new();
    let e = &v.excluded;
    for (n, x) in [
        (e.not_selected_by_policy, L2Exclusion::NotSelectedByPolicy),
        (e.no_local_endpoint, L2Exclusion::NoLocalEndpoint),
        (e.agent_not_ready, L2Exclusion::AgentNotReady),
    ] {
        if n > 0 {
            parts.push(format!("{n} {}", exclusion_code(x)));
        }
    }
    if parts.is_empty() {
        "the snapshot has no Node objects".into()
    } else {
        parts.join(", ")
    }
}

fn servicelb_findings(v: &servicelb::Verdict, object: &str, findings: &mut Vec<Finding>) {
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

/// Cilium configuration problems that affect every Service.
pub(crate) fn cluster_findings(snap: &Snapshot, imps: &Implementations) -> Vec<Finding> {
    let mut out = Vec::new();
    let c = &imps.cilium;
    for p in &imps.ledger.pools {
        let object = format!("CiliumLoadBalancerIPPool {}", p.name);
        let marked = p.actual_conflict.as_ref().map(|c| c.status == "True");
        if let Some(conflict) = &p.conflict {
            let seen = match marked {
                Some(true) => "; its status agrees",
                Some(false) => "; its status does not show it yet",
                None => "",
            };
            out.push(Finding {
                code: "LBD220",
                severity: Severity::Warning,
                message: format!("{object}: {conflict}; Cilium marks it cilium.io/PoolConflict and allocates nothing new from it{seen}"),
                hint: "Remove the overlap (the pool created later is the one marked); existing allocations stay until then".into(),
                objects: vec![object.clone()],
            });
        } else if marked == Some(true) {
            out.push(Finding {
                code: "LBD220",
                severity: Severity::Info,
                message: format!("{object}: its status says cilium.io/PoolConflict True, but no pool in the snapshot overlaps it: Cilium lifts the mark on its next reconcile"),
                hint: "If the mark stays, check that cilium-operator runs and that the snapshot holds every CiliumLoadBalancerIPPool".into(),
                objects: vec![object.clone()],
            });
        }
        if p.cidrs_only {
            out.push(Finding {
                code: "LBD221",
                severity: Severity::Error,
                message: format!("{object} sets only the deprecated spec.cidrs: current Cilium reads spec.blocks alone, so the pool offers no address"),
                hint: "Move the entries to spec.blocks (`- cidr: …`)".into(),
                objects: vec![object.clone()],
            });
        }
        let problem =
            p.invalid_block.clone().or_else(|| p.selector.as_ref().err().map(|e| format!("serviceSelector: {e}")));
        if let Some(problem) = problem {
            out.push(Finding {
                code: "LBD221",
                severity: Severity::Error,
                message: format!("{object} is not usable: {problem}"),
                hint: if p.invalid_block.is_some() {
                    "Blocks take `cidr`, or `start` with an optional `stop` of the same family; fix the pool and check `kubectl get ciliumloadbalancerippools`".into()
                } else {
                    "Fix spec.serviceSelector (operators In, NotIn, Exists, DoesNotExist; In/NotIn need values)".into()
                },
                objects: vec![object],
            });
        }
    }
    if c.installed && !c.l2_announcements && !snap.cilium.l2_policies.is_empty() {
        out.push(Finding {
            code: "LBD222",
            severity: Severity::Warning,
            message: format!("{} CiliumL2AnnouncementPolicy object(s) exist but enable-l2-announcements is not true in cilium-config: no agent announces anything", snap.cilium.l2_policies.len()),
            hint: "Set l2announcements.enabled=true (cilium-config enable-l2-announcements: \"true\") with kubeProxyReplacement, then restart the agents".into(),
            objects: vec![format!("ConfigMap {}/cilium-config", c.namespace)],
        });
    }
    if c.installed && c.l2_announcements {
        let kpr = c.kube_proxy_replacement.as_deref();
        if !matches!(kpr, Some("true" | "strict")) {
            let what = match kpr {
                Some(v) => format!("kube-proxy-replacement is {v:?}"),
                None => "cilium-config does not set kube-proxy-replacement (off by default)".to_string(),
            };
            out.push(Finding {
                code: "LBD222",
                severity: Severity::Warning,
                message: format!("enable-l2-announcements is on but {what}: L2 announcements answer through Cilium's service datapath, which needs kube-proxy replacement"),
                hint: "Enable kubeProxyReplacement (cilium-config kube-proxy-replacement: \"true\")".into(),
                objects: vec![format!("ConfigMap {}/cilium-config", c.namespace)],
            });
        }
        if !c.lease.corrections.is_empty() {
            let t = &c.lease;
            out.push(Finding {
                code: "LBD222",
                severity: Severity::Info,
                message: format!(
                    "Cilium corrects its L2 lease timing and uses lease {}s, renew deadline {}s, retry period {}s; it logs: {}",
                    t.lease_duration,
                    t.renew_deadline,
                    t.retry_period,
                    t.corrections.join(" / ")
                ),
                hint: "Set l2announcements leaseDuration > leaseRenewDeadline > 1.2 × leaseRetryPeriod".into(),
                objects: vec![format!("ConfigMap {}/cilium-config", c.namespace)],
            });
        }
    }
    for p in &imps.l2.policies {
        for (condition, error) in p.problems() {
            out.push(Finding {
                code: "LBD223",
                severity: Severity::Error,
                message: format!(
                    "CiliumL2AnnouncementPolicy {}: {error} (Cilium sets {condition} and ignores the policy)",
                    p.name
                ),
                hint:
                    "Fix the selector or the interface regular expression; Cilium clears the condition once it parses"
                        .into(),
                objects: vec![format!("CiliumL2AnnouncementPolicy {}", p.name)],
            });
        }
    }
    out
}
