#!/usr/bin/env bash
# Runs the benchmarks and regenerates the results table of bench/README.md (one command).
#   bench/run.sh [BUILD_DIR]           full run (the Fig 3 ensemble takes minutes at 1 thread)
#   BENCH_FILTER=step/ bench/run.sh    only the benchmarks whose name matches (regex); no ensemble_scaling.py
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
if [ ! -x "$build/bin/bench_steps" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DDALEMBERT_BUILD_BENCH=ON >/dev/null
  cmake --build "$build" -j"$(nproc)"
fi
out="$build/bench-results"
mkdir -p "$out"
filter=${BENCH_FILTER:-.}
"$build/bin/bench_steps" --benchmark_filter="$filter" --benchmark_repetitions="${BENCH_REPETITIONS:-5}" \
  --benchmark_min_time="${BENCH_MIN_TIME:-0.2}" --benchmark_enable_random_interleaving=true \
  --benchmark_out="$out/steps.json" --benchmark_out_format=json
"$build/bin/bench_studies" --benchmark_filter="${BENCH_STUDY_FILTER:-.}" \
  --benchmark_out="$out/studies.json" --benchmark_out_format=json
python3 "$root/bench/make_table.py" "$out/steps.json" "$out/studies.json" "$root/bench/README.md"
# The ensembles of short members at 1 and 2 threads and ranks (a few minutes; skipped by a filtered run).
if [ -z "${BENCH_FILTER:-}" ]; then
  python3 "$root/bench/ensemble_scaling.py" --cli "$build/bin/dalembert" --readme "$root/bench/README.md"
fi
