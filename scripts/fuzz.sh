#!/usr/bin/env bash
# A long fuzz campaign over the CLI (issue 12): builds the CLI, the plugins and the fuzz driver,
# then runs N mutated studies (default 5000). Usage: scripts/fuzz.sh [N] [SEED]
# Reproducers of defects land in build/fuzz_defects/<class>/.
set -euo pipefail
N=${1:-5000}
SEED=${2:-12}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD" -j"$(nproc)"
rm -rf "$BUILD/fuzz_defects"
DALEMBERT_FUZZ_CASES=$N DALEMBERT_FUZZ_SEED=$SEED "$BUILD/bin/test_fuzz" "[fuzz]"
echo "reproducers (if any): $BUILD/fuzz_defects"
