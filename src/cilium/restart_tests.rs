//! The restart replay against cases read off Cilium's start-up path (operator/pkg/lbipam:
//! revalidateAllServices, stripOrImportIngresses, satisfyService; pkg/ipalloc AllocAny).

use serde_json::json;

use super::lbipam::{self, Ledger, Reason, Verdict};
use super::restart::Rules;
use super::tests::{pool, setup, svc, with_ingress, T0, T1};
use crate::snapshot::cilium::IpPool;
use crate::snapshot::Service;

fn verdict_with(rules: Rules, pools: &[IpPool], services: &[Service], target: &str) -> Verdict {
    let s = setup();
    let requests: Vec<_> = services.iter().map(|x| lbipam::request(&s, x)).collect();
    let index = requests.iter().position(|r| r.name == target).unwrap();
    lbipam::evaluate(&Ledger::new(lbipam::pools(pools), requests, rules), index)
}

fn verdict(pools: &[IpPool], services: &[Service], target: &str) -> Verdict {
    verdict_with(Rules::NEWEST, pools, services, target)
}

/// Each outcome as `ingress list / reason` (`kept` = condition left as it is).
fn outcomes(v: &Verdict) -> Vec<String> {
    let mut out: Vec<String> = v
        .restart
        .outcomes
        .iter()
        .map(|o| {
            let reason = o.condition.as_ref().map_or("kept", |c| c.reason.map_or("?", Reason::as_str));
            format!("{} / {reason}", o.ingress.join(","))
        })
        .collect();
    out.sort();
    out
}

fn ingress_and(extra: serde_json::Value, ips: &[&str]) -> serde_json::Value {
    let mut v = with_ingress(ips);
    for (k, val) in extra.as_object().unwrap() {
        v[k] = val.clone();
    }
    v
}

#[test]
fn address_from_a_disabled_pool_is_kept_while_running_and_replaced_on_restart() {
    let p = [
        pool("old", json!({"blocks": [{"cidr": "198.51.100.0/28"}], "disabled": true}), T0),
        pool("new", json!({"blocks": [{"cidr": "192.0.2.64/28"}]}), T0),
    ];
    let v = verdict(&p, &[svc("web", with_ingress(&["198.51.100.5"]))], "web");
    assert!(v.satisfied, "a running operator keeps it: {v:?}");
    assert_eq!(outcomes(&v), ["192.0.2.64 / satisfied"]);
    assert_eq!(v.restart.loses.len(), 1);
    assert_eq!((v.restart.loses[0].ip.as_str(), v.restart.loses[0].pool.as_str()), ("198.51.100.5", "old"));
    assert_eq!(v.restart.loses[0].cause, super::lbipam::LostCause::PoolDisabled);
    assert!(v.restart.exhaustive);
}

#[test]
fn an_address_two_satisfied_services_hold_goes_to_either_and_the_other_gets_the_smallest_block() {
    let p = [pool("blue", json!({"blocks": [{"cidr": "198.51.100.0/28"}]}), T0)];
    let services = [svc("a", with_ingress(&["198.51.100.5"])), svc("b", with_ingress(&["198.51.100.5"]))];
    let v = verdict(&p, &services, "a");
    // The loser's AllocAny: blocks .0-.4 (5 addresses) and .6-.15 (10): the smaller one's first.
    assert_eq!(outcomes(&v), ["198.51.100.0 / satisfied", "198.51.100.5 / kept"]);
    assert_eq!(v.expected.reason, Some(Reason::Satisfied), "either way it ends satisfied");
    assert!(v.restart.loses.is_empty(), "a contested address is LBD126's, not held");
}

#[test]
fn the_satisfied_group_allocates_first_so_a_request_for_the_same_address_fails() {
    let p = [pool("blue", json!({"blocks": [{"cidr": "198.51.100.0/28"}]}), T0)];
    // `moved` counts as satisfied (an IPv4 address in status), loses it on import, and is
    // satisfied before `asker`, which is in the unsatisfied group.
    let services = [
        svc("moved", with_ingress(&["203.0.113.7"])),
        svc("asker", json!({"metadata": {"annotations": {"lbipam.cilium.io/ips": "198.51.100.0"}}})),
    ];
    let v = verdict(&p, &services, "asker");
    assert_eq!(outcomes(&v), [" / already_allocated"]);
    assert_eq!(v.expected.reason, Some(Reason::AlreadyAllocated));
    assert_eq!(v.expected.message, "The IP '198.51.100.0' is already allocated to another service");
    let moved = verdict(&p, &services, "moved");
    assert_eq!(outcomes(&moved), ["198.51.100.0 / satisfied"]);
}

#[test]
fn before_v1_19_the_unsatisfied_request_may_go_first() {
    let p = [pool("blue", json!({"blocks": [{"cidr": "198.51.100.0/28"}]}), T0)];
    let services = [
        svc("moved", with_ingress(&["203.0.113.7"])),
        svc("asker", json!({"metadata": {"annotations": {"lbipam.cilium.io/ips": "198.51.100.0"}}})),
    ];
    let v = verdict_with(Rules::for_version(Some("v1.18.4")), &p, &services, "asker");
    assert_eq!(outcomes(&v), [" / already_allocated", "198.51.100.0 / satisfied"]);
}

#[test]
fn alloc_any_takes_the_first_address_of_the_smallest_free_block() {
    let p = [pool("blue", json!({"blocks": [{"cidr": "198.51.100.0/28"}]}), T0)];
    let services =
        [svc("a", with_ingress(&["198.51.100.5"])), svc("b", with_ingress(&["198.51.100.10"])), svc("c", json!({}))];
    // Free blocks .0-.4, .6-.9, .11-.15: the 4-address one wins.
    let v = verdict(&p, &services, "c");
    assert_eq!(outcomes(&v), ["198.51.100.6 / satisfied"]);
    assert_eq!(v.expected.reason, Some(Reason::Satisfied));
}

#[test]
fn two_pending_services_and_one_free_address_leave_either_out_of_ips() {
    let p = [pool("one", json!({"blocks": [{"cidr": "198.51.100.9/32"}]}), T0)];
    let services = [svc("a", json!({})), svc("b", json!({}))];
    let v = verdict(&p, &services, "a");
    assert_eq!(outcomes(&v), [" / out_of_ips", "198.51.100.9 / satisfied"]);
    assert_eq!(v.expected.status, "Unknown");
    let m = &v.expected.message;
    assert!(m.starts_with("depends on the order cilium-operator takes the Services in"), "{m}");
    assert!(m.contains("True satisfied") && m.contains("False out_of_ips"), "{m}");
}

#[test]
fn a_sharing_key_joins_the_address_whatever_pool_holds_it() {
    let p = [
        pool(
            "blue",
            json!({"blocks": [{"cidr": "198.51.100.0/28"}], "serviceSelector": {"matchLabels": {"team": "blue"}}}),
            T0,
        ),
        pool("any", json!({"blocks": [{"cidr": "192.0.2.64/28"}]}), T1),
    ];
    let key = json!({"lbipam.cilium.io/sharing-key": "k"});
    let holder = svc(
        "holder",
        ingress_and(json!({"metadata": {"labels": {"team": "blue"}, "annotations": key}}), &["198.51.100.5"]),
    );
    let joiner = svc("joiner", json!({"metadata": {"annotations": key}, "spec": {"ports": [{"port": 443}]}}));
    let v = verdict(&p, &[holder, joiner], "joiner");
    assert_eq!(outcomes(&v), ["198.51.100.5 / satisfied"]);
    assert_eq!(v.candidate_pools, ["blue"], "the pool holding the shared address serves it");
}

#[test]
fn importing_a_shared_address_joins_on_main_and_is_dropped_then_rejoined_before() {
    let p = [pool("blue", json!({"blocks": [{"cidr": "198.51.100.0/28"}]}), T0)];
    let key = json!({"lbipam.cilium.io/sharing-key": "k"});
    let a = svc("a", ingress_and(json!({"metadata": {"annotations": key}}), &["198.51.100.5"]));
    let b = svc(
        "b",
        ingress_and(json!({"metadata": {"annotations": key}, "spec": {"ports": [{"port": 443}]}}), &["198.51.100.5"]),
    );
    let services = [a, b];
    assert_eq!(outcomes(&verdict(&p, &services, "a")), ["198.51.100.5 / kept"]);
    assert!(verdict(&p, &services, "a").restart.loses.is_empty());
    // v1.20: the second importer drops it, then finds it again through the sharing-key index.
    let v = verdict_with(Rules::for_version(Some("v1.20.3")), &p, &services, "a");
    assert_eq!(outcomes(&v), ["198.51.100.5 / kept", "198.51.100.5 / satisfied"]);
}

#[test]
fn reserved_first_address_is_never_imported() {
    let p = [pool("edge", json!({"blocks": [{"cidr": "198.51.100.0/30"}], "allowFirstLastIPs": "No"}), T0)];
    let v = verdict(&p, &[svc("web", with_ingress(&["198.51.100.0"]))], "web");
    assert_eq!(outcomes(&v), ["198.51.100.1 / satisfied"]);
}

#[test]
fn release_lines_from_image_tags() {
    assert_eq!(Rules::for_version(Some("v1.21.0-pre.1")), Rules::NEWEST);
    assert_eq!(Rules::for_version(Some("main")), Rules::NEWEST);
    assert_eq!(Rules::for_version(None), Rules::NEWEST);
    let r = Rules::for_version(Some("v1.19.2"));
    assert!(r.satisfied_first && !r.two_phase && !r.import_joins && r.import_indexes_key);
    let r = Rules::for_version(Some("1.16.5"));
    assert!(!r.satisfied_first && !r.import_indexes_key);
    assert_eq!(r.label, "v1.16 and older");
}
