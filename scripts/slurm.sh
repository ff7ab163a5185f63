#!/usr/bin/env bash
# A private one-node Slurm cluster for tests/suite/slurm_shards.rs (docs/sharding.md's job array
# under a real Slurm), from Debian's slurmctld, slurmd, slurm-client and munge (bash
# scripts/setup.sh installs them). Needs root: slurmd runs jobs as their submitter.
#
#   eval "$(bash scripts/slurm.sh start [DIR])"   # prints: export SLURM_CONF=DIR/slurm.conf
#   bash scripts/slurm.sh stop [DIR]             # stops the daemons start started, by pid
#
# DIR (default $PSBENCH_SLURM_DIR, else /run/psbench-slurm) holds everything: slurm.conf,
# state, spool, logs, a munge key and munged's socket, so nothing collides with a system
# Slurm or munged. Its ports are chosen free at start. One node stands in for one per
# array task: a task prolog sets PSBENCH_HOST_NAME to NODE-task<ID>, so that shards merged
# from one machine still show as hosts in the report's Hosts table.
set -euo pipefail

usage() { echo "usage: $0 start|stop [DIR]" >&2; exit 2; }
[ $# -ge 1 ] || usage
cmd=$1
dir=${2:-${PSBENCH_SLURM_DIR:-/run/psbench-slurm}}
conf="$dir/slurm.conf"
pids="$dir/pids"
say() { echo "slurm.sh: $*" >&2; }

# A pid's start time (field 22 of /proc/PID/stat): a pid recorded with it is never a
# later process that reused the number.
started() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
  stat=${stat##*) }
  echo "$stat" | cut -d' ' -f20
}

# Pids recorded in $pids whose process is still the one started, last started first.
live() {
  [ -f "$pids" ] || return 0
  while read -r name pid start; do
    if [ "$(started "$pid")" = "$start" ]; then echo "$name $pid"; fi
  done < <(tac "$pids")
}

stop() {
  local name pid left i
  while read -r name pid; do
    [ -n "$pid" ] || continue
    say "stopping $name (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
  done < <(live)
  for i in $(seq 1 100); do
    left=$(live)
    [ -n "$left" ] || break
    sleep 0.1
  done
  while read -r name pid; do
    [ -n "$pid" ] || continue
    say "$name (pid $pid) did not stop in 10 s: SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  done < <(live)
  rm -f "$pids"
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("", 0)); print(s.getsockname()[1])'
}

# Starts a daemon in the foreground of its own session (a ^C to the caller does not reach
# it) and records its pid: setsid and setpriv exec, so $! is the daemon's own.
launch() {
  local name=$1
  shift
  setsid "$@" </dev/null >>"$dir/log/$name.out" 2>&1 &
  local pid=$!
  sleep 0.2
  local start
  start=$(started "$pid")
  if [ -z "$start" ]; then
    say "$name exited at once: $(tail -q -n 5 "$dir/log/$name.out" "$dir/log/$name.log" 2>/dev/null)"
    stop
    exit 1
  fi
  echo "$name $pid $start" >>"$pids"
}

# Waits up to $1 seconds for the command after it to succeed.
until_ok() {
  local secs=$1 i
  shift
  for i in $(seq 1 $((secs * 5))); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.2
  done
  return 1
}

start() {
  if [ "$(id -u)" -ne 0 ]; then say "needs root (slurmd runs jobs as their submitter)"; exit 1; fi
  for prog in /usr/sbin/slurmctld /usr/sbin/slurmd /usr/sbin/munged /usr/bin/sbatch /usr/bin/sinfo; do
    if [ ! -x "$prog" ]; then
      say "$prog is missing: bash scripts/setup.sh installs slurmctld slurmd slurm-client munge"
      exit 1
    fi
  done
  if [ -n "$(live)" ]; then say "already running in $dir: $(live | tr '\n' ' ')"; exit 1; fi
  local node cpus ctld_port slurmd_port
  node=$(hostname -s)
  cpus=$(nproc)
  ctld_port=$(free_port)
  slurmd_port=$(free_port)
  while [ "$slurmd_port" = "$ctld_port" ]; do slurmd_port=$(free_port); done

  # A fresh cluster each start: no jobs recovered from an earlier one.
  rm -rf "$dir/state" "$dir/spool" "$dir/log" "$pids"
  mkdir -p "$dir/state" "$dir/spool" "$dir/log" "$dir/munge" "$dir/munge-socket"
  chmod 755 "$dir"
  # munged wants its key private and its socket's directory open to all (but writable only
  # by munge).
  chown munge:munge "$dir/munge" "$dir/munge-socket"
  chmod 700 "$dir/munge"
  chmod 755 "$dir/munge-socket"
  if [ ! -f "$dir/munge/munge.key" ]; then
    setpriv --reuid=munge --regid=munge --init-groups mungekey --create --keyfile="$dir/munge/munge.key"
  fi
  local socket="$dir/munge-socket/munge.socket"

  cat >"$dir/task-prolog.sh" <<'EOF'
#!/bin/sh
# One node stands in for one per array task (scripts/slurm.sh).
if [ -n "${SLURM_ARRAY_TASK_ID:-}" ]; then
  echo "export PSBENCH_HOST_NAME=$(hostname -s)-task$SLURM_ARRAY_TASK_ID"
fi
exit 0
EOF
  chmod 755 "$dir/task-prolog.sh"

  cat >"$conf" <<EOF
# Written by scripts/slurm.sh: a private one-node cluster.
ClusterName=psbench
SlurmctldHost=$node
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
ReturnToService=2
# A job whose dependency can no longer be met is cancelled, not left pending: an
# "sbatch --wait" on it then ends.
SchedulerParameters=kill_invalid_depend
TaskProlog=$dir/task-prolog.sh
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
NodeName=$node CPUs=$cpus State=UNKNOWN
PartitionName=main Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF="$conf"

  launch munged setpriv --reuid=munge --regid=munge --init-groups /usr/sbin/munged --foreground \
    --socket="$socket" --key-file="$dir/munge/munge.key" --pid-file="$dir/munge/munged.pid" \
    --seed-file="$dir/munge/munged.seed" --log-file="$dir/munge/munged.log"
  if ! until_ok 10 sh -c "munge -n -S '$socket' | unmunge -S '$socket'"; then
    say "munged does not answer on $socket: $(tail -n 5 "$dir/log/munged.out" 2>/dev/null)"
    stop
    exit 1
  fi
  launch slurmctld /usr/sbin/slurmctld -D -f "$conf"
  if ! until_ok 30 scontrol ping; then
    say "slurmctld does not answer: $(tail -n 5 "$dir/log/slurmctld.log" 2>/dev/null)"
    stop
    exit 1
  fi
  launch slurmd /usr/sbin/slurmd -D -f "$conf"
  if ! until_ok 60 sh -c '[ "$(sinfo -h -N -o %t)" = idle ]'; then
    say "the node is not idle after 60 s: $(sinfo -N 2>&1 | tail -n 1); $(tail -n 5 "$dir/log/slurmd.log" 2>/dev/null)"
    stop
    exit 1
  fi
  say "node $node idle ($cpus CPUs; slurmctld port $ctld_port, slurmd port $slurmd_port); pids: $(cut -d' ' -f1,2 "$pids" | tr '\n' ' ')"
  echo "export SLURM_CONF=$conf"
}

# Root writes, chowns and kills by what DIR holds: it must be root's own directory, not a link.
if [ -L "$dir" ] || { [ -e "$dir" ] && [ "$(stat -c %u "$dir")" != 0 ]; }; then
  say "$dir is a link or not root's: choose another DIR"
  exit 1
fi

case "$cmd" in
  start) start ;;
  stop) stop ;;
  *) usage ;;
esac
