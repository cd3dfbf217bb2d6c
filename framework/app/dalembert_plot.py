#!/usr/bin/env python3
"""Draw the figures a dalembert study asks for, from its run folder.

usage: dalembert_plot.py RUN_FOLDER

Reads RUN_FOLDER/manifest.json (the study as run, its tasks and files) and the tidy CSV files it
indexes, and writes RUN_FOLDER/figures/<name>.png and <name>.svg for every entry of the study's
"figures" list. Figure types:

  timeseries  one curve per task: column "y" against t; "panels": [{y, logy, abs, ylabel, tasks, x}, ...]
              stacks several panels sharing the t axis; "tasks" restricts to some labels (per figure or
              per panel); a panel's "x" names another time column (e.g. "t_half")
  path        one curve per task: column "x" against column "y" (equal axes); "inset": {center, halfwidth}
              adds a zoomed inset
  convergence log-log error ("y", default error_qv) against h from convergence.csv, one line per
              integrator, labelled with its fitted order
  members     ensembles: column "y" of every member against t (ensemble_members_<label>.csv); with
              "x" and "times", every member's point (x, y) at those times
  (path and members snapshots take "outline": {"ellipse": [a, b]}, e.g. a billiard table)
  ensemble    ensembles: a statistics column "y" (e.g. energy_error_var) against t, one line per
              integrator; "band": "c" shades the c_q5..c_q95 quantile band of column c instead
  sweep       sweeps: metric "y" against axis "x" from sweep.csv, one line per integrator (and per
              value of the second axis "series"); "vlines"/"hlines": [{"at": value, "label": text}]
              draw reference values (e.g. a derived stability threshold) as dashed lines
  heatmap     sweeps: metric "value" over axes "x" and "y" for integrator "label"
  summary     trajectory studies run at several step sizes: a task summary "y" against the task's h,
              log-log, one line per label prefix (the label up to its first "_"), with the slope
              fitted over the "fit" smallest h
  snapshots   bodies at chosen "times": circles of "radius" at columns x_<i>, y_<i> of the first
              trajectory file, the outline joining them, and a wall at x = "wall_x" if given
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


def files_of_kind(manifest, kind, wanted):
    """The indexed files of one kind, restricted to the labels in `wanted` when given."""
    return [f for f in manifest.get("files", []) if f.get("kind") == kind and (not wanted or f["label"] in wanted)]


def task_files(manifest, wanted):
    return files_of_kind(manifest, "trajectory", wanted)


def finish_plane(ax, fig, legend_size):
    """Axes of a figure in the (x, y) plane: table outline, labels, equal scales, grid, legend."""
    draw_outline(ax, fig)
    ax.set_xlabel(fig.get("xlabel", fig["x"]))
    ax.set_ylabel(fig.get("ylabel", fig["y"]))
    ax.set_aspect("equal", adjustable="datalim")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=legend_size)


def transform(values, spec):
    if spec.get("abs"):
        values = [abs(v) for v in values]
    if spec.get("logy"):
        values = [v if v > 0 else math.nan for v in values]
    return values


def draw_timeseries(ax_list, folder, manifest, fig):
    panels = fig.get("panels") or [fig]
    for ax, panel in zip(ax_list, panels):
        y = panel.get("y", fig.get("y"))
        files = task_files(manifest, panel.get("tasks", fig.get("tasks")))  # a panel may restrict its tasks
        for f in files:
            if y not in f["columns"]:
                raise SystemExit(f"figure {fig['name']}: column '{y}' is not in {f['path']} (columns: {f['columns']})")
            data = read_csv(os.path.join(folder, f["path"]))
            x = panel.get("x", "t")  # e.g. "t_half": half-step quantities at t_{k+1/2}
            ax.plot(data[x], transform(data[y], panel), label=f["label"], linewidth=1.0)
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


def draw_outline(ax, fig):
    """"outline": {"ellipse": [a, b]} draws the table x²/a² + y²/b² = 1."""
    if "ellipse" in fig.get("outline", {}):
        a, b = fig["outline"]["ellipse"]
        ts = [2 * math.pi * k / 400 for k in range(401)]
        ax.plot([a * math.cos(t) for t in ts], [b * math.sin(t) for t in ts], "k-", linewidth=1.2)


def draw_path(ax, folder, manifest, fig):
    inset = fig.get("inset")  # {"center": [x, y], "halfwidth": w}: a zoomed inset (seed 001 Fig 2)
    axin = ax.inset_axes([0.58, 0.58, 0.4, 0.4]) if inset else None
    for f in task_files(manifest, fig.get("tasks")):
        data = read_csv(os.path.join(folder, f["path"]))
        ax.plot(data[fig["x"]], data[fig["y"]], label=f["label"], linewidth=1.0)
        if axin is not None:
            axin.plot(data[fig["x"]], data[fig["y"]], ".-", linewidth=0.8, markersize=3)
    if axin is not None:
        (cx, cy), w = inset["center"], inset["halfwidth"]
        axin.set_xlim(cx - w, cx + w)
        axin.set_ylim(cy - w, cy + w)
        axin.tick_params(labelsize=6)
        ax.indicate_inset_zoom(axin, edgecolor="gray")
    finish_plane(ax, fig, 8)


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


def draw_member_snapshots(ax, folder, manifest, fig):
    """Every member's point (x, y) at each of the chosen times, one colour per time."""
    for f in files_of_kind(manifest, "ensemble_members", fig.get("tasks")):
        data = read_csv(os.path.join(folder, f["path"]))
        for want in fig["times"]:
            idx = [i for i, t in enumerate(data["t"]) if abs(t - want) < 1e-9 * max(1.0, abs(want))]
            ax.plot([data[fig["x"]][i] for i in idx], [data[fig["y"]][i] for i in idx], ".", markersize=3,
                    label=f"{f['label']}, t = {want:g} ({len(idx)} members)")
    finish_plane(ax, fig, 7)


def draw_members(ax, folder, manifest, fig):
    if "times" in fig:
        return draw_member_snapshots(ax, folder, manifest, fig)
    y = fig["y"]
    for f in files_of_kind(manifest, "ensemble_members", fig.get("tasks")):
        data = read_csv(os.path.join(folder, f["path"]))
        members = sorted(set(data["member"]))
        for m in members:
            idx = [i for i, v in enumerate(data["member"]) if v == m]
            ax.plot([data["t"][i] for i in idx], [data[y][i] for i in idx], linewidth=0.4, alpha=0.5)
        ax.set_title(f"{f['label']}: {len(members)} members", fontsize=9)
    ax.set_xlabel(fig.get("xlabel", "t"))
    ax.set_ylabel(fig.get("ylabel", y))
    ax.grid(True, alpha=0.3)


def draw_ensemble(ax, folder, manifest, fig):
    for f in files_of_kind(manifest, "ensemble_statistics", fig.get("tasks")):
        data = read_csv(os.path.join(folder, f["path"]))
        if fig.get("band"):
            c = fig["band"]
            qs = sorted(k for k in data if k.startswith(c + "_q"))
            if len(qs) >= 2:
                ax.fill_between(data["t"], data[qs[0]], data[qs[-1]], alpha=0.25)
            ax.plot(data["t"], data[c + "_mean"], label=f["label"], linewidth=1.0)
        else:
            ax.plot(data["t"], transform(data[fig["y"]], fig), label=f["label"], linewidth=1.0)
    if fig.get("logy"):
        ax.set_yscale("log")
    ax.set_xlabel(fig.get("xlabel", "t"))
    ax.set_ylabel(fig.get("ylabel", fig.get("y", fig.get("band", ""))))
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)


def draw_sweep(ax, folder, manifest, fig):
    data = read_csv(os.path.join(folder, "sweep.csv"))
    x, y, series = fig["x"], fig["y"], fig.get("series")
    keys = []
    for i in range(len(data["label"])):
        k = (data["label"][i], data[series][i] if series else None)
        if k not in keys:
            keys.append(k)
    styles = [("o", "-", 7), ("s", "--", 5), ("^", ":", 4), ("D", "-.", 3)]  # coinciding curves stay visible
    for n, (lab, sv) in enumerate(keys):
        idx = [i for i in range(len(data["label"])) if data["label"][i] == lab and (not series or data[series][i] == sv)]
        text = lab + (f", {series} = {sv:g}" if series else "")
        marker, line, size = styles[n % len(styles)]
        ax.plot([data[x][i] for i in idx], transform([data[y][i] for i in idx], fig), marker=marker, linestyle=line,
                label=text, markersize=size)
    if fig.get("logy"):
        ax.set_yscale("log")
    draw_reference_lines(ax, fig)
    ax.set_xlabel(fig.get("xlabel", x))
    ax.set_ylabel(fig.get("ylabel", y))
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)


def draw_reference_lines(ax, fig):
    """Dashed reference lines: "vlines"/"hlines" lists of {"at": value, "label": text}."""
    for key, draw, style in (("vlines", ax.axvline, "--"), ("hlines", ax.axhline, ":")):
        for line in fig.get(key, []):
            draw(float(line["at"]), color="0.3", linestyle=style, linewidth=1.2, label=line.get("label"))


def draw_heatmap(ax, folder, manifest, fig):
    data = read_csv(os.path.join(folder, "sweep.csv"))
    x, y, v = fig["x"], fig["y"], fig["value"]
    idx = [i for i in range(len(data["label"])) if not fig.get("label") or data["label"][i] == fig["label"]]
    xs = sorted(set(data[x][i] for i in idx))
    ys = sorted(set(data[y][i] for i in idx))
    grid = [[math.nan] * len(xs) for _ in ys]
    for i in idx:
        grid[ys.index(data[y][i])][xs.index(data[x][i])] = data[v][i]
    im = ax.imshow(grid, origin="lower", aspect="auto", extent=(min(xs), max(xs), min(ys), max(ys)))
    plt.colorbar(im, ax=ax, label=fig.get("ylabel", v))
    ax.set_xlabel(x)
    ax.set_ylabel(y)


def fitted_slope(hs, es):
    lx, ly = [math.log(h) for h in hs], [math.log(e) for e in es]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sum((a - mx) ** 2 for a in lx)


def draw_summary(ax, folder, manifest, fig):
    key, fit = fig["y"], int(fig.get("fit", 1000))
    groups = []
    for t in manifest["tasks"]:
        g = t["label"].split("_")[0]
        if g not in groups:
            groups.append(g)
    for g in groups:
        pts = sorted((abs(t["h"]), t["summary"][key]) for t in manifest["tasks"]
                     if t["label"].split("_")[0] == g and key in t.get("summary", {}))
        pts = [p for p in pts if p[1] > 0]
        if not pts:
            continue
        hs, es = [p[0] for p in pts], [p[1] for p in pts]
        text = f"{g} (slope {fitted_slope(hs[:fit], es[:fit]):.2f})" if len(pts) >= 2 else g
        ax.loglog(hs, es, "o-", markersize=4, label=text)
    ax.set_xlabel(fig.get("xlabel", "h"))
    ax.set_ylabel(fig.get("ylabel", key))
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)


def draw_snapshots(ax, folder, manifest, fig):
    f = task_files(manifest, fig.get("tasks"))[0]
    data = read_csv(os.path.join(folder, f["path"]))
    n = sum(1 for c in data if c.startswith("x_") and c[2:].isdigit())
    times = fig["times"]
    cmap = plt.get_cmap("viridis")
    for k, want in enumerate(times):
        i = min(range(len(data["t"])), key=lambda j: abs(data["t"][j] - want))
        xs = [data[f"x_{b}"][i] for b in range(n)]
        ys = [data[f"y_{b}"][i] for b in range(n)]
        color = cmap(k / max(1, len(times) - 1))
        if "radius" in fig:
            for x, y in zip(xs, ys):
                ax.add_patch(plt.Circle((x, y), fig["radius"], color=color, fill=False, linewidth=0.5))
        ax.plot(xs + xs[:1], ys + ys[:1], "-", color=color, linewidth=0.6, label=f"t = {data['t'][i]:g}")
    if "wall_x" in fig:
        ax.axvline(fig["wall_x"], color="k", linewidth=2)
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="upper right")


def draw_figure(fig, folder, manifest, outdir):
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
    elif kind == "summary":
        f, ax = plt.subplots(figsize=(6.5, 5))
        draw_summary(ax, folder, manifest, fig)
    elif kind == "snapshots":
        f, ax = plt.subplots(figsize=(10, 6))
        draw_snapshots(ax, folder, manifest, fig)
    elif kind in ("members", "ensemble", "sweep", "heatmap"):
        f, ax = plt.subplots(figsize=(7, 4.5))
        {"members": draw_members, "ensemble": draw_ensemble, "sweep": draw_sweep, "heatmap": draw_heatmap}[kind](
            ax, folder, manifest, fig)
    else:
        raise ValueError(f"unknown figure type {kind!r}")
    if "title" in fig:
        f.suptitle(fig["title"], fontsize=10)
    f.tight_layout()
    for ext in ("png", "svg"):
        f.savefig(os.path.join(outdir, f"{fig['name']}.{ext}"), dpi=150)
    plt.close(f)


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    folder = sys.argv[1]
    with open(os.path.join(folder, "manifest.json")) as f:
        manifest = json.load(f)
    figures = manifest["study"].get("figures", [])
    outdir = os.path.join(folder, "figures")
    os.makedirs(outdir, exist_ok=True)
    failed = 0
    for fig in figures:
        name = str(fig.get("name", ""))
        # A figure name is a file name in figures/, never a path (the runner checks it too).
        if not name or name.startswith(".") or os.path.basename(name) != name or "\\" in name:
            print(f"figure {name!r}: a figure name must be a plain file name", file=sys.stderr)
            failed += 1
            continue
        try:
            draw_figure(fig, folder, manifest, outdir)
        except Exception as e:  # one line per failed figure; the runner reports them
            msg = " ".join(f"{type(e).__name__}: {e}".split())
            print(f"figure {name}: {msg}", file=sys.stderr)
            plt.close("all")
            failed += 1
    if failed:
        sys.exit(1)

if __name__ == "__main__":
    main()
