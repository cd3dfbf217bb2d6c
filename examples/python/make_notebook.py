"""Writes reproduce_figures.ipynb (nbformat 4) from the cells below: edit here, then run
    /usr/bin/python3 examples/python/make_notebook.py
"""
import json
import pathlib

cells = [
    ("markdown", """# Reproducing two seeds' figures from Python

This notebook runs two studies of the repository with `dalembert.run()` and draws one figure of
each seed with matplotlib, from the DataFrames the run returns:

* **seed 000, Fig 1** (`studies/newmark/fig1_particle.json`): energy error of DLA, RK4 and Ψ_h
  on the nonholonomic particle, h = 0.2, T = 100;
* **seed 001, Fig 2** (`studies/kobilarov/fig2_sleigh.json`): the Chaplygin sleigh's skate-point
  path and energy for RK2, GNI and RDP at h = 0.15, against RK4 at h = 10⁻³.

Each figure's numbers are asserted against the values the seeds' READMEs quote.

Build the module first (see the README's *Python* section), then start Jupyter with
`PYTHONPATH=build/python` from the repository's root, or set `DALEMBERT_SOURCE_DIR`."""),
    ("code", """import os
import pathlib

import matplotlib.pyplot as plt
import numpy as np

import dalembert

ROOT = pathlib.Path(os.environ.get("DALEMBERT_SOURCE_DIR", pathlib.Path.cwd()))
if not (ROOT / "studies").is_dir():  # started from examples/python
    ROOT = pathlib.Path.cwd().parents[1]
FIGURES = pathlib.Path(os.environ.get("DALEMBERT_FIGURE_DIR", "."))
print("dalembert", dalembert.__version__, "studies from", ROOT / "studies")"""),
    ("markdown", """## Seed 000, Fig 1: energy error on the nonholonomic particle

`dalembert.run()` runs the study file as `dalembert run` does (into a temporary folder here) and
returns a `Run`; `run.trajectory(label)` is that integrator's recorded rows."""),
    ("code", """fig1 = dalembert.run(ROOT / "studies/newmark/fig1_particle.json")
print(fig1)
fig1.tasks[["label", "h", "steps", "final_energy_error", "max_abs_energy_error", "max_constraint_residual"]]"""),
    ("code", """fig, (lin, log) = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
for label in ["DLA", "RK4", "Psi_h"]:
    df = fig1.trajectory(label)
    lin.plot(df["t"], df["energy_error"], label=label)
    log.semilogy(df["t"], df["energy_error"].abs(), label=label)
lin.set_ylabel("$E(t) - E(0)$")
log.set_ylabel("$|E(t) - E(0)|$")
log.set_xlabel("t")
lin.legend()
lin.set_title("Seed 000, Fig 1: nonholonomic particle, h = 0.2")
fig.savefig(FIGURES / "seed000_fig1_energy.png", dpi=100)

# The numbers the figure shows (studies/newmark/README.md): RK4 settles at 6.63e-7,
# DLA and Psi_h end at +-1.25e-3, each keeps |E - E0| below 3.8e-3.
final = {label: fig1.trajectory(label)["energy_error"].iloc[-1] for label in ["DLA", "RK4", "Psi_h"]}
assert abs(final["RK4"] - 6.63e-7) < 2e-8, final
assert abs(final["DLA"] - 1.25e-3) < 0.005 * 1.25e-3, final
assert abs(final["Psi_h"] + 1.24e-3) < 0.005 * 1.24e-3, final
assert max(fig1.trajectory(l)["energy_error"].abs().max() for l in ["DLA", "Psi_h"]) < 3.9e-3
final"""),
    ("markdown", """## Seed 001, Fig 2: the Chaplygin sleigh

The skate point (columns `skate_x`, `skate_y` of the `diagnostics` observer) and the energy at
the nodes; `true` is RK4 at h = 10⁻³."""),
    ("code", """fig2 = dalembert.run(ROOT / "studies/kobilarov/fig2_sleigh.json")
fig, (path, energy) = plt.subplots(1, 2, figsize=(11, 4.5))
styles = {"true": dict(color="0.6", lw=4),  # the reference: first, thick, grey
          "RK2": dict(fmt="C0.-"), "GNI": dict(fmt="C1.-"), "RDP_exp1": dict(fmt="C2.-"), "RDP_cay": dict(fmt="C3.--")}
for label, style in styles.items():
    df = fig2.trajectory(label)
    fmt = style.pop("fmt", "-")
    kw = dict(ms=3, lw=1, **style) if "lw" not in style else dict(style)
    path.plot(df["skate_x"], df["skate_y"], fmt, label=label, **kw)
    energy.plot(df["t"], df["energy"], fmt, label=label, **kw)
path.set_xlabel("skate point $x_s$")
path.set_ylabel("skate point $y_s$")
path.legend()
energy.set_xlabel("t")
energy.set_ylabel("node energy $E(q_k, v_k)$")
fig.suptitle("Seed 001, Fig 2: Chaplygin sleigh, h = 0.15 (N = 100)")
fig.savefig(FIGURES / "seed001_fig2_sleigh.png", dpi=100)

# studies/kobilarov/README.md: GNI's node energy deviates by 9.4e-4 (1 %), RDP exp1 keeps E0 to
# 1e-13, RK2 drifts by 4.2e-3 (2 %); the final skate points rank RDP_exp1 < GNI < RK2 in error.
summary = fig2.tasks.set_index("label")["max_abs_energy_error"]
assert abs(summary["GNI"] - 9.4e-4) < 0.01 * 9.4e-4, summary
assert summary["RDP_exp1"] < 1e-13, summary
assert abs(summary["RK2"] - 4.2e-3) < 0.02 * 4.2e-3, summary
end = {l: fig2.trajectory(l)[["skate_x", "skate_y"]].iloc[-1].to_numpy() for l in ["true", "RK2", "GNI", "RDP_exp1"]}
err = {l: np.abs(end[l] - end["true"]).max() for l in ["RK2", "GNI", "RDP_exp1"]}
assert err["RDP_exp1"] < err["GNI"] < err["RK2"], err
summary"""),
    ("markdown", """## Stepping a system yourself

The same sleigh, stepped from Python one GNI step at a time, lands where the study's GNI run
ends, to the last bit."""),
    ("code", """sleigh = dalembert.system("chaplygin_sleigh", {"I": 1, "m": 1, "a": 0.3})
gni = dalembert.integrator("gni", sleigh, {"init": "paper"})
s = sleigh.state([0, 0, 0], [0.25, -1, 0.075])
for _ in range(100):
    gni.step(s, 0.15)
gni_task = fig2.tasks.set_index("label").loc["GNI"]
assert s.q.tolist() == gni_task["final_q"] and s.v.tolist() == gni_task["final_v"]
print(s, "E =", sleigh.energy(s))"""),
]

nb = {
    "nbformat": 4,
    "nbformat_minor": 5,
    "metadata": {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    },
    "cells": [],
}
for i, (kind, text) in enumerate(cells):
    cell = {"cell_type": kind, "id": f"cell-{i}", "metadata": {}, "source": text.splitlines(keepends=True)}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    nb["cells"].append(cell)
out = pathlib.Path(__file__).with_name("reproduce_figures.ipynb")
out.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
print(out)
