#!/usr/bin/env bash
# Builds dalembert (installing what is missing) and runs one or more studies with their bundled
# defaults; results go to ./results/<study name>/ (manifest.json, CSV, figures/*.png|svg).
# usage: scripts/reproduce.sh [STUDY.json ...]   (default: seed 000's Figure 1)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh" >/dev/null
cd "$root"
studies=("$@")
if ((${#studies[@]} == 0)); then studies=(studies/newmark/fig1_particle.json); fi
for s in "${studies[@]}"; do
  "$root/build/bin/dalembert" run "$s" --out "results/$(basename "$s" .json)"
done
