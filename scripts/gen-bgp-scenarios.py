#!/usr/bin/env python3
"""Writes the BGP scenarios in testdata/scenarios/bgp-*.yaml (speaker BGP handler, spec §9).

Run from the repository root; the output is committed. Only documentation addresses are used.
"""
import json

NS = "metallb-system"

def node(name, ip, labels=None, unavailable=False):
    l = {"kubernetes.io/hostname": name}
    l.update(labels or {})
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": l},
            "status": {"addresses": [{"type": "InternalIP", "address": ip}],
                       "conditions": [{"type": "NetworkUnavailable", "status": "True" if unavailable else "False"},
                                      {"type": "Ready", "status": "True"}]}}

def speaker(node_name, ip):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"speaker-{node_name}", "namespace": NS,
                         "labels": {"app": "metallb", "component": "speaker"}},
            "spec": {"nodeName": node_name, "hostNetwork": True,
                     "containers": [{"name": "speaker", "image": "quay.io/metallb/speaker:v0.16.1"}]},
            "status": {"phase": "Running", "podIP": ip, "conditions": [{"type": "Ready", "status": "True"}]}}

def crd(kind, name, spec, version="v1beta1"):
    return {"apiVersion": f"metallb.io/{version}", "kind": kind,
            "metadata": {"name": name, "namespace": NS}, "spec": spec}

def pool(name, addresses, **spec):
    return crd("IPAddressPool", name, dict(addresses=addresses, **spec))

def peer(name, address, asn, my_asn=64512, **spec):
    return crd("BGPPeer", name, dict(myASN=my_asn, peerASN=asn, peerAddress=address, **spec), "v1beta2")

def bgp_ad(name, **spec):
    return crd("BGPAdvertisement", name, spec)

def service(ns, name, ips, etp="Cluster", labels=None):
    meta = {"name": name, "namespace": ns}
    if labels:
        meta["labels"] = labels
    n = sum(map(ord, name)) % 250 + 1
    return {"apiVersion": "v1", "kind": "Service", "metadata": meta,
            "spec": {"type": "LoadBalancer", "externalTrafficPolicy": etp, "selector": {"app": name},
                     "clusterIP": f"10.96.0.{n}", "clusterIPs": [f"10.96.0.{n}"], "ipFamilyPolicy": "SingleStack",
                     "ipFamilies": ["IPv4"], "ports": [{"name": "http", "protocol": "TCP", "port": 80}]},
            "status": {"loadBalancer": {"ingress": [{"ip": ip} for ip in ips]}}}

def endpoints(ns, name, nodes):
    return {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"name": f"{name}-abcde", "namespace": ns, "labels": {"kubernetes.io/service-name": name}},
            "addressType": "IPv4",
            "endpoints": [{"addresses": [f"10.244.{i}.10"], "nodeName": n,
                           "conditions": {"ready": True, "serving": True, "terminating": False}}
                          for i, n in enumerate(nodes)]}

def bgp_status(node_name, ns, name, peers):
    return {"apiVersion": "metallb.io/v1beta1", "kind": "ServiceBGPStatus",
            "metadata": {"name": f"bgp-{node_name}-{name}", "namespace": NS,
                         "labels": {"metallb.io/node": node_name, "metallb.io/service-name": name,
                                    "metallb.io/service-namespace": ns}},
            "status": {"node": node_name, "serviceName": name, "serviceNamespace": ns, "peers": peers}}

def info(**metallb):
    return {"apiVersion": "lbdoctor/v1alpha1", "kind": "SnapshotInfo",
            "spec": {"capturedAt": "2026-11-29T22:00:00Z", "metallb": dict(namespace=NS, **metallb)}}

EXCLUDE = {"node.kubernetes.io/exclude-from-external-load-balancers": ""}

def four_nodes():
    return [node("cp-1", "192.0.2.1", dict(EXCLUDE, **{"node-role.kubernetes.io/control-plane": ""})),
            node("worker-a", "192.0.2.2", {"rack": "a"}), node("worker-b", "192.0.2.3", {"rack": "b"}),
            node("edge-1", "192.0.2.4", {"rack": "edge"})] + \
           [speaker(n, ip) for n, ip in [("cp-1", "192.0.2.1"), ("worker-a", "192.0.2.2"),
                                          ("worker-b", "192.0.2.3"), ("edge-1", "192.0.2.4")]]

SCENARIOS = {
    "bgp-two-routers": (
        """scenario: four nodes with live speakers; cp-1 carries the exclude-from-external-load-balancers
  label. BGPPeer tor (iBGP, AS 64512, 192.0.2.254) runs on every node; BGPPeer edge (eBGP,
  AS 65001, 198.51.100.254) only on rack=edge nodes (edge-1). Pool public (198.51.100.0/26) has
  two advertisements: to-tor (peers [tor], localPref 200) and to-edge (peers [edge],
  communities 65001:100 and the Community alias no-export = 65535:65281). Pool aggregated
  (198.51.100.128/27) has one advertisement with aggregationLength 27 to every peer.
  default/web (198.51.100.10, eTP Cluster) has an endpoint on worker-a; default/api
  (198.51.100.130, eTP Local) one on worker-b. ServiceBGPStatus objects agree.
expected: web: worker-a, worker-b and edge-1 advertise 198.51.100.10/32 to tor with localPref
  200; edge-1 also to edge with communities 65001:100 and 65535:65281 and no localPref; cp-1
  nodeLabeledExcludeBalancers. api: only worker-b advertises 198.51.100.128/27 (the others
  noLocalEndpoints). No finding; check exits 0.""",
        four_nodes() + [
            peer("tor", "192.0.2.254", 64512),
            peer("edge", "198.51.100.254", 65001, nodeSelectors=[{"matchLabels": {"rack": "edge"}}]),
            crd("Community", "well-known", {"communities": [{"name": "no-export", "value": "65535:65281"}]}),
            pool("public", ["198.51.100.0/26"]),
            pool("aggregated", ["198.51.100.128/27"]),
            bgp_ad("to-tor", ipAddressPools=["public"], peers=["tor"], localPref=200),
            bgp_ad("to-edge", ipAddressPools=["public"], peers=["edge"], communities=["65001:100", "no-export"]),
            bgp_ad("aggregated", ipAddressPools=["aggregated"], aggregationLength=27),
            service("default", "web", ["198.51.100.10"]), endpoints("default", "web", ["worker-a"]),
            service("default", "api", ["198.51.100.130"], etp="Local"), endpoints("default", "api", ["worker-b"]),
        ] + [bgp_status(n, "default", "web", ["tor"]) for n in ("worker-a", "worker-b")]
          + [bgp_status("edge-1", "default", "web", ["edge", "tor"]), bgp_status("worker-b", "default", "api", ["tor"])]),
    "bgp-nobody-advertises": (
        """scenario: BGPPeer tor runs only on rack=a nodes (worker-a, and node-x, which has no speaker Pod).
  Pool racks (198.51.100.0/28) is advertised by rack-b (nodeSelectors rack=b) only: default/web
  there is advertised by worker-b, which peers with nobody. Pool typo (198.51.100.16/28) is
  advertised by to-tor2, which names a BGPPeer tor-2 that does not exist, and by everywhere
  (all nodes, all peers); default/local there is eTP Local with its endpoint on worker-b.
  Pool both (198.51.100.32/28) has an L2Advertisement and a BGPAdvertisement. Pool prefs
  (198.51.100.48/28) has gold (localPref 100, serviceSelectors tier=gold) and any-tier
  (localPref 300, serviceSelectors tier in (gold, silver)); default/gold matches both.
expected: LBD210 (rack-b and to-tor2 reach no session), LBD211 (tor-2), LBD212 (gold vs any-tier),
  LBD213 (pool both), LBD214 (tor selects node-x, no speaker); web: LBD130 (worker-b advertises
  but no session receives it); local: LBD131 (its endpoint on worker-b is never advertised)
  and LBD130; gold: LBD130 with conflictingAdvertisements on worker-a and worker-b.
  check exits 1.""",
        [node("worker-a", "192.0.2.2", {"rack": "a"}), node("worker-b", "192.0.2.3", {"rack": "b"}),
         node("node-x", "192.0.2.9", {"rack": "a"}),
         speaker("worker-a", "192.0.2.2"), speaker("worker-b", "192.0.2.3"),
         peer("tor", "192.0.2.254", 64512, nodeSelectors=[{"matchLabels": {"rack": "a"}}]),
         pool("racks", ["198.51.100.0/28"]), pool("typo", ["198.51.100.16/28"]),
         pool("both", ["198.51.100.32/28"]), pool("prefs", ["198.51.100.48/28"]),
         bgp_ad("rack-b", ipAddressPools=["racks"], nodeSelectors=[{"matchLabels": {"rack": "b"}}]),
         bgp_ad("to-tor2", ipAddressPools=["typo"], peers=["tor-2"]),
         bgp_ad("everywhere", ipAddressPools=["typo", "both"]),
         crd("L2Advertisement", "l2-both", {"ipAddressPools": ["both"]}),
         bgp_ad("gold", ipAddressPools=["prefs"], localPref=100,
                serviceSelectors=[{"matchLabels": {"tier": "gold"}}]),
         bgp_ad("any-tier", ipAddressPools=["prefs"], localPref=300,
                serviceSelectors=[{"matchExpressions": [{"key": "tier", "operator": "In", "values": ["gold", "silver"]}]}]),
         service("default", "web", ["198.51.100.1"]), endpoints("default", "web", ["worker-a"]),
         service("default", "local", ["198.51.100.17"], etp="Local"), endpoints("default", "local", ["worker-b"]),
         service("default", "gold", ["198.51.100.49"], labels={"tier": "gold"}), endpoints("default", "gold", ["worker-a"]),
        ]),
    "bgp-frr-k8s-drift": (
        """scenario: frr-k8s mode (SnapshotInfo bgpType frr-k8s). BGPPeer tor (192.0.2.254) and
  tor6 (2001:db8::fe) run on both nodes; pool public (198.51.100.0/28) is advertised to every
  peer. default/web (198.51.100.5) has endpoints on both nodes; node-b carries the exclude
  label. FRRConfiguration metallb-node-a allows 198.51.100.6/32 (stale) instead of
  198.51.100.5/32 to tor and lacks the tor6 neighbour; metallb-node-b matches (neighbours,
  nothing allowed). ServiceBGPStatus still lists node-b for web (node-a → tor, tor6 is right:
  the status counts sessions handed the route, before frr-k8s' family filter).
expected: web advertised by node-a only (node-b nodeLabeledExcludeBalancers); the IPv4 prefix
  is not offered to the IPv6 neighbour. LBD215 for node-a: missing neighbour 2001:db8::fe,
  missing prefix 198.51.100.5/32, extra prefix 198.51.100.6/32. LBD132 (ServiceBGPStatus shows
  node-b). check exits 0 (warnings only).""",
        [info(bgpType="frr-k8s"),
         node("node-a", "192.0.2.1"), node("node-b", "192.0.2.2", EXCLUDE),
         speaker("node-a", "192.0.2.1"), speaker("node-b", "192.0.2.2"),
         peer("tor", "192.0.2.254", 64512), peer("tor6", "2001:db8::fe", 64512),
         pool("public", ["198.51.100.0/28"]), bgp_ad("all", ipAddressPools=["public"]),
         service("default", "web", ["198.51.100.5"]), endpoints("default", "web", ["node-a", "node-b"]),
         bgp_status("node-a", "default", "web", ["tor", "tor6"]), bgp_status("node-b", "default", "web", ["tor"]),
         {"apiVersion": "frrk8s.metallb.io/v1beta1", "kind": "FRRConfiguration",
          "metadata": {"name": "metallb-node-a", "namespace": NS},
          "spec": {"nodeSelector": {"matchLabels": {"kubernetes.io/hostname": "node-a"}},
                   "bgp": {"routers": [{"asn": 64512, "neighbors": [
                       {"address": "192.0.2.254", "asn": 64512,
                        "toAdvertise": {"allowed": {"prefixes": ["198.51.100.6/32"]}}}],
                       "prefixes": ["198.51.100.6/32"]}]}}},
         {"apiVersion": "frrk8s.metallb.io/v1beta1", "kind": "FRRConfiguration",
          "metadata": {"name": "metallb-node-b", "namespace": NS},
          "spec": {"nodeSelector": {"matchLabels": {"kubernetes.io/hostname": "node-b"}},
                   "bgp": {"routers": [{"asn": 64512, "neighbors": [
                       {"address": "192.0.2.254", "asn": 64512, "toAdvertise": {"allowed": {"prefixes": []}}},
                       {"address": "2001:db8::fe", "asn": 64512, "toAdvertise": {"allowed": {"prefixes": []}}}]}]}}},
        ]),
    "bgp-native-ipv6": (
        """scenario: native BGP mode (the default). Pool v6 (2001:db8:1::/120) is selected by the
  BGPAdvertisement all (no ipAddressPools: every pool); pool v4 (198.51.100.0/28) also has an
  L2Advertisement serving default/web.
expected: LBD201 'pool "v6" has ipv6 CIDR 2001:db8:1::/120, native bgp mode does not support
  ipv6': the speakers reject the whole configuration, layer 2 included, so web's announcer is
  unknown. check exits 1.""",
        [node("node-a", "192.0.2.1"), speaker("node-a", "192.0.2.1"),
         peer("tor", "192.0.2.254", 64512),
         pool("v4", ["198.51.100.0/28"]), pool("v6", ["2001:db8:1::/120"]),
         bgp_ad("all"), crd("L2Advertisement", "l2", {"ipAddressPools": ["v4"]}),
         service("default", "web", ["198.51.100.5"]), endpoints("default", "web", ["node-a"])]),
}

for name, (comment, objects) in SCENARIOS.items():
    with open(f"testdata/scenarios/{name}.yaml", "w") as f:
        f.write("# generated by scripts/gen-bgp-scenarios.py\n")
        for line in comment.splitlines():
            f.write(f"# {line}\n")
        for obj in objects:
            f.write("---\n" + json.dumps(obj) + "\n")
