#!/usr/bin/env bash
# Installs what the local lab and orch's tests need on a Debian 12 machine (root).
set -euo pipefail
pkgs=(
  openssh-server openssh-client          # each lab host's sshd; the ssh client for benchmarks
  mariadb-server mariadb-client          # MariaDB 10.11 server and clients (mariadb-slap)
  mariadb-plugin-rocksdb                 # MyRocks
  sysbench                               # sysbench 1.0.20
  sudo openssl                           # the lab's password+sudo user
  iproute2 iputils-ping util-linux procps # namespaces, veths, nsenter/unshare, ping
  debootstrap systemd-container          # the systemd lab: its Debian tree, systemd-nspawn
  gdb linux-perf                         # stack samples of the servers (--stacks)
  time python3                           # make soak: orch's peak RSS, the run's figures
  libjemalloc2 zstd                      # the TokuDB lab: jemalloc preloaded into mariadbd, its server archive
  cmake build-essential zlib1g-dev       # orch dbinsert: PerconaFT's fractal-tree library and db-insert
  libdb5.3-dev                           # db-insert-bdb (Berkeley DB 5.3)
)
# With --test, also what the test suite needs beyond the lab: Debian's
# chromium renders the HTML report headless in a browser test, and pandas
# reads the report's CSVs as an analyst would.
if [ "${1:-}" = "--test" ]; then
  pkgs+=(chromium python3-pandas)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "lab-deps: all packages present"
  exit 0
fi
echo "lab-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "lab-deps: done"
