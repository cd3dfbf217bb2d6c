"""Writes lab_bench.ipynb (nbformat 4) from the cells below: edit here, then run
    /usr/bin/python3 examples/python/make_lab_notebook.py
"""
import json
import pathlib

cells = [
    ("markdown", """# The lab bench: derive a system, prototype an integrator, fit its order, watch it move

Everything a researcher does before writing a study, from Python (issue 31):

1. **derive** the Chaplygin sleigh (seed 001 §6.1) in SymPy and let `dalembert.system_from_sympy`
   build it as a plugin; show its equations of motion, check its derivatives, compare it with the
   shipped `chaplygin_sleigh`;
2. **prototype** an integrator in Python — Kutta's third-order method on the constrained field —
   and run it through `dalembert.simulate`;
3. **fit its order** against the sleigh's closed-form solution;
4. **animate** a run of the prototype on the derived sleigh.

Each step asserts its numbers. Build the module first (README, *Python*), then start Jupyter with
`PYTHONPATH=build/python` from the repository's root. The first call of `system_from_sympy` compiles
the plugin (about 30 s); later calls with the same expressions reuse it from the cache."""),
    ("code", """import os
import pathlib

import matplotlib.pyplot as plt
import numpy as np
import sympy
from sympy.physics.vector import dynamicsymbols

import dalembert

FIGURES = pathlib.Path(os.environ.get("DALEMBERT_FIGURE_DIR", "."))
print("dalembert", dalembert.__version__)"""),
    ("markdown", """## 1. Derive

q = (θ, x, y), the pose of the centre of mass; the skate, a behind it, cannot slip sideways:
a θ̇ + sin θ ẋ − cos θ ẏ = 0. L is the kinetic energy. The sleigh borrows the shipped plugin's
drawing (a body and its skate), so that the run can be animated."""),
    ("code", """t = sympy.Symbol("t")
theta, x, y = dynamicsymbols("theta x y")
I, m, a = sympy.symbols("I m a")
L = I * theta.diff(t) ** 2 / 2 + m * (x.diff(t) ** 2 + y.diff(t) ** 2) / 2
skate = a * theta.diff(t) + sympy.sin(theta) * x.diff(t) - sympy.cos(theta) * y.diff(t)
Q0, V0 = [0.0, 0.0, 0.0], [0.25, -1.0, 0.075]  # seed 001, Fig 2
sleigh = dalembert.system_from_sympy(
    [theta, x, y], L, constraints=[skate], params={I: 1.0, m: 1.0, a: 0.3}, name="lab_sleigh",
    example=(Q0, V0), drawing=dalembert.describe("chaplygin_sleigh")["instance"]["drawing"])
sleigh"""),
    ("markdown", """The derivative checker (`dalembert check`) on the generated model: the framework's AD
against finite differences, M symmetric positive definite, A of full rank."""),
    ("code", """report = sleigh.check()
assert report.ok.all(), report
report[["function", "states", "worst_relative_error", "ok"]]"""),
    ("markdown", """The derived model equals the shipped plugin, function by function, at random states."""),
    ("code", """shipped = dalembert.system("chaplygin_sleigh")
rng = np.random.default_rng(1)
worst = 0.0
for _ in range(20):
    q, v = rng.normal(size=3), rng.normal(size=3)
    for fn in ("M", "A"):
        worst = max(worst, np.abs(getattr(sleigh, fn)(q) - getattr(shipped, fn)(q)).max())
    worst = max(worst, np.abs(sleigh.f(0.0, q, v) - shipped.f(0.0, q, v)).max())
print("largest difference from chaplygin_sleigh:", worst)
assert worst <= 1e-14"""),
    ("markdown", """## 2. Prototype

Kutta's third-order method (tableau c = (0, ½, 1), b = (⅙, ⅔, ⅙)) on q̇ = v, v̇ = f(t, q, v), the
field the model gives Python (`System.f`, its multipliers from the C++ AD). A class with `order` and
`step` is an integrator; `register_integrator` names it `python:kutta3` for `simulate` and studies."""),
    ("code", """class Kutta3:
    order = 3

    def bind(self, system):
        self.f = system.f

    def step(self, s, h):
        f, t, q, v = self.f, s.t, s.q, s.v
        k1q, k1v = v, f(t, q, v)
        k2q, k2v = v + h / 2 * k1v, f(t + h / 2, q + h / 2 * k1q, v + h / 2 * k1v)
        q3, v3 = q + h * (2 * k2q - k1q), v + h * (2 * k2v - k1v)
        k3q, k3v = v3, f(t + h, q3, v3)
        return q + h / 6 * (k1q + 4 * k2q + k3q), v + h / 6 * (k1v + 4 * k2v + k3v)


name = dalembert.register_integrator(Kutta3, "kutta3")
s = sleigh.state(Q0, V0)
df = dalembert.simulate(sleigh, dalembert.integrator(name, sleigh), s, 0.05, 10.0,
                        observers=["energy_error", "constraint_residual"])
df[["t", "energy_error", "constraint_residual"]].describe().loc[["min", "max"]]"""),
    ("markdown", """## 3. Fit its order

The error at T = 1 against the closed form of spec 001 §2.1 (the shipped plugin's
`exact_solution`), over a ladder of step sizes; the slope of log error against log h is the order."""),
    ("code", """def error(h, T=1.0):
    s = sleigh.state(Q0, V0)
    dalembert.simulate(sleigh, dalembert.integrator(name, sleigh), s, h, T)
    exact = shipped.exact_solution(shipped.state(Q0, V0), T)
    return max(np.abs(s.q - exact.q).max(), np.abs(s.v - exact.v).max())


hs = np.array([0.1, 0.05, 0.025, 0.0125])
errors = np.array([error(h) for h in hs])
order = np.polyfit(np.log(hs), np.log(errors), 1)[0]
print("errors:", errors, " fitted order:", round(order, 3))
assert abs(order - 3) < 0.15

fig, ax = plt.subplots(figsize=(5, 4))
ax.loglog(hs, errors, "o-", label=f"Kutta3 (Python), fitted order {order:.2f}")
ax.loglog(hs, errors[0] * (hs / hs[0]) ** 3, "k:", label="slope 3")
ax.set_xticks(hs, [f"{h:g}" for h in hs])
ax.minorticks_off()
ax.set_xlabel("step size h")
ax.set_ylabel("error at T = 1")
ax.legend()
fig.savefig(FIGURES / "lab_bench_order.png", dpi=100, bbox_inches="tight")"""),
    ("markdown", """## 4. Watch it move

A study run from Python names both the derived system and the Python integrator; the animation
draws the sleigh along the run with the path of its skate (in Jupyter the object plays itself)."""),
    ("code", """study = {"name": "lab_sleigh", "kind": "trajectory",
         "system": {"plugin": "lab_sleigh"}, "initial": {"q": Q0, "v": V0},
         "h": 0.05, "T": 15.0, "integrators": [{"label": "Kutta3", "plugin": name}],
         "observers": ["trajectory", "energy_error"]}
run = dalembert.run(study)
movie = dalembert.animate(run, "Kutta3", frames=40, dpi=80)
movie.save_frame(movie.n_frames - 1, FIGURES / "lab_bench_last_frame.png")
movie.save(FIGURES / "lab_bench.gif")
assert (FIGURES / "lab_bench.gif").stat().st_size > 0
movie"""),
]


def cell(kind, text):
    lines = text.split("\n")
    source = [line + "\n" for line in lines[:-1]] + [lines[-1]]
    c = {"cell_type": kind, "metadata": {}, "source": source}
    if kind == "code":
        c.update(execution_count=None, outputs=[])
    return c


notebook = {
    "cells": [cell(k, t) for k, t in cells],
    "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                 "language_info": {"name": "python"}},
    "nbformat": 4,
    "nbformat_minor": 5,
}
out = pathlib.Path(__file__).with_name("lab_bench.ipynb")
out.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n")
print("wrote", out)
