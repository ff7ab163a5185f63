#!/usr/bin/env bash
# Soak: 64 client threads for 10 minutes against a sandbox, printing psbench's RSS every
# minute. Memory must not grow with the run's length (per-interval histograms are recycled).
#   bash bench/soak.sh [threads] [minutes]
set -euo pipefail
cd "$(dirname "$0")/.."
THREADS=${1:-64}
MINUTES=${2:-10}
PSB=target/release/psbench
export PSBENCH_HOME=$(mktemp -d /tmp/psb-soak.XXXXXX)
chmod 711 "$PSBENCH_HOME"  # run as root, the server's account must reach its sandbox
trap '$PSB sandbox stop soak >/dev/null 2>&1 || true; rm -rf "$PSBENCH_HOME"' EXIT
$PSB sandbox start --name soak --option max_connections=200 >/dev/null
SOCK=$PSBENCH_HOME/sandboxes/soak/run/mysqld.sock
CONN=(--mysql-socket="$SOCK" --mysql-user=root --mysql-db=sbtest)
$PSB bench oltp_read_only prepare "${CONN[@]}" --threads 2 >/dev/null
$PSB bench oltp_read_only run "${CONN[@]}" --threads "$THREADS" --time $((MINUTES * 60 + 30)) >/dev/null &
PID=$!
echo "minute  psbench RSS (MiB)"
for m in $(seq 1 "$MINUTES"); do
  sleep 60
  rss=$(awk '/^VmRSS/ {printf "%.1f", $2 / 1024}' /proc/$PID/status 2>/dev/null || echo gone)
  printf '%6d  %8s\n' "$m" "$rss"
done
wait $PID
