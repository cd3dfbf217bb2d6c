"""The model's mathematics from Python (issue 31 item 1): System.M, V, grad_V, A, g, f and
multipliers on numpy arrays, checked against the closed forms of spec 000 §2.2 (the chaotic
nonholonomic particle), against finite differences of the model's own V and g (the derivatives are
the C++ AD's), and against the equations the field must satisfy (the constraint kept to second
order, M v̇ = −∇V + Cᵀλ for a constant M)."""
import numpy as np
import pytest

RNG = np.random.default_rng(31)


def chaotic_field(q, v):
    """Spec 000 §2.2: V = ½(x² + y1² + y2² + z1² + z2² + y1²z1² + y2²z2² + z1²z2²), A = (1, 0, 0, y1, y2),
    v̇ = −∇V + λAᵀ with λ = (x + y1 ∂V/∂z1 + y2 ∂V/∂z2 − ẏ1ż1 − ẏ2ż2)/(1 + y1² + y2²)."""
    x, y1, y2, z1, z2 = q
    gy1, gy2 = y1 * (1 + z1 * z1), y2 * (1 + z2 * z2)
    gz1, gz2 = z1 * (1 + z2 * z2 + y1 * y1), z2 * (1 + z1 * z1 + y2 * y2)
    lam = (x + y1 * gz1 + y2 * gz2 - v[1] * v[3] - v[2] * v[4]) / (1 + y1 * y1 + y2 * y2)
    return np.array([-x + lam, -gy1, -gy2, -gz1 + lam * y1, -gz2 + lam * y2]), lam, np.array([x, gy1, gy2, gz1, gz2])


def test_chaotic_particle_field_and_multiplier_equal_the_closed_form(dalembert):
    s = dalembert.system("chaotic_nonholonomic_particle")
    for _ in range(20):
        q, v = RNG.normal(size=5), RNG.normal(size=5)
        vdot, lam, grad = chaotic_field(q, v)
        # a few ulps of the largest term (λ's quotient and the sums differ in order)
        scale = 1 + np.abs(vdot).max()
        np.testing.assert_allclose(s.f(0.0, q, v), vdot, rtol=0, atol=1e-14 * scale)
        np.testing.assert_allclose(s.multipliers(0.0, q, v), [lam], rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(s.grad_V(q), grad, rtol=0, atol=1e-15 * (1 + np.abs(grad).max()))
        np.testing.assert_array_equal(s.A(q), [[1.0, 0.0, 0.0, q[1], q[2]]])
        np.testing.assert_array_equal(s.M(q), np.eye(5))
        assert s.g(q).shape == (0,)


def central_difference(fn, q, eps):
    cols = []
    for j in range(len(q)):
        e = np.zeros_like(q)
        e[j] = eps
        cols.append((np.asarray(fn(q + e)) - np.asarray(fn(q - e))) / (2 * eps))
    return np.array(cols).T


def bicycle_state(dalembert):
    """Upright at 5 m/s (the family's steady motion) with a roll and steer rate added, projected
    onto the constraints."""
    b = dalembert.system("whipple_bicycle")
    s = b.steady_state(5.0)
    v = np.array(s.v)
    v[3] += 0.5  # roll rate
    v[5] -= 0.3  # steer rate
    s.v = v
    assert b.project(s)
    return b, np.array(s.q), np.array(s.v)


def test_bicycle_gradients_agree_with_finite_differences_of_the_model(dalembert):
    b, q, v = bicycle_state(dalembert)
    q = q + 0.05 * RNG.normal(size=8)  # off the upright state: every term of ∇V and ∂g/∂q alive
    # central differences at ε = 1e-5: truncation ~ε²|V'''| ~ 1e-10 relative, round-off ε_mach|V|/ε ~ 1e-10
    fd = central_difference(lambda x: [b.V(x)], q, 1e-5)[0]
    np.testing.assert_allclose(b.grad_V(q), fd, rtol=0, atol=1e-7 * np.abs(fd).max())
    dg = central_difference(b.g, q, 1e-5)
    np.testing.assert_allclose(b.A(q)[-1:], dg, rtol=0, atol=1e-8)  # C's last row is ∂g/∂q
    M = b.M(q)
    np.testing.assert_allclose(M, M.T, rtol=0, atol=0)
    assert np.linalg.eigvalsh(M).min() > 0


def test_bicycle_field_keeps_the_constraints_to_second_order(dalembert):
    """d/dt (C(q) v) = 0 along the field: C(q + εv)(v + εv̇) = O(ε²) when C(q)v = 0."""
    b, q, v = bicycle_state(dalembert)
    assert np.abs(b.A(q) @ v).max() < 1e-12
    vdot = b.f(0.0, q, v)
    for eps in (1e-3, 1e-4):
        drift = np.abs(b.A(q + eps * v) @ (v + eps * vdot)).max()
        assert drift < 50 * eps ** 2, (eps, drift)
    # without the constraint force the first-order term is not zero: the check can fail
    M = b.M(q)
    free = np.linalg.solve(M, -b.grad_V(q))
    assert np.abs(b.A(q + 1e-4 * v) @ (v + 1e-4 * free)).max() > 1e3 * 50 * 1e-8


def test_constant_mass_field_is_the_equation_of_motion(dalembert):
    """M v̇ = −∇V + Cᵀλ for the particle and the knife edge (constant M, no Coriolis terms)."""
    for name in ("nonholonomic_particle", "knife_edge"):
        s = dalembert.system(name)
        n = len(s.q_names)
        q, v = RNG.normal(size=n), RNG.normal(size=n)
        lhs = s.M(q) @ s.f(0.0, q, v)
        rhs = -s.grad_V(q) + s.A(q).T @ s.multipliers(0.0, q, v)
        np.testing.assert_allclose(lhs, rhs, rtol=0, atol=1e-13 * (1 + np.abs(rhs).max()))


def test_energy_is_half_v_M_v_plus_V(dalembert):
    d = dalembert.system("rolling_disk")
    s = d.steady_state(1.0)
    q, v = np.array(s.q), np.array(s.v)
    assert d.energy(d.state(q, v)) == pytest.approx(0.5 * v @ d.M(q) @ v + d.V(q), rel=1e-14)


def test_errors_name_the_function_and_the_value(dalembert):
    s = dalembert.system("chaotic_nonholonomic_particle")
    with pytest.raises(dalembert.InputError, match=r"System.M: q.*has 3 entries.*has 5"):
        s.M([0.0, 0.0, 0.0])
    with pytest.raises(dalembert.InputError, match=r"System.f: t"):
        s.f(float("nan"), np.zeros(5), np.zeros(5))
    with pytest.raises(dalembert.InputError, match=r"System.multipliers: v"):
        s.multipliers(0.0, np.zeros(5), [0.0, float("inf"), 0, 0, 0])
    with pytest.raises(dalembert.Error, match=r"System.f: the field of system 'rattleback' is not finite"):
        dalembert.system("rattleback").f(0.0, [1e308] * 6, [1.0] * 6)  # overflow: an error, not NaNs
    with pytest.raises(dalembert.Error, match=r"System.A: system 'suslov' is not written as an L-and-A model"):
        dalembert.system("suslov").A([1.0, 0, 0, 0])


def cli_check_table(name):
    """The rows of `dalembert check NAME`: function -> (worst relative error or measured value, states)."""
    from conftest import cli
    out = cli("check", name).stdout
    rows = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[-1].isdigit():
            try:
                rows[parts[0]] = (float(parts[-2]), int(parts[-1]))
            except ValueError:
                pass
    return rows


def test_check_is_the_command_lines_table(dalembert):
    """System.check() computes what `dalembert check` prints (same states, same seed): every row's
    number to the 3 or 4 significant digits the command line shows."""
    for name in ("rattleback", "chaplygin_ball"):
        df = dalembert.system(name).check()
        cli_rows = cli_check_table(name)
        assert set(df.function) == set(cli_rows), name
        for _, row in df.iterrows():
            value = row.measured if np.isfinite(row.measured) else row.worst_relative_error
            printed, states = cli_rows[row.function]
            assert states == row.states, (name, row.function)
            assert value == pytest.approx(printed, rel=5e-3, abs=1e-300), (name, row.function)
        assert df.ok.all() and df.attrs["findings"] == []


def test_check_reports_a_state_off_the_holonomic_constraint(dalembert):
    b = dalembert.system("whipple_bicycle")
    s = b.steady_state(5.0)
    q = np.array(s.q)
    q[4] += 0.01  # pitch: the front wheel off the ground
    s.q = q
    df = b.check(s, samples=2)
    bad = df[~df.ok]
    assert list(bad.function) == ["holonomic_residual"]
    assert bad.measured.iloc[0] > 1e-3
    assert any("holonomic_residual" in f for f in df.attrs["findings"])
    with pytest.raises(dalembert.Error, match="System.check: system 'suslov' is not written as an L-and-A model"):
        dalembert.system("suslov").check()


def test_turntable_b_is_minus_the_table_velocity_and_closes_the_constraint(dalembert):
    """No slip on a table turning at Omega about the vertical through the origin: the contact point
    moves with the table, whose velocity there is Omega e_z x (x, y) = Omega (-y, x); so
    C(q)v + b = 0 with b = (Omega y, -Omega x, 0) (the last row: |p|^2 - 1, which does not move)."""
    s = dalembert.system("ball_on_turntable", {"Omega": 0.7})
    for _ in range(5):
        q = np.concatenate([RNG.normal(size=2), RNG.normal(size=4)])
        np.testing.assert_allclose(s.b(3.0, q), [0.7 * q[1], -0.7 * q[0], 0.0], rtol=0, atol=1e-15)
    # the study's starting state: on the orbit the no-slip constraint holds with the table's motion
    q0, v0 = [1, 0, 1, 0, 0, 0], [0, 0.2857142857142857, 0, 0.35714285714285715, 0, 0.25]
    s1 = dalembert.system("ball_on_turntable", {"Omega": 1.0})
    residual = s1.A(np.array(q0, float)) @ np.array(v0) + s1.b(0.0, np.array(q0, float))
    np.testing.assert_allclose(residual, 0.0, atol=1e-15)
    assert np.abs(s1.A(np.array(q0, float)) @ np.array(v0)).max() > 0.1  # b is what closes it
    assert dalembert.system("chaplygin_sleigh").b(0.0, [0.0, 0.0, 0.0]).tolist() == [0.0]
