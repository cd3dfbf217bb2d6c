#!/usr/bin/env python3
"""Regenerates the measured-number sections of studies/*/README.md from the runs themselves.

A README marks each generated section with

    <!-- generated: STUDY KEY KEY ... -->
    ... (replaced) ...
    <!-- end generated -->

where STUDY is a study of the README's folder (STUDY.json) and each KEY a task summary of its
manifest (trajectory studies: one row per task label), `orders` (convergence studies: declared
and fitted order per label) or `claims` (the run's checked claims: value, bound, verdict); KEY:SPEC formats with a Python format spec (default .4g). The numbers come from manifest.json of a run: the folders given with
--runs (RUNS/STUDY/manifest.json), or a run of `dalembert run STUDY.json --no-plots` into a
temporary folder (never into the source tree).

  study_numbers.py README.md ...            rewrite the sections
  study_numbers.py --check README.md ...    exit 1 if a section differs from what the run gives
Python 3 standard library only.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

MARK = re.compile(r"<!-- generated: (\S+)((?: \S+)*) -->\n(.*?)<!-- end generated -->", re.S)


def number(x, spec=".4g"):
    if x is None:
        return "—"
    if isinstance(x, (int, float)):
        return format(x, spec)
    return str(x)


def manifest_of(study, folder, args, scratch):
    if args.runs:
        path = os.path.join(args.runs, study, "manifest.json")
    else:
        out = os.path.join(scratch, study)
        cmd = [args.dalembert, "run", os.path.join(folder, study + ".json"), "--out", out, "--no-plots", "--quiet"]
        subprocess.run(cmd, check=True)
        path = os.path.join(out, "manifest.json")
    with open(path) as f:
        return json.load(f)


def summary_table(manifest, keys):
    """KEY or KEY:FORMAT (a Python format spec, default .4g)."""
    specs = [(k.split(":") + [".4g"])[:2] for k in keys]
    lines = ["| task | " + " | ".join(k for k, _ in specs) + " |", "|---" * (len(keys) + 1) + "|"]
    for t in manifest["tasks"]:
        s = t.get("summary", {})
        lines.append(f"| {t['label']} | " + " | ".join(number(s.get(k), f) for k, f in specs) + " |")
    return lines


def orders_table(manifest):
    lines = ["| integrator | declared order | fitted order |", "|---|---|---|"]
    for c in manifest["convergence"]:
        fitted = c["fitted_order"]
        lines.append(f"| {c['label']} | {c['declared_order']} | {'—' if fitted is None else f'{fitted:.2f}'} |")
    return lines


def claims_table(manifest):
    """The run's checked claims: id, measured value, what it must satisfy, verdict."""
    lines = ["| claim | measured | must be | verdict |", "|---|---|---|---|"]
    for r in manifest.get("claims", {}).get("results", []):
        lines.append(f"| {r['id']} | {number(r['value'], '.10g')} | {r['comparison']} | {r['verdict']} |")
    return lines


def section(study, keys, manifest):
    head = f"From `{study}` as this build runs it (`scripts/study_numbers.py` writes this table):"
    if keys == ["orders"]:
        body = orders_table(manifest)
    elif keys == ["claims"]:
        body = claims_table(manifest)
    else:
        body = summary_table(manifest, keys)
    return "\n".join([head, "", *body]) + "\n"


def regenerate(readme, args, scratch):
    folder = os.path.dirname(os.path.abspath(readme))
    with open(readme) as f:
        text = f.read()

    def replace(m):
        study, keys = m.group(1), m.group(2).split()
        if args.only and study not in args.only:
            return m.group(0)
        new = section(study, keys, manifest_of(study, folder, args, scratch))
        return f"<!-- generated: {study}{m.group(2)} -->\n{new}<!-- end generated -->"

    return text, MARK.sub(replace, text)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("readmes", nargs="+")
    p.add_argument("--check", action="store_true", help="only compare; exit 1 on a stale section")
    p.add_argument("--runs", help="folder of finished runs (RUNS/STUDY/manifest.json) instead of running")
    p.add_argument("--only", action="append", help="regenerate this study's sections only (repeatable)")
    p.add_argument("--dalembert", default="build/bin/dalembert", help="the dalembert program")
    args = p.parse_args()
    stale = []
    with tempfile.TemporaryDirectory(prefix="study_numbers_") as scratch:
        for readme in args.readmes:
            old, new = regenerate(readme, args, scratch)
            if old == new:
                continue
            stale.append(readme)
            if not args.check:
                with open(readme + ".part", "w") as f:
                    f.write(new)
                os.replace(readme + ".part", readme)
    if args.check and stale:
        print("stale generated numbers in: " + ", ".join(stale) + " (run scripts/study_numbers.py on them)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
