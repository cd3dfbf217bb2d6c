"""The subprocess of the Python module's fuzzer (test_fuzz.py): runs a batch of cases in one
interpreter and reports each outcome, so that a case that kills the process (a signal) or hangs
is named by the last case it started.

Reads {"prelude": code, "cases": [{"name", "code"}, ...]} as JSON on stdin; the prelude runs once,
each case's code runs in a fresh copy of the prelude's names. Writes one JSON line per event to
the file named by argv[1], unbuffered (what was written survives a crash):
    {"start": i}                                       before case i
    {"case": i, "returned": true}                      it ran to its end
    {"case": i, "raised": [qualified names of the exception's classes], "message": str}
"""
import faulthandler
import json
import os
import sys


def qualified(cls):
    return f"{cls.__module__}.{cls.__qualname__}"


def main():
    faulthandler.enable()  # a crash prints the Python stack of the case to stderr
    given = json.load(sys.stdin)
    fd = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def report(event):
        os.write(fd, (json.dumps(event) + "\n").encode())

    base = {"__name__": "fuzz_case"}
    exec(compile(given["prelude"], "<prelude>", "exec"), base)
    for i, case in enumerate(given["cases"]):
        report({"start": i})
        names = dict(base)
        try:
            exec(compile(case["code"], f"<case {case['name']}>", "exec"), names)
        except BaseException as e:  # noqa: B902 -- KeyboardInterrupt, SystemExit are outcomes too
            report({"case": i, "raised": [qualified(c) for c in type(e).__mro__], "message": str(e)})
        else:
            report({"case": i, "returned": True})
    os.close(fd)


if __name__ == "__main__":
    main()
