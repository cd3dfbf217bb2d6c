#!/usr/bin/env python3
"""Issue 32 item 4 benchmark: an ensemble of short members at 1 and 2 threads and at 1 and 2 MPI
ranks (1 thread each), 10^3, 10^4 and 10^5 members; writes its table into bench/README.md.

  bench/ensemble_scaling.py [--cli build/bin/dalembert] [--baseline-cli OTHER/bin/dalembert]
                            [--sizes 1000,10000,100000] [--repeats 3] [--readme bench/README.md] [--tiny]

The study: the chaotic nonholonomic particle, DLA (F^{0,0,1/2}), h = 0.05, T = 10 (200 steps a
member), every 10th step recorded, energy and constraint observers, quantiles 5 %, 50 %, 95 %, no
members file: members short enough that the checkpoint and the reduction, not the steps, decide
the scaling. Each configuration runs --repeats times, interleaved, in a process of its own; the
table gives the medians of wall time and of CPU time (user + system of the run's processes) and
the speed-up of the medians against the 1.8x target, met or missed. --baseline-cli runs another
build (e.g. main's) in the same interleaved loop, for a before/after from one command. Ranks are
measured only when mpirun is found. --tiny: 200 and 400 members, one repeat, no README (CTest).
"""
import argparse, json, os, resource, shutil, subprocess, sys, tempfile, time

TARGET = 1.8
BEGIN, END = "<!-- ensemble-scaling:begin -->", "<!-- ensemble-scaling:end -->"


def study(members):
    return {
        "name": f"scaling_{members}", "kind": "ensemble",
        "description": "issue 32 benchmark: ensemble scaling",
        "system": {"plugin": "chaotic_nonholonomic_particle"},
        "initial": {"q": [1, 0, 1, -1, -1], "v": [0.05, 0.5, -0.5, -0.1, -0.05]},
        "h": 0.05, "T": 10, "record_every": 10,
        "ensemble": {"size": members, "seed": 1, "write_members": False, "quantiles": [0.05, 0.5, 0.95],
                     "sampler": {"plugin": "constrained_fixed_energy",
                                 "params": {"energy": 1.535, "position_sigma": 0.5, "potential_cap": 0.8}}},
        "integrators": [{"plugin": "nonholonomic_newmark", "params": {"beta": 0, "beta_prime": 0, "alpha": 0.5},
                         "label": "DLA"}],
        "observers": ["energy_error", "constraint_residual"],
        "limits": {"tasks": 2000000, "members": 2000000},
    }


# Runs cmd in a wrapper process of its own, which reports its children's CPU time (user, system),
# so that each run's figures are its own.
WRAPPER = ("import resource, subprocess, sys; rc = subprocess.call(sys.argv[1:]); "
           "u = resource.getrusage(resource.RUSAGE_CHILDREN); "
           "print(u.ru_utime, u.ru_stime, file=sys.stderr); sys.exit(rc)")


def run(cmd, env):
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", WRAPPER] + cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stderr}")
    user, system = r.stderr.strip().splitlines()[-1].split()
    return wall, float(user), float(system)


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if len(xs) % 2 else 0.5 * (xs[len(xs) // 2 - 1] + xs[len(xs) // 2])


def configurations(mpirun):
    """(name, threads, ranks): ranks 0 runs the process alone."""
    out = [("1 thread", 1, 0), ("2 threads", 2, 0)]
    if mpirun:
        out += [("1 rank", 1, 1), ("2 ranks", 1, 2)]
    return out


def measure(builds, sizes, repeats, mpirun, tmp):
    """{(build, members, config): [(wall, user, sys, chunks), ...]}, every configuration interleaved."""
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    results = {}
    for n in sizes:
        f = os.path.join(tmp, f"s{n}.json")
        json.dump(study(n), open(f, "w"))
        for rep in range(repeats):
            for build, cli in builds:
                for name, threads, ranks in configurations(mpirun):
                    out = os.path.join(tmp, "out")
                    cmd = [cli, "run", f, "--out", out, "--threads", str(threads), "--no-plots", "--quiet"]
                    if ranks:
                        cmd = [mpirun, "--oversubscribe", "-n", str(ranks)] + cmd
                    wall, user, system = run(cmd, env)
                    chunks = json.load(open(os.path.join(out, "manifest.json")))["execution"]["chunks"]
                    results.setdefault((build, n, name), []).append((wall, user, system, chunks))
                    shutil.rmtree(out)
            print(f"{n} members: repeat {rep + 1} of {repeats} done", file=sys.stderr, flush=True)
    return results


def cell(runs):
    return median([r[0] for r in runs]), median([r[1] + r[2] for r in runs]), median([r[2] for r in runs])


def table(results, builds, sizes, mpirun, repeats):
    lines = ["| build | members | checkpoint files | comparison | wall (s) | CPU (s) | of which system (s) | "
             "speed-up (wall) | target | status |", "|---|---:|---:|---|---|---|---|---:|---|---|"]
    pairs = [("1 thread", "2 threads")] + ([("1 rank", "2 ranks")] if mpirun else [])
    for build, _ in builds:
        for n in sizes:
            for one, two in pairs:
                a, b = results[(build, n, one)], results[(build, n, two)]
                (wa, ca, sa), (wb, cb, sb) = cell(a), cell(b)
                speedup = wa / wb
                status = "**met**" if speedup >= TARGET else "**missed**"
                lines.append(f"| {build} | {n} | {a[0][3]} | {one} / {two} | {wa:.2f} / {wb:.2f} | {ca:.2f} / {cb:.2f} | "
                             f"{sa:.2f} / {sb:.2f} | **{speedup:.2f}×** | ≥ {TARGET}× | {status} |")
    return "\n".join(lines)


def machine():
    model = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (f"Machine: {model}, {os.cpu_count()} CPUs; date {time.strftime('%Y-%m-%dT%H:%M:%S%z')}; "
            f"load average at the start {', '.join(f'{x:.1f}' for x in os.getloadavg())}.")


def write_readme(readme, text):
    doc = open(readme).read()
    if BEGIN not in doc or END not in doc:
        sys.exit(f"{readme}: no {BEGIN} ... {END} markers to write the table between")
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    open(readme, "w").write(head + BEGIN + "\n" + text + "\n" + END + tail)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=os.path.join(here, "..", "build", "bin", "dalembert"))
    ap.add_argument("--baseline-cli", help="another build to measure in the same loop (before/after)")
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--mpirun", default=shutil.which("mpirun"))
    ap.add_argument("--readme", default=os.path.join(here, "README.md"))
    ap.add_argument("--tiny", action="store_true", help="a smoke run: 200 and 400 members, once, no README")
    a = ap.parse_args()
    sizes = [200, 400] if a.tiny else [int(s) for s in a.sizes.split(",")]
    repeats = 1 if a.tiny else a.repeats
    builds = [("this build", a.cli)] + ([("baseline", a.baseline_cli)] if a.baseline_cli else [])
    header = machine()
    tmp = tempfile.mkdtemp(prefix="dalembert_scaling_")
    try:
        results = measure(builds, sizes, repeats, a.mpirun, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    text = (header + f" Medians of {repeats} interleaved runs; written by `bench/ensemble_scaling.py`" +
            (f" (baseline: `{a.baseline_cli}`)" if a.baseline_cli else "") +
            (", no mpirun: ranks not measured" if not a.mpirun else "") + ".\n\n" +
            table(results, builds, sizes, a.mpirun, repeats))
    print(text)
    if not a.tiny:
        write_readme(a.readme, text)


if __name__ == "__main__":
    main()
