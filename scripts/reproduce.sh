#!/usr/bin/env bash
# Builds dalembert (installing what is missing) and runs studies with their bundled defaults;
# results go to ./results/<study name>/ (manifest.json, CSV, figures/*.png|svg).
# usage: scripts/reproduce.sh [STUDY.json | FOLDER ...]   (default: seed 000's Figure 1)
#   scripts/reproduce.sh studies/newmark      every figure and table of seed 000
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# Only what a run needs (the CLI and the plugins; tests and benchmarks build with scripts/test.sh),
# with the build's progress on stderr so that stdout stays the run's own output.
"$root/scripts/build.sh" dalembert_runtime >&2
cd "$root"
if (($# == 0)); then set -- studies/newmark/fig1_particle.json; fi
"$root/build/bin/dalembert" run "$@"
