#!/usr/bin/env bash
# A long fuzz campaign over the CLI (issue 12): builds the CLI, the plugins and the fuzz driver,
# then runs N mutated studies (default 5000). Usage: scripts/fuzz.sh [N] [SEED]
#   scripts/fuzz.sh --params [SEED]: every declared parameter of every plugin at each of its
#   extreme values instead (issue 26; ~2000 cases, 3-8 min).
# Reproducers of defects land in build/fuzz_defects/<class>/ (parameter cases: params_<class>/).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD" -j"$(nproc)"
rm -rf "$BUILD/fuzz_defects"
if [[ ${1:-} == --params ]]; then
  DALEMBERT_FUZZ_PARAMS=all DALEMBERT_FUZZ_SEED=${2:-12} \
    "$BUILD/bin/test_fuzz" "fuzz: every declared parameter of every plugin at its limits"
else
  DALEMBERT_FUZZ_CASES=${1:-5000} DALEMBERT_FUZZ_SEED=${2:-12} \
    "$BUILD/bin/test_fuzz" "fuzz: mutated studies give a one-line error or a valid complete folder"
fi
echo "reproducers (if any): $BUILD/fuzz_defects"
