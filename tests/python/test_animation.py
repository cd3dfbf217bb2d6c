"""Animations of every shipped system (issue 31 item 4): a short run of each, animated from its run
folder alone, and checked against the trajectory it was drawn from.

Each system's study is one of studies/*/ cut to a few dozen steps (or written here for the systems
without one), run together by one `dalembert run FOLDER`; then `dalembert.animate` (and once the
command `dalembert animate`) draws a few frames at a low dpi. Asserted: the file is a GIF with the
expected number of frames; every drawn point is finite; every trace ends, at every frame, where the
traced point is drawn; and per system what the drawing means — the body where the trajectory puts
it, the contact path on the ground, the wheels touching it, the quaternion read as the model reads
it. DALEMBERT_ANIMATION_PNG=DIR also writes a few frames of each as DIR/<system>_<k>.png, to look at.
"""
import json
import math
import os
import pathlib
import subprocess

import numpy as np
import pytest
from conftest import CLI, SOURCE

import dalembert
from dalembert.run_folder import RunFolder

FRAMES = 6


def cut(rel, T, label=None, record_every=1, observers=("trajectory",), **changes):
    """studies/<rel> with one integrator (the first, or `label`), run to T, recording `observers`,
    no claims nor figures."""
    with open(SOURCE / "studies" / rel) as f:
        s = json.load(f)
    for key in ("claims", "figures", "sweep", "limits", "description"):
        s.pop(key, None)
    s["integrators"] = [next(i for i in s["integrators"] if label in (None, i["label"]))]
    s["integrators"][0].pop("h", None)
    s.update(T=T, record_every=record_every, observers=list(observers), **changes)
    return s


def plain(system, q, v, h, T, integrator="rk4"):
    return {"kind": "trajectory", "system": {"plugin": system}, "initial": {"q": q, "v": v, "project": True},
            "h": h, "T": T, "integrators": [{"label": "RK4", "plugin": integrator}],
            "observers": ["trajectory"]}


WITH_DIAGNOSTICS = ("trajectory", "diagnostics")  # the model's contact point and height, to compare with
STUDIES = {
    "nonholonomic_particle": lambda: cut("newmark/fig1_particle.json", 4.0, "RK4"),
    "chaotic_nonholonomic_particle": lambda: cut("newmark/fig2_chaotic.json", 4.0, "RK4"),
    "pendulum_driven_cvt": lambda: cut("newmark/fig4_cvt_eps0.json", 4.0, "RK4"),
    "chaplygin_sleigh": lambda: cut("kobilarov/fig2_sleigh.json", 6.0),
    "snakeboard": lambda: cut("kobilarov/fig4_snakeboard.json", 2.5),
    "knife_edge": lambda: cut("exact_discrete/energy_ladder_knife.json", 6.0, h=0.1),
    "pendulum_3d": lambda: cut("rodrigues/fig1_pendulum.json", 3.0),
    "binder_torus": lambda: cut("rodrigues/bench_torus_500.json", 0.2, h=0.005),
    "vertical_rolling_disk": lambda: cut("penny/fig1_elastic_circle.json", 4.0, "exact", h=0.01),
    "rolling_disk": lambda: cut("rolling_disk/energy_disk.json", 3.0),
    "chaplygin_sphere": lambda: cut("chaplygin_sphere/energy_sphere.json", 2.0),
    "polar_oscillator": lambda: plain("polar_oscillator", [1.0, 0.0, 0.0], [0.0, 1.0, 0.5], 0.05, 3.0),
    "cartesian_pendulum": lambda: plain("cartesian_pendulum", [0.6, -0.8], [0.8, 0.6], 0.02, 2.0),
    "whipple_bicycle": lambda: cut("bicycle/capsize_7ms.json", 0.6, "RK4", observers=WITH_DIAGNOSTICS, initial={
        "q": [0, 0, 0, 0.05, 0, 0.05, 0, 0], "v": [4, 0, 0, 0, 0, 0, -13.333333333333334, -11.428571428571429],
        "project": True}),
    "suslov": lambda: cut("suslov/energy_suslov.json", 3.0, h=0.02),
    "chaplygin_ball": lambda: cut("chaplygin_ball/energy_ball.json", 2.0, observers=WITH_DIAGNOSTICS),
    "rattleback": lambda: cut("rattleback/long_rattleback.json", 1.0, h=0.002, observers=WITH_DIAGNOSTICS),
    "ball_on_turntable": lambda: cut("turntable/orbit_turntable.json", 3.0),
    "tracking_sleigh": lambda: cut("tracking/circle_tracking.json", 8.0, "RK4_h0.02"),
    "rocking_knife_edge": lambda: cut("rocking_knife_edge/resonant_drift.json", 6.0, "DLA_h0.1", h=0.1),
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Every system's short run, one `dalembert run FOLDER`: {system: run folder}."""
    studies, out = tmp_path_factory.mktemp("studies"), tmp_path_factory.mktemp("runs")
    for system, make in STUDIES.items():
        s = make()
        s["name"] = system
        (studies / f"{system}.json").write_text(json.dumps(s))
    r = subprocess.run([CLI, "run", str(studies), "--out", str(out), "--no-plots", "--quiet", "--threads", "2"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return {system: out / system for system in STUDIES}


def shipped_systems():
    return sorted(p.name for p in (SOURCE / "plugins" / "systems").iterdir() if (p / "CMakeLists.txt").exists())


def test_every_shipped_system_has_a_case():
    assert sorted(STUDIES) == shipped_systems()


def columns(folder):
    run = RunFolder(folder)
    return {k: np.asarray(v, dtype=float) for k, v in run.columns(run.entries("trajectory")[0]).items()}


def pieces(anim, k, shape):
    return [p for p in anim.pieces(k) if p[3] == shape]


def expect(drawn, wanted, tol=1e-9):
    drawn, wanted = np.asarray(drawn, dtype=float), np.asarray(wanted, dtype=float)
    assert drawn.shape == wanted.shape
    assert np.max(np.abs(drawn - wanted)) <= tol * max(1.0, np.max(np.abs(wanted))), (drawn, wanted)


def rotation(qw, qx, qy, qz):
    """R(q) by scipy's reading of a quaternion (scalar last), independent of the animator's."""
    from scipy.spatial.transform import Rotation
    return Rotation.from_quat([qx, qy, qz, qw]).as_matrix()


def check_sleigh(anim, c, i, k, folder):
    a = RunFolder(folder).study["system"]["params"]["a"]
    expect(pieces(anim, k, "point")[0][1][0], [c["x"][i], c["y"][i]])
    expect(anim.trace(0, k)[-1], [c["x"][i] - a * math.cos(c["theta"][i]), c["y"][i] - a * math.sin(c["theta"][i])])


def check_point_at(*names):
    def check(anim, c, i, k, folder):
        expect(anim.trace(0, k)[-1], [c[n][i] for n in names])
    return check


def check_polar(anim, c, i, k, folder):
    expect(anim.trace(0, k)[-1], [c["r"][i] * math.cos(c["theta"][i]), c["r"][i] * math.sin(c["theta"][i])])


def check_snakeboard(anim, c, i, k, folder):
    l = RunFolder(folder).study["system"]["params"]["l"]
    expect(anim.trace(0, k)[-1], [c["x"][i], c["y"][i]])
    axle = pieces(anim, k, "line")[1][1]  # the front axle (after the rotor)
    th, ph = c["theta"][i], c["phi"][i]
    expect(axle.mean(axis=0), [c["x"][i] + l * math.cos(th), c["y"][i] + l * math.sin(th)])
    direction = (axle[1] - axle[0]) / np.linalg.norm(axle[1] - axle[0])
    expect(direction, [-math.sin(th + ph), math.cos(th + ph)])  # the axle across the wheels' heading


def check_binder(anim, c, i, k, folder):
    ring = pieces(anim, k, "circle")[0][1]
    expect(ring[:-1].mean(axis=0), [c["x_0"][i], c["y_0"][i]])


def check_rolling_disk(anim, c, i, k, folder):
    R = RunFolder(folder).study["system"]["params"]["R"]
    phi, th = c["phi"][i], c["theta"][i]
    ring = pieces(anim, k, "circle")[0][1][:-1]
    e3 = [math.sin(phi) * math.sin(th), -math.cos(phi) * math.sin(th), math.cos(th)]
    expect(ring.mean(axis=0), np.array([c["x"][i], c["y"][i], 0.0]) + R * np.array(e3))
    expect(anim.trace(0, k)[-1], [c["x"][i], c["y"][i], 0.0])
    assert ring[:, 2].min() >= -1e-3 * R  # the disk touches the ground and does not go through it
    assert ring[:, 2].min() <= 1e-2 * R


def check_sphere(anim, c, i, k, folder):
    R = RunFolder(folder).study["system"]["params"]["R"]
    ring = pieces(anim, k, "sphere")[0][1][:-1]
    expect(ring.mean(axis=0), [c["x"][i], c["y"][i], R])
    expect(anim.trace(0, k)[-1], [c["x"][i], c["y"][i], 0.0])


def check_rolling_body(anim, c, i, k, folder):
    """On the ground by its shape: G at the model's height, the contact where the model puts it."""
    G = pieces(anim, k, "point")[0][1][0]
    expect(G, [c["x"][i], c["y"][i], c["height"][i]], 1e-7)
    expect(anim.trace(0, k)[-1], [c["contact_x"][i], c["contact_y"][i], 0.0], 1e-7)


def check_ball_on_table(anim, c, i, k, folder):
    """A uniform ball: its centre (G) a radius above the contact, which is under it."""
    r = RunFolder(folder).study["system"]["params"]["r"]
    expect(pieces(anim, k, "point")[0][1][0], [c["x"][i], c["y"][i], r], 1e-7)
    expect(anim.trace(0, k)[-1], [c["x"][i], c["y"][i], 0.0], 1e-7)


def check_bicycle(anim, c, i, k, folder):
    """The model's ground frame has z down: the drawing turns it by π about x (y → −y, z → −z)."""
    expect(anim.trace(0, k)[-1], [c["x"][i], -c["y"][i], 0.0])
    expect(anim.trace(1, k)[-1], [c["front_contact_x"][i], -c["front_contact_y"][i], 0.0], 1e-7)
    for ring in pieces(anim, k, "circle"):  # both wheels stand on the ground
        assert abs(ring[1][:, 2].min()) < 2e-3


def check_quaternion_point(local_of):
    def check(anim, c, i, k, folder):
        R = rotation(c["qw"][i], c["qx"][i], c["qy"][i], c["qz"][i])
        expect(anim.trace(0, k)[-1], R @ np.asarray(local_of(RunFolder(folder).study["system"]["params"])))
    return check


CHECKS = {
    "chaplygin_sleigh": check_sleigh,
    "tracking_sleigh": check_sleigh,
    "knife_edge": check_point_at("x", "y"),
    "rocking_knife_edge": check_point_at("x", "y"),
    "nonholonomic_particle": check_point_at("x", "y", "z"),
    "chaotic_nonholonomic_particle": check_point_at("x", "y1", "z1"),
    "pendulum_driven_cvt": check_point_at("x", "y"),
    "polar_oscillator": check_polar,
    "cartesian_pendulum": check_point_at("x", "y"),
    "snakeboard": check_snakeboard,
    "binder_torus": check_binder,
    "vertical_rolling_disk": check_point_at("x", "y"),
    "rolling_disk": check_rolling_disk,
    "chaplygin_sphere": check_sphere,
    "chaplygin_ball": check_rolling_body,
    "rattleback": check_rolling_body,
    "ball_on_turntable": check_ball_on_table,
    "whipple_bicycle": check_bicycle,
    "suslov": check_quaternion_point(lambda p: [1 / math.sqrt(p["I11"]), 0, 0]),
    "pendulum_3d": check_quaternion_point(lambda p: p["rho0"]),
}


@pytest.mark.parametrize("system", sorted(STUDIES))
def test_animation_follows_the_trajectory(runs, system, tmp_path):
    anim = dalembert.animate(runs[system], frames=FRAMES, dpi=30, size=3)
    c = columns(runs[system])
    assert anim.n_frames == FRAMES
    expect(anim.times, c["t"][anim.rows])
    assert anim.rows[0] == 0 and anim.rows[-1] == len(c["t"]) - 1
    for k in range(anim.n_frames):
        for kind, pts, style, shape in anim.pieces(k):
            assert np.all(np.isfinite(pts)), (system, shape)
        for t in range(len(anim.geometry.traces)):
            assert len(anim.trace(t, k)) == anim.at[k] + 1  # through every drawn row up to the frame
        CHECKS[system](anim, c, anim.rows[k], k, runs[system])
    gif = anim.save(tmp_path / f"{system}.gif")
    from PIL import Image
    with Image.open(gif) as im:
        assert im.format == "GIF" and im.n_frames == FRAMES
    if os.environ.get("DALEMBERT_ANIMATION_PNG"):
        out = pathlib.Path(os.environ["DALEMBERT_ANIMATION_PNG"])
        out.mkdir(parents=True, exist_ok=True)
        big = dalembert.animate(runs[system], frames=FRAMES, dpi=90, size=5)  # large enough to look at
        for k in (0, FRAMES - 1):
            big.save_frame(k, out / f"{system}_{k}.png")


def test_command_line_animate(runs, tmp_path):
    """`dalembert animate`: a GIF at --out, a default file never replaced, one error line otherwise."""
    folder = runs["chaplygin_sleigh"]
    out = tmp_path / "sleigh.gif"
    r = subprocess.run([CLI, "animate", str(folder), "--out", str(out), "--frames", "4", "--dpi", "30"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(out) and not (tmp_path / "sleigh.gif.part").exists()
    from PIL import Image
    with Image.open(out) as im:
        assert im.n_frames == 4
    # Without --out: DIR/animations/<label>.gif here (no ffmpeg) or .mp4, and never replaced.
    default = [CLI, "animate", str(folder), "--frames", "2", "--dpi", "20"]
    first = subprocess.run(default, capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    written = pathlib.Path(first.stdout.strip())
    assert written.parent == folder / "animations" and written.stem == "true", written
    before = written.read_bytes()
    again = subprocess.run(default, capture_output=True, text=True)
    assert again.returncode == 1 and "exists: name it with --out to replace it" in again.stderr
    assert written.read_bytes() == before
    written.unlink()
    bad = subprocess.run([CLI, "animate", str(folder), "--label", "nope"], capture_output=True, text=True)
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1 and "no trajectory labelled 'nope'" in bad.stderr
    bad = subprocess.run([CLI, "animate", str(folder), "--out", str(tmp_path / "x.avi")], capture_output=True, text=True)
    assert bad.returncode == 1 and "a .gif or an .mp4" in bad.stderr


def test_study_asks_for_an_animation(tmp_path):
    """A figure of type "animation": its GIF and last frame in figures/, listed in the manifest; a
    system without a drawing or a trajectory without the drawing's columns is refused before the run."""
    s = cut("kobilarov/fig2_sleigh.json", 3.0, name="sleigh_movie")
    s["figures"] = [{"name": "movie", "type": "animation", "frames": 5, "dpi": 30}]
    path = tmp_path / "s.json"
    path.write_text(json.dumps(s))
    r = subprocess.run([CLI, "run", str(path), "--out", str(tmp_path / "run"), "--quiet"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["figures"][0]["files"] == ["figures/movie.gif", "figures/movie.png"]
    from PIL import Image
    with Image.open(tmp_path / "run" / "figures" / "movie.gif") as im:
        assert im.n_frames == 5
    s["observers"] = ["energy_error"]
    path.write_text(json.dumps(s))
    r = subprocess.run([CLI, "run", str(path), "--out", str(tmp_path / "run2")], capture_output=True, text=True)
    assert r.returncode == 1 and "/figures/0/type" in r.stderr and "needs column 'x'" in r.stderr
    s["figures"][0]["format"] = "avi"
    path.write_text(json.dumps(s))
    r = subprocess.run([CLI, "run", str(path), "--out", str(tmp_path / "run3")], capture_output=True, text=True)
    assert r.returncode == 1 and "/figures/0/format" in r.stderr and "gif, mp4" in r.stderr


def test_jupyter_shows_an_animation(runs):
    """What Jupyter displays: matplotlib's JavaScript player with every frame, from a dalembert.load run."""
    anim = dalembert.animate(dalembert.load(runs["rolling_disk"]), frames=3, dpi=20, size=2)
    html = anim._repr_html_()
    assert "<script" in html and html.count("data:image/png;base64") == 3
    assert repr(anim) == "<dalembert.Animation 'rolling_disk: " + RunFolder(runs["rolling_disk"]).entries("trajectory")[0]["label"] + "': 3 frames, 3-D>"
