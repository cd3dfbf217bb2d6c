"""Trajectory files with "record_format": "npy": numpy.load gives exactly the numbers of the CSV the
same study writes (pandas' round-trip parser), dalembert.load and dalembert.run read them into the
same DataFrames, a failed run keeps a loadable file, and figures are drawn from them."""
import json
import os
import pathlib

import numpy as np
import pandas as pd
import pytest

from conftest import SOURCE, assert_same_frame, cli, cli_run, read_csv, small_study, write_study

FIXTURE_SYSTEMS = pathlib.Path(os.environ.get("DALEMBERT_BINARY_DIR", SOURCE / "build")) / "test_fixtures" / "systems"


def manifest_of(folder):
    with open(folder / "manifest.json") as f:
        return json.load(f)


def trajectory_files(folder):
    return {f["label"]: f for f in manifest_of(folder)["files"] if f["kind"] == "trajectory"}


def assert_npy_equals_csv(npy_path, csv_path):
    """Same column names, same rows, every value bit for bit; NaN where the CSV has NaN (pandas
    reads "-nan" as numpy's NaN, whose sign bit the .npy keeps as computed)."""
    a = np.load(npy_path)
    c = read_csv(csv_path)
    assert a.ndim == 1 and a.shape[0] == len(c) > 0
    assert list(a.dtype.names) == list(c.columns)
    for name in c.columns:
        assert a.dtype[name] == np.dtype("<f8")
        got, want = a[name], c[name].to_numpy(dtype=np.float64)
        nan = np.isnan(want)
        assert np.array_equal(np.isnan(got), nan), name
        assert np.array_equal(got[~nan].view(np.uint64), want[~nan].view(np.uint64)), name


@pytest.fixture
def studies(tmp_path):
    """Seed 000 Fig 1 (DLA, RK4, Psi_h; 10 steps), recorded as CSV and as .npy, run by the CLI."""
    base = small_study("newmark/fig1_particle.json", T=2, observers=["trajectory", "energy_error", "constraint_residual"])
    out = {}
    for fmt in ("csv", "npy"):
        study = {**base, "name": f"py_{fmt}", **({"record_format": "npy"} if fmt == "npy" else {})}
        path = write_study(tmp_path, study)
        out[fmt] = (path, cli_run(path, tmp_path / fmt))
    return out


def test_numpy_reads_the_csv_numbers(studies):
    (_, csv_folder), (_, npy_folder) = studies["csv"], studies["npy"]
    csv_files, npy_files = trajectory_files(csv_folder), trajectory_files(npy_folder)
    assert sorted(npy_files) == sorted(csv_files) == ["DLA", "Psi_h", "RK4"]
    for label, f in npy_files.items():
        assert f["path"] == f"trajectory_{label}.npy" and f["format"] == "npy"
        assert csv_files[label]["format"] == "csv"  # the file index names every table's format (issue 27)
        assert f["columns"] == csv_files[label]["columns"]
        assert_npy_equals_csv(npy_folder / f["path"], csv_folder / csv_files[label]["path"])
    assert manifest_of(npy_folder)["study"]["record_format"] == "npy"
    assert "record_format" not in manifest_of(csv_folder)["study"]
    # pandas straight from numpy, as the README says.
    df = pd.DataFrame(np.load(npy_folder / "trajectory_RK4.npy"))
    assert len(df) == 11 and list(df.columns) == npy_files["RK4"]["columns"]


def test_load_and_run_give_the_csv_frames(dalembert, studies):
    (_, csv_folder), (npy_study, npy_folder) = studies["csv"], studies["npy"]
    from_csv, from_npy = dalembert.load(csv_folder), dalembert.load(npy_folder)
    for label in ("DLA", "Psi_h", "RK4"):
        csv_frame = from_csv.trajectory(label)
        # Every .npy column is float64; pandas reads a CSV column whose every number is written
        # without a point (ydot = -1 here) as int64. The values are the same.
        assert (from_npy.trajectory(label).dtypes == np.float64).all()
        assert set(csv_frame.dtypes.astype(str)) <= {"float64", "int64"}
        assert_same_frame(from_npy.trajectory(label), csv_frame.astype(np.float64))
    assert sorted(from_npy.trajectories) == ["DLA", "Psi_h", "RK4"]
    ran = dalembert.run(npy_study)  # the compiled module's run, read back by load()
    for label in ("DLA", "Psi_h", "RK4"):
        assert_same_frame(ran.trajectory(label), from_npy.trajectory(label))


def test_failed_run_keeps_a_loadable_npy(tmp_path):
    # V = -q^4 from q = 1, v = sqrt(2) blows up at t = 0.707: RK4 at h = 0.01 fails near step 71.
    study = {"name": "blowup", "kind": "trajectory", "plugin_paths": [str(FIXTURE_SYSTEMS)], "system": "blowup",
             "initial": {"q": [1], "v": [2 ** 0.5]}, "T": 2, "h": 0.01,
             "integrators": [{"label": "RK4", "plugin": "rk4"}], "observers": ["energy_error", "trajectory"]}
    folders = {}
    for fmt in ("csv", "npy"):
        path = write_study(tmp_path, {**study, "record_format": fmt}, name=fmt)
        r = cli("run", path, "--out", tmp_path / fmt, "--no-plots", "--quiet", check=False)
        assert r.returncode == 1 and "non-finite" in r.stderr
        folders[fmt] = tmp_path / f"{fmt}.failed"
    rows = len(np.load(folders["npy"] / "trajectory_RK4.npy"))
    assert 20 < rows < 201  # recorded up to the failure, not to T
    assert_npy_equals_csv(folders["npy"] / "trajectory_RK4.npy", folders["csv"] / "trajectory_RK4.csv")


def test_figures_are_drawn_from_npy(tmp_path):
    study = small_study("newmark/fig1_particle.json", name="py_npy_figures", T=2, record_format="npy",
                        observers=["trajectory", "energy_error"],
                        figures=[{"name": "energy", "type": "timeseries", "y": "energy_error"},
                                 {"name": "plane", "type": "path", "x": "x", "y": "y"}])
    out = tmp_path / "run"
    cli("run", write_study(tmp_path, study), "--out", out, "--quiet")
    assert manifest_of(out)["figures_status"] == "ok"
    drawn = {f["name"] for f in manifest_of(out)["figures"]}
    assert drawn == {"energy", "plane"}
    for name in ("energy", "plane"):
        assert (out / "figures" / f"{name}.png").stat().st_size > 1000
