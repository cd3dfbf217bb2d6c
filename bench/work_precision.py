#!/usr/bin/env python3
"""Issue 29 item 5: work against accuracy on a rolling body — right-hand-side evaluations (and CPU
time) to reach a given error at time T, for dalembert's RK4, DLA and MLA (C++ plugins, stepped by
dalembert.simulate) and SciPy's DOP853 (scipy.integrate.solve_ivp) on the same vector field
(System.f: the constrained field the plugins evaluate, called from Python).

  bench/work_precision.py [--study studies/rattleback/reversal_rattleback.json] [--T 5] [--out DIR]
                          [--tiny] [--readme bench/README.md]

The system and initial state are a trajectory study's (by default the rattleback's spin reversal
from Kane & Levinson's start: spin -5 rad/s, 0.5 deg roll and pitch). The error is
max |(q, v)(T) - reference| over every coordinate; the reference is DOP853 at rtol = 1e-13, checked
against RK4 at the smallest step (their difference is printed and must be below the smallest
error reported). RK4 costs 4 evaluations a step; DLA and MLA evaluate no vector field (Newton on the
discrete equations), so only their CPU time is comparable. DOP853's CPU time includes Python's
call overhead per evaluation (most of it): compare evaluations, not seconds, across the two.
Writes a Markdown table to stdout, a figure to DIR/work_precision.png, and with --readme replaces
the text between "<!-- work-precision:begin -->" and "<!-- work-precision:end -->" in that file.
"""
import argparse, os, sys, time

import numpy as np


def load_dalembert():
    try:
        import dalembert
        return dalembert
    except ImportError:
        here = os.path.dirname(os.path.abspath(__file__))
        sys.path.insert(0, os.path.join(here, "..", "build", "python"))
        import dalembert
        return dalembert


def cpu():
    return time.process_time()


def run_plugin(D, system, plugin, state, h, T):
    integ = D.integrator(plugin, system)
    s = state.copy()
    t0 = cpu()
    steps = int(round(T / h))
    for _ in range(steps):
        integ.step(s, h)
    return np.concatenate([s.q, s.v]), cpu() - t0, steps


def run_dop853(system, state, T, rtol):
    from scipy.integrate import solve_ivp
    n = len(state.q)

    def rhs(t, y):
        return np.concatenate([y[n:], system.f(t, y[:n], y[n:])])

    t0 = cpu()
    sol = solve_ivp(rhs, (0.0, T), np.concatenate([state.q, state.v]), method="DOP853", rtol=rtol,
                    atol=rtol * 1e-3)
    if not sol.success:
        raise RuntimeError(f"DOP853 at rtol {rtol}: {sol.message}")
    return sol.y[:, -1], cpu() - t0, sol.nfev


def start_state(D, study_file):
    """The system and initial state of a bundled trajectory study (its "initial", projected)."""
    import json
    study = json.load(open(study_file))
    sysdef = study["system"]
    system = D.system(sysdef["plugin"], sysdef.get("params"))
    st = system.state(study["initial"]["q"], study["initial"]["v"])
    system.project(st)
    return sysdef["plugin"], system, st


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--study", default=os.path.join(here, "..", "studies", "rattleback", "reversal_rattleback.json"),
                    help="the trajectory study whose system and initial state are used")
    ap.add_argument("--T", type=float, default=5.0)
    ap.add_argument("--out", default="build/bench-results")
    ap.add_argument("--tiny", action="store_true", help="a smoke run: two points per method, T = 0.05")
    ap.add_argument("--readme", help="replace the work-precision section of this Markdown file")
    args = ap.parse_args()
    D = load_dalembert()
    T = 0.05 if args.tiny else args.T
    name, system, state = start_state(D, args.study)

    ref, _, ref_nfev = run_dop853(system, state, T, 1e-13)
    rk4_steps = [2 ** k for k in ((6, 7) if args.tiny else range(8, 15))]
    rk4_fine, _, _ = run_plugin(D, system, "rk4", state, T / (4 * rk4_steps[-1]), T)
    ref_check = np.abs(rk4_fine - ref).max()

    rows = []  # (method, setting, error, evaluations or None, cpu s)
    for plugin in ("rk4", "dla", "mla"):
        for n in rk4_steps:
            try:
                y, c, steps = run_plugin(D, system, plugin, state, T / n, T)
            except D.Error as e:  # beyond the scheme's stability limit (the stiff pitching mode)
                rows.append((plugin.upper(), f"h = T/{n}", float("inf"), None, float("nan")))
                print(f"{plugin} at h = T/{n}: {e}", file=sys.stderr)
                continue
            rows.append((plugin.upper(), f"h = T/{n}", np.abs(y - ref).max(), 4 * steps if plugin == "rk4" else None, c))
    for rtol in ((1e-4, 1e-6) if args.tiny else (1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11)):
        y, c, nfev = run_dop853(system, state, T, rtol)
        rows.append(("DOP853", f"rtol = {rtol:g}", np.abs(y - ref).max(), nfev, c))

    lines = [f"System `{name}` from the initial state of `{os.path.relpath(args.study, os.path.join(here, '..'))}`, T = {T:g} s; reference DOP853 at rtol = 1e-13 "
             f"({ref_nfev} evaluations), which RK4 at h = T/{4 * rk4_steps[-1]} meets to {ref_check:.1e}.", "",
             "| method | setting | error at T | evaluations | evaluations per s of motion | CPU s |",
             "|---|---|---|---|---|---|"]
    for m, setting, err, nfev, c in rows:
        ev = f"{nfev}" if nfev is not None else "—"
        per = f"{nfev / T:.3g}" if nfev is not None else "—"
        shown = f"{err:.2e}" if np.isfinite(err) else "unstable"
        lines.append(f"| {m} | {setting} | {shown} | {ev} | {per} | {c:.3g} |")
    def per_eval(method):
        pts = [r[4] / r[3] for r in rows if r[0] == method and r[3] and np.isfinite(r[4])]
        return 1e6 * float(np.median(pts)) if pts else float("nan")

    lines += ["", f"CPU per evaluation (median over the rows): RK4 {per_eval('RK4'):.2f} µs (C++, the plugin's "
              f"step), DOP853 {per_eval('DOP853'):.1f} µs (SciPy calling `System.f` from Python).",
              "", "Fewest evaluations reaching an error (from the rows above):", "",
              "| error ≤ | RK4 | DOP853 | RK4 / DOP853 |", "|---|---|---|---|"]
    for target in (1e-2, 1e-3, 1e-4, 1e-5):
        need = {}
        for m in ("RK4", "DOP853"):
            ok = [r[3] for r in rows if r[0] == m and r[3] is not None and r[2] <= target]
            need[m] = min(ok) if ok else None
        ratio = f"{need['RK4'] / need['DOP853']:.2f}" if need["RK4"] and need["DOP853"] else "—"
        lines.append(f"| {target:g} | {need['RK4'] or 'not reached'} | {need['DOP853'] or 'not reached'} | {ratio} |")
    table = "\n".join(lines)
    print(table)

    os.makedirs(args.out, exist_ok=True)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(6, 4))
        for m, style in (("RK4", "o-"), ("DOP853", "s-")):
            pts = [(r[3], r[2]) for r in rows if r[0] == m and np.isfinite(r[2])]
            ax.loglog([p[0] for p in pts], [p[1] for p in pts], style, label=m)
        ax.set_xlabel("right-hand-side evaluations")
        ax.set_ylabel(f"max error at T = {T:g} s")
        ax.set_title(f"{name}: work against accuracy")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(args.out, "work_precision.png"), dpi=120)
    except ImportError:
        pass

    if args.readme:
        text = open(args.readme).read()
        begin, end = "<!-- work-precision:begin -->", "<!-- work-precision:end -->"
        if begin not in text or end not in text:
            raise SystemExit(f"{args.readme}: no {begin} ... {end} section to replace")
        head, rest = text.split(begin, 1)
        _, tail = rest.split(end, 1)
        tmp = args.readme + ".tmp"
        with open(tmp, "w") as f:
            f.write(head + begin + "\n" + table + "\n" + end + tail)
        os.replace(tmp, args.readme)


if __name__ == "__main__":
    main()
