"""Integrators written in Python (issue 31 item 2): a class with `order` and `step(state, h)` runs as
the plugin "python:module.Class" through simulate, studies (fitted orders, claims, manifest) and the
conformance suite. The schemes of python_schemes.py are the C++ plugins' own tableaus on the same
field, so their numbers are compared with rk2's and rk4's: the independent implementation."""
import numpy as np
import pytest

from conftest import small_study

PARTICLE_Q = [1, 0, 1, -1, -1]
PARTICLE_V = [0.05, 0.5, -0.5, -0.1, -0.05]


def advance(dalembert, name, params, steps, h):
    s = dalembert.system("chaotic_nonholonomic_particle")
    i = dalembert.integrator(name, s, params)
    st = s.state(PARTICLE_Q, PARTICLE_V)
    for _ in range(steps):
        i.step(st, h)
    return st


def test_python_rk4_and_midpoint_equal_the_cpp_plugins_to_round_off(dalembert):
    for py_name, py_params, cpp_name in (("python:python_schemes.RK4", None, "rk4"),
                                         ("python:python_schemes.TwoStage", {"c": 0.5}, "rk2")):
        a = advance(dalembert, py_name, py_params, 200, 0.01)
        b = advance(dalembert, cpp_name, {"compiled": False}, 200, 0.01)
        assert a.t == pytest.approx(2.0, abs=1e-14)
        # the same tableau on the same field: only the order of the sums differs (|q| ~ 1, 200 steps)
        np.testing.assert_allclose(a.q, b.q, rtol=0, atol=1e-13)
        np.testing.assert_allclose(a.v, b.v, rtol=0, atol=1e-13)


def test_convergence_study_of_python_integrators_fits_their_orders(dalembert, tmp_path):
    study = small_study("newmark/convergence_chaotic.json", name="python_convergence", integrators=[
        {"label": "PyMidpoint", "plugin": "python:python_schemes.TwoStage"},
        {"label": "PyHeun", "plugin": "python:python_schemes.TwoStage", "params": {"c": 1.0}},
        {"label": "PyRK4", "plugin": "python:python_schemes.RK4"},
        {"label": "RK2", "plugin": "rk2"}])
    run = dalembert.run(study, out=tmp_path / "run", threads=2)
    orders = run.orders.set_index("label")
    assert orders.loc["PyMidpoint", "fitted_order"] == pytest.approx(2.0, abs=0.15)
    assert orders.loc["PyHeun", "fitted_order"] == pytest.approx(2.0, abs=0.15)
    assert orders.loc["PyRK4", "fitted_order"] == pytest.approx(4.0, abs=0.15)
    assert (run.claims["verdict"] == "pass").all()
    table = run.convergence.set_index(["label", "h"])
    # the Python midpoint rule is rk2's scheme: the same error ladder (errors 1e-3 .. 1e-5, round-off 1e-15)
    np.testing.assert_allclose(table.loc["PyMidpoint", "error_q"], table.loc["RK2", "error_q"], rtol=1e-8)
    plugin = [p for p in run.manifest["plugins"] if p["name"] == "python:python_schemes.RK4"]
    assert len(plugin) == 1 and plugin[0]["file"].endswith("python_schemes.py") and len(plugin[0]["sha256"]) == 64


def test_step_failure_puts_the_state_back_and_a_broken_step_names_the_class(dalembert):
    s = dalembert.system("chaotic_nonholonomic_particle")
    i = dalembert.integrator("python:python_schemes.FailsAbove", s, {"h_max": 0.05})
    st = s.state(PARTICLE_Q, PARTICLE_V)
    i.step(st, 0.05)
    q, v, t = st.q.copy(), st.v.copy(), st.t
    with pytest.raises(dalembert.StepFailure, match="above h_max = 0.05"):
        i.step(st, 0.1)
    np.testing.assert_array_equal(st.q, q)
    np.testing.assert_array_equal(st.v, v)
    assert st.t == t
    broken = dalembert.integrator("python:python_schemes.ReturnsNothing", s)
    with pytest.raises(dalembert.Error, match=r"python_schemes.ReturnsNothing.*returned None; expected a dalembert.State"):
        broken.step(st, 0.01)


def test_bad_declarations_are_refused_naming_the_value(dalembert):
    s = dalembert.system("chaotic_nonholonomic_particle")
    with pytest.raises(dalembert.InputError, match="No module named 'no_such_module'"):
        dalembert.integrator("python:no_such_module.Scheme", s)
    with pytest.raises(dalembert.InputError, match="c = 2 is not|expected a number|params"):
        dalembert.integrator("python:python_schemes.TwoStage", s, {"c": "fast"})

    class NoOrder:
        def step(self, s, h):
            return s
    with pytest.raises(dalembert.InputError, match="declares its order"):
        dalembert.register_integrator(NoOrder)

    class Scheme:
        order = 1

        def step(self, s, h):
            return s.q + h * s.v, s.v
    assert dalembert.register_integrator(Scheme, "euler_positions") == "python:euler_positions"
    i = dalembert.integrator("python:euler_positions", s)
    st = s.state(PARTICLE_Q, PARTICLE_V)
    i.step(st, 0.5)
    np.testing.assert_allclose(st.q, np.array(PARTICLE_Q) + 0.5 * np.array(PARTICLE_V), rtol=0, atol=1e-15)


def test_a_lent_system_is_refused_after_its_run(dalembert):
    import gc
    import python_schemes
    s = dalembert.system("chaotic_nonholonomic_particle")
    st = s.state(PARTICLE_Q, PARTICLE_V)
    integ = dalembert.integrator("python:python_schemes.KeepsTheSystem", s)
    df = dalembert.simulate(s, integ, st, 0.01, 0.1, observers=["energy_error"])
    assert len(df) == 11 and st.t == pytest.approx(0.1)
    kept = python_schemes.KeepsTheSystem.kept[-1]
    assert kept.energy(st) == s.energy(st)  # lent while its integrator exists
    del integ
    gc.collect()
    with pytest.raises(dalembert.Error, match="lent to a Python integrator for one run, which has ended"):
        kept.energy(st)


def test_conformance_suite_runs_on_a_python_integrator(dalembert):
    rows = dalembert.check_integrator("python:python_schemes.RK4")
    assert not (rows["verdict"] == "finding").any(), rows.attrs["text"]
    order = rows[(rows["check"] == "order") & (rows["verdict"] == "pass")]
    measured = order["detail"].str.extract(r"declared 4, measured ([0-9.]+)")[0].astype(float)
    assert len(measured) >= 2 and (abs(measured - 4) < 0.15).all(), rows.attrs["text"]
    failure = rows[rows["check"] == "failure"]
    assert len(failure) >= 1
