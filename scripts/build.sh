#!/usr/bin/env bash
# Installs what is missing, then configures and builds dalembert in Release into ./build.
# usage: scripts/build.sh [TARGET ...]   (default: everything, tests and benchmarks included;
#        scripts/reproduce.sh builds only dalembert_runtime: the CLI and the bundled plugins)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
echo "dalembert: building ${*:-everything} in $root/build ($(nproc) jobs)"
cmake --build "$root/build" -j"$(nproc)" ${1:+--target "$@"}
