#!/usr/bin/env python3
"""The scale benchmark of docs/performance.md: `check` on a large synthetic cluster, healthy and
on a bad day, against Python's json.load of the same file.

Generates (scripts/gen-synthetic.py) a 1,000-node / 10,000-Service snapshot (compact JSON, and the
same objects indented by two spaces), and a "bad day" copy of it where every Service carries a finding:
  - every ingress IP ends in .0 (each pool gains a /14 of 100.64.0.0/10, its Services take its .0
    addresses; no pool sets avoidBuggyIPs: LBD113 everywhere),
  - a quarter of the Services are externalTrafficPolicy: Local with no ready endpoint (dark),
  - one L2Advertisement selects only nodes that carry the exclude label.
Then runs, interleaved RUNS times (so noise hits every command alike):
  python3 json.load FILE | check --from FILE | check --from FILE -o json
and prints, per form, each command's median seconds, its ratio to json.load's median (and the
lowest and highest of the ratios within one round, which shows how much the machine's noise moves
it), its median CPU seconds (user + system, both cores) and their ratio to json.load's, its peak
RSS (the median over the runs, and the highest) and, for lbdoctor, the output bytes.

Usage: scripts/bench-scale.py [--bin BINARY] [--runs 7] [--nodes 1000] [--services 10000] [--keep DIR]
No build: build the binary first. --bin defaults to the krew build, scripts/build-pgo.sh's
(target/pgo/<host>/release-lto/kubectl-lbdoctor), or when that was not built, the plain
release-lto one (cargo build --profile release-lto): the line above the figures names it.
"""

import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXCLUDE = "node.kubernetes.io/exclude-from-external-load-balancers"


def default_bin():
    """The krew build (scripts/dist.sh packages build-pgo.sh's binary), else the plain release-lto one."""
    pgo = sorted(glob.glob(os.path.join(ROOT, "target/pgo/*/release-lto/kubectl-lbdoctor")))
    return pgo[0] if pgo else os.path.join(ROOT, "target/release-lto/kubectl-lbdoctor")


def bad_day(src, dst):
    doc = json.load(open(src))
    items = doc["items"]
    extra, used = {}, {}
    for item in items:
        if item.get("kind") == "IPAddressPool":
            i = len(extra)
            extra[item["metadata"]["name"]] = 64 + 4 * i
            item["spec"]["addresses"].append(f"100.{64 + 4 * i}.0.0/14")
    services = [i for i in items if i.get("kind") == "Service"]
    for n, svc in enumerate(services):
        pool = (svc["metadata"].get("annotations") or {}).get("metallb.io/ip-allocated-from-pool")
        ingress = ((svc.get("status") or {}).get("loadBalancer") or {}).get("ingress") or []
        if pool in extra and ingress and "." in ingress[0].get("ip", ""):
            k = used.get(pool, 0)
            used[pool] = k + 1
            ingress[0]["ip"] = f"100.{extra[pool] + k // 256}.{k % 256}.0"
        if n % 4 == 0:
            svc["spec"]["externalTrafficPolicy"] = "Local"
            svc["spec"]["healthCheckNodePort"] = 30000 + n % 2000
    dark = {(s["metadata"]["namespace"], s["metadata"]["name"]) for n, s in enumerate(services) if n % 4 == 0}
    for item in items:
        if item.get("kind") != "EndpointSlice":
            continue
        owner = (item["metadata"].get("labels") or {}).get("kubernetes.io/service-name")
        if (item["metadata"]["namespace"], owner) in dark:
            for ep in item.get("endpoints") or []:
                ep.setdefault("conditions", {})["ready"] = False
    # The last advertisement selects only nodes that carry the exclude label.
    ads = [i for i in items if i.get("kind") == "L2Advertisement"]
    nodes = [i for i in items if i.get("kind") == "Node"]
    if ads and nodes:
        ads[-1]["spec"]["nodeSelectors"] = [{"matchLabels": {"bench.lbdoctor/edge": "true"}}]
        for node in nodes[:5]:
            labels = node["metadata"].setdefault("labels", {})
            labels["bench.lbdoctor/edge"] = "true"
            labels[EXCLUDE] = ""
    json.dump(doc, open(dst, "w"))


def run(cmd, out_path=None):
    """Seconds, peak RSS in MB, output bytes, CPU seconds of one run."""
    out = open(out_path, "wb") if out_path else subprocess.DEVNULL
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    if out_path:
        out.close()
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        sys.exit(f"bench-scale: {' '.join(cmd)} exited {code}")
    size = os.path.getsize(out_path) if out_path else 0
    # ru_maxrss is in KiB; every size here is in MB (10^6 bytes), the file's as well. (Until
    # 2026-12-06 the RSS was printed in MiB beside the file in MB: 4.9% below the true ratio.)
    return elapsed, usage.ru_maxrss * 1024 / 1e6, size, usage.ru_utime + usage.ru_stime


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=default_bin())
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--services", type=int, default=10000)
    ap.add_argument("--keep", help="write the snapshots here and keep them")
    a = ap.parse_args()
    work = a.keep or tempfile.mkdtemp(prefix="lbdoctor-scale.")
    os.makedirs(work, exist_ok=True)
    healthy, bad = os.path.join(work, "healthy.json"), os.path.join(work, "bad-day.json")
    indented = os.path.join(work, "healthy-indented.json")
    gen = [sys.executable, os.path.join(ROOT, "scripts/gen-synthetic.py"), "--nodes", str(a.nodes),
           "--services", str(a.services)]
    subprocess.run(gen + ["--out", healthy], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    subprocess.run(gen + ["--indent", "2", "--out", indented], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    # In a child process: a forked child counts its parent's pages in its peak RSS until it
    # execs, so this process stays small (loading the snapshot here made every command's peak
    # read at least 163 MB).
    subprocess.run([sys.executable, os.path.abspath(__file__), "--bad-day", healthy, bad], check=True)
    out = os.path.join(work, "out")
    print(f"{a.nodes} nodes, {a.services} Services; median of {a.runs} interleaved runs; {a.bin}")
    for form, path in (("healthy", healthy), ("healthy, indented", indented), ("bad day", bad)):
        cmds = {
            "python json.load": [sys.executable, "-c", "import json,sys; json.load(open(sys.argv[1]))", path],
            "check": [a.bin, "check", "--from", path],
            "check -o json": [a.bin, "check", "--from", path, "-o", "json"],
        }
        samples = {k: [] for k in cmds}
        for _ in range(a.runs):
            for name, cmd in cmds.items():
                samples[name].append(run(cmd, None if name.startswith("python") else out))
        mb = os.path.getsize(path) / 1e6
        python = samples["python json.load"]
        base = statistics.median(s[0] for s in python)
        base_cpu = statistics.median(s[3] for s in python)
        print(f"\n{form}: {path} ({mb:.1f} MB)")
        for name, runs in samples.items():
            t = statistics.median(s[0] for s in runs)
            # Each round's ratio to the json.load of the same round: their range is the noise.
            rounds = [r[0] / p[0] for r, p in zip(runs, python)]
            cpu = statistics.median(s[3] for s in runs)
            # Under mimalloc one binary's peak varies by up to 20 MB between runs: the median
            # is the figure, the highest shows the spread.
            rss = statistics.median(s[1] for s in runs)
            top = max(s[1] for s in runs)
            size = f", output {runs[-1][2] / 1e6:.1f} MB" if runs[-1][2] else ""
            print(f"  {name:18} {t:6.3f} s  ratio {t / base:4.2f} (rounds {min(rounds):4.2f}-{max(rounds):4.2f})"
                  f"  CPU {cpu:5.3f} s ({cpu / base_cpu:4.2f})  peak RSS {rss:6.0f} MB "
                  f"({rss / mb:4.1f}x the file; highest {top:.0f} MB){size}")
    if not a.keep:
        for f in (healthy, indented, bad, out):
            os.remove(f)
        os.rmdir(work)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--bad-day"]:
        bad_day(sys.argv[2], sys.argv[3])
    else:
        main()
