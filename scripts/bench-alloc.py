#!/usr/bin/env python3
"""Benchmark of the controller replay: one IPv6 /64 pool and 10,000 Services.

Half the Services hold consecutive addresses from the start of the /64 (so the lowest free
address sits after a run of 5,000), half are pending and each is tried against that state.
Times `check` and `explain pools` (release-lto build) against Python's json.load of the same
file, alternating, and prints the medians and ratios (lower is better).

    cargo build --profile release-lto && scripts/bench-alloc.py [--services 10000] [--runs 7]
"""
import argparse, json, os, statistics, subprocess, sys, tempfile, time

def snapshot(n):
    objs = [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-a"},
         "status": {"addresses": [{"type": "InternalIP", "address": "2001:db8:ffff::1"}]}},
        {"apiVersion": "metallb.io/v1beta1", "kind": "IPAddressPool",
         "metadata": {"name": "v6", "namespace": "metallb-system"}, "spec": {"addresses": ["2001:db8::/64"]}},
        {"apiVersion": "metallb.io/v1beta1", "kind": "L2Advertisement",
         "metadata": {"name": "l2", "namespace": "metallb-system"}, "spec": {}},
    ]
    for i in range(n):
        svc = {"apiVersion": "v1", "kind": "Service",
               "metadata": {"name": f"s{i}", "namespace": f"ns{i % 50}"},
               "spec": {"type": "LoadBalancer", "clusterIP": f"fd00::{i + 1:x}", "clusterIPs": [f"fd00::{i + 1:x}"],
                        "ipFamilyPolicy": "SingleStack", "ipFamilies": ["IPv6"], "selector": {"app": f"s{i}"},
                        "ports": [{"port": 80, "protocol": "TCP"}]}}
        if i % 2 == 0:
            svc["status"] = {"loadBalancer": {"ingress": [{"ip": f"2001:db8::{i // 2:x}"}]}}
        objs.append(svc)
    return {"apiVersion": "v1", "kind": "List", "items": objs}

def timed(cmd):
    t = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if r.returncode not in (0, 1):
        sys.exit(f"{cmd} failed ({r.returncode}): {r.stderr.decode()[:500]}")
    return time.perf_counter() - t

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--services", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--bin", default=os.path.join(os.path.dirname(__file__), "..", "target", "release-lto", "kubectl-lbdoctor"))
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "v6.json")
        with open(path, "w") as f:
            json.dump(snapshot(a.services), f)
        cmds = {
            "python json.load": [sys.executable, "-c", "import json,sys; json.load(open(sys.argv[1]))", path],
            "lbdoctor check": [a.bin, "check", "--from", path],
            "lbdoctor explain pools": [a.bin, "explain", "pools", "--from", path],
        }
        samples = {k: [] for k in cmds}
        for _ in range(a.runs):
            for k, c in cmds.items():
                samples[k].append(timed(c))
        med = {k: statistics.median(v) for k, v in samples.items()}
        size = os.path.getsize(path) / 1e6
        print(f"{a.services} Services, one /64 pool, {size:.1f} MB JSON, median of {a.runs}:")
        for k, m in med.items():
            print(f"  {k:24s} {m * 1000:7.0f} ms")
        base = med["python json.load"]
        for k in ("lbdoctor check", "lbdoctor explain pools"):
            print(f"ratio {k}/python-json-load: {med[k] / base:.2f}")

if __name__ == "__main__":
    main()
