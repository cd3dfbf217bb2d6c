#!/usr/bin/env python3
"""Seed-003 figures that the generic plotting script does not draw, from a run folder.

usage: plot_rodrigues.py RUN_FOLDER

* fig1_pendulum / fig7_torus_convergence runs: log-log of the task summaries (E_error_38,
  q_error_37, true_H1_error) against h, one line per map (task labels "<map>_..."), with the slope
  fitted over the 5 (pendulum) or 4 (torus) smallest h.
* fig3_torus runs: snapshot images of the ring (positions x_i, y_i of the trajectory file) at
  t = 0, 0.1, 0.6, 1.2, 1.8, 2.4, 5, 15, 25, 35, with the wall at x = 0.
Writes RUN_FOLDER/figures/<name>.png.
"""
import csv
import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def slope(hs, es):
    lx, ly = [math.log(h) for h in hs], [math.log(e) for e in es]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sum((a - mx) ** 2 for a in lx)


def summary_loglog(folder, manifest, key, name, fit, title):
    groups = []
    for t in manifest["tasks"]:
        g = t["label"].split("_")[0]
        if g not in groups:
            groups.append(g)
    f, ax = plt.subplots(figsize=(6.5, 5))
    for g in groups:
        pts = sorted((t["h"], t["summary"][key]) for t in manifest["tasks"]
                     if t["label"].split("_")[0] == g and key in t.get("summary", {}))
        if not pts:
            continue
        hs, es = [p[0] for p in pts], [p[1] for p in pts]
        ax.loglog(hs, es, "o-", markersize=4, label=f"{g} (slope {slope(hs[:fit], es[:fit]):.2f})")
    ax.set_xlabel("h")
    ax.set_ylabel(key)
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    f.tight_layout()
    f.savefig(os.path.join(folder, "figures", name + ".png"), dpi=150)
    plt.close(f)


def snapshots(folder, manifest, times=(0, 0.1, 0.6, 1.2, 1.8, 2.4, 5, 15, 25, 35), radius=0.0588897):
    fi = [f for f in manifest["files"] if f.get("kind") == "trajectory"][0]
    with open(os.path.join(folder, fi["path"]), newline="") as fh:
        rows = list(csv.reader(fh))
    head, body = rows[0], rows[1:]
    col = {n: i for i, n in enumerate(head)}
    n = sum(1 for c in head if c.startswith("x_"))
    ts = [float(r[col["t"]]) for r in body]
    cmap = plt.get_cmap("viridis")
    for panel, sel in (("fig3_snapshots_impact", [t for t in times if t <= 2.4]), ("fig3_snapshots", list(times))):
        f, ax = plt.subplots(figsize=(10, 6))
        for k, want in enumerate(sel):
            r = body[min(range(len(ts)), key=lambda i: abs(ts[i] - want))]
            xs = [float(r[col[f"x_{i}"]]) for i in range(n)]
            ys = [float(r[col[f"y_{i}"]]) for i in range(n)]
            c = cmap(k / max(1, len(sel) - 1))
            for x, y in zip(xs, ys):
                ax.add_patch(plt.Circle((x, y), radius, color=c, fill=False, linewidth=0.5))
            ax.plot(xs + xs[:1], ys + ys[:1], "-", color=c, linewidth=0.6, label=f"t = {float(r[col['t']]):g}")
        ax.axvline(0.0, color="k", linewidth=2)
        ax.set_aspect("equal", adjustable="datalim")
        ax.set_xlabel("x")
        ax.set_ylabel("y")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7, loc="upper right")
        ax.set_title("Binder torus, map (25), h = 1e-3 (seed 003 Fig. 3)", fontsize=10)
        f.tight_layout()
        f.savefig(os.path.join(folder, "figures", panel + ".png"), dpi=150)
        plt.close(f)


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    folder = sys.argv[1]
    with open(os.path.join(folder, "manifest.json")) as fh:
        manifest = json.load(fh)
    os.makedirs(os.path.join(folder, "figures"), exist_ok=True)
    name = manifest["study"]["name"]
    if name == "fig1_pendulum":
        for key in ("E_error_38", "q_error_37", "true_H1_error"):
            summary_loglog(folder, manifest, key, "fig1_" + key, 5, f"3D pendulum, t_N = 10: {key} (seed 003 Fig. 1)")
    elif name == "fig7_torus_convergence":
        summary_loglog(folder, manifest, "E_error_38", "fig7_E_error_38", 4, "Binder torus, t_N = 1: E-error (seed 003 Fig. 7)")
    elif name == "fig3_torus":
        snapshots(folder, manifest)
    else:
        raise SystemExit(f"plot_rodrigues.py: nothing to draw for study {name}")


if __name__ == "__main__":
    main()
