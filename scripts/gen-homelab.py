#!/usr/bin/env python3
"""Generate the two "homelab" demo snapshots for kubectl-lbdoctor.

    python3 scripts/gen-homelab.py [--out-dir DIR]     (default: testdata/clusters)

Writes, deterministically (same bytes on every run; Python 3 stdlib only):

  homelab.yaml       8-node home cluster (cp-1..3, worker-a/b, gpu-1..3), MetalLB v0.16.1
                     in layer 2 mode: pool `homelab` (198.51.100.10-198.51.100.40), one
                     L2Advertisement `workers` selecting worker-a and worker-b, ten
                     LoadBalancer Services. ServiceL2Status objects and nodeAssigned
                     Events agree with the election, so reality matches the prediction.
  homelab-trap.yaml  the same cluster after someone pointed the advertisement's
                     nodeSelectors at the control plane. kubeadm labels every
                     control-plane node node.kubernetes.io/exclude-from-external-load-balancers=""
                     (the key alone excludes), so nobody announces anything (LBD102).
                     The speakers deleted their ServiceL2Status objects; the old
                     nodeAssigned Events remain as stale evidence.

Scenario details worth knowing when reading test expectations:
  * home/pihole-dns-tcp and home/pihole-dns-udp share 198.51.100.20 (allow-shared-ip
    "pihole"). The TCP one selects the crash-looping secondary instance: every endpoint is
    ready=false/serving=false, so that Service alone is announced by nobody (LBD104),
    while the UDP one is announced from the same IP.
  * default/traefik is externalTrafficPolicy Local with its only endpoint on worker-b.
    The plain sha256 order for its IP puts worker-a first; Local makes worker-b win.

The election is re-computed here from the generated objects (spec metallb-speaker.md §4,
§11) and printed at the end, per Service: IP, policy and elected node.

Address plan: documentation ranges only. Nodes 192.0.2.0/24, LoadBalancer IPs
198.51.100.0/24, ClusterIPs 203.0.113.0/24 (standing in for the service CIDR), pods
10.244.0.0/16 (one /24 per node).
"""

import argparse
import copy
import hashlib
import json
import os
import random
import re
import sys
import uuid

CAPTURED_AT = "2026-11-29T08:00:00Z"
TRAP_CAPTURED_AT = "2026-11-29T09:30:00Z"
TOOL_VERSION = "0.1.0"
SERVER_VERSION = "v1.33.4"
METALLB_VERSION = "v0.16.1"
MLB_NS = "metallb-system"
POOL = "homelab"
POOL_RANGE = "198.51.100.10-198.51.100.40"
EXCLUDE_LB = "node.kubernetes.io/exclude-from-external-load-balancers"

rng = random.Random(20261129)
UID_NS = uuid.UUID("6f1c0d1e-2b7a-4c55-9d0e-1a2b3c4d5e6f")



sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from k8s_yaml import K8S_ALNUM, LOWER, Names, dump_documents  # noqa: E402  (what the generators share)
_names = Names(rng, UID_NS, 48_210_000, "2026-03-14T10:00:00Z")
suffix, uid, rv, meta = _names.suffix, _names.uid, _names.rv, _names.meta


# --------------------------------------------------------------------------- YAML emitter

# --------------------------------------------------------------------------- cluster model

NODES = [
    # name, InternalIP, pod /24 index, role
    ("cp-1", "192.0.2.11", 0, "control-plane"),
    ("cp-2", "192.0.2.12", 1, "control-plane"),
    ("cp-3", "192.0.2.13", 2, "control-plane"),
    ("worker-a", "192.0.2.21", 3, "worker"),
    ("worker-b", "192.0.2.22", 4, "worker"),
    ("gpu-1", "192.0.2.31", 5, "gpu"),
    ("gpu-2", "192.0.2.32", 6, "gpu"),
    ("gpu-3", "192.0.2.33", 7, "gpu"),
]
NODE_IP = {n: ip for n, ip, _, _ in NODES}
NODE_IDX = {n: i for n, _, i, _ in NODES}
_next_pod_host = {n: 10 for n, _, _, _ in NODES}


def pod_ip(node):
    _next_pod_host[node] += rng.randint(1, 9)
    return f"10.244.{NODE_IDX[node]}.{_next_pod_host[node]}"


# (namespace, name, ingress IP, eTP, ports [(name, port, targetPort, protocol)],
#  selector, endpoints [(node, canServe)], workload name, extra annotations, created)
SERVICES = [
    ("default", "traefik", "198.51.100.11", "Local",
     [("web", 80, 8000, "TCP"), ("websecure", 443, 8443, "TCP")],
     {"app.kubernetes.io/name": "traefik"}, [("worker-b", True)], "traefik", {}, "2026-04-02T18:21:07Z"),
    ("default", "grafana", "198.51.100.10", "Cluster",
     [("http", 80, 3000, "TCP")],
     {"app.kubernetes.io/name": "grafana"}, [("worker-a", True)], "grafana", {}, "2026-04-02T18:03:44Z"),
    ("default", "prometheus", "198.51.100.12", "Cluster",
     [("web", 9090, 9090, "TCP")],
     {"app.kubernetes.io/name": "prometheus"}, [("gpu-3", True)], "prometheus", {}, "2026-04-02T18:40:12Z"),
    ("media", "jellyfin", "198.51.100.13", "Cluster",
     [("http", 8096, 8096, "TCP")],
     {"app.kubernetes.io/name": "jellyfin"}, [("gpu-1", True)], "jellyfin", {}, "2026-05-17T09:12:55Z"),
    ("media", "immich", "198.51.100.14", "Cluster",
     [("http", 2283, 2283, "TCP")],
     {"app.kubernetes.io/name": "immich-server"}, [("gpu-2", True)], "immich-server", {}, "2026-06-08T20:47:31Z"),
    ("media", "navidrome", "198.51.100.15", "Cluster",
     [("http", 4533, 4533, "TCP")],
     {"app.kubernetes.io/name": "navidrome"}, [("worker-a", True)], "navidrome", {}, "2026-06-09T07:05:18Z"),
    ("home", "home-assistant", "198.51.100.16", "Cluster",
     [("http", 8123, 8123, "TCP")],
     {"app.kubernetes.io/name": "home-assistant"}, [("worker-b", True)], "home-assistant", {}, "2026-03-21T16:30:02Z"),
    ("home", "mosquitto", "198.51.100.17", "Cluster",
     [("mqtt", 1883, 1883, "TCP"), ("mqtts", 8883, 8883, "TCP")],
     {"app.kubernetes.io/name": "mosquitto"}, [("worker-a", True)], "mosquitto", {}, "2026-03-21T16:34:40Z"),
    ("home", "pihole-dns-udp", "198.51.100.20", "Cluster",
     [("dns-udp", 53, 53, "UDP")],
     {"app": "pihole", "instance": "primary"}, [("gpu-3", True)], "pihole-primary",
     {"metallb.io/allow-shared-ip": "pihole", "metallb.io/loadBalancerIPs": "198.51.100.20"}, "2026-03-22T11:02:19Z"),
    ("home", "pihole-dns-tcp", "198.51.100.20", "Cluster",
     [("dns-tcp", 53, 53, "TCP")],
     {"app": "pihole", "instance": "secondary"}, [("worker-a", False), ("gpu-2", False)], "pihole-secondary",
     {"metallb.io/allow-shared-ip": "pihole", "metallb.io/loadBalancerIPs": "198.51.100.20"}, "2026-03-22T11:02:20Z"),
]

# Services whose nodeAssigned Event the snapshot carries (2-3 are enough for `history`).
EVENT_SERVICES = [("media", "jellyfin"), ("default", "traefik"), ("home", "pihole-dns-udp")]


def snapshot_info(captured_at):
    return {
        "apiVersion": "lbdoctor/v1alpha1",
        "kind": "SnapshotInfo",
        "metadata": {"name": "snapshot"},
        "spec": {
            "capturedAt": captured_at,
            "toolVersion": TOOL_VERSION,
            "serverVersion": SERVER_VERSION,
            "unreadable": [],
            "metallb": {"version": METALLB_VERSION, "namespace": MLB_NS, "memberlist": "enabled"},
        },
    }


def namespace(name, created, extra_labels=None):
    labels = {"kubernetes.io/metadata.name": name}
    labels.update(extra_labels or {})
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": meta("Namespace", name, labels=labels, created=created),
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"},
    }


def node(name, ip, idx, role):
    labels = {
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
    }
    spec = {"podCIDR": f"10.244.{idx}.0/24", "podCIDRs": [f"10.244.{idx}.0/24"]}
    if role == "control-plane":
        labels["node-role.kubernetes.io/control-plane"] = ""
        labels[EXCLUDE_LB] = ""  # kubeadm sets it with an empty value
        spec["taints"] = [{"effect": "NoSchedule", "key": "node-role.kubernetes.io/control-plane"}]
    elif role == "worker":
        labels["node-role.kubernetes.io/worker"] = ""
    else:
        labels["nvidia.com/gpu.present"] = "true"
    hb = "2026-11-29T07:58:%02dZ" % (10 + idx * 5)

    def cond(ctype, status, reason, msg):
        return {"type": ctype, "status": status, "reason": reason, "message": msg,
                "lastHeartbeatTime": hb, "lastTransitionTime": "2026-11-02T04:11:37Z"}

    conditions = [
        {"type": "NetworkUnavailable", "status": "False", "reason": "FlannelIsUp",
         "message": "Flannel is running on this node",
         "lastHeartbeatTime": "2026-11-02T04:12:03Z", "lastTransitionTime": "2026-11-02T04:12:03Z"},
        cond("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
    ]
    created = f"2026-03-14T10:{idx * 4 + 1:02d}:{idx * 7 % 60:02d}Z"
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": meta("Node", name, labels=labels, created=created),
        "spec": spec,
        "status": {
            "addresses": [{"type": "InternalIP", "address": ip}, {"type": "Hostname", "address": name}],
            "conditions": conditions,
            "nodeInfo": {
                "architecture": "amd64",
                "containerRuntimeVersion": "containerd://2.0.5",
                "kernelVersion": "6.8.0-88-generic",
                "kubeletVersion": SERVER_VERSION,
                "operatingSystem": "linux",
                "osImage": "Ubuntu 24.04.3 LTS",
            },
        },
    }


SPEAKER_IMAGE = f"quay.io/metallb/speaker:{METALLB_VERSION}"
CONTROLLER_IMAGE = f"quay.io/metallb/controller:{METALLB_VERSION}"
SPEAKER_LABELS = {"app": "metallb", "component": "speaker"}


def speaker_daemonset():
    env = [
        {"name": "METALLB_NODE_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "spec.nodeName"}}},
        {"name": "METALLB_HOST", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "status.hostIP"}}},
        {"name": "METALLB_ML_BIND_ADDR", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "status.podIP"}}},
        {"name": "METALLB_ML_LABELS", "value": "app=metallb,component=speaker"},
        {"name": "METALLB_ML_SECRET_KEY_PATH", "value": "/etc/ml_secret_key"},
    ]
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": meta("DaemonSet", "speaker", MLB_NS, created="2026-03-14T10:45:12Z",
                         labels=dict(SPEAKER_LABELS), generation=1),
        "spec": {
            "selector": {"matchLabels": dict(SPEAKER_LABELS)},
            "template": {
                "metadata": {"labels": dict(SPEAKER_LABELS)},
                "spec": {
                    "containers": [{
                        "name": "speaker",
                        "image": SPEAKER_IMAGE,
                        "args": ["--port=7472", "--log-level=info"],
                        "env": env,
                        "ports": [
                            {"containerPort": 7472, "name": "monitoring", "protocol": "TCP"},
                            {"containerPort": 7946, "name": "memberlist-tcp", "protocol": "TCP"},
                            {"containerPort": 7946, "name": "memberlist-udp", "protocol": "UDP"},
                        ],
                    }],
                    "hostNetwork": True,
                    "nodeSelector": {"kubernetes.io/os": "linux"},
                    "serviceAccountName": "speaker",
                    "tolerations": [
                        {"effect": "NoSchedule", "key": "node-role.kubernetes.io/control-plane", "operator": "Exists"},
                    ],
                },
            },
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}},
        },
        "status": {
            "currentNumberScheduled": len(NODES),
            "desiredNumberScheduled": len(NODES),
            "numberAvailable": len(NODES),
            "numberMisscheduled": 0,
            "numberReady": len(NODES),
            "observedGeneration": 1,
            "updatedNumberScheduled": len(NODES),
        },
    }


def pod_status(node_name, ip, started):
    conds = [
        {"type": "Ready", "status": "True", "lastTransitionTime": started},
        {"type": "PodScheduled", "status": "True", "lastTransitionTime": started},
    ]
    return {
        "conditions": conds,
        "hostIP": NODE_IP[node_name],
        "hostIPs": [{"ip": NODE_IP[node_name]}],
        "phase": "Running",
        "podIP": ip,
        "podIPs": [{"ip": ip}],
        "qosClass": "BestEffort",
        "startTime": started,
    }


def speaker_pod(node_name, ds_uid):
    name = f"speaker-{suffix()}"
    started = "2026-11-02T04:%02d:%02dZ" % (13 + NODE_IDX[node_name], rng.randint(0, 59))
    labels = dict(SPEAKER_LABELS, **{"controller-revision-hash": "7c9b6d5f84", "pod-template-generation": "1"})
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta("Pod", name, MLB_NS, created=started, labels=labels, ownerReferences=[{
            "apiVersion": "apps/v1", "kind": "DaemonSet", "name": "speaker", "uid": ds_uid,
            "controller": True, "blockOwnerDeletion": True}]),
        "spec": {
            "containers": [{"name": "speaker", "image": SPEAKER_IMAGE, "args": ["--port=7472", "--log-level=info"]}],
            "hostNetwork": True,
            "nodeName": node_name,
            "serviceAccountName": "speaker",
        },
        "status": pod_status(node_name, NODE_IP[node_name], started),
    }


def controller_pod():
    rs = "controller-5f98c6d7b4"
    name = f"{rs}-{suffix()}"
    started = "2026-11-02T04:16:41Z"
    node_name = "worker-a"
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta("Pod", name, MLB_NS, created=started,
                         labels={"app": "metallb", "component": "controller", "pod-template-hash": "5f98c6d7b4"},
                         ownerReferences=[{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs,
                                           "uid": uid("ReplicaSet", MLB_NS, rs),
                                           "controller": True, "blockOwnerDeletion": True}]),
        "spec": {
            "containers": [{"name": "controller", "image": CONTROLLER_IMAGE,
                            "args": ["--port=7472", "--log-level=info", "--tls-min-version=VersionTLS12"]}],
            "nodeName": node_name,
            "serviceAccountName": "controller",
        },
        "status": pod_status(node_name, pod_ip(node_name), started),
    }


def ip_pool(assigned):
    return {
        "apiVersion": "metallb.io/v1beta1",
        "kind": "IPAddressPool",
        "metadata": meta("IPAddressPool", POOL, MLB_NS, created="2026-03-14T10:47:55Z", generation=1),
        "spec": {"addresses": [POOL_RANGE], "autoAssign": True, "avoidBuggyIPs": False},
        "status": {"assignedIPv4": assigned, "assignedIPv6": 0,
                   "availableIPv4": 31 - assigned, "availableIPv6": 0},
    }


def l2_advertisement():
    return {
        "apiVersion": "metallb.io/v1beta1",
        "kind": "L2Advertisement",
        "metadata": meta("L2Advertisement", "workers", MLB_NS, created="2026-03-14T10:47:55Z", generation=1),
        "spec": {
            "ipAddressPools": [POOL],
            "nodeSelectors": [{"matchLabels": {"node-role.kubernetes.io/worker": ""}}],
        },
    }


_cluster_ip = [9]
_node_port = [30080]


def service(ns, name, ip, etp, ports, selector, annotations, created):
    _cluster_ip[0] += rng.randint(1, 20)
    cip = f"203.0.113.{_cluster_ip[0]}"
    spec_ports = []
    for pname, port, target, proto in ports:
        # The draw is kept (the rest of the data follows from the same stream); the step is folded so
        # ports stay below 32000 (healthCheckNodePorts) and inside the default --service-node-port-range.
        _node_port[0] += 7 + rng.randint(7, 900) % 140
        spec_ports.append({"name": pname, "port": port, "targetPort": target,
                           "protocol": proto, "nodePort": _node_port[0]})
    ann = {"metallb.io/ip-allocated-from-pool": POOL}
    ann.update(annotations)
    spec = {
        "allocateLoadBalancerNodePorts": True,
        "clusterIP": cip,
        "clusterIPs": [cip],
        "externalTrafficPolicy": etp,
        "internalTrafficPolicy": "Cluster",
        "ipFamilies": ["IPv4"],
        "ipFamilyPolicy": "SingleStack",
        "ports": spec_ports,
        "selector": selector,
        "sessionAffinity": "None",
        "type": "LoadBalancer",
    }
    if etp == "Local":
        spec["healthCheckNodePort"] = 32000 + rng.randint(0, 700)
    labels = {"app.kubernetes.io/name": selector.get("app.kubernetes.io/name", selector.get("app"))}
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": meta("Service", name, ns, created=created, labels=labels, annotations=ann),
        "spec": spec,
        "status": {"loadBalancer": {"ingress": [{"ip": ip, "ipMode": "VIP"}]}},
    }


def endpoint_slice(svc, workload, endpoints):
    ns, name = svc["metadata"]["namespace"], svc["metadata"]["name"]
    rs_hash = "".join(rng.choice(K8S_ALNUM) for _ in range(10))
    eps = []
    for node_name, ok in endpoints:
        pod = f"{workload}-{rs_hash}-{suffix()}"
        eps.append({
            "addresses": [pod_ip(node_name)],
            "conditions": {"ready": ok, "serving": ok, "terminating": False},
            "nodeName": node_name,
            "targetRef": {"kind": "Pod", "name": pod, "namespace": ns, "uid": uid("Pod", ns, pod)},
        })
    ports = [{"name": p["name"], "port": p["targetPort"], "protocol": p["protocol"]} for p in svc["spec"]["ports"]]
    slice_name = f"{name}-{suffix()}"
    return {
        "apiVersion": "discovery.k8s.io/v1",
        "kind": "EndpointSlice",
        "addressType": "IPv4",
        "endpoints": eps,
        "ports": ports,
        "metadata": meta("EndpointSlice", slice_name, ns, created="2026-11-02T04:21:%02dZ" % rng.randint(0, 59),
                         labels={"endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io",
                                 "kubernetes.io/service-name": name},
                         generateName=f"{name}-",
                         ownerReferences=[{"apiVersion": "v1", "kind": "Service", "name": name,
                                           "uid": svc["metadata"]["uid"],
                                           "controller": True, "blockOwnerDeletion": True}]),
    }


def service_l2_status(svc, node_name, speaker):
    name = f"l2-{suffix(alphabet=LOWER)}"
    ns, sname = svc["metadata"]["namespace"], svc["metadata"]["name"]
    return {
        "apiVersion": "metallb.io/v1beta1",
        "kind": "ServiceL2Status",
        "metadata": meta("ServiceL2Status", name, MLB_NS, created="2026-11-02T04:22:%02dZ" % rng.randint(0, 59),
                         generateName="l2-",
                         labels={"metallb.io/node": node_name, "metallb.io/service-name": sname,
                                 "metallb.io/service-namespace": ns},
                         ownerReferences=[{"apiVersion": "v1", "kind": "Pod", "name": speaker["metadata"]["name"],
                                           "uid": speaker["metadata"]["uid"]}]),
        "spec": {},
        "status": {"node": node_name, "serviceName": sname, "serviceNamespace": ns},
    }


def node_assigned_event(svc, node_name):
    ns, sname = svc["metadata"]["namespace"], svc["metadata"]["name"]
    first = "2026-11-02T04:22:%02dZ" % rng.randint(0, 59)
    last = "2026-11-29T07:%02d:%02dZ" % (rng.randint(10, 55), rng.randint(0, 59))
    name = "%s.%x" % (sname, 0x18780A6B00000000 + rng.getrandbits(40))
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": meta("Event", name, ns, created=first),
        "involvedObject": {"apiVersion": "v1", "kind": "Service", "name": sname, "namespace": ns,
                           "uid": svc["metadata"]["uid"], "resourceVersion": svc["metadata"]["resourceVersion"]},
        "reason": "nodeAssigned",
        "message": f'announcing from node "{node_name}" with protocol "layer2"',
        "source": {"component": "metallb-speaker"},
        "reportingComponent": "metallb-speaker",
        "reportingInstance": "",
        "type": "Normal",
        "count": rng.randint(3, 40),
        "firstTimestamp": first,
        "lastTimestamp": last,
    }


# --------------------------------------------------------------------------- election
# spec metallb-speaker.md §4.2 / §11, memberlist enabled, v0.16.1 (no preferred nodes).

def selector_matches(sel, labels):
    for k, v in (sel.get("matchLabels") or {}).items():
        if labels.get(k) != v:
            return False
    for e in sel.get("matchExpressions") or []:
        k, op, vals = e["key"], e["operator"], e.get("values") or []
        if op == "In" and labels.get(k) not in vals:
            return False
        if op == "NotIn" and k in labels and labels[k] in vals:
            return False
        if op == "Exists" and k not in labels:
            return False
        if op == "DoesNotExist" and k in labels:
            return False
    return True


def elect(objs):
    """Return {(ns, name): (ip, eTP, elected node or None, why)}."""
    nodes = {o["metadata"]["name"]: o for o in objs if o["kind"] == "Node"}
    alive = set()
    for o in objs:
        if o["kind"] != "Pod" or o["metadata"].get("labels", {}).get("component") != "speaker":
            continue
        st = o["status"]
        ready = any(c["type"] == "Ready" and c["status"] == "True" for c in st.get("conditions", []))
        if st.get("phase") == "Running" and ready:
            alive.add(o["spec"]["nodeName"])
    ad_nodes = set()
    for o in objs:
        if o["kind"] == "L2Advertisement" and POOL in o["spec"].get("ipAddressPools", []):
            sels = o["spec"].get("nodeSelectors") or []
            for n, nd in nodes.items():
                if not sels or any(selector_matches(s, nd["metadata"]["labels"]) for s in sels):
                    ad_nodes.add(n)
    slices = {}
    for o in objs:
        if o["kind"] == "EndpointSlice":
            key = (o["metadata"]["namespace"], o["metadata"]["labels"]["kubernetes.io/service-name"])
            slices.setdefault(key, []).extend(o["endpoints"] or [])

    def can_serve(ep):
        c = ep.get("conditions", {})
        return c.get("ready") in (None, True) or c.get("serving") is True

    def unavailable(n):
        return any(c["type"] == "NetworkUnavailable" and c["status"] == "True"
                   for c in nodes[n]["status"].get("conditions", []))

    result = {}
    for o in objs:
        if o["kind"] != "Service":
            continue
        key = (o["metadata"]["namespace"], o["metadata"]["name"])
        ip = o["status"]["loadBalancer"]["ingress"][0]["ip"]
        etp = o["spec"].get("externalTrafficPolicy", "Cluster")
        eps = slices.get(key, [])
        if not any(can_serve(e) for e in eps):
            result[key] = (ip, etp, None, "no serving endpoint")
            continue
        cand = {n for n in alive
                if n in nodes and not unavailable(n)
                and EXCLUDE_LB not in nodes[n]["metadata"]["labels"] and n in ad_nodes}
        if etp == "Local":
            cand = {e.get("nodeName") for e in eps if can_serve(e) and e.get("nodeName") in cand}
        if not cand:
            result[key] = (ip, etp, None, "no candidate node")
            continue
        order = sorted(cand, key=lambda n: hashlib.sha256(f"{n}#{ip}".encode()).digest())
        why = "order " + ",".join(order)
        if etp == "Local":
            why += " (Local: only nodes with a serving endpoint)"
        result[key] = (ip, etp, order[0], why)
    return result


# --------------------------------------------------------------------------- assembly

def build():
    docs = {"info": snapshot_info(CAPTURED_AT)}
    namespaces = [namespace(MLB_NS, "2026-03-14T10:44:58Z",
                            {"pod-security.kubernetes.io/enforce": "privileged",
                             "pod-security.kubernetes.io/audit": "privileged",
                             "pod-security.kubernetes.io/warn": "privileged"}),
                  namespace("default", "2026-03-14T10:01:12Z"),
                  namespace("media", "2026-05-17T09:10:03Z"),
                  namespace("home", "2026-03-21T16:28:45Z")]
    nodes = [node(*n) for n in NODES]
    ds = speaker_daemonset()
    speakers = {n: speaker_pod(n, ds["metadata"]["uid"]) for n, _, _, _ in NODES}
    ctrl = controller_pod()
    distinct_ips = len({s[2] for s in SERVICES})
    pool = ip_pool(distinct_ips)
    ad = l2_advertisement()
    services, slices = [], []
    for ns, name, ip, etp, ports, sel, eps, workload, ann, created in SERVICES:
        svc = service(ns, name, ip, etp, ports, sel, ann, created)
        services.append(svc)
        slices.append(endpoint_slice(svc, workload, eps))
    base = namespaces + nodes + [ds] + list(speakers.values()) + [ctrl, pool, ad] + services + slices
    winners = elect(base)
    by_key = {(s["metadata"]["namespace"], s["metadata"]["name"]): s for s in services}
    statuses = [service_l2_status(by_key[k], w, speakers[w])
                for k, (_, _, w, _) in sorted(winners.items()) if w]
    events = []
    for k in EVENT_SERVICES:
        w = winners[k][2]
        assert w, f"event for unannounced service {k}"
        events.append(node_assigned_event(by_key[k], w))
    homelab = [docs["info"]] + base + statuses + events

    # The trap: same objects, advertisement retargeted at the control plane; the speakers
    # deleted their ServiceL2Status objects; Events are left untouched (stale).
    trap_base = copy.deepcopy(base)
    for o in trap_base:
        if o["kind"] == "L2Advertisement":
            o["spec"]["nodeSelectors"] = [{"matchLabels": {"node-role.kubernetes.io/control-plane": ""}}]
            o["metadata"]["generation"] = 2
            o["metadata"]["resourceVersion"] = str(_names.rv_now + 1234)
    trap = [snapshot_info(TRAP_CAPTURED_AT)] + trap_base + copy.deepcopy(events)
    return homelab, trap, winners, elect(trap_base)


HEADER = """\
# GENERATED by scripts/gen-homelab.py -- do not edit by hand; change the script and re-run it.
# {what}
"""


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out-dir", default=os.path.join(here, "..", "testdata", "clusters"))
    args = ap.parse_args()

    homelab, trap, winners, trap_winners = build()

    # Invariants the scenario depends on; fail loudly if an edit breaks them.
    won = {}
    for (_, _, w, _) in winners.values():
        if w:
            won[w] = won.get(w, 0) + 1
    assert won.get("worker-a", 0) >= 3 and won.get("worker-b", 0) >= 3, won
    assert set(won) <= {"worker-a", "worker-b"}, won
    assert winners[("default", "traefik")][2] == "worker-b"
    assert winners[("home", "pihole-dns-tcp")][2] is None
    assert all(w is None for (_, _, w, _) in trap_winners.values()), trap_winners

    os.makedirs(args.out_dir, exist_ok=True)
    files = {
        "homelab.yaml": (homelab, "Home cluster, MetalLB v0.16.1 layer 2; ServiceL2Status and Events agree with the election."),
        "homelab-trap.yaml": (trap, "homelab after the L2Advertisement was pointed at the excluded control plane: nobody announces."),
    }
    for fname, (docs, what) in files.items():
        path = os.path.join(args.out_dir, fname)
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(dump_documents(docs, HEADER.format(what=what)))
        print(f"wrote {os.path.relpath(path)} ({len(docs)} objects)", file=sys.stderr)

    print(f"{'SERVICE':<24} {'IP':<15} {'eTP':<8} {'homelab.yaml':<13} homelab-trap.yaml")
    for key in sorted(winners):
        ip, etp, w, why = winners[key]
        tw = trap_winners[key][2]
        print(f"{key[0] + '/' + key[1]:<24} {ip:<15} {etp:<8} {w or '(none)':<13} {tw or '(none)'}"
              f"   # {why}; trap: {trap_winners[key][3]}")


if __name__ == "__main__":
    main()
