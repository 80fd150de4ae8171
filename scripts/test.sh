#!/usr/bin/env bash
# The test suite: lint, unit tests, then the integration tests against a real
# local lab (four hosts in namespaces), which is always torn down at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

# The suite uses machine-wide resources (the labs' subnets, /var/lib/orch-lab),
# so a second run on the same machine waits for the first instead of colliding.
# flock -o keeps the lock out of the lab daemons the run starts: it is released
# when this run ends, however it ends.
lock=/run/orch-test.lock
if [ -z "${ORCH_TEST_LOCKED:-}" ]; then
  flock -n -o "$lock" true || echo "== another test run on this machine holds $lock; waiting for it"
  exec env ORCH_TEST_LOCKED=1 flock -o "$lock" "$PWD/scripts/test.sh" "$@"
fi
export PATH="$PATH:/usr/local/go/bin"
GO=${GO:-go}

# Each phase's start, and at the end (however it ends) the time each took,
# with make test's package installation (ORCH_DEPS_S): CI shows the tail.
phases=()
phase() { # SHORT-NAME [HEADING]
  phases+=("$SECONDS $1")
  echo "== ${2:-$1}"
}
phase_times() {
  local out="== times: packages ${ORCH_DEPS_S:-?}s" prev="" name="" t
  for p in "${phases[@]}" "$SECONDS end"; do
    t=${p%% *}
    [ -n "$prev" ] && out+=", $name $((t - prev))s"
    prev=$t name=${p#* }
  done
  echo "$out (total ${SECONDS}s after the packages)"
}
trap phase_times EXIT

phase lint
make -s lint

phase build
make -s build

# The MySQL lab's Debian sid tree (TestMySQLLab) is built, once per machine,
# while the unit tests run: debootstrap into the cache, no lab subnet or
# namespace. About 2-4 minutes the first time, a stamp check after.
tree_log=$(mktemp)
./bin/orch lab tree --flavor mysql >"$tree_log" 2>&1 &
tree_pid=$!

phase unit
# The report's browser checks (headless Chromium) and the history's MariaDB store
# test (a private mariadbd of the lab's packages) fail rather than skip here.
ORCH_REQUIRE_BROWSER=1 ORCH_REQUIRE_MARIADB=1 $GO test -count=1 ./...

phase tree "the MySQL lab's tree"
if ! wait "$tree_pid"; then
  cat "$tree_log"
  echo "== building the MySQL lab's tree failed"
  exit 1
fi
cat "$tree_log"
rm -f "$tree_log"

phase lab-own "the lab's own integration test (a separate lab on another subnet)"
ORCH_LAB=1 $GO test -count=1 -timeout 15m -run Integration -v ./lab/

phase lab-up "lab up"
integ_log=$(mktemp)
lab_down() {
  echo "== lab down"
  ./bin/orch lab down --inventory inventories/lab.yaml || true
  # The why of failed integration tests, last, where CI's excerpt is.
  awk -f scripts/failure-digest.awk "$integ_log" | head -n 200
  rm -f "$integ_log"
  phase_times
}
trap lab_down EXIT
./bin/orch lab up --inventory inventories/lab.yaml

phase integration "integration tests"
ORCH_LAB_INVENTORY="$PWD/inventories/lab.yaml" ORCH_BIN="$PWD/bin/orch" ORCH_REQUIRE_LAB=1 \
  $GO test -count=1 -timeout 55m -v ./integration/... 2>&1 | tee "$integ_log"

phase package-lab "package lab tests on the same lab, one package at a time"
# One variable runs every package's lab tests (orchestrator/labenv); under
# ORCH_REQUIRE_LAB a lab test that cannot run fails instead of skipping.
# The dataset and flavor lab tests expect a cluster wired by orch up.
./bin/orch up -i inventories/lab.yaml --engine innodb >/dev/null
# Only the packages that have lab tests (they use labenv): the others' tests
# ran in the unit tests above.
lab_pkgs=$(grep -rl --include='*_test.go' 'labenv\.' orchestrator | xargs -n1 dirname | sort -u | sed 's|^|./|')
ORCH_TEST_LAB_INVENTORY="$PWD/inventories/lab.yaml" ORCH_TEST_LAB_STATE_DIR=/var/lib/orch-lab ORCH_REQUIRE_LAB=1 \
  $GO test -count=1 -p 1 -timeout 15m $lab_pkgs
