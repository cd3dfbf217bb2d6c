"""Reading a run folder into pandas (pure Python: needs pandas, not the compiled module).

A run folder is what ``dalembert run`` writes: ``manifest.json`` and the tables it lists in
``manifest["files"]``. The folder is read by ``dalembert.run_folder`` (the reader the plotting
program uses too): files are found through that list only, never by their names; trajectories of
a study with ``"record_format": "npy"`` are NumPy ``.npy`` files, read into the same DataFrames.
"""
from .run_folder import RunFolder, is_npy, read_npy

__all__ = ["Run", "load"]


class _Pandas:
    """pandas, imported when a table is first read: ``import dalembert`` (e.g. by the plotting
    program, dalembert.plot) does not pay for it."""

    def __getattr__(self, name):
        import pandas
        return getattr(pandas, name)


pd = _Pandas()


def _read_table(path, entry):
    if is_npy(path, entry):  # a structured array with one float64 field per column
        return pd.DataFrame(read_npy(path))
    # The framework writes the shortest text that reads back as the same double; pandas' default
    # parser may be one unit in the last place off, its round-trip parser is exact.
    return pd.read_csv(path, float_precision="round_trip")


class Run(RunFolder):
    """A finished run folder: the manifest as a dict and its tables as pandas DataFrames.

    Tables are read when first asked for, then kept.
    """

    def __init__(self, folder):
        super().__init__(folder)
        self._cache = {}

    def __repr__(self):
        return f"Run({str(self.folder)!r}, {self.kind} study {self.name!r})"

    # ---- what the run was (name, kind, study: RunFolder) -------------------------------------
    @property
    def files(self):
        """manifest["files"] as a DataFrame (path, kind, label, ...)."""
        return pd.DataFrame(self.manifest.get("files", []))

    def _table(self, entry):
        path = entry["path"]
        if path not in self._cache:
            self._cache[path] = _read_table(self.path(entry), entry)
        return self._cache[path]

    def _by_label(self, kind):
        out = {}
        for f in self.entries(kind):
            out[f.get("label", f["path"])] = self._table(f)
        return out

    # ---- tasks -----------------------------------------------------------------------------
    @property
    def tasks(self):
        """One row per task of manifest["tasks"]: id, label, integrator, h, steps, wall_time_s, ok,
        then the observers' summaries as columns, and the final state (final_t, final_q, final_v).
        An ensemble lists no member tasks (see member_summaries): its table has the columns only."""
        rows = []
        for t in self.manifest.get("tasks", []):
            row = {k: v for k, v in t.items() if k not in ("summary", "final")}
            for name, value in (t.get("summary") or {}).items():
                row[name] = float("nan") if value is None else value
            final = t.get("final")
            if final is not None:
                row["final_t"] = final["t"]
                row["final_q"] = final["q"]
                row["final_v"] = final["v"]
            rows.append(row)
        return pd.DataFrame(rows, columns=None if rows else
                            ["id", "label", "integrator", "h", "steps", "wall_time_s", "ok"])

    # ---- trajectory studies ----------------------------------------------------------------
    @property
    def trajectories(self):
        """{label: DataFrame} of every trajectory file (columns t, then the observers' columns)."""
        return self._by_label("trajectory")

    def trajectory(self, label, h=None):
        """The trajectory of integrator `label` (and step size h, if the label ran at several)."""
        found = [f for f in self.entries("trajectory", label) if h is None or f.get("h") == h]
        if not found:
            labels = sorted({f.get("label") for f in self.entries("trajectory")})
            raise KeyError(f"no trajectory labelled {label!r}" + ("" if h is None else f" at h = {h}") +
                           f" in {self.folder} (labels: {', '.join(labels) or 'none'})")
        if len(found) > 1:
            raise KeyError(f"{label!r} has trajectories at h = {', '.join(str(f['h']) for f in found)}: give h")
        return self._table(found[0])

    # ---- convergence studies ---------------------------------------------------------------
    @property
    def convergence(self):
        """The convergence table (convergence.csv): label, h, steps, errors."""
        found = self.entries("convergence")
        return self._table(found[0]) if found else pd.DataFrame()

    @property
    def orders(self):
        """One row per integrator: declared and fitted order, successive orders, points used, agrees, status."""
        rows = []
        for c in self.manifest.get("convergence", []):
            row = {k: v for k, v in c.items() if k != "errors"}
            if row.get("fitted_order") is None:
                row["fitted_order"] = float("nan")
            rows.append(row)
        return pd.DataFrame(rows)

    @property
    def reference(self):
        """The convergence reference (manifest["reference"]), or None."""
        return self.manifest.get("reference")

    # ---- ensemble studies ------------------------------------------------------------------
    @property
    def ensemble(self):
        """{label: DataFrame} of the ensemble statistics over time (mean, variance, quantiles)."""
        return self._by_label("ensemble_statistics")

    @property
    def members(self):
        """{label: DataFrame} of every member's recorded rows (when the study writes them)."""
        return self._by_label("ensemble_members")

    @property
    def initial_states(self):
        """{label: DataFrame} of every member's sampled initial state."""
        return self._by_label("ensemble_initial")

    @property
    def member_summaries(self):
        """One row per (label, member): the member's summaries. From the files of kind
        "ensemble_summaries" when the run wrote them, else from the member tasks of the manifest."""
        files = self.entries("ensemble_summaries")
        if files:
            frames = []
            for f in files:
                df = self._table(f).copy()
                df.insert(0, "label", f.get("label"))
                frames.append(df)
            return pd.concat(frames, ignore_index=True)
        rows = []
        for t in self.manifest.get("tasks", []):
            if "member" not in t:
                continue
            row = {"label": t["label"], "member": t["member"]}
            for name, value in (t.get("summary") or {}).items():
                row[name] = float("nan") if value is None else value
            rows.append(row)
        return pd.DataFrame(rows)

    @property
    def ensemble_summary(self):
        """One row per (label, summary name): min, max and mean over the members (manifest["ensemble"])."""
        rows = []
        for e in self.manifest.get("ensemble", []):
            for name, stats in e.get("summary", {}).items():
                rows.append({"label": e["label"], "members": e["members"], "summary": name, **stats})
        return pd.DataFrame(rows)

    # ---- sweep studies ---------------------------------------------------------------------
    @property
    def sweep(self):
        """The sweep table (sweep.csv): one row per cell and integrator."""
        found = self.entries("sweep")
        return self._table(found[0]) if found else pd.DataFrame()

    @property
    def cells(self):
        """One row per cell of the sweep: cell, folder, ok, the axis values (error if it failed)."""
        return pd.DataFrame(self.manifest.get("cells", []))

    def cell(self, i):
        """Cell i of a sweep, as a Run."""
        for c in self.manifest.get("cells", []):
            if c["cell"] == i:
                return Run(self.folder / c["folder"])
        raise KeyError(f"the sweep has no cell {i}")

    # ---- linear_stability studies ----------------------------------------------------------
    @property
    def eigenvalues(self):
        """The tracked eigenvalues (eigenvalues.csv): value, branch, real, imag — every branch at
        every value of the parameter grid, the structural zeros as the last branches."""
        found = self.entries("eigenvalues")
        return self._table(found[0]) if found else pd.DataFrame()

    @property
    def critical(self):
        """One row per critical value (manifest["linear_stability"]["critical"]): type, value,
        bracket, residual, branches, eigenvalue (re, im), stability, ..."""
        return pd.DataFrame((self.manifest.get("linear_stability") or {}).get("critical", []))

    @property
    def stable_ranges(self):
        """The stable ranges of the parameter, [(lo, hi), ...]."""
        return [tuple(r) for r in (self.manifest.get("linear_stability") or {}).get("stable_ranges", [])]

    # ---- claims ----------------------------------------------------------------------------
    @property
    def claims(self):
        """One row per checked claim: id, verdict, value, comparison, quantity, ..."""
        return pd.DataFrame((self.manifest.get("claims") or {}).get("results", []))

    @property
    def claims_failed(self):
        return (self.manifest.get("claims") or {}).get("failed", 0)


def load(folder):
    """The run in `folder` (written by ``dalembert run`` or ``dalembert.run``) as a Run."""
    return Run(folder)
