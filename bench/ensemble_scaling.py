#!/usr/bin/env python3
"""Issue 16 benchmark: a large ensemble's memory, per-member cost and manifest size as the member
count grows, and 2 MPI ranks x 1 thread against 1 process x 2 threads, on this machine.

  bench/ensemble_scaling.py [--cli build/bin/dalembert] [--sizes 100,1000,10000,100000] [--out DIR]
                            [--mpi-members 10000] [--tiny]

The study: the chaotic nonholonomic particle, DLA (F^{0,0,1/2}), h = 0.05, T = 100 (2000 steps a
member), every 10th step recorded, energy and constraint observers, no members file. Peak RSS is
the run's own (getrusage of the child: the largest of its processes). Writes a Markdown table to
stdout; the numbers quoted in the issue note come from it.
"""
import argparse, json, os, resource, shutil, subprocess, sys, tempfile, time

def study(members):
    return {
        "name": f"scaling_{members}", "kind": "ensemble",
        "description": "issue 16 benchmark: ensemble scaling",
        "system": {"plugin": "chaotic_nonholonomic_particle"},
        "initial": {"q": [1, 0, 1, -1, -1], "v": [0.05, 0.5, -0.5, -0.1, -0.05]},
        "h": 0.05, "T": 100, "record_every": 10,
        "ensemble": {"size": members, "seed": 1, "write_members": False, "quantiles": [0.05, 0.5, 0.95],
                     "sampler": {"plugin": "constrained_fixed_energy",
                                 "params": {"energy": 1.535, "position_sigma": 0.5, "potential_cap": 0.8}}},
        "integrators": [{"plugin": "nonholonomic_newmark", "params": {"beta": 0, "beta_prime": 0, "alpha": 0.5},
                         "label": "DLA"}],
        "observers": ["energy_error", "constraint_residual"],
        "limits": {"tasks": 2000000, "members": 2000000},
    }

# Runs cmd in a wrapper process of its own, which reports its children's CPU time and peak RSS
# (ru_maxrss: the largest of its descendants), so that each run's figures are its own.
WRAPPER = ("import resource, subprocess, sys; rc = subprocess.call(sys.argv[1:]); "
           "u = resource.getrusage(resource.RUSAGE_CHILDREN); "
           "print(u.ru_utime + u.ru_stime, u.ru_maxrss, file=sys.stderr); sys.exit(rc)")

def run(cmd, env=None):
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", WRAPPER] + cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stderr}")
    cpu, rss = r.stderr.strip().splitlines()[-1].split()
    return wall, float(cpu), float(rss) / 1024.0  # s, s, MB

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=os.path.join(os.path.dirname(__file__), "..", "build", "bin", "dalembert"))
    ap.add_argument("--sizes", default="100,1000,10000,100000")
    ap.add_argument("--mpi-members", type=int, default=10000)
    ap.add_argument("--mpirun", default=shutil.which("mpirun"))
    ap.add_argument("--mpi-repeats", type=int, default=3)
    ap.add_argument("--tiny", action="store_true", help="a smoke run: 20 and 40 members")
    a = ap.parse_args()
    sizes = [20, 40] if a.tiny else [int(s) for s in a.sizes.split(",")]
    tmp = tempfile.mkdtemp(prefix="dalembert_scaling_")
    print("| members | wall (s) | CPU (s) | CPU per member (ms) | peak RSS (MB) | manifest (KB) |")
    print("|---:|---:|---:|---:|---:|---:|")
    for n in sizes:
        f = os.path.join(tmp, f"s{n}.json")
        json.dump(study(n), open(f, "w"))
        out = os.path.join(tmp, f"out{n}")
        # Each size in a process of its own, so that ru_maxrss is that run's.
        cmd = [a.cli, "run", f, "--out", out, "--threads", "2", "--no-plots", "--quiet"]
        wall, cpu, rss = run(cmd)
        kb = os.path.getsize(os.path.join(out, "manifest.json")) / 1024.0
        print(f"| {n} | {wall:.2f} | {cpu:.2f} | {1000 * cpu / n:.3f} | {rss:.1f} | {kb:.1f} |", flush=True)
        shutil.rmtree(out)
    if a.mpirun:
        n = 40 if a.tiny else a.mpi_members
        f = os.path.join(tmp, f"s{n}.json")
        json.dump(study(n), open(f, "w"))
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        base = [a.cli, "run", f, "--no-plots", "--quiet"]
        rows = []
        for rep in range(a.mpi_repeats):  # interleaved
            w1, _, _ = run(base + ["--out", os.path.join(tmp, f"t2_{rep}"), "--threads", "2"], env)
            w2, _, _ = run([a.mpirun, "--oversubscribe", "-n", "2"] + base + ["--out", os.path.join(tmp, f"r2_{rep}"),
                                                                            "--threads", "1"], env)
            rows.append((w1, w2))
            shutil.rmtree(os.path.join(tmp, f"t2_{rep}")), shutil.rmtree(os.path.join(tmp, f"r2_{rep}"))
        w1 = sorted(r[0] for r in rows)[len(rows) // 2]
        w2 = sorted(r[1] for r in rows)[len(rows) // 2]
        print(f"\n{n} members, median of {len(rows)} interleaved runs: 1 process x 2 threads {w1:.2f} s; "
              f"mpirun -n 2 x 1 thread {w2:.2f} s; ratio {w2 / w1:.3f}")
    shutil.rmtree(tmp)

if __name__ == "__main__":
    main()
