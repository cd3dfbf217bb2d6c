#!/usr/bin/env bash
# Installs dalembert into a temporary prefix, builds examples/out_of_tree_plugin (a system written
# in L-and-A form with M(q), and an integrator) against it with find_package(dalembert) +
# dalembert_add_plugin and no build type, and runs a convergence study that uses both new plugins
# together with the installed ones. Arguments: SOURCE_DIR BUILD_DIR.
set -euo pipefail
src=$1 build=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
# The plugin READMEs are installed beside the plugins.
plugins_dir=$(dirname "$(find "$work/prefix" -name 'dalembert_system_knife_edge.so' | head -1)")
grep -q "knife" "$plugins_dir/dalembert_system_knife_edge.README.md"
test -f "$plugins_dir/dalembert_integrator_rk4.README.md"
# The pure-Python package (plotting program, figure schema) is installed with every build.
test -f "$work/prefix/lib/python3/dist-packages/dalembert/plot.py"
test -f "$work/prefix/lib/python3/dist-packages/dalembert/figure_types.json"

# No CMAKE_BUILD_TYPE: the package config makes it Release (optimised plugins).
cmake -S "$src/examples/out_of_tree_plugin" -B "$work/plugin" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
grep -q '^CMAKE_BUILD_TYPE:STRING=Release$' "$work/plugin/CMakeCache.txt"
cmake --build "$work/plugin" -j2 >/dev/null
test -f "$work/plugin/plugins/dalembert_system_sleigh_in_bowl.so"
test -f "$work/plugin/plugins/dalembert_integrator_kutta3.so"
export DALEMBERT_PLUGIN_PATH="$work/plugin/plugins"
"$work/prefix/bin/dalembert" describe sleigh_in_bowl | grep -q "Example out-of-tree plugin"
"$work/prefix/bin/dalembert" describe kutta3 | grep -q "Example out-of-tree plugin"
# The derivative checker passes the example (AD vs finite differences, M(q) SPD, rank A, RK4 orders).
"$work/prefix/bin/dalembert" check sleigh_in_bowl --samples 16 >"$work/check.txt"
grep -q "sleigh_in_bowl: all checks passed" "$work/check.txt"
grep -q "^rk4_energy " "$work/check.txt"
# The conformance suite on the out-of-tree integrator (paired with every installed system example
# and sleigh_in_bowl's) and on the installed rk4 beside the out-of-tree system: exit 1 on a finding.
"$work/prefix/bin/dalembert" check kutta3 >"$work/conformance.txt"
grep -q "kutta3: all checks passed" "$work/conformance.txt"
grep -Eq '^  allocation +pass +defaults on sleigh_in_bowl ' "$work/conformance.txt"
grep -Eq '^  order +pass +defaults on polar_oscillator ' "$work/conformance.txt"  # order 3 with M(q)
"$work/prefix/bin/dalembert" check rk4 >"$work/conformance_rk4.txt"
grep -q "rk4: all checks passed" "$work/conformance_rk4.txt"
"$work/prefix/bin/dalembert" run "$src/examples/out_of_tree_plugin/sleigh_convergence.json" --out "$work/run" \
  --quiet --no-plots
# The installed CLI found both new plugins and the installed RK4; each runs at its declared order
# on a system whose mass matrix depends on q (derivatives by automatic differentiation only).
/usr/bin/python3 - "$work/run/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
names = {p["name"]: p["file"] for p in m["plugins"]}
assert "/plugin/plugins/" in names["sleigh_in_bowl"], names
assert "/plugin/plugins/" in names["kutta3"], names
# The out-of-tree system's drawing (core/drawable.hpp) reached the manifest: it can be animated.
assert m["study"]["system"]["drawing"]["traces"][0]["label"] == "skate", m["study"]["system"]
fits = {c["label"]: c for c in m["convergence"]}
for label, order in (("Kutta3", 3), ("RK4", 4)):
    c = fits[label]
    assert c["declared_order"] == order, c
    assert c["status"] == "fitted" and abs(c["fitted_order"] - order) < 0.2, (label, c["fitted_order"])
print("out-of-tree plugins: fitted orders Kutta3 %.3f, RK4 %.3f" % (fits["Kutta3"]["fitted_order"], fits["RK4"]["fitted_order"]))
PY
