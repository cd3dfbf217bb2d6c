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
