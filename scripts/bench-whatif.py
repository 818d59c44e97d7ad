#!/usr/bin/env python3
"""The what-if benchmark of docs/performance.md (issue 50): `check --spof` against `check` on a
synthetic 1,000-node / 2,000-Service cluster (scripts/gen-synthetic.py), table and JSON.

Runs, interleaved RUNS times (so noise hits every command alike):
  check | check --spof | check -o json | check --spof -o json
and prints each command's median seconds, its ratio to the same output without --spof, and its
peak RSS (the median over the runs, and the highest). Checks first that --spof does not change
the report it is added to (the report without `spof` is the report of check alone).

Usage: scripts/bench-whatif.py [--bin target/release/kubectl-lbdoctor] [--runs 9]
       [--nodes 1000] [--services 2000] [--keep DIR]
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


def run(cmd):
    """Seconds and peak RSS in MB of one run."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        sys.exit(f"bench-whatif: {' '.join(cmd)} exited {code}")
    return elapsed, usage.ru_maxrss / 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "target/release/kubectl-lbdoctor"))
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--services", type=int, default=2000)
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
    cmds = {
        "check": base,
        "check --spof": base + ["--spof"],
        "check -o json": base + ["-o", "json"],
        "check --spof -o json": base + ["--spof", "-o", "json"],
    }
    samples = {k: [] for k in cmds}
    for _ in range(a.runs):
        for name, cmd in cmds.items():
            samples[name].append(run(cmd))
    median = {k: statistics.median(s[0] for s in v) for k, v in samples.items()}
    for name, runs in samples.items():
        without = name.replace(" --spof", "")
        ratio = f"  {median[name] / median[without]:4.2f}x {without}" if without != name else ""
        rss = statistics.median(s[1] for s in runs)
        top = max(s[1] for s in runs)
        print(f"  {name:22} {median[name]:6.3f} s  peak RSS {rss:5.0f} MB (highest {top:.0f}){ratio}")
    if not a.keep:
        os.remove(snap)
        os.rmdir(work)


if __name__ == "__main__":
    main()
