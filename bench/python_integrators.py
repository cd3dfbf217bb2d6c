"""The cost of an integrator written in Python (issue 31 item 2), not a timed test: RK4 and the
explicit midpoint rule of tests/python/python_schemes.py (python:python_schemes.*) against the C++
plugins rk4 and rk2 on the same field, in dalembert.simulate on seed 000's chaotic particle: CPU time
per step, median of interleaved runs, and the ratio Python / C++ (generic path, `compiled: false`,
and the compiled path). It writes its table into bench/README.md between the markers
<!-- generated: python_integrators --> and <!-- end generated -->.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_integrators.py [--steps 20000] [--repeat 5] [--readme bench/README.md]
"""
import argparse
import pathlib
import re
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "python"))  # the schemes the tests check against rk2 and rk4

import dalembert  # noqa: E402

Q0, V0, H = [1, 0, 1, -1, -1], [0.05, 0.5, -0.5, -0.1, -0.05], 1e-3
PAIRS = [("RK4", "python:python_schemes.RK4", None, "rk4"),
         ("explicit midpoint", "python:python_schemes.TwoStage", {"c": 0.5}, "rk2")]


def cpu_per_step(system, integrator, steps):
    s = system.state(Q0, V0)
    t0 = time.process_time()
    dalembert.simulate(system, integrator, s, H, steps * H)
    return (time.process_time() - t0) / steps


def measure(steps, repeat):
    sys_ = dalembert.system("chaotic_nonholonomic_particle")
    rows = []
    for label, py_name, py_params, cpp in PAIRS:
        makers = {"python": lambda: dalembert.integrator(py_name, sys_, py_params),
                  "generic": lambda: dalembert.integrator(cpp, sys_, {"compiled": False}),
                  "compiled": lambda: dalembert.integrator(cpp, sys_, {"compiled": True})}
        times = {k: [] for k in makers}
        for _ in range(repeat):  # interleaved: each sees the same machine
            for k, make in makers.items():
                times[k].append(cpu_per_step(sys_, make(), steps if k != "python" else steps // 10))
        med = {k: statistics.median(v) for k, v in times.items()}
        rows.append((label, py_name, cpp, med))
    return rows


def table(rows, steps, repeat):
    out = [f"From `bench/python_integrators.py` (simulate, chaotic particle, h = {H}; CPU time per step, median of "
           f"{repeat} interleaved runs of {steps // 10} Python and {steps} C++ steps):", "",
           "| scheme | Python class | C++ plugin | Python | C++ generic | C++ compiled | Python / generic | Python / compiled |",
           "|---|---|---|---|---|---|---|---|"]
    for label, py_name, cpp, m in rows:
        out.append(f"| {label} | `{py_name}` | `{cpp}` | {m['python'] * 1e6:.1f} µs | {m['generic'] * 1e6:.2f} µs | "
                   f"{m['compiled'] * 1e6:.3f} µs | {m['python'] / m['generic']:.0f}× | {m['python'] / m['compiled']:.0f}× |")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--readme", default=None)
    a = ap.parse_args()
    text = table(measure(a.steps, a.repeat), a.steps, a.repeat)
    print(text)
    if a.readme:
        path = pathlib.Path(a.readme)
        old = path.read_text()
        marker = re.compile(r"(<!-- generated: python_integrators -->\n).*?(<!-- end generated -->)", re.S)
        if not marker.search(old):
            sys.exit(f"{path}: no <!-- generated: python_integrators --> section")
        path.write_text(marker.sub(lambda m: m.group(1) + text + "\n" + m.group(2), old))


if __name__ == "__main__":
    main()
