#!/usr/bin/env bash
# The seed's three experiments at lab scale, on the TokuDB lab (MariaDB
# 10.5.23 with TokuDB on master, slave1 and slave2; semi-sync AFTER_SYNC to
# both slaves), each ending with its answer:
#   1. sysbench pure random writes, InnoDB vs TokuDB with the seed's own
#      profiles (not equally durable: InnoDB =2 writes its log at each
#      commit, TokuDB keeps it in the server until its fsync every 1000 ms,
#      commit_sync=ON notwithstanding; the plan says so, --allow-asymmetry);
#   2. the same question asked fairly: both engines write and sync their
#      logs about once a second (InnoDB =0, TokuDB every 1000 ms), which
#      also keeps the TokuDB replicas' applied position (InnoDB's
#      mysql.gtid_slave_pos) from an fsync per transaction;
#   3. mysqlslap's auto-generated write load (100 clients, 5 iterations,
#      an auto-increment key), its million writes scaled down by SEED_SLAP_QUERIES;
#   4. PerconaFT's db-insert, fractal tree vs Berkeley DB, built on the
#      master from SEED_DBI_SOURCE, at a size where the difference shows in
#      minutes (a stated 64 MiB --cachesize).
# The server tree comes from ORCH_LAB_SERVER_ARCHIVE (or --server-archive),
# else ../shared/prebuilt's archive when it is there, else the cache, else a
# build from Debian bullseye's source package (15-30 min, once). The lab
# stays up at the end (orch lab down removes it).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=./bin/orch
INV=${SEED_INVENTORY:-inventories/lab.yaml}
RUNS=${SEED_RUNS:-runs/seed}
REPEAT=${SEED_REPEAT:-3}
SLAP_QUERIES=${SEED_SLAP_QUERIES:-20000}
DBI_SOURCE=${SEED_DBI_SOURCE:-../shared/prebuilt/perconaft-f85cba7e8-src.tar.zst}
archive=${ORCH_LAB_SERVER_ARCHIVE:-}
prebuilt=../shared/prebuilt/mariadb-10.5.23-tokudb-linux-x86_64.tar.zst
if [ -z "$archive" ] && [ -f "$prebuilt" ]; then
  archive=$prebuilt
fi

start=$SECONDS
step() { echo "== seed: $1 ($((SECONDS - start)) s so far)"; }
answers=()
answer() { # TITLE MATRIX-OUTPUT-FILE: keep the matrix's answer lines
  answers+=("$1:" "$(awk '/^answer:/ {on=1; next} on && /^  / {print} on && !/^  / {on=0}' "$2")")
}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

step "lab up (TokuDB)"
$BIN lab up --flavor tokudb ${archive:+--server-archive "$archive"} --inventory "$INV"
step "check"
$BIN check -i "$INV"
step "up (TokuDB profile, semi-sync AFTER_SYNC proven)"
$BIN up -i "$INV" --engine tokudb

sysbench=(--workload pure-random-writes --tables 4 --threads 16 --time 15 --table-size 100000 --warmup 3 --repeat "$REPEAT")
step "1. sysbench, the seed's profiles"
$BIN matrix -i "$INV" --engines=innodb,tokudb "${sysbench[@]}" --runs "$RUNS/sysbench" --allow-asymmetry | tee "$out/1"
answer "sysbench, the seed's profiles (InnoDB =2 vs TokuDB's log synced every 1000 ms)" "$out/1"
step "2. sysbench, equally durable"
$BIN matrix -i "$INV" --engines=innodb,tokudb "${sysbench[@]}" --runs "$RUNS/sysbench-fair" \
  --knobs 'innodb_flush_log_at_trx_commit=0;tokudb_commit_sync=OFF;tokudb_fsync_log_period=1000' | tee "$out/2"
answer "sysbench, both logs synced once a second" "$out/2"
step "3. mysqlslap"
$BIN matrix -i "$INV" --engines=innodb,tokudb --workload mysqlslap-write --repeat "$REPEAT" --runs "$RUNS/mysqlslap" \
  --set "number_of_queries=$SLAP_QUERIES" --allow-asymmetry | tee "$out/3"
answer "mysqlslap write, $SLAP_QUERIES writes by 100 clients" "$out/3"
if [ -e "$DBI_SOURCE" ]; then
  step "4. db-insert (building PerconaFT's programs on the master)"
  $BIN dbinsert -i "$INV" --source "$DBI_SOURCE"
  $BIN matrix -i "$INV" --workload db-insert --engines=tokudb,bdb --repeat "$REPEAT" --runs "$RUNS/db-insert" \
    --iterations 4 --set batch_size=262144 --set cache_size=67108864 | tee "$out/4"
  answer "db-insert, fractal tree vs Berkeley DB (64 MiB cache)" "$out/4"
else
  echo "== seed: no PerconaFT source at $DBI_SOURCE (SEED_DBI_SOURCE): db-insert left out"
fi
step "done"
echo
echo "The seed's answers (reports under $RUNS/*/latest):"
printf '%s\n' "${answers[@]}"
echo "took $((SECONDS - start)) s; orch lab down removes the lab"
