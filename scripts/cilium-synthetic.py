#!/usr/bin/env python3
"""Turn a snapshot from scripts/gen-synthetic.py into the same cluster run by Cilium.

MetalLB's objects go; in their place: cilium-config (LB-IPAM and L2 announcements on),
one CiliumLoadBalancerIPPool per former IPAddressPool (same addresses), an L2 policy for
every worker, a CiliumNode and a running agent Pod per Node, and one fresh L2 Lease per
Service held by a node chosen from its name. Deterministic, stdlib only.

  scripts/gen-synthetic.py --out /tmp/syn.json
  scripts/cilium-synthetic.py /tmp/syn.json > /tmp/syn-cilium.json
"""

import hashlib
import json
import sys

CAPTURED = "2026-01-05T12:00:00Z"


def block(entry):
    if "-" in entry:
        start, stop = entry.split("-", 1)
        return {"start": start.strip(), "stop": stop.strip()}
    return {"cidr": entry}


def main():
    doc = json.load(open(sys.argv[1]))
    items = []
    nodes = []
    services = []
    for o in doc["items"]:
        kind = o["kind"]
        if kind == "IPAddressPool":
            items.append({"apiVersion": "cilium.io/v2", "kind": "CiliumLoadBalancerIPPool",
                          "metadata": {"name": o["metadata"]["name"],
                                       "creationTimestamp": o["metadata"].get("creationTimestamp")},
                          "spec": {"blocks": [block(a) for a in o["spec"]["addresses"]]}})
            continue
        if kind in ("L2Advertisement", "SnapshotInfo"):
            continue
        if kind == "Pod" and o["metadata"].get("namespace") == "metallb-system":
            continue
        if kind == "Node":
            nodes.append(o["metadata"]["name"])
            items.append({"apiVersion": "cilium.io/v2", "kind": "CiliumNode",
                          "metadata": {"name": o["metadata"]["name"], "labels": o["metadata"].get("labels", {})}})
        if kind == "Service":
            services.append((o["metadata"]["namespace"], o["metadata"]["name"]))
        items.append(o)
    items.append({"apiVersion": "lbdoctor/v1alpha1", "kind": "SnapshotInfo", "spec": {"capturedAt": CAPTURED}})
    items.append({"apiVersion": "v1", "kind": "ConfigMap",
                  "metadata": {"name": "cilium-config", "namespace": "kube-system"},
                  "data": {"enable-lb-ipam": "true", "enable-l2-announcements": "true",
                           "kube-proxy-replacement": "true", "devices": "eth0 eth1"}})
    items.append({"apiVersion": "cilium.io/v2alpha1", "kind": "CiliumL2AnnouncementPolicy",
                  "metadata": {"name": "workers"},
                  "spec": {"loadBalancerIPs": True, "interfaces": ["^eth0$"],
                           "nodeSelector": {"matchExpressions": [
                               {"key": "node-role.kubernetes.io/control-plane", "operator": "DoesNotExist"}]}}})
    for i, node in enumerate(nodes):
        items.append({"apiVersion": "v1", "kind": "Pod",
                      "metadata": {"name": "cilium-%05d" % i, "namespace": "kube-system", "labels": {"k8s-app": "cilium"}},
                      "spec": {"nodeName": node, "containers": [{"name": "cilium-agent", "image": "quay.io/cilium/cilium:v1.18.4"}]},
                      "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}})
    for ns, name in services:
        holder = nodes[int(hashlib.sha256(f"{ns}/{name}".encode()).hexdigest(), 16) % len(nodes)]
        items.append({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                      "metadata": {"name": f"cilium-l2announce-{ns}-{name}", "namespace": "kube-system"},
                      "spec": {"holderIdentity": holder, "leaseDurationSeconds": 15,
                               "renewTime": "2026-01-05T11:59:58.000000Z"}})
    json.dump({"apiVersion": "v1", "kind": "List", "items": items}, sys.stdout, separators=(",", ":"))


if __name__ == "__main__":
    main()
