//! Engine tests built from the spec's rules (cilium.md §2, §3), one behaviour each.

use std::sync::Arc;

use crate::snapshot::Service;
use k8s_openapi::api::coordination::v1::Lease;
use serde_json::{json, Value};

use super::install::{LeaseTiming, Setup};
use super::l2::{self, Exclusion};
use super::lbipam::{self, Ledger, Reason};
use super::restart::Rules;
use crate::snapshot::cilium::{IpPool, L2Policy};

pub(super) fn setup() -> Setup {
    Setup {
        installed: true,
        evidence: vec![],
        namespace: "kube-system".into(),
        config_found: true,
        node_ipam: false,
        lb_ipam: true,
        default_lb_service_ipam: "lbipam".into(),
        l2_announcements: true,
        bgp_control_plane: false,
        ipv4: true,
        ipv6: false,
        kube_proxy_replacement: Some("true".into()),
        devices: None,
        lease: LeaseTiming::sanitise(None, None, None),
        version: Some("v1.18.4".into()),
        operator_version: None,
        agents: None,
    }
}

pub(super) fn svc(name: &str, extra: Value) -> Service {
    let mut v = json!({
        "metadata": {"namespace": "default", "name": name},
        "spec": {"type": "LoadBalancer", "ipFamilies": ["IPv4"], "ports": [{"port": 80}]},
    });
    merge(&mut v, extra);
    serde_json::from_value(v).unwrap()
}

fn merge(a: &mut Value, b: Value) {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                merge(a.entry(k).or_insert(Value::Null), v);
            }
        }
        (a, b) => *a = b,
    }
}

pub(super) fn pool(name: &str, spec: Value, created: &str) -> IpPool {
    serde_json::from_value(json!({
        "apiVersion": "cilium.io/v2", "kind": "CiliumLoadBalancerIPPool",
        "metadata": {"name": name, "creationTimestamp": created}, "spec": spec,
    }))
    .unwrap()
}

pub(super) fn with_ingress(ips: &[&str]) -> Value {
    json!({"status": {"loadBalancer": {"ingress": ips.iter().map(|ip| json!({"ip": ip})).collect::<Vec<_>>()}}})
}

/// Evaluates the Service named `target` among `services` against `pools`.
pub(super) fn lbipam_verdict(pools: &[IpPool], services: &[Service], target: &str) -> lbipam::Verdict {
    let s = setup();
    let requests: Vec<_> = services.iter().map(|x| lbipam::request(&s, x)).collect();
    let index = requests.iter().position(|r| r.name == target).unwrap();
    lbipam::evaluate(&Ledger::new(lbipam::pools(pools), requests, Rules::NEWEST), index)
}

pub(super) const T0: &str = "2026-01-01T00:00:00Z";
pub(super) const T1: &str = "2026-02-01T00:00:00Z";

#[test]
fn specific_ip_outside_every_pool_is_no_pool_with_ciliums_message() {
    let p = [pool("blue", json!({"blocks": [{"cidr": "198.51.100.0/28"}]}), T0)];
    let v = lbipam_verdict(
        &p,
        &[svc("web", json!({"metadata": {"annotations": {"lbipam.cilium.io/ips": "203.0.113.9"}}}))],
        "web",
    );
    assert_eq!(v.expected.reason, Some(Reason::NoPool));
    assert_eq!(v.expected.message, "No pool exists with a CIDR containing '203.0.113.9'");
}

#[test]
fn pool_selector_mismatch_names_the_ip() {
    let p = [pool(
        "blue",
        json!({"blocks": [{"cidr": "198.51.100.0/28"}], "serviceSelector": {"matchLabels": {"team": "blue"}}}),
        T0,
    )];
    let v = lbipam_verdict(&p, &[svc("web", json!({"spec": {"loadBalancerIP": "198.51.100.3"}}))], "web");
    assert_eq!(v.expected.reason, Some(Reason::PoolSelectorMismatch));
    assert_eq!(v.expected.message, "The pool with the CIDR containing '198.51.100.3', doesn't select this service");
}

#[test]
fn pseudo_labels_select_by_namespace_and_name() {
    let p = [pool(
        "blue",
        json!({"blocks": [{"cidr": "198.51.100.0/28"}], "serviceSelector": {"matchLabels": {"io.kubernetes.service.name": "web"}}}),
        T0,
    )];
    let v = lbipam_verdict(&p, &[svc("web", with_ingress(&["198.51.100.0"]))], "web");
    assert!(v.satisfied, "{v:?}");
    assert_eq!(v.held[0].pool, "blue");
}

#[test]
fn taken_ip_without_sharing_key_is_already_allocated() {
    let p = [pool("blue", json!({"blocks": [{"cidr": "198.51.100.0/28"}]}), T0)];
    let services =
        [svc("db", with_ingress(&["198.51.100.5"])), svc("web", json!({"spec": {"loadBalancerIP": "198.51.100.5"}}))];
    let v = lbipam_verdict(&p, &services, "web");
    assert_eq!(v.expected.reason, Some(Reason::AlreadyAllocated));
}

#[test]
fn sharing_needs_distinct_ports_and_the_reason_is_ciliums() {
    let p = [pool("blue", json!({"blocks": [{"cidr": "198.51.100.0/28"}]}), T0)];
    let key = json!({"metadata": {"annotations": {"lbipam.cilium.io/sharing-key": "k"}}});
    let mut db = svc("db", key.clone());
    db.status = serde_json::from_value(with_ingress(&["198.51.100.5"])["status"].clone()).unwrap();
    let mut web = svc("web", key);
    web.spec.as_mut().unwrap().load_balancer_ip = Some("198.51.100.5".into());
    let v = lbipam_verdict(&p, &[db.clone(), web.clone()], "web");
    assert_eq!(v.expected.reason, Some(Reason::AlreadyAllocatedIncompatibleService));
    assert_eq!(
        v.expected.message,
        "The IP '198.51.100.5' is already allocated to an incompatible service. Reason: same port"
    );
    // Distinct ports: it joins at LB-IPAM's next reconcile.
    web.spec.as_mut().unwrap().ports.as_mut().unwrap()[0].port = 443;
    let v = lbipam_verdict(&p, &[db, web], "web");
    assert_eq!((v.expected.status, v.expected.reason), ("True", Some(Reason::Satisfied)));
    assert!(!v.satisfied);
    assert_eq!(v.restart.outcomes.len(), 1);
    assert_eq!(v.restart.outcomes[0].ingress, ["198.51.100.5"]);
}

#[test]
fn cross_namespace_list_is_not_trimmed() {
    let s = setup();
    let a = lbipam::request(
        &s,
        &svc(
            "a",
            json!({"metadata": {"namespace": "x", "annotations": {"lbipam.cilium.io/sharing-key": "k", "lbipam.cilium.io/sharing-cross-namespace": "default, y"}}}),
        ),
    );
    let b = lbipam::request(
        &s,
        &svc(
            "b",
            json!({"metadata": {"namespace": "y", "annotations": {"lbipam.cilium.io/sharing-key": "k", "lbipam.cilium.io/sharing-cross-namespace": "*"}, }, "spec": {"ports": [{"port": 81}]}}),
        ),
    );
    assert_eq!(lbipam::incompatibility(&a, &b), Some("different and not permitted namespace"));
}

#[test]
fn first_present_alias_wins_even_when_empty() {
    let s = setup();
    let r = lbipam::request(
        &s,
        &svc(
            "web",
            json!({"metadata": {"annotations": {"lbipam.cilium.io/ips": "", "io.cilium/lb-ipam-ips": "198.51.100.1"}}}),
        ),
    );
    assert!(r.specific.is_empty());
    let r = lbipam::request(
        &s,
        &svc("web", json!({"metadata": {"annotations": {"io.cilium/lb-ipam-ips": "198.51.100.1, 198.51.100.1,x"}}})),
    );
    assert_eq!(r.specific.len(), 1);
    assert_eq!(r.unparsable, vec!["x"]);
}

#[test]
fn full_pool_is_out_of_ips_and_reserved_edges_count() {
    let p = [pool("tiny", json!({"blocks": [{"cidr": "198.51.100.0/30"}], "allowFirstLastIPs": "No"}), T0)];
    // /30 with No: .1 and .2 are allocatable; both held.
    let services =
        [svc("a", with_ingress(&["198.51.100.1"])), svc("b", with_ingress(&["198.51.100.2"])), svc("web", json!({}))];
    let v = lbipam_verdict(&p, &services, "web");
    assert_eq!(v.expected.reason, Some(Reason::OutOfIps));
    // Requesting the reserved network address is already_allocated.
    let v = lbipam_verdict(&p, &[svc("web", json!({"spec": {"loadBalancerIP": "198.51.100.0"}}))], "web");
    assert_eq!(v.expected.reason, Some(Reason::AlreadyAllocated));
}

#[test]
fn no_matching_pool_of_the_family_is_no_pool() {
    let p = [pool("v6", json!({"blocks": [{"cidr": "2001:db8::/120"}]}), T0)];
    let v = lbipam_verdict(&p, &[svc("web", json!({}))], "web");
    assert_eq!(v.expected.reason, Some(Reason::NoPool));
    assert_eq!(v.expected.message, "There are no enabled CiliumLoadBalancerIPPools that match this service");
}

#[test]
fn foreign_ingress_is_stripped_and_generic_request_lists_candidate_pools() {
    let p = [
        pool("a", json!({"blocks": [{"cidr": "198.51.100.0/28"}]}), T0),
        pool("b", json!({"blocks": [{"cidr": "198.51.100.16/28"}]}), T0),
    ];
    let v = lbipam_verdict(&p, &[svc("web", with_ingress(&["192.0.2.240"]))], "web");
    assert_eq!(v.stripped, vec!["192.0.2.240"]);
    assert_eq!(v.candidate_pools, vec!["a", "b"]);
    assert_eq!(v.expected.reason, Some(Reason::Satisfied), "either pool satisfies it");
    // Go's map order picks the pool: the replay keeps both first addresses.
    let mut after: Vec<_> = v.restart.outcomes.iter().map(|o| o.ingress.join(",")).collect();
    after.sort();
    assert_eq!(after, ["198.51.100.0", "198.51.100.16"]);
}

#[test]
fn later_pool_is_marked_in_conflict() {
    let pools = lbipam::pools(&[
        pool("b", json!({"blocks": [{"cidr": "198.51.100.0/28"}]}), T1),
        pool("a", json!({"blocks": [{"start": "198.51.100.10", "stop": "198.51.100.20"}]}), T0),
    ]);
    let by_name = |name: &str| pools.iter().find(|p| p.name == name).unwrap();
    assert_eq!(
        by_name("b").conflict.as_deref(),
        Some("Pool conflicts since range '198.51.100.0 - 198.51.100.15' overlaps range '198.51.100.10 - 198.51.100.20' from IP Pool 'a'")
    );
    assert!(by_name("a").conflict.is_none());
}

#[test]
fn require_dual_stack_on_a_single_stack_cluster_asks_for_one_family() {
    let s = setup();
    let r = lbipam::request(
        &s,
        &svc("web", json!({"spec": {"ipFamilyPolicy": "RequireDualStack", "ipFamilies": ["IPv4", "IPv6"]}})),
    );
    assert_eq!(r.families.len(), 1);
}

fn policy(name: &str, spec: Value) -> L2Policy {
    serde_json::from_value(json!({"apiVersion": "cilium.io/v2alpha1", "kind": "CiliumL2AnnouncementPolicy", "metadata": {"name": name}, "spec": spec})).unwrap()
}

fn lease(name: &str, holder: &str, renewed: &str, seconds: i32) -> Lease {
    serde_json::from_value(json!({
        "metadata": {"namespace": "kube-system", "name": name},
        "spec": {"holderIdentity": holder, "renewTime": renewed, "leaseDurationSeconds": seconds},
    }))
    .unwrap()
}

fn l2_eval(setup: &Setup, policies: &[L2Policy], service: &Service, leases: &[Lease], captured: &str) -> l2::Verdict {
    let label =
        |zone: &str| -> crate::k8s::selector::Labels { [("zone".to_string(), zone.to_string())].into_iter().collect() };
    let (a, b) = (label("a"), label("b"));
    let nodes = [("node-a".to_string(), &a, false), ("node-b".to_string(), &b, true)];
    let index = l2::Index::new(setup.clone(), l2::policies(policies), &nodes, leases);
    let ready = Default::default();
    l2::evaluate(&l2::Input {
        index: &index,
        service,
        ready_endpoint_nodes: &ready,
        captured_at: Some(captured.parse().unwrap()),
        collides_with: vec![],
        detail: true,
        map: false,
    })
}

#[test]
fn l2_eligible_set_follows_policy_node_selector_and_ignores_the_exclude_label() {
    let s = setup();
    let p = [policy("all", json!({"loadBalancerIPs": true}))];
    let web = svc("web", with_ingress(&["198.51.100.1"]));
    let v = l2_eval(&s, &p, &web, &[], "2026-11-20T10:00:00Z");
    assert_eq!(&*v.eligible, &[Arc::from("node-a"), Arc::from("node-b")]);
    assert!(v.nodes.iter().any(|n| &*n.node == "node-b" && n.exclude_label && n.eligible));
    let p = [policy("zone-a", json!({"loadBalancerIPs": true, "nodeSelector": {"matchLabels": {"zone": "a"}}}))];
    let v = l2_eval(&s, &p, &web, &[], "2026-11-20T10:00:00Z");
    assert_eq!(&*v.eligible, &[Arc::from("node-a")]);
    assert_eq!(v.excluded.not_selected_by_policy, 1);
    assert_eq!(v.nodes[1].excluded_by, vec![Exclusion::NotSelectedByPolicy]);
}

#[test]
fn l2_policy_needs_the_address_type() {
    let s = setup();
    let p = [policy("ext-only", json!({"externalIPs": true}))];
    let v = l2_eval(&s, &p, &svc("web", with_ingress(&["198.51.100.1"])), &[], "2026-11-20T10:00:00Z");
    assert_eq!(v.policies[0].why_not, Some("noAddressType"));
    assert!(v.eligible.is_empty());
}

#[test]
fn l2_lease_is_judged_at_capture_time_and_both_name_forms_are_read() {
    let s = setup();
    let p = [policy("all", json!({"loadBalancerIPs": true}))];
    let web = svc("web", with_ingress(&["198.51.100.1"]));
    let fresh = [lease("cilium-l2announce-default-web", "node-b", "2026-11-20T09:59:55.000000Z", 15)];
    let v = l2_eval(&s, &p, &web, &fresh, "2026-11-20T10:00:00Z");
    assert_eq!(v.announcer.as_deref(), Some("node-b"));
    let lease_state = v.lease.unwrap();
    assert_eq!(lease_state.fresh, Some(true));
    assert_eq!(lease_state.holder_eligible, Some(true));
    assert_eq!(lease_state.renew_overdue, Some(false));
    // Unexpired, but older than the 5s renew deadline: the holder has given up leading.
    let late = [lease("cilium-l2announce-default-web", "node-b", "2026-11-20T09:59:52.000000Z", 15)];
    let v = l2_eval(&s, &p, &web, &late, "2026-11-20T10:00:00Z");
    assert_eq!(v.lease.as_ref().unwrap().fresh, Some(true));
    assert_eq!(v.lease.as_ref().unwrap().renew_overdue, Some(true));
    let dotted = [lease("cilium-l2announce-default.web", "node-a", "2026-11-20T09:59:00.000000Z", 15)];
    let v = l2_eval(&s, &p, &web, &dotted, "2026-11-20T10:00:00Z");
    assert_eq!(v.lease.as_ref().unwrap().fresh, Some(false));
    assert_eq!(v.announcer, None);
}

#[test]
fn l2_skips_foreign_classes_and_services_without_addresses() {
    let s = setup();
    let p = [policy("all", json!({"loadBalancerIPs": true}))];
    let node_class = svc(
        "web",
        json!({"spec": {"loadBalancerClass": "io.cilium/node"}, "status": {"loadBalancer": {"ingress": [{"ip": "192.0.2.1"}]}}}),
    );
    assert_eq!(l2_eval(&s, &p, &node_class, &[], "2026-11-20T10:00:00Z").skipped, Some(l2::Skip::OtherClass));
    assert_eq!(
        l2_eval(&s, &p, &svc("web", json!({})), &[], "2026-11-20T10:00:00Z").skipped,
        Some(l2::Skip::NoAddresses)
    );
}

#[test]
fn ingress_not_asked_for_is_stripped_even_inside_a_pool() {
    let p = [pool("blue", json!({"blocks": [{"cidr": "198.51.100.0/28"}, {"cidr": "2001:db8::/124"}]}), T0)];
    // A specific request: another address of the pool in status is removed.
    let mut web = svc("web", with_ingress(&["198.51.100.3"]));
    web.spec.as_mut().unwrap().load_balancer_ip = Some("198.51.100.4".into());
    let v = lbipam_verdict(&p, &[web], "web");
    assert_eq!(v.stripped, vec!["198.51.100.3"]);
    // An IPv4-only Service does not keep an IPv6 address.
    let v = lbipam_verdict(&p, &[svc("web", with_ingress(&["198.51.100.3", "2001:db8::1"]))], "web");
    assert_eq!(v.stripped, vec!["2001:db8::1"]);
    assert!(v.satisfied);
}
