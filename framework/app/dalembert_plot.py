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


# ---- Figure types of issue 15 §2 (seeds 002–004): each builds and returns its own matplotlib figure.
# A multi-panel figure declares its panels in "panels" (one entry per panel), so the panel count is
# in the figure spec.

def task_summaries(manifest, wanted):
    return [t for t in manifest.get("tasks", []) if "summary" in t and (not wanted or t["label"] in wanted)]


def impact_records(task):
    """The impacts of a task's impact_log summary: [(k, t, guard, x, y, phi, front, back)]."""
    s = task.get("summary", {})
    out = []
    k = 1
    while f"impact_{k}_t" in s:
        g = lambda key: s.get(f"impact_{k}_{key}", math.nan)  # noqa: E731
        out.append({"k": k, "t": g("t"), "guard": int(g("guard")), "front": (g("front_x"), g("front_y")),
                    "back": (g("back_x"), g("back_y"))})
        k += 1
    return out


def draw_impact_path(folder, manifest, fig, outdir):
    """Path in the plane with every impact marked: the edge point that hit (x) and the penny's
    diameter back edge -> front edge at the impact (a short bar). "panels": [{"title", "xlim", "ylim",
    "zoom_from_impact": k}] — a zoom panel frames the impacts from k on (edge points, padded)."""
    panels = fig.get("panels") or [{}]
    f, axes = plt.subplots(1, len(panels), figsize=(max(6.6, 5.6 * len(panels)), 6.0), squeeze=False)
    files = task_files(manifest, fig.get("tasks"))
    tasks = {t["label"]: t for t in task_summaries(manifest, fig.get("tasks"))}
    data = {fl["label"]: read_csv(os.path.join(folder, fl["path"])) for fl in files}
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, panel in zip(axes[0], panels):
        for i, fl in enumerate(files):
            c = colors[i % len(colors)]
            imp = impact_records(tasks.get(fl["label"], {}))
            n = int(tasks.get(fl["label"], {}).get("summary", {}).get("impact_count", len(imp)))
            ax.plot(data[fl["label"]][fig["x"]], data[fl["label"]][fig["y"]], "-" if i == 0 else "--", color=c,
                    linewidth=0.9, label=f"{fl['label']} ({n} impacts, t ≤ {data[fl['label']]['t'][-1]:g})")
            hit = [r["front"] if r["guard"] == 0 else r["back"] for r in imp]
            ax.plot([p[0] for p in hit], [p[1] for p in hit], "x", color=c, markersize=5)
            for r in imp:  # the penny's diameter at the impact
                ax.plot([r["back"][0], r["front"][0]], [r["back"][1], r["front"][1]], "-", color=c, linewidth=1.4,
                        alpha=0.6)
        draw_outline(ax, fig)
        ax.set_aspect("equal", adjustable="datalim" if "xlim" not in panel else "box")
        k0 = panel.get("zoom_from_impact")
        if k0:
            pts = []
            for t in tasks.values():
                for r in impact_records(t):
                    if r["k"] >= k0:
                        pts += [r["front"], r["back"]]
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            cx, cy = 0.5 * (min(xs) + max(xs)), 0.5 * (min(ys) + max(ys))
            w = 0.65 * max(max(xs) - min(xs), max(ys) - min(ys))
            ax.set_xlim(cx - w, cx + w)
            ax.set_ylim(cy - w, cy + w)
            ax.set_aspect("equal", adjustable="box")
        if "xlim" in panel:
            ax.set_xlim(*panel["xlim"])
        if "ylim" in panel:
            ax.set_ylim(*panel["ylim"])
        ax.set_xlabel(fig.get("xlabel", fig["x"]))
        ax.set_ylabel(fig.get("ylabel", fig["y"]))
        ax.grid(True, alpha=0.3)
        if "title" in panel:
            ax.set_title(panel["title"], fontsize=9)
        ax.legend(fontsize=7, loc=panel.get("legend", "best"))
    return f


def draw_member_panels(folder, manifest, fig, outdir):
    """Ensemble members' points (x, y) at chosen times, one panel per time: "panels": [{"t": 5}, ...].
    Each panel's title gives the rms distance of the points from their centroid."""
    panels = fig["panels"]
    f, axes = plt.subplots(1, len(panels), figsize=(3.6 * len(panels), 4.2), squeeze=False, sharex=True, sharey=True)
    sets = [read_csv(os.path.join(folder, fl["path"])) for fl in files_of_kind(manifest, "ensemble_members", fig.get("tasks"))]
    for ax, panel in zip(axes[0], panels):
        want = panel["t"]
        xs, ys = [], []
        for data in sets:
            idx = [i for i, t in enumerate(data["t"]) if abs(t - want) < 1e-9 * max(1.0, abs(want))]
            xs += [data[fig["x"]][i] for i in idx]
            ys += [data[fig["y"]][i] for i in idx]
        ax.plot(xs, ys, ".", markersize=3)
        draw_outline(ax, fig)
        if xs:
            mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
            rms = math.sqrt(sum((x - mx) ** 2 + (y - my) ** 2 for x, y in zip(xs, ys)) / len(xs))
            ax.set_title(panel.get("title", f"t = {want:g} s: {len(xs)} points, rms spread {rms:.3g} m"), fontsize=8)
        ax.set_aspect("equal", adjustable="box")
        ax.set_xlabel(fig.get("xlabel", fig["x"]))
        ax.grid(True, alpha=0.3)
    axes[0][0].set_ylabel(fig.get("ylabel", fig["y"]))
    return f


def draw_table(folder, manifest, fig, outdir):
    """A table of the resolved system parameters (manifest study.system.params), written as
    NAME.md and NAME.csv next to the figures, and drawn. "rows": [{"label", "param", "unit"}]."""
    params = manifest["study"]["system"].get("params", {})
    rows = []
    for r in fig["rows"]:
        if r["param"] not in params:
            raise SystemExit(f"figure {fig['name']}: no system parameter '{r['param']}' (have {sorted(params)})")
        v = params[r["param"]]
        rows.append((r["label"], f"{v:g}" + (f" {r['unit']}" if r.get("unit") else ""), v, r.get("unit", "")))
    with open(os.path.join(outdir, f"{fig['name']}.md"), "w") as out:
        if "title" in fig:
            out.write(f"{fig['title']}\n\n")
        out.write("| Parameter | Value |\n|---|---|\n")
        for label, text, _, _ in rows:
            out.write(f"| {label} | {text} |\n")
    with open(os.path.join(outdir, f"{fig['name']}.csv"), "w", newline="") as out:
        w = csv.writer(out)
        w.writerow(["parameter", "value", "unit"])
        for label, _, v, unit in rows:
            w.writerow([label, repr(v), unit])
    f, ax = plt.subplots(figsize=(5, 0.35 * len(rows) + 0.8))
    ax.axis("off")
    t = ax.table(cellText=[[r[0], r[1]] for r in rows], colLabels=["Parameter", "Value"], loc="center", cellLoc="left")
    t.scale(1, 1.3)
    return f


def draw_surface(folder, manifest, fig, outdir):
    """Surfaces z(x, y) over scattered points, triangulated: the rows of the ensemble members' CSV
    (or the trajectory CSVs) with t > 0. "panels": [{"z": [column, ...], "title", "zlabel", "logz"}],
    one 3-D axes per panel; several columns in a panel are overlaid (labelled by column)."""
    from matplotlib.tri import Triangulation
    files = files_of_kind(manifest, "ensemble_members", fig.get("tasks")) or task_files(manifest, fig.get("tasks"))
    xs, ys, cols = [], [], {}
    for fl in files:
        data = read_csv(os.path.join(folder, fl["path"]))
        idx = [i for i, t in enumerate(data["t"]) if t > 0]
        xs += [data[fig["x"]][i] for i in idx]
        ys += [data[fig["y"]][i] for i in idx]
        for c in data:
            cols.setdefault(c, []).extend(data[c][i] for i in idx)
    panels = fig["panels"]
    f = plt.figure(figsize=(5.2 * len(panels), 5.0))
    tri = Triangulation(xs, ys)
    # Scattered samples: drop the long thin triangles of the convex hull's concave stretches.
    def longest(t):
        a, b, c = t
        return max(math.hypot(xs[a] - xs[b], ys[a] - ys[b]), math.hypot(xs[b] - xs[c], ys[b] - ys[c]),
                   math.hypot(xs[c] - xs[a], ys[c] - ys[a]))
    edges = [longest(t) for t in tri.triangles]
    typical = sorted(edges)[len(edges) // 2]
    tri.set_mask([e > 3.0 * typical for e in edges])
    cmaps = ["viridis", "autumn", "cool"]
    for p, panel in enumerate(panels):
        ax = f.add_subplot(1, len(panels), p + 1, projection="3d")
        for j, z in enumerate(panel["z"]):
            if z not in cols:
                raise SystemExit(f"figure {fig['name']}: column '{z}' is not in {files[0]['path']}")
            zs = [abs(v) for v in cols[z]] if panel.get("abs") else cols[z]
            ax.plot_trisurf(tri, zs, cmap=cmaps[j % len(cmaps)], alpha=0.85 if len(panel["z"]) == 1 else 0.6,
                            linewidth=0.1, antialiased=True)
            ax.plot([], [], "s", color=plt.get_cmap(cmaps[j % len(cmaps)])(0.6), label=panel.get("labels", panel["z"])[j])
        ax.set_xlabel(fig.get("xlabel", fig["x"]))
        ax.set_ylabel(fig.get("ylabel", fig["y"]))
        ax.set_zlabel(panel.get("zlabel", ", ".join(panel["z"])))
        if "title" in panel:
            ax.set_title(panel["title"], fontsize=9)
        ax.legend(fontsize=7, loc="upper left")
        ax.view_init(elev=panel.get("elev", 25), azim=panel.get("azim", -130))
    return f


def draw_snapshot_panels(folder, manifest, fig, outdir):
    """One panel per time of a many-body configuration (columns x_<i>, y_<i>), in a grid of
    "columns" panels per row (default 5): "panels": [{"t": 0}, {"t": 0.1}, ...]. Optional "radius"
    (a circle per body) and "wall_x". Every panel has the same scale and size, centred on the bodies
    (the wall shows while it is in view)."""
    f_ = task_files(manifest, fig.get("tasks"))[0]
    data = read_csv(os.path.join(folder, f_["path"]))
    n = sum(1 for c in data if c.startswith("x_") and c[2:].isdigit())
    panels = fig["panels"]
    ncol = min(len(panels), int(fig.get("columns", 5)))
    nrow = (len(panels) + ncol - 1) // ncol
    states = []
    for panel in panels:
        i = min(range(len(data["t"])), key=lambda j: abs(data["t"][j] - panel["t"]))
        states.append((data["t"][i], [data[f"x_{b}"][i] for b in range(n)], [data[f"y_{b}"][i] for b in range(n)]))
    pad = fig.get("radius", 0.0)
    half = max(max(max(xs) - min(xs), max(ys) - min(ys)) for _, xs, ys in states) / 2 + pad + 0.25
    f, axes = plt.subplots(nrow, ncol, figsize=(2.6 * ncol, 2.8 * nrow + 0.5), squeeze=False)
    for p, (t, xs, ys) in enumerate(states):
        ax = axes[p // ncol][p % ncol]
        cx, cy = (max(xs) + min(xs)) / 2, (max(ys) + min(ys)) / 2
        if "radius" in fig:
            for x, y in zip(xs, ys):
                ax.add_patch(plt.Circle((x, y), fig["radius"], fill=False, linewidth=0.5))
        ax.plot(xs + xs[:1], ys + ys[:1], "-", linewidth=0.6)
        if "wall_x" in fig:
            ax.axvline(fig["wall_x"], color="k", linewidth=2)
        ax.set_xlim(cx - half, cx + half)
        ax.set_ylim(cy - half, cy + half)
        ax.set_aspect("equal", adjustable="box")
        ax.set_title(f"t = {t:g}", fontsize=8)
        ax.grid(True, alpha=0.3)
        ax.tick_params(labelsize=6)
    for p in range(len(panels), nrow * ncol):
        axes[p // ncol][p % ncol].axis("off")
    return f


def draw_overlay(folder, manifest, fig, outdir):
    """Several columns in one axes, per task: "panels": [{"y": [column, ...], "ylabel", "logy", "labels"}]."""
    panels = fig["panels"]
    f, axes = plt.subplots(len(panels), 1, figsize=(7.5, 3.6 * len(panels) + 0.6), sharex=True, squeeze=False)
    files = task_files(manifest, fig.get("tasks"))
    for ax, panel in zip([a[0] for a in axes], panels):
        for fl in files:
            data = read_csv(os.path.join(folder, fl["path"]))
            for j, y in enumerate(panel["y"]):
                if y not in data:
                    raise SystemExit(f"figure {fig['name']}: column '{y}' is not in {fl['path']}")
                name = panel.get("labels", panel["y"])[j]
                ax.plot(data["t"], transform(data[y], panel), linewidth=0.9,
                        label=name if len(files) == 1 else f"{fl['label']}: {name}")
        if panel.get("logy"):
            ax.set_yscale("log")
        ax.set_ylabel(panel.get("ylabel", ""))
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7, ncol=2, loc=panel.get("legend", "best"))
    axes[-1][0].set_xlabel(fig.get("xlabel", "t"))
    return f


def draw_summary_panels(folder, manifest, fig, outdir):
    """Log-log of task summaries against h, one line per method (label prefix before "_"), one panel
    per entry of "panels": {"y": summary key} or {"q_error_from": "H1_norm2", "reference": label}:
    the q(t)-error (37) |‖q_h‖² − ‖q_ref‖²|^{1/2} / ‖q_ref‖ against the reference task's squared
    norm (that task is not drawn). Optional "fit" (points from the smallest h) and "ylabel"."""
    panels = fig["panels"]
    f, axes = plt.subplots(1, len(panels), figsize=(5.8 * len(panels), 4.8), squeeze=False)
    refs = {p.get("reference") for p in panels if p.get("reference")}
    tasks = [t for t in manifest["tasks"] if t["label"] not in refs and "summary" in t]
    for ax, panel in zip(axes[0], panels):
        if "q_error_from" in panel:
            key = panel["q_error_from"]
            ref = [t for t in manifest["tasks"] if t["label"] == panel["reference"]]
            if not ref or key not in ref[0].get("summary", {}):
                raise SystemExit(f"figure {fig['name']}: no reference task '{panel['reference']}' with '{key}'")
            n2 = ref[0]["summary"][key]
            value = lambda t: math.sqrt(abs(t["summary"][key] - n2)) / math.sqrt(n2)  # noqa: E731
            default = f"q(t)-error (37) against {panel['reference']} (h = {ref[0]['h']:g})"
        else:
            key = panel["y"]
            value = lambda t: t["summary"][key]  # noqa: E731
            default = key
        groups = []
        for t in tasks:
            g = t["label"].split("_")[0]
            if g not in groups:
                groups.append(g)
        fit = int(panel.get("fit", 1000))
        for g in groups:
            pts = sorted((abs(t["h"]), value(t)) for t in tasks if t["label"].split("_")[0] == g and key in t["summary"])
            pts = [p for p in pts if p[1] > 0]
            if not pts:
                continue
            hs, es = [p[0] for p in pts], [p[1] for p in pts]
            slope = len(pts) >= 2 and panel.get("slope", True)  # "slope": false where no rate exists
            text = f"{g} (slope {fitted_slope(hs[:fit], es[:fit]):.2f})" if slope else g
            ax.loglog(hs, es, "o-", markersize=4, label=text)
        ax.set_xlabel(fig.get("xlabel", "h"))
        ax.set_ylabel(panel.get("ylabel", default))
        if "title" in panel:
            ax.set_title(panel["title"], fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    return f


EXTRA_FIGURES = {"impact_path": draw_impact_path, "member_panels": draw_member_panels, "table": draw_table,
                 "surface": draw_surface, "snapshot_panels": draw_snapshot_panels, "overlay": draw_overlay,
                 "summary_panels": draw_summary_panels}


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
    elif kind in EXTRA_FIGURES:  # figure types that build their own figure (issue 15 §2)
        f = EXTRA_FIGURES[kind](folder, manifest, fig, outdir)
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
