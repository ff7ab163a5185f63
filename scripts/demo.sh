#!/usr/bin/env bash
# The main job on the embedded default: installs what is missing, builds psbench, then
# starts a sandbox of the system's MariaDB with performance_schema on, checks that the
# setting took effect, and stops it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
PSB=target/release/psbench
export PSBENCH_HOME="${PSBENCH_HOME:-$PWD/psbench-out/home}"

$PSB sandbox start --name demo --fresh --option performance_schema=ON
SOCK="$PSBENCH_HOME/sandboxes/demo/run/mysqld.sock"
trap '$PSB sandbox stop demo >/dev/null' EXIT
mariadb --no-defaults -uroot -S "$SOCK" -t -e "
  SELECT VERSION() AS version, @@performance_schema AS performance_schema;
  SELECT COUNT(*) AS instruments, SUM(ENABLED='YES') AS enabled, SUM(TIMED='YES') AS timed
    FROM performance_schema.setup_instruments;"
