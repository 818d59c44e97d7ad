#!/usr/bin/env bash
# Benchmark: is `kubectl-lbdoctor check` on a large synthetic snapshot faster
# than merely parsing the same file with Python's json module?
#
#   scripts/bench-check.sh            # build, generate, measure, compare
#
# Steps: `cargo build --profile release-lto`; generate a snapshot with
# scripts/gen-synthetic.py into a temp dir; then RUNS times, alternating,
# time
#   (a) python3 -c 'import json,sys; json.load(open(sys.argv[1]))' FILE
#   (b) kubectl-lbdoctor check --from FILE -o table >/dev/null
# with hyperfine (one `--runs 1` call per sample, so the two commands really
# alternate) or, without hyperfine, a time.perf_counter() subprocess loop.
# (b) may exit 0 or 1 (1 = findings); any other exit code fails the benchmark.
#
# Prints the medians and the line
#   ratio lbdoctor/python-json-load: 0.42 (median of 5; lower is better)
# Exit status: 0 = ratio < 1 (goal met), 1 = ratio >= 1, 2 = benchmark broken.
#
# Environment:
#   NODES=1000 SERVICES=10000 RUNS=5   snapshot size and samples per command
#   SEED=1                             generator seed
#   BENCH_TOOL=auto|hyperfine|python   how to time (auto: hyperfine if on PATH)
#   SKIP_BUILD=1                       do not run cargo (binary must exist)
#   LBDOCTOR_BIN=path                  binary to time (default: target/release-lto)
#   BENCH_JSON=path                    also write the raw samples/medians here
#   KEEP_TMP=1                         keep the temp dir (snapshot) for inspection
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
NODES=${NODES:-1000}
SERVICES=${SERVICES:-10000}
RUNS=${RUNS:-5}
SEED=${SEED:-1}
BENCH_TOOL=${BENCH_TOOL:-auto}
SKIP_BUILD=${SKIP_BUILD:-0}
KEEP_TMP=${KEEP_TMP:-0}
BENCH_JSON=${BENCH_JSON:-}
PYTHON=${PYTHON:-python3}

die() { echo "bench-check: $*" >&2; exit 2; }

[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive integer (got '$RUNS')"
command -v "$PYTHON" >/dev/null || die "$PYTHON not found"

# ---- 1. build -------------------------------------------------------------
if [[ -z "${LBDOCTOR_BIN:-}" ]]; then
  target_dir=${CARGO_TARGET_DIR:-target}
  [[ "$target_dir" = /* ]] || target_dir="$ROOT/$target_dir"
  LBDOCTOR_BIN="$target_dir/release-lto/kubectl-lbdoctor"
fi
if [[ "$SKIP_BUILD" != 1 ]]; then
  echo "bench-check: cargo build --profile release-lto" >&2
  (cd "$ROOT" && cargo build --profile release-lto) || die "cargo build --profile release-lto failed"
fi
[[ -x "$LBDOCTOR_BIN" ]] || die "binary not found: $LBDOCTOR_BIN"

# ---- 2. snapshot ----------------------------------------------------------
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lbdoctor-bench.XXXXXX")
if [[ "$KEEP_TMP" == 1 ]]; then
  echo "bench-check: keeping $tmp" >&2
else
  trap 'rm -rf "$tmp"' EXIT
fi
snap="$tmp/snapshot.json"
"$PYTHON" "$ROOT/scripts/gen-synthetic.py" --nodes "$NODES" --services "$SERVICES" \
  --seed "$SEED" --out "$snap" || die "snapshot generation failed"
size=$(wc -c <"$snap")

py_code='import json,sys; json.load(open(sys.argv[1]))'

# ---- 3. warm-up + exit-code check (also warms the page cache) -------------
"$PYTHON" -c "$py_code" "$snap" || die "python json.load failed on the snapshot"
set +e
"$LBDOCTOR_BIN" check --from "$snap" -o table >/dev/null 2>"$tmp/lbdoctor.stderr"
rc=$?
set -e
if [[ $rc -ne 0 && $rc -ne 1 ]]; then
  echo "bench-check: kubectl-lbdoctor exited $rc (expected 0 or 1); stderr:" >&2
  head -n 40 "$tmp/lbdoctor.stderr" >&2 || true
  exit 2
fi

# ---- 4. measure, alternating ----------------------------------------------
case "$BENCH_TOOL" in
  auto) if command -v hyperfine >/dev/null; then BENCH_TOOL=hyperfine; else BENCH_TOOL=python; fi ;;
  hyperfine) command -v hyperfine >/dev/null || die "BENCH_TOOL=hyperfine but hyperfine is not on PATH" ;;
  python) ;;
  *) die "BENCH_TOOL must be auto, hyperfine or python" ;;
esac
echo "bench-check: snapshot $size bytes (NODES=$NODES SERVICES=$SERVICES SEED=$SEED), RUNS=$RUNS, timer=$BENCH_TOOL, binary=$LBDOCTOR_BIN" >&2

samples="$tmp/samples.json"
if [[ "$BENCH_TOOL" == hyperfine ]]; then
  q_py=$(printf '%q -c %q %q' "$PYTHON" "$py_code" "$snap")
  q_lbd=$(printf '%q check --from %q -o table >/dev/null' "$LBDOCTOR_BIN" "$snap")
  for ((i = 1; i <= RUNS; i++)); do
    # -i: hyperfine must not abort on exit code 1; codes are checked below.
    hyperfine --runs 1 -i --style none --export-json "$tmp/hf-python-$i.json" "$q_py" >/dev/null 2>&1 \
      || die "hyperfine failed on the python command"
    hyperfine --runs 1 -i --style none --export-json "$tmp/hf-lbdoctor-$i.json" "$q_lbd" >/dev/null 2>&1 \
      || die "hyperfine failed on the lbdoctor command"
  done
  "$PYTHON" - "$tmp" "$RUNS" "$samples" <<'EOF'
import json, sys
tmp, runs, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
res = {"python": [], "lbdoctor": [], "rc_python": [], "rc_lbdoctor": []}
for i in range(1, runs + 1):
    for k in ("python", "lbdoctor"):
        r = json.load(open("%s/hf-%s-%d.json" % (tmp, k, i)))["results"][0]
        res[k].extend(r["times"])
        res["rc_" + k].extend(r.get("exit_codes") or [0] * len(r["times"]))
json.dump(res, open(out, "w"))
EOF
else
  "$PYTHON" - "$PYTHON" "$py_code" "$LBDOCTOR_BIN" "$snap" "$RUNS" "$samples" <<'EOF'
import json, subprocess, sys, time
py, code, lbd, snap, runs, out = sys.argv[1:7]
cmds = {
    "python": [py, "-c", code, snap],
    "lbdoctor": [lbd, "check", "--from", snap, "-o", "table"],
}
res = {"python": [], "lbdoctor": [], "rc_python": [], "rc_lbdoctor": []}
for _ in range(int(runs)):
    for k in ("python", "lbdoctor"):  # alternate a, b, a, b, ...
        t0 = time.perf_counter()
        rc = subprocess.run(cmds[k], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
        res[k].append(time.perf_counter() - t0)
        res["rc_" + k].append(rc)
json.dump(res, open(out, "w"))
EOF
fi

# ---- 5. report --------------------------------------------------------------
"$PYTHON" - "$samples" "$RUNS" "$BENCH_TOOL" "$size" "$BENCH_JSON" <<'EOF'
import json, statistics, sys
samples, runs, tool, size, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5]
r = json.load(open(samples))
bad = []
if any(c != 0 for c in r["rc_python"]):
    bad.append("python json.load exit codes %s" % r["rc_python"])
if any(c not in (0, 1) for c in r["rc_lbdoctor"]):
    bad.append("kubectl-lbdoctor exit codes %s (only 0 and 1 are allowed)" % r["rc_lbdoctor"])
mp = statistics.median(r["python"])
ml = statistics.median(r["lbdoctor"])
ratio = ml / mp
fmt = lambda xs: " ".join("%.3f" % x for x in xs)
print("snapshot: %d bytes (%.1f MiB); timer: %s" % (size, size / 1048576, tool))
print("python json.load    samples [s]: %s" % fmt(r["python"]))
print("lbdoctor check      samples [s]: %s" % fmt(r["lbdoctor"]))
print("median python-json-load: %.3f s" % mp)
print("median lbdoctor check:   %.3f s (exit codes %s)" % (ml, sorted(set(r["rc_lbdoctor"]))))
print("ratio lbdoctor/python-json-load: %.2f (median of %d; lower is better)" % (ratio, runs))
if out:
    json.dump(dict(r, median_python=mp, median_lbdoctor=ml, ratio=ratio, runs=runs,
                   timer=tool, snapshot_bytes=size), open(out, "w"), indent=2)
if bad:
    for b in bad:
        print("FAIL: benchmark broken: " + b)
    sys.exit(2)
if ratio < 1:
    print("PASS: kubectl-lbdoctor check is faster than python json.load")
    sys.exit(0)
print("FAIL: ratio %.2f >= 1 (goal: lbdoctor faster than python json.load)" % ratio)
sys.exit(1)
EOF
