#!/usr/bin/env bash
# Writes tests/golden/*.json: the JSON each scenario gives, as a guard that a refactoring keeps the
# contract byte for byte (tests/it/golden.rs). Regenerate only when the contract changes on purpose,
# and review the diff.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bin=${1:-target/debug/kubectl-lbdoctor}
out=tests/golden
mkdir -p "$out"
while IFS='|' read -r name args; do
  [ -z "$name" ] && continue
  # shellcheck disable=SC2086
  "$bin" $args >"$out/$name.json" || true
done < <(scripts/golden-cases.sh)
