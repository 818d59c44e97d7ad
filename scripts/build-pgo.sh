#!/usr/bin/env bash
# Builds the krew binary (the release-lto profile) guided by a profile of its own runs (PGO):
# an instrumented build runs `check` on a large synthetic cluster (healthy and on a bad day,
# compact and indented, table and -o json) and on every testdata scenario, and the final build
# lays out its code by what those runs executed. On the 10,000-Service snapshot of
# scripts/bench-scale.py this took `check -o json` from 258 to 234 ms, its CPU from 443 to 398 ms
# (docs/performance.md).
#
#   scripts/build-pgo.sh [--target-dir DIR]
#
#   --target-dir DIR   cargo's target directory for both builds (default: target/pgo); the binary
#                      is DIR/<host triple>/release-lto/kubectl-lbdoctor, the last line printed.
#
# Needs python3 (the synthetic cluster) and llvm-profdata of the toolchain's own LLVM:
# `rustup component add llvm-tools`. Builds for the host only: the training runs have to run.
# The profile's counts vary a little with thread timing, so two builds need not be byte for
# byte the same binary (dist.sh's archive of a given binary is).
set -euo pipefail

die() { echo "build-pgo.sh: $*" >&2; exit 1; }

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
target_dir="$root/target/pgo"
while [ $# -gt 0 ]; do
  case "$1" in
    --target-dir) [ $# -ge 2 ] || die "--target-dir needs a value"; target_dir=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
mkdir -p "$target_dir"
target_dir=$(cd "$target_dir" && pwd)

host=$(rustc -vV | sed -n 's/^host: //p')
profdata="$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata"
[ -x "$profdata" ] || die "no $profdata: run 'rustup component add llvm-tools' (the profile must match rustc's LLVM)"
command -v python3 >/dev/null || die "python3 is needed to generate the training cluster"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "build-pgo.sh: instrumented build" >&2
# --target: RUSTFLAGS then reach only the plugin's own code and its libraries, not the build
# scripts and proc macros (which would write profiles of the compiler's runs).
(cd "$root" && RUSTFLAGS="-Cprofile-generate=$work/raw" \
  cargo build --profile release-lto --locked --target "$host" --target-dir "$target_dir/gen")
gen="$target_dir/gen/$host/release-lto/kubectl-lbdoctor"

echo "build-pgo.sh: training runs" >&2
python3 "$root/scripts/gen-synthetic.py" --nodes 1000 --services 10000 --out "$work/healthy.json" >/dev/null 2>&1
python3 "$root/scripts/gen-synthetic.py" --nodes 1000 --services 10000 --indent 2 \
  --out "$work/indented.json" >/dev/null 2>&1
python3 "$root/scripts/bench-scale.py" --bad-day "$work/healthy.json" "$work/bad-day.json"
# Exit 1 (findings) and 3 (a scenario whose data cannot be read) are answers; 2 or a crash is not.
run() {
  local rc=0
  "$gen" "$@" >/dev/null 2>&1 || rc=$?
  case $rc in 0 | 1 | 3) ;; *) die "training run failed with exit code $rc: kubectl-lbdoctor $*" ;; esac
}
for snap in healthy indented bad-day; do
  run check --from "$work/$snap.json"
  run check --from "$work/$snap.json" -o json
done
for f in "$root"/testdata/scenarios/*.yaml "$root"/testdata/clusters/*.yaml; do
  run check --from "$f"
  run check --from "$f" -o json
done
"$profdata" merge -o "$work/merged.profdata" "$work"/raw/*.profraw

echo "build-pgo.sh: optimized build" >&2
(cd "$root" && RUSTFLAGS="-Cprofile-use=$work/merged.profdata" \
  cargo build --profile release-lto --locked --target "$host" --target-dir "$target_dir")
echo "$target_dir/$host/release-lto/kubectl-lbdoctor"
