#!/usr/bin/env bash
# make soak: the headline workload at its real settings (pure-random-writes:
# sysbench oltp_insert, 8 tables, 128 threads) for SOAK_TIME seconds (600 by
# default) on the running lab, monitored throughout. It prints the run's
# summary, the client errors and orch's peak RSS. Not part of make test.
set -euo pipefail
cd "$(dirname "$0")/.."
inv=${LAB_INV:-inventories/lab.yaml}
t=${SOAK_TIME:-600}
[ -f "$inv" ] || { echo "soak: no lab ($inv): run make lab-up" >&2; exit 2; }
runs=$(mktemp -d "${TMPDIR:-/tmp}/orch-soak.XXXXXXXX")
log="$runs/orch.stderr"
echo "soak: pure-random-writes, 8 tables, 128 threads, ${t}s; run directory under $runs"
status=0
/usr/bin/time -v ./bin/orch run -i "$inv" --workload pure-random-writes --time "$t" --runs "$runs" \
  2> >(tee "$log" >&2) || status=$?
sleep 1
dir=$(find "$runs" -mindepth 1 -maxdepth 1 -type d | head -1)
echo "soak: exit $status; run directory $dir"
if [ -n "$dir" ] && [ -f "$dir/results.json" ]; then
  python3 - "$dir/results.json" <<'PY' || true
import json, sys
r = json.load(open(sys.argv[1]))
b = r.get("benchmark") or r.get("result") or {}
print("soak: tps %s, errors %s, reconnects %s, complete %s" % (b.get("tps"), b.get("errors"), b.get("reconnects"), b.get("complete")))
PY
fi
grep -E 'Maximum resident set size|Elapsed \(wall clock\)' "$log" | sed 's/^\s*/soak: orch /'
exit "$status"
