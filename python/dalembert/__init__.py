"""dalembert from Python: run studies, step systems, read results as numpy arrays and pandas DataFrames.

    import dalembert
    run = dalembert.run("studies/newmark/fig1_particle.json")   # or a dict
    run.trajectory("DLA")                                       # a DataFrame
    old = dalembert.load("results/fig1_particle")               # a run folder of the command line

    sleigh = dalembert.system("chaplygin_sleigh", {"I": 1, "m": 1, "a": 0.3})
    gni = dalembert.integrator("gni", sleigh)
    s = sleigh.state([0, 0, 0], [0.25, -1, 0.075])
    gni.step(s, 0.15); sleigh.energy(s)
    df = dalembert.simulate(sleigh, gni, s, 0.15, 15, observers=["energy_error"])
    dalembert.animate(run, "DLA")                               # the system moving (Jupyter shows it)

An integrator written in Python (a class with ``order`` and ``step(state, h)``; see
``register_integrator``) runs wherever a plugin does, as ``"python:module.Class"``.

``load`` and ``Run`` are pure Python (with pandas), and so are ``dalembert.run_folder`` (the reader
of a run folder they share with the plotting program) and ``dalembert.plot`` (the plotting program
``dalembert plot`` starts, with matplotlib); everything else needs the compiled module
``_dalembert``. Framework errors arrive as ``dalembert.Error`` (bad input: ``dalembert.InputError``),
carrying the one-line message the command line prints after "error: ".
"""
from .load import Run, load

try:
    from . import _dalembert
except ImportError as _e:  # the loader works without it
    _dalembert = None
    _import_error = _e

    class Error(RuntimeError):
        """A framework error (the compiled module is not available)."""

    class InputError(Error):
        """Bad input (the compiled module is not available)."""

    class StepFailure(Error):
        """A failed step (the compiled module is not available)."""
else:
    from ._dalembert import Error, InputError, Integrator, State, StepFailure, System
    __version__ = _dalembert.version

from .api import check_integrator, describe, integrator, plugins, register_integrator, run, simulate, system


def animate(run, label=None, frames=100, fps=20, dpi=80, size=4.5):
    """The system of a run (a folder, or what ``load``/``run`` return) moving along the trajectory of
    integrator `label` (default: the first), drawn as the system declares (``dalembert.animation``,
    matplotlib, imported only now): an ``Animation`` that Jupyter shows, with ``.save("x.gif" or
    "x.mp4")`` and ``.save_frame(k, "x.png")``."""
    from .animation import animate as _animate
    return _animate(run, label, frames=frames, fps=fps, dpi=dpi, size=size)


def system_from_sympy(q, L, A=None, *, v=None, t=None, b=None, g=None, constraints=None, params=None, name=None,
                      example=None, summary=None, drawing=None):
    """A system derived in SymPy: writes the L-and-A model of L = ½vᵀM(q)v − V(q) with the constraints
    A(q)v + b(t, q) = 0 (and g(q) = 0) as a C++ plugin, builds it with dalembert's CMake package in
    the user's cache folder (once per source: a second call reuses it), loads it and returns a
    ``SympySystem`` — a ``dalembert.System`` usable by ``simulate``, integrators, studies (by its
    name, also from the command line with DALEMBERT_PLUGIN_PATH=<cache>/generated_plugins/plugins),
    with ``.model``, ``.equations`` and ``.latex()`` (the equations of motion; Jupyter shows them).

    q: the coordinates, SymPy dynamicsymbols (velocities q'(t)) or symbols with their velocities as
    v=. L: the Lagrangian, exactly quadratic in the velocities (M is its Hessian in v, V = −L at
    v = 0). A: the constraint matrix (a Matrix or list of rows, r×n), with b= its affine part
    b(t, q) (t: the time symbol, default t); or constraints= expressions affine in the velocities
    (a θ̇ + sin θ ẋ − cos θ ẏ), from which A and b are read. g: holonomic constraints g(q) = 0.
    params: {symbol or name: default or (default, doc[, min[, max]])}, the plugin's parameters.
    name: the plugin's name (default sympy_<12 hex digits of its source>). example: (q, v[, h]),
    the state `dalembert check` and the conformance suite start from. drawing: how it looks, a dict
    of core/drawable.hpp's form reading the q names (e.g. a shipped system's,
    ``dalembert.describe("chaplygin_sleigh")["instance"]["drawing"]``), so that its runs can be
    animated (``dalembert.animate``). Bad input is a
    ``dalembert.InputError`` (one line naming the term or symbol); a failed build a
    ``dalembert.Error`` quoting the first compiler errors and naming the generated source.
    """
    from .api import _core
    _core()  # the compiled module, or an ImportError saying it is missing
    from .sympy_system import system_from_sympy as _from_sympy
    return _from_sympy(q, L, A, v=v, t=t, b=b, g=g, constraints=constraints, params=params, name=name,
                       example=example, summary=summary, drawing=drawing)


__all__ = ["Error", "InputError", "StepFailure", "Run", "State", "System", "Integrator", "animate", "check_integrator",
           "describe", "integrator", "load", "plugins", "register_integrator", "run", "simulate", "system",
           "system_from_sympy"]
