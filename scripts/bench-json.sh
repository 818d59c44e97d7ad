#!/usr/bin/env bash
# The report-size and time targets of docs/json.md on a synthetic 1,000-node / 10,000-Service
# cluster: `check -o json` bytes, its time against Python's json.load of the snapshot (the
# ratio, one run each, best of three), and the same with a warning on every Service.
# Usage: scripts/bench-json.sh [BINARY]   (default target/release-lto/kubectl-lbdoctor)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bin=${1:-target/release-lto/kubectl-lbdoctor}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 scripts/gen-synthetic.py --nodes 1000 --services 10000 --out "$dir/big.json" >/dev/null 2>&1
best() { # best of three wall-clock seconds of "$@", output to /dev/null
  local b=999
  for _ in 1 2 3; do
    local s e
    s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s.%N)
    b=$(python3 -c "print(min($b, $e - $s))")
  done
  echo "$b"
}
py=$(best python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$dir/big.json")
for variant in plain warnings; do
  file=$dir/big.json
  if [ "$variant" = warnings ]; then
    # Every ingress IP ends in .0 (LBD113 on every Service: no pool sets avoidBuggyIPs): each
    # pool gains a /14 of 100.64.0.0/10 and its Services take its .0 addresses, one each.
    python3 - "$dir/big.json" "$dir/warn.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
extra, used = {}, {}
for item in doc["items"]:
    if item.get("kind") == "IPAddressPool":
        i = len(extra)
        extra[item["metadata"]["name"]] = 64 + 4 * i
        item["spec"]["addresses"].append(f"100.{64 + 4 * i}.0.0/14")
for item in doc["items"]:
    if item.get("kind") != "Service":
        continue
    pool = (item["metadata"].get("annotations") or {}).get("metallb.io/ip-allocated-from-pool")
    ingress = (item.get("status", {}).get("loadBalancer", {}) or {}).get("ingress") or []
    if pool not in extra or not ingress or "." not in ingress[0].get("ip", ""):
        continue
    k = used.get(pool, 0)
    used[pool] = k + 1
    ingress[0]["ip"] = f"100.{extra[pool] + k // 256}.{k % 256}.0"
json.dump(doc, open(sys.argv[2], "w"))
PY
    file=$dir/warn.json
  fi
  "$bin" check --from "$file" -o json >"$dir/out.json" || true
  bytes=$(stat -c %s "$dir/out.json")
  t=$(best "$bin" check --from "$file" -o json)
  echo "$variant: check -o json ${bytes} bytes ($(python3 -c "print(round($bytes/1e6,1))") MB), ${t}s; python json.load ${py}s; ratio $(python3 -c "print(round($t/$py,2))")"
done
