#!/usr/bin/env python3
"""Sanity-check a snapshot written by gen-synthetic.py (stdlib only).

Checks: pools parse and do not overlap; every allocated Service IP is unique
and lies in the pool named by metallb.io/ip-allocated-from-pool; every pool
is covered by at least one L2Advertisement; exactly one EndpointSlice per
Service with a matching addressType; speakers sit on existing nodes; every IP
address in the file lies in a documentation/benchmark/shared range.

Usage: scripts/check-synthetic.py SNAPSHOT.json   (exit 0 = ok, 1 = problems)
"""
import collections
import ipaddress
import json
import sys

ALLOWED = [ipaddress.ip_network(n) for n in (
    "192.0.2.0/24", "198.51.100.0/24", "198.18.0.0/15", "100.64.0.0/10", "2001:db8::/32")]


def allowed(addr):
    a = ipaddress.ip_address(addr)
    return any(a.version == n.version and a in n for n in ALLOWED)


def pool_ranges(spec):
    """[(first_int, last_int, version)] for each entry of spec.addresses."""
    out = []
    for entry in spec.get("addresses", []):
        if "-" in entry:
            lo, hi = (ipaddress.ip_address(x.strip()) for x in entry.split("-"))
        else:
            net = ipaddress.ip_network(entry, strict=True)
            lo, hi = net.network_address, net.broadcast_address
        if lo.version != hi.version or int(lo) > int(hi):
            raise ValueError("bad range %r" % entry)
        out.append((int(lo), int(hi), lo.version))
    return out


def sel_matches(sel, labels):
    """Kubernetes LabelSelector semantics (empty selector matches all)."""
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


def main(path):
    problems = []
    doc = json.load(open(path, "rb"))
    assert doc.get("kind") == "List", "not a List"
    by_kind = collections.defaultdict(list)
    for it in doc["items"]:
        by_kind[it["kind"]].append(it)
    print("kinds: " + ", ".join("%s=%d" % (k, len(v)) for k, v in by_kind.items()))
    if doc["items"][0]["kind"] != "SnapshotInfo":
        problems.append("first item is not SnapshotInfo")

    # pools
    pools = {}
    ranges = []
    for p in by_kind["IPAddressPool"]:
        name = p["metadata"]["name"]
        rs = pool_ranges(p["spec"])
        pools[name] = (rs, p["metadata"].get("labels", {}))
        for lo, hi, v in rs:
            ranges.append((v, lo, hi, name))
            for x in (lo, hi):
                if not allowed(ipaddress.ip_address(x)):
                    problems.append("pool %s outside allowed ranges" % name)
    ranges.sort()
    for (v1, lo1, hi1, n1), (v2, lo2, hi2, n2) in zip(ranges, ranges[1:]):
        if v1 == v2 and lo2 <= hi1:
            problems.append("pools %s and %s overlap" % (n1, n2))
    print("pools: %d, %d ranges, no overlap: %s" % (len(pools), len(ranges),
          not any("overlap" in p for p in problems)))

    # advertisements cover pools
    covered = collections.Counter()
    for ad in by_kind["L2Advertisement"]:
        s = ad["spec"]
        names = s.get("ipAddressPools") or []
        psel = s.get("ipAddressPoolSelectors") or []
        for pn, (_, labels) in pools.items():
            if (not names and not psel) or pn in names or any(sel_matches(x, labels) for x in psel):
                covered[pn] += 1
        for pn in names:
            if pn not in pools:
                problems.append("L2Advertisement %s names unknown pool %s" % (ad["metadata"]["name"], pn))
    uncovered = [p for p in pools if not covered[p]]
    if uncovered:
        problems.append("pools without L2Advertisement: %s" % uncovered)
    print("L2Advertisements: %d, pools covered: %d/%d" % (len(by_kind["L2Advertisement"]),
          len(pools) - len(uncovered), len(pools)))

    # services
    seen_ip = {}
    n_alloc = n_pending = 0
    per_pool = collections.Counter()
    svc_keys = {}
    for s in by_kind["Service"]:
        md = s["metadata"]
        key = (md["namespace"], md["name"])
        svc_keys[key] = s
        for c in s["spec"].get("clusterIPs", []):
            if not allowed(c):
                problems.append("clusterIP %s of %s not allowed" % (c, key))
        ing = s.get("status", {}).get("loadBalancer", {}).get("ingress") or []
        if not ing:
            n_pending += 1
            continue
        pool = (md.get("annotations") or {}).get("metallb.io/ip-allocated-from-pool")
        if pool not in pools:
            problems.append("service %s: unknown pool %r" % (key, pool))
            continue
        for e in ing:
            a = ipaddress.ip_address(e["ip"])
            if not any(v == a.version and lo <= int(a) <= hi for lo, hi, v in pools[pool][0]):
                problems.append("service %s: %s not in pool %s" % (key, a, pool))
            if e["ip"] in seen_ip:
                problems.append("service %s: IP %s already used by %s" % (key, a, seen_ip[e["ip"]]))
            seen_ip[e["ip"]] = key
            if not allowed(a):
                problems.append("service %s: %s not in an allowed range" % (key, a))
        n_alloc += 1
        per_pool[pool] += 1
    print("services: %d allocated (unique IPs: %d, all inside their pool: %s), %d pending; "
          "per pool min/max %d/%d" % (n_alloc, len(seen_ip), not any("not in pool" in p for p in problems),
                                      n_pending, min(per_pool.values() or [0]), max(per_pool.values() or [0])))

    # endpoint slices
    eps_per_svc = collections.Counter()
    n_ep = 0
    nodes = {n["metadata"]["name"] for n in by_kind["Node"]}
    for es in by_kind["EndpointSlice"]:
        md = es["metadata"]
        key = (md["namespace"], md["labels"]["kubernetes.io/service-name"])
        eps_per_svc[key] += 1
        svc = svc_keys.get(key)
        if svc is None:
            problems.append("EndpointSlice %s without Service" % md["name"])
            continue
        if es["addressType"] != svc["spec"]["ipFamilies"][0]:
            problems.append("EndpointSlice %s addressType mismatch" % md["name"])
        for ep in es["endpoints"]:
            n_ep += 1
            if ep.get("nodeName") not in nodes:
                problems.append("EndpointSlice %s: unknown node %s" % (md["name"], ep.get("nodeName")))
            for a in ep["addresses"]:
                if not allowed(a):
                    problems.append("endpoint %s not allowed" % a)
    bad = [k for k in svc_keys if eps_per_svc[k] != 1]
    if bad:
        problems.append("%d services without exactly one EndpointSlice" % len(bad))
    print("EndpointSlices: %d with %d endpoints" % (len(by_kind["EndpointSlice"]), n_ep))

    # nodes / speakers
    for n in by_kind["Node"]:
        for a in n["status"]["addresses"]:
            if a["type"] == "InternalIP" and not allowed(a["address"]):
                problems.append("node %s IP %s not allowed" % (n["metadata"]["name"], a["address"]))
    for p in by_kind["Pod"]:
        if p["spec"]["nodeName"] not in nodes:
            problems.append("speaker %s on unknown node" % p["metadata"]["name"])
        for f in ("hostIP", "podIP"):
            if not allowed(p["status"][f]):
                problems.append("pod %s %s not allowed" % (p["metadata"]["name"], f))

    for p in problems[:50]:
        print("PROBLEM: " + p)
    print("%d problems" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
