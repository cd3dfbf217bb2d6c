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

A parameter quoted in the prose is marked inline with where it comes from in the study file, a
JSON pointer (a trailing # quotes an array's length; :SPEC a Python format spec):

    T = <!-- value: sweep_speed /T -->150<!-- end -->, <!-- value: sweep_speed /sweep/axes/0/values# -->22<!-- end --> speeds

and is rewritten from STUDY.json (no run needed). A value written as `T = NUMBER` or `h = NUMBER` in
a row of a README's study table (a row whose first cell names STUDY.json of the folder) must be
marked: an unmarked one is reported, so a typed parameter cannot silently disagree with the file.

  study_numbers.py README.md ...            rewrite the sections
  study_numbers.py --check README.md ...    exit 1 if a section differs from what the run gives
  study_numbers.py --check --values README.md ...   only the quoted parameters (no run)
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
VALUE = re.compile(r"<!-- value: (\S+) (/\S*?)(#?)(?::(\S+))? -->(.*?)<!-- end -->")
# A typed T = 150 or h = 0.01 (not h = 0.1/2^j, a formula): must be a marked value in a study row.
TYPED = re.compile(r"(?<![\w.])([Th]) = ([-+]?[0-9][0-9.]*(?:e[-+−]?[0-9]+)?)(?![\w./·^×−-])")


def number(x, spec=".4g"):
    if x is None:
        return "—"
    if isinstance(x, (int, float)):
        return format(x, spec)
    return str(x)


def compact(x):
    """A parameter as people write it: 150, 0.01, 1e-6, 1.6207963267948966."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return str(x)
    if isinstance(x, float) and x.is_integer() and abs(x) < 1e6:
        return str(int(x))
    text = repr(x)
    if x != 0 and not 1e-3 <= abs(x) < 1e6:  # the shortest mantissa that reads back as x
        text = next(t for t in (format(x, f".{d}e") for d in range(17)) if float(t) == x)
    return re.sub(r"e([-+]?)0*(\d)", lambda m: "e" + m.group(1).replace("+", "") + m.group(2), text)


def pointer(doc, path, where):
    """The value at JSON pointer `path` (RFC 6901) of `doc`; `where` names the mark in errors."""
    node = doc
    for raw in path.split("/")[1:]:
        key = raw.replace("~1", "/").replace("~0", "~")
        try:
            node = node[int(key)] if isinstance(node, list) else node[key]
        except (KeyError, IndexError, ValueError, TypeError):
            raise SystemExit(f"{where}: the study file has no {path}")
    return node


def quoted_value(m, folder, where):
    study, path, length, spec = m.group(1), m.group(2), m.group(3), m.group(4)
    file = os.path.join(folder, study + ".json")
    if not os.path.isfile(file):
        raise SystemExit(f"{where}: no study file {study}.json beside the README")
    with open(file) as f:
        x = pointer(json.load(f), path, f"{where} ({study}.json)")
    if length:
        x = len(x)
    text = format(x, spec) if spec else compact(x)
    return f"<!-- value: {study} {path}{length}{':' + spec if spec else ''} -->{text}<!-- end -->"


def unmarked(text, folder, readme):
    """`T = N` / `h = N` typed outside a value mark in a study-table row: one message each."""
    found = []
    for n, line in enumerate(text.splitlines(), 1):
        cells = line.split("|")
        if len(cells) < 3 or not line.lstrip().startswith("|"):
            continue
        study = cells[1].strip().strip("`")
        if not re.fullmatch(r"[\w.-]+", study) or not os.path.isfile(os.path.join(folder, study + ".json")):
            continue
        bare = VALUE.sub("", line)
        for m in TYPED.finditer(bare):
            found.append(f"{readme}:{n}: {m.group(0)} in the row of {study} is typed, not quoted from {study}.json "
                         f"(write {m.group(1)} = <!-- value: {study} /... -->{m.group(2)}<!-- end -->)"
                         + disagreement(m.group(1), m.group(2), os.path.join(folder, study + ".json")))
    return found


def disagreement(name, typed, file):
    """' and the file has T = 150' when the typed T (or h) is none of the study's values of it."""
    with open(file) as f:
        doc = json.load(f)
    if name == "T":
        values = [doc.get("T")]
    else:
        h = doc.get("h")
        values = (h if isinstance(h, list) else [h]) + [doc.get("reference", {}).get("h") if isinstance(doc.get("reference"), dict) else None]
        values += [i.get("h") for i in doc.get("integrators", []) if isinstance(i, dict)]
    values = [v for v in values if isinstance(v, (int, float))]
    if any(abs(float(typed.replace("−", "-")) - v) <= 1e-12 * abs(v) for v in values):
        return ""
    return f"; and {os.path.basename(file)} has {name} = {', '.join(compact(v) for v in values) or 'none'}"


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
        if args.values or (args.only and study not in args.only):
            return m.group(0)
        new = section(study, keys, manifest_of(study, folder, args, scratch))
        return f"<!-- generated: {study}{m.group(2)} -->\n{new}<!-- end generated -->"

    new = MARK.sub(replace, text)
    new = VALUE.sub(lambda m: quoted_value(m, folder, readme), new)
    return text, new


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("readmes", nargs="+")
    p.add_argument("--check", action="store_true", help="only compare; exit 1 on a stale section")
    p.add_argument("--runs", help="folder of finished runs (RUNS/STUDY/manifest.json) instead of running")
    p.add_argument("--only", action="append", help="regenerate this study's sections only (repeatable)")
    p.add_argument("--values", action="store_true", help="only the quoted parameters (value marks): no run")
    p.add_argument("--dalembert", default="build/bin/dalembert", help="the dalembert program")
    args = p.parse_args()
    stale, typed = [], []
    with tempfile.TemporaryDirectory(prefix="study_numbers_") as scratch:
        for readme in args.readmes:
            old, new = regenerate(readme, args, scratch)
            typed += unmarked(new, os.path.dirname(os.path.abspath(readme)), readme)
            if old == new:
                continue
            stale.append(readme)
            if not args.check:
                with open(readme + ".part", "w") as f:
                    f.write(new)
                os.replace(readme + ".part", readme)
    for line in typed:
        print(line, file=sys.stderr)
    if args.check and stale:
        print("stale generated numbers in: " + ", ".join(stale) + " (run scripts/study_numbers.py on them)", file=sys.stderr)
        return 1
    return 1 if typed else 0


if __name__ == "__main__":
    sys.exit(main())
