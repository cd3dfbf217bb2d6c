#!/usr/bin/env python3
"""scripts/check_layers.py finds what it is for (issue 27 item 7): on a copy of the repository's
framework/ and plugins/ it passes, and each planted fault is reported naming the file and the
include: a layer including a layer above it, a shipped plugin including an internal header, an
include cycle, a source outside a layer's folder. Argument: SOURCE_DIR."""
import pathlib
import shutil
import subprocess
import sys
import tempfile

src = pathlib.Path(sys.argv[1]).resolve()
script = src / "scripts/check_layers.py"


def run(root):
    r = subprocess.run([sys.executable, str(script), str(root)], capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def plant(root, rel, line):
    path = root / rel
    path.write_text(line + "\n" + path.read_text())


failures = []
with tempfile.TemporaryDirectory() as tmp:
    clean = pathlib.Path(tmp) / "clean"
    for top in ("framework", "plugins"):
        shutil.copytree(src / top, clean / top)
    code, out = run(clean)
    if code != 0:
        failures.append(f"the repository's own layering has findings:\n{out}")
    planted = [
        ("an upward include (math -> core)", "framework/include/dalembert/math/so3.hpp",
         "#include <dalembert/core/errors.hpp>",
         "framework/include/dalembert/math/so3.hpp: includes <dalembert/core/errors.hpp> (layer core above layer math)"),
        ("an installed header including the study layer", "framework/include/dalembert/core/integrator.hpp",
         "#include <dalembert/study/runner.hpp>",
         "framework/include/dalembert/core/integrator.hpp: includes <dalembert/study/runner.hpp> (layer study above layer core)"),
        ("a plugin including an internal header", "plugins/integrators/rk4/rk4.cpp",
         "#include <dalembert/host/registry.hpp>",
         "plugins/integrators/rk4/rk4.cpp: includes <dalembert/host/registry.hpp> (layer host)"),
        ("the framework including the plugins' shared code", "framework/src/study/runner.cpp",
         "#include <dalembert_plugins/impact_laws.hpp>",
         "framework/src/study/runner.cpp: includes <dalembert_plugins/impact_laws.hpp>: the framework does not"),
        ("an include cycle within a layer", "framework/include/dalembert/core/state.hpp",
         "#include <dalembert/core/system.hpp>",
         "include cycle: framework/include/dalembert/core/state.hpp -> framework/include/dalembert/core/system.hpp"
         " -> framework/include/dalembert/core/state.hpp"),
    ]
    for what, rel, line, expected in planted:
        tree = pathlib.Path(tmp) / "planted"
        shutil.rmtree(tree, ignore_errors=True)
        shutil.copytree(clean, tree)
        plant(tree, rel, line)
        code, out = run(tree)
        if code != 1 or expected not in out:
            failures.append(f"{what}: expected exit 1 and '{expected}', got exit {code}:\n{out}")
    # A source outside a layer's folder.
    tree = pathlib.Path(tmp) / "planted"
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(clean, tree)
    (tree / "framework/src/stray.cpp").write_text("#include <dalembert/core/errors.hpp>\n")
    code, out = run(tree)
    if code != 1 or "framework/src/stray.cpp: not in a layer's folder" not in out:
        failures.append(f"a stray source: expected exit 1 naming framework/src/stray.cpp, got exit {code}:\n{out}")

for f in failures:
    print(f)
print(f"check_layers_catches: {len(planted) + 2 - len(failures)} of {len(planted) + 2} cases as expected")
sys.exit(1 if failures else 0)
