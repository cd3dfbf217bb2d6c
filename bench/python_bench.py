"""The cost of the Python module (issue 18), not a timed test:

1. dalembert.simulate() of 10^6 steps against `dalembert run --no-plots` of the same study
   (same system, integrator, observers, record_every): the ratio of wall times, best of N;
2. a Python loop calling Integrator.step() 10^5 times: the time per step, and the overhead per
   step over the C++ loop (simulate without observers) on the same system and integrator;
3. the cost of making simulate() interruptible (issue 26: a clock read every 64 steps, the GIL
   taken every 0.1 s for Ctrl-C): 10^6 steps with and without the checks, CPU time, median of 3N
   interleaved pairs.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_bench.py [--cli build/bin/dalembert] [--repeat 3]
"""
import argparse
import json
import pathlib
import statistics
import subprocess
import tempfile
import time

import dalembert

SYSTEM, PARAMS = "nonholonomic_particle", None                       # seed 000, Fig 1
INTEGRATOR, IPARAMS = "nonholonomic_newmark", {"beta": 0, "beta_prime": 0, "alpha": 0.5}  # DLA
Q0, V0, H = [1, 1, -1], [1, -1, 1], 0.2
OBSERVERS, RECORD_EVERY = ["energy_error", "constraint_residual"], 1000


def best(f, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return min(times)


def main():
    root = pathlib.Path(__file__).resolve().parents[1]
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=str(root / "build" / "bin" / "dalembert"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--steps", type=int, default=10**6)
    ap.add_argument("--python-steps", type=int, default=10**5)
    a = ap.parse_args()
    n = a.steps
    study = {"name": "bench_python", "kind": "trajectory", "system": {"plugin": SYSTEM},
             "initial": {"q": Q0, "v": V0}, "h": H, "T": n * H, "record_every": RECORD_EVERY,
             "integrators": [{"label": "DLA", "plugin": INTEGRATOR, "params": IPARAMS}], "observers": OBSERVERS}
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="dalembert-bench-"))
    (tmp / "study.json").write_text(json.dumps(study))

    def cli():
        subprocess.run([a.cli, "run", str(tmp / "study.json"), "--out", str(tmp / "cli"), "--no-plots", "--quiet",
                        "--threads", "1"], check=True)

    sys_ = dalembert.system(SYSTEM, PARAMS)
    integ = dalembert.integrator(INTEGRATOR, sys_, IPARAMS)

    def simulate(observers=OBSERVERS, steps=n):
        s = sys_.state(Q0, V0)
        return dalembert.simulate(sys_, integ, s, H, steps * H, observers=observers, record_every=RECORD_EVERY)

    t_cli = best(cli, a.repeat)
    t_loop_cli = json.loads((tmp / "cli" / "manifest.json").read_text())["tasks"][0]["wall_time_s"]
    t_sim = best(simulate, a.repeat)
    # The same final rows: the work is the same.
    cli_manifest = json.loads((tmp / "cli" / "manifest.json").read_text())
    s = sys_.state(Q0, V0)
    dalembert.simulate(sys_, integ, s, H, n * H, observers=OBSERVERS, record_every=RECORD_EVERY)
    assert s.q.tolist() == cli_manifest["tasks"][0]["final"]["q"], "simulate and the CLI disagree"

    m = a.python_steps
    t_cxx = best(lambda: simulate(observers=[], steps=m), a.repeat) / m

    def python_loop():
        s = sys_.state(Q0, V0)
        step = integ.step
        for _ in range(m):
            step(s, H)
    integ.start(sys_.state(Q0, V0), H)
    t_py = best(python_loop, a.repeat) / m

    def core_simulate(interruptible):  # CPU time: robust on a shared machine
        s = sys_.state(Q0, V0)
        t0 = time.process_time()
        dalembert._dalembert.simulate(sys_, integ, s, H, n * H, OBSERVERS, RECORD_EVERY, None, interruptible)
        return time.process_time() - t0
    plain, checked = [], []
    for _ in range(3 * a.repeat):  # interleaved pairs: both see the same machine
        plain.append(core_simulate(False))
        checked.append(core_simulate(True))
    t_plain, t_checked = statistics.median(plain), statistics.median(checked)

    print(f"system {SYSTEM}, integrator {INTEGRATOR} {IPARAMS}, h = {H}; best of {a.repeat}")
    print(f"simulate, {n:.0e} steps, observers {OBSERVERS}, record_every {RECORD_EVERY}: {t_sim:.3f} s")
    print(f"dalembert run (same study, 1 thread, --no-plots): {t_cli:.3f} s (its task loop: {t_loop_cli:.3f} s)")
    print(f"ratio simulate / CLI: {t_sim / t_cli:.3f}   (simulate / CLI task loop: {t_sim / t_loop_cli:.3f})")
    print(f"C++ loop (simulate, no observers, {m:.0e} steps): {t_cxx * 1e9:.0f} ns/step")
    print(f"Python loop calling step() {m:.0e} times: {t_py * 1e9:.0f} ns/step; overhead {(t_py - t_cxx) * 1e9:.0f} ns/step")
    print(f"simulate, {n:.0e} steps, CPU time, median of {3 * a.repeat} interleaved pairs: interruptible "
          f"{t_checked:.3f} s, without the signal checks {t_plain:.3f} s; ratio {t_checked / t_plain:.3f}")


if __name__ == "__main__":
    main()
