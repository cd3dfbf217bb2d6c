#!/usr/bin/env bash
# Builds dalembert with sanitizers (CMakePresets.json) and runs it; any sanitizer report fails.
#
#   scripts/sanitize.sh [asan|tsan|all] [--ci]
#
#   asan  build-asan/ (ASan + UBSan on every target): the whole CTest suite.
#   tsan  build-tsan/ (TSan on every target): an ensemble and a sweep study through the CLI at
#         --threads 2 (tests/sanitizers/tsan_*.json); suppressions: tests/sanitizers/tsan.supp.
#   all   both (the default).
#   --ci  asan runs only the CI subset (see ci_labels below), to fit the CI time budget.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"  # cmake --preset reads ./CMakePresets.json
mode=all ci=0
for arg in "$@"; do
  case $arg in
    asan | tsan | all) mode=$arg ;;
    --ci) ci=1 ;;
    *) echo "usage: $0 [asan|tsan|all] [--ci]" >&2; exit 2 ;;
  esac
done
jobs=$(nproc)
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi

# The CI subset of the ASan suite (CTest labels, tests/CMakeLists.txt): every executable's
# registration guard, which starts it (a crash or sanitizer report in start-up fails), and the cases
# of the executables that exercise the framework, every integrator's bind and step (allocation
# contract), the Lie-group integrators and the CLI on bad input. The other executables re-run the
# same code on longer figure studies.
ci_labels='^(registers_cases|test_framework|test_plugins|test_performance|test_lie_group)$'

build() {
  cmake --preset "$1" "${launcher[@]}" >/dev/null
  cmake --build --preset "$1" -j"$jobs"
}

run_asan() {
  build asan
  local filter=()
  if ((ci)); then filter=(-L "$ci_labels"); fi
  ctest --preset asan -j"$jobs" "${filter[@]}"
}

run_tsan() {
  build tsan
  local out
  out=$(mktemp -d)
  trap 'rm -rf "$out"' RETURN
  # halt_on_error: the first report ends the process with a non-zero status, so the script fails.
  export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$root/tests/sanitizers/tsan.supp"
  for study in tsan_ensemble tsan_sweep; do
    echo "tsan: $study at --threads 2"
    "$root/build-tsan/bin/dalembert" run "$root/tests/sanitizers/$study.json" --out "$out/$study" \
      --threads 2 --quiet --no-plots
  done
}

"$root/scripts/install-deps.sh"
case $mode in
  asan) run_asan ;;
  tsan) run_tsan ;;
  all) run_asan && run_tsan ;;
esac
