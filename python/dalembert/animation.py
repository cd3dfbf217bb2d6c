#!/usr/bin/env python3
"""The system of a run folder moving, with its traces: ``dalembert animate`` and ``dalembert.animate``.

usage: python3 .../dalembert/animation.py RUN_FOLDER [--label L] [--out FILE.gif|FILE.mp4]
                                        [--frames N] [--fps F] [--dpi D]
       (as `dalembert animate` starts it; prints the file written)

The drawing is the one the system declares (core/drawable.hpp; dalembert/drawing.py evaluates it),
written by the run into manifest.json (study.system.drawing); the motion is the trajectory of
integrator L (default: the first). N frames (default 100) evenly spaced over the recorded rows;
each trace is drawn through every recorded row up to the frame (at most 2000 rows in all).

Output: .mp4 through ffmpeg (matplotlib's FFMpegWriter) when ffmpeg is on PATH, .gif through
Pillow otherwise or when asked. Default DIR/animations/<L>.mp4 (or .gif), never replacing a file
that exists; --out FILE replaces FILE. Every file is written as FILE.part, then renamed. A failure
is one line "error: ..." on stderr, exit 1.

From Python, ``dalembert.animate(run, label)`` returns an ``Animation``: it shows itself in Jupyter
(``_repr_html_``, matplotlib's to_jshtml), ``.save(path)`` writes a .gif or .mp4, ``.save_frame(k,
path)`` one frame as a PNG, and ``.pieces(k)`` / ``.trace(i, k)`` give what frame k draws, in world
coordinates (what the tests check against the trajectory).
"""
import argparse
import io
import os
import pathlib
import shutil
import sys

if __name__ == "__main__" and not __package__:  # started as a file: run as the module of its package
    sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    from dalembert.animation import main
    sys.exit(main())

import numpy as np  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Polygon  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from .drawing import DrawingError, Geometry  # noqa: E402
from .run_folder import RunFolder  # noqa: E402

__all__ = ["Animation", "animate", "AnimationError"]

TRACE_ROWS = 2000  # rows a trace is drawn through, at most
COLORS = ["0.2", "tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple"]


class AnimationError(ValueError):
    """A run that cannot be animated: the one line says why."""


def trajectory_of(run, label):
    """(label, the columns of its trajectory file, the drawing) of a run folder."""
    label, table, drawing, _ = _trajectory(run, label)
    return label, table, drawing


def _trajectory(run, label):
    folder = run if isinstance(run, RunFolder) else RunFolder(run)
    drawing = folder.study.get("system", {}).get("drawing")
    if not drawing:
        plugin = folder.study.get("system", {}).get("plugin", "?")
        raise AnimationError(f"{folder.folder}: system '{plugin}' declares no drawing (core/drawable.hpp), "
                             "or the run is older than the drawings")
    entries = folder.entries("trajectory")
    if not entries:
        raise AnimationError(f"{folder.folder}: the run has no trajectory file (a trajectory study, or a sweep "
                             "cell's folder, with the observer \"trajectory\")")
    labels = [e.get("label") for e in entries]
    label = labels[0] if label is None else label
    if label not in labels:
        raise AnimationError(f"{folder.folder}: no trajectory labelled {label!r} (labels: {', '.join(labels)})")
    entry = entries[labels.index(label)]
    return label, folder.columns(entry), drawing, folder


def animate(run, label=None, frames=100, fps=20, dpi=80, size=4.5):
    """An Animation of the system of `run` (a run folder, or what dalembert.load/run return) moving
    along the trajectory of integrator `label` (default: the first)."""
    label, table, drawing, folder = _trajectory(run, label)
    return Animation(drawing, table, f"{folder.name}: {label}", frames=frames, fps=fps, dpi=dpi, size=size)


class Animation:
    """A drawing evaluated along a trajectory, at `frames` rows evenly spaced in the recorded rows."""

    def __init__(self, drawing, table, title="", frames=100, fps=20, dpi=80, size=4.5):
        if "t" not in table or len(table["t"]) == 0:
            raise AnimationError("the trajectory has no rows (or no column t)")
        if int(frames) < 1 or int(fps) < 1 or int(dpi) < 10:
            raise AnimationError(f"frames = {frames}, fps = {fps}, dpi = {dpi}: expected frames, fps >= 1 and dpi >= 10")
        n = len(table["t"])
        frame_rows = np.unique(np.round(np.linspace(0, n - 1, min(int(frames), n))).astype(int))
        rows = np.union1d(frame_rows, np.round(np.linspace(0, n - 1, min(n, TRACE_ROWS))).astype(int))
        self.geometry = Geometry(drawing, table, rows)
        self.at = np.searchsorted(rows, frame_rows)  # frame k is geometry row at[k]
        self.times = np.asarray(table["t"], dtype=float)[frame_rows]
        self.rows = frame_rows
        self.title, self.fps, self.dpi, self.size = title, int(fps), int(dpi), float(size)

    @property
    def n_frames(self):
        return len(self.at)

    def pieces(self, k):
        """What frame k draws: [(kind, world points (m, dim), style, shape)] of every piece."""
        return [(p.kind, p.points[self.at[k]], p.style, p.shape) for p in self.geometry.pieces]

    def trace(self, i, k):
        """Trace i through every drawn row up to frame k: (rows, dim)."""
        return self.geometry.traces[i][: self.at[k] + 1]

    # ---- drawing ---------------------------------------------------------------------------
    def _limits(self):
        """One box holding every piece and trace at every row, square in every axis (equal scale)."""
        pts = [p.points.reshape(-1, self.geometry.dim) for p in self.geometry.pieces] + list(self.geometry.traces)
        pts = np.vstack(pts) if pts else np.zeros((1, self.geometry.dim))
        pts = pts[np.all(np.isfinite(pts), axis=1)]
        lo, hi = pts.min(axis=0), pts.max(axis=0)
        half = max(float(np.max(hi - lo)) / 2 * 1.08, 1e-9)
        mid = (lo + hi) / 2
        return [(m - half, m + half) for m in mid]

    def _space_axes(self, ax, limits):
        """3-D axes at one scale; over the ground (a drawing with "ground": true) only as high as the
        bodies go, with the ground drawn."""
        ax.set_xlim(*limits[0])
        ax.set_ylim(*limits[1])
        if self.geometry.spec.get("ground"):
            top = max(p.points[..., 2].max() for p in self.geometry.pieces) if self.geometry.pieces else 1.0
            span = limits[0][1] - limits[0][0]
            top = max(1.05 * top, 0.05 * span)
            ax.set_zlim(0.0, top)
            ax.set_box_aspect([1, 1, top / span])
            ax.zaxis.set_major_locator(MaxNLocator(nbins=max(1, min(5, round(10 * top / span)))))
            corners = [[limits[0][i], limits[1][j]] for i, j in ((0, 0), (1, 0), (1, 1), (0, 1), (0, 0))]
            ax.plot([c[0] for c in corners], [c[1] for c in corners], [0] * 5, color="0.7", lw=0.8)
        else:
            ax.set_zlim(*limits[2])
            ax.set_box_aspect([1, 1, 1])
        ax.set_xlabel("x", fontsize=7)
        ax.set_ylabel("y", fontsize=7)
        ax.set_zlabel("z", fontsize=7)
        ax.view_init(elev=25, azim=-60)

    def _figure(self):
        """The figure and update(k), which puts frame k on it."""
        pixels = 2 * round(self.size * self.dpi / 2)  # even: h264 wants even sizes
        fig = Figure(figsize=(pixels / self.dpi, pixels / self.dpi), dpi=self.dpi)  # no pyplot: no backend
        FigureCanvasAgg(fig)
        three = self.geometry.dim == 3
        if three:
            import mpl_toolkits.mplot3d  # noqa: F401  (the "3d" projection)
        ax = fig.add_subplot(projection="3d") if three else fig.add_subplot()
        limits = self._limits()
        if three:
            self._space_axes(ax, limits)
        else:
            ax.set_xlim(*limits[0]); ax.set_ylim(*limits[1])  # noqa: E702
            ax.set_aspect("equal")
            ax.set_xlabel("x"); ax.set_ylabel("y")  # noqa: E702
            ax.grid(True, alpha=0.3)
        ax.tick_params(labelsize=6)
        artists = []
        for j, p in enumerate(self.geometry.pieces):
            color = p.style.get("color", COLORS[0])
            width = p.style.get("width", 1.5)
            if p.kind == "point":
                a, = ax.plot(*([0] * self.geometry.dim), "o", color=color, ms=p.style.get("width", 4))
            elif p.kind == "polygon" and p.style.get("fill", True) and not three:
                a = Polygon(np.zeros((3, 2)), closed=True, facecolor=color, edgecolor="k", alpha=0.6, lw=width * 0.5)
                ax.add_patch(a)
            else:
                a, = ax.plot(*([[0, 0]] * self.geometry.dim), "-", color=color, lw=width)
            artists.append(a)
        traces = []
        for i, spec in enumerate(self.geometry.spec.get("traces", [])):
            a, = ax.plot(*([[0]] * self.geometry.dim), "-", color=spec.get("color", "tab:blue"), lw=0.9, alpha=0.8,
                         label=spec.get("label"))
            traces.append(a)
        if any(t.get("label") for t in self.geometry.spec.get("traces", [])):
            ax.legend(fontsize=6, loc="upper right")
        clock = fig.text(0.02, 0.97, "", fontsize=7, va="top")
        fig.text(0.98, 0.97, self.title, fontsize=7, va="top", ha="right")
        fig.tight_layout() if not three else None

        def update(k):
            for a, (kind, pts, style, _) in zip(artists, self.pieces(k)):
                if isinstance(a, Polygon):
                    a.set_xy(pts)
                elif three:
                    a.set_data_3d(pts[:, 0], pts[:, 1], pts[:, 2])
                else:
                    a.set_data(pts[:, 0], pts[:, 1])
            for i, a in enumerate(traces):
                pts = self.trace(i, k)
                if three:
                    a.set_data_3d(pts[:, 0], pts[:, 1], pts[:, 2])
                else:
                    a.set_data(pts[:, 0], pts[:, 1])
            clock.set_text(f"t = {self.times[k]:.4g}")
            return artists + traces + [clock]

        return fig, update

    def frames_rgb(self):
        """Every frame as an RGB image (a PIL Image), in order."""
        from PIL import Image
        fig, update = self._figure()
        for k in range(self.n_frames):
            update(k)
            fig.canvas.draw()
            yield Image.frombuffer("RGBA", fig.canvas.get_width_height(), fig.canvas.buffer_rgba()).convert("RGB")

    # ---- output ----------------------------------------------------------------------------
    def save(self, path):
        """Writes the animation to `path` (.gif through Pillow, .mp4 through ffmpeg), as path.part
        renamed when whole; returns the path."""
        path = pathlib.Path(path)
        ext = path.suffix.lower()
        if ext not in (".gif", ".mp4"):
            raise AnimationError(f"{path}: an animation is a .gif or an .mp4 file")
        if ext == ".mp4" and not shutil.which("ffmpeg"):
            raise AnimationError(f"{path}: an .mp4 needs ffmpeg (apt-get install ffmpeg); ask for a .gif instead")
        part = path.with_name(path.name + ".part")
        try:
            if ext == ".gif":
                with open(part, "wb") as out:
                    self.write_gif(out)
            else:
                self._write_mp4(part)
            os.replace(part, path)
        finally:
            if part.exists():
                part.unlink()
        return path

    def write_gif(self, out):
        """The animation as a GIF (Pillow) into the binary file `out`."""
        images = list(self.frames_rgb())
        images[0].save(out, format="GIF", save_all=True, append_images=images[1:],
                       duration=round(1000 / self.fps), loop=0)

    def copy_mp4(self, out):
        """The animation as an MP4 (ffmpeg) into the binary file `out`, through a temporary file."""
        import tempfile
        if not shutil.which("ffmpeg"):
            raise AnimationError("an .mp4 needs ffmpeg (apt-get install ffmpeg); ask for a .gif instead")
        with tempfile.TemporaryDirectory(prefix="dalembert-animation-") as tmp:
            movie = pathlib.Path(tmp) / "movie.mp4"
            self._write_mp4(movie)
            with open(movie, "rb") as f:
                shutil.copyfileobj(f, out)

    def _write_mp4(self, part):
        from matplotlib.animation import FFMpegWriter
        fig, update = self._figure()
        writer = FFMpegWriter(fps=self.fps, extra_args=["-f", "mp4"])
        with writer.saving(fig, str(part), self.dpi):
            for k in range(self.n_frames):
                update(k)
                writer.grab_frame()

    def save_frame(self, k, path):
        """Frame k (negative: from the end) as a PNG, into a path or a binary file."""
        fig, update = self._figure()
        update(range(self.n_frames)[k])
        fig.savefig(path, format="png", dpi=self.dpi)
        return path

    def _repr_html_(self):
        from matplotlib.animation import FuncAnimation
        fig, update = self._figure()
        return FuncAnimation(fig, update, frames=self.n_frames, interval=1000 / self.fps).to_jshtml(fps=self.fps)

    def __repr__(self):
        return f"<dalembert.Animation {self.title!r}: {self.n_frames} frames, {self.geometry.dim}-D>"


def default_output(folder, label):
    """DIR/animations/<label>.mp4 (.gif without ffmpeg); an existing file is never replaced."""
    ext = ".mp4" if shutil.which("ffmpeg") else ".gif"
    out = pathlib.Path(folder) / "animations" / f"{label}{ext}"
    if out.exists() or out.is_symlink():
        raise AnimationError(f"{out} exists: name it with --out to replace it")
    out.parent.mkdir(exist_ok=True)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(prog="dalembert animate", description=__doc__.split("\n")[0])
    parser.add_argument("folder")
    parser.add_argument("--label")
    parser.add_argument("--out")
    parser.add_argument("--frames", type=int, default=100)
    parser.add_argument("--fps", type=int, default=20)
    parser.add_argument("--dpi", type=int, default=80)
    args = parser.parse_args(argv)
    try:
        label, table, drawing, folder = _trajectory(args.folder, args.label)
        animation = Animation(drawing, table, f"{folder.name}: {label}", args.frames, args.fps, args.dpi)
        out = pathlib.Path(args.out) if args.out else default_output(folder.folder, label)
        print(animation.save(out))
    except (AnimationError, DrawingError, OSError) as e:
        print(f"error: {' '.join(str(e).split())}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
