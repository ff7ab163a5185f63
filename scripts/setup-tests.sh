#!/usr/bin/env bash
# What only psbench's tests need, beyond scripts/setup.sh's (the test command runs both),
# each change to the host printed:
#   packages   with apt, only those missing: chromium (the report tests open the HTML report
#              in it), python3 (bench/), python3-jsonschema (the Bencher Metric Format export
#              checked against its schema), golang-go (builds actionlint), and Slurm's
#              slurmctld, slurmd, slurm-client and munge (tests/suite/slurm_shards.rs runs a private
#              one-node cluster with scripts/slurm.sh, its own munged and ports)
#   units      of those Slurm and munge packages this run installed itself, disabled for boot
#              (apt started none); units of packages that were there before are left alone
#   cache      in psbench's cache: the releases and sources the tests use, and actionlint
# Uses sudo only when not root.
#   bash scripts/setup-tests.sh [--dry-run]
set -euo pipefail
cd "$(dirname "$0")/.."
SAYS=setup-tests
DRY=false
case "${1:-}" in
  --dry-run) DRY=true ;;
  "") ;;
  *) echo "usage: bash scripts/setup-tests.sh [--dry-run]" >&2; exit 2 ;;
esac
# shellcheck source=host.sh
. scripts/host.sh

need=()
{ installed chromium || have chromium; } || need+=(chromium)
{ installed python3 || have python3; } || need+=(python3)
installed python3-jsonschema || need+=(python3-jsonschema)
{ installed golang-go || have go; } || need+=(golang-go)
slurm=()
for pkg in slurmctld slurmd slurm-client munge; do installed "$pkg" || slurm+=("$pkg"); done
need+=("${slurm[@]}")
if [ ${#need[@]} -gt 0 ]; then
  apt_install "${need[@]}"
else
  echo "$SAYS: every package the tests need is installed"
fi
# Only the units of Slurm packages installed just now: a compute node's own slurmd and munge
# were there before and stay as they were.
for pkg in "${slurm[@]}"; do
  case $pkg in slurmctld | slurmd | munge) ;; *) continue ;; esac
  if have systemctl; then
    change "disable the unit $pkg.service, installed just now (scripts/slurm.sh runs its own)" \
      sh -c "$SUDO systemctl disable $pkg >/dev/null 2>&1 || true"
  fi
done

target=${CARGO_TARGET_DIR:-$PWD/target}
psbench="$target/release/psbench"
cache=$(psbench_cache)
# The releases the tests and built-in studies use: the tests fetch nothing themselves, and
# skip (saying so here) only what could not be fetched.
for release in "mariadb 11.4.5" "mysql 5.7.22" "mysql 8.0.15" "postgres 17.2.0"; do
  name="${release/ /-}"
  [ -d "$cache/$name" ] && continue
  if $DRY; then echo "$SAYS: would fetch $release into $cache"; continue; fi
  echo "$SAYS: fetching $release into $cache"
  # shellcheck disable=SC2086
  if ! out=$("$psbench" fetch $release 2>&1 >/dev/null); then
    echo "$SAYS: could not fetch $release; the tests that need it will skip: $(printf '%s' "$out" | tail -n 1)"
  fi
done
# The sources the build tests configure, from Debian through psbench's own apt sources lists:
# the installed PostgreSQL 15's, MariaDB 10.11.18 (bookworm's; the installed 10.11.19 is a
# security update whose source files the mirror here did not serve, 2026-11-26) and MySQL
# 9.7.2 (unstable's, 429 MB, pinned; once unstable has dropped it, the newest 9.7 it serves).
source_dir() { echo "$cache/sources/${1#*:}" | sed 's/=\([0-9]*:\)\{0,1\}/_/'; }
for source in "postgres debian:postgresql-15" "mariadb debian:mariadb=1:10.11.18-0+deb12u1" "mysql debian:mysql-9.7=9.7.2-4"; do
  engine=${source%% *} spec=${source#* }
  case $spec in *=*) [ -f "$(source_dir "$spec")/tree/.unpacked" ] && continue ;; esac
  if $DRY; then echo "$SAYS: would fetch the source $spec into $cache/sources, unless it is there"; continue; fi
  before=$(ls "$cache/sources" 2>/dev/null || true)
  if out=$("$psbench" build "$engine" "$spec" --source-only 2>&1 >/dev/null); then
    [ "$(ls "$cache/sources" 2>/dev/null || true)" = "$before" ] || echo "$SAYS: fetched the source $spec into $cache/sources"
  else
    if [ "$engine" = mysql ] && "$psbench" build mysql debian:mysql-9.7 --source-only >/dev/null 2>&1; then
      echo "$SAYS: $spec is not served any more; fetched the newest mysql-9.7 instead"
    else
      echo "$SAYS: could not fetch the source $spec; the tests that need it will skip: $(printf '%s' "$out" | tail -n 1)"
    fi
  fi
done

# actionlint (tests/suite/ci_recipe.rs lints docs/ci.md's GitHub workflows with it): built with Go
# into psbench's cache (tools/), not onto the PATH. v1.7.7 is the newest release Debian 12's Go
# (1.19) builds; later ones need Go 1.24 or newer.
actionlint_version=v1.7.7
tools="$cache/tools"
# (grep without -q reads all the output: no SIGPIPE to fail the pipeline.)
if ! "$tools/actionlint" -version 2>/dev/null | grep -x "$actionlint_version" >/dev/null; then
  if $DRY; then
    echo "$SAYS: would build actionlint $actionlint_version into $tools"
  else
    echo "$SAYS: building actionlint $actionlint_version into $tools"
    if ! out=$(GOBIN="$tools" go install "github.com/rhysd/actionlint/cmd/actionlint@$actionlint_version" 2>&1); then
      echo "$SAYS: could not build actionlint; the test that needs it will skip: $(printf '%s' "$out" | tail -n 1)"
    fi
  fi
fi
if $DRY; then echo "$SAYS: --dry-run: nothing was changed"; else echo "$SAYS: done"; fi
