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


__all__ = ["Error", "InputError", "StepFailure", "Run", "State", "System", "Integrator", "animate", "check_integrator",
           "describe", "integrator", "load", "plugins", "register_integrator", "run", "simulate", "system"]
