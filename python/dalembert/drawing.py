"""A system's drawing evaluated on a trajectory: the world coordinates of every shape and trace.

A system declares how it looks (the Drawable capability, framework/include/dalembert/core/
drawable.hpp) as a JSON spec in terms of its trajectory's column names; a run writes it into
manifest.json (study.system.drawing). ``Geometry(spec, columns, rows)`` evaluates it at the given
rows of a trajectory (numpy only, no matplotlib):

  "dimension"  2 (the plane) or 3 (space, z up)
  "ground"     true: a 3-D scene over the ground z = 0 (drawn; the view as high as the bodies go)
  "frames"     [{"name", "parent" (default "world"), "transform": [step, ...], "on_ground"}], each
               after its parent; a step is {"translate": [v, v(, v)]}, {"rotate": v} (2-D, or 3-D
               with "axis": "x" | "y" | "z" | [a, b, c]) or {"quaternion": [w, x, y, z]}, each v a
               number, a column name or {"column": name, "scale": k, "offset": o}; every step is in
               the frame built so far. "on_ground": true (3-D) lifts the frame until its round
               shapes touch the ground (a rolling body whose height the trajectory does not hold).
  "shapes"     [{"frame" (default "world"), one of the kinds below, "color", "width", "fill"}]:
                 "polygon": [[x, y(, z)], ...]   closed outline (filled in 2-D unless "fill": false)
                 "line": [[x, y(, z)], ...]      open polyline
                 "circle": {"radius", "center", "normal" (3-D, default [0, 1, 0]), "spokes": n}
                 "sphere": {"radius", "center"}  three great circles (they show it turning)
                 "ellipsoid": {"semi_axes": [a, b, c], "center"}  its three principal ellipses
                 "point": [x, y(, z)]            a dot
                 "link": [frame, frame]          a segment joining two frames' origins
  "traces"     [{"frame", "point" (default the origin)} or {"contact": frame}, "label", "color"]:
               the path of a point; "contact" is the frame's lowest point (its contact with the
               ground, 3-D)
"""
import numpy as np

__all__ = ["DrawingError", "Geometry"]

RING = 48  # points of a drawn circle


class DrawingError(ValueError):
    """A drawing that cannot be evaluated: the message names the place in the spec."""


def _value(v, table, n, where):
    """A number, a column or {"column", "scale", "offset"} as an array of n values."""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return np.full(n, float(v))
    scale, offset = 1.0, 0.0
    if isinstance(v, dict):
        scale, offset, v = float(v.get("scale", 1.0)), float(v.get("offset", 0.0)), v.get("column")
    if not isinstance(v, str):
        raise DrawingError(f"drawing {where}: expected a number, a column name or {{\"column\": ...}}")
    if v not in table:
        raise DrawingError(f"drawing {where}: column '{v}' is not in the trajectory (its columns: "
                           f"{', '.join(table)}); record it with the observer \"trajectory\"")
    return scale * np.asarray(table[v], dtype=float) + offset


def _axis_rotation(axis, angle):
    """Rotations by `angle` (n values) about the unit `axis`: (n, 3, 3), Rodrigues' formula."""
    a = np.asarray(axis, dtype=float)
    a = a / np.linalg.norm(a)
    K = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    s, c = np.sin(angle)[:, None, None], np.cos(angle)[:, None, None]
    return np.eye(3) + s * K + (1 - c) * (K @ K)


def _plane_rotation(angle):
    c, s = np.cos(angle), np.sin(angle)
    return np.stack([np.stack([c, -s], -1), np.stack([s, c], -1)], -2)


def _quaternion_rotation(w, x, y, z):
    """R(p) of the unit quaternion p = (w, x, y, z), normalised first: (n, 3, 3)."""
    norm = np.sqrt(w * w + x * x + y * y + z * z)
    w, x, y, z = w / norm, x / norm, y / norm, z / norm
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1)], -2)


AXES = {"x": [1, 0, 0], "y": [0, 1, 0], "z": [0, 0, 1]}


def _ring(radius, normal, center, count=RING):
    """`count` points of the circle of `radius` about `center` in the plane normal to `normal`."""
    n = np.asarray(normal, dtype=float)
    n = n / np.linalg.norm(n)
    u = np.cross(n, [1.0, 0, 0] if abs(n[0]) < 0.9 else [0, 1.0, 0])
    u /= np.linalg.norm(u)
    w = np.cross(n, u)
    a = np.linspace(0, 2 * np.pi, count + 1)
    return np.asarray(center, dtype=float) + radius * (np.outer(np.cos(a), u) + np.outer(np.sin(a), w))


class Piece:
    """One drawn polyline (or dot): its world points at every row, (n, m, dim), and its style."""

    def __init__(self, kind, points, style, shape):
        self.kind, self.points, self.style, self.shape = kind, points, style, shape


class Geometry:
    """The drawing `spec` evaluated on `table` (columns by name) at `rows` (indices)."""

    def __init__(self, spec, table, rows):
        self.spec = spec
        self.dim = int(spec.get("dimension", 2))
        if self.dim not in (2, 3):
            raise DrawingError(f"drawing /dimension = {self.dim!r}: expected 2 or 3")
        rows = np.asarray(rows, dtype=int)
        self.table = {k: np.asarray(v, dtype=float)[rows] for k, v in table.items() if _numeric(v)}
        self.n = len(rows)
        self.frames = {"world": (np.broadcast_to(np.eye(self.dim), (self.n, self.dim, self.dim)),
                                 np.zeros((self.n, self.dim)))}
        self.shapes = list(spec.get("shapes", []))
        for i, frame in enumerate(spec.get("frames", [])):
            self._add_frame(frame, f"/frames/{i}")
        self.pieces = [p for i, s in enumerate(self.shapes) for p in self._pieces(s, f"/shapes/{i}")]
        self.traces = [self._trace(t, f"/traces/{i}") for i, t in enumerate(spec.get("traces", []))]

    # ---- frames ----------------------------------------------------------------------------
    def frame(self, name, where):
        if name not in self.frames:
            raise DrawingError(f"drawing {where}: no frame named {name!r} before it "
                               f"(frames: {', '.join(self.frames)})")
        return self.frames[name]

    def _add_frame(self, frame, where):
        name = frame.get("name")
        if not isinstance(name, str) or not name or name in self.frames:
            raise DrawingError(f"drawing {where}/name = {name!r}: a frame needs a new name")
        R, p = self.frame(frame.get("parent", "world"), f"{where}/parent")
        R, p = R.copy(), p.copy()
        for k, step in enumerate(frame.get("transform", [])):
            R, p = self._step(step, R, p, f"{where}/transform/{k}")
        self.frames[name] = (R, p)
        if frame.get("on_ground"):
            if self.dim != 3:
                raise DrawingError(f"drawing {where}/on_ground: only a 3-D frame rests on the ground")
            low = self._lowest(name, where)
            if low is None:
                raise DrawingError(f"drawing {where}/on_ground: frame {name!r} has no round shape "
                                   "(sphere, ellipsoid, circle) to rest on")
            p[:, 2] -= low[:, 2]

    def _step(self, step, R, p, where):
        n, d = self.n, self.dim
        if "translate" in step:
            t = step["translate"]
            if not isinstance(t, list) or len(t) != d:
                raise DrawingError(f"drawing {where}/translate: expected {d} entries")
            v = np.stack([_value(x, self.table, n, f"{where}/translate/{j}") for j, x in enumerate(t)], -1)
            return R, p + np.einsum("nij,nj->ni", R, v)
        if "rotate" in step:
            angle = _value(step["rotate"], self.table, n, f"{where}/rotate")
            if d == 2:
                return R @ _plane_rotation(angle), p
            axis = step.get("axis", "z")
            axis = AXES.get(axis, axis) if isinstance(axis, str) else axis
            if not isinstance(axis, list) or len(axis) != 3:
                raise DrawingError(f"drawing {where}/axis: expected x, y, z or [a, b, c]")
            return R @ _axis_rotation(axis, angle), p
        if "quaternion" in step:
            q = step["quaternion"]
            if d != 3 or not isinstance(q, list) or len(q) != 4:
                raise DrawingError(f"drawing {where}/quaternion: expected four entries (w, x, y, z), in 3-D")
            w, x, y, z = (_value(v, self.table, n, f"{where}/quaternion/{j}") for j, v in enumerate(q))
            return R @ _quaternion_rotation(w, x, y, z), p
        raise DrawingError(f"drawing {where}: expected \"translate\", \"rotate\" or \"quaternion\"")

    def world(self, frame, local, where):
        """Points `local` (m, dim) of `frame` in the world at every row: (n, m, dim)."""
        R, p = self.frame(frame, where)
        local = np.atleast_2d(np.asarray(local, dtype=float))
        if local.shape[1] != self.dim:
            raise DrawingError(f"drawing {where}: points have {self.dim} coordinates in a {self.dim}-D drawing")
        return p[:, None, :] + np.einsum("nij,mj->nmi", R, local)

    # ---- the lowest point of a frame's round shapes (3-D) ----------------------------------
    def _lowest(self, frame, where):
        """The lowest point of `frame`'s spheres, ellipsoids and circles at every row, or None."""
        R, p = self.frames[frame]
        best = None
        ez = np.array([0.0, 0.0, 1.0])
        for s in self.shapes:
            if s.get("frame", "world") != frame:
                continue
            if "sphere" in s:
                c = self.world(frame, s["sphere"].get("center", [0, 0, 0]), where)[:, 0]
                low = c - s["sphere"]["radius"] * ez
            elif "ellipsoid" in s:
                c = self.world(frame, s["ellipsoid"].get("center", [0, 0, 0]), where)[:, 0]
                M = R @ np.diag(np.square(s["ellipsoid"]["semi_axes"])) @ np.transpose(R, (0, 2, 1))
                Mz = M[:, :, 2]
                low = c - Mz / np.sqrt(Mz[:, 2])[:, None]
            elif "circle" in s:
                c = self.world(frame, s["circle"].get("center", [0, 0, 0]), where)[:, 0]
                nw = np.einsum("nij,j->ni", R, np.asarray(s["circle"].get("normal", [0, 1, 0]), dtype=float))
                nw /= np.linalg.norm(nw, axis=1)[:, None]
                u = ez - nw[:, 2:3] * nw
                size = np.linalg.norm(u, axis=1)[:, None]
                low = c - s["circle"]["radius"] * np.where(size > 1e-12, u / np.maximum(size, 1e-300), 0.0)
            else:
                continue
            best = low if best is None else np.where((low[:, 2] < best[:, 2])[:, None], low, best)
        return best

    # ---- shapes ----------------------------------------------------------------------------
    def _pieces(self, s, where):
        frame = s.get("frame", "world")
        style = {k: s[k] for k in ("color", "width", "fill", "label") if k in s}
        d = self.dim
        if "link" in s:
            a, b = s["link"]
            pa = self.frame(a, f"{where}/link/0")[1]
            pb = self.frame(b, f"{where}/link/1")[1]
            return [Piece("line", np.stack([pa, pb], 1), style, "link")]
        if "polygon" in s:
            pts = np.asarray(s["polygon"], dtype=float)
            return [Piece("polygon", self.world(frame, np.vstack([pts, pts[:1]]), where), style, "polygon")]
        if "line" in s:
            return [Piece("line", self.world(frame, s["line"], where), style, "line")]
        if "point" in s:
            return [Piece("point", self.world(frame, s["point"], where), style, "point")]
        if "circle" in s:
            c = s["circle"]
            center = c.get("center", [0.0] * d)
            if d == 2:
                a = np.linspace(0, 2 * np.pi, RING + 1)
                ring = np.asarray(center, dtype=float) + c["radius"] * np.stack([np.cos(a), np.sin(a)], -1)
            else:
                ring = _ring(c["radius"], c.get("normal", [0, 1, 0]), center)
            out = [Piece("polygon" if c.get("fill", d == 2) else "line", self.world(frame, ring, where), style,
                         "circle")]
            spokes = int(c.get("spokes", 0))
            for k in range(spokes):  # diameters: they show the wheel turning
                j = k * (RING // 2) // spokes
                out.append(Piece("line", self.world(frame, ring[[j, j + RING // 2]], where),
                                 {**style, "width": 0.8}, "spoke"))
            return out
        if "sphere" in s or "ellipsoid" in s:
            if d != 3:
                raise DrawingError(f"drawing {where}: spheres and ellipsoids are 3-D shapes")
            body = s.get("sphere") or s["ellipsoid"]
            axes = [body["radius"]] * 3 if "sphere" in s else list(body["semi_axes"])
            center = np.asarray(body.get("center", [0, 0, 0]), dtype=float)
            out = []
            for k, normal in enumerate(np.eye(3)):  # the three principal sections
                unit = _ring(1.0, normal, [0, 0, 0])
                colour = ["tab:red", "tab:green", "tab:blue"][k]
                out.append(Piece("line", self.world(frame, center + unit * axes, where),
                                 {**style, "color": style.get("color", colour)}, "sphere" if "sphere" in s else "ellipsoid"))
            return out
        raise DrawingError(f"drawing {where}: no shape kind (polygon, line, circle, sphere, ellipsoid, point, link)")

    # ---- traces ----------------------------------------------------------------------------
    def _trace(self, t, where):
        if "contact" in t:
            self.frame(t["contact"], f"{where}/contact")
            low = self._lowest(t["contact"], where) if self.dim == 3 else None
            if low is None:
                raise DrawingError(f"drawing {where}/contact: frame {t['contact']!r} has no round shape in 3-D")
            return low
        return self.world(t.get("frame", "world"), t.get("point", [0.0] * self.dim), where)[:, 0]


def _numeric(values):
    try:
        np.asarray(values, dtype=float)
        return True
    except (TypeError, ValueError):
        return False
