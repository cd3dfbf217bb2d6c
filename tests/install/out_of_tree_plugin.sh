#!/usr/bin/env bash
# Installs dalembert into a temporary prefix, builds examples/out_of_tree_plugin against it with
# find_package(dalembert) + dalembert_add_plugin, and runs a study that uses the new plugin
# together with the installed ones. Arguments: SOURCE_DIR BUILD_DIR.
set -euo pipefail
src=$1 build=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$src/examples/out_of_tree_plugin" -B "$work/plugin" -DCMAKE_PREFIX_PATH="$work/prefix" \
      -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/plugin" -j2 >/dev/null
test -f "$work/plugin/plugins/dalembert_system_rolling_ball_in_bowl.so"
export DALEMBERT_PLUGIN_PATH="$work/plugin/plugins"
"$work/prefix/bin/dalembert" describe rolling_ball_in_bowl | grep -q "Example out-of-tree plugin"
"$work/prefix/bin/dalembert" run "$src/examples/out_of_tree_plugin/bowl.json" --out "$work/run" --quiet --no-plots
# The installed CLI found the new system and the installed integrators; DLA keeps the constraint.
/usr/bin/python3 - "$work/run/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
tasks = {t["label"]: t for t in m["tasks"]}
assert m["plugins"][0]["name"] == "rolling_ball_in_bowl", m["plugins"]
assert "/plugin/plugins/" in m["plugins"][0]["file"], m["plugins"][0]["file"]
dla = tasks["DLA"]["summary"]
rk4 = tasks["RK4"]["summary"]
assert dla["max_constraint_residual"] < 1e-13, dla
assert rk4["max_abs_energy_error"] < 1e-5, rk4
assert dla["max_abs_energy_error"] < 1e-2, dla
print("out-of-tree plugin: DLA |Av| max", dla["max_constraint_residual"], " RK4 max |dE|", rk4["max_abs_energy_error"])
PY
