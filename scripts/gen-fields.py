#!/usr/bin/env python3
"""Writes src/snapshot/fields.json: the field names an API server knows for each kind that
`simulate --apply` may replace, as a tree (a mapping per object level; "*" where any key goes: maps
and preserve-unknown-fields; 0 for a value). `--apply` refuses a field outside it, as
`kubectl apply`'s server-side field validation does.

The input is the OpenAPI v3 the real kube-apiserver of ../shared/k8s serves with MetalLB v0.16.1's
CRDs installed:

    ../shared/k8s/apiserver.sh start /tmp/apis
    ../shared/k8s/apiserver.sh exec /tmp/apis kubectl apply --server-side -f ../shared/k8s/crds/
    for gv in api/v1 apis/apps/v1 apis/discovery.k8s.io/v1 apis/coordination.k8s.io/v1 \\
              apis/metallb.io/v1beta1 apis/metallb.io/v1beta2; do
      ../shared/k8s/apiserver.sh exec /tmp/apis kubectl get --raw /openapi/v3/$gv \\
        > /tmp/oapi/$(echo $gv | tr / _).json
    done
    python3 scripts/gen-fields.py /tmp/oapi > src/snapshot/fields.json

Cilium's kinds are written from Cilium's documented CRD fields (below): the test server's Cilium
CRDs have open schemas.
"""
import glob
import json
import sys

KINDS = {"Node", "Service", "Namespace", "Pod", "Event", "ConfigMap", "EndpointSlice", "DaemonSet",
         "Deployment", "Lease", "IPAddressPool", "L2Advertisement", "BGPAdvertisement", "BGPPeer",
         "Community", "ServiceL2Status", "BFDProfile", "ServiceBGPStatus"}

SELECTOR = {"matchExpressions": {"key": 0, "operator": 0, "values": 0}, "matchLabels": "*"}
CONDITIONS = {"conditions": {"lastTransitionTime": 0, "message": 0, "observedGeneration": 0,
                             "reason": 0, "status": 0, "type": 0}}
META = "META"  # replaced by the server's ObjectMeta tree


def cilium(meta):
    pool_spec = {"allowFirstLastIPs": 0, "blocks": {"cidr": 0, "start": 0, "stop": 0},
                 "disabled": 0, "serviceSelector": SELECTOR}
    l2_spec = {"externalIPs": 0, "interfaces": 0, "loadBalancerIPs": 0, "nodeSelector": SELECTOR,
               "serviceSelector": SELECTOR}
    obj = lambda spec: {"apiVersion": 0, "kind": 0, "metadata": meta, "spec": spec, "status": CONDITIONS}
    return {
        "cilium.io/v2/CiliumLoadBalancerIPPool": obj(pool_spec),
        "cilium.io/v2alpha1/CiliumLoadBalancerIPPool": obj(dict(pool_spec, cidrs=pool_spec["blocks"])),
        "cilium.io/v2alpha1/CiliumL2AnnouncementPolicy": obj(l2_spec),
    }


def main(folder):
    schemas = {}
    for path in sorted(glob.glob(f"{folder}/*.json")):
        with open(path) as f:
            schemas.update(json.load(f)["components"]["schemas"])

    def resolve(s):
        if "$ref" in s:
            return schemas[s["$ref"].split("/")[-1]]
        if len(s.get("allOf", [])) == 1:
            return resolve(s["allOf"][0])
        return s

    def tree(s):
        s = resolve(s)
        if s.get("x-kubernetes-preserve-unknown-fields"):
            return "*"
        if s.get("type") == "array":
            return tree(s.get("items", {}))
        if s.get("properties"):
            return {k: tree(v) for k, v in sorted(s["properties"].items())}
        if s.get("type") == "object" or "additionalProperties" in s:
            return "*"
        return 0

    out = {}
    meta = None
    for s in schemas.values():
        for gvk in s.get("x-kubernetes-group-version-kind", []):
            version = (gvk["group"] + "/" if gvk["group"] else "") + gvk["version"]
            if gvk["kind"] not in KINDS or (gvk["kind"] == "Event" and version != "v1"):
                continue
            out[f"{version}/{gvk['kind']}"] = t = tree(s)
            meta = meta or t["metadata"]
    out.update(cilium(meta))
    # MetalLB after v0.16.1 (spec §4.4): lbdoctor reads it, so --apply takes it.
    out["metallb.io/v1beta1/L2Advertisement"]["spec"]["preferredNodeSelectors"] = {"preference": SELECTOR, "weight": 0}
    json.dump(out, sys.stdout, separators=(",", ":"), sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
