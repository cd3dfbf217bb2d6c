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
