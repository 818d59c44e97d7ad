#!/usr/bin/env python3
"""Generate a synthetic MetalLB/Kubernetes snapshot for kubectl-lbdoctor.

Writes one JSON document shaped like `kubectl get -o json` over several kinds:
a `kind: List` whose items are a SnapshotInfo, Namespaces, Nodes, MetalLB
speaker Pods, IPAddressPools, L2Advertisements, Services (type LoadBalancer)
and one EndpointSlice per Service.

Deterministic: the same arguments always give byte-identical output
(everything random comes from random.Random(seed); no wall-clock, no hash
ordering). Stdlib only.

Only documentation / benchmark / shared address space is used:
  nodes (InternalIP)    100.64.0.0/12
  pools (overflow)      100.80.0.0/12   (only if 198.18.0.0/15 is too small)
  pods / endpoints      100.96.0.0/12
  ClusterIPs            100.112.0.0/12
  IPv4 pools            198.18.0.0/15
  IPv6 pool             2001:db8:100::/112 (+ ClusterIPs 2001:db8:ffff::/112,
                        endpoints 2001:db8:fffe::/112)

Usage:
  scripts/gen-synthetic.py --out /tmp/snap.json
  scripts/gen-synthetic.py --nodes 50 --services 200 --out - | jq .
"""

import argparse
import datetime as _dt
import ipaddress
import json
import math
import sys
import time
import random
import uuid

METALLB_NS = "metallb-system"
METALLB_VERSION = "v0.16.1"
ZONES = ["zone-a", "zone-b", "zone-c", "zone-d", "zone-e"]
REGION = "region-1"
RACK_LABEL = "topology.example.com/rack"
ZONE_LABEL = "topology.kubernetes.io/zone"
EXCLUDE_LABEL = "node.kubernetes.io/exclude-from-external-load-balancers"
CP_LABEL = "node-role.kubernetes.io/control-plane"
TIERS = ["gold", "silver", "bronze", "internal"]
N_NAMESPACES = 50
# Base time for creationTimestamps; everything is an offset from it.
EPOCH = _dt.datetime(2026, 1, 5, 8, 0, 0, tzinfo=_dt.timezone.utc)

NODE_NET = ipaddress.ip_network("100.64.0.0/12")
POOL_NET_PRIMARY = ipaddress.ip_network("198.18.0.0/15")
POOL_NET_OVERFLOW = ipaddress.ip_network("100.80.0.0/12")
POD_NET = ipaddress.ip_network("100.96.0.0/12")
CLUSTERIP_NET = ipaddress.ip_network("100.112.0.0/12")
V6_POOL_NET = ipaddress.ip_network("2001:db8:100::/112")
V6_CLUSTERIP_NET = ipaddress.ip_network("2001:db8:ffff::/112")
V6_POD_NET = ipaddress.ip_network("2001:db8:fffe::/112")

ALNUM = "bcdfghjklmnpqrstvwxz2456789"  # k8s generateName alphabet


class Gen:
    def __init__(self, args):
        self.a = args
        self.rng = random.Random(args.seed)
        self.rv = 1000  # resourceVersion counter

    # ---- small helpers -------------------------------------------------
    def uid(self):
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def suffix(self, n=5):
        return "".join(self.rng.choice(ALNUM) for _ in range(n))

    def ts(self, lo_days=0.0, hi_days=300.0):
        secs = int(self.rng.uniform(lo_days, hi_days) * 86400)
        return (EPOCH + _dt.timedelta(seconds=secs)).strftime("%Y-%m-%dT%H:%M:%SZ")

    def next_rv(self):
        self.rv += self.rng.randint(1, 97)
        return str(self.rv)

    def meta(self, name, namespace=None, labels=None, annotations=None, **extra):
        m = {"name": name}
        if namespace is not None:
            m["namespace"] = namespace
        m["uid"] = self.uid()
        m["resourceVersion"] = self.next_rv()
        m["creationTimestamp"] = self.ts()
        if labels:
            m["labels"] = labels
        if annotations:
            m["annotations"] = annotations
        m.update(extra)
        return m

    def pod_block(self, i):
        size = 1 << (32 - self.pod_prefix)
        return ipaddress.ip_network((int(POD_NET.network_address) + i * size, self.pod_prefix))

    # ---- sections ------------------------------------------------------
    def snapshot_info(self):
        return {
            "apiVersion": "lbdoctor/v1alpha1",
            "kind": "SnapshotInfo",
            "metadata": {"name": "snapshot"},
            "spec": {
                "capturedAt": "2026-11-29T00:00:00Z",
                "toolVersion": "synthetic",
                "metallb": {
                    "version": METALLB_VERSION,
                    "namespace": METALLB_NS,
                    "memberlist": "enabled",
                },
            },
        }

    def namespaces(self):
        out = []
        envs = ["prod", "staging", "dev"]
        names = [METALLB_NS] + ["ns-%02d" % i for i in range(N_NAMESPACES)]
        for i, name in enumerate(names):
            labels = {"kubernetes.io/metadata.name": name}
            if name == METALLB_NS:
                labels["pod-security.kubernetes.io/enforce"] = "privileged"
                labels["pod-security.kubernetes.io/audit"] = "privileged"
                labels["pod-security.kubernetes.io/warn"] = "privileged"
            else:
                labels["team"] = "team-%d" % ((i - 1) % 12)
                labels["env"] = envs[(i - 1) % len(envs)]
            out.append({
                "apiVersion": "v1",
                "kind": "Namespace",
                "metadata": self.meta(name, labels=labels),
                "spec": {"finalizers": ["kubernetes"]},
                "status": {"phase": "Active"},
            })
        return out

    def nodes(self):
        n = self.a.nodes
        if n > NODE_NET.num_addresses - 2:
            sys.exit("too many nodes for %s" % NODE_NET)
        self.n_racks = max(1, min(40, math.ceil(n / 25)))
        # each node gets an equal slice of POD_NET as its podCIDR; endpoint
        # addresses are handed out from the slice of the endpoint's node
        self.pod_prefix = min(28, POD_NET.prefixlen + max(0, math.ceil(math.log2(n))))
        out = []
        self.node_names = []
        self.node_zone = {}
        self.node_ip = {}
        self.node_is_cp = {}
        n_cp = max(1, round(n * 0.03)) if n >= 3 else 0
        cp_set = set(range(n_cp))  # the first ones are the control plane
        netunavail = set(self.rng.sample(range(n), max(0, round(n * 0.01))))
        for i in range(n):
            name = "node-%04d" % i
            zone = ZONES[i % len(ZONES)]
            rack = "rack-%02d" % ((i // len(ZONES)) % self.n_racks)
            ip = str(NODE_NET.network_address + 1 + i)
            is_cp = i in cp_set
            labels = {
                "beta.kubernetes.io/arch": "amd64",
                "beta.kubernetes.io/os": "linux",
                "kubernetes.io/arch": "amd64",
                "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux",
                "topology.kubernetes.io/region": REGION,
                ZONE_LABEL: zone,
                RACK_LABEL: rack,
            }
            spec = {"podCIDR": str(self.pod_block(i)), "podCIDRs": [str(self.pod_block(i))]}
            if is_cp:
                labels[CP_LABEL] = ""
                labels[EXCLUDE_LABEL] = ""
                spec["taints"] = [{"effect": "NoSchedule", "key": CP_LABEL}]
            else:
                labels["node-role.kubernetes.io/worker"] = ""
            spec["providerID"] = "synthetic://%s" % name
            hb = "2026-11-28T23:5%d:%02dZ" % (self.rng.randint(0, 9), self.rng.randint(0, 59))
            tr = self.ts(0, 300)
            cond = lambda t, s, r, m: {  # noqa: E731
                "lastHeartbeatTime": hb, "lastTransitionTime": tr,
                "message": m, "reason": r, "status": s, "type": t,
            }
            if i in netunavail:
                nu = cond("NetworkUnavailable", "True", "NoRouteCreated",
                          "Node created without a route")
            else:
                nu = cond("NetworkUnavailable", "False", "RouteCreated",
                          "RouteController created a route")
            conditions = [
                nu,
                cond("MemoryPressure", "False", "KubeletHasSufficientMemory",
                     "kubelet has sufficient memory available"),
                cond("DiskPressure", "False", "KubeletHasNoDiskPressure",
                     "kubelet has no disk pressure"),
                cond("PIDPressure", "False", "KubeletHasSufficientPID",
                     "kubelet has sufficient PID available"),
                cond("Ready", "True", "KubeletReady",
                     "kubelet is posting ready status"),
            ]
            out.append({
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": self.meta(name, labels=labels, annotations={
                    "node.alpha.kubernetes.io/ttl": "0",
                    "volumes.kubernetes.io/controller-managed-attach-detach": "true",
                }),
                "spec": spec,
                "status": {
                    "addresses": [
                        {"address": ip, "type": "InternalIP"},
                        {"address": name, "type": "Hostname"},
                    ],
                    "allocatable": {"cpu": "15800m", "ephemeral-storage": "95491281146",
                                    "memory": "63412Mi", "pods": "110"},
                    "capacity": {"cpu": "16", "ephemeral-storage": "103609936Ki",
                                 "memory": "65536Mi", "pods": "110"},
                    "conditions": conditions,
                    "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
                    "nodeInfo": {
                        "architecture": "amd64",
                        "bootID": self.uid(),
                        "containerRuntimeVersion": "containerd://2.1.4",
                        "kernelVersion": "6.12.48",
                        "kubeProxyVersion": "",
                        "kubeletVersion": "v1.33.5",
                        "machineID": self.uid().replace("-", ""),
                        "operatingSystem": "linux",
                        "osImage": "Debian GNU/Linux 13 (trixie)",
                        "systemUUID": self.uid(),
                    },
                },
            })
            self.node_names.append(name)
            self.node_zone[name] = zone
            self.node_ip[name] = ip
            self.node_is_cp[name] = is_cp
        self.n_cp = n_cp
        self.n_netunavail = len(netunavail)
        return out

    def speakers(self):
        n = self.a.nodes
        missing = set(self.rng.sample(range(n), round(n * 0.02)))
        notready = set(self.rng.sample(sorted(set(range(n)) - missing),
                                       max(0, round(n * 0.005))))
        ds_uid = self.uid()
        out = []
        self.speaker_nodes = []
        for i, node in enumerate(self.node_names):
            if i in missing:
                continue
            ready = i not in notready
            start = self.ts(100, 320)
            rs = "True" if ready else "False"
            cs = {
                "containerID": "containerd://" + self.uid().replace("-", "") * 2,
                "image": "quay.io/metallb/speaker:%s" % METALLB_VERSION,
                "imageID": "quay.io/metallb/speaker@sha256:" + ("%064x" % self.rng.getrandbits(256)),
                "lastState": {},
                "name": "speaker",
                "ready": ready,
                "restartCount": 0 if ready else self.rng.randint(1, 30),
                "started": True,
                "state": {"running": {"startedAt": start}},
            }
            conds = [
                {"lastProbeTime": None, "lastTransitionTime": start, "status": "True", "type": "PodReadyToStartContainers"},
                {"lastProbeTime": None, "lastTransitionTime": start, "status": "True", "type": "Initialized"},
                {"lastProbeTime": None, "lastTransitionTime": start, "status": rs, "type": "Ready"},
                {"lastProbeTime": None, "lastTransitionTime": start, "status": rs, "type": "ContainersReady"},
                {"lastProbeTime": None, "lastTransitionTime": start, "status": "True", "type": "PodScheduled"},
            ]
            ip = self.node_ip[node]
            out.append({
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": self.meta(
                    "speaker-" + self.suffix(), namespace=METALLB_NS,
                    labels={
                        "app": "metallb",
                        "component": "speaker",
                        "controller-revision-hash": "6d9f7c8b5b",
                        "pod-template-generation": "3",
                    },
                    generateName="speaker-",
                    ownerReferences=[{
                        "apiVersion": "apps/v1", "blockOwnerDeletion": True,
                        "controller": True, "kind": "DaemonSet",
                        "name": "speaker", "uid": ds_uid,
                    }],
                ),
                "spec": {
                    "containers": [{
                        "args": ["--port=7472", "--log-level=info"],
                        "env": [
                            {"name": "METALLB_NODE_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "spec.nodeName"}}},
                            {"name": "METALLB_HOST", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "status.hostIP"}}},
                            {"name": "METALLB_ML_BIND_ADDR", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "status.podIP"}}},
                            {"name": "METALLB_ML_LABELS", "value": "app=metallb,component=speaker"},
                            {"name": "METALLB_ML_SECRET_KEY_PATH", "value": "/etc/ml_secret_key"},
                        ],
                        "image": "quay.io/metallb/speaker:%s" % METALLB_VERSION,
                        "name": "speaker",
                        "ports": [
                            {"containerPort": 7472, "hostPort": 7472, "name": "monitoring", "protocol": "TCP"},
                            {"containerPort": 7946, "hostPort": 7946, "name": "memberlist-tcp", "protocol": "TCP"},
                            {"containerPort": 7946, "hostPort": 7946, "name": "memberlist-udp", "protocol": "UDP"},
                        ],
                    }],
                    "hostNetwork": True,
                    "nodeName": node,
                    "nodeSelector": {"kubernetes.io/os": "linux"},
                    "serviceAccountName": "speaker",
                    "tolerations": [
                        {"effect": "NoSchedule", "key": "node-role.kubernetes.io/master", "operator": "Exists"},
                        {"effect": "NoSchedule", "key": CP_LABEL, "operator": "Exists"},
                    ],
                },
                "status": {
                    "conditions": conds,
                    "containerStatuses": [cs],
                    "hostIP": ip,
                    "hostIPs": [{"ip": ip}],
                    "phase": "Running",
                    "podIP": ip,
                    "podIPs": [{"ip": ip}],
                    "qosClass": "BestEffort",
                    "startTime": start,
                },
            })
            self.speaker_nodes.append(node)
        self.n_speaker_missing = len(missing)
        self.n_speaker_notready = len(notready)
        return out

    def pools(self):
        p = self.a.pools
        v6 = self.a.ipv6_pool and p >= 2
        n_v4 = p - (1 if v6 else 0)
        if n_v4 < 1:
            sys.exit("need at least one IPv4 pool")
        # Expected services per pool (round robin), with 25% + 16 headroom;
        # .0 and .255 are never handed out (a /24 loses 2 of 256).
        per_pool = math.ceil(self.a.services / p) if p else 0
        need = math.ceil((per_pool * 1.25 + 16) * 256 / 254)
        bits = max(8, math.ceil(math.log2(need)))  # at least a /24
        if n_v4 << 12 <= POOL_NET_PRIMARY.num_addresses:
            bits = max(bits, 12)  # roomy /20 blocks while they fit in 198.18.0.0/15
        prefix = 32 - bits
        block = 1 << bits
        if n_v4 * block <= POOL_NET_PRIMARY.num_addresses:
            base = POOL_NET_PRIMARY
        elif n_v4 * block <= POOL_NET_OVERFLOW.num_addresses:
            base = POOL_NET_OVERFLOW
        else:
            sys.exit("%d services over %d IPv4 pools do not fit in %s or %s"
                     % (self.a.services, n_v4, POOL_NET_PRIMARY, POOL_NET_OVERFLOW))
        out = []
        self.pool_meta = []  # dicts: name, tier, family, net, labels
        for i in range(p):
            name = "pool-%02d" % i
            tier = TIERS[i % len(TIERS)]
            labels = {"tier": tier, "site": "dc%d" % (i % 3 + 1)}
            spec = {}
            if v6 and i == p - 1:
                net = V6_POOL_NET
                family = "IPv6"
                labels["family"] = "ipv6"
                spec["addresses"] = [str(net)]
            else:
                net = ipaddress.ip_network((int(base.network_address) + i * block, prefix))
                family = "IPv4"
                labels["family"] = "ipv4"
                if i % 7 == 3:
                    # range form "a-b" (MetalLB accepts both)
                    spec["addresses"] = ["%s-%s" % (net.network_address, net.broadcast_address)]
                else:
                    spec["addresses"] = [str(net)]
            spec["autoAssign"] = True
            spec["avoidBuggyIPs"] = (i % 5 == 2)
            out.append({
                "apiVersion": "metallb.io/v1beta1",
                "kind": "IPAddressPool",
                "metadata": self.meta(name, namespace=METALLB_NS, labels=labels),
                "spec": spec,
            })
            self.pool_meta.append({"name": name, "tier": tier, "family": family,
                                   "net": net, "labels": labels})
        self.pool_prefix = prefix
        self.pool_base = base
        return out

    def advertisements(self):
        """L2Advertisements of mixed shapes; every pool ends up covered."""
        n = self.a.advertisements
        pools = [m["name"] for m in self.pool_meta]
        racks = ["rack-%02d" % r for r in range(self.n_racks)]
        rack_subset = racks[: max(1, len(racks) // 4)]
        shapes = [
            # (name, shape, pool-count to take explicitly)
            ("l2-zone-a-b", "zones-ab", 2),
            ("l2-zone-c", "zone-c", 2),
            ("l2-racks", "racks-in", 2),
            ("l2-all-nodes", "all-nodes", 2),
            ("l2-tier-gold", "pool-selector-gold", 0),
            ("l2-public-services", "service-selector", 1),
            ("l2-zone-e-eth0", "zone-e-iface", 2),
            ("l2-no-control-plane", "not-cp", 2),
            ("l2-tier-silver-bronze", "pool-selector-expr", 0),
            ("l2-catch-all", "catch-all", 0),
        ]
        if n <= 0:
            return []
        # Pick shapes: the catch-all is always last so leftovers land there.
        chosen = [shapes[i % (len(shapes) - 1)] for i in range(n - 1)] + [shapes[-1]]
        cursor = 0
        covered = []
        specs = []
        self.service_selected_pools = []
        for idx, (name, shape, take) in enumerate(chosen):
            if idx >= len(shapes) - 1:
                name = "%s-%d" % (name, idx)
            spec = {}
            explicit = []
            if take:
                explicit = pools[cursor:cursor + take]
                cursor += len(explicit)
                if not explicit:
                    # ran out of pools: reuse from the start
                    explicit = pools[(idx * 2) % len(pools):(idx * 2) % len(pools) + take]
                spec["ipAddressPools"] = list(explicit)
            if shape == "zones-ab":
                spec["nodeSelectors"] = [{"matchLabels": {ZONE_LABEL: "zone-a"}},
                                         {"matchLabels": {ZONE_LABEL: "zone-b"}}]
            elif shape == "zone-c":
                spec["nodeSelectors"] = [{"matchLabels": {ZONE_LABEL: "zone-c"}}]
            elif shape == "racks-in":
                spec["nodeSelectors"] = [{"matchExpressions": [
                    {"key": RACK_LABEL, "operator": "In", "values": rack_subset}]}]
            elif shape == "all-nodes":
                spec["nodeSelectors"] = []
            elif shape == "pool-selector-gold":
                spec["ipAddressPoolSelectors"] = [{"matchLabels": {"tier": "gold"}}]
                spec["nodeSelectors"] = [{"matchLabels": {ZONE_LABEL: "zone-d"}}]
                explicit = [m["name"] for m in self.pool_meta if m["tier"] == "gold"]
            elif shape == "service-selector":
                spec["serviceSelectors"] = [{"matchLabels": {"exposure": "l2-public"}}]
                self.service_selected_pools.extend(explicit)
            elif shape == "zone-e-iface":
                spec["nodeSelectors"] = [{"matchLabels": {ZONE_LABEL: "zone-e"}}]
                spec["interfaces"] = ["eth0", "bond0"]
            elif shape == "not-cp":
                spec["nodeSelectors"] = [{"matchExpressions": [
                    {"key": CP_LABEL, "operator": "DoesNotExist"}]}]
            elif shape == "pool-selector-expr":
                spec["ipAddressPoolSelectors"] = [{"matchExpressions": [
                    {"key": "tier", "operator": "In", "values": ["silver", "bronze"]}]}]
                spec["nodeSelectors"] = [{"matchLabels": {ZONE_LABEL: "zone-b"}}]
                explicit = [m["name"] for m in self.pool_meta if m["tier"] in ("silver", "bronze")]
            elif shape == "catch-all":
                spec["nodeSelectors"] = []
            covered.extend(explicit)
            specs.append((name, spec))
        # Every pool must be covered by at least one advertisement; pools only
        # covered through the service-selector one also go to the catch-all so
        # that only a minority of their services goes unannounced.
        leftovers = [p for p in pools
                     if p not in covered or
                     (p in self.service_selected_pools and covered.count(p) == 1)]
        last_name, last_spec = specs[-1]
        if leftovers:
            names = last_spec.setdefault("ipAddressPools", [])
            for p in leftovers:
                if p not in names:
                    names.append(p)
        self.service_selected_pools = [p for p in self.service_selected_pools
                                       if p not in leftovers]
        out = []
        for name, spec in specs:
            out.append({
                "apiVersion": "metallb.io/v1beta1",
                "kind": "L2Advertisement",
                "metadata": self.meta(name, namespace=METALLB_NS),
                "spec": spec,
            })
        return out

    def services_and_slices(self):
        n = self.a.services
        rng = self.rng
        pending = set(rng.sample(range(n), round(n * 0.02)))
        # per-pool allocators: lists of address ints, lowest first
        alloc_next = {}
        for m in self.pool_meta:
            alloc_next[m["name"]] = int(m["net"].network_address) + (1 if m["family"] == "IPv6" else 0)
        nodeport_free = list(range(30000, 32768))
        rng.shuffle(nodeport_free)
        pod_next = {}  # node index -> next free address int in its podCIDR
        v6pod_next = int(V6_POD_NET.network_address) + 1
        cip_next = int(CLUSTERIP_NET.network_address) + 10
        v6cip_next = int(V6_CLUSTERIP_NET.network_address) + 10
        # namespace weights: a few namespaces are much busier than others
        ns_names = ["ns-%02d" % i for i in range(N_NAMESPACES)]
        ns_weights = [1.0 / (1 + (i % 17)) for i in range(N_NAMESPACES)]
        rr = 0
        services, slices = [], []
        self.n_pending = len(pending)
        self.n_local = 0
        port_shapes = [
            [("http", 80, 8080, "TCP")],
            [("http", 80, 8080, "TCP"), ("https", 443, 8443, "TCP")],
            [("https", 443, 8443, "TCP")],
            [("grpc", 9090, 9090, "TCP")],
            [("dns-udp", 53, 5353, "UDP"), ("dns-tcp", 53, 5353, "TCP")],
            [("mqtt", 1883, 1883, "TCP"), ("mqtts", 8883, 8883, "TCP"), ("metrics", 9100, 9100, "TCP")],
        ]
        n_nodes = len(self.node_names)
        for i in range(n):
            name = "svc-%05d" % i
            ns = rng.choices(ns_names, weights=ns_weights)[0]
            local = rng.random() < 0.20
            if local:
                self.n_local += 1
            labels = {"app": name, "app.kubernetes.io/part-of": "synthetic"}
            annotations = {}
            status = {"loadBalancer": {}}
            pool = None
            if i not in pending:
                pool = self.pool_meta[rr % len(self.pool_meta)]
                rr += 1
                v = alloc_next[pool["name"]]
                if pool["family"] == "IPv4":
                    while v % 256 in (0, 255):
                        v += 1
                alloc_next[pool["name"]] = v + 1
                ip = ipaddress.ip_address(v)
                if ip not in pool["net"]:
                    sys.exit("pool %s exhausted" % pool["name"])
                status["loadBalancer"]["ingress"] = [{"ip": str(ip), "ipMode": "VIP"}]
                annotations["metallb.io/ip-allocated-from-pool"] = pool["name"]
                if rng.random() < 0.10:
                    annotations["metallb.io/address-pool"] = pool["name"]
                if pool["name"] in self.service_selected_pools and rng.random() < 0.9:
                    labels["exposure"] = "l2-public"
            else:
                # pending: ask for a pool that does not exist / is full
                if rng.random() < 0.5:
                    annotations["metallb.io/address-pool"] = "pool-does-not-exist"
            family = pool["family"] if pool else "IPv4"
            ports_shape = port_shapes[rng.randrange(len(port_shapes))]
            ports = []
            alloc_np = len(nodeport_free) >= len(ports_shape) + (1 if local else 0)
            for pname, port, tport, proto in ports_shape:
                p = {"name": pname, "port": port, "protocol": proto, "targetPort": tport}
                if alloc_np:
                    p["nodePort"] = nodeport_free.pop()
                ports.append(p)
            if family == "IPv6":
                cip = str(ipaddress.ip_address(v6cip_next))
                v6cip_next += 1
            else:
                cip = str(ipaddress.ip_address(cip_next))
                cip_next += 1
            spec = {
                "allocateLoadBalancerNodePorts": alloc_np,
                "clusterIP": cip,
                "clusterIPs": [cip],
                "externalTrafficPolicy": "Local" if local else "Cluster",
                "internalTrafficPolicy": "Cluster",
                "ipFamilies": [family],
                "ipFamilyPolicy": "SingleStack",
                "ports": ports,
                "selector": {"app": name},
                "sessionAffinity": "None",
                "type": "LoadBalancer",
            }
            if local:
                # healthCheckNodePort is mandatory for Local; reuse a port if
                # the (synthetic, oversized) NodePort range is exhausted.
                spec["healthCheckNodePort"] = nodeport_free.pop() if nodeport_free else 30000 + rng.randrange(2768)
            svc_meta = self.meta(name, namespace=ns, labels=labels,
                                 annotations=annotations or None)
            services.append({"apiVersion": "v1", "kind": "Service",
                             "metadata": svc_meta, "spec": spec, "status": status})

            # EndpointSlice
            k = rng.choice((1, 1, 2, 2, 2, 3, 3, 4))
            endpoints = []
            for _ in range(k):
                ni = rng.randrange(n_nodes)
                node = self.node_names[ni]
                r = rng.random()
                if r < 0.88:
                    ready, serving, terminating = True, True, False
                elif r < 0.94:
                    ready, serving, terminating = False, False, False
                else:
                    ready, serving, terminating = False, True, True
                if family == "IPv6":
                    addr = str(ipaddress.ip_address(v6pod_next))
                    v6pod_next += 1
                else:
                    blk = self.pod_block(ni)
                    a_int = pod_next.get(ni, int(blk.network_address) + 2)  # .1 = node bridge
                    if a_int >= int(blk.broadcast_address):
                        sys.exit("podCIDR %s of %s exhausted; use more nodes or fewer services"
                                 % (blk, node))
                    pod_next[ni] = a_int + 1
                    addr = str(ipaddress.ip_address(a_int))
                pod = "%s-%s-%s" % (name, "%010x" % rng.getrandbits(40), self.suffix())
                endpoints.append({
                    "addresses": [addr],
                    "conditions": {"ready": ready, "serving": serving, "terminating": terminating},
                    "nodeName": node,
                    "targetRef": {"kind": "Pod", "name": pod, "namespace": ns, "uid": self.uid()},
                    "zone": self.node_zone[node],
                })
            slices.append({
                "addressType": family,
                "apiVersion": "discovery.k8s.io/v1",
                "endpoints": endpoints,
                "kind": "EndpointSlice",
                "metadata": self.meta(
                    "%s-%s" % (name, self.suffix()), namespace=ns,
                    labels={
                        "app": name,
                        "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io",
                        "kubernetes.io/service-name": name,
                    },
                    annotations={"endpoints.kubernetes.io/last-change-trigger-time": self.ts(250, 330)},
                    generateName=name + "-",
                    ownerReferences=[{
                        "apiVersion": "v1", "blockOwnerDeletion": True, "controller": True,
                        "kind": "Service", "name": name, "uid": svc_meta["uid"],
                    }],
                ),
                "ports": [{"name": pn, "port": tp, "protocol": pr}
                          for pn, _p, tp, pr in ports_shape],
            })
        return services, slices


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--services", type=int, default=10000)
    ap.add_argument("--pools", type=int, default=20)
    ap.add_argument("--advertisements", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ipv6-pool", action=argparse.BooleanOptionalAction, default=True,
                    help="make the last pool an IPv6 2001:db8:100::/112 pool (default: yes)")
    ap.add_argument("--kubectl-key-order", action="store_true",
                    help="emit the List's keys as kubectl does (items before kind)")
    ap.add_argument("--indent", type=int, default=None,
                    help="pretty-print (default: compact)")
    ap.add_argument("--out", required=True, help="output file, or '-' for stdout")
    a = ap.parse_args(argv)
    if a.nodes < 1 or a.services < 0 or a.pools < 1 or a.advertisements < 0:
        ap.error("need --nodes>=1 --services>=0 --pools>=1 --advertisements>=0")

    if a.advertisements == 0:
        print("gen-synthetic: warning: --advertisements 0 leaves every pool unannounced",
              file=sys.stderr)
    t0 = time.perf_counter()
    g = Gen(a)
    items = [g.snapshot_info()]
    items += g.namespaces()
    items += g.nodes()
    items += g.speakers()
    items += g.pools()
    items += g.advertisements()
    svcs, slices = g.services_and_slices()
    items += svcs
    items += slices
    if a.kubectl_key_order:
        doc = {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}
    else:
        doc = {"apiVersion": "v1", "kind": "List", "items": items}
    if a.indent is None:
        text = json.dumps(doc, separators=(",", ":"), ensure_ascii=False)
    else:
        text = json.dumps(doc, indent=a.indent, ensure_ascii=False)
    data = (text + "\n").encode("utf-8")
    if a.out == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        with open(a.out, "wb") as f:
            f.write(data)
    dt = time.perf_counter() - t0
    print("gen-synthetic: %d items (%d nodes [%d control-plane, %d NetworkUnavailable], "
          "%d speakers [%d missing, %d not ready], %d pools (%s /%d), %d L2Advertisements, "
          "%d services [%d Local, %d pending], %d EndpointSlices) seed=%d"
          % (len(items), a.nodes, g.n_cp, g.n_netunavail, len(g.speaker_nodes),
             g.n_speaker_missing, g.n_speaker_notready, a.pools, g.pool_base, g.pool_prefix,
             a.advertisements, len(svcs), g.n_local, g.n_pending, len(slices), a.seed),
          file=sys.stderr)
    print("gen-synthetic: wrote %d bytes (%.1f MiB) to %s in %.2fs"
          % (len(data), len(data) / 1048576, a.out, dt), file=sys.stderr)


if __name__ == "__main__":
    main()
