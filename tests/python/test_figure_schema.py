"""One reader of a run folder, one declaration of the figure types (issue 27 item 3).

The figure schema (dalembert/figure_types.json) and the plotting program's drawing functions
(dalembert.plot.FIGURE_TYPES) name the same types; the plotting program runs without pandas and
without the compiled module; the plotter and dalembert.load read the same numbers through
dalembert.run_folder. (The C++ validator's side of the schema: tests/framework/test_figure_schema.cpp.)"""
import json
import os
import subprocess
import sys

from conftest import SOURCE, cli_run, small_study, write_study

SCHEMA = SOURCE / "python" / "dalembert" / "figure_types.json"


def test_every_schema_type_has_a_drawing_function_and_every_drawing_function_a_schema_entry():
    from dalembert import plot
    with open(SCHEMA) as f:
        schema = json.load(f)
    declared, drawn = set(schema["types"]), set(plot.FIGURE_TYPES)
    assert declared - drawn == set(), "figure types of the schema without a drawing function"
    assert drawn - declared == set(), "drawing functions without a figure type in the schema"
    assert all(callable(build) for build in plot.FIGURE_TYPES.values())
    # The plotter reads the schema it is installed with (the file beside it), the one tested here.
    assert plot.figure_schema() == schema


def test_the_plotter_runs_without_pandas_and_without_the_compiled_module(tmp_path):
    study = small_study("newmark/fig1_particle.json", T=2, observers=["trajectory", "energy_error"])
    study["figures"] = [{"name": "energy", "type": "timeseries", "y": "energy_error", "logy": True, "abs": True},
                        {"name": "plane", "type": "path", "x": "x", "y": "y"}]
    folder = cli_run(write_study(tmp_path, study), tmp_path / "run")  # --no-plots: the plotter is started below
    # A fresh interpreter in which pandas and the compiled module cannot be imported, started as
    # the command line starts it (the file of the package it belongs to).
    code = ("import runpy, sys\n"
            "sys.modules['pandas'] = None; sys.modules['dalembert._dalembert'] = None\n"
            "sys.argv = [sys.argv[1], sys.argv[2]]\n"
            "runpy.run_path(sys.argv[0], run_name='__main__')\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["MPLCONFIGDIR"] = str(tmp_path / "mpl")
    r = subprocess.run([sys.executable, "-c", code, str(SOURCE / "python" / "dalembert" / "plot.py"), str(folder)],
                       env=env, capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    index = json.loads((folder / "figures" / "index.json").read_text())["figures"]
    assert [(f["name"], f["type"], f["panels"]) for f in index] == [("energy", "timeseries", 1), ("plane", "path", 1)]
    for name in ("energy.png", "energy.svg", "plane.png", "plane.svg"):
        assert (folder / "figures" / name).stat().st_size > 0


def test_the_plotter_and_load_read_the_same_numbers(tmp_path):
    import dalembert
    from dalembert.run_folder import RunFolder
    base = small_study("newmark/fig1_particle.json", T=2, observers=["trajectory", "energy_error"])
    for fmt in ("csv", "npy"):
        study = {**base, "name": f"reader_{fmt}", **({"record_format": "npy"} if fmt == "npy" else {})}
        folder = cli_run(write_study(tmp_path, study), tmp_path / fmt)
        columns, frames = RunFolder(folder), dalembert.load(folder)
        entries = columns.entries("trajectory")
        assert [e["label"] for e in entries] == ["DLA", "RK4", "Psi_h"]
        for e in entries:
            a, b = columns.columns(e), frames.trajectory(e["label"])
            assert list(a) == list(b.columns)
            for name in a:  # bit for bit: both parse the shortest round-trip text (or read the .npy)
                assert a[name] == b[name].tolist(), (fmt, e["label"], name)


def test_a_figure_that_cannot_be_drawn_is_named_and_the_next_one_is_still_drawn(tmp_path):
    study = small_study("newmark/fig1_particle.json", T=2, observers=["trajectory", "energy_error"])
    study["figures"] = [{"name": "broken", "type": "summary_panels",
                         "panels": [{"q_error_from": "no_such_summary", "reference": "DLA"}]},
                        {"name": "plane", "type": "path", "x": "x", "y": "y"}]
    folder = cli_run(write_study(tmp_path, study), tmp_path / "run")
    env = {**os.environ, "MPLCONFIGDIR": str(tmp_path / "mpl")}
    r = subprocess.run([sys.executable, str(SOURCE / "python" / "dalembert" / "plot.py"), str(folder)],
                       env=env, capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert "figure broken: FigureError: no reference task 'DLA' with 'no_such_summary'" in r.stderr
    index = json.loads((folder / "figures" / "index.json").read_text())["figures"]
    assert [f["name"] for f in index] == ["plane"]
    assert (folder / "figures" / "plane.png").stat().st_size > 0
