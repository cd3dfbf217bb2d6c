#!/usr/bin/env bash
# Builds dalembert with sanitizers (CMakePresets.json) and runs it; any sanitizer report fails.
#
#   scripts/sanitize.sh [asan|tsan|all] [--ci]
#
#   asan  build-asan/ (ASan + UBSan on every target): the whole CTest suite.
#   tsan  build-tsan/ (TSan on the CLI and the plugins the studies load): an ensemble and a sweep
#         study through the CLI at --threads 2 (tests/sanitizers/tsan_*.json); suppressions:
#         tests/sanitizers/tsan.supp.
#   all   both (the default).
#   --ci  asan builds only the CLI and the plugins of the CI subset (build preset asan-ci) and runs,
#         under ASan + UBSan, the two studies at --threads 2 and `dalembert check` on two systems
#         (the runner, threads, CSV, plugins, Newton and AD paths) instead of the CTest suite: the
#         whole sanitized build does not fit the CI time budget on two cores (README "Sanitizers").
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

# build CONFIGURE_PRESET BUILD_PRESET
build() {
  cmake --preset "$1" "${launcher[@]}" >/dev/null
  cmake --build --preset "$2" -j"$jobs"
}

run_asan() {
  if ((ci)); then
    build asan asan-ci
    export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=1:strict_string_checks=1"
    export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1"
    run_studies "$root/build-asan" asan
    for system in chaotic_nonholonomic_particle pendulum_driven_cvt; do
      echo "asan: dalembert check $system"
      "$root/build-asan/bin/dalembert" check "$system" --samples 4 >/dev/null
    done
  else
    build asan asan
    ctest --preset asan -j"$jobs"
  fi
}

# The ensemble and the sweep through the CLI of build directory $1 at two threads (runs in $work/$2).
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run_studies() {
  for study in tsan_ensemble tsan_sweep; do
    echo "$2: $study at --threads 2"
    "$1/bin/dalembert" run "$root/tests/sanitizers/$study.json" --out "$work/$2/$study" --threads 2 --quiet --no-plots
  done
}

run_tsan() {
  build tsan tsan
  # halt_on_error: the first report ends the process with a non-zero status, so the script fails.
  TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$root/tests/sanitizers/tsan.supp" \
    run_studies "$root/build-tsan" tsan
}

"$root/scripts/install-deps.sh"
# Called as plain commands, never in an && list or an if: bash ignores set -e inside a function
# called there, and a failed step would not fail the script.
case $mode in
  asan) run_asan ;;
  tsan) run_tsan ;;
  all)
    run_asan
    run_tsan
    ;;
esac
echo "sanitizers ($mode$( ((ci)) && echo ', CI subset')): clean"
