#!/usr/bin/env python3
"""Runs every bundled study with two builds of dalembert and compares what they write, file by file.

usage: scripts/compare_studies.py OLD_ROOT NEW_ROOT [--studies GLOB ...] [--out DIR] [--threads N]
                                  [--old-runs DIR]

OLD_ROOT and NEW_ROOT are source trees, each built (OLD_ROOT/build/bin/dalembert). Each build runs
the studies of its own tree (studies/*/*.json, or the GLOBs, relative to the tree); a study found in
only one tree is listed, not compared. Every data file (CSV, .npy, claims) must be byte-identical;
manifest.json is compared as JSON without what says when, where and with which build it ran
(wall times, threads, execution, the dalembert and plugin provenance) and without the file sizes
of figures; a key the new manifest adds (e.g. the "format" of each file-index entry, issue 27) is
named in the study's line but is not a difference; report.md and figures/ are not compared (they
quote the same numbers as the data).

--old-runs DIR keeps the old build's runs in DIR and reuses those already there (a baseline run
once, compared against many new builds); the new runs go to --out or a temporary folder.

Prints one line per study (identical / differs: the files and, for CSV, the largest absolute and
relative change of any number with the column it is in) and exits 1 when any study differs, so
that "nothing numeric changes" (issue 27) and "round-off only" (issue 32) are stated from a run.
"""
import argparse, csv, glob, json, math, os, pathlib, subprocess, sys, tempfile

RUN_KEYS = {"wall_time_s", "threads", "execution", "dalembert", "plugins"}


def studies_of(root, globs):
    files = set()
    for g in globs:
        files.update(pathlib.Path(p).relative_to(root).as_posix() for p in glob.glob(str(root / g)))
    return files


def run(root, study, out, threads):
    cli = root / "build" / "bin" / "dalembert"
    r = subprocess.run([str(cli), "run", study, "--out", str(out), "--no-plots", "--quiet", "--threads", str(threads)],
                       cwd=root, capture_output=True, text=True)
    return r.returncode, r.stderr.strip().splitlines()[-1:] if r.stderr.strip() else []


def without_run_keys(j):
    if isinstance(j, dict):
        return {k: without_run_keys(v) for k, v in j.items() if k not in RUN_KEYS}
    if isinstance(j, list):
        return [without_run_keys(v) for v in j]
    return j


def added_keys(old, new, found):
    """`new` without the dict keys `old` lacks at the same place; the keys dropped go to `found`."""
    if isinstance(old, dict) and isinstance(new, dict):
        found.update(k for k in new if k not in old)
        return {k: added_keys(old[k], v, found) for k, v in new.items() if k in old}
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [added_keys(a, b, found) for a, b in zip(old, new)]
    return new


def csv_change(a, b):
    """(largest |x - y|, largest |x - y| / max(|x|, |y|), column) over the numbers of two CSV files."""
    worst = (0.0, 0.0, "")
    with open(a, newline="") as fa, open(b, newline="") as fb:
        ra, rb = list(csv.reader(fa)), list(csv.reader(fb))
    if len(ra) != len(rb) or (ra and ra[0] != rb[0]):
        return None
    header = ra[0] if ra else []
    for row_a, row_b in zip(ra[1:], rb[1:]):
        for k, (x, y) in enumerate(zip(row_a, row_b)):
            if x == y:
                continue
            try:
                fx, fy = float(x), float(y)
            except ValueError:
                return None
            d = abs(fx - fy) if math.isfinite(fx) and math.isfinite(fy) else math.inf
            rel = d / max(abs(fx), abs(fy)) if d != math.inf else math.inf
            if rel > worst[1] or (rel == worst[1] and d > worst[0]):
                worst = (d, rel, header[k] if k < len(header) else str(k))
    return worst


def compare_folders(a, b):
    """The differences between two run folders, one text each, and the keys the new manifests add."""
    diffs, notes = [], []
    names = lambda d: {p.relative_to(d).as_posix() for p in d.rglob("*") if p.is_file()}
    fa, fb = names(a), names(b)
    skip = lambda n: n.startswith("figures/") or n.endswith("report.md") or "/figures/" in n
    for n in sorted((fa ^ fb)):
        if not skip(n):
            diffs.append(f"{n}: only in the {'old' if n in fa else 'new'} run")
    for n in sorted(fa & fb):
        if skip(n):
            continue
        pa, pb = a / n, b / n
        if n.endswith("manifest.json"):
            ja, jb = (without_run_keys(json.loads(p.read_text())) for p in (pa, pb))
            added = set()
            if ja != added_keys(ja, jb, added):
                diffs.append(f"{n}: differs beyond its run keys")
            elif added:
                notes.extend(sorted(added))
        elif pa.read_bytes() != pb.read_bytes():
            change = csv_change(pa, pb) if n.endswith(".csv") else None
            diffs.append(f"{n}: " + (f"largest change {change[0]:.3g} (relative {change[1]:.3g}) in column {change[2]}"
                                     if change else "differs"))
    return diffs, notes


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", type=pathlib.Path)
    ap.add_argument("new", type=pathlib.Path)
    ap.add_argument("--studies", nargs="+", default=["studies/*/*.json"])
    ap.add_argument("--out", type=pathlib.Path, help="keep the runs here (default: a temporary folder)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--old-runs", type=pathlib.Path, help="the old build's runs: reused when there, else kept there")
    args = ap.parse_args()
    old, new = args.old.resolve(), args.new.resolve()
    for root in (old, new):
        if not (root / "build" / "bin" / "dalembert").is_file():
            sys.exit(f"error: {root}: no build/bin/dalembert (give a built source tree)")
    s_old, s_new = studies_of(old, args.studies), studies_of(new, args.studies)
    for s in sorted(s_old ^ s_new):
        print(f"{s}: only in the {'old' if s in s_old else 'new'} tree, not compared")
    with tempfile.TemporaryDirectory(prefix="dalembert-compare-") as tmp:
        base = args.out.resolve() if args.out else pathlib.Path(tmp)
        differing = 0
        if args.old_runs:
            args.old_runs.mkdir(parents=True, exist_ok=True)
        for s in sorted(s_old & s_new):
            tag = s.replace("/", "__").removesuffix(".json")
            old_run = (args.old_runs.resolve() if args.old_runs else base / "old") / tag
            new_run = base / "new" / tag
            status = old_run.with_name(tag + ".exit")  # the old run's exit status, kept beside it
            if args.old_runs and status.exists():
                ca, ea = int(status.read_text()), []
            else:
                ca, ea = run(old, s, old_run, args.threads)
                if args.old_runs:
                    status.write_text(f"{ca}\n")
            cb, eb = run(new, s, new_run, args.threads)
            if ca != cb or ca not in (0, 3):
                print(f"{s}: exit {ca} (old) / {cb} (new) {ea + eb}")
                differing += ca != cb
                continue
            diffs, notes = compare_folders(old_run, new_run)
            differing += bool(diffs)
            added = f" (manifests add {', '.join(sorted(set(notes)))}: {len(notes)} file(s))" if notes else ""
            print(f"{s}: " + ("identical" + added if not diffs else "differs\n    " + "\n    ".join(diffs)), flush=True)
        compared = len(s_old & s_new)
        if not compared:
            sys.exit("error: no study found in both trees: nothing compared")
        print(f"{compared} studies compared: " + (f"{differing} differ" if differing else "every one identical"))
        sys.exit(1 if differing else 0)


if __name__ == "__main__":
    main()
