#!/usr/bin/env bash
# Renders `check --demo trap -o html` in headless Chromium and writes the screenshot the README
# shows (docs/img/check-trap.png). Chromium runs in a network namespace of its own (root,
# unshare): the page loads nothing, and the browser's own start-up requests stay inside.
# usage: scripts/html-screenshot.sh [BIN]   (default: target/release/kubectl-lbdoctor)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bin=${1:-target/release/kubectl-lbdoctor}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bin" check --demo trap -o html > "$work/trap.html" || [ $? -eq 1 ]
mkdir -p docs/img
timeout 120 unshare --net chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$work/profile" --window-size=1100,2300 --hide-scrollbars \
  --screenshot="$PWD/docs/img/check-trap.png" "file://$work/trap.html" 2>/dev/null
echo "docs/img/check-trap.png"
