//! The BGP half of `config::parse`: attachment, defaults, and the rejections MetalLB makes.

use k8s_openapi::api::core::v1::Node;
use serde_json::{json, Value};

use super::community::Community;
use super::config::{compatible_local_pref, BgpAd, PoolFamilies};
use crate::metallb::config::{parse, Config, ConfigError, ConfigInput};
use crate::snapshot::crd::{BgpAdvertisement, BgpPeer, Community as CommunityCr, IpAddressPool};
use crate::snapshot::BgpType;

fn cr<T: serde::de::DeserializeOwned>(kind: &str, name: &str, spec: Value) -> T {
    serde_json::from_value(json!({
        "apiVersion": "metallb.io/v1beta1", "kind": kind,
        "metadata": {"name": name, "namespace": "metallb-system", "labels": {"pool": name}}, "spec": spec
    }))
    .unwrap()
}

fn nodes() -> Vec<Node> {
    ["a", "b"]
        .iter()
        .map(|n| serde_json::from_value(json!({"metadata": {"name": n, "labels": {"rack": n}}})).unwrap())
        .collect()
}

struct Objects {
    pools: Vec<IpAddressPool>,
    ads: Vec<BgpAdvertisement>,
    peers: Vec<BgpPeer>,
    communities: Vec<CommunityCr>,
}

impl Objects {
    fn new(pools: &[(&str, &[&str])]) -> Objects {
        Objects {
            pools: pools.iter().map(|(n, a)| cr("IPAddressPool", n, json!({"addresses": a}))).collect(),
            ads: Vec::new(),
            peers: Vec::new(),
            communities: Vec::new(),
        }
    }
    fn ad(mut self, name: &str, spec: Value) -> Objects {
        self.ads.push(cr("BGPAdvertisement", name, spec));
        self
    }
    fn peer(mut self, name: &str, spec: Value) -> Objects {
        self.peers.push(cr("BGPPeer", name, spec));
        self
    }
    fn parse(&self, bgp_type: BgpType) -> Result<Config, ConfigError> {
        self.parse_under(bgp_type, crate::metallb::release::Rules::default())
    }

    fn parse_under(&self, bgp_type: BgpType, rules: crate::metallb::release::Rules) -> Result<Config, ConfigError> {
        parse(&self.input(bgp_type, &nodes()), rules)
    }

    fn input<'a>(&'a self, bgp_type: BgpType, nodes: &'a [Node]) -> ConfigInput<'a> {
        ConfigInput {
            pools: self.pools.iter().collect(),
            l2_advertisements: vec![],
            bgp_advertisements: self.ads.iter().collect(),
            communities: self.communities.iter().collect(),
            bgp_peers: self.peers.iter().collect(),
            bfd_profiles: vec![],
            bgp_type: Some(bgp_type),
            nodes,
            namespaces: &[],
        }
    }
}

fn peer_spec() -> Value {
    json!({"myASN": 64512, "peerASN": 64513, "peerAddress": "192.0.2.254"})
}

#[test]
fn defaults_and_attachment() {
    let cfg = Objects::new(&[("a", &["198.51.100.0/24"]), ("b", &["192.0.2.0/28"])])
        .ad("all", json!({}))
        .ad(
            "named-and-selected",
            json!({"ipAddressPools": ["a"], "ipAddressPoolSelectors": [{"matchLabels": {"pool": "a"}}]}),
        )
        .ad("edge", json!({"ipAddressPools": ["b", "missing"], "nodeSelectors": [{"matchLabels": {"rack": "b"}}]}))
        .parse(BgpType::Native)
        .unwrap();
    let all = &cfg.bgp_advertisements[0];
    assert_eq!((all.aggregation_length, all.aggregation_length_v6, all.local_pref), (32, 128, 0));
    assert_eq!(all.nodes.iter().collect::<Vec<_>>(), ["a", "b"]);
    // Reached by name and by selector: attached twice, as MetalLB does.
    let named = &cfg.bgp_advertisements[2];
    assert_eq!(named.name, "named-and-selected");
    assert_eq!(named.pools, ["a", "a"]);
    let edge = &cfg.bgp_advertisements[1];
    assert_eq!(edge.pools, ["b"]);
    assert_eq!(edge.nodes.iter().collect::<Vec<_>>(), ["b"]);
    assert_eq!(cfg.bgp_names(&cfg.pools[0]), ["all", "named-and-selected"]);
}

#[test]
fn community_aliases_resolve_and_bad_values_reject() {
    let mut objs =
        Objects::new(&[("a", &["198.51.100.0/24"])]).ad("x", json!({"communities": ["no-export", "65000:1"]}));
    objs.communities.push(cr(
        "Community",
        "c",
        json!({"communities": [{"name": "no-export", "value": "65535:65281"}]}),
    ));
    let cfg = objs.parse(BgpType::Native).unwrap();
    let got: Vec<Community> = cfg.bgp_advertisements[0].communities.iter().copied().collect();
    assert_eq!(got, [Community::Standard(65000, 1), Community::Standard(65535, 65281)]);

    let err = Objects::new(&[("a", &["198.51.100.0/24"])])
        .ad("x", json!({"communities": ["65536:1"]}))
        .parse(BgpType::Frr)
        .unwrap_err();
    assert!(
        err.message.starts_with(r#"invalid community value: invalid section "65536" of community "65536:1""#),
        "{}",
        err.message
    );
    assert!(err.message.ends_with(r#"invalid community "65536:1" in BGP advertisement"#), "{}", err.message);
    // An unknown alias is MetalLB's transient "format" error: still a rejection.
    let err = Objects::new(&[("a", &["198.51.100.0/24"])])
        .ad("x", json!({"communities": ["later"]}))
        .parse(BgpType::Frr)
        .unwrap_err();
    assert!(err.message.starts_with("invalid community format: later"), "{}", err.message);
}

#[test]
fn native_mode_rejects_ipv6_pools_and_large_communities() {
    let err = Objects::new(&[("v6", &["2001:db8::/120"])]).ad("all", json!({})).parse(BgpType::Native).unwrap_err();
    assert_eq!(err.message, r#"pool "v6" has ipv6 CIDR 2001:db8::/120, native bgp mode does not support ipv6"#);
    assert!(Objects::new(&[("v6", &["2001:db8::/120"])]).ad("all", json!({})).parse(BgpType::FrrK8s).is_ok());
    // A pool no advertisement selects is not checked, from v0.14.9 (metallb-versions.md V-2);
    // before, any BGPAdvertisement makes every IPv6 pool refuse the configuration.
    let objects = Objects::new(&[("v4", &["192.0.2.0/28"]), ("v6", &["2001:db8::/120"])])
        .ad("v4-only", json!({"ipAddressPools": ["v4"]}));
    assert!(objects.parse(BgpType::Native).is_ok());
    assert!(objects.parse_under(BgpType::Native, release("v0.14.9")).is_ok());
    let err = objects.parse_under(BgpType::Native, release("v0.14.8")).unwrap_err();
    assert_eq!(err.message, r#"pool "v6" has ipv6 CIDR 2001:db8::/120, native bgp mode does not support ipv6"#);
    let err = Objects::new(&[("a", &["192.0.2.0/28"])])
        .ad("big", json!({"communities": ["large:1:2:3"]}))
        .parse(BgpType::Native)
        .unwrap_err();
    assert_eq!(
        err.message,
        r#"native BGP mode only supports legacy communities, BGP advertisement "big" has non legacy community "large:1:2:3""#
    );
    let err = Objects::new(&[("a", &["192.0.2.0/28"])])
        .peer("p", json!({"myASN": 1, "peerASN": 2, "peerAddress": "192.0.2.254", "vrf": "red"}))
        .parse(BgpType::Native)
        .unwrap_err();
    assert_eq!(err.message, "peer 192.0.2.254 has vrf set on native bgp mode");
}

fn release(r: &str) -> crate::metallb::release::Rules {
    r.parse::<crate::metallb::release::Release>().unwrap().rules()
}

#[test]
fn frr_mode_wants_one_router_id_and_one_asn_per_vrf() {
    let two = Objects::new(&[])
        .peer("p1", json!({"myASN": 1, "peerASN": 2, "peerAddress": "192.0.2.1"}))
        .peer("p2", json!({"myASN": 3, "peerASN": 2, "peerAddress": "192.0.2.2"}));
    // V-4: v0.16.0 compares pairs (the later peer first), in its own words.
    assert_eq!(
        two.parse(BgpType::Frr).unwrap_err().message,
        "peer 192.0.2.2 has myAsn different from 192.0.2.1, in FRR mode peers selecting the same node must have the same myAsn within the same VRF"
    );
    assert_eq!(
        two.parse_under(BgpType::Frr, release("v0.15.3")).unwrap_err().message,
        "peer 192.0.2.1 has myAsn different from 192.0.2.2, in FRR mode all myAsn must be equal for the same VRF"
    );
    assert_eq!(
        two.parse_under(BgpType::Frr, release("v0.13.7")).unwrap_err().message,
        "peer 192.0.2.2 has myAsn different from 192.0.2.1, in FRR mode all myAsn must be equal"
    );
    // frr-k8s is validated from v0.14.0 only.
    assert!(two.parse_under(BgpType::FrrK8s, release("v0.13.12")).is_ok());
    assert!(two.parse_under(BgpType::FrrK8s, release("v0.14.0")).is_err());
    assert!(Objects::new(&[])
        .peer("p1", json!({"myASN": 1, "peerASN": 2, "peerAddress": "192.0.2.1"}))
        .peer("p2", json!({"myASN": 3, "peerASN": 2, "peerAddress": "192.0.2.2", "vrf": "red"}))
        .parse(BgpType::Frr)
        .is_ok());
}

#[test]
fn peer_errors_in_metallbs_order_and_words() {
    let cases = [
        (json!({"peerASN": 1, "peerAddress": "192.0.2.1"}), "parsing peer p missing local ASN"),
        (json!({"myASN": 1, "peerAddress": "192.0.2.1"}), "parsing peer p missing peer ASN and dynamicASN"),
        (
            json!({"myASN": 1, "peerASN": 1, "ebgpMultiHop": true, "peerAddress": "192.0.2.1"}),
            "parsing peer p invalid ebgp-multihop parameter set for an ibgp peer",
        ),
        (json!({"myASN": 1, "peerASN": 2}), "parsing peer p peer has no Address or Interface specified"),
        (
            json!({"myASN": 1, "peerASN": 2, "peerAddress": "192.0.2"}),
            r#"parsing peer p invalid BGPPeer address "192.0.2""#,
        ),
        (
            json!({"myASN": 1, "peerASN": 2, "peerAddress": "192.0.2.1", "holdTime": "2s"}),
            r#"parsing peer p invalid BGPPeer timers: invalid hold time "2s": must be 0 or >=3s"#,
        ),
        (
            json!({"myASN": 1, "peerASN": 2, "peerAddress": "192.0.2.1", "password": "x", "passwordSecret": {"name": "s"}}),
            r#"parsing peer p can not have both password and secret ref set in peer config "metallb-system"/"p""#,
        ),
    ];
    for (spec, want) in cases {
        let err = Objects::new(&[]).peer("p", spec).parse(BgpType::Frr).unwrap_err();
        assert_eq!(err.message, want);
        assert_eq!(err.objects, [crate::report::ObjectRef::new("BGPPeer", "metallb-system", "p")]);
    }
    let cfg = Objects::new(&[]).peer("p", peer_spec()).parse(BgpType::Native).unwrap();
    assert_eq!((cfg.peers[0].port, cfg.peers[0].is_ibgp()), (179, Some(false)));
}

#[test]
fn per_pool_checks_aggregation_and_local_pref() {
    let err = Objects::new(&[("a", &["198.51.100.0/24"])])
        .ad("agg", json!({"aggregationLength": 16}))
        .parse(BgpType::Native)
        .unwrap_err();
    assert_eq!(
        err.message,
        "invalid aggregation length 16: prefix 24 in this pool is more specific than the aggregation length for addresses 198.51.100.0/24"
    );
    let err = Objects::new(&[("a", &["198.51.100.0/24"])])
        .ad("one", json!({"localPref": 100}))
        .ad("two", json!({"localPref": 200}))
        .parse(BgpType::Native)
        .unwrap_err();
    assert!(
        err.message.starts_with("invalid local preference 200: local preferernce 100 was already set"),
        "{}",
        err.message
    );
    // With serviceSelectors MetalLB does not check: the conflict shows up per Service instead.
    assert!(Objects::new(&[("a", &["198.51.100.0/24"])])
        .ad("one", json!({"localPref": 100}))
        .ad("two", json!({"localPref": 200, "serviceSelectors": [{"matchLabels": {"x": "y"}}]}))
        .parse(BgpType::Native)
        .is_ok());
    let err = Objects::new(&[("a", &["198.51.100.0/24"])])
        .ad("s", json!({"aggregationLength": 24, "serviceSelectors": [{"matchLabels": {"x": "y"}}]}))
        .parse(BgpType::Native)
        .unwrap_err();
    assert_eq!(err.message, "serviceSelectors and aggregationLength are mutually exclusive, both cannot be set in s");
}

#[test]
fn dual_stack_pools_need_both_lengths_to_differ() {
    let ad = |v4: i32, v6: i32| BgpAd {
        name: String::new(),
        aggregation_length: v4,
        aggregation_length_v6: v6,
        local_pref: v4 as u32,
        communities: Default::default(),
        nodes: ["a".to_string()].into(),
        has_node_selectors: false,
        peers: vec![],
        service_selectors: vec![],
        pools: vec![],
    };
    let dual = PoolFamilies { v4: true, v6: true };
    let v4 = PoolFamilies { v4: true, v6: false };
    assert!(!compatible_local_pref(&ad(32, 128), &ad(24, 128), dual));
    assert!(compatible_local_pref(&ad(32, 128), &ad(24, 120), dual));
    assert!(compatible_local_pref(&ad(32, 128), &ad(24, 128), v4));
    assert!(compatible_local_pref(&ad(32, 128), &ad(24, 128), PoolFamilies::default()));
}

/// V-4 from v0.16.0: peers whose nodeSelectors share no Node may differ; a shared Node brings
/// the rules back, with the identifier's VRF suffix only when there is a VRF.
#[test]
fn frr_rules_hold_only_between_peers_selecting_a_common_node() {
    let rack = |r: &str| json!([{"matchLabels": {"rack": r}}]);
    let apart = Objects::new(&[])
        .peer("p1", json!({"myASN": 1, "peerASN": 2, "peerAddress": "192.0.2.1", "routerID": "10.0.0.1", "nodeSelectors": rack("a")}))
        .peer("p2", json!({"myASN": 3, "peerASN": 2, "peerAddress": "192.0.2.1", "routerID": "10.0.0.2", "nodeSelectors": rack("b")}));
    assert!(apart.parse(BgpType::Frr).is_ok());
    assert_eq!(
        apart.parse_under(BgpType::Frr, release("v0.15.3")).unwrap_err().message,
        "peer 10.0.0.2 has RouterID different from 10.0.0.1, in FRR mode all RouterID must be equal"
    );
    let duplicate = Objects::new(&[])
        .peer("p1", json!({"myASN": 1, "peerASN": 2, "peerAddress": "192.0.2.1", "nodeSelectors": rack("a")}))
        .peer("p2", json!({"myASN": 1, "peerASN": 2, "peerAddress": "192.0.2.1"}));
    assert_eq!(
        duplicate.parse(BgpType::Frr).unwrap_err().message,
        "peer 192.0.2.1 already exists, FRR mode doesn't support duplicate BGPPeers selecting the same node"
    );
    let router_ids = Objects::new(&[])
        .peer("p1", json!({"myASN": 1, "peerASN": 2, "peerAddress": "192.0.2.1", "routerID": "10.0.0.1"}))
        .peer("p2", json!({"myASN": 1, "peerASN": 2, "peerAddress": "192.0.2.2", "routerID": "10.0.0.2", "nodeSelectors": rack("b")}));
    assert_eq!(
        router_ids.parse(BgpType::Frr).unwrap_err().message,
        "peer 10.0.0.2 has RouterID different from 10.0.0.1, in FRR mode peers selecting the same node must all have the same RouterID"
    );
}

/// V-3: the native backend refuses each FRR-only peer field, in MetalLB's order; a field the
/// release does not have is pruned and refuses nothing.
#[test]
fn native_mode_refuses_frr_only_peer_fields_the_release_has() {
    let with = |extra: Value| {
        let mut spec = peer_spec();
        spec.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        Objects::new(&[("a", &["192.0.2.0/28"])]).peer("p", spec)
    };
    let local = with(json!({"localASN": 64600}));
    assert_eq!(
        local.parse(BgpType::Native).unwrap_err().message,
        "peer 192.0.2.254 has localASN set on native bgp mode"
    );
    assert!(local.parse_under(BgpType::Native, release("v0.15.3")).is_ok());
    let dual = with(json!({"dualStackAddressFamily": true, "dynamicASN": "external", "peerASN": 0}));
    assert_eq!(
        dual.parse(BgpType::Native).unwrap_err().message,
        "peer 192.0.2.254 has dualstackaddressfamily flag set on native bgp mode"
    );
    assert_eq!(
        dual.parse_under(BgpType::Native, release("v0.14.9")).unwrap_err().message,
        "peer 192.0.2.254 has dynamicASN set on native bgp mode"
    );
    // v0.14.8 has neither field: the peer has no ASN at all.
    assert_eq!(
        dual.parse_under(BgpType::Native, release("v0.14.8")).unwrap_err().message,
        "missing peer ASN\nparsing peer p"
    );
    let graceful = with(json!({"enableGracefulRestart": true, "vrf": "red"}));
    assert_eq!(
        graceful.parse_under(BgpType::Native, release("v0.14.6")).unwrap_err().message,
        "peer 192.0.2.254 has vrf set on native bgp mode"
    );
    assert_eq!(
        graceful.parse_under(BgpType::Native, release("v0.13.7")).map(|c| c.peers[0].vrf.clone()).unwrap(),
        "",
        "no vrf before v0.13.8"
    );
}

/// V-1: peer errors as each release words and wraps them.
#[test]
fn peer_errors_follow_the_release() {
    let no_address = Objects::new(&[]).peer("p", json!({"myASN": 1, "peerASN": 2}));
    assert_eq!(
        no_address.parse_under(BgpType::Frr, release("v0.15.0")).unwrap_err().message,
        "parsing peer p peer has no Address or Interface specified"
    );
    assert_eq!(
        no_address.parse_under(BgpType::Frr, release("v0.14.9")).unwrap_err().message,
        "invalid BGPPeer address \"\"\nparsing peer p"
    );
    assert_eq!(
        no_address.parse_under(BgpType::Frr, release("v0.14.5")).unwrap_err().message,
        "parsing peer p: invalid BGPPeer address \"\""
    );
    let no_asn = Objects::new(&[]).peer("p", json!({"myASN": 1, "peerAddress": "192.0.2.1"}));
    assert_eq!(
        no_asn.parse_under(BgpType::Frr, release("v0.13.0")).unwrap_err().message,
        "parsing peer p: missing peer ASN"
    );
    let bad_selector = Objects::new(&[("a", &["192.0.2.0/28"])])
        .ad("ad", json!({"nodeSelectors": [{"matchExpressions": [{"key": "rack", "operator": "Bogus"}]}]}));
    let old = bad_selector.parse_under(BgpType::Frr, release("v0.14.5")).unwrap_err().message;
    assert!(old.starts_with("Failed to parse node selector for ls ad: "), "{old}");
    let new = bad_selector.parse_under(BgpType::Frr, release("v0.14.6")).unwrap_err().message;
    assert!(new.ends_with("\nfailed to parse node selector for ad"), "{new}");
}

/// B-5: the nodes a failing object selects reject; a failing object on every node (no
/// nodeSelectors) leaves the rejection whole.
#[test]
fn from_v0_16_0_a_configuration_is_judged_per_node() {
    let rack = |r: &str| json!([{"matchLabels": {"rack": r}}]);
    let parse_per_node =
        |o: &Objects| crate::metallb::config::parse_per_node(&o.input(BgpType::Frr, &nodes()), release("v0.16.1"));
    let split = Objects::new(&[("a", &["198.51.100.0/24"])])
        .peer(
            "bad",
            json!({"myASN": 1, "peerASN": 2, "peerAddress": "192.0.2.1", "holdTime": "1s", "nodeSelectors": rack("a")}),
        )
        .peer("good", json!({"myASN": 1, "peerASN": 2, "peerAddress": "192.0.2.2", "nodeSelectors": rack("b")}));
    assert!(split.parse(BgpType::Frr).is_err(), "the whole configuration fails");
    let per_node = parse_per_node(&split).expect("node b accepts");
    assert_eq!(per_node.rejected.len(), 1);
    assert_eq!(per_node.rejected[0].0, ["a"]);
    assert!(per_node.rejected[0].1.message.starts_with("parsing peer bad "), "{}", per_node.rejected[0].1.message);
    assert_eq!(per_node.config.peers.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["good"]);
    let everywhere = Objects::new(&[("a", &["198.51.100.0/24"])])
        .peer("bad", json!({"myASN": 1, "peerASN": 2, "peerAddress": "192.0.2.1", "holdTime": "1s"}));
    assert!(parse_per_node(&everywhere).is_none());
}

/// B-2's vector: a v4-only pool, two advertisements with other IPv4 lengths and localPrefs on
/// the same peers and nodes.
#[test]
fn local_pref_parse_check_follows_the_release() {
    let objects = Objects::new(&[("v4", &["198.51.100.0/24"])])
        .ad("ad1", json!({"aggregationLength": 32, "localPref": 100}))
        .ad("ad2", json!({"aggregationLength": 24, "localPref": 200}));
    assert!(objects.parse_under(BgpType::Frr, release("v0.13.9")).is_ok(), "no check before v0.13.10");
    let err = objects.parse_under(BgpType::Frr, release("v0.14.9")).unwrap_err();
    assert!(
        err.message.starts_with("invalid local preference 200: local preferernce 100 was already set"),
        "{}",
        err.message
    );
    assert!(objects.parse_under(BgpType::Frr, release("v0.15.0")).is_ok(), "the pool has no IPv6 to compare");
}

/// B-4: before v0.13.10 a large community is an unknown alias, and the native refusal of large
/// communities does not exist.
#[test]
fn large_communities_exist_from_v0_13_10() {
    let objects = Objects::new(&[("a", &["198.51.100.0/24"])]).ad("big", json!({"communities": ["large:1:2:3"]}));
    assert_eq!(
        objects.parse_under(BgpType::Frr, release("v0.13.9")).unwrap_err().message,
        r#"invalid community "large:1:2:3" in BGP advertisement: invalid community format: large:1:2:3"#
    );
    assert!(objects.parse_under(BgpType::Frr, release("v0.13.10")).is_ok());
    assert!(objects
        .parse_under(BgpType::Native, release("v0.13.10"))
        .unwrap_err()
        .message
        .contains("non legacy community"));
}
