"""The Python module under fuzzing (issue 26): the corpus of fuzz_cases.py (bad inputs to every
public function and class, threads, every plugin parameter at its extremes), each case run in a
subprocess so that a signal is a failed test naming the case.

A group's cases run in one worker process (fuzz_worker.py), which reports each case before and
after it runs. A worker that dies or hangs stops at a case: that case is run again alone to
confirm it; if it passes alone, the cases before it are run one per process to find the one that
broke the interpreter. The rest of the group then runs on in a new worker.
"""
import json
import os
import pathlib
import signal
import subprocess
import sys
import tempfile

import pytest

import fuzz_cases

WORKER = pathlib.Path(__file__).with_name("fuzz_worker.py")
BATCH_TIMEOUT = 90.0  # a whole group (~10 s when nothing is wrong)
ALONE_TIMEOUT = 30.0  # one case in its own process (a thread case runs ~1 s)

ALLOWED = {"dalembert.Error", "builtins.TypeError", "builtins.ValueError"}
# A dalembert.Error carries the one line the command line prints: never a library's own text.
RAW_TEXTS = ["[json.exception", "vector::", "max_size()", "basic_string", "std::", "Unable to cast", "bad_alloc",
             "stoi", "stod", "pybind11", "nlohmann"]


def run_worker(cases, timeout):
    """Runs `cases` in one worker. Returns ({index: outcome event}, index of the case it stopped in
    or None, how it stopped (None: it finished), the tail of its stderr)."""
    with tempfile.TemporaryDirectory(prefix="dalembert-fuzz-") as tmp:
        events_file = pathlib.Path(tmp) / "events"
        given = json.dumps({"prelude": fuzz_cases.PRELUDE,
                            "cases": [{"name": c["name"], "code": c["code"]} for c in cases]})
        env = dict(os.environ, TMPDIR=tmp)  # whatever the cases write goes away with the worker
        try:
            r = subprocess.run([sys.executable, str(WORKER), str(events_file)], input=given, capture_output=True,
                               text=True, timeout=timeout, env=env)
            how = None if r.returncode == 0 else (f"killed by {signal.Signals(-r.returncode).name}"
                                                  if r.returncode < 0 else f"exited with status {r.returncode}")
            stderr = r.stderr
        except subprocess.TimeoutExpired as e:
            how = f"hung (no outcome within {timeout:.0f} s)"
            stderr = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        outcomes, started = {}, None
        if events_file.exists():
            for line in events_file.read_text().splitlines():
                event = json.loads(line)
                if "start" in event:
                    started = event["start"]
                else:
                    outcomes[event["case"]] = event
    stopped = started if started is not None and started not in outcomes else None
    if how is None and stopped is None and len(outcomes) < len(cases):
        how = "stopped early"
    return outcomes, stopped, how, "\n".join(stderr.strip().splitlines()[-6:])


def verdict(case, outcome):
    """None if the case did what it must, else why not."""
    allowed = ALLOWED | set(case["also"])
    if "returned" in outcome:
        return "returned without an error" if case["expect"] == "error" else None
    kinds, message = outcome["raised"], outcome["message"]
    if case["expect"] == "returns" or not allowed.intersection(kinds):
        return f"raised {kinds[0]}: {message}"
    if "dalembert.Error" in kinds:
        if "\n" in message.strip():
            return f"a dalembert.Error of several lines: {message!r}"
        raw = [t for t in RAW_TEXTS if t in message]
        if raw:
            return f"a dalembert.Error with a library's text {raw}: {message}"
    return None


def fuzz(cases):
    """{case name: why it failed} over a group, each crash or hang named by its case."""
    failed = {}
    todo = list(cases)
    while todo:
        outcomes, stopped, how, stderr = run_worker(todo, BATCH_TIMEOUT)
        for i, outcome in outcomes.items():
            why = verdict(todo[i], outcome)
            if why:
                failed[todo[i]["name"]] = why
        if how is None:
            break
        if stopped is None:  # died in the prelude, before any case
            failed["<prelude>"] = f"the worker {how}: {stderr}"
            break
        culprit = todo[stopped]
        _, alone, how_alone, stderr_alone = run_worker([culprit], ALONE_TIMEOUT)
        if alone is not None:
            failed[culprit["name"]] = f"{how_alone}: {stderr_alone}"
        else:
            # It passes alone: an earlier case of the same process broke the interpreter.
            guilty = []
            for earlier in todo[:stopped]:
                _, s, h, err = run_worker([earlier], ALONE_TIMEOUT)
                if s is not None:
                    failed[earlier["name"]] = f"{h}: {err}"
                    guilty.append(earlier["name"])
            failed[culprit["name"]] = (f"the worker {how} in this case after {stopped} other cases"
                                       + (f" (alone, {', '.join(guilty)} crash)" if guilty else
                                          ", though neither it nor any earlier case crashes alone") + f": {stderr}")
        todo = todo[stopped + 1:]
    return failed


def test_case_names_are_unique(dalembert):
    names = [c["name"] for g in fuzz_cases.GROUPS for c in fuzz_cases.group(g, dalembert)]
    assert len(names) == len(set(names)), sorted({n for n in names if names.count(n) > 1})


@pytest.mark.parametrize("group", fuzz_cases.GROUPS)
def test_fuzz(dalembert, group):
    cases = fuzz_cases.group(group, dalembert)
    assert cases
    failed = fuzz(cases)
    assert not failed, f"{len(failed)} of {len(cases)} cases of group {group} failed:\n" + "\n".join(
        f"  {name}: {why}" for name, why in failed.items())
