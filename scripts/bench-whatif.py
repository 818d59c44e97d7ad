#!/usr/bin/env python3
"""The what-if benchmark of docs/performance.md (issue 50): `check --spof` against `check` on a
synthetic 1,000-node / 2,000-Service cluster, and `simulate` against `check -o json` on a
1,000-node / 10,000-Service one (scripts/gen-synthetic.py).

Runs, interleaved RUNS times (so noise hits every command alike):
  check | check --spof | check -o json | check --spof -o json             (2,000 Services)
  check -o json | simulate --down N | --speaker-down N | --label N exclude= | --apply AD   (-o json,
  10,000 Services; AD is an L2Advertisement moved to another zone's nodes)
  check on the 10,000-Service cluster as JSON, as a YAML `kind: List` and as YAML documents
  (written by scripts/k8s_yaml.py as kubectl writes YAML), whole and load only (`-n` a namespace
  the snapshot lacks: the command stops, exit 2, once the snapshot is read)
and prints each command's median seconds, its ratio, and its peak RSS (the median over the
runs, and the highest) with its ratio. Checks first that --spof does not change the report it is
added to (the report without `spof` is the report of check alone).

Usage: scripts/bench-whatif.py [--bin target/release/kubectl-lbdoctor] [--runs 9]
       [--nodes 1000] [--services 2000] [--simulate-services 10000] [--keep DIR]
No build: build the binary first (cargo build --release).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


PICK_EDIT = """
import json, sys
items = json.load(open(sys.argv[1]))["items"]
node = [i for i in items if i["kind"] == "Node"][1]["metadata"]["name"]
ad = [i for i in items if i["kind"] == "L2Advertisement" and (i["spec"].get("nodeSelectors") or [])][1]
zones = sorted({n["metadata"]["labels"].get("topology.kubernetes.io/zone") for n in items if n["kind"] == "Node"} - {None})
ad["spec"]["nodeSelectors"] = [{"matchLabels": {"topology.kubernetes.io/zone": zones[-1]}}]
json.dump(ad, open(sys.argv[2], "w"))
print(node, ad["metadata"]["name"], zones[-1])
"""

WRITE_YAML = """
import json, sys
sys.path.insert(0, sys.argv[1])
import k8s_yaml
doc = json.load(open(sys.argv[2]))
open(sys.argv[3], "w").write("\\n".join(k8s_yaml._lines(doc, 0)) + "\\n")
open(sys.argv[4], "w").write(k8s_yaml.dump_documents(doc["items"], "# bench-whatif"))
"""


def run(cmd):
    """Seconds and peak RSS in MB of one run."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1, 2):
        sys.exit(f"bench-whatif: {' '.join(cmd)} exited {code}")
    return elapsed, usage.ru_maxrss / 1024


def measure(runs, cmds, against):
    """Runs `cmds` interleaved and prints each one's medians beside those of `against(name)`."""
    samples = {k: [] for k in cmds}
    for _ in range(runs):
        for name, cmd in cmds.items():
            samples[name].append(run(cmd))
    time_ = {k: statistics.median(s[0] for s in v) for k, v in samples.items()}
    rss = {k: statistics.median(s[1] for s in v) for k, v in samples.items()}
    for name, got in samples.items():
        other = against(name)
        ratio = f"  {time_[name] / time_[other]:4.2f}x / {rss[name] / rss[other]:4.2f}x {other}" if other != name else ""
        top = max(s[1] for s in got)
        print(f"  {name:24} {time_[name]:6.3f} s  peak RSS {rss[name]:5.0f} MB (highest {top:.0f}){ratio}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "target/release/kubectl-lbdoctor"))
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--services", type=int, default=2000)
    ap.add_argument("--simulate-services", type=int, default=10000)
    ap.add_argument("--keep", help="write the snapshot here and keep it")
    a = ap.parse_args()
    work = a.keep or tempfile.mkdtemp(prefix="lbdoctor-whatif.")
    os.makedirs(work, exist_ok=True)
    snap = os.path.join(work, "cluster.json")
    gen = [sys.executable, os.path.join(ROOT, "scripts/gen-synthetic.py"), "--nodes", str(a.nodes),
           "--services", str(a.services), "--out", snap]
    subprocess.run(gen, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def report(*extra):
        out = subprocess.run([a.bin, "check", "--from", snap, "-o", "json", *extra], capture_output=True)
        return json.loads(out.stdout)

    with_spof, alone = report("--spof"), report()
    spof = with_spof.pop("spof")
    if with_spof != alone:
        sys.exit("bench-whatif: --spof changed the rest of the report")
    losses = sum(len(n["losses"]) for n in spof)
    print(f"{a.nodes} nodes, {a.services} Services: {len(spof)} single points of failure, {losses} losses; "
          f"median of {a.runs} interleaved runs; {a.bin}")
    base = [a.bin, "check", "--from", snap]
    measure(a.runs, {
        "check": base,
        "check --spof": base + ["--spof"],
        "check -o json": base + ["-o", "json"],
        "check --spof -o json": base + ["--spof", "-o", "json"],
    }, lambda name: name.replace(" --spof", ""))

    big = os.path.join(work, "cluster-big.json")
    gen = [sys.executable, os.path.join(ROOT, "scripts/gen-synthetic.py"), "--nodes", str(a.nodes),
           "--services", str(a.simulate_services), "--out", big]
    subprocess.run(gen, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    edited = os.path.join(work, "ad.json")
    # In a child process: a forked child counts its parent's pages in its peak RSS until it execs,
    # so this process stays small.
    picked = subprocess.run([sys.executable, "-c", PICK_EDIT, big, edited], check=True, capture_output=True, text=True)
    node, ad_name, zone = picked.stdout.split()
    print(f"\n{a.nodes} nodes, {a.simulate_services} Services: simulate -o json against check -o json "
          f"(node {node}, L2Advertisement {ad_name} moved to {zone})")
    sim = [a.bin, "simulate", "--from", big, "-o", "json"]
    measure(a.runs, {
        "check -o json": [a.bin, "check", "--from", big, "-o", "json"],
        "simulate --down": sim + ["--down", node],
        "simulate --speaker-down": sim + ["--speaker-down", node],
        "simulate --label": sim + ["--label", node, "node.kubernetes.io/exclude-from-external-load-balancers="],
        "simulate --apply": sim + ["--apply", edited],
    }, lambda name: "check -o json")

    as_list, as_docs = os.path.join(work, "cluster.yaml"), os.path.join(work, "cluster-docs.yaml")
    subprocess.run([sys.executable, "-c", WRITE_YAML, os.path.join(ROOT, "scripts"), big, as_list, as_docs], check=True)
    print(f"\n{a.nodes} nodes, {a.simulate_services} Services: YAML against JSON "
          f"({os.path.getsize(big) / 1e6:.1f} MB JSON, {os.path.getsize(as_list) / 1e6:.1f} MB YAML List)")
    load_only = ["-n", "no-such-namespace"]
    cmds = {}
    for form, path in (("JSON", big), ("YAML List", as_list), ("YAML documents", as_docs)):
        cmds[f"check {form}"] = [a.bin, "check", "--from", path]
        cmds[f"load {form}"] = [a.bin, "check", "--from", path, *load_only]
    measure(a.runs, cmds, lambda name: name.split(" ")[0] + " JSON")
    if not a.keep:
        for f in (snap, big, edited, as_list, as_docs):
            os.remove(f)
        os.rmdir(work)


if __name__ == "__main__":
    main()
