# Sourced by setup.sh and setup-tests.sh: what is missing, and each change to the host
# printed before it is made, or with --dry-run printed instead of made. Nothing here
# enables, disables, starts or stops a service.
#   SAYS   the prefix of every line (setup, setup-tests)
#   DRY    true with --dry-run

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

# Whether dpkg has PACKAGE installed.
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"; }

# Whether a program is on the PATH.
have() { command -v "$1" >/dev/null 2>&1; }

# change "WHAT" COMMAND…: says WHAT, then runs the command (with --dry-run: says it would).
change() {
  local what=$1
  shift
  if $DRY; then
    echo "$SAYS: would $what"
  else
    echo "$SAYS: $what"
    "$@"
  fi
}

# apt_install PACKAGE…: installs them, apt's lists updated once. Packages that bring a
# service (MariaDB's and PostgreSQL's servers) are installed with a policy-rc.d in place, so
# (and Slurm's daemons and munge, for the tests) that apt starts none; psbench runs its own
# sandboxes. Dpkg may still enable such a service
# for boot, as it does for any install, and set-up leaves that as it is.
apt_install() {
  [ $# -gt 0 ] || return 0
  local services=false p
  for p in "$@"; do
    case $p in mariadb-server | postgresql | postgresql-[0-9]* | slurmctld | slurmd | munge) services=true ;; esac
  done
  local note=""
  if $services && [ ! -e /usr/sbin/policy-rc.d ]; then
    note=" (apt starts no service meanwhile: /usr/sbin/policy-rc.d in place during the install)"
  fi
  if $DRY; then
    echo "$SAYS: would install with apt: $*$note"
    return 0
  fi
  echo "$SAYS: installing with apt: $*$note"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q >/dev/null
  if [ -n "$note" ]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
    $SUDO chmod +x /usr/sbin/policy-rc.d
    trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  $SUDO apt-get install -y -q --no-install-recommends "$@" >/dev/null
  if [ -n "$note" ]; then
    $SUDO rm -f /usr/sbin/policy-rc.d
    trap - EXIT
  fi
}

# psbench's cache, as psbench itself finds it.
psbench_cache() {
  if [ -n "${PSBENCH_CACHE:-}" ]; then echo "$PSBENCH_CACHE"
  elif [ -n "${XDG_CACHE_HOME:-}" ]; then echo "$XDG_CACHE_HOME/psbench"
  elif [ "$(id -u)" -eq 0 ]; then echo /var/cache/psbench
  else echo "$HOME/.cache/psbench"; fi
}
