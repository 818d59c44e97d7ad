//! Conformance with MetalLB v0.16.1's BGP unit tests (`metallb-bgp-v0.16.1.json`): the per-node
//! decision, the routes each session receives, LOCAL_PREF conflicts, endpoint health, passwords,
//! and the stateful speaker sequences replayed step by step on top of the pure functions.

use lbdoctor::metallb::release::Rules;
use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;

use lbdoctor::k8s::ip::parse_go_ip;
use lbdoctor::k8s::selector::Labels;
use lbdoctor::k8s::{endpoint_can_serve, EXCLUDE_LB_LABEL};
use lbdoctor::metallb::bgp::community::Community;
use lbdoctor::metallb::bgp::config::{compatible_local_pref, BgpAd, Peer, PoolFamilies};
use lbdoctor::metallb::bgp::frrk8s::password_for_session;
use lbdoctor::metallb::bgp::speaker::{
    ads_for_service, first_conflict, has_healthy_endpoint, routes, should_announce, BgpReason, EndpointHealth, OwnNode,
    PoolAds, Route, ServiceFacts,
};
use lbdoctor::snapshot::crd::SecretReference;
use lbdoctor::snapshot::BgpType;
use serde_json::Value;

use crate::util::{self, labels, selectors, strs};

fn vectors() -> Vec<Value> {
    util::vectors("metallb-bgp-v0.16.1.json")
}

fn of_kind(kind: &str) -> Vec<Value> {
    vectors().into_iter().filter(|v| v["kind"] == kind).collect()
}

fn ad(v: &Value) -> BgpAd {
    BgpAd {
        name: v["name"].as_str().unwrap().to_string(),
        aggregation_length: v["aggregationLength"].as_i64().unwrap() as i32,
        aggregation_length_v6: v["aggregationLengthV6"].as_i64().unwrap() as i32,
        local_pref: v["localPref"].as_u64().unwrap() as u32,
        communities: strs(&v["communities"]).iter().map(|c| Community::parse(c).unwrap()).collect(),
        nodes: strs(&v["resolvedNodes"]).into_iter().collect(),
        has_node_selectors: false,
        peers: strs(&v["peers"]),
        service_selectors: selectors(&v["serviceSelectors"]),
        pools: Vec::new(),
    }
}

fn peer(v: &Value) -> Peer {
    Peer {
        name: v["name"].as_str().unwrap().to_string(),
        my_asn: 0,
        asn: 0,
        dynamic_asn: String::new(),
        address: parse_go_ip(v["address"].as_str().unwrap()),
        interface: String::new(),
        src_address: None,
        port: 179,
        router_id: None,
        vrf: String::new(),
        node_selectors: selectors(&v["nodeSelectors"]),
        password_secret: SecretReference::default(),
        has_password: false,
        bfd_profile: String::new(),
        ebgp_multi_hop: false,
        dual_stack_address_family: false,
    }
}

struct Pool {
    cidrs: Vec<ipnet::IpNet>,
    ads: Vec<BgpAd>,
}

fn pools(v: &Value) -> Vec<Pool> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|p| Pool {
            cidrs: strs(&p["addresses"]).iter().map(|c| c.parse().unwrap()).collect(),
            ads: p["bgpAdvertisements"].as_array().map(|a| a.iter().map(ad).collect()).unwrap_or_default(),
        })
        .collect()
}

struct Endpoint {
    node: Option<String>,
    has_addresses: bool,
    can_serve: bool,
}

fn endpoints(slices: &Value) -> Vec<Endpoint> {
    let mut out = Vec::new();
    for slice in slices.as_array().into_iter().flatten() {
        for ep in slice["endpoints"].as_array().into_iter().flatten() {
            let conditions = serde_json::from_value(ep["conditions"].clone()).unwrap();
            out.push(Endpoint {
                node: ep["nodeName"].as_str().map(str::to_string),
                has_addresses: !strs(&ep["addresses"]).is_empty(),
                can_serve: endpoint_can_serve(Some(&conditions)),
            });
        }
    }
    out
}

fn health(eps: &[Endpoint]) -> impl Iterator<Item = EndpointHealth<'_>> {
    eps.iter().map(|e| EndpointHealth {
        node: e.node.as_deref(),
        has_addresses: e.has_addresses,
        can_serve: e.can_serve,
    })
}

/// The service-level pipeline (spec §3.2) and the BGP handler for one speaker: the routes it
/// sets for the Service, or `None` when it withdraws.
fn speaker_routes(
    my_node: &str,
    own: OwnNode,
    pools: &[Pool],
    svc: &Value,
    eps: &[Endpoint],
    ignore_exclude_lb: bool,
) -> Option<Vec<Route>> {
    if svc.is_null() || svc["type"] != "LoadBalancer" {
        return None;
    }
    let ips: Vec<IpAddr> = strs(&svc["ingressIPs"]).iter().map(|s| parse_go_ip(s)).collect::<Option<_>>()?;
    if ips.is_empty() {
        return None;
    }
    let pool = pools.iter().find(|p| ips.iter().all(|ip| p.cidrs.iter().any(|c| c.contains(ip))))?;
    let svc_labels = labels(&svc["labels"]);
    let families = PoolFamilies::of(&pool.cidrs);
    let matches: Vec<bool> = pool.ads.iter().map(|a| a.matches_service(&svc_labels)).collect();
    let view = PoolAds {
        holds_node: |i: usize| pool.ads[i].nodes.contains(my_node),
        matches_service: &matches,
        compatible: |i: usize, j: usize| compatible_local_pref(&pool.ads[i], &pool.ads[j], families),
    };
    let facts = ServiceFacts {
        etp_local: svc["externalTrafficPolicy"] == "Local",
        healthy_anywhere: has_healthy_endpoint(health(eps), None),
    };
    let own = OwnNode { healthy_endpoint: has_healthy_endpoint(health(eps), Some(my_node)), ..own };
    if should_announce(&view, own, facts, ignore_exclude_lb, Rules::default()).reason != BgpReason::Announce {
        return None;
    }
    let chosen: Vec<&BgpAd> = ads_for_service(&view).into_iter().map(|i| &pool.ads[i]).collect();
    Some(routes(&ips, &chosen))
}

/// One speaker's state across steps, as MetalLB's bgpController keeps it.
struct Speaker {
    my_node: String,
    labels: Labels,
    config: Option<(Vec<Peer>, Vec<Pool>)>,
    svc_ads: BTreeMap<String, Vec<Route>>,
    ignore_exclude_lb: bool,
}

impl Speaker {
    fn step(&mut self, step: &Value) {
        if !step["config"].is_null() {
            let c = &step["config"];
            self.config = Some((c["peers"].as_array().unwrap().iter().map(peer).collect(), pools(&c["pools"])));
        }
        if let Some(update) = step.get("node_update").filter(|u| !u.is_null()) {
            self.labels = labels(&update["labels"]);
        }
        let event = &step["service_event"];
        if event.is_null() {
            return;
        }
        let key = event["key"].as_str().unwrap().to_string();
        let svc = &event["service"];
        // Without a configuration the speaker ignores Services (spec §3.2 #3).
        let Some((_, pools)) = &self.config else {
            if svc.is_null() {
                self.svc_ads.remove(&key);
            }
            return;
        };
        let own = OwnNode { excluded: self.labels.contains_key(EXCLUDE_LB_LABEL), ..Default::default() };
        let eps = endpoints(&event["endpointslices"]);
        match speaker_routes(&self.my_node, own, pools, svc, &eps, self.ignore_exclude_lb) {
            Some(r) => {
                self.svc_ads.insert(key, r);
            }
            None => {
                self.svc_ads.remove(&key);
            }
        }
    }

    /// Running sessions (by peer address) and the routes each holds, as a multiset.
    fn sessions(&self) -> BTreeMap<String, Vec<Route>> {
        let mut out = BTreeMap::new();
        let Some((peers, _)) = &self.config else { return out };
        for p in peers.iter().filter(|p| p.runs_on(&self.labels)) {
            let mut held: Vec<Route> = self
                .svc_ads
                .values()
                .flatten()
                .filter(|r| r.peers.is_empty() || r.peers.contains(&p.name))
                .cloned()
                .collect();
            held.sort();
            out.insert(p.endpoint(), held);
        }
        out
    }

    fn peers_for_service(&self, key: &str) -> Vec<String> {
        let Some((peers, _)) = &self.config else { return Vec::new() };
        let Some(routes) = self.svc_ads.get(key) else { return Vec::new() };
        let names: BTreeSet<String> = peers
            .iter()
            .filter(|p| p.runs_on(&self.labels))
            .filter(|p| routes.iter().any(|r| r.peers.is_empty() || r.peers.contains(&p.name)))
            .map(|p| p.name.clone())
            .collect();
        names.into_iter().collect()
    }
}

fn expected_routes(v: &Value) -> Vec<Route> {
    let mut out: Vec<Route> = v
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| Route {
            prefix: r["prefix"].as_str().unwrap().parse().unwrap(),
            local_pref: r["localPref"].as_u64().unwrap() as u32,
            communities: strs(&r["communities"]).iter().map(|c| Community::parse(c).unwrap()).collect(),
            peers: strs(&r["peers"]),
        })
        .collect();
    out.sort();
    out
}

fn new_speaker(v: &Value) -> Speaker {
    Speaker {
        my_node: v["my_node"].as_str().unwrap().to_string(),
        labels: labels(&v["initial_node_labels"]),
        config: None,
        svc_ads: BTreeMap::new(),
        ignore_exclude_lb: v["ignore_exclude_lb"].as_bool().unwrap(),
    }
}

#[test]
fn speaker_sequences() {
    let cases = of_kind("bgpSequence");
    for v in &cases {
        let mut speaker = new_speaker(v);
        for step in v["steps"].as_array().unwrap() {
            speaker.step(step);
            let desc = format!("{} / {}", v["name"], step["desc"]);
            let want: BTreeMap<String, Vec<Route>> = step["expected"]["sessions_and_ads"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(addr, ads)| (addr.clone(), expected_routes(ads)))
                .collect();
            assert_eq!(speaker.sessions(), want, "{desc}");
        }
    }
    if !cases.is_empty() {
        assert_eq!(cases.len(), 2);
    }
}

#[test]
fn peers_for_service_sequence() {
    for v in &of_kind("bgpPeersForServiceSequence") {
        let mut speaker = new_speaker(v);
        let mut before: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for step in v["steps"].as_array().unwrap() {
            speaker.step(step);
            let desc = format!("{} / {}", v["name"], step["desc"]);
            let want: BTreeMap<String, Vec<String>> =
                serde_json::from_value(step["expected"]["peers_for_service"].clone()).unwrap();
            let got: BTreeMap<String, Vec<String>> =
                want.keys().map(|k| (k.clone(), speaker.peers_for_service(k))).collect();
            assert_eq!(got, want, "{desc}");
            // ServiceBGPStatus is rewritten exactly when a Service's peer set changes.
            let changed = |k: &String| before.get(k).cloned().unwrap_or_default() != got[k];
            for k in strs(&step["expected"]["callbacked_exactly_once"]) {
                assert!(changed(&k), "{desc}: {k} should change");
            }
            for k in strs(&step["expected"]["not_callbacked"]) {
                assert!(!changed(&k), "{desc}: {k} should not change");
            }
            before = got;
        }
    }
}

#[test]
fn should_announce_per_node() {
    let cases = of_kind("bgpShouldAnnounce");
    for v in &cases {
        let nodes: BTreeMap<String, (Labels, bool)> = v["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| {
                (n["name"].as_str().unwrap().to_string(), (labels(&n["labels"]), n["network_unavailable"] == true))
            })
            .collect();
        let pools = pools(&v["pools"]);
        let pool = &pools[0];
        let families = PoolFamilies::of(&pool.cidrs);
        let eps = endpoints(&v["endpointslices"]);
        let svc_labels = labels(&v["service"]["labels"]);
        let matches: Vec<bool> = pool.ads.iter().map(|a| a.matches_service(&svc_labels)).collect();
        for (node, want) in v["expected"].as_object().unwrap() {
            let (unavailable, excluded) = nodes
                .get(node)
                .map(|(l, unavailable)| (*unavailable, l.contains_key(EXCLUDE_LB_LABEL)))
                .unwrap_or_default();
            let own = OwnNode {
                unschedulable: false,
                network_unavailable: unavailable,
                excluded,
                healthy_endpoint: has_healthy_endpoint(health(&eps), Some(node)),
            };
            let facts = ServiceFacts {
                etp_local: v["service"]["externalTrafficPolicy"] == "Local",
                healthy_anywhere: has_healthy_endpoint(health(&eps), None),
            };
            let view = PoolAds {
                holds_node: |i: usize| pool.ads[i].nodes.contains(node.as_str()),
                matches_service: &matches,
                compatible: |i: usize, j: usize| compatible_local_pref(&pool.ads[i], &pool.ads[j], families),
            };
            let d = should_announce(&view, own, facts, v["ignore_exclude_lb"] == true, Rules::default());
            assert_eq!(d.reason.as_str(), want.as_str().unwrap(), "{} on {node}", v["name"]);
        }
    }
    if !cases.is_empty() {
        assert_eq!(cases.len(), 8);
    }
}

#[test]
fn ads_for_service_by_node_and_labels() {
    for v in &of_kind("bgpAdsForService") {
        let ads: Vec<BgpAd> = v["bgpAdvertisements"].as_array().unwrap().iter().map(ad).collect();
        let node = v["node"].as_str().unwrap();
        let svc_labels = labels(&v["service"]["labels"]);
        let matches: Vec<bool> = ads.iter().map(|a| a.matches_service(&svc_labels)).collect();
        let view = PoolAds {
            holds_node: |i: usize| ads[i].nodes.contains(node),
            matches_service: &matches,
            compatible: |_: usize, _: usize| true,
        };
        let got: BTreeSet<String> = ads_for_service(&view).into_iter().map(|i| ads[i].name.clone()).collect();
        let want: BTreeSet<String> = strs(&v["expected_ad_names_as_set"]).into_iter().collect();
        assert_eq!(got, want, "{}", v["name"]);
    }
}

#[test]
fn local_pref_conflicts() {
    let cases = of_kind("checkBGPAdvConflicts");
    for v in &cases {
        let ads: Vec<BgpAd> = v["bgpAdvertisements"].as_array().unwrap().iter().map(ad).collect();
        let cidrs: Vec<ipnet::IpNet> = strs(&v["pool"]["addresses"]).iter().map(|c| c.parse().unwrap()).collect();
        let families = PoolFamilies::of(&cidrs);
        let all: Vec<usize> = (0..ads.len()).collect();
        let got =
            first_conflict(all.iter().copied(), |i, j| compatible_local_pref(&ads[i], &ads[j], families)).is_some();
        assert_eq!(got, v["expected_conflict"].as_bool().unwrap(), "{}", v["name"]);
    }
    if !cases.is_empty() {
        assert_eq!(cases.len(), 16);
    }
}

#[test]
fn healthy_endpoints() {
    for v in &of_kind("hasHealthyEndpoint") {
        assert!(v["node_filter"].is_null(), "{}: only unfiltered cases are recorded", v["name"]);
        let eps = endpoints(&v["endpointslices"]);
        assert_eq!(has_healthy_endpoint(health(&eps), None), v["expected"].as_bool().unwrap(), "{}", v["name"]);
    }
}

#[test]
fn passwords_for_sessions() {
    let cases = of_kind("passwordForSession");
    for v in &cases {
        let p = &v["peer"];
        let reference: SecretReference = serde_json::from_value(p["passwordRef"].clone()).unwrap();
        let bgp_type = match v["bgp_type"].as_str().unwrap() {
            "native" => BgpType::Native,
            "frr" => BgpType::Frr,
            _ => BgpType::FrrK8s,
        };
        let (password, got_ref) = password_for_session(
            p["password"].as_str().unwrap(),
            p["secretPassword"].as_str().unwrap(),
            &reference,
            bgp_type,
            v["secret_handling"] == "SecretPassThrough",
        );
        let want_ref: SecretReference = serde_json::from_value(v["expected"]["passwordRef"].clone()).unwrap();
        assert_eq!(password, v["expected"]["password"].as_str().unwrap(), "{}", v["name"]);
        assert_eq!(got_ref, want_ref, "{}", v["name"]);
    }
    if !cases.is_empty() {
        assert_eq!(cases.len(), 8);
    }
}

#[test]
fn every_vector_kind_is_covered() {
    let known = [
        "bgpSequence",
        "bgpPeersForServiceSequence",
        "bgpShouldAnnounce",
        "bgpAdsForService",
        "checkBGPAdvConflicts",
        "hasHealthyEndpoint",
        "passwordForSession",
    ];
    for v in vectors() {
        assert!(known.contains(&v["kind"].as_str().unwrap()), "unhandled vector kind {}", v["kind"]);
    }
}
