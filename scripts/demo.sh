#!/usr/bin/env bash
# The main job on the default server: installs what is missing, builds psbench, then runs
# the default study (pfs-overhead: the cost of performance_schema on the system's MariaDB,
# about 8 minutes after set-up on 2 cores) and prints its tables. Extra arguments go to `psbench run`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec "${CARGO_TARGET_DIR:-target}/release/psbench" run "$@"
