#!/usr/bin/env bash
# Benchmark: how close does the speaker-log scanner of `kubectl lbdoctor history`
# (src/history/logs.rs) come to merely reading the logs?
#
#   scripts/bench-history.sh
#
# Steps: generate ~SIZE_GB GB of speaker logs in 8 files with
# `scripts/gen-history.py --bench` into a temp dir (never into the repository);
# build benches/history_logs.rs (`cargo bench --no-run`, release profile); run it
# under /usr/bin/time -v. The bench alternates, RUNS times,
#   (a) cat DIR/*.log > /dev/null              the disk-speed floor (single thread)
#   (b) scanning the 8 files, a thread per file
# on warm files, and prints the medians, the ratio (b)/(a), the same for one file
# on one thread, and the peak RSS (VmHWM). /usr/bin/time adds its own
# "Maximum resident set size" for the whole bench process.
#
# Environment:
#   SIZE_GB=1      size of the generated logs
#   KEEP_TMP=1     keep the temp dir (the logs) for inspection
#   PYTHON=python3
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SIZE_GB=${SIZE_GB:-1}
KEEP_TMP=${KEEP_TMP:-0}
PYTHON=${PYTHON:-python3}

die() { echo "bench-history: $*" >&2; exit 2; }
command -v "$PYTHON" >/dev/null || die "$PYTHON not found"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lbdoctor-history-bench.XXXXXX")
if [[ "$KEEP_TMP" == 1 ]]; then
  echo "bench-history: keeping $tmp" >&2
else
  trap 'rm -rf "$tmp"' EXIT
fi

echo "bench-history: generating ${SIZE_GB} GB of speaker logs in $tmp/logs" >&2
gen_start=$(date +%s.%N)
"$PYTHON" "$ROOT/scripts/gen-history.py" --bench "$tmp/logs" --size-gb "$SIZE_GB" || die "generation failed"
gen_end=$(date +%s.%N)
echo "bench-history: generated in $("$PYTHON" -c "print('%.1f s' % ($gen_end - $gen_start))")" >&2

echo "bench-history: cargo bench --bench history_logs --no-run" >&2
bin=$(cd "$ROOT" && cargo bench --bench history_logs --no-run --message-format=json 2>"$tmp/build.log" |
  "$PYTHON" -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "history_logs":
        print(m["executable"])
') || { tail -n 30 "$tmp/build.log" >&2; die "cargo bench --no-run failed"; }
[[ -x "$bin" ]] || { tail -n 30 "$tmp/build.log" >&2; die "bench binary not found"; }

export HISTORY_BENCH_DIR="$tmp/logs"
cd "$ROOT"
if [[ -x /usr/bin/time ]]; then
  /usr/bin/time -v "$bin" --bench 2>"$tmp/time.txt" || { cat "$tmp/time.txt" >&2; die "bench failed"; }
  rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$tmp/time.txt")
  echo "peak RSS (/usr/bin/time -v, whole process): ${rss} kB"
else
  "$bin" --bench || die "bench failed"
fi
