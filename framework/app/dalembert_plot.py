#!/usr/bin/env python3
"""Draw the figures a dalembert study asks for, from its run folder.

usage: dalembert_plot.py RUN_FOLDER

Reads RUN_FOLDER/manifest.json (the study as run, its tasks and files) and the tidy CSV files it
indexes, and writes RUN_FOLDER/figures/<name>.png and <name>.svg for every entry of the study's
"figures" list. Figure types:

  timeseries  one curve per task: column "y" against t; "panels": [{y, logy, abs, ylabel}, ...]
              stacks several panels sharing the t axis; "tasks" restricts to some labels
  path        one curve per task: column "x" against column "y" (equal axes)
  convergence log-log error ("y", default error_qv) against h from convergence.csv, one line per
              integrator, labelled with its fitted order
"""
import csv
import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_csv(path):
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


def task_files(manifest, wanted):
    out = []
    for f in manifest.get("files", []):
        if f.get("kind") != "trajectory":
            continue
        if wanted and f["label"] not in wanted:
            continue
        out.append(f)
    return out


def transform(values, spec):
    if spec.get("abs"):
        values = [abs(v) for v in values]
    if spec.get("logy"):
        values = [v if v > 0 else math.nan for v in values]
    return values


def draw_timeseries(ax_list, folder, manifest, fig):
    panels = fig.get("panels") or [fig]
    files = task_files(manifest, fig.get("tasks"))
    for ax, panel in zip(ax_list, panels):
        y = panel.get("y", fig.get("y"))
        for f in files:
            if y not in f["columns"]:
                raise SystemExit(f"figure {fig['name']}: column '{y}' is not in {f['path']} (columns: {f['columns']})")
            data = read_csv(os.path.join(folder, f["path"]))
            ax.plot(data["t"], transform(data[y], panel), label=f["label"], linewidth=1.0)
        if panel.get("logy"):
            ax.set_yscale("log")
        ax.set_ylabel(panel.get("ylabel", y))
        if "ylim" in panel:
            ax.set_ylim(*panel["ylim"])
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    ax_list[-1].set_xlabel(fig.get("xlabel", "t"))
    if "xlim" in fig:
        ax_list[-1].set_xlim(*fig["xlim"])


def draw_path(ax, folder, manifest, fig):
    for f in task_files(manifest, fig.get("tasks")):
        data = read_csv(os.path.join(folder, f["path"]))
        ax.plot(data[fig["x"]], data[fig["y"]], label=f["label"], linewidth=1.0)
    ax.set_xlabel(fig.get("xlabel", fig["x"]))
    ax.set_ylabel(fig.get("ylabel", fig["y"]))
    ax.set_aspect("equal", adjustable="datalim")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)


def draw_convergence(ax, folder, manifest, fig):
    y = fig.get("y", "error_qv")
    data = read_csv(os.path.join(folder, "convergence.csv"))
    fitted = {c["label"]: c for c in manifest.get("convergence", [])}
    labels = []
    for lab in data["label"]:
        if lab not in labels:
            labels.append(lab)
    for lab in labels:
        hs = [h for h, l in zip(data["h"], data["label"]) if l == lab]
        es = [e for e, l in zip(data[y], data["label"]) if l == lab]
        c = fitted.get(lab, {})
        order = c.get("fitted_order")
        text = f"{lab} (order {order:.2f})" if order is not None else lab
        ax.loglog(hs, [e if e > 0 else math.nan for e in es], "o-", label=text, linewidth=1.0, markersize=4)
    ax.set_xlabel(fig.get("xlabel", "h"))
    ax.set_ylabel(fig.get("ylabel", y))
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    folder = sys.argv[1]
    with open(os.path.join(folder, "manifest.json")) as f:
        manifest = json.load(f)
    figures = manifest["study"].get("figures", [])
    outdir = os.path.join(folder, "figures")
    os.makedirs(outdir, exist_ok=True)
    for fig in figures:
        kind = fig["type"]
        if kind == "timeseries":
            panels = fig.get("panels") or [fig]
            f, axes = plt.subplots(len(panels), 1, figsize=(7, 2.6 * len(panels) + 0.6), sharex=True, squeeze=False)
            draw_timeseries([a[0] for a in axes], folder, manifest, fig)
        elif kind == "path":
            f, ax = plt.subplots(figsize=(6, 6))
            draw_path(ax, folder, manifest, fig)
        elif kind == "convergence":
            f, ax = plt.subplots(figsize=(6.5, 5))
            draw_convergence(ax, folder, manifest, fig)
        else:
            raise SystemExit(f"figure {fig['name']}: unknown type {kind}")
        if "title" in fig:
            f.suptitle(fig["title"], fontsize=10)
        f.tight_layout()
        for ext in ("png", "svg"):
            f.savefig(os.path.join(outdir, f"{fig['name']}.{ext}"), dpi=150)
        plt.close(f)


if __name__ == "__main__":
    main()
