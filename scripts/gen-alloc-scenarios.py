#!/usr/bin/env python3
"""Writes the allocation scenarios in testdata/scenarios/alloc-*.yaml (controller replay).

Each file is a small two-node cluster with live speakers and one L2Advertisement; only the
pools and Services differ. Run from the repository root; the output is committed.
"""
import json

def node(name, ip):
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "status": {"addresses": [{"type": "InternalIP", "address": ip}],
                       "conditions": [{"type": "Ready", "status": "True"}]}}

def speaker(node_name, ip):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"speaker-{node_name}", "namespace": "metallb-system",
                         "labels": {"app": "metallb", "component": "speaker"}},
            "spec": {"nodeName": node_name, "hostNetwork": True,
                     "containers": [{"name": "speaker", "image": "quay.io/metallb/speaker:v0.16.1"}]},
            "status": {"phase": "Running", "podIP": ip, "conditions": [{"type": "Ready", "status": "True"}]}}

def pool(name, addresses, **spec):
    s = {"addresses": addresses}
    s.update(spec)
    return {"apiVersion": "metallb.io/v1beta1", "kind": "IPAddressPool",
            "metadata": {"name": name, "namespace": "metallb-system"}, "spec": s}

def namespace(name, labels=None):
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels or {}}}

L2 = {"apiVersion": "metallb.io/v1beta1", "kind": "L2Advertisement",
      "metadata": {"name": "l2", "namespace": "metallb-system"}, "spec": {}}

def service(ns, name, ips=(), ports=(("TCP", 80),), annotations=None, labels=None, cluster_ips=None,
            policy="SingleStack", families=None, etp="Cluster", selector=None):
    cluster_ips = cluster_ips or ["10.96.%d.%d" % (len(name), sum(map(ord, name)) % 250 + 1)]
    spec = {"type": "LoadBalancer", "externalTrafficPolicy": etp, "selector": selector or {"app": name},
            "clusterIP": cluster_ips[0], "clusterIPs": cluster_ips,
            "ipFamilyPolicy": policy,
            "ipFamilies": families or ["IPv6" if ":" in c else "IPv4" for c in cluster_ips],
            "ports": [{"name": f"p{p}", "protocol": proto, "port": p} for proto, p in ports]}
    if policy is None:
        del spec["ipFamilyPolicy"]
    meta = {"name": name, "namespace": ns}
    if annotations:
        meta["annotations"] = annotations
    if labels:
        meta["labels"] = labels
    obj = {"apiVersion": "v1", "kind": "Service", "metadata": meta, "spec": spec}
    if ips:
        obj["status"] = {"loadBalancer": {"ingress": [{"ip": ip} for ip in ips]}}
    return obj

def endpoints(ns, name, node_name="node-a"):
    return {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"name": f"{name}-abcde", "namespace": ns,
                         "labels": {"kubernetes.io/service-name": name}},
            "addressType": "IPv4",
            "endpoints": [{"addresses": ["10.244.0.10"], "nodeName": node_name,
                           "conditions": {"ready": True, "serving": True, "terminating": False}}]}

BASE = [node("node-a", "192.0.2.1"), node("node-b", "192.0.2.2"),
        speaker("node-a", "192.0.2.1"), speaker("node-b", "192.0.2.2"), L2]

def held(ns, name, ips, **kw):
    return [service(ns, name, ips, **kw), endpoints(ns, name)]

SCENARIOS = {
    "alloc-pool-exhausted": (
        """scenario: pool "small" (198.51.100.8/30, four addresses) is fully held by four
  Services; default/new asks for an address and the only other pool, "reserved", has
  autoAssign: false. MetalLB's controller answers "no available IPs" and nothing else.
expected: default/new pending, LBD110 with Warning AllocationFailed
  'Failed to allocate IP for "default/new": no available IPs'; LBD206 (small 100% used);
  LBD208 (reserved is never requested). check exits 1.""",
        [pool("small", ["198.51.100.8/30"]), pool("reserved", ["198.51.100.64/30"], autoAssign=False)]
        + [x for i in range(4) for x in held("default", f"app{i}", [f"198.51.100.{8 + i}"])]
        + [service("default", "new")]),
    "alloc-sharing-conflict": (
        """scenario: dns/dns-tcp holds 198.51.100.20 with metallb.io/allow-shared-ip "dns".
  dns/dns-udp requests the same IP with the key "DNS" (a typo); dns/dns-tcp-v2 uses the right
  key but the same port TCP/53. MetalLB reports every sharing refusal as "can't change
  sharing key"; the real causes differ.
expected: dns-udp pending, LBD110 (sharing keys differ); dns-tcp-v2 pending, LBD110
  (port TCP/53 is already in use). check exits 1.""",
        [pool("dns", ["198.51.100.16/28"])]
        + held("dns", "dns-tcp", ["198.51.100.20"], ports=(("TCP", 53),),
               annotations={"metallb.io/allow-shared-ip": "dns", "metallb.io/loadBalancerIPs": "198.51.100.20"})
        + [service("dns", "dns-udp", ports=(("UDP", 53),),
                   annotations={"metallb.io/allow-shared-ip": "DNS", "metallb.io/loadBalancerIPs": "198.51.100.20"}),
           service("dns", "dns-tcp-v2", ports=(("TCP", 53),),
                   annotations={"metallb.io/allow-shared-ip": "dns", "metallb.io/loadBalancerIPs": "198.51.100.20"})]),
    "alloc-dual-stack": (
        """scenario: pool "dual" has 198.51.100.32/29 and 2001:db8:1::/125; pool "v4only" has
  198.51.100.48/29 and no IPv6. web/both (RequireDualStack, two ClusterIPs) is pending;
  web/prefer (PreferDualStack, two ClusterIPs) holds an IPv4 from v4only; web/nopolicy has two
  ClusterIPs but no ipFamilyPolicy.
expected: both would get [198.51.100.32, 2001:db8:1::] (IPv4 first, one pool); prefer keeps
  its IP but the additional IPv6 fails every sync (LBD114, ["198.51.100.48" "<nil>"]);
  nopolicy pending with "no available IPs" (LBD110). check exits 1.""",
        [pool("dual", ["198.51.100.32/29", "2001:db8:1::/125"]),
         pool("v4only", ["198.51.100.48/29"], serviceAllocation={"namespaces": ["web"], "serviceSelectors": [{"matchLabels": {"family": "v4"}}], "priority": 1})]
        + [service("web", "both", policy="RequireDualStack", cluster_ips=["10.96.0.20", "fd00:10:96::20"])]
        + held("web", "prefer", ["198.51.100.48"], policy="PreferDualStack", labels={"family": "v4"},
               cluster_ips=["10.96.0.21", "fd00:10:96::21"],
               annotations={"metallb.io/address-pool": "v4only"})
        + [service("web", "nopolicy", policy=None, cluster_ips=["10.96.0.22", "fd00:10:96::22"])]),
    "alloc-namespace-pools": (
        """scenario: pools "team-a-1" (namespaces [team-a]) and "team-a-2" (namespaceSelectors
  team=a) both have priority 10; "shared" has no serviceAllocation. team-a/api is pending;
  team-b/api is pending; team-b/grab asks for team-a-1 by annotation.
expected: team-a/api: MetalLB picks team-a-1 or team-a-2 at random (possibleOutcomes, no
  expectedIPs); team-b/api gets the first address of "shared"; team-b/grab pending with
  "pool team-a-1 not compatible for ip assignment" (LBD110). check exits 1.""",
        [namespace("team-a", {"team": "a"}), namespace("team-b", {"team": "b"}),
         pool("team-a-1", ["198.51.100.64/29"], serviceAllocation={"priority": 10, "namespaces": ["team-a"]}),
         pool("team-a-2", ["198.51.100.72/29"], serviceAllocation={"priority": 10, "namespaceSelectors": [{"matchLabels": {"team": "a"}}]}),
         pool("shared", ["198.51.100.80/29"]),
         service("team-a", "api"), service("team-b", "api"),
         service("team-b", "grab", annotations={"metallb.io/address-pool": "team-a-1"})]),
    "alloc-mismatch": (
        """scenario: pool "lan" (192.0.2.0/24, no avoidBuggyIPs) contains both nodes' InternalIPs;
  default/old holds 198.51.100.100 although pool "public" (198.51.100.96/28) is now reserved
  for namespace prod; default/zero holds 192.0.2.255.
expected: default/old mismatch: MetalLB emits Normal ClearAssignment and assigns 192.0.2.0
  from lan instead (LBD112, and LBD113 for the .0 address); default/zero keeps 192.0.2.255
  (LBD113); LBD207 (lan contains both nodes' InternalIPs). check exits 0 (warnings only).""",
        [pool("lan", ["192.0.2.0/24"]),
         pool("public", ["198.51.100.96/28"], serviceAllocation={"namespaces": ["prod"]})]
        + held("default", "old", ["198.51.100.100"])
        + held("default", "zero", ["192.0.2.255"])),
}

for name, (comment, objects) in SCENARIOS.items():
    with open(f"testdata/scenarios/{name}.yaml", "w") as f:
        f.write("# generated by scripts/gen-alloc-scenarios.py\n")
        for line in comment.splitlines():
            f.write(f"# {line}\n")
        for obj in BASE + objects:
            f.write("---\n" + json.dumps(obj) + "\n")
