//! Cilium L2 announcements in the report: LBD140–LBD147.

use std::collections::BTreeSet;

use super::super::implementations::Implementations;
use super::Subject;
use crate::cilium::l2::{self, EtpGate, Exclusion as L2Exclusion};
use crate::report::cilium::l2::LeaseState;
use crate::report::{CiliumService, Code, Finding, Implementation, ObjectRef, Severity};

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// What every L2 check reads about one Service whose Lease Cilium evaluated.
struct Ctx<'a> {
    imps: &'a Implementations<'a>,
    subject: &'a Subject<'a>,
    v: &'a l2::Verdict,
    lease: &'a LeaseState,
    lease_object: ObjectRef,
    ready: &'a BTreeSet<String>,
    /// Policies that select the Service.
    selecting: Vec<&'a str>,
    expects_l2: bool,
}

impl Ctx<'_> {
    fn object(&self) -> ObjectRef {
        self.subject.object.clone()
    }
    fn with_lease(&self) -> Vec<ObjectRef> {
        vec![self.object(), self.lease_object.clone()]
    }
}

type Check = fn(&Ctx, &mut Vec<Finding>);

/// The L2 checks in report order. All but the first two only apply once a policy selects the Service.
const CHECKS: &[Check] = &[
    holder_should_not_hold,
    no_policy_selects,
    nobody_competes_or_answers,
    shared_address_split,
    renew_overdue,
    local_traffic_policy,
    dash_lease_collision,
    no_matching_interface,
];

/// L2 Leases of one Service; `expects_l2`: Cilium L2 is how its address is meant to be reached
/// (class `io.cilium/l2-announcer`, or an LB-IPAM address without the BGP control plane).
pub(super) fn report(
    imps: &Implementations,
    subject: &Subject,
    expects_l2: bool,
    (detail, map): (bool, bool),
    findings: &mut Vec<Finding>,
) -> l2::Verdict {
    let (namespace, name) = (subject.namespace, subject.name);
    let ready = imps.ready_endpoints(namespace, name);
    let input = l2::Input {
        index: &imps.l2,
        service: subject.svc,
        ready_endpoint_nodes: &ready,
        captured_at: imps.captured_at,
        collides_with: l2::dash_collisions(&imps.lease_name_groups, namespace, name),
        detail,
        map,
    };
    let v = l2::evaluate(&input);
    if v.skipped.is_some() {
        return v;
    }
    let lease = v.lease.as_ref().expect("lease state is set when not skipped");
    let ctx = Ctx {
        imps,
        subject,
        v: &v,
        lease,
        lease_object: ObjectRef::new(
            "Lease",
            &lease.namespace,
            lease.name.as_deref().unwrap_or(&lease.names[preferred_name(imps)]),
        ),
        ready: &ready,
        selecting: v.policies.iter().filter(|p| p.selects).map(|p| p.policy.as_str()).collect(),
        expects_l2,
    };
    for check in CHECKS {
        check(&ctx, findings);
    }
    v
}

/// LBD141: the Lease holder is not (or no longer) eligible, or its agent is down.
fn holder_should_not_hold(c: &Ctx, out: &mut Vec<Finding>) {
    let (v, lease, imps) = (c.v, c.lease, c.imps);
    let Some(holder) = lease.holder.as_ref().filter(|_| lease.fresh != Some(false)) else { return };
    let not_eligible = lease.holder_eligible == Some(false);
    let agent_down = lease.holder_agent_ready == Some(false);
    if !(not_eligible || agent_down) {
        return;
    }
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
    out.push(Finding::new(
        Code::LBD141,
        format!("the L2 Lease is held by {holder}, which should not hold it: {why}. At best {holder}'s datapath still answers ARP/NDP; no other node takes over {until}"),
        hint,
        c.with_lease(),
    ));
}

/// LBD140: Cilium L2 is meant to carry the Service, but no policy selects it.
fn no_policy_selects(c: &Ctx, out: &mut Vec<Finding>) {
    if !c.selecting.is_empty() || !c.expects_l2 {
        return;
    }
    let why: Vec<String> = c.v.policies.iter().map(|p| format!("{}: {}", p.policy, p.why_not.unwrap_or(""))).collect();
    out.push(Finding::new(
        Code::LBD140,
        format!(
            "no CiliumL2AnnouncementPolicy selects it ({}), so nobody answers ARP/NDP for its addresses",
            if why.is_empty() { "there are none".to_string() } else { why.join("; ") }
        ),
        "Create or fix a CiliumL2AnnouncementPolicy: its serviceSelector must match the Service's labels (or io.kubernetes.service.namespace/name) and it must set loadBalancerIPs: true (externalIPs: true for spec.externalIPs)",
        vec![c.object()],
    ));
}

/// LBD142: selected, but no node can compete, or nobody holds a live Lease.
fn nobody_competes_or_answers(c: &Ctx, out: &mut Vec<Finding>) {
    let (v, lease) = (c.v, c.lease);
    if c.selecting.is_empty() {
        return;
    }
    if v.eligible.is_empty() {
        let policies = if c.selecting.len() == 1 {
            format!("policy {} selects", c.selecting[0])
        } else {
            format!("policies {} select", c.selecting.join(", "))
        };
        out.push(Finding::new(
            Code::LBD142,
            format!("{policies} it but no node can compete for its L2 Lease ({})", exclusion_summary(v)),
            "Make a policy's nodeSelector match CiliumNode labels of nodes with a Ready agent (and, under externalTrafficPolicy Local, a ready endpoint); the exclude-from-external-load-balancers label plays no part in Cilium L2",
            vec![c.object()],
        ));
        return;
    }
    if !lease.leases_captured || (lease.holder.is_some() && lease.fresh != Some(false)) {
        return;
    }
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
    out.push(Finding::new(
        Code::LBD142,
        format!(
            "{} may announce it ({}) but {state}: nobody is known to answer ARP/NDP",
            plural(v.eligible.len(), "node", "nodes"),
            v.eligible.join(", ")
        ),
        "Agents create or renew the Lease within the retry period; if none does, check the agents' logs for `Error processing` lines, the client rate limit (k8sClientRateLimit) and that the snapshot was taken while the Service existed",
        c.with_lease(),
    ));
}

/// LBD148: a shared address whose Services' Leases are held by different nodes.
fn shared_address_split(c: &Ctx, out: &mut Vec<Finding>) {
    let Some(me) = c.v.announcer.as_deref().filter(|_| !c.selecting.is_empty()) else { return };
    let key = format!("{}/{}", c.subject.namespace, c.subject.name);
    for ip in &c.v.lb_addresses {
        let others: Vec<&(String, String)> = c
            .imps
            .l2_holders_by_ip
            .get(ip)
            .into_iter()
            .flatten()
            .filter(|(svc, holder)| *svc != key && holder != me)
            .collect();
        if others.is_empty() {
            continue;
        }
        let listed: Vec<String> =
            others.iter().map(|(svc, holder)| format!("{svc} (its Lease held by {holder})")).collect();
        out.push(Finding::new(
            Code::LBD148,
            format!(
                "{ip} is shared with {}, while this Service's L2 Lease is held by {me}: each holder answers ARP/NDP for {ip}, so clients see several MACs",
                listed.join(", ")
            ),
            "Sharing Services each have their own Lease (Cilium issue #48419): keep them on one node by narrowing the policies' nodeSelector to one node per shared address, or give each Service its own address",
            std::iter::once(c.object()).chain(others.iter().map(|(svc, _)| ObjectRef::from_key("Service", svc))).collect(),
        ));
    }
}

/// LBD147: the holder stopped renewing before the Lease expired.
fn renew_overdue(c: &Ctx, out: &mut Vec<Finding>) {
    let lease = c.lease;
    let (false, Some(true), Some(holder)) = (c.selecting.is_empty(), lease.renew_overdue, lease.holder.as_ref()) else {
        return;
    };
    out.push(Finding::new(
        Code::LBD147,
        format!(
            "{holder} last renewed the L2 Lease at {}; at capture time that is longer ago than the renew deadline ({}s), so it has stopped leading (and announcing), while no other node can take over before the Lease expires at {}",
            lease.renew_time.as_deref().unwrap_or("?"),
            c.imps.cilium.lease.renew_deadline,
            lease.expires_at.as_deref().unwrap_or("?")
        ),
        format!("Check {holder}'s agent for API errors or throttling (k8sClientRateLimit must allow about #services / renewDeadline QPS); a clock difference between the capture machine and the cluster can also cause this"),
        c.with_lease(),
    ));
}

/// LBD143: externalTrafficPolicy Local under Cilium L2, gated from v1.20.2 only.
fn local_traffic_policy(c: &Ctx, out: &mut Vec<Finding>) {
    let (v, imps) = (c.v, c.imps);
    if c.selecting.is_empty() || v.etp_gate == EtpGate::NotLocal {
        return;
    }
    // Before v1.20.2 nothing stops a node without a local backend from holding the Lease.
    let stranded = match (v.etp_gate, v.announcer.as_deref()) {
        (EtpGate::Ungated | EtpGate::Unknown, Some(h)) => !c.ready.contains(h),
        _ => false,
    };
    let holder = v.announcer.as_deref().unwrap_or("");
    let version = imps.cilium.version.as_deref().unwrap_or("");
    let message = match v.etp_gate {
        EtpGate::Gated => format!(
            "externalTrafficPolicy Local: from Cilium v1.20.2 only nodes with a ready local backend compete for the Lease ({} of them)",
            v.eligible.len()
        ),
        EtpGate::Ungated if stranded => format!(
            "externalTrafficPolicy Local, and the Lease holder {holder} has no ready local endpoint: Cilium {version} does not tie the L2 leader to a local backend, so the traffic it receives is dropped"
        ),
        _ if stranded => format!(
            "externalTrafficPolicy Local, and the Lease holder {holder} has no ready local endpoint: if Cilium is older than v1.20.2 (its version is unknown), the traffic it receives is dropped"
        ),
        EtpGate::Ungated => format!(
            "externalTrafficPolicy Local, and Cilium {version} does not tie the L2 leader to a local backend: a leader without a local pod drops the traffic"
        ),
        _ => "externalTrafficPolicy Local and Cilium's version is unknown: before v1.20.2 the L2 leader may have no local pod (traffic dropped); from v1.20.2 only nodes with a local backend compete".to_string(),
    };
    out.push(Finding::new(
        Code::LBD143,
        message,
        "Prefer externalTrafficPolicy Cluster with Cilium L2 announcements, or run a backend on every node a policy selects; Cilium Ingress/Gateway Services are never announced under Local from v1.20.2",
        vec![c.object()],
    ).with_severity(if stranded { Severity::Error } else { Severity::Warning }));
}

/// LBD144: two Services whose dash-joined Lease names collide (Cilium up to v1.20).
fn dash_lease_collision(c: &Ctx, out: &mut Vec<Finding>) {
    let lease = c.lease;
    if c.selecting.is_empty()
        || lease.collides_with.is_empty()
        || lease.name.as_deref() == Some(lease.names[0].as_str())
        || c.imps.cilium.version.as_deref().and_then(l2::dotted_lease_names) == Some(true)
    {
        return;
    }
    out.push(Finding::new(
        Code::LBD144,
        format!(
            "its L2 Lease {} has the same name as that of {} (Cilium up to v1.20 joins namespace and name with '-'), so one Lease elects one leader for both",
            lease.names[1],
            lease.collides_with.join(", ")
        ),
        "Rename one of the Services, or upgrade Cilium to a release that names Leases cilium-l2announce-<ns>.<name>",
        vec![c.object()],
    ));
}

/// LBD146: the leader's selecting policies match none of its agent's devices.
fn no_matching_interface(c: &Ctx, out: &mut Vec<Finding>) {
    let Some(holder) = c.v.announcer.as_ref().filter(|_| !c.selecting.is_empty()) else { return };
    if !l2::announcer_interfaces(&c.imps.l2, c.v, holder).is_some_and(|i| i.is_empty()) {
        return;
    }
    out.push(Finding::new(
        Code::LBD146,
        format!("{holder} holds the L2 Lease, but the selecting policies' interfaces match none of the agent's devices ({}): the leader announces nothing", c.imps.cilium.devices.as_deref().unwrap_or_default().join(", ")),
        "Interface patterns are unanchored regular expressions matched against cilium-config `devices`; fix spec.interfaces or the devices list",
        vec![c.object()],
    ));
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

/// LBD145: an L2 policy selects a Service whose addresses LB-IPAM did not assign, so the Lease
/// holder answers for addresses another implementation (or the nodes themselves) answers for.
pub(super) fn foreign_addresses(
    imps: &Implementations,
    cilium: &CiliumService,
    claimants: &[Implementation],
    object: &ObjectRef,
    findings: &mut Vec<Finding>,
) {
    let (l2, has_lbipam, nodeipam) = (cilium.l2.as_ref(), cilium.lbipam.is_some(), cilium.nodeipam.as_ref());
    let selecting: Vec<&str> =
        l2.iter().flat_map(|v| v.policies.iter()).filter(|p| p.selects).map(|p| p.policy.as_str()).collect();
    let others: Vec<&str> = claimants
        .iter()
        .filter(|c| matches!(c, Implementation::Metallb | Implementation::K3sServicelb | Implementation::KubeVip))
        .map(|c| c.as_str())
        .collect();
    // Only status addresses come from another implementation, and only policies with
    // loadBalancerIPs announce them.
    let lb_policy = imps.l2.policies.iter().any(|p| p.load_balancer_ips && selecting.contains(&p.name.as_str()));
    let foreign: Vec<&str> = match (l2, has_lbipam, lb_policy && !others.is_empty()) {
        (Some(v), false, true) => v.lb_addresses.iter().map(String::as_str).collect(),
        _ => Vec::new(),
    };
    if !foreign.is_empty() {
        let one = foreign.len() == 1;
        let holder = l2.and_then(|v| v.announcer.as_deref());
        findings.push(Finding::new(
            Code::LBD145,
            format!(
                "{} {} {} from {}, and Cilium L2 policy {} selects the Service too: the Lease holder{} answers ARP/NDP for {} as well, so two nodes may answer with different MACs",
                if one { "address" } else { "addresses" },
                foreign.join(", "),
                if one { "comes" } else { "come" },
                others.join(" and "),
                selecting.join(", "),
                holder.map(|h| format!(" ({h})")).unwrap_or_default(),
                if one { "it" } else { "them" }
            ),
            "Give Cilium L2 policies a serviceSelector that leaves out Services another implementation announces (e.g. match a label only your Cilium Services carry)",
            vec![object.clone()],
        ));
    }
    if let Some(n) = nodeipam {
        if !selecting.is_empty() && !n.expected_ingress.is_empty() {
            findings.push(Finding::new(
                Code::LBD145,
                format!("its addresses are node addresses from Node IPAM ({}), and L2 policy {} selects it too: the L2 leader would answer ARP/NDP for other nodes' own addresses", n.expected_ingress.join(", "), selecting.join(", ")),
                "Exclude Node IPAM Services from L2 policies (serviceSelector), or give the Service class io.cilium/node, which L2 never announces",
                vec![object.clone()],
            ));
        }
    }
}
