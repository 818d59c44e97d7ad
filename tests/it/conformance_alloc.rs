//! Conformance with MetalLB v0.16.1's allocator and controller: every vector of
//! `metallb-alloc-v0.16.1.json` (recorded from MetalLB's own code) replayed step by step.

use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use lbdoctor::k8s::cidr::parse_pool_address;
use lbdoctor::k8s::ip::{go_ip_string, parse_go_ip};
use lbdoctor::k8s::selector::Selector;
use lbdoctor::metallb::alloc::allocator::{Allocator, Key};
use lbdoctor::metallb::alloc::controller::{Controller, SyncState};
use lbdoctor::metallb::alloc::family::Family;
use lbdoctor::metallb::alloc::pools::{AllocPool, Pools, ServiceAllocation};
use lbdoctor::metallb::alloc::svc::{Port, SvcView};
use lbdoctor::metallb::config::{self, ConfigInput};
use lbdoctor::metallb::release::{Release, Rules};
use lbdoctor::snapshot::crd::IpAddressPool;
use lbdoctor::snapshot::Service;
use serde_json::{json, Value};

use crate::util::{self, strs};

fn vectors() -> Vec<Value> {
    util::vectors("metallb-alloc-v0.16.1.json")
}

fn pool(v: &Value) -> (String, AllocPool) {
    let name = v["name"].as_str().unwrap().to_string();
    let cidrs = strs(&v["addresses"]).iter().flat_map(|a| parse_pool_address(a).unwrap()).collect();
    let service_allocation = (!v["serviceAllocation"].is_null()).then(|| {
        let sa = &v["serviceAllocation"];
        let sels: Vec<LabelSelector> = serde_json::from_value(sa["serviceSelectors"].clone()).unwrap_or_default();
        ServiceAllocation {
            priority: sa["priority"].as_i64().unwrap_or(0),
            namespaces: strs(&sa["namespaces"]).into_iter().collect(),
            service_selectors: sels.iter().map(|s| Selector::compile(s).unwrap()).collect(),
        }
    });
    let key = v["mapKey"].as_str().map(str::to_string).unwrap_or_else(|| name.clone());
    let p = AllocPool {
        name,
        cidrs,
        auto_assign: v["autoAssign"].as_bool().unwrap(),
        avoid_buggy_ips: v["avoidBuggyIPs"].as_bool().unwrap(),
        service_allocation,
    };
    (key, p)
}

fn pools(v: &Value) -> Option<Pools> {
    v.as_array().map(|list| Pools::new(list.iter().map(pool)))
}

/// The vector's Service, as the Kubernetes object lbdoctor reads from a snapshot.
fn service(v: &Value) -> SvcView<'static> {
    let mut spec = json!({"type": v["type"], "ports": v["ports"]});
    for (from, to) in [
        ("selector", "selector"),
        ("externalTrafficPolicy", "externalTrafficPolicy"),
        ("ipFamilies", "ipFamilies"),
        ("ipFamilyPolicy", "ipFamilyPolicy"),
        ("clusterIP", "clusterIP"),
        ("clusterIPs", "clusterIPs"),
        ("loadBalancerIP", "loadBalancerIP"),
        ("loadBalancerClass", "loadBalancerClass"),
    ] {
        if !v[from].is_null() {
            spec[to] = v[from].clone();
        }
    }
    let mut obj = json!({
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"namespace": v["namespace"], "name": v["name"]},
        "spec": spec,
    });
    for field in ["labels", "annotations"] {
        if !v[field].is_null() {
            obj["metadata"][field] = v[field].clone();
        }
    }
    if !v["statusIngress"].is_null() {
        obj["status"] = json!({"loadBalancer": {"ingress": v["statusIngress"]}});
    }
    let svc: Service = serde_json::from_value(obj).unwrap();
    // Leaked: a view borrows its Service, and each test case needs only a few.
    SvcView::from_service(Box::leak(Box::new(svc)))
}

fn ports(v: &Value) -> Vec<Port> {
    v.as_array()
        .into_iter()
        .flatten()
        .map(|p| Port::new(p["protocol"].as_str().unwrap_or(""), p["port"].as_i64().unwrap() as i32))
        .collect()
}

fn family(v: &Value) -> Family {
    match v.as_str().unwrap() {
        "ipv4" => Family::V4,
        "ipv6" => Family::V6,
        "dual" => Family::Dual,
        other => panic!("family {other}"),
    }
}

fn texts(ips: &[IpAddr]) -> Vec<String> {
    ips.iter().map(|ip| go_ip_string(*ip)).collect()
}

fn check_after(ctx: &str, a: &Allocator, key: &str, after: &Value) {
    if after.is_null() {
        return;
    }
    if !after["ips"].is_null() {
        assert_eq!(texts(&a.ips(key)), strs(&after["ips"]), "{ctx}: ips after");
    }
    if let Some(p) = after["pool"].as_str() {
        assert_eq!(a.pool(key), p, "{ctx}: pool after");
    }
    if !after["pool_any_of"].is_null() {
        assert!(strs(&after["pool_any_of"]).contains(&a.pool(key).to_string()), "{ctx}: pool after {}", a.pool(key));
    }
}

fn check_result(ctx: &str, result: Result<Vec<IpAddr>, String>, expect: &Value) {
    match result {
        Ok(ips) => {
            assert_eq!(expect["ok"], json!(true), "{ctx}: succeeded with {ips:?}, expected {expect}");
            if !expect["ips"].is_null() {
                assert_eq!(texts(&ips), strs(&expect["ips"]), "{ctx}: ips");
            }
            if !expect["ips_within"].is_null() {
                let allowed = strs(&expect["ips_within"]);
                assert_eq!(ips.len() as u64, expect["count"].as_u64().unwrap(), "{ctx}: count");
                for ip in texts(&ips) {
                    assert!(allowed.contains(&ip), "{ctx}: {ip} not within {allowed:?}");
                }
            }
        }
        Err(e) => {
            assert_eq!(expect["ok"], json!(false), "{ctx}: failed with {e:?}, expected {expect}");
            if let Some(want) = expect["error_contains"].as_str() {
                assert_eq!(e, want, "{ctx}: error text");
            }
        }
    }
}

fn run_allocator(v: &Value) {
    let mut a = Allocator::new();
    if let Some(p) = pools(&v["pools"]) {
        a.set_pools(p);
    }
    for (i, step) in v["steps"].as_array().unwrap().iter().enumerate() {
        let ctx = format!("{} step {i} ({})", v["name"].as_str().unwrap(), step["desc"].as_str().unwrap_or(""));
        let expect = &step["expect"];
        let key = step["svcKey"].as_str().unwrap_or("");
        let sk = || Key::new(step["sharingKey"].as_str().unwrap_or(""), step["backendKey"].as_str().unwrap_or(""));
        match step["op"].as_str().unwrap() {
            "assign" => {
                let ips: Vec<Option<IpAddr>> = strs(&step["ips"]).iter().map(|s| parse_go_ip(s)).collect();
                let r = a.assign(key, &service(&step["service"]), &ips, &ports(&step["ports"]), &sk());
                check_result(&ctx, r.map(|_| ips.into_iter().flatten().collect()).map_err(|e| e.to_string()), expect);
            }
            "unassign" => a.unassign(key),
            "allocate" => {
                let r = a.allocate(
                    key,
                    &service(&step["service"]),
                    family(&step["ipFamily"]),
                    &ports(&step["ports"]),
                    &sk(),
                );
                check_result(&ctx, r.map_err(|e| e.to_string()), expect);
            }
            "allocate_from_pool" => {
                let r = a.allocate_from_pool(
                    key,
                    &service(&step["service"]),
                    family(&step["ipFamily"]),
                    step["pool"].as_str().unwrap(),
                    &ports(&step["ports"]),
                    &sk(),
                );
                check_result(&ctx, r.map_err(|e| e.to_string()), expect);
            }
            "set_pools" => {
                a.set_pools(pools(&step["pools"]).unwrap());
                let got: BTreeMap<String, String> =
                    a.allocations().map(|(k, al)| (k.clone(), al.pool.clone())).collect();
                let want: BTreeMap<String, String> = serde_json::from_value(expect["servicePools"].clone()).unwrap();
                assert_eq!(got, want, "{ctx}: service pools");
            }
            "query_pool" => assert_eq!(a.pool(key), expect["pool"].as_str().unwrap(), "{ctx}"),
            "counters" => {
                let name = step["pool"].as_str().unwrap();
                assert_eq!(serde_json::to_value(a.counters(name)).unwrap(), expect["counters"], "{ctx}: counters");
                if let Some(metrics) = expect["metrics"].as_object() {
                    for (pool_name, m) in metrics {
                        assert_eq!(serde_json::to_value(a.counters(pool_name)).unwrap(), m["counters"], "{ctx}");
                        let p = a.pools().by_name.values().find(|p| &p.name == pool_name).unwrap();
                        let (total, v4, v6) = p.count();
                        let c = a.counters(pool_name);
                        let g = &m["gauges"];
                        assert_eq!(g["metallb_allocator_addresses_total"], json!(total), "{ctx}");
                        assert_eq!(g["metallb_allocator_ipv4_addresses_total"], json!(v4), "{ctx}");
                        assert_eq!(g["metallb_allocator_ipv6_addresses_total"], json!(v6), "{ctx}");
                        assert_eq!(g["metallb_allocator_addresses_in_use_total"], json!(a.in_use(pool_name)), "{ctx}");
                        assert_eq!(g["metallb_allocator_ipv4_addresses_in_use_total"], json!(c.assigned_ipv4), "{ctx}");
                        assert_eq!(g["metallb_allocator_ipv6_addresses_in_use_total"], json!(c.assigned_ipv6), "{ctx}");
                    }
                }
            }
            "pool_count" => {
                let (_, p) = pool(&step["pool"]);
                let (total, v4, v6) = p.count();
                assert_eq!(
                    (json!(total), json!(v4), json!(v6)),
                    (expect["total"].clone(), expect["ipv4"].clone(), expect["ipv6"].clone()),
                    "{ctx}"
                );
            }
            other => panic!("{ctx}: unknown op {other}"),
        }
        if step["op"] != "set_pools" && step["op"] != "pool_count" && step["op"] != "counters" {
            check_after(&ctx, &a, key, &expect["after"]);
        }
    }
}

fn sync_name(s: SyncState) -> &'static str {
    match s {
        SyncState::Success => "Success",
        SyncState::Error => "Error",
        SyncState::ReprocessAll => "ReprocessAll",
        SyncState::ErrorNoRetry => "ErrorNoRetry",
    }
}

fn run_controller(v: &Value) {
    run_controller_under(v, &v["steps"], Rules::default());
}

/// IPAddressPool objects (`poolObjects`: name and spec) through the configuration parser of one
/// release, which prunes the fields that release does not have.
fn parsed_pools(v: &Value, rules: Rules) -> Option<Pools> {
    let crs: Vec<IpAddressPool> = v["poolObjects"]
        .as_array()?
        .iter()
        .map(|p| {
            serde_json::from_value(json!({"apiVersion": "metallb.io/v1beta1", "kind": "IPAddressPool",
                "metadata": {"name": p["name"], "namespace": "metallb-system"}, "spec": p["spec"]}))
            .unwrap()
        })
        .collect();
    let input = ConfigInput {
        pools: crs.iter().collect(),
        l2_advertisements: vec![],
        bgp_advertisements: vec![],
        communities: vec![],
        bgp_peers: vec![],
        bfd_profiles: vec![],
        bgp_type: None,
        nodes: &[],
        namespaces: &[],
    };
    let cfg = config::parse(&input, rules).unwrap();
    Some(Pools::from_list(cfg.pools.iter().map(|p| p.alloc.clone()).collect()))
}

/// The controller of one release over `steps`; views are read as that release reads them.
fn run_controller_under(v: &Value, steps: &Value, rules: Rules) {
    let mut c = Controller::with_rules(rules);
    if let Some(p) = parsed_pools(v, rules) {
        c.set_pools(Some(p));
    } else if !v["pools"].is_null() || v["pools"].is_array() {
        c.set_pools(pools(&v["pools"]));
    }
    for (i, step) in steps.as_array().unwrap().iter().enumerate() {
        let ctx = format!(
            "{} under {} step {i} ({})",
            v["name"].as_str().unwrap(),
            rules.release,
            step["desc"].as_str().unwrap_or("")
        );
        let expect = &step["expect"];
        match step["op"].as_str().unwrap() {
            "set_pools" => {
                let state = c.set_pools(pools(&step["pools"]));
                if let Some(want) = expect["syncState"].as_str() {
                    assert_eq!(sync_name(state), want, "{ctx}");
                }
            }
            "set_balancer" => {
                let key = step["svcKey"].as_str().unwrap();
                let input = (!step["service"].is_null()).then(|| service(&step["service"]).under(&rules));
                let sync = c.set_balancer(key, input.as_ref());
                assert_eq!(sync_name(sync.state), expect["syncState"].as_str().unwrap(), "{ctx}: sync state");
                let events: Vec<Value> = sync.events.iter().map(|e| serde_json::to_value(e).unwrap()).collect();
                if !expect["events"].is_null() {
                    assert_eq!(Value::Array(events.clone()), expect["events"], "{ctx}: events");
                }
                if !expect["events_unordered"].is_null() {
                    let got: BTreeSet<String> = events.iter().map(Value::to_string).collect();
                    let want: BTreeSet<String> =
                        expect["events_unordered"].as_array().unwrap().iter().map(Value::to_string).collect();
                    assert_eq!(got, want, "{ctx}: events (unordered)");
                }
                let update = sync.status_written.then(|| {
                    let (w, svc) = (sync.written.as_ref().unwrap(), input.as_ref().unwrap());
                    let ingress: Vec<Value> =
                        w.ingress(svc).into_iter().flatten().map(|i| json!({"ip": i.ip})).collect();
                    json!({"ingress": ingress, "annotations": w.annotations(svc).unwrap_or_default()})
                });
                if let Some(any) = expect["statusUpdate_any_of"].as_array() {
                    assert!(any.contains(update.as_ref().unwrap_or(&Value::Null)), "{ctx}: status update {update:?}");
                } else if expect.get("statusUpdate").is_some() {
                    let want = &expect["statusUpdate"];
                    let got = update.clone().unwrap_or(Value::Null);
                    if want.is_null() || got.is_null() {
                        assert_eq!(got, *want, "{ctx}: status update");
                    } else {
                        assert_eq!(got["ingress"], want["ingress"], "{ctx}: status ingress");
                        assert_eq!(got["annotations"], want["annotations"], "{ctx}: annotations");
                    }
                }
                check_after(&ctx, &c.alloc, key, &expect["after"]);
            }
            other => panic!("{ctx}: unknown op {other}"),
        }
    }
}

#[test]
fn every_alloc_vector_passes() {
    let all = vectors();
    if all.is_empty() {
        return;
    }
    assert_eq!(all.len(), 97, "vector count");
    let mut failures = Vec::new();
    for v in &all {
        let result = std::panic::catch_unwind(|| match v["level"].as_str().unwrap() {
            "allocator" => run_allocator(v),
            "controller" => run_controller(v),
            other => panic!("level {other}"),
        });
        if let Err(e) = result {
            let msg = e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()));
            failures.push(msg.unwrap_or_default());
        }
    }
    assert!(failures.is_empty(), "{} of {} vectors fail:\n{}", failures.len(), all.len(), failures.join("\n\n"));
}

/// metallb-versions.md §2, written from the spec: each vector's steps under the release before
/// and after a change (testdata/vectors/metallb-alloc-releases.json).
#[test]
fn controller_rules_follow_each_release() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/vectors/metallb-alloc-releases.json");
    let file: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut items = BTreeSet::new();
    for v in file["vectors"].as_array().unwrap() {
        let by_release = v["steps"].as_object().unwrap();
        assert!(by_release.len() >= 2, "{}: a before and an after", v["name"]);
        for (release, steps) in by_release {
            let rules = release.parse::<Release>().unwrap().rules();
            run_controller_under(v, steps, rules);
        }
        items.insert(v["spec"].as_str().unwrap().to_string());
    }
    for item in [
        "C-1", "C-2", "C-4", "C-5", "C-6", "C-7", "C-8", "C-9", "C-10", "C-11", "C-13", "C-15", "C-16", "C-17", "C-18",
        "C-19", "C-20", "C-21", "C-25",
    ] {
        assert!(items.contains(item), "no vector for {item}");
    }
}
