#!/usr/bin/env python3
"""Generate the `kubectl lbdoctor history` test data: a cluster snapshot and one log per speaker.

    python3 scripts/gen-history.py [--out-dir DIR]            (default: testdata/history)
    python3 scripts/gen-history.py --bench DIR [--size-gb 1]   (large logs for benches/history_logs.rs)

Deterministic (same bytes on every run; Python 3 stdlib only). Writes into the out dir:

  cluster.yaml             8-node bare-metal cluster, MetalLB v0.16.1, layer 2, memberlist enabled,
                           captured 2026-11-30T23:59:00Z.
  logs/<speaker pod>.log   `kubectl logs --since-time=2026-11-29T00:00:00Z POD -c speaker` for each
                           speaker Pod: go-kit JSON lines, keys sorted as go-kit writes them.
  expected.json            what a scanner of each log must report, from this script's own model of
                           the lines it wrote (not from reading them back).
  README.md                the story and the counts.

The story: the speaker on gpu-1 is crash-looping (SIGKILL, exit 137, CrashLoopBackOff). gpu-1 is
the sha256 winner (spec metallb-speaker.md §4.2, §4.3) of two Service IPs; every time it dies the
other speakers' memberlist suspects it, marks it failed, and the runner-up (worker-a for one IP,
worker-b for the other) takes the IP over; every time it comes back the runner-up withdraws with
reason notOwner. `kubectl logs` shows only the current container, so gpu-1's own log holds a few
minutes; the history is in the other speakers' logs.

--bench DIR writes the same kind of logs, ~SIZE GB across 8 files, by repeating each speaker's
two-day story with the dates moved on (gpu-1's file there holds all its containers). Never point
it into the repository.
"""

import argparse
import datetime as dt
import hashlib
import json
import os
import random
import re
import sys
import uuid

CAPTURED_AT = "2026-11-30T23:59:00Z"
WINDOW_START = "2026-11-29T00:00:00Z"
TOOL_VERSION = "0.1.0"
SERVER_VERSION = "v1.33.4"
METALLB_VERSION = "v0.16.1"
MLB_NS = "metallb-system"
POOL = "lan"
POOL_FIRST, POOL_LAST = 200, 230  # 192.0.2.200-192.0.2.230
EXCLUDE_LB = "node.kubernetes.io/exclude-from-external-load-balancers"
GPU = "gpu-1"
RESTARTS = 437  # gpu-1's speaker restartCount at capture time

rng = random.Random(20261130)
UID_NS = uuid.UUID("0b9d7c52-5d3e-4f0a-8a61-2c4e6f8a1b3d")


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from k8s_yaml import K8S_ALNUM, LOWER, Names, dump_documents  # noqa: E402  (what the generators share)
_names = Names(rng, UID_NS, 73_400_000, "2026-10-05T09:00:00Z")
suffix, uid, rv, meta = _names.suffix, _names.uid, _names.rv, _names.meta


# --------------------------------------------------------------------------- time
# Instants are integers: nanoseconds since the Unix epoch, all UTC.

SEC = 1_000_000_000
MIN = 60 * SEC
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


def ns_of(text):
    d = dt.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.timezone.utc)
    return int((d - _EPOCH).total_seconds()) * SEC


def rfc3339nano(ns):
    """Go's time.RFC3339Nano in UTC, as go-kit's DefaultTimestampUTC writes it: trailing zeros cut."""
    sec, frac = divmod(ns, SEC)
    text = (_EPOCH + dt.timedelta(seconds=sec)).strftime("%Y-%m-%dT%H:%M:%S")
    if frac:
        text += "." + f"{frac:09d}".rstrip("0")
    return text + "Z"


def rfc3339(ns):
    return (_EPOCH + dt.timedelta(seconds=ns // SEC)).strftime("%Y-%m-%dT%H:%M:%SZ")


def day_of(ns):
    return rfc3339(ns)[:10]


def jitter(lo_ms, hi_ms):
    return rng.randint(lo_ms * 1_000_000, hi_ms * 1_000_000)


# --------------------------------------------------------------------------- YAML emitter

# --------------------------------------------------------------------------- cluster model

NODES = [
    # name, InternalIP, pod /24 index, role
    ("cp-1", "192.0.2.11", 0, "control-plane"),
    ("worker-a", "192.0.2.21", 1, "worker"),
    ("worker-b", "192.0.2.22", 2, "worker"),
    ("worker-c", "192.0.2.23", 3, "worker"),
    ("worker-d", "192.0.2.24", 4, "worker"),
    ("worker-e", "192.0.2.25", 5, "worker"),
    ("storage-1", "192.0.2.41", 6, "storage"),
    ("gpu-1", "192.0.2.51", 7, "gpu"),
]
NODE_NAMES = [n for n, _, _, _ in NODES]
NODE_IP = {n: ip for n, ip, _, _ in NODES}
NODE_IDX = {n: i for n, _, i, _ in NODES}
# kubeadm labels the control plane with the exclusion label: it is never an L2 candidate (spec §8).
CANDIDATES = [n for n, _, _, role in NODES if role != "control-plane"]
_next_pod_host = {n: 10 for n in NODE_NAMES}


def pod_ip(node):
    _next_pod_host[node] += rng.randint(1, 9)
    return f"10.244.{NODE_IDX[node]}.{_next_pod_host[node]}"


def l2_order(ip, candidates=CANDIDATES):
    """spec §4.2 step 9: ascending sha256(node + "#" + ip); the IPs here are already Go-canonical."""
    return sorted(candidates, key=lambda n: hashlib.sha256(f"{n}#{ip}".encode()).digest())


def choose_ips():
    """The two IPs gpu-1 wins (worker-a, resp. worker-b runner-up), then six whose winner and
    runner-up are not gpu-1, one per other candidate where the pool allows."""
    pool = [f"192.0.2.{i}" for i in range(POOL_FIRST, POOL_LAST + 1)]
    first = {}
    for ip in pool:
        o = l2_order(ip)
        for second in ("worker-a", "worker-b"):
            if o[0] == GPU and o[1] == second and second not in first:
                first[second] = ip
    others, owners = [], set()
    for ip in pool:
        o = l2_order(ip)
        if GPU in o[:2] or o[0] in owners:
            continue
        others.append(ip)
        owners.add(o[0])
        if len(others) == 6:
            break
    assert set(first) == {"worker-a", "worker-b"} and len(others) == 6, (first, others)
    return first["worker-a"], first["worker-b"], others


IP_A, IP_B, OTHER_IPS = choose_ips()

# (namespace, name, ip, ports [(name, port, targetPort, protocol)], selector, endpoint nodes, created)
SERVICES = [
    ("media", "jellyfin", IP_A, [("http", 8096, 8096, "TCP")],
     {"app.kubernetes.io/name": "jellyfin"}, ["gpu-1"], "2026-10-12T19:04:11Z"),
    ("media", "immich", IP_B, [("http", 2283, 2283, "TCP")],
     {"app.kubernetes.io/name": "immich-server"}, ["gpu-1", "worker-c"], "2026-10-12T19:31:50Z"),
    ("apps", "gitea", OTHER_IPS[0], [("http", 80, 3000, "TCP"), ("ssh", 22, 2222, "TCP")],
     {"app.kubernetes.io/name": "gitea"}, ["worker-b"], "2026-10-06T08:15:27Z"),
    ("apps", "nextcloud", OTHER_IPS[1], [("https", 443, 443, "TCP")],
     {"app.kubernetes.io/name": "nextcloud"}, ["storage-1", "worker-d"], "2026-10-06T08:40:02Z"),
    ("apps", "vaultwarden", OTHER_IPS[2], [("http", 80, 8080, "TCP")],
     {"app.kubernetes.io/name": "vaultwarden"}, ["worker-a"], "2026-10-07T21:12:45Z"),
    ("monitoring", "grafana", OTHER_IPS[3], [("http", 80, 3000, "TCP")],
     {"app.kubernetes.io/name": "grafana"}, ["worker-e"], "2026-10-05T10:02:19Z"),
    ("monitoring", "alertmanager", OTHER_IPS[4], [("web", 9093, 9093, "TCP")],
     {"app.kubernetes.io/name": "alertmanager"}, ["worker-c", "worker-d"], "2026-10-05T10:05:33Z"),
    ("apps", "minio", OTHER_IPS[5], [("api", 9000, 9000, "TCP"), ("console", 9001, 9001, "TCP")],
     {"app.kubernetes.io/name": "minio"}, ["storage-1"], "2026-10-09T14:48:06Z"),
]
SERVICE_OF_IP = {ip: f"{ns}/{name}" for ns, name, ip, *_ in SERVICES}


def snapshot_info():
    return {
        "apiVersion": "lbdoctor/v1alpha1",
        "kind": "SnapshotInfo",
        "metadata": {"name": "snapshot"},
        "spec": {
            "capturedAt": CAPTURED_AT,
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
    labels = {"kubernetes.io/arch": "amd64", "kubernetes.io/hostname": name, "kubernetes.io/os": "linux"}
    spec = {"podCIDR": f"10.244.{idx}.0/24", "podCIDRs": [f"10.244.{idx}.0/24"]}
    if role == "control-plane":
        labels["node-role.kubernetes.io/control-plane"] = ""
        labels[EXCLUDE_LB] = ""  # kubeadm sets it with an empty value; the key alone excludes
        spec["taints"] = [{"effect": "NoSchedule", "key": "node-role.kubernetes.io/control-plane"}]
    elif role == "gpu":
        labels["nvidia.com/gpu.present"] = "true"
        labels["node-role.kubernetes.io/gpu"] = ""
    elif role == "storage":
        labels["node-role.kubernetes.io/storage"] = ""
    else:
        labels["node-role.kubernetes.io/worker"] = ""
    hb = "2026-11-30T23:58:%02dZ" % (5 + idx * 6)
    conditions = [
        {"type": "NetworkUnavailable", "status": "False", "reason": "CalicoIsUp",
         "message": "Calico is running on this node",
         "lastHeartbeatTime": "2026-11-03T06:20:41Z", "lastTransitionTime": "2026-11-03T06:20:41Z"},
        {"type": "MemoryPressure", "status": "False", "reason": "KubeletHasSufficientMemory",
         "message": "kubelet has sufficient memory available",
         "lastHeartbeatTime": hb, "lastTransitionTime": "2026-11-03T06:19:58Z"},
        {"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "kubelet is posting ready status",
         "lastHeartbeatTime": hb, "lastTransitionTime": "2026-11-03T06:20:44Z"},
    ]
    capacity = {"cpu": "16", "memory": "65536Mi", "pods": "110"}
    if role == "gpu":
        capacity["nvidia.com/gpu"] = "1"
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": meta("Node", name, labels=labels, created=f"2026-10-05T09:{idx * 3 + 2:02d}:{idx * 7 % 60:02d}Z"),
        "spec": spec,
        "status": {
            "addresses": [{"type": "InternalIP", "address": ip}, {"type": "Hostname", "address": name}],
            "allocatable": dict(capacity),
            "capacity": capacity,
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
SPEAKER_DIGEST = "sha256:" + hashlib.sha256(b"speaker " + METALLB_VERSION.encode()).hexdigest()
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
        "metadata": meta("DaemonSet", "speaker", MLB_NS, created="2026-10-05T09:40:12Z",
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
                        "livenessProbe": {"httpGet": {"path": "/metrics", "port": "monitoring"},
                                          "failureThreshold": 3, "periodSeconds": 10},
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


def speaker_pod(node_name, ds_uid, name, created, restarts, running_since, last_terminated):
    labels = dict(SPEAKER_LABELS, **{"controller-revision-hash": "6d8f5c9b47", "pod-template-generation": "1"})
    cid = "containerd://" + hashlib.sha256(f"{name}/{running_since}".encode()).hexdigest()
    status = {
        "containerID": cid,
        "image": SPEAKER_IMAGE,
        "imageID": f"quay.io/metallb/speaker@{SPEAKER_DIGEST}",
        "lastState": {},
        "name": "speaker",
        "ready": True,
        "restartCount": restarts,
        "started": True,
        "state": {"running": {"startedAt": running_since}},
    }
    if last_terminated:
        status["lastState"] = {"terminated": last_terminated}
    ready_at = running_since if restarts == 0 else rfc3339(ns_of(running_since) + 4 * SEC)
    conds = [
        {"type": "PodReadyToStartContainers", "status": "True", "lastTransitionTime": created},
        {"type": "Initialized", "status": "True", "lastTransitionTime": created},
        {"type": "Ready", "status": "True", "lastTransitionTime": ready_at},
        {"type": "ContainersReady", "status": "True", "lastTransitionTime": ready_at},
        {"type": "PodScheduled", "status": "True", "lastTransitionTime": created},
    ]
    ip = NODE_IP[node_name]  # hostNetwork
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta("Pod", name, MLB_NS, created=created, labels=labels, generateName="speaker-",
                         ownerReferences=[{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "speaker",
                                           "uid": ds_uid, "controller": True, "blockOwnerDeletion": True}]),
        "spec": {
            "containers": [{"name": "speaker", "image": SPEAKER_IMAGE, "args": ["--port=7472", "--log-level=info"]}],
            "hostNetwork": True,
            "nodeName": node_name,
            "serviceAccountName": "speaker",
        },
        "status": {
            "conditions": conds,
            "containerStatuses": [status],
            "hostIP": ip,
            "hostIPs": [{"ip": ip}],
            "phase": "Running",
            "podIP": ip,
            "podIPs": [{"ip": ip}],
            "qosClass": "Burstable",
            "startTime": created,
        },
    }


def controller_pod():
    rs = "controller-7b6c9d8f5d"
    name = f"{rs}-{suffix()}"
    started = "2026-11-03T06:31:09Z"
    node_name = "worker-c"
    ip = pod_ip(node_name)
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta("Pod", name, MLB_NS, created=started,
                         labels={"app": "metallb", "component": "controller", "pod-template-hash": "7b6c9d8f5d"},
                         ownerReferences=[{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs,
                                           "uid": uid("ReplicaSet", MLB_NS, rs),
                                           "controller": True, "blockOwnerDeletion": True}]),
        "spec": {
            "containers": [{"name": "controller", "image": CONTROLLER_IMAGE,
                            "args": ["--port=7472", "--log-level=info", "--tls-min-version=VersionTLS12"]}],
            "nodeName": node_name,
            "serviceAccountName": "controller",
        },
        "status": {
            "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": started},
                           {"type": "PodScheduled", "status": "True", "lastTransitionTime": started}],
            "hostIP": NODE_IP[node_name], "hostIPs": [{"ip": NODE_IP[node_name]}],
            "phase": "Running", "podIP": ip, "podIPs": [{"ip": ip}],
            "qosClass": "BestEffort", "startTime": started,
        },
    }


def ip_pool():
    size = POOL_LAST - POOL_FIRST + 1
    return {
        "apiVersion": "metallb.io/v1beta1",
        "kind": "IPAddressPool",
        "metadata": meta("IPAddressPool", POOL, MLB_NS, created="2026-10-05T09:42:30Z", generation=1),
        "spec": {"addresses": [f"192.0.2.{POOL_FIRST}-192.0.2.{POOL_LAST}"], "autoAssign": True,
                 "avoidBuggyIPs": False},
        "status": {"assignedIPv4": len(SERVICES), "assignedIPv6": 0,
                   "availableIPv4": size - len(SERVICES), "availableIPv6": 0},
    }


def l2_advertisement():
    return {
        "apiVersion": "metallb.io/v1beta1",
        "kind": "L2Advertisement",
        "metadata": meta("L2Advertisement", "l2", MLB_NS, created="2026-10-05T09:42:30Z", generation=1),
        "spec": {"ipAddressPools": [POOL]},
    }


_cluster_ip = [20]
_node_port = [30100]


def service(ns, name, ip, ports, selector, created):
    _cluster_ip[0] += rng.randint(1, 20)
    cip = f"203.0.113.{_cluster_ip[0]}"
    spec_ports = []
    for pname, port, target, proto in ports:
        _node_port[0] += rng.randint(7, 900)
        spec_ports.append({"name": pname, "port": port, "targetPort": target, "protocol": proto,
                           "nodePort": _node_port[0]})
    ann = {"metallb.io/ip-allocated-from-pool": POOL, "metallb.io/loadBalancerIPs": ip}
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": meta("Service", name, ns, created=created, labels={"app.kubernetes.io/name": name},
                         annotations=ann),
        "spec": {
            "allocateLoadBalancerNodePorts": True,
            "clusterIP": cip,
            "clusterIPs": [cip],
            "externalTrafficPolicy": "Cluster",
            "internalTrafficPolicy": "Cluster",
            "ipFamilies": ["IPv4"],
            "ipFamilyPolicy": "SingleStack",
            "ports": spec_ports,
            "selector": selector,
            "sessionAffinity": "None",
            "type": "LoadBalancer",
        },
        "status": {"loadBalancer": {"ingress": [{"ip": ip, "ipMode": "VIP"}]}},
    }


def endpoint_slice(svc, nodes):
    ns, name = svc["metadata"]["namespace"], svc["metadata"]["name"]
    rs_hash = "".join(rng.choice(K8S_ALNUM) for _ in range(10))
    eps = []
    for node_name in nodes:
        pod = f"{name}-{rs_hash}-{suffix()}"
        eps.append({
            "addresses": [pod_ip(node_name)],
            "conditions": {"ready": True, "serving": True, "terminating": False},
            "nodeName": node_name,
            "targetRef": {"kind": "Pod", "name": pod, "namespace": ns, "uid": uid("Pod", ns, pod)},
        })
    ports = [{"name": p["name"], "port": p["targetPort"], "protocol": p["protocol"]} for p in svc["spec"]["ports"]]
    return {
        "apiVersion": "discovery.k8s.io/v1",
        "kind": "EndpointSlice",
        "addressType": "IPv4",
        "endpoints": eps,
        "ports": ports,
        "metadata": meta("EndpointSlice", f"{name}-{suffix()}", ns,
                         created="2026-11-03T06:3%d:%02dZ" % (rng.randint(2, 9), rng.randint(0, 59)),
                         labels={"endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io",
                                 "kubernetes.io/service-name": name},
                         generateName=f"{name}-",
                         ownerReferences=[{"apiVersion": "v1", "kind": "Service", "name": name,
                                           "uid": svc["metadata"]["uid"],
                                           "controller": True, "blockOwnerDeletion": True}]),
    }


def service_l2_status(svc, node_name, speaker, created):
    ns, sname = svc["metadata"]["namespace"], svc["metadata"]["name"]
    return {
        "apiVersion": "metallb.io/v1beta1",
        "kind": "ServiceL2Status",
        "metadata": meta("ServiceL2Status", f"l2-{suffix(alphabet=LOWER)}", MLB_NS, created=created,
                         generateName="l2-",
                         labels={"metallb.io/node": node_name, "metallb.io/service-name": sname,
                                 "metallb.io/service-namespace": ns},
                         ownerReferences=[{"apiVersion": "v1", "kind": "Pod", "name": speaker["metadata"]["name"],
                                           "uid": speaker["metadata"]["uid"]}]),
        "spec": {},
        "status": {"node": node_name, "serviceName": sname, "serviceNamespace": ns},
    }


def node_assigned_event(svc, node_name, count, first, last):
    ns, sname = svc["metadata"]["namespace"], svc["metadata"]["name"]
    name = "%s.%x" % (sname, 0x187C2E0000000000 + int(hashlib.sha256(f"{ns}/{sname}/{node_name}".encode())
                                                       .hexdigest()[:10], 16))
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
        "count": count,
        "firstTimestamp": first,
        "lastTimestamp": last,
    }


def elect(objs):
    """spec §4.2 / §11 for this cluster (memberlist enabled, v0.16.1, eTP Cluster): {ip: order}."""
    nodes = {o["metadata"]["name"]: o for o in objs if o["kind"] == "Node"}
    alive = set()
    for o in objs:
        if o["kind"] == "Pod" and o["metadata"].get("labels", {}).get("component") == "speaker":
            st = o["status"]
            if st["phase"] == "Running" and any(c["type"] == "Ready" and c["status"] == "True"
                                                for c in st["conditions"]):
                alive.add(o["spec"]["nodeName"])
    cand = [n for n in sorted(alive)
            if EXCLUDE_LB not in nodes[n]["metadata"]["labels"]
            and not any(c["type"] == "NetworkUnavailable" and c["status"] == "True"
                        for c in nodes[n]["status"]["conditions"])]
    return {o["status"]["loadBalancer"]["ingress"][0]["ip"]: l2_order(o["status"]["loadBalancer"]["ingress"][0]["ip"], cand)
            for o in objs if o["kind"] == "Service"}


# --------------------------------------------------------------------------- speaker log lines
# go-kit's JSON logger marshals a map, so keys come out sorted (spec §3.2: `ts`, `caller`, `level`).

ALL_IPS = [ip for _, _, ip, *_ in SERVICES]


def j_announce(ts, ip):
    return ('{"caller":"main.go:481","event":"serviceAnnounced","ips":["%s"],"level":"info",'
            '"msg":"service has IP, announcing","pool":"%s","protocol":"layer2","ts":"%s"}' % (ip, POOL, ts))


def j_withdraw(ts, ip, reason):
    return ('{"caller":"main.go:524","event":"serviceWithdrawn","ip":["%s"],"level":"info",'
            '"msg":"withdrawing service announcement","reason":"%s","ts":"%s"}' % (ip, reason, ts))


def j_memberlist(ts, level, msg):
    return '{"caller":"logger.go:55","component":"Memberlist","level":"%s","msg":"memberlist: %s","ts":"%s"}' % (
        level, msg, ts)


def j_node_event(ts, name, event):
    return ('{"caller":"speakerlist.go:339","level":"info","msg":"node event - forcing sync","node addr":"%s",'
            '"node event":"%s","node name":"%s","ts":"%s"}' % (NODE_IP[name], event, name, ts))


def j_reload(ts):
    return ('{"caller":"service_controller_reload.go:63","controller":"ServiceReconciler - reprocessAll",'
            '"level":"info","start reconcile":"metallbreload/reload","ts":"%s"}' % ts)


def j_svc_start(ts, svc):
    return ('{"caller":"service_controller.go:64","controller":"ServiceReconciler","level":"info",'
            '"start reconcile":"%s","ts":"%s"}' % (svc, ts))


def j_svc_end(ts, svc):
    return ('{"caller":"service_controller.go:115","controller":"ServiceReconciler","end reconcile":"%s",'
            '"level":"info","ts":"%s"}' % (svc, ts))


def j_start(ts):
    return ('{"branch":"HEAD","caller":"main.go:113","commit":"791dfcc6","goversion":"gc / go1.23.8 / amd64",'
            '"level":"info","msg":"MetalLB speaker starting version 0.16.1 (commit 791dfcc6, branch HEAD)",'
            '"ts":"%s","version":"0.16.1"}' % ts)


def j_startup_noise(ts, i):
    return [
        '{"caller":"main.go:183","level":"info","msg":"loading excludel2 config","op":"startup","ts":"%s"}',
        '{"caller":"announcer.go:126","event":"createARPResponder","interface":"eno1","level":"info",'
        '"msg":"created ARP responder for interface","ts":"%s"}',
        '{"caller":"announcer.go:135","event":"createNDPResponder","interface":"eno1","level":"info",'
        '"msg":"created NDP responder for interface","ts":"%s"}',
        '{"caller":"k8s.go:423","level":"info","msg":"Starting Manager","op":"Run","ts":"%s"}',
        '{"caller":"speakerlist.go:313","level":"info","msg":"triggering discovery","op":"memberDiscovery",'
        '"ts":"%s"}',
    ][i] % ts


def j_config(ts, end=False):
    if end:
        return ('{"caller":"config_controller.go:157","controller":"ConfigReconciler","end reconcile":"/",'
                '"level":"info","ts":"%s"}' % ts)
    return ('{"caller":"config_controller.go:59","controller":"ConfigReconciler","level":"info",'
            '"start reconcile":"/","ts":"%s"}' % ts)


def klog(ns, severity, text):
    """client-go's klog line on stderr: not JSON."""
    d = dt.datetime.strptime(rfc3339(ns), "%Y-%m-%dT%H:%M:%SZ")
    return "%s%s %s.%06d       1 %s" % (severity, d.strftime("%m%d"), d.strftime("%H:%M:%S"),
                                         (ns % SEC) // 1000, text)


# --------------------------------------------------------------------------- the story

OTHERS = [n for n in NODE_NAMES if n != GPU]


def gpu_schedule(captured, window_start):
    """gpu-1's speaker containers as [(start, crash or None)], index = restart number; the last
    one runs at capture time. Kubelet's CrashLoopBackOff: 10 s doubling to 5 min, reset after a
    run of 10 min or more."""
    runs, downs = [], []
    backoff = 10 * SEC
    for _ in range(RESTARTS):
        run = rng.randint(5 * 60, 13 * 60) * SEC + jitter(0, 999)
        if run >= 10 * MIN:
            backoff = 10 * SEC
        downs.append(backoff + jitter(900, 2200))  # the delay, then the container is created
        backoff = min(backoff * 2, 300 * SEC)
        runs.append(run)
    # Offsets from the first crash (container 0 ran since the pod was created).
    starts, crashes, t = [None], [0], 0
    for k in range(RESTARTS):
        t += downs[k]
        starts.append(t)
        if k + 1 < RESTARTS:
            t += runs[k + 1]
            crashes.append(t)
    crashes.append(None)
    # Place the last start a few minutes before capture such that gpu-1 runs, well clear of a crash,
    # at the start of the log window (the files then begin in a quiet state).
    for back in range(3 * 60, 10 * 60):
        first_crash = captured - back * SEC - starts[-1]
        up = [(first_crash + s if s is not None else None, first_crash + c if c is not None else None)
              for s, c in zip(starts, crashes)]
        if any((s is None or s < window_start - 2 * MIN) and c is not None and c > window_start + 2 * MIN
               for s, c in up):
            return up
    raise SystemExit("gen-history: no schedule keeps gpu-1 up at the window start")


class Story:
    """Every line every speaker writes, with what a scanner must make of it."""

    def __init__(self):
        self.lines = {n: [] for n in NODE_NAMES}  # node -> [(ns, seq, text, kind)]
        self.seq = 0
        self.assigned = {}  # (ip, node) -> [announce instants]

    def emit(self, node, ns, text, kind):
        self.seq += 1
        self.lines[node].append((ns, self.seq, text, kind))
        if kind[0] == "announce":
            self.assigned.setdefault((kind[1], node), []).append(ns)

    def announce(self, node, ns, ip):
        self.emit(node, ns, j_announce(rfc3339nano(ns), ip), ("announce", ip))

    def withdraw(self, node, ns, ip, reason="notOwner"):
        self.emit(node, ns, j_withdraw(rfc3339nano(ns), ip, reason), ("withdraw", ip, reason))

    def other(self, node, ns, text):
        self.emit(node, ns, text, ("other",))


def owners(alive):
    cand = [c for c in CANDIDATES if c in alive]
    return {ip: l2_order(ip, cand)[0] for ip in ALL_IPS}


def build_story(containers):
    """containers: gpu-1's [(start, crash)]; returns the Story."""
    st = Story()
    everyone = set(NODE_NAMES)
    with_gpu, without_gpu = owners(everyone), owners(everyone - {GPU})
    gen_from = containers[1][0] - 30 * MIN  # nothing before this is ever shown or counted
    # Others' view of gpu-1: a member from its join until it is marked failed.
    member = []  # [(join, marked)]
    busy = []  # instants churn keeps clear of

    for k, (start, crash) in enumerate(containers):
        if k == 0:
            join = -1  # container 0 ran since the Pod was created, long before anything shown
        else:
            # gpu-1 itself: a new container.
            st.emit(GPU, start, j_start(rfc3339nano(start)), ("start",))
            t = start
            for i in range(5):
                t += jitter(3, 60)
                st.other(GPU, t, j_startup_noise(rfc3339nano(t), i))
            t += jitter(200, 400)
            st.emit(GPU, t, j_node_event(rfc3339nano(t), GPU, "NodeJoin"), ("node", GPU, "join"))
            join = start + jitter(1100, 2300)
            for n in OTHERS:
                t = join + jitter(1, 30)
                st.emit(GPU, t, j_node_event(rfc3339nano(t), n, "NodeJoin"), ("node", n, "join"))
            t = join + jitter(150, 250)
            st.other(GPU, t, j_config(rfc3339nano(t)))
            u = t + jitter(20, 60)
            st.other(GPU, u, j_config(rfc3339nano(u), end=True))
            t += jitter(100, 150)
            st.other(GPU, t, j_reload(rfc3339nano(t)))
            for ip in ALL_IPS:
                if with_gpu[ip] == GPU:
                    t += jitter(2, 30)
                    st.announce(GPU, t, ip)
            # The others see it join and hand its IPs back.
            for n in OTHERS:
                t = join + jitter(5, 300)
                st.emit(n, t, j_node_event(rfc3339nano(t), GPU, "NodeJoin"), ("node", GPU, "join"))
                t += jitter(1, 5)
                st.other(n, t, j_reload(rfc3339nano(t)))
                for ip in ALL_IPS:
                    t += jitter(2, 25)
                    if with_gpu[ip] == n:
                        st.announce(n, t, ip)
                    elif without_gpu[ip] == n:
                        st.withdraw(n, t, ip)
            busy.append(start)
        if crash is None:
            member.append((join, None))
            continue
        # SIGKILL: no Leave. A prober suspects it, then marks it failed (spec §7: a few seconds).
        prober = rng.choice(OTHERS)
        t_suspect = crash + jitter(600, 1800)
        st.emit(prober, t_suspect, j_memberlist(rfc3339nano(t_suspect), "info",
                                                f"Suspect {GPU} has failed, no acks received"), ("suspect", GPU))
        confirmations = 0
        if rng.random() < 0.35:
            second = rng.choice([n for n in OTHERS if n != prober])
            t2 = t_suspect + jitter(100, 900)
            st.emit(second, t2, j_memberlist(rfc3339nano(t2), "info",
                                             f"Suspect {GPU} has failed, no acks received"), ("suspect", GPU))
            confirmations = 1
        confirmations += rng.randint(0, 1)
        marked = t_suspect + jitter(3800, 6500)
        st.emit(prober, marked, j_memberlist(
            rfc3339nano(marked), "info",
            f"Marking {GPU} as failed, suspect timeout reached ({confirmations} peer confirmations)"),
            ("failed", GPU))
        member.append((join, marked))
        for n in OTHERS:
            t = marked + (jitter(1, 3) if n == prober else jitter(5, 250))
            st.emit(n, t, j_node_event(rfc3339nano(t), GPU, "NodeLeave"), ("node", GPU, "leave"))
            t += jitter(1, 5)
            st.other(n, t, j_reload(rfc3339nano(t)))
            for ip in ALL_IPS:
                if without_gpu[ip] == n:
                    t += jitter(2, 25)
                    st.announce(n, t, ip)
        busy.extend([crash, marked])

    # A few false suspicions while gpu-1 is slow but alive: the prober suspects, gpu-1 refutes.
    running = [(s, c) for s, c in containers[1:] if c is None or c - s > 4 * MIN]
    picks = [running[len(running) // 3], running[2 * len(running) // 3], running[-1]]
    for s, c in picks:
        t = s + 2 * MIN + jitter(0, 30_000)
        prober = rng.choice(OTHERS)
        st.emit(prober, t, j_memberlist(rfc3339nano(t), "info", f"Suspect {GPU} has failed, no acks received"),
                ("suspect", GPU))
        t += jitter(150, 400)
        st.emit(GPU, t, j_memberlist(rfc3339nano(t), "warn", f"Refuting a suspect message (from: {prober})"),
                ("refuted",))
        busy.append(t)

    # Ordinary reconciles: an EndpointSlice changes, every speaker reconciles that Service and
    # its owner re-announces (MetalLB logs serviceAnnounced on every successful reconcile).
    busy.sort()
    t = gen_from
    captured = ns_of(CAPTURED_AT)
    while True:
        t += rng.randint(12 * 60, 40 * 60) * SEC + jitter(0, 999)
        if t >= captured - 30 * SEC:
            break
        if any(abs(t - b) < 30 * SEC for b in busy):
            continue
        ns, name, ip, *_ = rng.choice(SERVICES)
        svc = f"{ns}/{name}"
        gpu_member = any(j <= t and (m is None or t < m) for j, m in member)
        gpu_running = any(s is not None and s + 5 * SEC <= t and (c is None or t < c) for s, c in containers)
        view = with_gpu if gpu_member else without_gpu
        for n in NODE_NAMES:
            if n == GPU and not gpu_running:
                continue
            mine = with_gpu if n == GPU else view
            u = t + jitter(0, 400)
            st.other(n, u, j_svc_start(rfc3339nano(u), svc))
            if mine[ip] == n:
                u += jitter(1, 8)
                st.announce(n, u, ip)
            u += jitter(1, 5)
            st.other(n, u, j_svc_end(rfc3339nano(u), svc))
    return st


# --------------------------------------------------------------------------- damage
# The lines that are not what a speaker's JSON logger writes (their counts go into README.md).

KLOG_WATCH = ('reflector.go:561] k8s.io/client-go@v0.32.3/tools/cache/reflector.go:251: watch of '
              '*v1.EndpointSlice ended with: an error on the server ("unable to decode an event from the watch '
              'stream: http2: client connection lost") has prevented the request from succeeding')
KLOG_REFUSED = ('reflector.go:166] "Unhandled Error" err="k8s.io/client-go@v0.32.3/tools/cache/reflector.go:251: '
                'Failed to watch *v1.Node: Get \\"https://10.96.0.1:443/api/v1/nodes?allowWatchBookmarks=true\\": '
                'dial tcp 10.96.0.1:443: connect: connection refused"')
TRUNCATED_NODE = "worker-e"


def damage(st):
    for at, node, severity, text in [
        ("2026-11-29T03:12:45Z", "worker-c", "W", KLOG_WATCH),
        ("2026-11-30T17:40:02Z", "worker-c", "W", KLOG_WATCH),
        ("2026-11-30T08:21:09Z", "worker-d", "E", KLOG_REFUSED),
    ]:
        ns = ns_of(at) + 123_456_000
        st.emit(node, ns, klog(ns, severity, text), ("malformed",))
    # Half lines: the rest of the line was lost (a log rotation cut it).
    owner_d = next(ip for ip in ALL_IPS if l2_order(ip)[0] == "worker-d")
    ns = ns_of("2026-11-29T14:07:31Z") + 500_000_000
    st.emit("worker-d", ns, j_announce(rfc3339nano(ns), owner_d)[:72], ("malformed",))
    ns = ns_of("2026-11-30T02:44:10Z") + 250_000_000
    st.emit("storage-1", ns, j_svc_start(rfc3339nano(ns), "apps/minio")[:68], ("malformed",))


def file_lines(st, node, first_ns, last_ns):
    return sorted(x for x in st.lines[node] if first_ns <= x[0] < last_ns)


def truncated_tail(lines):
    """worker-e's file ends in the middle of a line, without a newline (the copy was cut off)."""
    ns = lines[-1][0] + 731_000_000
    return ns, j_svc_start(rfc3339nano(ns), "apps/nextcloud")[:90]


# --------------------------------------------------------------------------- the scanner's view
# What src/history/logs.rs must report for each file, worked out from the kinds recorded above.

def expected_stats(lines, tail):
    e = {"lines": 0, "malformed": 0, "truncated": 0, "untimed": 0, "other": 0, "skippedBeforeSince": 0,
         "firstTs": None, "lastTs": None, "starts": [], "startCount": 0, "days": {}, "ips": {}, "members": {}}

    def day(d):
        return e["days"].setdefault(d, {"announced": 0, "withdrawn": 0, "withdrawnByReason": {}, "otherLines": 0})

    def ip_entry(ip):
        return e["ips"].setdefault(ip, {"protocol": {}, "announcedLines": 0, "takeovers": 0, "takeoversByDay": {},
                                        "withdrawalsByReason": {}, "firstTs": None, "lastTs": None,
                                        "announcingAtEnd": False})

    def member(name, d):
        return e["members"].setdefault(name, {}).setdefault(
            d, {"suspect": 0, "failed": 0, "join": 0, "leave": 0, "update": 0, "refuted": 0})

    def bump(m, k):
        m[k] = m.get(k, 0) + 1

    for ns, _, text, kind in lines:
        e["lines"] += 1
        if kind[0] == "malformed":
            e["malformed"] += 1
            continue
        ts, d = rfc3339nano(ns), day_of(ns)
        assert f'"ts":"{ts}"' in text, text
        e["firstTs"] = e["firstTs"] or ts
        e["lastTs"] = ts
        k = kind[0]
        if k == "announce":
            day(d)["announced"] += 1
            c = ip_entry(kind[1])
            bump(c["protocol"], "layer2")
            c["announcedLines"] += 1
            if not c["announcingAtEnd"]:
                c["takeovers"] += 1
                bump(c["takeoversByDay"], d)
                c["announcingAtEnd"] = True
            c["firstTs"] = c["firstTs"] or ts
            c["lastTs"] = ts
        elif k == "withdraw":
            day(d)["withdrawn"] += 1
            bump(day(d)["withdrawnByReason"], kind[2])
            c = ip_entry(kind[1])
            bump(c["withdrawalsByReason"], kind[2])
            c["announcingAtEnd"] = False
            c["firstTs"] = c["firstTs"] or ts
            c["lastTs"] = ts
        elif k in ("suspect", "failed"):
            member(kind[1], d)[k] += 1
        elif k == "refuted":
            member("(self)", d)["refuted"] += 1
        elif k == "node":
            member(kind[1], d)[kind[2]] += 1
        elif k == "start":
            e["startCount"] += 1
            e["starts"].append(ts)
            for c in e["ips"].values():
                c["announcingAtEnd"] = False
        else:
            e["other"] += 1
            day(d)["otherLines"] += 1
    if tail:
        e["lines"] += 1
        e["truncated"] += 1
    return e


# --------------------------------------------------------------------------- assembly

def build():
    captured, window_start = ns_of(CAPTURED_AT), ns_of(WINDOW_START)
    containers = gpu_schedule(captured, window_start)
    st = build_story(containers)
    damage(st)
    last_start = containers[-1][0]

    pod_created = {n: "2026-11-03T06:%02d:%02dZ" % (22 + NODE_IDX[n] // 4, 3 + NODE_IDX[n] * 7) for n in NODE_NAMES}
    pods_names = {n: f"speaker-{suffix()}" for n in NODE_NAMES}

    info = snapshot_info()
    namespaces = [namespace(MLB_NS, "2026-10-05T09:39:58Z",
                            {"pod-security.kubernetes.io/enforce": "privileged",
                             "pod-security.kubernetes.io/audit": "privileged",
                             "pod-security.kubernetes.io/warn": "privileged"}),
                  namespace("apps", "2026-10-06T08:10:00Z"),
                  namespace("media", "2026-10-12T18:55:41Z"),
                  namespace("monitoring", "2026-10-05T09:58:12Z")]
    nodes = [node(*n) for n in NODES]
    ds = speaker_daemonset()
    speakers = {}
    for n in NODE_NAMES:
        created = pod_created[n]
        running_since = rfc3339(ns_of(created) + 3 * SEC)
        restarts, last = 0, None
        if n == GPU:
            restarts = RESTARTS
            running_since = rfc3339(last_start)
            prev_start, prev_crash = containers[-2]
            last = {"containerID": "containerd://" + hashlib.sha256(f"{GPU}/{prev_start}".encode()).hexdigest(),
                    "exitCode": 137, "reason": "Error",
                    "startedAt": rfc3339(prev_start), "finishedAt": rfc3339(prev_crash + 100_000_000)}
        elif n == "worker-c":
            restarts = 1  # once at boot, before the API server was reachable
            last = {"containerID": "containerd://" + hashlib.sha256(f"worker-c/{created}".encode()).hexdigest(),
                    "exitCode": 1, "reason": "Error", "startedAt": created,
                    "finishedAt": rfc3339(ns_of(created) + 2 * SEC)}
            running_since = rfc3339(ns_of(created) + 14 * SEC)
        speakers[n] = speaker_pod(n, ds["metadata"]["uid"], pods_names[n], created, restarts, running_since, last)
    ctrl = controller_pod()
    services, slices = [], []
    for ns, name, ip, ports, sel, ep_nodes, created in SERVICES:
        svc = service(ns, name, ip, ports, sel, created)
        services.append(svc)
        slices.append(endpoint_slice(svc, ep_nodes))
    base = namespaces + nodes + [ds] + list(speakers.values()) + [ctrl, ip_pool(), l2_advertisement()] \
        + services + slices
    orders = elect(base)

    statuses, events = [], []
    for svc in services:
        ip = svc["status"]["loadBalancer"]["ingress"][0]["ip"]
        winner = orders[ip][0]
        if winner == GPU:
            join = next(t for t, _, _, k in sorted(st.lines[GPU]) if t >= last_start and k[0] == "announce")
            created = rfc3339(join + 400_000_000)
        else:
            created = rfc3339(ns_of(pod_created[winner]) + 41 * SEC)
        statuses.append(service_l2_status(svc, winner, speakers[winner], created))
        for (aip, n), times in sorted(st.assigned.items()):
            if aip != ip or times[-1] >= captured:
                continue
            steady = n == winner
            seen = [t for t in times if t < captured]
            count = len(seen) + (rng.randint(180, 420) if steady else 0)
            first = rfc3339(ns_of(pod_created[n]) + 40 * SEC) if steady else rfc3339(seen[0])
            events.append(node_assigned_event(svc, n, count, first, rfc3339(seen[-1])))
    docs = [info] + base + statuses + events

    files = {}
    for n in NODE_NAMES:
        start = last_start if n == GPU else window_start
        lines = file_lines(st, n, start, captured)
        tail = truncated_tail(lines) if n == TRUNCATED_NODE else None
        files[pods_names[n]] = (n, lines, tail)
    return docs, orders, containers, files, st


HEADER = """\
# GENERATED by scripts/gen-history.py -- do not edit by hand; change the script and re-run it.
# {what}
"""


def render_log(lines, tail):
    text = "".join(x[2] + "\n" for x in lines)
    if tail:
        text += tail[1]  # no newline: the copy was cut off here
    return text


def story_facts(orders, containers, files):
    captured, window_start = ns_of(CAPTURED_AT), ns_of(WINDOW_START)
    crashes = [c for _, c in containers if c is not None and window_start <= c < captured]
    return {"crashes_in_window": len(crashes), "last_start": rfc3339nano(containers[-1][0])}


def readme(orders, containers, files, expected):
    facts = story_facts(orders, containers, files)
    out = [
        "# `kubectl lbdoctor history` test data",
        "",
        "GENERATED by `scripts/gen-history.py` (deterministic; do not edit by hand). `expected.json` holds",
        "the complete `LogStats` (src/history/logs.rs) each log must scan to, worked out by the script from",
        "the lines it wrote; `cargo test --lib history` checks it.",
        "",
        "## The cluster (`cluster.yaml`, captured " + CAPTURED_AT + ")",
        "",
        "8 nodes, MetalLB " + METALLB_VERSION + " in layer 2 with memberlist, pool `lan` "
        f"192.0.2.{POOL_FIRST}-192.0.2.{POOL_LAST},",
        "one L2Advertisement `l2` without nodeSelectors. cp-1 carries kubeadm's",
        "`node.kubernetes.io/exclude-from-external-load-balancers`, so the L2 candidates are the other 7.",
        "Every Service is externalTrafficPolicy Cluster with ready endpoints, so the winner is the first of",
        "the sha256 order (spec metallb-speaker.md §4.2 step 9):",
        "",
        "| Service | IP | sha256 order of the 7 candidates | owner at capture |",
        "|---|---|---|---|",
    ]
    for ns, name, ip, *_ in SERVICES:
        o = orders[ip]
        out.append(f"| {ns}/{name} | {ip} | {', '.join(o)} | {o[0]} |")
    out += [
        "",
        f"Only {IP_A} (media/jellyfin: gpu-1, then worker-a) and {IP_B} (media/immich: gpu-1, then worker-b)",
        "have gpu-1 first; no other IP has gpu-1 first or second, so gpu-1's failures move those two only.",
        "",
        "## The story",
        "",
        f"The speaker on gpu-1 is crash-looping: restartCount {RESTARTS}, lastState.terminated reason Error, exit",
        "code 137 (SIGKILL, so it never leaves memberlist gracefully), kubelet backoff 10 s doubling to 5 min,",
        f"runs of 5-13 min. {facts['crashes_in_window']} of its crashes fall in the log window",
        f"({WINDOW_START} to {CAPTURED_AT}). At capture time its current container",
        f"(started {facts['last_start']}) is up and owns both IPs.",
        "",
        "Each crash: one speaker (sometimes two) logs `memberlist: Suspect gpu-1 has failed, no acks received`,",
        "the first of them `memberlist: Marking gpu-1 as failed, suspect timeout reached (N peer confirmations)`",
        "a few seconds later; all 7 other speakers log `node event - forcing sync` NodeLeave for gpu-1 and a",
        f"reprocess; worker-a logs serviceAnnounced for {IP_A}, worker-b for {IP_B}, every owner re-announces its IP.",
        "Each restart: gpu-1 logs `MetalLB speaker starting ...`, startup lines, NodeJoin for all 8 members,",
        "then serviceAnnounced for its two IPs within about 2 s; the others log NodeJoin for gpu-1, worker-a and",
        f"worker-b log serviceWithdrawn reason notOwner for {IP_A} resp. {IP_B}. Three times a speaker suspects",
        "gpu-1 while it is merely slow and gpu-1 logs `memberlist: Refuting a suspect message (from: ...)`",
        "(one of them in its current container). Between all this: EndpointSlice churn every 12-40 min, where",
        "every speaker logs `ServiceReconciler` start/end reconcile for the Service and its owner re-announces.",
        "",
        "## The logs (`logs/<speaker pod>.log`)",
        "",
        "As `kubectl logs --since-time=" + WINDOW_START + " POD -c speaker` would write them at capture time.",
        "**gpu-1's file holds only its current container** (kubectl shows the previous one only with",
        "`--previous`): it starts with that container's `MetalLB speaker starting` line, so it has exactly one",
        "start and no crash in it. The crash loop is visible only in the other speakers' files.",
        "",
        "Damage, on purpose: worker-c has 2 client-go klog lines (not JSON), worker-d 1 klog line and 1 half",
        "line (an announce cut short), storage-1 1 half line (a reconcile line cut short): **5 malformed lines**",
        f"in all. {TRUNCATED_NODE}'s file ends with a line cut off without a newline: **1 truncated line**.",
        "No line is untimed.",
        "",
        "| file | node | lines | malformed | truncated | other | starts | takeovers (IP: count) | withdrawn notOwner |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for fname, (n, _, _) in sorted(files.items(), key=lambda kv: NODE_IDX[kv[1][0]]):
        e = expected[fname]
        take = ", ".join(f"{ip}: {c['takeovers']}" for ip, c in sorted(e["ips"].items()) if c["takeovers"])
        wd = ", ".join(f"{ip}: {c['withdrawalsByReason'].get('notOwner', 0)}" for ip, c in sorted(e["ips"].items())
                       if c["withdrawalsByReason"])
        out.append(f"| {fname} | {n} | {e['lines']} | {e['malformed']} | {e['truncated']} | {e['other']} | "
                   f"{e['startCount']} | {take or '-'} | {wd or '-'} |")
    out += [
        "",
        "A takeover is an announce that found the speaker not announcing the IP (src/history/logs.rs): each",
        "speaker's first announce of its own IP in the window counts once; worker-a's and worker-b's counts for",
        f"{IP_A} and {IP_B} equal the crashes in the window whose failover lies in it.",
        "",
        "memberlist as each speaker saw gpu-1 (suspect / failed / leave / join, whole window):",
        "",
        "| node | suspect | failed | leave | join |",
        "|---|---|---|---|---|",
    ]
    for fname, (n, _, _) in sorted(files.items(), key=lambda kv: NODE_IDX[kv[1][0]]):
        days = expected[fname]["members"].get(GPU, {})
        tot = {k: sum(d[k] for d in days.values()) for k in ("suspect", "failed", "leave", "join")}
        out.append(f"| {n} | {tot['suspect']} | {tot['failed']} | {tot['leave']} | {tot['join']} |")
    out += [
        "",
        "`nodeAssigned` Events exist for every (Service, node) that announced it: the owner's, plus worker-a's",
        f"for media/jellyfin and worker-b's for media/immich. Their counts include gpu-1's earlier containers,",
        "which no log file shows.",
        "",
    ]
    return "\n".join(out)


# --------------------------------------------------------------------------- bench logs

def write_bench(out_dir, size_gb):
    """~size_gb GB in 8 files: each speaker's two-day window repeated with the dates moved on by two
    days a copy (gpu-1 with all its containers, so that every file has the same kind of content)."""
    _, _, containers, _, st = build()
    captured, window_start = ns_of(CAPTURED_AT), ns_of(WINDOW_START)
    os.makedirs(out_dir, exist_ok=True)
    per_file = size_gb * 1e9 / len(NODE_NAMES)
    base = dt.date(2026, 11, 29)
    total = 0
    for n in NODE_NAMES:
        chunk = "".join(x[2] + "\n" for x in file_lines(st, n, window_start, captured)).encode()
        copies = max(1, round(per_file / len(chunk)))
        path = os.path.join(out_dir, f"speaker-{n}.log")
        with open(path, "wb") as f:
            for k in range(copies):
                d0 = (base + dt.timedelta(days=2 * k)).strftime("%Y-%m-%dT").encode()
                d1 = (base + dt.timedelta(days=2 * k + 1)).strftime("%Y-%m-%dT").encode()
                f.write(chunk.replace(b'"ts":"2026-11-29T', b'"ts":"' + d0).replace(b'"ts":"2026-11-30T', b'"ts":"' + d1))
        total += copies * len(chunk)
        print(f"wrote {path} ({copies} copies, {copies * len(chunk) / 1e6:.0f} MB)", file=sys.stderr)
    print(f"bench logs: {total / 1e9:.2f} GB in {out_dir}", file=sys.stderr)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.realpath(os.path.join(here, ".."))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out-dir", default=os.path.join(repo, "testdata", "history"))
    ap.add_argument("--bench", metavar="DIR", help="write large logs for benches/history_logs.rs into DIR")
    ap.add_argument("--size-gb", type=float, default=1.0)
    args = ap.parse_args()

    if args.bench:
        real = os.path.realpath(args.bench)
        if real == repo or real.startswith(repo + os.sep):
            raise SystemExit("gen-history: --bench must not write into the repository")
        write_bench(args.bench, args.size_gb)
        return

    docs, orders, containers, files, _ = build()
    # Invariants the story depends on; fail loudly if an edit breaks them.
    gpu_first = [ip for ip, o in orders.items() if o[0] == GPU]
    assert sorted(gpu_first) == sorted([IP_A, IP_B]), gpu_first
    assert orders[IP_A][1] == "worker-a" and orders[IP_B][1] == "worker-b"
    assert all(GPU not in o[:2] for ip, o in orders.items() if ip not in (IP_A, IP_B))
    assert len(orders[IP_A]) == 7 and "cp-1" not in orders[IP_A]

    os.makedirs(os.path.join(args.out_dir, "logs"), exist_ok=True)
    path = os.path.join(args.out_dir, "cluster.yaml")
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(dump_documents(docs, HEADER.format(
            what="8-node cluster, MetalLB v0.16.1 layer 2; gpu-1's speaker crash-loops (see README.md).")))
    print(f"wrote {os.path.relpath(path)} ({len(docs)} objects)", file=sys.stderr)
    expected = {}
    for fname, (n, lines, tail) in files.items():
        expected[f"{fname}.log"] = expected_stats(lines, tail)
        path = os.path.join(args.out_dir, "logs", f"{fname}.log")
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(render_log(lines, tail))
        print(f"wrote {os.path.relpath(path)} ({n}, {len(lines) + bool(tail)} lines)", file=sys.stderr)
    files = {f"{k}.log": v for k, v in files.items()}
    nodes = {fname: n for fname, (n, _, _) in files.items()}
    with open(os.path.join(args.out_dir, "expected.json"), "w", encoding="utf-8", newline="\n") as f:
        json.dump({"generatedBy": "scripts/gen-history.py", "nodes": nodes, "stats": expected}, f, indent=1,
                  sort_keys=True)
        f.write("\n")
    with open(os.path.join(args.out_dir, "README.md"), "w", encoding="utf-8", newline="\n") as f:
        f.write(readme(orders, containers, files, expected))


if __name__ == "__main__":
    main()
