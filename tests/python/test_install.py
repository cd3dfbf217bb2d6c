"""`cmake --install` puts the package into <prefix>/lib/python3/dist-packages; imported from there
(not from the build tree) it finds the installed plugins and runs a study to the build tree's numbers."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

from conftest import SOURCE


def test_installed_package_runs_with_the_installed_plugins(dalembert, tmp_path):
    build = pathlib.Path(os.environ.get("DALEMBERT_BINARY_DIR", SOURCE / "build"))
    prefix = tmp_path / "prefix"
    subprocess.run(["cmake", "--install", str(build), "--prefix", str(prefix)], check=True, capture_output=True)
    site = prefix / "lib" / "python3" / "dist-packages"
    assert (site / "dalembert" / "load.py").is_file()
    study = SOURCE / "studies" / "newmark" / "fig1_particle.json"
    code = ("import json, sys, dalembert\n"
            "r = dalembert.run(sys.argv[1], out=sys.argv[2])\n"
            "print(json.dumps({'module': dalembert._dalembert.__file__,"
            " 'plugins': [p['file'] for p in r.manifest['plugins']],"
            " 'summary': [t['summary'] for t in r.manifest['tasks']]}))\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DALEMBERT_PLUGIN_PATH")}
    env["PYTHONPATH"] = str(site)
    out = subprocess.run([sys.executable, "-c", code, str(study), str(tmp_path / "run")], env=env,
                         capture_output=True, text=True, check=True).stdout
    got = json.loads(out)
    assert pathlib.Path(got["module"]).resolve().is_relative_to(prefix.resolve())
    for f in got["plugins"]:
        assert pathlib.Path(f).resolve().is_relative_to(prefix.resolve()), f
    here = dalembert.run(study)
    assert got["summary"] == [t["summary"] for t in here.manifest["tasks"]]


def test_installed_cli_validates_and_draws_with_the_installed_package(tmp_path):
    """The installed CLI finds the plotting program and the figure schema in the installed package
    (not in the source tree): a figure type taken out of the installed schema is refused by the
    installed validator and by the installed plotter."""
    build = pathlib.Path(os.environ.get("DALEMBERT_BINARY_DIR", SOURCE / "build"))
    prefix = tmp_path / "prefix"
    subprocess.run(["cmake", "--install", str(build), "--prefix", str(prefix)], check=True, capture_output=True)
    package = prefix / "lib" / "python3" / "dist-packages" / "dalembert"
    for name in ("plot.py", "run_folder.py", "figure_types.json"):
        assert (package / name).is_file(), name
    cli = prefix / "bin" / "dalembert"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DALEMBERT_PLUGIN_PATH", "DALEMBERT_PLOT_SCRIPT")}
    env["MPLCONFIGDIR"] = str(tmp_path / "mpl")
    study = json.loads((SOURCE / "studies" / "newmark" / "fig1_particle.json").read_text())
    study.pop("claims", None)
    study.update(T=2, observers=["trajectory", "energy_error"],
                 figures=[{"name": "plane", "type": "path", "x": "x", "y": "y"}])
    path = tmp_path / "study.json"
    path.write_text(json.dumps(study))
    subprocess.run([str(cli), "run", str(path), "--out", str(tmp_path / "run"), "--quiet"], env=env, check=True,
                   capture_output=True)
    assert json.loads((tmp_path / "run" / "manifest.json").read_text())["figures_status"] == "ok"
    assert (tmp_path / "run" / "figures" / "plane.png").stat().st_size > 0

    schema = json.loads((package / "figure_types.json").read_text())
    del schema["types"]["path"]
    (package / "figure_types.json").write_text(json.dumps(schema))
    r = subprocess.run([str(cli), "run", str(path), "--out", str(tmp_path / "run2"), "--quiet"], env=env,
                       capture_output=True, text=True)
    assert r.returncode == 1 and "/figures/0/type" in r.stderr and "not a figure type" in r.stderr, r.stderr
    r = subprocess.run([str(cli), "plot", str(tmp_path / "run")], env=env, capture_output=True, text=True)
    assert r.returncode == 1 and "figure plane: ValueError: unknown figure type 'path'" in r.stderr, r.stderr


def test_installed_module_builds_systems_from_sympy_with_the_installed_cmake_package(tmp_path):
    """system_from_sympy builds against the CMake package of the module's own libdalembert:
    <prefix>/lib/cmake/dalembert once installed, <build>/lib/cmake/dalembert in the build tree."""
    build = pathlib.Path(os.environ.get("DALEMBERT_BINARY_DIR", SOURCE / "build"))
    prefix = tmp_path / "prefix"
    subprocess.run(["cmake", "--install", str(build), "--prefix", str(prefix)], check=True, capture_output=True)
    site = prefix / "lib" / "python3" / "dist-packages"
    assert (site / "dalembert" / "sympy_model.cpp.in").is_file()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DALEMBERT_PLUGIN_PATH")}
    env["PYTHONPATH"] = str(site)
    env["DALEMBERT_CACHE_DIR"] = str(tmp_path / "cache")
    # An oscillator in x held at constant y (A = [0, 1]), built with the installed package.
    code = ("import json, sympy, dalembert\n"
            "x, y, xd, yd, k = sympy.symbols('x y xdot ydot k')\n"
            "s = dalembert.system_from_sympy([x, y], (xd**2 + yd**2) / 2 - k * x**2 / 2, [[0, 1]], v=[xd, yd],\n"
            "                                params={k: 4.0}, name='spring')\n"
            "st = s.state([1.0, 0.5], [0.0, 0.0])\n"
            "dalembert.simulate(s, dalembert.integrator('rk4', s), st, 3.141592653589793 / 1000, 3.141592653589793)\n"
            "print(json.dumps({'package': dalembert._dalembert.cmake_package_dir(), 'file': str(s.plugin_file),"
            " 'built': s.built, 'x': float(st.q[0])}))\n")
    got = json.loads(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                    check=True).stdout)
    installed = pathlib.Path(got["package"])
    assert installed.resolve() == (prefix / "lib" / "cmake" / "dalembert").resolve()
    assert got["built"] and got["file"].startswith(str(tmp_path / "cache" / "generated_plugins"))
    assert abs(got["x"] - 1.0) < 1e-9  # x = cos(2t) after one period π
    for name in ("dalembertConfig.cmake", "dalembertTargets.cmake", "DalembertPlugin.cmake"):
        assert (installed / name).is_file(), name
    import dalembert
    here = pathlib.Path(dalembert._dalembert.cmake_package_dir())
    assert here.resolve() == (build / "lib" / "cmake" / "dalembert").resolve()
    for name in ("dalembertConfig.cmake", "dalembertTargets.cmake", "DalembertPlugin.cmake"):
        assert (here / name).is_file(), name
