#!/usr/bin/env python3
"""Draw the figures a dalembert study asks for, from its run folder.

usage: python3 -m dalembert.plot RUN_FOLDER   (or python3 .../dalembert/plot.py RUN_FOLDER, as
       `dalembert plot` and `dalembert run` start it)

Reads the run folder through dalembert.run_folder (the reader dalembert.load uses too):
RUN_FOLDER/manifest.json (the study as run, its tasks and files) and the tables it indexes (tidy
CSV files; trajectories of a study with "record_format": "npy" are .npy files, read with numpy), and
writes RUN_FOLDER/figures/<name>.png and <name>.svg for every entry of the study's "figures" list.
Needs matplotlib, not pandas nor the compiled module.

The figure types, their keys with their value kinds and their panels' keys are declared once in
figure_types.json beside this file (the C++ validator checks a study against it before it runs);
FIGURE_TYPES below maps each type to its drawing function. A new figure type is an entry there and
a drawing function here. Figure types:

  timeseries  one curve per task: column "y" against t; "panels": [{y, logy, logx, abs, ylabel, ylim, title,
              tasks, x}, ...]
              stacks several panels sharing the t axis; "tasks" restricts to some labels (per figure or
              per panel); a panel's "x" names another time column (e.g. "t_half")
  path        one curve per task: column "x" against column "y" (equal axes); "inset": {center, halfwidth,
              loc, size} adds a zoomed inset (loc: a corner or [x0, y0] in axes fractions, placed where it
              hides nothing)
  (path and timeseries take "legend": a matplotlib place such as "lower left", or "outside": right of
  the axes)
  convergence log-log error ("y", default error_qv) against h from convergence.csv, one line per
              integrator, labelled with its fitted order
  work_precision  work_precision studies: error ("y", default error_qv) against the median CPU time
              of the timed runs, log-log, the spread of the times as bars (work_precision.csv)
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
  animation   the system moving along the trajectory of integrator "label" (default: the first), drawn as
              the system declares (dalembert.animation): figures/<name>.gif ("format": "mp4" for an .mp4,
              which needs ffmpeg) and its last frame figures/<name>.png; "frames" (default 60), "fps"
              (20), "dpi" (80)
  eigenvalues linear_stability studies, in the form of Meijaard et al. (2007) Fig. 3: the real parts of
              the tracked eigenvalues (solid) and their positive imaginary parts (dashed) against the
              family's parameter (eigenvalues.csv), the stable ranges shaded, each critical value
              marked by a dotted line and its value; the structural zeros are left out (the legend
              counts them)

Publication defaults (every type): no offset tick notation (an axis whose data are constant to
round-off is widened and says so); one colour, line style and marker per integrator, shared by every
panel of a figure (an integrator's "display" name, matplotlib mathtext such as "F^{0.1,0.1,1/2}",
labels its curves; one marked "reference": true is drawn first, thick and grey, under the others);
"logx"/"logy" in every type, with non-positive values left out instead of crashing; heat-map axes
categorical when their values are not evenly spaced; a warning (stderr, "warning: figure NAME: ...")
when a timeseries is recorded too sparsely for its oscillation (see aliasing_warning).

The script writes figures/index.json, one entry per figure drawn: name, type, panel count and
files (the runner moves it into manifest.json); a figure that fails prints "figure NAME: cause" on
stderr and the others are still drawn (exit 1). Every file is written as NAME.partial and renamed,
and the index is rewritten after each figure: a plotter stopped part-way (the runner's timeout)
leaves whole figures, indexed, and .partial files that the runner removes.
"""
import csv
import errno
import json
import math
import os
import sys
import textwrap

if __name__ == "__main__" and not __package__:  # started as a file: run as the module of its package
    sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # not dalembert/ itself
    from dalembert.plot import main
    sys.exit(main())

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402
from matplotlib.mathtext import MathTextParser  # noqa: E402

from .run_folder import RunFolder  # noqa: E402

matplotlib.rcParams.update({
    "axes.formatter.useoffset": False,   # never "1e-15+1.875125e-5"
    "axes.formatter.use_mathtext": True,  # 10^{-5}, not 1e-5
    "axes.formatter.limits": (-3, 5),  # 10000 as it is; 1e-5 as ×10⁻⁵
    "font.size": 9,
    "axes.titlesize": 9,
    "axes.labelsize": 9,
    "legend.fontsize": 8,
    "legend.framealpha": 0.85,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "lines.linewidth": 1.2,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "svg.fonttype": "none",
})

# One colour, line style and marker per method (integrator label, in the study's order); a
# reference curve (an integrator marked "reference": true) is grey, thick and drawn first.
PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22",
           "#393b79", "#637939", "#843c39"]
LINESTYLES = ["-", "--", "-.", ":", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 1))]
MARKERS = ["o", "s", "^", "D", "v", "x", "P", "*"]
REFERENCE_STYLE = {"color": "0.55", "linewidth": 3.2, "linestyle": "-", "zorder": 1}
_mathtext = MathTextParser("path")


class Methods:
    """Colours, styles and display names of the methods of one run, the same in every figure."""

    def __init__(self, manifest):
        ints = manifest.get("study", {}).get("integrators", [])
        self.order = [i["label"] for i in ints if isinstance(i, dict) and "label" in i]
        self.display = {i["label"]: i["display"] for i in ints if isinstance(i, dict) and i.get("display")}
        self.reference = {i["label"] for i in ints if isinstance(i, dict) and i.get("reference")}

    def index(self, label):
        if label not in self.order:
            self.order.append(label)
        return [x for x in self.order if x not in self.reference].index(label) if label not in self.reference else -1

    def name(self, label):
        """The display name as mathtext ("F^{0.1,0.1,1/2}" -> $F^{0.1,0.1,1/2}$), else the label."""
        d = self.display.get(label)
        if not d:
            return label
        text = d if "$" in d else f"${d}$"
        try:
            _mathtext.parse(text)
            return text
        except ValueError:
            return d.replace("$", "")

    def style(self, label, npoints=0, markers=True):
        """Keyword arguments of ax.plot for this method's curves."""
        if label in self.reference:
            return dict(REFERENCE_STYLE)
        i = self.index(label)
        kw = {"color": PALETTE[i % len(PALETTE)], "linestyle": LINESTYLES[i % len(LINESTYLES)], "linewidth": 1.2,
              "zorder": 2 + i}
        if markers:
            kw["marker"] = MARKERS[i % len(MARKERS)]
            kw["markersize"] = 6.5 if i % 2 == 0 else 4  # open markers of neighbours nest when curves coincide
            kw["markerfacecolor"] = "none"
            if npoints > 25:  # a dozen markers per curve, staggered so coinciding curves show all of theirs
                step = max(1, npoints // 12)
                kw["markevery"] = ((i * step) // 5 % step, step)
        return kw

    def sorted(self, labels):
        """References first (drawn under the others), then the study's order."""
        for lab in labels:
            self.index(lab)
        return sorted(labels, key=lambda lab: (lab not in self.reference, self.order.index(lab)))



class FigureError(ValueError):
    """A figure that cannot be drawn from this run: named in one line, the other figures still drawn."""


def column(data, name, where, fig):
    if name not in data:
        raise ValueError(f"column '{name}' is not in {where} (columns: {', '.join(data)})")
    return data[name]


def task_files(run, wanted, methods):
    files = run.entries("trajectory", wanted)
    order = methods.sorted([f["label"] for f in files])
    return sorted(files, key=lambda f: order.index(f["label"]))


def positive(values, on):
    """Values for a log axis: non-positive ones (exact zeros) become gaps instead of errors."""
    return [v if isinstance(v, float) and v > 0 else math.nan for v in values] if on else values


def transform(values, spec):
    if spec.get("abs"):
        values = [abs(v) for v in values]
    return positive(values, spec.get("logy"))


def behind_by_spread(ax, methods):
    """Dense curves hide each other: the one spanning the widest range is drawn furthest back, so a
    narrow band (e.g. a conserving method's error) stays visible in front of a wide one. References
    stay behind everything."""
    lines = [ln for ln in ax.get_lines() if ln.get_zorder() > REFERENCE_STYLE["zorder"]]

    def spread(ln):
        ys = [v for v in ln.get_ydata() if isinstance(v, float) and math.isfinite(v)]
        return max(ys) - min(ys) if ys else 0.0

    for z, ln in enumerate(sorted(lines, key=spread, reverse=True)):
        ln.set_zorder(2 + z)


def zeros_note(values, spec, skip_first=True):
    """On a log axis, exact zeros are gaps: the legend says how many there are."""
    if not spec.get("logy") or not values:
        return ""
    if skip_first and len(values) > 1:
        values = values[1:]  # a time series' initial row: an error or drift vanishes there by definition
    zeros = sum(1 for v in values if isinstance(v, float) and v == 0.0)
    if not zeros:
        return ""
    if zeros == len(values):
        return " (exactly 0 throughout, not drawn)"
    share = 100.0 * zeros / len(values)
    return f" ({share:.0f} % of values exactly 0, not drawn)" if share >= 1 else f" ({zeros} values exactly 0, not drawn)"


def set_scales(ax, spec):
    for key, setter in (("logx", ax.set_xscale), ("logy", ax.set_yscale)):
        if spec.get(key):
            setter("log")


def flat_axis(ax, ys):
    """A linear y axis whose data are constant to round-off: widened to ±0.1 % around the value and
    labelled with the actual variation, instead of ticks that differ in their 15th digit."""
    if ax.get_yscale() != "linear":
        return
    vals = [v for v in ys if isinstance(v, float) and math.isfinite(v)]
    if len(vals) < 2:
        return
    lo, hi = min(vals), max(vals)
    scale = max(abs(lo), abs(hi))
    if scale > 0 and hi - lo <= 1e-9 * scale:
        mid = 0.5 * (lo + hi)
        ax.set_ylim(mid - 1e-3 * scale, mid + 1e-3 * scale)
        ax.text(0.02, 0.04, f"constant to {(hi - lo) / scale:.0e} (relative)", transform=ax.transAxes, fontsize=7,
                color="0.3")


def legend(ax, **kw):
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(**kw)


def aliasing_warning(fig, label, y, ts, record_every):
    """Recorded samples too sparse for the signal's oscillation.

    Heuristic: a curve sampled well (several points per oscillation period) changes direction only
    at its extrema, i.e. on a few rows per period; when the discrete derivative changes sign between
    most consecutive recorded rows (more than 60 %; independent noise gives 2/3, a resolved sine
    under 1/2 at 4+ points per period), the oscillation has at most ~3 points per period and its
    plotted envelope (swells, beats) is an artefact of the sampling. Only checked when record_every
    > 1 (otherwise every step is in the file) and above round-off: |y| > 1e-12 somewhere, and y not
    constant to round-off (a conserved quantity's noise, max - min <= 1e-10 max |y|, has no envelope)."""
    if record_every <= 1:
        return None
    vals = [v for v in y if isinstance(v, float) and math.isfinite(v)]
    if len(vals) < 20 or max(abs(v) for v in vals) <= 1e-12:
        return None
    if max(vals) - min(vals) <= 1e-10 * max(abs(v) for v in vals):
        return None
    d = [b - a for a, b in zip(vals, vals[1:])]
    turns = sum(1 for a, b in zip(d, d[1:]) if a * b < 0)
    frac = turns / max(1, len(d) - 1)
    if frac <= 0.6:
        return None
    return (f"warning: figure {fig['name']}: {label} changes direction between {100 * frac:.0f} % of its recorded "
            f"samples: record_every = {record_every} under-samples its oscillation and the plotted envelope may "
            f"show swells that are not in the data; use a smaller record_every")


def draw_timeseries(ax_list, run, fig, methods, warnings):
    panels = fig.get("panels") or [fig]
    record_every = int(run.manifest.get("study", {}).get("record_every", 1) or 1)
    for ax, panel in zip(ax_list, panels):
        y = panel.get("y", fig.get("y"))
        spec = dict(fig, **panel) if panel is not fig else fig
        files = task_files(run, panel.get("tasks", fig.get("tasks")), methods)  # a panel may restrict its tasks
        all_y = []
        for f in files:
            data = run.columns(f)
            x = panel.get("x", fig.get("x", "t"))  # e.g. "t_half": half-step quantities at t_{k+1/2}
            xs = positive(column(data, x, f["path"], fig), spec.get("logx"))
            raw = column(data, y, f["path"], fig)
            ys = transform(raw, spec)
            all_y += ys
            ax.plot(xs, ys, label=methods.name(f["label"]) + zeros_note(raw, spec), **methods.style(f["label"], len(xs)))
            what = f"column {y} of {f['label']}"
            w = aliasing_warning(fig, what, raw, xs, record_every)
            if w and not any(what + " " in old for old in warnings):  # once per figure, column and task
                warnings.append(w)
        behind_by_spread(ax, methods)
        set_scales(ax, spec)
        flat_axis(ax, all_y)
        ax.set_ylabel(panel.get("ylabel", y))
        if "ylim" in panel:
            ax.set_ylim(*panel["ylim"])
        if panel is not fig and "title" in panel:  # a panel's own title (the figure's is the suptitle)
            ax.set_title(panel["title"])
        if fig.get("legend") == "outside":  # right of each panel, hiding nothing
            legend(ax, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
        else:
            legend(ax, fontsize=8, loc=fig.get("legend", "best"))
    ax_list[-1].set_xlabel(fig.get("xlabel", "time t"))
    if "xlim" in fig:
        ax_list[-1].set_xlim(*fig["xlim"])


def draw_outline(ax, fig):
    """"outline": {"ellipse": [a, b]} draws the table x²/a² + y²/b² = 1."""
    if "ellipse" in fig.get("outline", {}):
        a, b = fig["outline"]["ellipse"]
        ts = [2 * math.pi * k / 400 for k in range(401)]
        ax.plot([a * math.cos(t) for t in ts], [b * math.sin(t) for t in ts], "k-", linewidth=1.2)


def finish_plane(ax, fig, legend_size, loc="best"):
    """Axes of a figure in the (x, y) plane: table outline, labels, equal scales, limits, legend."""
    draw_outline(ax, fig)
    ax.set_xlabel(fig.get("xlabel", fig["x"]))
    ax.set_ylabel(fig.get("ylabel", fig["y"]))
    set_scales(ax, fig)
    if not fig.get("logx") and not fig.get("logy"):
        ax.set_aspect("equal", adjustable="datalim")
    if "xlim" in fig:
        ax.set_xlim(*fig["xlim"])
    if "ylim" in fig:
        ax.set_ylim(*fig["ylim"])
    if loc == "outside":  # right of the axes, hiding nothing
        legend(ax, fontsize=legend_size, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    else:
        legend(ax, fontsize=legend_size, loc=loc)


INSET_CORNERS = {"upper right": (0.58, 0.58), "upper left": (0.02, 0.58), "lower right": (0.58, 0.02),
                 "lower left": (0.02, 0.02)}


def draw_path(ax, run, fig, methods, warnings):
    # {"center": [x, y], "halfwidth": w, "loc": corner or [x0, y0], "size": s}: a zoomed inset (seed 001 Fig 2)
    inset = fig.get("inset")
    axin = None
    if inset:
        size = float(inset.get("size", 0.4))
        loc = inset.get("loc", "upper right")  # a corner, or [x0, y0]: its lower-left corner in axes fractions
        if isinstance(loc, list):
            x0, y0 = loc
        else:
            x0, y0 = INSET_CORNERS[loc]
            if x0 > 0.5:
                x0 = 0.98 - size
            if y0 > 0.5:
                y0 = 0.98 - size
        axin = ax.inset_axes([x0, y0, size, size])
    curves = []
    for f in task_files(run, fig.get("tasks"), methods):
        data = run.columns(f)
        xs = positive(column(data, fig["x"], f["path"], fig), fig.get("logx"))
        ys = positive(column(data, fig["y"], f["path"], fig), fig.get("logy"))
        ax.plot(xs, ys, label=methods.name(f["label"]), **methods.style(f["label"], len(xs)))
        curves.append((f["label"], xs, ys))
    if axin is not None:
        (cx, cy), w = inset["center"], inset["halfwidth"]
        for lab, xs, ys in curves:
            kw = methods.style(lab, 0)
            kw["markersize"] = 3
            axin.plot(xs, ys, **kw)
        axin.set_xlim(cx - w, cx + w)
        axin.set_ylim(cy - w, cy + w)
        axin.set_aspect("equal", adjustable="box")
        axin.tick_params(labelsize=6)
        axin.grid(True, alpha=0.3)
        ax.indicate_inset_zoom(axin, edgecolor="0.4")
    legend_loc = fig.get("legend", "best")
    finish_plane(ax, fig, 8, legend_loc)


def draw_convergence(ax, run, fig, methods, warnings):
    y = fig.get("y", "error_qv")
    data = run.columns(run.entry("convergence"))
    fitted = {c["label"]: c for c in run.manifest.get("convergence", [])}
    labels = []
    for lab in column(data, "label", "convergence.csv", fig):
        if lab not in labels:
            labels.append(lab)
    for lab in methods.sorted(labels):
        hs = [h for h, l in zip(data["h"], data["label"]) if l == lab]
        es = [e for e, l in zip(column(data, y, "convergence.csv", fig), data["label"]) if l == lab]
        c = fitted.get(lab, {})
        order = c.get("fitted_order")
        name = methods.name(lab)
        text = f"{name} (order {order:.2f})" if order is not None else (
            f"{name} (round-off)" if c.get("status") == "round-off" else name)
        ax.loglog(hs, positive(es, True), label=text, **methods.style(lab, 0))
    step_ticks(ax, data["h"])
    ax.set_xlabel(fig.get("xlabel", "step size h"))
    ax.set_ylabel(fig.get("ylabel", y))
    ax.grid(True, which="both", alpha=0.3)
    legend(ax, fontsize=7)


def draw_work_precision(ax, run, fig, methods, warnings):
    """Work-precision diagram (DiffEqDevTools' WorkPrecisionSet): for each integrator, the error
    at T ("y", default error_qv) against the median CPU time of the timed runs at each h, log-log,
    the min-max spread of the times as horizontal bars; better methods lie lower left."""
    y = fig.get("y", "error_qv")
    data = run.columns(run.entry("work_precision"))
    labels = []
    for lab in column(data, "label", "work_precision.csv", fig):
        if lab not in labels:
            labels.append(lab)
    for lab in methods.sorted(labels):
        rows = [i for i, l in enumerate(data["label"]) if l == lab]
        t = [data["cpu_median_s"][i] for i in rows]
        lo = [data["cpu_median_s"][i] - data["cpu_min_s"][i] for i in rows]
        hi = [data["cpu_max_s"][i] - data["cpu_median_s"][i] for i in rows]
        e = positive([column(data, y, "work_precision.csv", fig)[i] for i in rows], True)
        style = dict(methods.style(lab, 0))
        ax.errorbar(t, e, xerr=[lo, hi], label=methods.name(lab), capsize=2, **style)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(fig.get("xlabel", "CPU time per run (s), median of the timed runs"))
    ax.set_ylabel(fig.get("ylabel", y))
    ax.grid(True, which="both", alpha=0.3)
    legend(ax, fontsize=7)


def draw_eigenvalues(ax, run, fig, methods, warnings):
    """Meijaard et al. (2007) Fig. 3: Re λ (solid) and Im λ > 0 (dashed) of every tracked branch
    against the family's parameter; stable ranges shaded, critical values marked."""
    data = run.columns(run.entry("eigenvalues"))
    ls = run.manifest.get("linear_stability", {})
    family = ls.get("family", {})
    zeros = int(ls.get("structural_zeros", 0))
    count = int(ls.get("dimension", 0)) - zeros
    rows = {}
    for i, b in enumerate(column(data, "branch", "eigenvalues.csv", fig)):
        rows.setdefault(int(b), []).append(i)
    shaded = False
    for lo, hi in ls.get("stable_ranges", []):
        ax.axvspan(lo, hi, color="#cfe8c8", alpha=0.7, linewidth=0, zorder=0,
                   label=None if shaded else "stable")
        shaded = True
    real_drawn = imag_drawn = False
    for b in sorted(rows):
        if b >= count:  # a structural zero
            continue
        idx = rows[b]
        xs = [data["value"][i] for i in idx]
        re = [data["real"][i] for i in idx]
        im = [data["imag"][i] if data["imag"][i] > 0 else math.nan for i in idx]
        ax.plot(xs, re, "-", color="k", linewidth=1.3, zorder=3, label=None if real_drawn else "real part")
        real_drawn = True
        if any(not math.isnan(y) for y in im):
            ax.plot(xs, im, "--", color="0.4", linewidth=1.1, zorder=2, label=None if imag_drawn else "imaginary part")
            imag_drawn = True
    ax.axhline(0.0, color="0.5", linewidth=0.6, zorder=1)
    for c in ls.get("critical", []):
        ax.axvline(c["value"], color="#1f77b4", linestyle=":", linewidth=0.9, zorder=2)
        ax.annotate(f"{c['value']:.4g}", (c["value"], 1.0), xycoords=("data", "axes fraction"), rotation=90,
                    va="top", ha="right", fontsize=7, color="#1f77b4")
    if zeros:
        ax.plot([], [], " ", label=f"+ {zeros} structural zero{'s' if zeros > 1 else ''} (not drawn)")
    if "xlim" in fig:
        ax.set_xlim(*fig["xlim"])
    else:
        ax.set_xlim(min(data["value"]), max(data["value"]))
    if "ylim" in fig:
        ax.set_ylim(*fig["ylim"])
    ax.set_xlabel(fig.get("xlabel", family.get("parameter", "parameter")))
    ax.set_ylabel(fig.get("ylabel", "eigenvalues λ"))
    if "title" not in fig and family:
        ax.set_title(f"{family.get('name', '')}: {family.get('description', '')}", fontsize=9)
    if fig.get("legend") == "outside":  # right of the axes, hiding nothing
        legend(ax, fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    else:
        legend(ax, fontsize=7, loc=fig.get("legend", "best"))


def step_ticks(ax, hs):
    """A ladder of a few step sizes: ticks at the step sizes themselves (0.0125, 0.025, ...),
    instead of minor ticks labelled 2×10⁻², 3×10⁻² that no run used."""
    hs = sorted({abs(h) for h in hs if isinstance(h, float) and h != 0})
    if 2 <= len(hs) <= 8:
        ax.set_xticks(hs)
        ax.set_xticklabels([f"{h:g}" for h in hs])
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def draw_member_snapshots(ax, run, fig, methods):
    """Every member's point (x, y) at each of the chosen times, one colour per time."""
    for f in run.entries("ensemble_members", fig.get("tasks")):
        data = run.columns(f)
        for want in fig["times"]:
            idx = [i for i, t in enumerate(data["t"]) if abs(t - want) < 1e-9 * max(1.0, abs(want))]
            ax.plot([column(data, fig["x"], f["path"], fig)[i] for i in idx],
                    [column(data, fig["y"], f["path"], fig)[i] for i in idx], ".", markersize=3,
                    label=f"{methods.name(f['label'])}, t = {want:g} ({len(idx)} members)")
    finish_plane(ax, fig, 7)


def draw_members(ax, run, fig, methods, warnings):
    if "times" in fig:
        return draw_member_snapshots(ax, run, fig, methods)
    y = fig["y"]
    for f in run.entries("ensemble_members", fig.get("tasks")):
        data = run.columns(f)
        ys = transform(column(data, y, f["path"], fig), fig)
        xs = positive(data["t"], fig.get("logx"))
        members = sorted(set(data["member"]))
        color = methods.style(f["label"], 0, markers=False)["color"]
        for m in members:
            idx = [i for i, v in enumerate(data["member"]) if v == m]
            ax.plot([xs[i] for i in idx], [ys[i] for i in idx], linewidth=0.4, alpha=0.5, color=color)
        ax.set_title(f"{methods.name(f['label'])}: {len(members)} members", fontsize=9)
    set_scales(ax, fig)
    ax.set_xlabel(fig.get("xlabel", "time t"))
    ax.set_ylabel(fig.get("ylabel", y))


def draw_ensemble(ax, run, fig, methods, warnings):
    files = run.entries("ensemble_statistics", fig.get("tasks"))
    order = methods.sorted([f["label"] for f in files])
    for f in sorted(files, key=lambda f: order.index(f["label"])):
        data = run.columns(f)
        xs = positive(data["t"], fig.get("logx"))
        kw = methods.style(f["label"], len(xs))
        if fig.get("band"):
            c = fig["band"]
            qs = sorted((k for k in data if k.startswith(c + "_q")), key=lambda k: float(k[len(c) + 2:]))
            if len(qs) >= 2:
                ax.fill_between(xs, data[qs[0]], data[qs[-1]], alpha=0.2, color=kw["color"], linewidth=0)
            ax.plot(xs, positive(column(data, c + "_mean", f["path"], fig), fig.get("logy")),
                    label=methods.name(f["label"]), **kw)
        else:
            ax.plot(xs, transform(column(data, fig["y"], f["path"], fig), fig), label=methods.name(f["label"]), **kw)
    set_scales(ax, fig)
    ax.set_xlabel(fig.get("xlabel", "time t"))
    ax.set_ylabel(fig.get("ylabel", fig.get("y", fig.get("band", ""))))
    legend(ax, fontsize=8)


def draw_sweep(ax, run, fig, methods, warnings):
    data = run.columns(run.entry("sweep"))
    x, y, series = fig["x"], fig["y"], fig.get("series")
    for key in (x, y) + ((series,) if series else ()):
        column(data, key, "sweep.csv", fig)
    keys = []
    for i in range(len(data["label"])):
        k = (data["label"][i], data[series][i] if series else None)
        if k not in keys:
            keys.append(k)
    svals = sorted({k[1] for k in keys}) if series else [None]
    # Series of one method that coincide: the first drawn wide and open, each next one narrower and
    # filled on top of it, so every series stays visible.
    widths, sizes, fills = [3.2, 1.4, 0.8, 0.6], [10, 6, 4, 3], ["none", "full", "full", "full"]
    for n, (lab, sv) in enumerate(keys):
        idx = [i for i in range(len(data["label"])) if data["label"][i] == lab and (not series or data[series][i] == sv)]
        text = methods.name(lab) + (f", {series} = {sv:g}" if series else "")
        kw = methods.style(lab, 0)
        if series and len(svals) > 1:  # same method, several series: colour per method, marker/line per value
            j = svals.index(sv)
            kw.update(marker=MARKERS[j % len(MARKERS)], linestyle=LINESTYLES[j % len(LINESTYLES)],
                      markersize=sizes[j % 4], fillstyle=fills[j % 4], linewidth=widths[j % 4], zorder=2 + j)
            kw.pop("markerfacecolor", None)
            if j == 0:
                kw["alpha"] = 0.55
            if len({k[0] for k in keys}) == 1:
                kw["color"] = PALETTE[j % len(PALETTE)]
        raw = [data[y][i] for i in idx]
        ax.plot(positive([data[x][i] for i in idx], fig.get("logx")), transform(raw, fig),
                label=text + zeros_note(raw, fig, skip_first=False), **kw)
    set_scales(ax, fig)
    draw_reference_lines(ax, fig)
    ax.set_xlabel(fig.get("xlabel", x))
    ax.set_ylabel(fig.get("ylabel", y))
    legend(ax, fontsize=8)


def draw_reference_lines(ax, fig):
    """Dashed reference lines: "vlines"/"hlines" lists of {"at": value, "label": text}."""
    for key, draw, style in (("vlines", ax.axvline, "--"), ("hlines", ax.axhline, ":")):
        for line in fig.get(key, []):
            draw(float(line["at"]), color="0.3", linestyle=style, linewidth=1.2, label=line.get("label"))


def evenly_spaced(values, log):
    if len(values) < 2 or not all(isinstance(v, float) for v in values):
        return False
    if log:
        if min(values) <= 0:
            return False
        values = [math.log(v) for v in values]
    d = [b - a for a, b in zip(values, values[1:])]
    return max(d) - min(d) <= 1e-6 * max(abs(v) for v in d)


def draw_heatmap(ax, run, fig, methods, warnings):
    """Cells at the grid of axis values; an axis is categorical (one equal cell per value, ticks
    labelled with the values) unless its values are numbers evenly spaced (in log if logx/logy)."""
    data = run.columns(run.entry("sweep"))
    x, y, v = fig["x"], fig["y"], fig["value"]
    for key in (x, y, v):
        column(data, key, "sweep.csv", fig)
    idx = [i for i in range(len(data["label"])) if not fig.get("label") or data["label"][i] == fig["label"]]
    if not idx:
        raise ValueError(f"sweep.csv has no rows of label '{fig.get('label')}'")
    key = lambda a: (0, a, "") if isinstance(a, float) else (1, 0, str(a))  # noqa: E731
    xs = sorted(set(data[x][i] for i in idx), key=key)
    ys = sorted(set(data[y][i] for i in idx), key=key)
    grid = [[math.nan] * len(xs) for _ in ys]
    for i in idx:
        val = data[v][i]
        grid[ys.index(data[y][i])][xs.index(data[x][i])] = val if isinstance(val, float) else math.nan
    ax.grid(False)
    im = ax.pcolormesh(range(len(xs) + 1), range(len(ys) + 1), grid, shading="flat")
    for axis, vals, log, setter, tick, lab in (("x", xs, fig.get("logx"), ax.set_xlim, ax.set_xticks, ax.set_xticklabels),
                                               ("y", ys, fig.get("logy"), ax.set_ylim, ax.set_yticks, ax.set_yticklabels)):
        setter(0, len(vals))
        tick([k + 0.5 for k in range(len(vals))])
        lab([f"{a:g}" if isinstance(a, float) else str(a) for a in vals], fontsize=7,
            rotation=45 if axis == "x" and len(vals) > 8 else 0)
        if evenly_spaced(vals, log) and len(vals) > 12:  # many evenly spaced values: a few ticks suffice
            step = math.ceil(len(vals) / 8)
            tick([k + 0.5 for k in range(0, len(vals), step)])
            lab([f"{vals[k]:g}" for k in range(0, len(vals), step)], fontsize=7)
    plt.colorbar(im, ax=ax, label=fig.get("ylabel", v))  # "ylabel" labels the value (the y axis is an axis name)
    ax.set_xlabel(fig.get("xlabel", x))
    ax.set_ylabel(y)


def fitted_slope(hs, es):
    lx, ly = [math.log(h) for h in hs], [math.log(e) for e in es]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sum((a - mx) ** 2 for a in lx)


def draw_summary(ax, run, fig, methods, warnings):
    key, fit = fig["y"], int(fig.get("fit", 1000))
    groups = []
    for t in run.manifest["tasks"]:
        g = t["label"].split("_")[0]
        if g not in groups:
            groups.append(g)
    if not any(key in t.get("summary", {}) for t in run.manifest["tasks"]):
        raise ValueError(f"no task has the summary '{key}' (summaries: {', '.join(sorted(run.manifest['tasks'][0].get('summary', {})))})")
    for n, g in enumerate(groups):
        pts = sorted((abs(t["h"]), t["summary"][key]) for t in run.manifest["tasks"]
                     if t["label"].split("_")[0] == g and key in t.get("summary", {}) and t["summary"][key] is not None)
        pts = [p for p in pts if p[1] > 0]
        if not pts:
            continue
        hs, es = [p[0] for p in pts], [p[1] for p in pts]
        text = f"{methods.name(g)} (slope {fitted_slope(hs[:fit], es[:fit]):.2f})" if len(pts) >= 2 else methods.name(g)
        kw = {"color": PALETTE[n % len(PALETTE)], "linestyle": LINESTYLES[n % len(LINESTYLES)],
              "marker": MARKERS[n % len(MARKERS)], "markersize": 4, "markerfacecolor": "none"}
        ax.loglog(hs, es, label=text, **kw)
    step_ticks(ax, [abs(t["h"]) for t in run.manifest["tasks"]])
    ax.set_xlabel(fig.get("xlabel", "step size h"))
    ax.set_ylabel(fig.get("ylabel", key))
    ax.grid(True, which="both", alpha=0.3)
    legend(ax, fontsize=8)


def draw_snapshots(ax, run, fig, methods, warnings):
    files = task_files(run, fig.get("tasks"), methods)
    if not files:
        raise ValueError("no trajectory file to draw snapshots from")
    f = files[0]
    data = run.columns(f)
    n = sum(1 for c in data if c.startswith("x_") and c[2:].isdigit())
    if n == 0:
        raise ValueError(f"{f['path']} has no columns x_0, y_0, ... (columns: {', '.join(data)})")
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
    ax.set_xlabel(fig.get("xlabel", "x"))
    ax.set_ylabel(fig.get("ylabel", "y"))
    legend(ax, fontsize=7, loc="upper right")


# ---- Figure types of issue 15 §2 (seeds 002–004): each builds and returns its own matplotlib figure.
# A multi-panel figure declares its panels in "panels" (one entry per panel), so the panel count is
# in the figure spec.

def task_summaries(run, wanted):
    return [t for t in run.manifest.get("tasks", []) if "summary" in t and (not wanted or t["label"] in wanted)]


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


def draw_impact_path(run, fig, outdir, methods):
    """Path in the plane with every impact marked: the edge point that hit (x) and the penny's
    diameter back edge -> front edge at the impact (a short bar). "panels": [{"title", "xlim", "ylim",
    "zoom_from_impact": k}] — a zoom panel frames the impacts from k on (edge points, padded)."""
    panels = fig.get("panels") or [{}]
    f, axes = plt.subplots(1, len(panels), figsize=(max(6.6, 5.6 * len(panels)), 6.0), squeeze=False)
    files = task_files(run, fig.get("tasks"), methods)
    tasks = {t["label"]: t for t in task_summaries(run, fig.get("tasks"))}
    data = {fl["label"]: run.columns(fl) for fl in files}
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


def draw_member_panels(run, fig, outdir, methods):
    """Ensemble members' points (x, y) at chosen times, one panel per time: "panels": [{"t": 5}, ...].
    Each panel's title gives the rms distance of the points from their centroid."""
    panels = fig["panels"]
    f, axes = plt.subplots(1, len(panels), figsize=(3.6 * len(panels), 4.2), squeeze=False, sharex=True, sharey=True)
    sets = [run.columns(fl) for fl in run.entries("ensemble_members", fig.get("tasks"))]
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


def draw_table(run, fig, outdir, methods):
    """A table of the resolved system parameters (manifest study.system.params), written as
    NAME.md and NAME.csv next to the figures, and drawn. "rows": [{"label", "param", "unit"}]."""
    params = run.manifest["study"]["system"].get("params", {})
    rows = []
    for r in fig["rows"]:
        if r["param"] not in params:
            raise FigureError(f"no system parameter '{r['param']}' (have {sorted(params)})")
        v = params[r["param"]]
        rows.append((r["label"], f"{v:g}" + (f" {r['unit']}" if r.get("unit") else ""), v, r.get("unit", "")))
    with outdir.open(f"{fig['name']}.md") as out:
        if "title" in fig:
            out.write(f"{fig['title']}\n\n")
        out.write("| Parameter | Value |\n|---|---|\n")
        for label, text, _, _ in rows:
            out.write(f"| {label} | {text} |\n")
    with outdir.open(f"{fig['name']}.csv", newline="") as out:
        w = csv.writer(out)
        w.writerow(["parameter", "value", "unit"])
        for label, _, v, unit in rows:
            w.writerow([label, repr(v), unit])
    f, ax = plt.subplots(figsize=(5, 0.35 * len(rows) + 0.8))
    ax.axis("off")
    t = ax.table(cellText=[[r[0], r[1]] for r in rows], colLabels=["Parameter", "Value"], loc="center", cellLoc="left")
    t.scale(1, 1.3)
    return f


def draw_surface(run, fig, outdir, methods):
    """Surfaces z(x, y) over scattered points, triangulated: the rows of the ensemble members' CSV
    (or the trajectory CSVs) with t > 0. "panels": [{"z": [column, ...], "title", "zlabel", "logz"}],
    one 3-D axes per panel; several columns in a panel are overlaid (labelled by column)."""
    from matplotlib.tri import Triangulation
    files = run.entries("ensemble_members", fig.get("tasks")) or task_files(run, fig.get("tasks"), methods)
    xs, ys, cols = [], [], {}
    for fl in files:
        data = run.columns(fl)
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
                raise FigureError(f"column '{z}' is not in {files[0]['path']}")
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


def draw_snapshot_panels(run, fig, outdir, methods):
    """One panel per time of a many-body configuration (columns x_<i>, y_<i>), in a grid of
    "columns" panels per row (default 5): "panels": [{"t": 0}, {"t": 0.1}, ...]. Optional "radius"
    (a circle per body) and "wall_x". Every panel has the same scale and size, centred on the bodies
    (the wall shows while it is in view)."""
    f_ = task_files(run, fig.get("tasks"), methods)[0]
    data = run.columns(f_)
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


def draw_overlay(run, fig, outdir, methods):
    """Several columns in one axes, per task: "panels": [{"y": [column, ...], "ylabel", "logy", "labels"}]."""
    panels = fig["panels"]
    f, axes = plt.subplots(len(panels), 1, figsize=(7.5, 3.6 * len(panels) + 0.6), sharex=True, squeeze=False)
    files = task_files(run, fig.get("tasks"), methods)
    for ax, panel in zip([a[0] for a in axes], panels):
        for fl in files:
            data = run.columns(fl)
            for j, y in enumerate(panel["y"]):
                if y not in data:
                    raise FigureError(f"column '{y}' is not in {fl['path']}")
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


def draw_summary_panels(run, fig, outdir, methods):
    """Log-log of task summaries against h, one line per method (label prefix before "_"), one panel
    per entry of "panels": {"y": summary key} or {"q_error_from": "H1_norm2", "reference": label}:
    the q(t)-error (37) |‖q_h‖² − ‖q_ref‖²|^{1/2} / ‖q_ref‖ against the reference task's squared
    norm (that task is not drawn). Optional "fit" (points from the smallest h) and "ylabel"."""
    panels = fig["panels"]
    f, axes = plt.subplots(1, len(panels), figsize=(5.8 * len(panels), 4.8), squeeze=False)
    refs = {p.get("reference") for p in panels if p.get("reference")}
    tasks = [t for t in run.manifest["tasks"] if t["label"] not in refs and "summary" in t]
    for ax, panel in zip(axes[0], panels):
        if "q_error_from" in panel:
            key = panel["q_error_from"]
            ref = [t for t in run.manifest["tasks"] if t["label"] == panel["reference"]]
            if not ref or key not in ref[0].get("summary", {}):
                raise FigureError(f"no reference task '{panel['reference']}' with '{key}'")
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


def draw_animation(run, fig, outdir, methods, warnings):
    """An animation's files (a type that writes its own: no matplotlib figure to save)."""
    from .animation import Animation, trajectory_of
    label, table, drawing = trajectory_of(run, fig.get("label"))
    movie = Animation(drawing, table, fig.get("title", f"{run.name}: {label}"), frames=fig.get("frames", 60),
                      fps=fig.get("fps", 20), dpi=fig.get("dpi", 80))
    ext = fig.get("format", "gif")
    outdir.write_whole(f"{fig['name']}.{ext}", movie.write_gif if ext == "gif" else movie.copy_mp4, "wb")
    outdir.write_whole(f"{fig['name']}.png", lambda out: movie.save_frame(-1, out), "wb")
    return [f"figures/{fig['name']}.{ext}", f"figures/{fig['name']}.png"]


def wrap_title(title, width):
    """Lines of at most `width` characters, never broken inside a $...$ mathtext span."""
    parts = title.split("$")
    keep = "\u00a0"  # a no-break space stands for the spaces of math spans while wrapping
    joined = "$".join(p.replace(" ", keep) if i % 2 else p for i, p in enumerate(parts))
    lines = textwrap.wrap(joined, width, break_on_hyphens=False, break_long_words=False)
    return "\n".join(lines).replace(keep, " ")


def on_one_axes(draw, size=(7, 4.5)):
    """A figure type drawn on one axes of `size` inches (2.2 wider with "legend": "outside")."""
    def build(run, fig, outdir, methods, warnings):
        width, height = size
        if fig.get("legend") == "outside":
            width += 2.2
        f, ax = plt.subplots(figsize=(width, height))
        draw(ax, run, fig, methods, warnings)
        return f
    return build


def on_own_figure(draw):
    """A figure type that builds its own figure (its panels; issue 15 §2)."""
    return lambda run, fig, outdir, methods, warnings: draw(run, fig, outdir, methods)


def build_timeseries(run, fig, outdir, methods, warnings):
    """One axes per panel, stacked, sharing the t axis."""
    panels = fig.get("panels") or [fig]
    width = 9.2 if fig.get("legend") == "outside" else 7
    f, axes = plt.subplots(len(panels), 1, figsize=(width, 2.4 * len(panels) + 0.8), sharex=True, squeeze=False)
    draw_timeseries([a[0] for a in axes], run, fig, methods, warnings)
    return f


# Every figure type of figure_types.json and the function that builds its matplotlib figure
# (tests/python/test_figure_schema.py checks that the two name the same types).
FIGURE_TYPES = {
    "timeseries": build_timeseries,
    "path": on_one_axes(draw_path, (6, 6)),
    "convergence": on_one_axes(draw_convergence, (6.5, 5)),
    "eigenvalues": on_one_axes(draw_eigenvalues, (7, 5)),
    "work_precision": on_one_axes(draw_work_precision, (6.5, 5)),
    "summary": on_one_axes(draw_summary, (6.5, 5)),
    "snapshots": on_one_axes(draw_snapshots, (10, 6)),
    "members": on_one_axes(draw_members),
    "ensemble": on_one_axes(draw_ensemble),
    "sweep": on_one_axes(draw_sweep),
    "heatmap": on_one_axes(draw_heatmap),
    "impact_path": on_own_figure(draw_impact_path),
    "member_panels": on_own_figure(draw_member_panels),
    "table": on_own_figure(draw_table),
    "surface": on_own_figure(draw_surface),
    "snapshot_panels": on_own_figure(draw_snapshot_panels),
    "overlay": on_own_figure(draw_overlay),
    "summary_panels": on_own_figure(draw_summary_panels),
    "animation": draw_animation,
}

SCHEMA_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "figure_types.json")


def figure_schema():
    """The figure schema (figure_types.json): "keys" of every figure and, per type, its "needs" and
    "panels"."""
    with open(SCHEMA_FILE) as f:
        return json.load(f)


def draw_figure(fig, run, outdir, methods, warnings, schema):
    """Draws one figure; returns its index entry (name, type, panel count, files)."""
    kind = fig["type"]
    if kind not in schema["types"]:
        raise ValueError(f"unknown figure type {kind!r}")
    if kind not in FIGURE_TYPES:
        raise ValueError(f"figure type {kind!r} has no drawing function (dalembert.plot.FIGURE_TYPES)")
    f = FIGURE_TYPES[kind](run, fig, outdir, methods, warnings)
    count = len(fig.get("panels") or [fig])
    if isinstance(f, list):  # a type that wrote its own files (an animation)
        return {"name": fig["name"], "type": kind, "panels": count, "files": f}
    if "title" in fig:  # the study author's title, wrapped to the figure's width
        width = max(40, int(f.get_figwidth() * 12.5))
        f.suptitle(wrap_title(fig["title"], width), fontsize=10)
    f.tight_layout()
    files = []
    for ext in ("png", "svg"):
        outdir.write_whole(f"{fig['name']}.{ext}", lambda out: f.savefig(out, format=ext, dpi=150), "wb")
        files.append(f"figures/{fig['name']}.{ext}")
    plt.close(f)
    return {"name": fig["name"], "type": kind, "panels": count, "files": files}


class FiguresFolder:
    """RUN_FOLDER/figures, created if need be, and the files written there. A run folder holds no
    symbolic links: the folder and every file are opened without following one (a link planted
    there would make the figures overwrite a file outside the run), so a link is refused."""

    def __init__(self, folder):
        path = os.path.join(folder, "figures")
        try:
            os.mkdir(path)
        except FileExistsError:
            pass
        try:
            self.fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError as e:
            why = "is a symbolic link" if os.path.islink(path) else f"cannot be opened as a folder ({e.strerror})"
            raise SystemExit(f"{path} {why}: no figure is written through it (a run folder holds no links)")
        self.path = path

    def open(self, name, mode="w", newline=None):
        def opener(file, flags):
            try:
                return os.open(file, flags | os.O_NOFOLLOW, 0o666, dir_fd=self.fd)
            except OSError as e:
                if os.path.islink(os.path.join(self.path, file)):
                    raise OSError(e.errno, f"figures/{file} is a symbolic link: not written through it "
                                           "(a run folder holds no links)") from None
                raise
        return open(name, mode, newline=newline, opener=opener)

    def write_whole(self, name, write, mode="w", newline=None):
        """figures/NAME written as NAME.partial by write(file), then renamed: whole at every moment
        (a plotter killed at its time limit leaves only whole files)."""
        if os.path.islink(os.path.join(self.path, name)):  # a rename would delete a link we did not make
            raise OSError(errno.EEXIST, f"figures/{name} is a symbolic link: not replaced "
                                        "(a run folder holds no links)")
        with self.open(name + ".partial", mode, newline=newline) as out:
            write(out)
        os.replace(name + ".partial", name, src_dir_fd=self.fd, dst_dir_fd=self.fd)


def write_index(outdir, index):
    """figures/index.json, whole at every moment; rewritten after each figure."""
    try:
        outdir.write_whole("index.json", lambda f: json.dump({"figures": index}, f, indent=1))
    except OSError as e:
        raise SystemExit(f"cannot write the figure index: {e.strerror}")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        raise SystemExit(__doc__)
    folder = argv[0]
    run = RunFolder(folder)
    figures = run.study.get("figures", [])
    outdir = FiguresFolder(folder)
    methods = Methods(run.manifest)
    schema = figure_schema()
    failed = 0
    index = []
    for fig in figures:
        name = str(fig.get("name", ""))
        # A figure name is a file name in figures/, never a path (the runner checks it too).
        if not name or name.startswith(".") or os.path.basename(name) != name or "\\" in name or name == "index":
            print(f"figure {name!r}: a figure name must be a plain file name", file=sys.stderr)
            failed += 1
            continue
        warnings = []
        try:
            index.append(draw_figure(fig, run, outdir, methods, warnings, schema))
        except Exception as e:  # one line per failed figure; the runner reports them
            msg = " ".join(f"{type(e).__name__}: {e}".split())
            print(f"figure {name}: {msg}", file=sys.stderr)
            plt.close("all")
            failed += 1
        for w in warnings:
            print(w, file=sys.stderr)
        write_index(outdir, index)
    write_index(outdir, index)
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
