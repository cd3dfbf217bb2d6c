"""Systems from SymPy (issue 31 item 3): dalembert.system_from_sympy builds the nonholonomic particle
(seed 000 §4.1) and the Chaplygin sleigh (seed 001 §6.1: L = ½Iθ̇² + ½m(ẋ² + ẏ²), a θ̇ + sinθ ẋ − cosθ ẏ
= 0) from their Lagrangians and constraints; both must equal the shipped plugins to round-off, in
every model function and along 1000-step trajectories. Also: the cache (a second call does not
build, a changed expression does: the polar oscillator, whose M(q) exercises the generated mass(q, M)),
the one-line refusals of bad input, a failed compile, and a command-line study naming the plugin.

The builds go to a fresh cache folder (DALEMBERT_CACHE_DIR), so the first call of each system builds.
"""
import json
import os
import pathlib
import subprocess
import time

import numpy as np
import pytest

import dalembert

if dalembert._dalembert is None:  # skipped only where the module was built without its extension
    if not isinstance(dalembert._import_error, ModuleNotFoundError):
        raise dalembert._import_error
    pytest.skip(f"the module was built without its extension _dalembert: {dalembert._import_error}",
                allow_module_level=True)
sympy = pytest.importorskip("sympy", reason="python3-sympy is not installed (scripts/install-deps.sh)")
from sympy.physics.vector import dynamicsymbols  # noqa: E402

CLI = os.environ.get("DALEMBERT_CLI")
RNG = np.random.default_rng(3103)
t = sympy.Symbol("t")
# The model functions are the same expressions evaluated in the same order, or AD against a shipped
# closed form (the particle's ∂A/∂q); what may differ is the last bits of a sum or a solve of C M⁻¹Cᵀ:
# a few ulps, so 1e-13 relative to the largest entry.
RTOL = 1e-13


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cache")
    before = os.environ.get("DALEMBERT_CACHE_DIR")
    os.environ["DALEMBERT_CACHE_DIR"] = str(folder)
    yield folder
    if before is None:
        del os.environ["DALEMBERT_CACHE_DIR"]
    else:
        os.environ["DALEMBERT_CACHE_DIR"] = before


def particle_from_sympy():
    x, y, z = dynamicsymbols("x y z")
    L = (x.diff(t) ** 2 + y.diff(t) ** 2 + z.diff(t) ** 2) / 2
    return dalembert.system_from_sympy([x, y, z], L, constraints=[z.diff(t) - y * x.diff(t)],
                                       name="sympy_particle", example=([1, 1, -1], [1, -1, 1], 0.1))


def sleigh_from_sympy():
    theta, x, y = dynamicsymbols("theta x y")
    I, m, a = sympy.symbols("I m a")
    L = I * theta.diff(t) ** 2 / 2 + m * (x.diff(t) ** 2 + y.diff(t) ** 2) / 2
    A = [[a, sympy.sin(theta), -sympy.cos(theta)]]
    params = {I: (1.0, "rotational inertia about the centre of mass", 1e-12), m: (1.0, "mass", 1e-12),
              a: (0.3, "distance from the centre of mass back to the skate", 1e-12)}
    return dalembert.system_from_sympy([theta, x, y], L, A, params=params, name="sympy_sleigh",
                                       example=([0, 0, 0], [0.25, -1, 0.075], 0.05))


def polar_oscillator_from_sympy():
    r, th, z = sympy.symbols("r theta z")
    rd, thd, zd = sympy.symbols("rdot thetadot zdot")
    L = (rd ** 2 + r ** 2 * thd ** 2 + zd ** 2) / 2 - r ** 2 / 2
    return dalembert.system_from_sympy([r, th, z], L, [[0, -r ** 2, 1]], v=[rd, thd, zd], name="sympy_polar")


@pytest.fixture(scope="module")
def built(cache):
    """Each system built once (timed), then asked for again (timed): {name: (first, second, seconds)}."""
    out = {}
    for make in (particle_from_sympy, sleigh_from_sympy):
        start = time.perf_counter()
        first = make()
        middle = time.perf_counter()
        second = make()
        out[first.name] = (first, second, middle - start, time.perf_counter() - middle)
        print(f"{first.name}: first call {middle - start:.1f} s (cmake {first.build_seconds:.1f} s), "
              f"second call {out[first.name][3]:.3f} s")
    return out


def random_states(n, count=8):
    return [(RNG.uniform(-2, 2, n), RNG.uniform(-2, 2, n)) for _ in range(count)]


def assert_close(a, b, what):
    a, b = np.asarray(a, float), np.asarray(b, float)
    assert a.shape == b.shape, what
    scale = max(1.0, np.abs(b).max(initial=0.0))
    assert np.abs(a - b).max(initial=0.0) <= RTOL * scale, (what, a, b)
    return np.abs(a - b).max(initial=0.0) / scale


@pytest.mark.parametrize("generated, shipped, params", [("sympy_particle", "nonholonomic_particle", {}),
                                                        ("sympy_sleigh", "chaplygin_sleigh",
                                                         {"I": 1.3, "m": 0.7, "a": 0.45})])
def test_model_functions_equal_the_shipped_plugin(built, generated, shipped, params):
    ours, theirs = dalembert.system(generated, params), dalembert.system(shipped, params)
    assert ours.q_names == theirs.q_names and ours.v_names == theirs.v_names
    worst = 0.0
    for q, v in random_states(3):
        for what, f in (("M", lambda s: s.M(q)), ("A", lambda s: s.A(q)), ("V", lambda s: s.V(q)),
                        ("grad_V", lambda s: s.grad_V(q)), ("f", lambda s: s.f(0.0, q, v)),
                        ("multipliers", lambda s: s.multipliers(0.0, q, v)),
                        ("energy", lambda s: s.energy(s.state(q, v)))):
            worst = max(worst, assert_close(f(ours), f(theirs), f"{generated} {what} at q={q}, v={v}"))
    print(f"{generated}: largest relative difference from {shipped}: {worst:.3g}")


def final_trajectory(system, integrator, q, v, h, steps):
    s = system.state(q, v)
    df = dalembert.simulate(system, dalembert.integrator(integrator, system), s, h, h * steps,
                            observers=["trajectory"], record_every=10)
    return df.drop(columns="t").to_numpy()


@pytest.mark.parametrize("generated, shipped, q, v, h", [
    ("sympy_particle", "nonholonomic_particle", [1, 1, -1], [1, -1, 1], 0.01),
    ("sympy_sleigh", "chaplygin_sleigh", [0, 0, 0], [0.25, -1, 0.075], 0.015)])
@pytest.mark.parametrize("integrator", ["rk4", "dla"])
def test_trajectories_equal_the_shipped_plugin(built, generated, shipped, q, v, h, integrator):
    ours = final_trajectory(dalembert.system(generated), integrator, q, v, h, 1000)
    theirs = final_trajectory(dalembert.system(shipped), integrator, q, v, h, 1000)
    assert ours.shape == theirs.shape == (101, 6)
    diff = np.abs(ours - theirs).max()
    print(f"{generated} {integrator}, 1000 steps: largest difference {diff:.3g}")
    assert diff <= 1e-12


def test_second_call_reuses_the_build_and_a_changed_expression_rebuilds(built, cache):
    for first, second, t_first, t_second in built.values():
        assert first.built and first.build_seconds > 0
        assert not second.built and second.build_seconds == 0
        assert second.plugin_file == first.plugin_file and first.plugin_file.is_file()
        assert t_second < 0.2 * t_first  # no compiler ran (a cmake build takes seconds)
    root = cache / "generated_plugins"
    builds = {p.parent for p in root.glob("*/dalembert_system_*.so") if p.parent.name != "plugins"}
    polar = polar_oscillator_from_sympy()
    assert polar.built and polar.plugin_file.parent not in builds
    shipped = dalembert.system("polar_oscillator")
    for q, v in random_states(3):
        q[0] = abs(q[0]) + 0.5  # r > 0
        for what in ("M", "grad_V", "A"):
            assert_close(getattr(polar, what)(q), getattr(shipped, what)(q), f"polar {what}")
        assert_close(polar.f(0.0, q, v), shipped.f(0.0, q, v), "polar f")
    assert "mass(const auto& q, auto&& M)" in polar.source_file.read_text()
    assert not list(root.glob(".build-*")), "temporary build folders left behind"


def test_bad_lagrangians_are_one_line_errors_naming_the_term():
    x, y = dynamicsymbols("x y")
    k = sympy.Symbol("k")
    cases = [((x.diff(t) ** 3 + y.diff(t) ** 2) / 2, {}, "xdot**3"),
             (x.diff(t) ** 2 / 2 + k * x * x.diff(t), {k: 1.0}, "k*x*xdot"),
             (x.diff(t) ** 2 / 2 - k * x ** 2 / 2, {}, "unknown symbol k"),
             (sympy.sin(x.diff(t)) + y.diff(t) ** 2, {}, "sin(xdot)")]
    for L, params, named in cases:
        with pytest.raises(dalembert.InputError) as e:
            dalembert.system_from_sympy([x, y], L, params=params)
        assert named in str(e.value) and "\n" not in str(e.value), str(e.value)
    with pytest.raises(dalembert.InputError, match="is the name of the system plugin .*chaplygin_sleigh.so"):
        dalembert.system_from_sympy([x, y], (x.diff(t) ** 2 + y.diff(t) ** 2) / 2, [[1, 0]], name="chaplygin_sleigh")
    with pytest.raises(dalembert.InputError, match="has no constraints"):
        dalembert.system_from_sympy([x, y], (x.diff(t) ** 2 + y.diff(t) ** 2) / 2)
    with pytest.raises(dalembert.InputError, match="not affine in the velocities"):
        dalembert.system_from_sympy([x, y], (x.diff(t) ** 2 + y.diff(t) ** 2) / 2, constraints=[x.diff(t) ** 2])


def test_a_failed_compile_quotes_the_compiler_and_names_the_source(cache):
    from dalembert import plugin_build
    with pytest.raises(plugin_build.BuildError) as e:
        plugin_build.build_plugin(dalembert._dalembert, "system", "broken", "broken.cpp",
                                  "int broken() { return undeclared_name; }\n")
    text = str(e.value)
    assert "undeclared_name" in text and "error" in text, text
    source = pathlib.Path(text.split("(source ")[1].split(",")[0])
    assert source.is_file() and "undeclared_name" in source.read_text()


def test_description_and_latex(built):
    sleigh = built["sympy_sleigh"][0]
    d = dalembert.describe("sympy_sleigh")
    assert d["parameters"] == dalembert.describe("chaplygin_sleigh")["parameters"]  # names, defaults, docs, ranges
    assert d["file"] == str(sleigh.plugin_file)
    lam = sympy.Symbol("lambda_1")
    th, a = sympy.symbols("theta a")
    assert sympy.simplify(sleigh.equations["force"] - sympy.Matrix([a * lam, lam * sympy.sin(th),
                                                                    -lam * sympy.cos(th)])) == sympy.zeros(3, 1)
    check = sleigh.check()  # `dalembert check`: AD against finite differences, around the example state
    assert check["ok"].all() and not check.attrs["findings"], check
    tex = sleigh.latex()
    assert r"\ddot{\theta}" in tex and r"\lambda_{1}" in tex and tex.startswith(r"\begin{aligned}")
    assert sleigh._repr_latex_() == "$$" + tex + "$$"


def test_studies_find_the_plugin_by_name_from_python_and_the_command_line(built, cache, tmp_path):
    study = {"name": "sympy_cli", "kind": "trajectory", "system": {"plugin": "sympy_sleigh"},
             "initial": {"q": [0, 0, 0], "v": [0.25, -1, 0.075]}, "h": 0.05, "T": 1,
             "integrators": [{"label": "RK4", "plugin": "rk4"}], "observers": ["trajectory"]}
    path = tmp_path / "sympy_cli.json"
    path.write_text(json.dumps(study))
    from_python = dalembert.run(study, out=tmp_path / "py").trajectory("RK4")
    env = dict(os.environ, DALEMBERT_PLUGIN_PATH=str(cache / "generated_plugins" / "plugins"))
    r = subprocess.run([CLI, "run", str(path), "--out", str(tmp_path / "cli"), "--no-plots", "--quiet"],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    manifest = json.loads((tmp_path / "cli" / "manifest.json").read_text())
    files = {p["name"]: p["file"] for p in manifest["plugins"]}
    assert files["sympy_sleigh"].startswith(str(cache / "generated_plugins" / "plugins")), files
    from_cli = dalembert.load(tmp_path / "cli").trajectory("RK4")
    assert np.array_equal(from_cli.to_numpy(), from_python.to_numpy())


def test_publishing_is_one_rename_the_first_wins_and_foreign_files_are_left_alone(tmp_path):
    """Two builds of one key (two processes): each renames its complete folder to <root>/<key>; the
    second finds it there and keeps the first's files. A file in plugins/ this cache did not build is
    never replaced."""
    from dalembert import plugin_build
    final = tmp_path / "key"
    for who in ("first", "second"):
        (tmp_path / who).mkdir()
        (tmp_path / who / "dalembert_system_x.so").write_text(who)
    assert plugin_build._publish(tmp_path / "first", final)
    assert not plugin_build._publish(tmp_path / "second", final)
    assert (final / "dalembert_system_x.so").read_text() == "first"
    (tmp_path / "plugins").mkdir()
    foreign = tmp_path / "plugins" / "dalembert_system_x.so"
    foreign.write_text("someone else's")
    with pytest.warns(RuntimeWarning, match="not a plugin this cache built"):
        assert plugin_build.link_by_name(tmp_path, final / "dalembert_system_x.so") is None
    assert foreign.read_text() == "someone else's"
    foreign.unlink()
    linked = plugin_build.link_by_name(tmp_path, final / "dalembert_system_x.so")
    assert linked.samefile(final / "dalembert_system_x.so")
    assert plugin_build.link_by_name(tmp_path, final / "dalembert_system_x.so") == linked  # ours: kept
    os.link(final / "dalembert_system_x.so", tmp_path / "plugins" / f".dalembert_system_x.so.{os.getpid()}.tmp")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "dalembert_system_x.so").write_text("rebuilt")
    assert plugin_build.link_by_name(tmp_path, tmp_path / "other" / "dalembert_system_x.so") == linked
    assert linked.read_text() == "rebuilt"  # replaced by the newer build of that name, atomically
    assert not list((tmp_path / "plugins").glob(".*.tmp")), "temporary links left behind"


def test_moving_and_holonomic_constraints_and_configuration_mass_evaluate_as_sympy(cache):
    """b(t, q) (from the velocity-free part of constraints=), g(q) and a full M(q) with a common
    subexpression, checked against SymPy's own numbers (lambdify) at random (t, q)."""
    x, y, z = dynamicsymbols("x y z")
    k, w = sympy.symbols("k omega")
    xd, yd, zd = (c.diff(t) for c in (x, y, z))
    L = (xd ** 2 + (1 + sympy.sin(x) ** 2) * yd ** 2 + zd ** 2) / 2 + sympy.sin(x) * xd * zd - k * z - sympy.exp(y) / 3
    s = dalembert.system_from_sympy([x, y, z], L, constraints=[zd - y * xd + sympy.sin(w * t) * x],
                                    g=[x ** 2 + y ** 2 + z ** 2 - 4], params={k: 9.81, w: (2.0, "table rate")})
    assert s.built and s.name.startswith("sympy_") and s.q_names == ["x", "y", "z"]
    m = s.model
    values = {m.params[0].symbol: 9.81, m.params[1].symbol: 2.0}
    numeric = {what: sympy.lambdify([m.t, m.q], e.subs(values), "numpy")
               for what, e in (("M", m.M), ("V", m.V), ("A", m.A), ("b", m.b), ("g", m.g),
                               ("grad_V", sympy.Matrix([m.V]).jacobian(m.q)))}
    for q, _ in random_states(3):
        tq = RNG.uniform(0, 3)
        assert_close(s.M(q), numeric["M"](tq, q), "M(q)")
        assert_close(s.V(q), numeric["V"](tq, q), "V")
        assert_close(s.grad_V(q), np.ravel(numeric["grad_V"](tq, q)), "grad V")
        assert_close(s.A(q)[:1], numeric["A"](tq, q), "A")  # C = [A; ∂g/∂q]
        assert_close(s.A(q)[1:], 2 * np.asarray(q)[None, :], "∂g/∂q")
        assert_close(s.b(tq, q), np.append(np.ravel(numeric["b"](tq, q)), 0.0), "b(t, q)")  # (0 for g's row)
        assert_close(s.g(q), np.ravel(numeric["g"](tq, q)), "g(q)")
    source = s.source_file.read_text()
    assert "const S cse_0" in source and "affine_constraint" in source and "holonomic = 1" in source
