"""A run folder as ``dalembert run`` writes it: the one reader of the plotting program
(``dalembert.plot``) and of ``dalembert.load`` (standard library only; numpy for ``.npy`` tables).

A run folder holds ``manifest.json`` and the tables it lists in ``manifest["files"]`` (each entry
with ``path``, ``kind`` and, per integrator, ``label``). Tables are found through that list only,
never by their names. A table is a tidy CSV file, or a NumPy ``.npy`` structured array (one float64
field per column) where the entry says ``"format": "npy"`` (trajectories of a study with
``"record_format": "npy"``).
"""
import csv
import json
import pathlib

__all__ = ["RunFolder", "is_npy", "read_columns", "read_npy"]


def is_npy(path, entry=None):
    """Whether the table at `path` (indexed by manifest entry `entry`) is a .npy file."""
    return (entry or {}).get("format") == "npy" or pathlib.Path(path).suffix == ".npy"


def read_npy(path):
    """A .npy table: the structured array, one float64 field per column."""
    import numpy as np
    try:  # numpy >= 1.24 refuses headers above 10000 bytes (~400 columns) unless told
        return np.load(path, max_header_size=1 << 24)
    except TypeError:
        return np.load(path)


def read_columns(path, entry=None):
    """A table's columns by name, as lists: numbers as floats, other cells (labels) as text."""
    if is_npy(path, entry):
        data = read_npy(path)
        return {name: data[name].tolist() for name in data.dtype.names}
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    cols = {name: [] for name in header}
    for r in body:
        for name, cell in zip(header, r):
            try:
                cols[name].append(float(cell))
            except ValueError:
                cols[name].append(cell)
    return cols


class RunFolder:
    """A finished run folder: its manifest and its indexed tables."""

    def __init__(self, folder):
        self.folder = pathlib.Path(folder)
        manifest = self.folder / "manifest.json"
        if not manifest.is_file():
            raise FileNotFoundError(f"{self.folder}: not a run folder (it has no manifest.json)")
        with open(manifest) as f:
            self.manifest = json.load(f)

    @property
    def study(self):
        """The study as it ran, every default filled in (a dict)."""
        return self.manifest["study"]

    @property
    def name(self):
        return self.study["name"]

    @property
    def kind(self):
        return self.study["kind"]

    def entries(self, kind, labels=None):
        """The entries of manifest["files"] of one kind, in the manifest's order; with `labels` (a
        label or a list of them; None or empty: every one), only those of these integrator labels."""
        if isinstance(labels, str):
            labels = [labels]
        return [f for f in self.manifest.get("files", [])
                if f.get("kind") == kind and (not labels or f.get("label") in labels)]

    def entry(self, kind):
        """The one file of a kind (e.g. "convergence", "sweep"); an error names the kind if the
        manifest lists none."""
        found = self.entries(kind)
        if not found:
            raise FileNotFoundError(f"{self.folder}: the manifest lists no {kind} table")
        return found[0]

    def path(self, entry):
        """The file of a manifest entry."""
        return self.folder / entry["path"]

    def columns(self, entry):
        """The table of a manifest entry, its columns by name (see read_columns)."""
        return read_columns(self.path(entry), entry)
