#!/usr/bin/env bash
# The cases tests/golden holds, one `name|arguments` a line; tests/it/golden.rs reads the same list.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
for f in testdata/scenarios/*.yaml testdata/clusters/*.yaml testdata/wire/cluster.yaml; do
  case $f in *unreadable-nodes*) continue;; esac
  n=$(basename "$(dirname "$f")")-$(basename "$f" .yaml)
  echo "check-$n|check -o json --from $f"
  echo "pools-$n|explain pools -o json --from $f"
done
for d in healthy trap; do
  echo "check-demo-$d|check -o json --demo $d"
  echo "spof-demo-$d|check --spof -o json --demo $d"
  echo "history-demo-$d|history -o json --demo $d"
done
echo "explain-jellyfin-trap|explain svc jellyfin -n media -o json --demo trap"
echo "simulate-down-worker-a|simulate --down worker-a -o json --from testdata/clusters/homelab.yaml"
echo "simulate-apply-fix|simulate --apply testdata/simulate/l2-workers.yaml -o json --from testdata/clusters/homelab-trap.yaml"
echo "history-logs|history -o json --from testdata/history/cluster.yaml --logs testdata/history/logs"
echo "check-nodes-all-demo-trap|check -o json --nodes all --demo trap"
echo "check-nodes-all-bgp-two-routers|check -o json --nodes all --from testdata/scenarios/bgp-two-routers.yaml"
