"""The functions that need the compiled module _dalembert: runs, plugins, stepping."""
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
    threads = 0 if threads is None else int(threads)
    if threads < 0:
        raise ValueError(f"threads = {threads}: expected a whole number >= 0 (0 or None: all cores)")
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


def simulate(system, integrator, state, h, T, observers=(), record_every=1):
    """Runs `integrator` on `system` from `state` for T/h steps of size h in C++ (the framework's
    Simulation loop, the GIL released) and returns the recorded rows as a DataFrame: column t, then
    each observer's columns; the initial state, every record_every-th step and the last are recorded.
    `state` is advanced in place to the final state. The observers' summaries are in df.attrs["summary"].

    observers: names, (name, params) pairs or {"plugin": name, "params": {...}} dicts.
    """
    import pandas as pd
    columns, rows, summary = _core().simulate(system, integrator, state, float(h), float(T), list(observers),
                                              int(record_every))
    df = pd.DataFrame(rows, columns=columns, copy=False)
    df.attrs["summary"] = summary
    return df
