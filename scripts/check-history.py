#!/usr/bin/env python3
"""Held-out check of `kubectl lbdoctor history` against histories it has never seen.

    python3 scripts/check-history.py [--bin target/release/kubectl-lbdoctor] [--seeds 1-10]
                                     [--variants story,two-nodes,fast-returns]

For every seed and variant, `scripts/gen-history-story.py` writes a 23-day history whose
truth.json comes from its own model of the speakers (not from reading the logs back); `history
-o json` reads the logs, and this script compares, as issue 27's target states it: owner changes
per day within ±1 for every IP, the worst day within 1%, the crash-looping node(s) first among
the flapping nodes, no stable node named. It prints one line per history and exits 1 on a miss.
Python 3 stdlib only; the histories go to a temp dir.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile


def seeds(text):
    out = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def exact(h, truth):
    """How many IPs have every per-day figure exactly as the truth."""
    got = {x["ip"]: x["ownerChangesByDay"] for x in h["ips"]}
    return sum(got.get(ip) == t["ownerChangesByDay"] for ip, t in truth["ips"].items())


def check(h, truth):
    """The misses, as text; empty when the history meets the target."""
    misses = []
    got_ips = {x["ip"]: x for x in h["ips"]}
    for ip, t in truth["ips"].items():
        g = got_ips.get(ip)
        if g is None:
            misses.append(f"{ip}: missing")
            continue
        want, have = t["ownerChangesByDay"], g["ownerChangesByDay"]
        for day in sorted(set(want) | set(have)):
            if abs(want.get(day, 0) - have.get(day, 0)) > 1:
                misses.append(f"{ip} {day}: logs {want.get(day, 0)}, history {have.get(day, 0)}")
    want, have = truth["worstDay"], h["worstDay"] or {"day": None, "ownerChanges": 0}
    if have["day"] != want["day"] or abs(have["ownerChanges"] - want["ownerChanges"]) > 0.01 * want["ownerChanges"]:
        misses.append(f"worst day: logs {want}, history {have}")
    culprits = truth.get("culprits") or [truth["culprit"]]
    named = [f["node"] for f in h["flapping"]]
    if named[: len(culprits)] != culprits:
        misses.append(f"flapping: {named}, want {culprits} first")
    stable = [n for n in named if n in truth["stableNodes"]]
    if stable:
        misses.append(f"stable nodes named flapping: {stable}")
    return misses


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(here)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=os.path.join(repo, "target", "release", "kubectl-lbdoctor"))
    ap.add_argument("--seeds", default="1-10")
    ap.add_argument("--variants", default="story,two-nodes,fast-returns")
    args = ap.parse_args()
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for variant in args.variants.split(","):
            for seed in seeds(args.seeds):
                out = os.path.join(tmp, f"{variant}-{seed}")
                gen = subprocess.run(
                    [sys.executable, os.path.join(here, "gen-history-story.py"), "--variant", variant,
                     "--seed", str(seed), "--out-dir", out], capture_output=True, text=True)
                if gen.returncode != 0:
                    print(f"{variant} seed {seed}: the generator failed: {gen.stderr.strip().splitlines()[-1:]}")
                    failed += 1
                    continue
                run = subprocess.run(
                    [args.bin, "history", "--from", os.path.join(out, "cluster.yaml"), "--logs",
                     os.path.join(out, "logs"), "-o", "json"], capture_output=True, text=True)
                if run.returncode not in (0, 1):
                    print(f"{variant} seed {seed}: history exited {run.returncode}: {run.stderr.strip()}")
                    failed += 1
                    continue
                with open(os.path.join(out, "truth.json")) as fh:
                    truth = json.load(fh)
                h = json.loads(run.stdout)
                misses = check(h, truth)
                w = truth["worstDay"]
                print(f"{variant} seed {seed}: {exact(h, truth)} of {len(truth['ips'])} IPs exact every day, "
                      f"worst day {w['day']} ({w['ownerChanges']} changes): {'ok' if not misses else 'MISS'}")
                for m in misses:
                    print(f"  {m}")
                failed += bool(misses)
    print(f"{failed} of the histories miss the target")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
