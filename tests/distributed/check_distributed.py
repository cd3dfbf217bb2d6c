#!/usr/bin/env python3
"""Issue 16 checks, run by CTest: a study's run folder is byte-identical whatever ranks, threads
or interruptions produced it (the manifest's timings and execution record aside).

  check_distributed.py identical CLI STUDY [--mpirun MPIRUN]   1 process vs mpirun -n 1,2,3 x threads 1,2
  check_distributed.py resume CLI STUDY [--mpirun MPIRUN]      SIGKILL part-way, --resume, compare, count
  check_distributed.py refused CLI STUDY                       --resume against a changed study is refused
  check_distributed.py failing CLI STUDY [--mpirun MPIRUN]     failed tasks named; the run .failed; the rest kept
  check_distributed.py rebuilt CLI STUDY BUILD1 BUILD2         a plugin rebuilt between kill and --resume: refused
  check_distributed.py warnings CLI STUDY [--mpirun MPIRUN]    each distinct warning printed once (1 process, -n 2)
"""
import hashlib, json, os, re, shutil, signal, subprocess, sys, tempfile, time

TIMING_KEYS = {"wall_time_s", "threads", "execution"}


def strip(j):
    if isinstance(j, dict):
        return {k: strip(v) for k, v in j.items() if k not in TIMING_KEYS}
    if isinstance(j, list):
        return [strip(v) for v in j]
    return j


def files_of(folder):
    out = []
    for root, _, names in os.walk(folder):
        for n in names:
            out.append(os.path.relpath(os.path.join(root, n), folder))
    return sorted(out)


def compare(a, b, what):
    fa, fb = files_of(a), files_of(b)
    if fa != fb:
        sys.exit(f"FAIL {what}: different files: {sorted(set(fa) ^ set(fb))}")
    if any(f.startswith("checkpoint") for f in fa):
        sys.exit(f"FAIL {what}: the complete run kept its checkpoint")
    for f in fa:
        pa, pb = os.path.join(a, f), os.path.join(b, f)
        if os.path.basename(f) == "manifest.json":
            ja, jb = strip(json.load(open(pa))), strip(json.load(open(pb)))
            if ja != jb:
                sys.exit(f"FAIL {what}: {f} differs beyond timings")
        elif open(pa, "rb").read() != open(pb, "rb").read():
            sys.exit(f"FAIL {what}: {f} is not byte-identical")
    print(f"ok {what}: {len(fa)} files identical")
    return len(fa)


def mpi_env():
    env = dict(os.environ)
    env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                "OMPI_MCA_rmaps_base_oversubscribe": "1", "OMPI_MCA_btl_vader_single_copy_mechanism": "none"})
    return env


def command(cli, study, out, threads, ranks=0, mpirun=None, extra=()):
    cmd = [cli, "run", study, "--out", out, "--threads", str(threads), "--no-plots", "--quiet", *extra]
    if ranks:
        cmd = [mpirun, "--oversubscribe", "-n", str(ranks)] + cmd
    return cmd


def run(cmd, expect=0, env=None):
    r = subprocess.run(cmd, env=env or mpi_env(), capture_output=True, text=True, timeout=600)
    if r.returncode != expect:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {r.returncode} (expected {expect}):\n{r.stdout}\n{r.stderr}")
    return r


def manifest(folder):
    return json.load(open(os.path.join(folder, "manifest.json")))


def identical(cli, study, mpirun):
    with tempfile.TemporaryDirectory() as tmp:
        base = os.path.join(tmp, "single")
        run(command(cli, study, base, 1))
        cases = [(r, t) for r in (1, 2, 3) for t in (1, 2)] if mpirun else [(0, 2)]
        for ranks, threads in cases:
            out = os.path.join(tmp, f"r{ranks}_t{threads}")
            run(command(cli, study, out, threads, ranks, mpirun))
            if ranks and manifest(out)["execution"]["ranks"] != ranks:
                sys.exit(f"FAIL: mpirun -n {ranks} ran on {manifest(out)['execution']['ranks']} ranks")
            compare(base, out, f"{os.path.basename(study)} at {ranks or 1} ranks x {threads} threads")


def chunks_in(folder):
    d = os.path.join(folder, "checkpoint")
    return sorted(f for f in os.listdir(d) if f.endswith(".bin")) if os.path.isdir(d) else []


MAX_CHUNKS = 256  # ChunkPartition::default_max_chunks


def tasks_in(folder, total):
    """The tasks of the chunk files in folder's checkpoint: tasks are cut into at most 256 chunks
    of ceil(total / 256) consecutive tasks (the last one shorter)."""
    per = max(1, -(-total // MAX_CHUNKS))
    return sum(min(per, total - int(f[len("chunk_"):-len(".bin")]) * per) for f in chunks_in(folder))


def job_processes(root):
    """root and every process descended from it."""
    parent = {}
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat") as f:
                parent[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
        except (ValueError, OSError, IndexError):
            pass
    job, grew = {root}, True
    while grew:
        more = {pid for pid, pp in parent.items() if pp in job} - job
        job |= more
        grew = bool(more)
    return job


def kill_all(pids):
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def kill_part_way(cmd, staging, at_least):
    # In this process's scheduling group (no new session: Linux's autogroups would give a new
    # session its own CPU share) and at the lowest priority, so that on a loaded machine this
    # poller runs as soon as it wakes and sees the run part-way.
    p = subprocess.Popen(["nice", "-n", "19"] + cmd, env=mpi_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 300
    while len(chunks_in(staging)) < at_least:
        if p.poll() is not None:
            sys.exit(f"FAIL: the run ended (exit {p.returncode}) before {at_least} tasks were checkpointed; make it longer")
        if time.time() > deadline:
            sys.exit("FAIL: timeout waiting for checkpoints")
        time.sleep(0.01)
    # Every process of the job at once, as a batch system's kill does (killed from here, not by
    # starting pkill, which on a loaded machine took long enough for the run to finish).
    job = job_processes(p.pid)
    kill_all(job)
    p.wait()
    while any(os.path.exists(f"/proc/{pid}") for pid in job - {p.pid}):
        time.sleep(0.05)
    return len(chunks_in(staging))


def resume(cli, study, mpirun):
    with tempfile.TemporaryDirectory() as tmp:
        base = os.path.join(tmp, "uninterrupted")
        # With progress on and stderr not a terminal: a line every 0.2 s (a batch job's log).
        loud = command(cli, study, base, 1)
        loud.remove("--quiet")
        r = run(loud, env=dict(mpi_env(), DALEMBERT_PROGRESS_SECONDS="0.2"))
        total = manifest(base)["execution"]["tasks"]
        lines = [l for l in r.stderr.splitlines() if re.match(r"distributed_resume: +[0-9.]+%  [0-9]+/" + str(total) + r" tasks  .* elapsed  ETA ", l)]
        done = [int(re.search(r"([0-9]+)/", l).group(1)) for l in lines]
        if not lines or done != sorted(done) or done[-1] == 0:
            sys.exit(f"FAIL: progress lines on stderr: {r.stderr}")
        print(f"ok: {len(lines)} progress lines, e.g. {lines[-1]!r}")
        # Killed part-way (under mpirun -n 2 when MPI is there), resumed by one process, and once more.
        out = os.path.join(tmp, "killed")
        first = command(cli, study, out, 1, 2 if mpirun else 0, mpirun)
        files = kill_part_way(first, out + ".incomplete", 8)
        if os.path.exists(out):
            sys.exit("FAIL: a killed run left a complete folder")
        # Chunks of several members (the study has more tasks than chunks): a kill cuts chunks
        # part-way, whose members all run again.
        kept = tasks_in(out + ".incomplete", total)
        if not (8 <= files <= MAX_CHUNKS and files < kept < total):
            sys.exit(f"FAIL: {kept} of {total} tasks checkpointed at the kill, in {files} files")
        if manifest(base)["execution"]["chunks"] > MAX_CHUNKS:
            sys.exit(f"FAIL: {manifest(base)['execution']['chunks']} checkpoint files, more than {MAX_CHUNKS}")
        run(command(cli, study, out, 2, extra=("--resume",)))
        ex = manifest(out)["execution"]
        print(f"killed after {kept} of {total} tasks; resumed: kept {ex['tasks_resumed']}, computed {ex['tasks_computed']}")
        if ex["tasks_resumed"] != kept or ex["tasks_computed"] != total - kept:
            sys.exit(f"FAIL: the resumed run kept {ex['tasks_resumed']} and computed {ex['tasks_computed']} "
                     f"of {total} tasks ({kept} were checkpointed)")
        compare(base, out, f"{os.path.basename(study)} killed and resumed")
        # A resume of a complete run does nothing and says so.
        again = command(cli, study, out, 1, extra=("--resume",))
        again.remove("--quiet")
        r = run(again)
        if "nothing to resume" not in r.stdout:
            sys.exit(f"FAIL: --resume of a complete run: {r.stdout}")


def refused(cli, study):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "run")
        kill_part_way(command(cli, study, out, 1), out + ".incomplete", 4)
        changed = json.load(open(study))
        changed["integrators"][0]["params"]["alpha"] = 0.25
        changed_file = os.path.join(tmp, "changed.json")
        json.dump(changed, open(changed_file, "w"))
        r = run(command(cli, changed_file, out, 1, extra=("--resume",)), expect=1)
        want = "cannot resume: the study changed since the interrupted run: /integrators/0/params/alpha: 0.5 -> 0.25"
        if want not in r.stderr:
            sys.exit(f"FAIL: the refusal does not name the change:\n{r.stderr}")
        if not os.path.isdir(out + ".incomplete") or len(chunks_in(out + ".incomplete")) < 4:
            sys.exit("FAIL: a refused resume touched the interrupted run")
        print("ok: " + r.stderr.strip())
        # A checkpoint of an older layout (its study.json without "checkpoint_layout"): refused too.
        fingerprint = os.path.join(out + ".incomplete", "checkpoint", "study.json")
        old = json.load(open(fingerprint))
        old.pop("checkpoint_layout")
        json.dump(old, open(fingerprint, "w"))
        r = run(command(cli, study, out, 1, extra=("--resume",)), expect=1)
        if "has checkpoint layout 2, written by an older dalembert" not in r.stderr or len(r.stderr.strip().splitlines()) != 1:
            sys.exit(f"FAIL: the resume of an older checkpoint layout is not refused in one line:\n{r.stderr}")
        print("ok: " + r.stderr.strip())


def sha256_of(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def rebuilt(cli, study, build1, build2):
    """Integrator 'rebuilt' (tests/fixtures: two builds, the same name and version) added to STUDY;
    its file is replaced by the other build between a kill and --resume: the resume is refused,
    naming the plugin and both SHA-256 (hashlib's, here), and leaves the interrupted run as it was;
    with the first build back, it resumes, keeping every checkpointed task."""
    name = "dalembert_integrator_rebuilt.so"
    with tempfile.TemporaryDirectory() as tmp:
        plugins = os.path.join(tmp, "plugins")
        os.mkdir(plugins)
        so = os.path.join(plugins, name)
        shutil.copy(os.path.join(build1, name), so)
        j = json.load(open(study))
        j["plugin_paths"] = [plugins]
        j["integrators"].append({"plugin": "rebuilt", "label": "rebuilt"})
        study_file = os.path.join(tmp, "study.json")
        json.dump(j, open(study_file, "w"))
        out = os.path.join(tmp, "run")
        files = kill_part_way(command(cli, study_file, out, 1), out + ".incomplete", 4)
        kept = tasks_in(out + ".incomplete", j["ensemble"]["size"] * len(j["integrators"]))
        then = sha256_of(so)
        shutil.copy(os.path.join(build2, name), so)  # "rebuilt": the same file name, other bytes
        now = sha256_of(so)
        if then == now:
            sys.exit("FAIL: the two builds of the fixture have the same bytes")
        r = run(command(cli, study_file, out, 1, extra=("--resume",)), expect=1)
        want = (f"cannot resume: integrator plugin 'rebuilt' was rebuilt or replaced since the interrupted run: "
                f"its file had SHA-256 {then}, now {now}")
        if want not in r.stderr:
            sys.exit(f"FAIL: the refusal does not name the plugin and both hashes:\n{r.stderr}")
        if os.path.exists(out) or len(chunks_in(out + ".incomplete")) != files:
            sys.exit("FAIL: a refused resume touched the interrupted run")
        print("ok: " + r.stderr.strip())
        shutil.copy(os.path.join(build1, name), so)
        run(command(cli, study_file, out, 1, extra=("--resume",)))
        m = manifest(out)
        if m["execution"]["tasks_resumed"] != kept:
            sys.exit(f"FAIL: with the first build back, {m['execution']['tasks_resumed']} tasks kept of {kept} checkpointed")
        recorded = {p["name"]: p["sha256"] for p in m["plugins"]}
        if recorded.get("rebuilt") != then:
            sys.exit(f"FAIL: the manifest records {recorded.get('rebuilt')} for the plugin file, hashlib {then}")
        print(f"ok: with the first build back, resumed keeping {kept} tasks; the manifest records its SHA-256")


def failing(cli, study, mpirun):
    """STUDY's integrator "Newton1" fails at every h; everything else runs."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "run")
        r = run(command(cli, study, out, 1, 2 if mpirun else 0, mpirun), expect=1)
        errors = [l for l in r.stderr.splitlines() if "error:" in l]
        if len(errors) != 1 or "/integrators/1 [Newton1, h = 0.1]" not in errors[0] or "Newton" not in errors[0]:
            sys.exit(f"FAIL: the failure is not one line naming the task and its error:\n{r.stderr}")
        failed = out + ".failed"
        if os.path.exists(out) or not os.path.isfile(os.path.join(failed, "error.txt")):
            sys.exit("FAIL: a run with failed tasks is not NAME.failed with error.txt")
        tasks = manifest(failed)["tasks"]
        bad = sorted(t["label"] for t in tasks if not t["ok"])
        if bad != ["Newton1"] * 3:
            sys.exit(f"FAIL: failed tasks {bad}")
        # Every task that finished is kept: 6 rungs of DLA and RK4 and the 2 reference runs.
        kept = len(chunks_in(failed))
        if kept != 11:
            sys.exit(f"FAIL: {kept} chunk files kept, expected 11 (9 ladder rungs + 2 references)")
        # A resume recomputes only the failed tasks (and fails again, for the same reason).
        r = run(command(cli, study, out, 1, extra=("--resume",)), expect=1)
        ck = len(chunks_in(failed))
        print(f"ok: {errors[0][:160]}...; kept {kept} chunks, resumed into {failed} ({ck} chunks)")


def warnings(cli, study, mpirun):
    """STUDY warns about one parameter in several sweep cells (issue 26): each distinct warning is
    printed once per run, by one process, and under mpirun by rank 0 alone."""
    with tempfile.TemporaryDirectory() as tmp:
        for ranks in ((0, 2) if mpirun else (0,)):
            out = os.path.join(tmp, f"run{ranks}")
            r = run(command(cli, study, out, 2, ranks, mpirun))
            lines = [l for l in r.stderr.splitlines() if "warning:" in l]
            if not any("beta + beta_prime" in l for l in lines):
                sys.exit(f"FAIL: {study} no longer warns about beta + beta_prime = 1/2:\n{r.stderr}")
            repeated = {l: lines.count(l) for l in lines if lines.count(l) > 1}
            if repeated:
                sys.exit(f"FAIL ({ranks or 1} process(es)): warnings repeated: {repeated}")
            print(f"ok: {ranks or 1} process(es): {len(lines)} distinct warning(s), each once: {lines}")


if __name__ == "__main__":
    mode, cli, study = sys.argv[1:4]
    mpirun = sys.argv[5] if len(sys.argv) > 5 and sys.argv[4] == "--mpirun" else None
    {"identical": lambda: identical(cli, study, mpirun), "resume": lambda: resume(cli, study, mpirun),
     "refused": lambda: refused(cli, study), "failing": lambda: failing(cli, study, mpirun),
     "rebuilt": lambda: rebuilt(cli, study, *sys.argv[4:6]),
     "warnings": lambda: warnings(cli, study, mpirun)}[mode]()
