#!/usr/bin/env bash
# Installs what psbench's studies need on Debian (only what is missing), builds psbench and
# puts it on the PATH, printing each change it makes to the host:
#   packages   with apt, only those missing:
#              mariadb-server, mariadb-client  the default server (run in a sandbox, never as
#                                              the service)
#              postgresql                      PostgreSQL 15 with pgbench (sandboxed too)
#              sysbench                        the reference psbench's workloads match
#              valgrind, linux-perf            cost mode (instructions) and profiles
#              maven                           psbench fetch: releases from Maven Central
#              the build tools and libraries   psbench build (and Rust's linker): gcc, g++,
#                                              make, cmake, ninja-build, bison, flex, ccache,
#                                              pkg-config, dpkg-dev, systemtap-sdt-dev, and
#                                              the -dev packages of OpenSSL, PCRE2, fmt, zlib,
#                                              ncurses and libaio, and SQLite's (psbench's
#                                              history)
#   account    psbench, unprivileged: servers run as it when psbench runs as root
#   Rust       with rustup into ~/.cargo and ~/.rustup, when cargo is missing
#   psbench    built into target/ (or $CARGO_TARGET_DIR), crates into ~/.cargo
#   link       /usr/local/bin/psbench to that build
# It never enables, disables, starts or stops a system service: the servers' packages are
# installed with apt starting none. The tests' own extras (Chromium, Slurm, Go, fetched
# releases) are scripts/setup-tests.sh's. Uses sudo only when not root.
#   bash scripts/setup.sh [--dry-run]    --dry-run: print the changes, make none
set -euo pipefail
cd "$(dirname "$0")/.."
SAYS=setup
DRY=false
case "${1:-}" in
  --dry-run) DRY=true ;;
  "") ;;
  *) echo "usage: bash scripts/setup.sh [--dry-run]" >&2; exit 2 ;;
esac
# shellcheck source=host.sh
. scripts/host.sh

need=()
{ installed mariadb-server || [ -x /usr/sbin/mariadbd ]; } || need+=(mariadb-server)
{ installed mariadb-client || have mariadb; } || need+=(mariadb-client)
{ installed postgresql || compgen -G "/usr/lib/postgresql/*/bin/postgres" >/dev/null; } || need+=(postgresql)
for pkg in sysbench valgrind linux-perf maven \
  gcc g++ libc6-dev make cmake ninja-build bison flex ccache pkg-config dpkg-dev systemtap-sdt-dev \
  libssl-dev libpcre2-dev libfmt-dev zlib1g-dev libncurses-dev libaio-dev libsqlite3-dev; do
  installed "$pkg" || need+=("$pkg")
done
if ! have cargo && [ -f "$HOME/.cargo/env" ]; then . "$HOME/.cargo/env"; fi
if ! have cargo; then
  for pkg in curl ca-certificates; do installed "$pkg" || need+=("$pkg"); done
fi
if [ ${#need[@]} -gt 0 ]; then
  apt_install "${need[@]}"
else
  echo "$SAYS: every package it needs is installed"
fi

if ! id psbench >/dev/null 2>&1; then
  change "create the unprivileged account psbench (servers run as it when psbench runs as root)" \
    $SUDO useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin psbench
fi

if ! have cargo; then
  change "install Rust with rustup into $HOME/.cargo and $HOME/.rustup" \
    sh -c "curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal -c clippy,rustfmt >/dev/null"
  $DRY || . "$HOME/.cargo/env"
fi

target=${CARGO_TARGET_DIR:-$PWD/target}
# Called by the test command, build the tests too, in the same cargo run: a test build turns on
# features of shared crates (the dev-dependencies'), and a plain build first would compile
# psbench a second time for them.
if [ "${PSBENCH_SETUP_TESTS:-}" = 1 ]; then
  change "build psbench and its tests (release) into $target, crates into ${CARGO_HOME:-$HOME/.cargo}" \
    cargo test --release --quiet --no-run
else
  change "build psbench (release) into $target, crates into ${CARGO_HOME:-$HOME/.cargo}" \
    cargo build --release --quiet
fi
# psbench on the PATH: a link to this checkout's build, so that every example in the README
# runs as written from any directory (and a rebuild is picked up).
if [ "$(readlink /usr/local/bin/psbench 2>/dev/null || true)" != "$target/release/psbench" ]; then
  change "link /usr/local/bin/psbench -> $target/release/psbench" \
    $SUDO ln -sfn "$target/release/psbench" /usr/local/bin/psbench
fi

if $DRY; then
  echo "$SAYS: --dry-run: nothing was changed"
else
  echo "$SAYS: done ($(/usr/sbin/mariadbd --version | sed 's/.*Ver \([^ ]*\).*/mariadbd \1/'), $(sysbench --version), $(cargo --version | cut -d' ' -f1-2))"
fi
