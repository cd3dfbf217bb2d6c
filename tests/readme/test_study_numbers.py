#!/usr/bin/env python3
"""Issue 26 item 5: scripts/study_numbers.py catches a study README whose quoted parameters disagree
with the study file. Fixture: the rolling_disk README's sweep_speed row as it was (θ₀ = 1e-3,
T = 100, while sweep_speed.json has 1e-6 and 150), once typed and once in value marks.

  test_study_numbers.py SOURCE_DIR
"""
import os
import shutil
import subprocess
import sys
import tempfile

OLD_ROW = ("| sweep_speed | Upright straight rolling from θ₀ = {theta} at 22 speeds from 0.5× to 2× the "
           "threshold, RK4 and DLA, T = {T}: the largest tilt against the speed. |\n")
TABLE = "| Study | What it shows |\n|---|---|\n"


def run(script, readme, *flags):
    return subprocess.run([sys.executable, script, "--check", "--values", *flags, readme], capture_output=True, text=True)


def main():
    source = sys.argv[1]
    script = os.path.join(source, "scripts", "study_numbers.py")
    failures = []

    def expect(ok, what):
        if not ok:
            failures.append(what)

    with tempfile.TemporaryDirectory(prefix="study_numbers_test_") as d:
        shutil.copy(os.path.join(source, "studies", "rolling_disk", "sweep_speed.json"), d)
        readme = os.path.join(d, "README.md")

        # 1. Typed, as the README was: T = 100 in the study's row is reported (it is not quoted).
        with open(readme, "w") as f:
            f.write(TABLE + OLD_ROW.format(theta="1e-3", T="100"))
        r = run(script, readme)
        expect(r.returncode == 1, f"typed T = 100: exit {r.returncode}, want 1")
        expect("T = 100 in the row of sweep_speed is typed, not quoted from sweep_speed.json" in r.stderr
               and "and sweep_speed.json has T = 150" in r.stderr, "typed T = 100: no message naming it: " + r.stderr)

        # 2. Marked, with the old numbers: stale, and rewriting puts the file's numbers in.
        marked = OLD_ROW.format(theta="<!-- value: sweep_speed /initial/q/3 -->1e-3<!-- end -->",
                                T="<!-- value: sweep_speed /T -->100<!-- end -->")
        with open(readme, "w") as f:
            f.write(TABLE + marked)
        r = run(script, readme)
        expect(r.returncode == 1 and "stale generated numbers in" in r.stderr, f"stale marks: exit {r.returncode}: {r.stderr}")
        subprocess.run([sys.executable, script, "--values", readme], check=True)
        with open(readme) as f:
            text = f.read()
        expect("/initial/q/3 -->1e-6<!-- end -->" in text and "/T -->150<!-- end -->" in text, "rewritten row: " + text)
        r = run(script, readme)
        expect(r.returncode == 0, f"after rewriting: exit {r.returncode}: {r.stderr}")

        # 3. A mark naming what the study file does not have is an error naming it.
        with open(readme, "w") as f:
            f.write(TABLE + OLD_ROW.format(theta="<!-- value: sweep_speed /initial/q/9 -->0<!-- end -->", T="x"))
        r = run(script, readme)
        expect(r.returncode != 0 and "the study file has no /initial/q/9" in r.stderr, f"bad pointer: {r.returncode}: {r.stderr}")

    for f in failures:
        print("FAILED: " + f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
