"""The corpus of the Python module's fuzzer (test_fuzz.py): bad inputs to every public function and
class of dalembert, by group. A case is Python code run in the worker (fuzz_worker.py) after
PRELUDE, and what it must do:

    "error"    raise one of the module's errors (dalembert.Error, dalembert.InputError) or a
               TypeError / ValueError (or an exception named in `also`);
    "any"      return, or raise one of those (odd but legal input, e.g. a negative step size);
    "returns"  run to its end (thread cases assert what they check themselves).

Never a signal, a hang or another exception; and a dalembert.Error is one line without a raw
library text (test_fuzz.py checks both).
"""
import json

PRELUDE = r'''
import copy, gc, json, math, os, pickle, tempfile, threading
import numpy as np
import dalembert as D
from dalembert import _dalembert as C

NAN, INF = float("nan"), float("inf")
sleigh = D.system("chaplygin_sleigh")
Q0, V0 = [0.0, 0.0, 0.0], [0.25, -1.0, 0.075]
H = 1.0 / 128

def st():
    """A fresh state of the sleigh (seed 001 Fig 2)."""
    return sleigh.state(Q0, V0)

def rk4():
    return D.integrator("rk4", sleigh)

def raw(cls):
    """An instance made by __new__ alone: no __init__ ran."""
    return cls.__new__(cls)

def study(**changes):
    """A valid trajectory study of the sleigh: 16 steps."""
    s = {"name": "fuzz", "kind": "trajectory", "system": {"plugin": "chaplygin_sleigh"},
         "initial": {"q": Q0, "v": V0}, "h": H, "T": 16 * H,
         "integrators": [{"label": "RK4", "plugin": "rk4"}], "observers": ["energy_error"]}
    s.update(changes)
    return s

def out():
    return os.path.join(tempfile.mkdtemp(prefix="dalembert-fuzz-"), "run")

_homes = {}
def home(integrator):
    """A system the integrator binds to with its default parameters (its "home" for the sweep)."""
    if integrator not in _homes:
        for name in sorted(p["name"] for p in C.plugins() if p["kind"] == "system"):
            try:
                s = D.system(name)
                D.integrator(integrator, s)
            except D.Error:
                continue
            _homes[integrator] = s
            break
        else:
            _homes[integrator] = sleigh
    return _homes[integrator]

def zero_state(system):
    return system.state(np.zeros(len(system.q_names)), np.zeros(len(system.v_names)))

def nested(depth):
    x = 1
    for _ in range(depth):
        x = [x]
    return x

def circular():
    d = {}
    d["self"] = d
    return d

def in_threads(*fns):
    """Runs each function in its own thread at once; returns what each returned or raised."""
    results = [None] * len(fns)
    go = threading.Barrier(len(fns))
    def wrap(i, f):
        go.wait()
        try:
            results[i] = ("returned", f())
        except BaseException as e:
            results[i] = ("raised", e)
    threads = [threading.Thread(target=wrap, args=(i, f)) for i, f in enumerate(fns)]
    for t in threads: t.start()
    for t in threads: t.join()
    return results

def when_running(integrator, action, finished):
    """Waits until a simulate() call runs `integrator` (or `finished` is set), then repeats `action`
    until `finished` is set; returns what action raised, as text."""
    while not integrator.running and not finished.is_set():
        pass
    raised = []
    while not finished.is_set():
        try:
            action()
        except D.Error as e:
            raised.append(str(e))
    return raised

def solo(integrator_name, steps, system=None):
    """The state after `steps` steps of simulate() from st(), alone: what a thread must reproduce."""
    system = system or sleigh
    s = st()
    D.simulate(system, D.integrator(integrator_name, system), s, H, steps * H, record_every=steps)
    return s.t, s.q.tobytes(), s.v.tobytes()
'''

GROUPS = ["module", "system", "integrator", "state", "simulate", "run_and_load", "uninitialised", "threads",
          "parameters_system", "parameters_integrator", "parameters_observer"]

# Values that are wrong for any number: huge integers, non-finite floats, other types.
HUGE = ["2**64", "2**63", "-2**63 - 1", "10**400", "1e300", "-1e300", "1e19"]
NONFINITE = ["NAN", "INF", "-INF"]
NOT_A_NUMBER = ["None", "'x'", "[1.0]", "{'a': 1}", "1j", "object()"]


def case(name, code, expect="error", also=()):
    return {"name": name, "code": code, "expect": expect, "also": list(also)}


def module_cases():
    c = []
    for bad in ["None", "5", "b'x'", "['chaplygin_sleigh']"]:
        c.append(case(f"system(name={bad})", f"D.system({bad})"))
        c.append(case(f"describe({bad})", f"D.describe({bad})"))
    for name in ["''", "'nope'", "'rk4'", "'x' * 100000", "'../../etc/passwd'", "'chaplygin_sleigh\\0'",
                 "'chaplygin_sleigh '", "'CHAPLYGIN_SLEIGH'", "'\\udcff'"]:
        c.append(case(f"system(name={name[:30]})", f"D.system({name})"))
        if name != "'rk4'":  # an integrator: describe() finds it
            c.append(case(f"describe({name[:30]})", f"D.describe({name})"))
    c.append(case("plugins()", "assert len(D.plugins()) > 0", "returns"))
    c.append(case("plugins(extra)", "D.plugins(1)"))
    c.append(case("plugin_search_paths()", "assert C.plugin_search_paths()", "returns"))
    c.append(case("version", "assert D.__version__ and C.revision is not None", "returns"))
    return c


def system_cases():
    c = []
    for bad in ["5", "'x'", "[1]", "True", "object()", "b'{}'"]:
        c.append(case(f"system(params={bad})", f"D.system('chaplygin_sleigh', {bad})"))
    for bad in NONFINITE + HUGE + NOT_A_NUMBER + ["True", "''", "[]", "[[1.0]]"]:
        c.append(case(f"system(params I={bad})", f"D.system('chaplygin_sleigh', {{'I': {bad}}})",
                      "any" if bad in ("1e300", "-1e300", "1e19", "2**64", "2**63", "-2**63 - 1") else "error"))
    c += [
        case("system(params unknown key)", "D.system('chaplygin_sleigh', {'no_such': 1})"),
        case("system(params int key)", "D.system('chaplygin_sleigh', {1: 2})"),
        case("system(params tuple key)", "D.system('chaplygin_sleigh', {(1, 2): 3})"),
        case("system(params circular)", "D.system('chaplygin_sleigh', circular())"),
        case("system(params nested 100000)", "D.system('chaplygin_sleigh', {'I': nested(100000)})",
             also=["builtins.RecursionError"]),
        case("system(params numpy scalar)", "D.system('chaplygin_sleigh', {'I': np.float64(2.0)})", "any"),
        case("system(params numpy array)", "D.system('chaplygin_sleigh', {'I': np.ones(2)})"),
        case("system(params set)", "D.system('chaplygin_sleigh', {'I': {1, 2}})"),
        case("system(params bytes)", "D.system('chaplygin_sleigh', {'I': b'1'})"),
        # Integer parameters (binder_torus n: the C++ parameter layer's integer range check).
        *[case(f"system(binder_torus n={n})", f"D.system('binder_torus', {{'n': {n}}})")
          for n in ["1e19", "2**63", "2**64", "1e300", "-1", "2.5", "NAN", "'80'", "4294967299", "4294967376"]],
        # Methods of a valid System, given bad states and times.
        *[case(f"System.{m}({bad})", f"sleigh.{m}({bad})")
          for m in ["energy", "constraint_residual", "diagnostics", "project"]
          for bad in ["None", "5", "'x'", "D.State([0.0], [0.0])", "D.State(np.zeros(3), np.zeros(4))", "sleigh",
                      "raw(D.State)"]],
        case("System.state(wrong q length)", "sleigh.state([0.0, 0.0], V0)"),
        case("System.state(wrong v length)", "sleigh.state(Q0, [0.0] * 4)"),
        case("System.state(None, None)", "sleigh.state(None, None)"),
        case("System.state(q NaN)", "sleigh.state([NAN, 0.0, 0.0], V0)"),
        case("System.state(v INF)", "sleigh.state(Q0, [INF, 0.0, 0.0])"),
        case("System.state(t NaN)", "sleigh.state(Q0, V0, NAN)"),
        case("System.state(t 10**400)", "sleigh.state(Q0, V0, 10**400)"),
        case("System.state(2-d q)", "sleigh.state([[0.0] * 3], V0)"),
        case("System.state(complex q)", "sleigh.state(np.array([1j, 0, 0]), V0)"),
        case("System.state(str q)", "sleigh.state(['a', 'b', 'c'], V0)"),
        case("System.state(object q)", "sleigh.state(np.array([object()] * 3), V0)"),
        case("System.state(int q)", "s = sleigh.state(np.array([1, 2, 3]), V0); assert s.q.tolist() == [1, 2, 3]",
             "returns"),
        case("System.state(non-contiguous q)",
             "s = sleigh.state(np.arange(6.0)[::2], V0); assert s.q.tolist() == [0, 2, 4]", "returns"),
        case("System.state(big-endian q)",
             "s = sleigh.state(np.array([1.0, 2, 3], dtype='>f8'), V0); assert s.q.tolist() == [1, 2, 3]", "returns"),
        case("System.state(float32 q)", "sleigh.state(np.ones(3, dtype=np.float32), V0)", "any"),
        case("System.state(bool q)", "sleigh.state(np.ones(3, dtype=bool), V0)", "any"),
        case("System.state(masked q)", "sleigh.state(np.ma.masked_array([1.0, 2, 3], mask=[0, 1, 0]), V0)", "any"),
        case("System.exact_solution(t NaN)", "sleigh.exact_solution(st(), NAN)"),
        case("System.exact_solution(t INF)", "sleigh.exact_solution(st(), INF)"),
        case("System.exact_solution(t -INF)", "sleigh.exact_solution(st(), -INF)"),
        case("System.exact_solution(t 'x')", "sleigh.exact_solution(st(), 'x')"),
        case("System.exact_solution(None)", "sleigh.exact_solution(None, 1.0)"),
        case("System.exact_solution(none)", "D.system('rolling_disk').exact_solution(zero_state(D.system('rolling_disk')), 1.0)"),
        case("System.exact_solution(pendulum t NaN)",
             "p = D.system('pendulum_3d'); p.exact_solution(p.state([1.0, 0, 0, 0], [0.1, 0.2, 0.3]), NAN)"),
        case("System.energy(state made non-finite by a step)",
             "s = st(); i = rk4()\ntry:\n    i.step(s, 1e300)\nexcept D.Error:\n    pass\nsleigh.energy(s)", "any"),
        # The Linearizable model (linear_stability): a family's steady states and linearisation.
        *[case(f"System.steady_state({bad})", f"D.system('rolling_disk').steady_state({bad})")
          for bad in ["NAN", "INF", "-INF", "'x'", "None", "10**400"]],
        *[case(f"System.linearise({bad})", f"D.system('rolling_disk').linearise({bad})")
          for bad in ["None", "5", "D.State([0.0], [0.0])", "D.State(np.zeros(5), np.zeros(4))", "raw(D.State)"]],
        # The model's functions (issue 31 item 1) given bad configurations, times and systems.
        *[case(f"System.{m}({bad})", f"sleigh.{m}({bad})")
          for m in ["M", "V", "grad_V", "A", "g"]
          for bad in ["None", "5", "'x'", "[0.0]", "[NAN, 0.0, 0.0]", "[INF, 0.0, 0.0]", "np.zeros((3, 3))",
                      "np.zeros(10**6)", "st()"]],
        *[case(f"System.{m}({args})", f"sleigh.{m}({args})")
          for m in ["f", "multipliers"]
          for args in ["NAN, Q0, V0", "INF, Q0, V0", "'x', Q0, V0", "0.0, Q0, [0.0]", "0.0, [NAN] * 3, V0",
                       "0.0, Q0, None", "0.0, Q0", "st()"]],
        *[case(f"System.b({args})", f"sleigh.b({args})")
          for args in ["NAN, Q0", "INF, Q0", "'x', Q0", "0.0, [0.0]", "0.0, [NAN] * 3", "0.0, None", "0.0", "st()"]],
        *[case(f"System.b(turntable, {args})", f"D.system('ball_on_turntable').b({args})",
               "any" if "1e308" in args else "error")
          for args in ["NAN, [1.0, 0, 1, 0, 0, 0]", "1e308, [1.0, 0, 1, 0, 0, 0]", "0.0, [1e308] * 6", "0.0, [1.0] * 5"]],
        case("System.b(not L-and-A)", "D.system('suslov').b(0.0, [1.0, 0, 0, 0])"),
        case("System.f(huge)", "sleigh.f(0.0, [1e300] * 3, [1e300] * 3)", "any"),
        *[case(f"System.{m}(not L-and-A)", f"D.system('suslov').{m}([1.0, 0, 0, 0])")
          for m in ["M", "V", "grad_V", "A", "g"]],
        case("System.f(not L-and-A)", "D.system('suslov').f(0.0, [1.0, 0, 0, 0], [0.0] * 3)"),
        case("System.M(returns)", "assert sleigh.M(Q0).shape == (3, 3)", "returns"),
        *[case(f"System.check({args})", f"sleigh.check({args})")
          for args in ["5", "'x'", "D.State([0.0], [0.0])", "raw(D.State)", "samples=-1", "samples=10**6",
                       "samples='x'", "seed=-1", "seed=2**64", "seed=NAN", "st(), 1, 2, 3"]],
        case("System.check(not L-and-A)", "D.system('suslov').check()"),
        case("System.check(returns)", "assert sleigh.check(samples=0).ok.all()", "returns"),
        case("System.steady_state(no family)", "sleigh.steady_state(1.0)"),
        case("System.linearise(no family)", "sleigh.linearise(st())"),
        case("System.family(no family)", "assert sleigh.family is None", "returns"),
        case("System.linearise(huge speed)", "d = D.system('rolling_disk'); d.linearise(d.steady_state(1e300))", "any"),
        case("System attribute set", "sleigh.name = 'x'", also=["builtins.AttributeError"]),
        case("System() no args", "D.System()"),
        case("System(name, params, extra)", "D.System('chaplygin_sleigh', None, 1)"),
        case("copy.copy(System)", "copy.copy(sleigh)", "any"),
        case("copy.deepcopy(System)", "copy.deepcopy(sleigh)", "any"),
        case("pickle System", "pickle.dumps(sleigh)"),
    ]
    return c


def integrator_cases():
    c = []
    for bad in ["None", "5", "'chaplygin_sleigh'", "rk4()", "raw(D.System)", "D.State(Q0, V0)"]:
        c.append(case(f"integrator(system={bad})", f"D.integrator('rk4', {bad})"))
        c.append(case(f"simulate(system={bad})", f"D.simulate({bad}, rk4(), st(), H, 1.0)"))
    for bad in ["None", "5", "''", "'nope'", "'chaplygin_sleigh'", "'energy_error'", "'x' * 100000"]:
        c.append(case(f"integrator(name={bad[:20]})", f"D.integrator({bad}, sleigh)"))
    for bad in ["5", "'x'", "[1]", "{'no_such': 1}", "{'compiled': 'yes'}", "{'compiled': NAN}", "{'compiled': 2}",
                "{'compiled': None}", "circular()"]:
        c.append(case(f"integrator(params={bad})", f"D.integrator('rk4', sleigh, {bad})"))
    c += [
        case("integrator(gni init=5)", "D.integrator('gni', sleigh, {'init': 5})"),
        case("integrator(gni init=None)", "D.integrator('gni', sleigh, {'init': None})"),
        case("integrator(needs another model)", "D.integrator('gni', D.system('binder_torus'))"),
        case("Integrator() no args", "D.Integrator()"),
    ]
    for bad in ["NAN", "INF", "-INF", "0.0", "1e300", "'x'", "None", "10**400", "[H]"]:
        c.append(case(f"Integrator.step(h={bad})", f"rk4().step(st(), {bad})"))
        c.append(case(f"Integrator.start(h={bad})", f"rk4().start(st(), {bad})",
                      "any" if bad in ("0.0", "1e300") else "error"))
    c.append(case("Integrator.step(h=-H)", "rk4().step(st(), -H)", "any"))
    c.append(case("Integrator.step(h=1e-300)", "rk4().step(st(), 1e-300)", "any"))
    for bad in ["None", "5", "'x'", "D.State([0.0], [0.0])", "sleigh", "raw(D.State)", "D.State(Q0, V0, 10**300)"]:
        c.append(case(f"Integrator.step(state={bad})", f"rk4().step({bad}, H)",
                      "any" if bad == "D.State(Q0, V0, 10**300)" else "error"))
        c.append(case(f"Integrator.start(state={bad})", f"rk4().start({bad})",
                      "any" if bad == "D.State(Q0, V0, 10**300)" else "error"))
    c += [
        case("Integrator.step(state of another system)",
             "p = D.system('pendulum_3d'); rk4().step(p.state([1.0, 0, 0, 0], [0.0] * 3), H)"),
        case("Integrator.quantities() before a step", "rk4().quantities()", "any"),
        case("Integrator.step after a failed step",
             "i = rk4(); s = st()\ntry:\n    i.step(s, 1e300)\nexcept D.Error:\n    pass\n"
             "assert s.t == 0.0 and s.q.tolist() == Q0 and s.v.tolist() == V0, 'a failed step changed the state'\n"
             "i.step(s, H); assert s.t == H", "returns"),
        case("Integrator.traits", "assert rk4().traits['order'] == 4", "returns"),
        case("Integrator attribute set", "rk4().system = sleigh", also=["builtins.AttributeError"]),
        case("pickle Integrator", "pickle.dumps(rk4())"),
        case("copy.copy(Integrator)", "copy.copy(rk4())"),
    ]
    return c + python_integrator_cases()


# Integrators written in Python (issue 31 item 2): bad classes, names and steps.
PY_SCHEME = "class S:\n    order = 2\n    def step(self, s, h):\n        {body}\n"


def python_integrator_cases():
    c = []
    for bad in ["None", "5", "'x'", "int", "lambda s, h: s", "sleigh"]:
        c.append(case(f"register_integrator({bad[:20]})", f"D.register_integrator({bad})"))
    for attr in ["order = 0", "order = '2'", "order = 2.5", "order = True", "order = 10**30", "parameters = 5",
                 "parameters = {'x': object()}", "parameters = {1: 2}", "needs = 5", "needs = ['NoSuchModel']"]:
        c.append(case(f"register_integrator({attr})",
                      f"class S:\n    {attr}\n    def step(self, s, h):\n        return s\n"
                      "D.register_integrator(S, 'fuzz_bad'); i = D.integrator('python:fuzz_bad', sleigh); i.step(st(), H)",
                      also=["builtins.AttributeError"]))
    for name in ["'python:'", "'python:x'", "'python:no_such_module.S'", "'python:os.path'", "'python:json.dumps'",
                 "'python:' + 'x' * 200", "'python:../x.S'"]:
        c.append(case(f"integrator({name[:30]})", f"D.integrator({name}, sleigh)"))
    for body in ["return None", "return 5", "return (1, 2, 3)", "return ([0.0], [0.0])", "return (s.q, 'x')",
                 "raise ValueError('boom')", "raise D.StepFailure('no')", "return (s.q * NAN, s.v)",
                 "return (s.q, s.v * INF)", "import sys; sys.exit(3)", "raise KeyboardInterrupt"]:
        c.append(case(f"Python step: {body[:30]}",
                      PY_SCHEME.format(body=body) +
                      "D.register_integrator(S, 'fuzz_step'); i = D.integrator('python:fuzz_step', sleigh)\n"
                      "s = st(); q = s.q.copy()\ntry:\n    i.step(s, H)\nfinally:\n"
                      "    assert s.q.tolist() == q.tolist(), 'a failed Python step changed the state'",
                      also=["builtins.SystemExit", "builtins.KeyboardInterrupt"]))
    c += [
        case("study with a Python system", "D.run(study(system={'plugin': 'python:x.S'}), out=out())"),
        case("study with a Python observer", "D.run(study(observers=['python:x.S']), out=out())"),
        case("check_integrator(bad)", "D.check_integrator('python:no_such_module.S')"),
        case("check_integrator(None)", "D.check_integrator(None)"),
    ]
    return c


def state_cases():
    c = []
    for bad in ["None", "5", "'abc'", "[[1.0, 2.0]]", "np.zeros((2, 2))", "np.float64(1.0)", "[1j]",
                "np.array([1, 2], dtype=complex)", "['a']", "[None]", "object()", "[NAN]", "[INF]", "[-INF]",
                "[10**400]", "{1: 2}", "[[]]"]:
        c.append(case(f"State(q={bad})", f"D.State({bad}, [0.0])"))
        c.append(case(f"State.q = {bad}", f"s = st(); s.q = {bad}"))
        c.append(case(f"State.v = {bad}", f"s = st(); s.v = {bad}"))
    c.append(case("State(q=[2**70] as objects)", "assert D.State(np.array([2**70], dtype=object), [0.0]).q[0] == 2.0**70",
                  "returns"))
    for bad in NONFINITE + NOT_A_NUMBER + ["10**400"]:
        c.append(case(f"State(t={bad})", f"D.State([0.0], [0.0], {bad})"))
        c.append(case(f"State.t = {bad}", f"s = st(); s.t = {bad}"))
    c += [
        case("State(t=2**64)", "assert D.State([0.0], [0.0], 2**64).t == 2.0**64", "returns"),
        case("State([], [])", "D.State([], [])", "any"),
        case("State() no args", "D.State()"),
        case("State(q, v, t, extra)", "D.State([0.0], [0.0], 0.0, 1)"),
        case("State q written in place", "s = st(); s.q[0] = 1.0"),
        case("State del q", "s = st(); del s.q", also=["builtins.AttributeError"]),
        case("State unknown attribute", "s = st(); s.x = 1", also=["builtins.AttributeError"]),
        case("State.copy()", "s = st(); c = s.copy(); c.t = 1.0; assert s.t == 0.0", "returns"),
        case("State repr", "assert 'State(' in repr(st())", "returns"),
        case("copy.copy(State)", "s = copy.copy(st()); assert s.q.tolist() == Q0", "any"),
        case("copy.deepcopy(State)", "s = copy.deepcopy(st()); assert s.q.tolist() == Q0", "any"),
        case("pickle State", "pickle.loads(pickle.dumps(st()))", "any"),
        case("State subclass without super().__init__",
             "class S(D.State):\n    def __init__(self):\n        pass\nS().q"),
        case("State subclass with super().__init__",
             "class S(D.State):\n    def __init__(self):\n        super().__init__(Q0, V0)\nassert S().q.tolist() == Q0", "returns"),
    ]
    return c


def simulate_cases():
    c = []
    for name, bad in [("h", b) for b in NONFINITE + ["0.0", "-0.0", "1e-300", "1e300", "'x'", "None", "10**400"]] + \
                     [("T", b) for b in NONFINITE + ["0.0", "-1.0", "1e300", "1e-300", "'x'", "None", "10**400"]]:
        args = {"h": "H", "T": "16 * H"}
        args[name] = bad
        c.append(case(f"simulate({name}={bad})", f"D.simulate(sleigh, rk4(), st(), {args['h']}, {args['T']})"))
    c.append(case("simulate(h<0, T<0)", "D.simulate(sleigh, rk4(), st(), -H, -16 * H)"))
    c.append(case("simulate(h<0, T>0) runs backwards", "s = st(); D.simulate(sleigh, rk4(), s, -H, 16 * H); assert s.t == -16 * H",
                  "returns"))
    c.append(case("simulate(T/h not whole)", "D.simulate(sleigh, rk4(), st(), 0.3, 1.0)"))
    for bad in ["0", "-1", "2**64", "10**400", "1e300", "NAN", "INF", "2.5", "'x'", "None", "[1]"]:
        c.append(case(f"simulate(record_every={bad})", f"D.simulate(sleigh, rk4(), st(), H, 16 * H, record_every={bad})"))
    for bad in ["0", "-1", "0.5", "NAN", "INF", "-INF", "'x'", "[1]", "2**64", "10**400"]:
        c.append(case(f"simulate(max_steps={bad})", f"D.simulate(sleigh, rk4(), st(), H, 16 * H, max_steps={bad})",
                      "any" if bad == "2**64" else "error"))
    c += [
        # The step limit: the study's default (1e8 steps per task), or max_steps=.
        case("simulate(T/h = 2e8 > the default limit)", "D.simulate(sleigh, rk4(), st(), 1.0, 2e8, record_every=10**9)"),
        case("simulate(T/h = 1e19)", "D.simulate(sleigh, rk4(), st(), 1.0, 1e19)"),
        case("simulate(T/h above max_steps)", "D.simulate(sleigh, rk4(), st(), H, 100 * H, max_steps=10)"),
        case("simulate(T/h = max_steps)", "D.simulate(sleigh, rk4(), st(), H, 10 * H, max_steps=10)", "returns"),
        case("simulate(max_steps=None)", "D.simulate(sleigh, rk4(), st(), H, 16 * H, max_steps=None)", "returns"),
    ]
    for bad in ["None", "5", "'energy_error'", "[None]", "[5]", "['nope']", "[('energy_error',)]",
                "[('energy_error', 5)]", "[('energy_error', {'x': 1})]", "[{'plugin': 5}]", "[{'params': {}}]",
                "[{'plugin': 'energy_error', 'params': 5}]", "['energy_error', 'energy_error']", "[object()]",
                "[('energy_error', circular())]", "[{'plugin': 'energy_error', 'params': {'x': NAN}}]",
                "[('energy_error', {}, 1)]", "['rk4']", "[b'energy_error']", "{'energy_error': {}}",
                "['x' * 100000]", "['energy_error'] * 20000"]:
        c.append(case(f"simulate(observers={bad[:40]})", f"D.simulate(sleigh, rk4(), st(), H, 16 * H, observers={bad})"))
    for bad in ["None", "5", "D.State([0.0], [0.0])", "raw(D.State)", "D.State(Q0, V0, NAN)", "sleigh"]:
        c.append(case(f"simulate(state={bad})", f"D.simulate(sleigh, rk4(), {bad}, H, 16 * H)"))
    for bad in ["None", "5", "'rk4'", "raw(D.Integrator)", "D.integrator('rk4', D.system('chaplygin_sleigh'))"]:
        c.append(case(f"simulate(integrator={bad[:30]})", f"D.simulate(sleigh, {bad}, st(), H, 16 * H)"))
    c += [
        case("simulate blows up", "D.simulate(sleigh, rk4(), st(), 1e150, 2e150)"),
        case("simulate after a failed run", "i = rk4()\ntry:\n    D.simulate(sleigh, i, st(), 1e150, 2e150)\n"
             "except D.Error:\n    pass\ns = st(); D.simulate(sleigh, i, s, H, 16 * H); assert s.t == 16 * H", "returns"),
        case("simulate leaves the state on an error",
             "s = st()\ntry:\n    D.simulate(sleigh, rk4(), s, 1e150, 2e150)\nexcept D.Error:\n    pass\n"
             "assert s.t == 0.0 and s.q.tolist() == Q0 and s.v.tolist() == V0", "returns"),
        case("simulate(extra positional)", "D.simulate(sleigh, rk4(), st(), H, 16 * H, [], 1, 10, 5)"),
        case("C.simulate(interruptible='x')", "C.simulate(sleigh, rk4(), st(), H, 16 * H, [], 1, 1e8, 'x')"),
        case("C.simulate(record_every=0)", "C.simulate(sleigh, rk4(), st(), H, 16 * H, [], 0)"),
        case("C.simulate(max_steps=INF)", "C.simulate(sleigh, rk4(), st(), H, 16 * H, [], 1, INF)"),
        case("C.simulate(uninterruptible)", "C.simulate(sleigh, rk4(), st(), H, 16 * H, [], 1, None, False)", "returns"),
    ]
    return c


def run_cases():
    c = []
    for bad in ["None", "5", "'no/such/file.json'", "'/'", "'/dev/null'", "'x' * 5000", "b'study.json'", "[]",
                "{}", "{'name': 5}", "{'name': 'x', 'kind': 'nope'}", "study(h=NAN)", "study(T=INF)",
                "study(h=object())", "study(name='../x')", "circular()", "study(initial={'q': nested(100000)})",
                "study(integrators=[{'label': 'A', 'plugin': 'rk4', 'params': {'compiled': 2**64}}])",
                "study(T=1e300)", "study(record_every=2**64)", "study(system={'plugin': 'binder_torus', 'params': {'n': 2**64}})",
                "{1: 2}", "{'name': 'x\\0y'}"]:
        c.append(case(f"run({bad[:40]})", f"D.run({bad}, out=out())", also=["builtins.RecursionError"]))
        # study_name() reads the study only: plugin parameters are checked when it runs.
        c.append(case(f"C.study_name({bad[:40]})", f"C.study_name({bad})", "any" if "params" in bad else "error"))
    for bad in ["-1", "2**64", "10**400", "1e300", "NAN", "'x'", "[1]", "2.5"]:
        c.append(case(f"run(threads={bad})", f"D.run(study(), out=out(), threads={bad})"))
    for name, bad in [("out", "5"), ("out", "'/proc/dalembert-fuzz'"), ("out", "'/dev/null'"), ("out", "''"),
                      ("quiet", "'yes'"), ("plots", "'yes'")]:
        c.append(case(f"run({name}={bad})", f"D.run(study(), {name}={bad})"))
    c += [
        case("run(out=bytes)", "D.run(study(), out=out().encode())", "any"),
        case("run(valid study)", "r = D.run(study(), out=out()); assert len(r.trajectory('RK4')) == 17", "returns"),
        case("run(out=existing file)", "f = tempfile.mktemp(); open(f, 'w').close(); D.run(study(), out=f)"),
        case("C.run_study(threads=-1)", "C.run_study(study(), out(), -1, True, False)"),
        case("C.run_study(threads=2**40)", "C.run_study(study(), out(), 2**40, True, False)"),
        case("load(None)", "D.load(None)"),
        case("load(5)", "D.load(5)"),
        case("load(missing folder)", "D.load('/no/such/folder')", also=["builtins.OSError"]),
        case("load(a file)", "D.load('/dev/null')", also=["builtins.OSError"]),
        case("load(bad manifest)",
             "d = tempfile.mkdtemp(); open(d + '/manifest.json', 'w').write('{'); D.load(d)"),
        case("load(manifest a list)",
             "d = tempfile.mkdtemp(); open(d + '/manifest.json', 'w').write('[]'); D.load(d).tasks",
             also=["builtins.AttributeError", "builtins.KeyError"]),
        case("Run.trajectory(unknown label)", "D.run(study(), out=out()).trajectory('nope')", also=["builtins.KeyError"]),
        case("Run.cell(unknown)", "D.run(study(), out=out()).cell(5)", also=["builtins.KeyError"]),
    ]
    return c


def uninitialised_cases():
    """Objects made by __new__ without __init__: every method and property refuses them."""
    c = []
    members = {
        "State": ["t", "q", "v", "copy()", "__repr__()", "q = [0.0]", "v = [0.0]", "t = 1.0"],
        "System": ["name", "q_names", "v_names", "diagnostic_names", "has_exact_solution", "state(Q0, V0)",
                   "energy(st())", "constraint_residual(st())", "diagnostics(st())", "project(st())",
                   "exact_solution(st(), 1.0)", "family", "steady_state(1.0)", "linearise(st())", "M(Q0)",
                   "V(Q0)", "grad_V(Q0)", "A(Q0)", "g(Q0)", "b(0.0, Q0)", "f(0.0, Q0, V0)", "multipliers(0.0, Q0, V0)",
                   "check()"],
        "Integrator": ["name", "system", "traits", "start(st())", "step(st(), H)", "quantities()"],
    }
    for cls, ms in members.items():
        for m in ms:
            c.append(case(f"{cls}.__new__().{m}", f"x = raw(D.{cls}); x.{m}"))
        c.append(case(f"{cls}.__new__() dropped", f"x = raw(D.{cls}); del x; gc.collect()", "returns"))
        c.append(case(f"{cls}.__new__() then __init__ twice",
                      {"State": "x = D.State(Q0, V0); x.__init__(Q0, V0)",
                       "System": "x = D.system('chaplygin_sleigh'); x.__init__('chaplygin_sleigh')",
                       "Integrator": "x = rk4(); x.__init__('rk4', sleigh)"}[cls], "any"))
    c += [
        case("System.energy(raw State)", "sleigh.energy(raw(D.State))"),
        case("integrator('rk4', raw System)", "D.integrator('rk4', raw(D.System))"),
        case("simulate(raw System)", "D.simulate(raw(D.System), rk4(), st(), H, 16 * H)"),
        case("simulate(raw Integrator)", "D.simulate(sleigh, raw(D.Integrator), st(), H, 16 * H)"),
        case("simulate(raw State)", "D.simulate(sleigh, rk4(), raw(D.State), H, 16 * H)"),
        case("State.__init__ on a System", "D.State.__init__(sleigh, Q0, V0)"),
        case("System.energy unbound on a State", "D.System.energy(st(), st())"),
        case("object.__new__(State)", "object.__new__(D.State)"),
        case("pybind11 base __new__", "x = D.State.__mro__[1].__new__(D.State); x.q"),
    ]
    return c


def thread_cases():
    """Threads: what a GIL-released simulate() shares with Python code running at the same time."""
    n = 200000  # about 50 ms of rk4 on the sleigh; the other thread waits until the run has begun
    return [
        *[case(f"two threads simulate() with one integrator ({name})", f"""
i = D.integrator({name!r}, sleigh)
a, b = st(), st()
r = in_threads(lambda: D.simulate(sleigh, i, a, H, {n} * H, record_every={n}),
               lambda: D.simulate(sleigh, i, b, H, {n} * H, record_every={n}))
errors = [x for kind, x in r if kind == "raised"]
assert len(errors) <= 1, errors
for e in errors:
    assert isinstance(e, D.Error) and "in another thread" in str(e), repr(e)
want = solo({name!r}, {n})
for kind, s in zip([k for k, _ in r], (a, b)):
    if kind == "returned":
        assert (s.t, s.q.tobytes(), s.v.tobytes()) == want, "a run disturbed by the other thread"
""", "returns") for name in ("rk4", "gni", "nonholonomic_newmark")],
        case("thread replaces state.q during simulate()", f"""
s, i, done = st(), rk4(), threading.Event()
def run():
    try:
        D.simulate(sleigh, i, s, H, {n} * H, record_every={n})
    finally:
        done.set()
def replace():
    s.q = np.array([1.0, 2.0, 3.0])
r = in_threads(run, lambda: when_running(i, replace, done))
assert r[0][0] == "returned", r[0]
assert r[1][1] and "in another thread" in r[1][1][0], r[1]
""", "returns"),
        case("thread steps the integrator during simulate()", f"""
s, i, done = st(), rk4(), threading.Event()
def run():
    try:
        D.simulate(sleigh, i, s, H, {n} * H, record_every={n})
    finally:
        done.set()
r = in_threads(run, lambda: when_running(i, lambda: i.step(st(), H), done))
assert r[1][1] and "in another thread" in r[1][1][0], r[1]
assert (s.t, s.q.tobytes(), s.v.tobytes()) == solo("rk4", {n}), "a run disturbed by the other thread"
""", "returns"),
        case("two threads simulate() one state", f"""
s = st()
r = in_threads(lambda: D.simulate(sleigh, rk4(), s, H, {n} * H, record_every={n}),
               lambda: D.simulate(sleigh, rk4(), s, H, {n} * H, record_every={n}))
errors = [x for k, x in r if k == "raised"]
assert len(errors) <= 1 and all(isinstance(e, D.Error) for e in errors), errors
if not errors:
    assert s.t == 2 * {n} * H
""", "returns"),
        case("two threads, one system, two integrators", f"""
a, b = st(), st()
r = in_threads(lambda: D.simulate(sleigh, rk4(), a, H, {n} * H, record_every={n}),
               lambda: D.simulate(sleigh, rk4(), b, H, {n} * H, record_every={n}))
assert all(k == "returned" for k, _ in r), r
want = solo("rk4", {n})
assert (a.t, a.q.tobytes(), a.v.tobytes()) == want == (b.t, b.q.tobytes(), b.v.tobytes())
""", "returns"),
        case("threads list, describe and construct plugins", """
r = in_threads(*[lambda: (C.plugins(), D.describe("binder_torus"), D.system("rolling_disk"))] * 4)
assert all(k == "returned" for k, _ in r), r
""", "returns"),
        case("threads run studies", """
r = in_threads(*[lambda: D.run(study(), out=out(), threads=1)] * 3)
assert all(k == "returned" for k, _ in r), r
""", "returns"),
        case("thread reads state during simulate()", f"""
s, i, done = st(), rk4(), threading.Event()
seen = []
def run():
    try:
        D.simulate(sleigh, i, s, H, {n} * H, record_every={n})
    finally:
        done.set()
def read():
    seen.append((s.t, s.q.tolist()))
in_threads(run, lambda: when_running(i, read, done))
final = (s.t, s.q.tolist())
assert final[0] == {n} * H
assert seen and all(x in ((0.0, Q0), final) for x in seen), "a reader saw a half-advanced state"
""", "returns"),
    ]


# ---- every declared parameter of every system, integrator and observer, at its extremes --------

def bad_values(p):
    """(value as code, expect) for a parameter declared as {type, min, max, choices}."""
    t = p["type"]
    wrong = [("None", "error"), ("[1]", "error"), ("{'a': 1}", "error")]
    if t == "number":
        return wrong + [("'x'", "error"), ("True", "error"), ("NAN", "error"), ("INF", "error"), ("-INF", "error"),
                        ("1e300", "any"), ("-1e300", "any"), ("0.0", "any"), ("-1.0", "any"), ("5e-324", "any"),
                        ("2**64", "any")]
    if t == "integer":
        return wrong + [("'x'", "error"), ("True", "error"), ("NAN", "error"), ("INF", "error"), ("2.5", "error"),
                        ("1e19", "error"), ("2**63", "error"), ("2**64", "error"), ("-2**63 - 1", "error"),
                        ("1e300", "error"), ("-1e300", "error"), ("-1", "any"), ("0", "any"), ("4294967299", "any")]
    if t == "string":
        return wrong + [("5", "error"), ("True", "error"), ("''", "error" if p["choices"] else "any"),
                        ("'nonsense'", "error" if p["choices"] else "any"), ("'x' * 100000", "error" if p["choices"] else "any")]
    if t == "boolean":
        return wrong + [("'yes'", "error"), ("2", "error"), ("0", "error"), ("NAN", "error")]
    return [("None", "any"), ("[]", "any"), ("{}", "any"), ("'x'", "any"), ("NAN", "any"), ("2**64", "any"),
            ("nested(60)", "any"), ("[[NAN, INF]]", "any"), ("[1e300] * 3", "any"), ("[-1] * 3", "any")]


def parameter_cases(kind, described):
    """`described`: the dalembert.describe() dict of every plugin of `kind`."""
    c = []
    for d in described:
        for p in d["parameters"]:
            for value, expect in bad_values(p):
                params = f"{{{json.dumps(p['name'])}: {value}}}"
                if kind == "system":
                    code = f"D.system({d['name']!r}, {params})"
                elif kind == "integrator":
                    code = f"D.integrator({d['name']!r}, home({d['name']!r}), {params})"
                else:
                    code = (f"D.simulate(sleigh, rk4(), st(), H, 4 * H, "
                            f"observers=[({d['name']!r}, {params})])")
                c.append(case(f"{kind} {d['name']} {p['name']}={value[:30]}", code, expect))
    return c


def group(name, dalembert):
    """The cases of one group; `dalembert` (the module) gives the plugins for the parameter sweeps."""
    if name.startswith("parameters_"):
        kind = name[len("parameters_"):]
        described = []
        for p in dalembert.plugins().itertuples():
            if p.kind == kind:
                found = dalembert.describe(p.name)
                described += [d for d in (found if isinstance(found, list) else [found]) if d["kind"] == kind]
        return parameter_cases(kind, described)
    return {"module": module_cases, "system": system_cases, "integrator": integrator_cases, "state": state_cases,
            "simulate": simulate_cases, "run_and_load": run_cases, "uninitialised": uninitialised_cases,
            "threads": thread_cases}[name]()
