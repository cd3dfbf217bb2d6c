"""dalembert.run() of every study kind gives the numbers of `dalembert run` (its CSV files and
manifest, bit for bit); dalembert.load() of the command line's folder equals run(); a bad study
raises the message the command line prints."""
import json

import numpy as np
import pandas as pd
import pytest

from conftest import assert_same_frame, cli, cli_run, read_csv, small_study, write_study


def cli_manifest(folder):
    with open(folder / "manifest.json") as f:
        return json.load(f)


def cli_files(manifest, kind):
    return [f for f in manifest["files"] if f["kind"] == kind]


def numbers_of(run):
    """Every table of a Run, by name, and its tasks without their timings."""
    out = {"tasks": run.tasks.drop(columns=["wall_time_s"])}
    for label, df in run.trajectories.items():
        out["trajectory " + label] = df
    for name in ("convergence", "orders", "member_summaries", "ensemble_summary", "sweep", "cells", "claims"):
        out[name] = getattr(run, name)
    for attr in ("ensemble", "members", "initial_states"):
        for label, df in getattr(run, attr).items():
            out[f"{attr} {label}"] = df
    return out


def assert_same_run(a, b):
    na, nb = numbers_of(a), numbers_of(b)
    assert na.keys() == nb.keys()
    for name in na:
        try:
            assert_same_frame(na[name], nb[name])
        except AssertionError as e:
            raise AssertionError(f"{name}: {e}") from None


def assert_tasks_match_cli(run, manifest):
    """Every task's summaries and final state equal the command line's manifest (JSON doubles
    read back exactly)."""
    tasks = run.tasks
    assert len(tasks) == len(manifest["tasks"])
    for (_, row), t in zip(tasks.iterrows(), manifest["tasks"]):
        assert (row["label"], row["h"], row["steps"]) == (t["label"], t["h"], t["steps"])
        assert t["ok"] and row["ok"]
        for name, value in t["summary"].items():
            assert row[name] == value, (t["label"], name)
        assert row["final_t"] == t["final"]["t"]
        assert row["final_q"] == t["final"]["q"] and row["final_v"] == t["final"]["v"]


@pytest.fixture
def trajectory_study():
    # Seed 000 Fig 1 (DLA, RK4, Psi_h on the nonholonomic particle), 10 steps instead of 500.
    return small_study("newmark/fig1_particle.json", name="py_trajectory", T=2)


def test_trajectory(dalembert, tmp_path, trajectory_study):
    path = write_study(tmp_path, trajectory_study)
    cli_folder = cli_run(path, tmp_path / "cli")
    manifest = cli_manifest(cli_folder)
    run = dalembert.run(path, out=tmp_path / "py", threads=2)
    assert run.kind == "trajectory" and run.folder == tmp_path / "py"
    assert run.manifest["threads"] == 2  # the thread count given reaches the runner
    files = cli_files(manifest, "trajectory")
    assert sorted(f["label"] for f in files) == ["DLA", "Psi_h", "RK4"]
    for f in files:
        df = run.trajectory(f["label"])
        assert len(df) == 11 and list(df.columns) == f["columns"]
        assert_same_frame(df, read_csv(cli_folder / f["path"]))
    assert_tasks_match_cli(run, manifest)
    # The RK4 energy error after 10 steps, as the CLI's file has it, is a number of the physics
    # (seed 000: RK4's error is O(1e-6) at h = 0.2), not a NaN or zero.
    e = run.trajectory("RK4")["energy_error"].iloc[-1]
    assert 0 < abs(e) < 1e-4
    # A dict runs as its file does.
    assert_same_run(dalembert.run(trajectory_study, threads=1), run)


def test_convergence(dalembert, tmp_path):
    study = small_study("newmark/convergence_particle.json", name="py_convergence")
    path = write_study(tmp_path, study)
    cli_folder = cli_run(path, tmp_path / "cli")
    manifest = cli_manifest(cli_folder)
    run = dalembert.run(path, out=tmp_path / "py")
    (f,) = cli_files(manifest, "convergence")
    assert_same_frame(run.convergence, read_csv(cli_folder / f["path"]))
    assert len(run.convergence) == 4 * len(study["integrators"])
    orders = run.orders.set_index("label")
    for c in manifest["convergence"]:
        assert orders.loc[c["label"], "fitted_order"] == c["fitted_order"]
        assert orders.loc[c["label"], "declared_order"] == c["declared_order"]
        assert orders.loc[c["label"], "successive_orders"] == c["successive_orders"]
    # The fitted orders are the declared ones (spec 000 claim 3): 1, 1, 2, 2, 2, 4, 4.
    assert orders["agrees"].all()
    assert np.allclose(orders["fitted_order"], orders["declared_order"], atol=0.15)
    assert run.reference["q"] == manifest["reference"]["q"]
    assert_tasks_match_cli(run, manifest)


def test_ensemble(dalembert, tmp_path):
    # Seed 000 Fig 3 (chaotic particle, 3 integrators), 4 members, 10 steps recorded every 5th.
    study = small_study("newmark/fig3_ensemble.json", name="py_ensemble", T=2, record_every=5)
    study["ensemble"]["size"] = 4
    path = write_study(tmp_path, study)
    cli_folder = cli_run(path, tmp_path / "cli")
    manifest = cli_manifest(cli_folder)
    run = dalembert.run(path, out=tmp_path / "py", threads=2)
    labels = [i["label"] for i in study["integrators"]]
    for kind, attr in (("ensemble_statistics", "ensemble"), ("ensemble_members", "members"),
                       ("ensemble_initial", "initial_states"), ("ensemble_summaries", None)):
        files = cli_files(manifest, kind)
        if attr is None:
            continue  # per-member summaries in a file: compared below through member_summaries
        assert sorted(f["label"] for f in files) == sorted(labels), kind
        for f in files:
            assert_same_frame(getattr(run, attr)[f["label"]], read_csv(cli_folder / f["path"]))
    assert len(run.members[labels[0]]) == 4 * 3  # 4 members, t = 0, 1, 2
    # Members' summaries: from the CLI's ensemble_summaries files if it writes them, else its tasks.
    summaries = run.member_summaries
    assert len(summaries) == 4 * len(labels)
    cli_files_summ = cli_files(manifest, "ensemble_summaries")
    if cli_files_summ:
        for f in cli_files_summ:
            mine = summaries[summaries["label"] == f["label"]].drop(columns=["label"])
            assert_same_frame(mine, read_csv(cli_folder / f["path"]))
    else:
        for t in manifest["tasks"]:
            row = summaries[(summaries["label"] == t["label"]) & (summaries["member"] == t["member"])]
            for name, value in t["summary"].items():
                assert row[name].item() == value
    table = run.ensemble_summary
    for e in manifest["ensemble"]:
        for name, stats in e["summary"].items():
            row = table[(table["label"] == e["label"]) & (table["summary"] == name)]
            assert (row["min"].item(), row["max"].item(), row["mean"].item()) == (stats["min"], stats["max"], stats["mean"])
    # The constraint is kept to round-off by every member (seed 000 claim 1).
    assert (summaries["max_constraint_residual"] < 1e-13).all()


def test_sweep(dalembert, tmp_path):
    # Seed 000's beta sweep on the CVT, 2 x 1 cells of a 2-step ladder.
    study = small_study("newmark/sweep_beta.json", name="py_sweep", h=[0.1, 0.05])
    study["sweep"]["axes"][0]["values"] = [0, 0.1]
    study["sweep"]["axes"][1]["values"] = [0]
    study["reference"]["h"] = 0.001
    path = write_study(tmp_path, study)
    cli_folder = cli_run(path, tmp_path / "cli")
    manifest = cli_manifest(cli_folder)
    run = dalembert.run(path, out=tmp_path / "py")
    (f,) = cli_files(manifest, "sweep")
    assert_same_frame(run.sweep, read_csv(cli_folder / f["path"]))
    assert len(run.sweep) == 2 and run.sweep["ok"].eq(1).all()
    assert_same_frame(run.cells, pd.DataFrame(manifest["cells"]))
    cell = run.cell(1)  # beta = 0.1, a convergence study of its own
    assert cell.kind == "convergence"
    (cf,) = cli_files(cli_manifest(cli_folder / manifest["cells"][1]["folder"]), "convergence")
    assert_same_frame(cell.convergence, read_csv(cli_folder / manifest["cells"][1]["folder"] / cf["path"]))


def test_load_of_cli_run_equals_run(dalembert, tmp_path, trajectory_study):
    for study in (trajectory_study,
                  small_study("newmark/convergence_particle.json", name="py_convergence2"),
                  {**small_study("newmark/fig3_ensemble.json", name="py_ensemble2", T=1, record_every=5),
                   "ensemble": {**small_study("newmark/fig3_ensemble.json")["ensemble"], "size": 3}}):
        path = write_study(tmp_path, study)
        loaded = dalembert.load(cli_run(path, tmp_path / ("cli_" + study["name"])))
        assert loaded.manifest["study"] == dalembert.run(path).manifest["study"]
        assert_same_run(loaded, dalembert.run(path))


def test_load_is_pure_python(tmp_path, trajectory_study):
    """The loader reads a run folder without the compiled module (a fresh interpreter where
    importing _dalembert fails)."""
    import subprocess
    import sys
    folder = cli_run(write_study(tmp_path, trajectory_study), tmp_path / "cli")
    code = ("import sys; sys.modules['dalembert._dalembert'] = None\n"
            "import dalembert\n"
            "assert dalembert._dalembert is None\n"
            f"r = dalembert.load({str(folder)!r})\n"
            "print(repr(r.trajectory('RK4')['energy_error'].iloc[-1]))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    m = cli_manifest(folder)
    (f,) = [f for f in cli_files(m, "trajectory") if f["label"] == "RK4"]
    assert float(out) == read_csv(folder / f["path"])["energy_error"].iloc[-1]


@pytest.mark.parametrize("change, names", [
    ({"h": 0.3}, "0.3"),
    ({"integrators": [{"label": "X", "plugin": "rk5"}]}, "rk5"),
    ({"initial": {"q": [1, 1], "v": [1, -1, 1]}}, "/initial"),
])
def test_bad_study_raises_the_cli_message(dalembert, tmp_path, trajectory_study, change, names):
    path = write_study(tmp_path, {**trajectory_study, **change}, name="bad")
    r = cli("run", path, "--out", tmp_path / "cli", "--no-plots", "--quiet", check=False)
    assert r.returncode == 1
    (line,) = [l for l in r.stderr.splitlines() if l.startswith("error: ")]
    with pytest.raises(dalembert.InputError) as e:
        dalembert.run(path, out=tmp_path / "py")
    assert isinstance(e.value, dalembert.Error) and isinstance(e.value, RuntimeError)
    assert "error: " + str(e.value) == line
    assert names in str(e.value)
    # A dict: the same message, naming "study" instead of the file.
    with pytest.raises(dalembert.InputError) as e:
        dalembert.run({**trajectory_study, **change}, out=tmp_path / "py")
    assert "error: " + str(e.value) == line.replace(str(path), "study")
