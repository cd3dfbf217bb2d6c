"""Stepping from Python: 1000 steps of Integrator.step() and dalembert.simulate() land on the
command line's final state bit for bit; simulate() records the rows the command line writes."""
import json

import numpy as np
import pytest

from conftest import assert_same_frame, cli_run, read_csv, write_study

H = 1.0 / 128  # a power of two: t = k h is exact however it is summed
STEPS = 1000
SLEIGH = {"I": 1, "m": 1, "a": 0.3}
Q0, V0 = [0.0, 0.0, 0.0], [0.25, -1.0, 0.075]  # seed 001 Fig 2


def sleigh_study(record_every, observers=("energy_error", "trajectory")):
    return {"name": "py_sleigh", "kind": "trajectory",
            "system": {"plugin": "chaplygin_sleigh", "params": SLEIGH},
            "initial": {"q": Q0, "v": V0}, "h": H, "T": STEPS * H, "record_every": record_every,
            "integrators": [{"label": "GNI", "plugin": "gni", "params": {"init": "paper"}},
                            {"label": "RK4", "plugin": "rk4"}],
            "observers": list(observers)}


@pytest.fixture(scope="module")
def cli_sleigh(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cli")
    folder = cli_run(write_study(tmp, sleigh_study(record_every=10)), tmp / "run")
    return folder, json.loads((folder / "manifest.json").read_text())


def cli_final(manifest, label):
    (t,) = [t for t in manifest["tasks"] if t["label"] == label]
    return t["final"]


@pytest.mark.parametrize("label, plugin, params", [("GNI", "gni", {"init": "paper"}), ("RK4", "rk4", None)])
def test_1000_steps_from_python_equal_the_cli_bit_for_bit(dalembert, cli_sleigh, label, plugin, params):
    sleigh = dalembert.system("chaplygin_sleigh", SLEIGH)
    integ = dalembert.integrator(plugin, sleigh, params)
    s = sleigh.state(Q0, V0)
    for _ in range(STEPS):
        integ.step(s, H)
    final = cli_final(cli_sleigh[1], label)
    assert s.t == final["t"] == STEPS * H
    assert s.q.tobytes() == np.array(final["q"]).tobytes()
    assert s.v.tobytes() == np.array(final["v"]).tobytes()


def test_simulate_records_the_cli_rows(dalembert, cli_sleigh):
    folder, manifest = cli_sleigh
    sleigh = dalembert.system("chaplygin_sleigh", SLEIGH)
    gni = dalembert.integrator("gni", sleigh, {"init": "paper"})
    s = sleigh.state(Q0, V0)
    df = dalembert.simulate(sleigh, gni, s, H, STEPS * H, observers=["energy_error", "trajectory"], record_every=10)
    (f,) = [f for f in manifest["files"] if f["kind"] == "trajectory" and f["label"] == "GNI"]
    assert_same_frame(df, read_csv(folder / f["path"]))
    assert len(df) == STEPS // 10 + 1
    final = cli_final(manifest, "GNI")
    assert s.q.tolist() == final["q"] and s.v.tolist() == final["v"] and s.t == final["t"]
    (t,) = [t for t in manifest["tasks"] if t["label"] == "GNI"]
    assert df.attrs["summary"] == t["summary"]


def test_energy_and_state(dalembert):
    sleigh = dalembert.system("chaplygin_sleigh", SLEIGH)
    s = sleigh.state(Q0, V0)
    # E0 of seed 001 Fig 2 (the value its GNI half-step energy keeps, spec 001 claim 8).
    assert sleigh.energy(s) == pytest.approx(0.5340625, abs=1e-15)
    assert sleigh.q_names == ["theta", "x", "y"] and sleigh.v_names == ["thetadot", "xdot", "ydot"]
    assert isinstance(s.q, np.ndarray) and s.q.tolist() == Q0
    with pytest.raises(ValueError):
        s.q[0] = 1.0  # a read-only copy: assign the whole array instead
    s.q = np.array([0.1, 0.0, 0.0])
    assert s.q[0] == 0.1
    with pytest.raises(dalembert.InputError, match="the state has 2 q and 3 v components"):
        sleigh.energy(dalembert.State([0, 0], V0))


def test_errors_name_the_bad_value(dalembert):
    with pytest.raises(dalembert.InputError, match="rk5"):
        dalembert.integrator("rk5", dalembert.system("chaplygin_sleigh"))
    with pytest.raises(dalembert.InputError, match="init"):
        dalembert.integrator("gni", dalembert.system("chaplygin_sleigh"), {"init": "nonsense"})
    sleigh = dalembert.system("chaplygin_sleigh")
    with pytest.raises(dalembert.InputError, match="0.3"):
        dalembert.simulate(sleigh, dalembert.integrator("rk4", sleigh), sleigh.state(Q0, V0), 0.3, 1.0)


def test_a_failed_step_leaves_the_state_as_it_was(dalembert):
    """Integrator.step goes through the framework's step contract (Integrator::advance, which does
    what this binding did by itself before issue 27): a step that overflows raises, and the state is
    the one before the step, bit for bit."""
    particle = dalembert.system("chaotic_nonholonomic_particle")
    q0, v0 = [1.0, 0.0, 1.0, -1.0, -1.0], [0.05, 0.5, -0.5, -0.1, -0.05]
    s = particle.state(q0, v0, 0.5)
    with pytest.raises(dalembert.Error, match="non-finite state"):
        dalembert.integrator("rk4", particle).step(s, 1e100)  # q ~ h v: the quartic potential overflows
    assert s.q.tolist() == q0 and s.v.tolist() == v0 and s.t == 0.5


def test_simulate_releases_the_gil(dalembert):
    """While simulate() runs in one thread, Python runs in another: with the GIL held the main
    thread would not get a single iteration in until the run returned."""
    import threading
    sleigh = dalembert.system("chaplygin_sleigh", SLEIGH)
    rk4 = dalembert.integrator("rk4", sleigh)
    started = threading.Event()

    def work():
        started.set()
        dalembert.simulate(sleigh, rk4, sleigh.state(Q0, V0), H, 400000 * H, record_every=1000)
    t = threading.Thread(target=work)
    t.start()
    started.wait()
    ticks = 0
    while t.is_alive():
        ticks += 1
    t.join()
    assert ticks > 1000


def test_simulate_refuses_more_steps_than_max_steps(dalembert):
    """T/h above max_steps (by default the study limit "steps", 1e8) is refused before anything runs."""
    sleigh = dalembert.system("chaplygin_sleigh", SLEIGH)
    rk4 = dalembert.integrator("rk4", sleigh)
    s = sleigh.state(Q0, V0)
    with pytest.raises(dalembert.InputError, match=r"T/h = 100 steps .* exceed max_steps = 99"):
        dalembert.simulate(sleigh, rk4, s, H, 100 * H, max_steps=99)
    with pytest.raises(dalembert.InputError, match=r"T/h = 2e\+08 steps .* exceed max_steps = 1e\+08"):
        dalembert.simulate(sleigh, rk4, s, 1.0, 2e8, record_every=10**9)
    assert s.t == 0.0 and s.q.tolist() == Q0  # nothing ran
    df = dalembert.simulate(sleigh, rk4, s, H, 100 * H, max_steps=100)  # the limit itself is allowed
    assert len(df) == 101 and s.t == 100 * H


# A script interrupted by SIGINT (Ctrl-C) 0.3 s into a run of 10^8 steps (minutes of work): it prints
# what it saw as JSON.
CTRL_C = r"""
import json, os, signal, threading, time
import dalembert
sleigh = dalembert.system("chaplygin_sleigh", %(SLEIGH)r)
rk4 = dalembert.integrator("rk4", sleigh)
s = sleigh.state(%(Q0)r, %(V0)r)
sent = []
def ctrl_c():
    while not rk4.running:
        time.sleep(0.001)
    time.sleep(0.3)
    sent.append(time.perf_counter())
    os.kill(os.getpid(), signal.SIGINT)
threading.Thread(target=ctrl_c, daemon=True).start()
try:
    dalembert.simulate(sleigh, rk4, s, %(H)r, 10**8 * %(H)r, record_every=10**8)
    out = {"interrupted": False}
except KeyboardInterrupt:
    out = {"interrupted": True, "latency": time.perf_counter() - sent[0]}
out.update(t=s.t, q=s.q.tolist(), v=s.v.tolist(), running=rk4.running)
rk4.step(s, %(H)r)  # the integrator goes on from the state it was interrupted at
out["t_after_step"] = s.t
print(json.dumps(out))
""" % {"SLEIGH": SLEIGH, "Q0": Q0, "V0": V0, "H": H}


def test_ctrl_c_interrupts_simulate_at_the_last_completed_step(dalembert, tmp_path):
    """Ctrl-C stops simulate() within a fraction of a second with KeyboardInterrupt, the state being
    the last completed step k: bit for bit the state k steps of an uninterrupted run reach."""
    import os
    import subprocess
    import sys
    script = tmp_path / "ctrl_c.py"
    script.write_text(CTRL_C)
    # Uninterrupted, 10^8 steps take a minute or more: the timeout fails the test if Ctrl-C is ignored.
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60, env=os.environ)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["interrupted"]
    # The check runs every 0.1 s of the loop; 2 s leave room for a loaded machine.
    assert out["latency"] < 2.0
    k = round(out["t"] / H)
    assert 0 < k < 10**8 and out["t"] == k * H  # t of a completed step: k h exactly (H is a power of two)
    assert not out["running"] and out["t_after_step"] == (k + 1) * H
    sleigh = dalembert.system("chaplygin_sleigh", SLEIGH)
    s = sleigh.state(Q0, V0)
    dalembert.simulate(sleigh, dalembert.integrator("rk4", sleigh), s, H, k * H, record_every=k)
    assert s.q.tolist() == out["q"] and s.v.tolist() == out["v"]
