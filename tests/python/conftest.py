"""Shared helpers of the Python tests: the command-line program (the independent source every
number is compared with), small studies derived from studies/*/ and exact DataFrame comparison.

CTest sets PYTHONPATH (the build tree's module), DALEMBERT_CLI and DALEMBERT_SOURCE_DIR.
"""
import copy
import json
import os
import pathlib
import subprocess

import pandas as pd
import pytest

SOURCE = pathlib.Path(os.environ.get("DALEMBERT_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
CLI = os.environ.get("DALEMBERT_CLI", str(SOURCE / "build" / "bin" / "dalembert"))


def cli(*args, check=True):
    """Runs the command-line program; returns the CompletedProcess (text)."""
    r = subprocess.run([CLI, *map(str, args)], capture_output=True, text=True)
    if check and r.returncode != 0:
        raise AssertionError(f"dalembert {' '.join(map(str, args))} exited {r.returncode}: {r.stderr}")
    return r


def cli_run(study_file, out):
    """`dalembert run STUDY --out OUT --no-plots --quiet`; returns OUT."""
    cli("run", study_file, "--out", out, "--no-plots", "--quiet")
    return pathlib.Path(out)


def read_csv(path):
    """The CLI's CSV as pandas reads it back exactly (the shortest round-trip text of each double)."""
    return pd.read_csv(path, float_precision="round_trip")


def small_study(rel, **changes):
    """studies/<rel> without its claims and figures (they need the full run), with `changes` set."""
    with open(SOURCE / "studies" / rel) as f:
        s = json.load(f)
    s.pop("claims", None)
    s.pop("figures", None)
    for k, v in changes.items():
        s[k] = copy.deepcopy(v)
    return s


def write_study(tmp_path, study, name=None):
    path = tmp_path / f"{name or study['name']}.json"
    path.write_text(json.dumps(study, indent=1))
    return path


def assert_same_frame(a, b):
    """Equal column names, dtypes and values, bit for bit (NaN equal to NaN)."""
    pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True), check_exact=True)


@pytest.fixture
def dalembert():
    import dalembert as d
    if d._dalembert is None:
        pytest.fail(f"the compiled module is missing: {d._import_error}")
    return d
