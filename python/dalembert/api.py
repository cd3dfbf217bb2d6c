"""The functions that need the compiled module _dalembert: runs, plugins, stepping."""
import math
import numbers
import os
import pathlib
import tempfile

from .load import Run


def _core():
    from . import _dalembert
    if _dalembert is None:
        from . import _import_error
        raise ImportError(f"dalembert's compiled module _dalembert is not available ({_import_error}); "
                          "only dalembert.load() works without it") from _import_error
    return _dalembert


def _shown(value):
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "..."


def _whole(where, value, least, most):
    """`value` as an int: a whole number (an int, or a float without a fraction) from least to most."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{where} = {_shown(value)}: expected a whole number")
    if not isinstance(value, numbers.Integral) and not (math.isfinite(value) and float(value).is_integer()):
        raise _core().InputError(f"{where} = {_shown(value)}: expected a whole number")
    n = int(value)
    if not least <= n <= most:
        raise _core().InputError(f"{where} = {_shown(value)}: expected a whole number from {least} to {most}")
    return n


def _real(where, value):
    """`value` as a float (None stays None); an int beyond a double is an InputError, not an OverflowError."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{where} = {_shown(value)}: expected a number")
    try:
        return float(value)
    except OverflowError:
        raise _core().InputError(f"{where} = {_shown(value)}: too large for a double") from None


def run(study, out=None, threads=None, quiet=True, plots=False):
    """Runs a study as ``dalembert run`` does and returns its Run.

    study: a path to a study file, or a dict with the same content (checked the same way; errors
    then name the file "study"). out: the run folder (replaced if it holds an earlier run); by
    default a new temporary folder <tmp>/dalembert-XXXX/<study name>. threads: worker threads
    (default: all cores). quiet: no summary tables or progress on the terminal. plots: draw the
    study's figures into <folder>/figures (python3 with matplotlib, as the command line does).
    The GIL is released while the study runs.
    """
    core = _core()
    if not isinstance(study, dict):
        study = os.fspath(study)
    if out is None:
        out = pathlib.Path(tempfile.mkdtemp(prefix="dalembert-")) / core.study_name(study)
    threads = 0 if threads is None else _whole("run: threads (0 or None: all cores)", threads, 0, 2**31 - 1)
    folder, _ = core.run_study(study, os.fspath(out), threads, quiet, plots)
    return Run(folder)


def plugins():
    """Every usable plugin (as ``dalembert list``): a DataFrame with name, kind, version, summary, seed, file."""
    import pandas as pd
    return pd.DataFrame(_core().plugins(), columns=["name", "kind", "version", "summary", "seed", "file"])


def describe(name):
    """What ``dalembert describe NAME`` shows, as a dict (a list of dicts if plugins of several kinds share the name)."""
    found = _core().describe(name)
    return found[0] if len(found) == 1 else found


def system(name, params=None):
    """A system plugin instance with its parameters (a dict; defaults filled in)."""
    return _core().System(name, params)


def integrator(name, system, params=None):
    """An integrator plugin instance bound to `system`."""
    return _core().Integrator(name, system, params)


def simulate(system, integrator, state, h, T, observers=(), record_every=1, max_steps=None):
    """Runs `integrator` on `system` from `state` for T/h steps of size h in C++ (the framework's
    Simulation loop, the GIL released) and returns the recorded rows as a DataFrame: column t, then
    each observer's columns; the initial state, every record_every-th step and the last are recorded.
    `state` is advanced in place to the final state. The observers' summaries are in df.attrs["summary"].

    observers: names, (name, params) pairs or {"plugin": name, "params": {...}} dicts.
    max_steps: T/h above it is refused before anything runs (None: 1e8, the study limit "steps").

    The run works on a copy of `state`: other threads see `state` unchanged until the run returns,
    and may not change it (or use `integrator`) meanwhile: that raises dalembert.Error. Ctrl-C (in
    the main thread) stops the run within about 0.1 s (or 64 steps, if longer) with
    KeyboardInterrupt, `state` then being the last completed step (t = t0 + k h). Any other error
    (dalembert.Error: a failed step, a non-finite state) leaves `state` as it was given.
    """
    import pandas as pd
    if isinstance(observers, (str, bytes, dict)):
        raise _core().InputError(f"simulate: observers = {_shown(observers)}: expected a list of names, "
                                 "(name, params) pairs or {\"plugin\", \"params\"} dicts")
    columns, rows, summary = _core().simulate(system, integrator, state, _real("simulate: h", h),
                                              _real("simulate: T", T), list(observers),
                                              _whole("simulate: record_every", record_every, 1, 2**62),
                                              _real("simulate: max_steps", max_steps))
    df = pd.DataFrame(rows, columns=columns, copy=False)
    df.attrs["summary"] = summary
    return df


def register_integrator(cls, name=None):
    """Makes `cls`, an integrator written in Python, a plugin named ``python:NAME`` (by default
    ``python:module.Class``, which studies may also name without registering) and returns the name.

    The class declares ``order`` (whole number, required), optionally ``symmetric`` (bool),
    ``parameters`` (dict of defaults: a study's ``params`` are checked against them and passed to
    ``__init__`` as keywords) and ``needs`` (default ``["ConstrainedLagrangian"]``), and has
    ``step(self, state, h)`` returning the new ``dalembert.State`` or a ``(q, v)`` pair; optionally
    ``bind(self, system)`` (the run's ``dalembert.System``, lent for the run: its model functions
    ``f``, ``M``, ``A``, ... are usable there) and ``start(self, state)``. Raising
    ``dalembert.StepFailure`` fails a step (the state is put back); any other exception ends the run.
    It then runs through ``simulate``, ``run`` (studies: observers, claims, fits, figures) and
    ``check_integrator``. Every call takes the GIL: a study's tasks step one at a time.
    """
    return _core().register_integrator(cls, name)


def check_integrator(name):
    """The conformance suite of ``dalembert check NAME`` on integrator `name` (a Python one too:
    order, symmetry, state unchanged after a failed step, needs) paired with every installed
    system: a DataFrame with check, example, system, verdict, detail; the printed table in
    ``df.attrs["text"]``. (The allocation count needs the command line's allocation hooks: it is
    reported as not exercised here.)"""
    import pandas as pd
    rows, text = _core().check_integrator(name)
    df = pd.DataFrame(rows, columns=["check", "example", "system", "verdict", "detail"])
    df.attrs["text"] = text
    return df
