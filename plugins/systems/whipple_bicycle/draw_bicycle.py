#!/usr/bin/env python3
"""Draws the Whipple bicycle of the plugin's README (whipple_bicycle.svg): side view of the reference
configuration q = 0 with the benchmark's geometry, its frames and the points the README names.

Every length comes from the plugin's parameters as `dalembert.describe` gives them (Meijaard et al.
2007, Table 1), and the drawn front contact is compared with the plugin's own diagnostic
(front_contact_x at q = 0) before anything is written, so the figure cannot drift from the model.

  PYTHONPATH=build/python python3 plugins/systems/whipple_bicycle/draw_bicycle.py [OUT.svg]
"""
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import dalembert  # noqa: E402


def parameters():
    return {p["name"]: p["default"] for p in dalembert.describe("whipple_bicycle")["parameters"]}


def model_front_contact_x(p):
    """The plugin's front contact point, ahead of the rear contact, upright and unsteered."""
    s = dalembert.system("whipple_bicycle")
    state = s.state([0.0] * 8, [1.0, 0, 0, 0, 0, 0, -1.0 / p["r_R"], -1.0 / p["r_F"]])
    return s.diagnostics(state)["front_contact_x"]


def arrow(ax, at, d, text, color):
    ax.annotate("", xy=(at[0] + d[0], at[1] + d[1]), xytext=at,
                arrowprops=dict(arrowstyle="->", color=color, lw=1.4))
    ax.text(at[0] + 1.12 * d[0], at[1] + 1.12 * d[1], text, color=color, ha="center", va="center", fontsize=10)


def draw(p, out):
    w, c, lam, rR, rF = p["w"], p["c"], p["lambda"], p["r_R"], p["r_F"]
    # Meijaard's axes: x forward, z down; drawn with height h = -z up.
    P, Q = (0.0, 0.0), (w, 0.0)                 # rear and front contact points
    R_c, F_c = (0.0, rR), (w, rF)               # wheel centres
    S = (w + c, 0.0)                            # where the steer axis meets the ground: trail c
    axis = (-math.sin(lam), math.cos(lam))      # the steer axis, tilted λ back from the vertical
    top = (S[0] + 1.25 * axis[0], S[1] + 1.25 * axis[1])
    B, H = (p["x_B"], -p["z_B"]), (p["x_H"], -p["z_H"])

    fig, ax = plt.subplots(figsize=(7.5, 5.0))
    for centre, r in ((R_c, rR), (F_c, rF)):
        ax.add_patch(plt.Circle(centre, r, fill=False, lw=2, color="0.25"))
        ax.plot(*centre, "o", color="0.25", ms=4)
    ax.plot([-0.45, w + 0.55], [0, 0], color="0.5", lw=1)
    ax.plot([S[0], top[0]], [S[1], top[1]], "--", color="tab:red", lw=1.2)
    # The rear frame B (rear axle to the steer axis) and the fork H (steer axis to the front axle).
    t_axle = (F_c[0] - S[0]) * axis[0] + (F_c[1] - S[1]) * axis[1]
    foot = (S[0] + t_axle * axis[0], S[1] + t_axle * axis[1])       # the front axle's foot on the axis
    head = (S[0] + 1.05 * axis[0], S[1] + 1.05 * axis[1])
    ax.plot([R_c[0], head[0]], [R_c[1], head[1]], color="tab:blue", lw=3)
    ax.plot([R_c[0], B[0]], [R_c[1], B[1]], color="tab:blue", lw=1, ls=":")
    ax.plot([foot[0], head[0]], [foot[1], head[1]], color="tab:green", lw=3)
    ax.plot([foot[0], F_c[0]], [foot[1], F_c[1]], color="tab:green", lw=3)
    for point, name, color in ((B, "B  (rear frame\nand rider)", "tab:blue"), (H, "H  (fork and\nhandlebar)", "tab:green")):
        ax.plot(*point, "o", color=color, ms=9, mec="k")
        ax.text(point[0] + 0.05, point[1] + 0.03, name, color=color, fontsize=9)
    for point, name in ((P, "P"), (Q, "Q")):
        ax.plot(*point, "ks", ms=5)
        ax.text(point[0], point[1] - 0.09, name, ha="center", fontsize=11)
    ax.text(R_c[0] - 0.07, R_c[1] + 0.05, "R", fontsize=10)
    ax.text(F_c[0] + 0.04, F_c[1] + 0.05, "F", fontsize=10)
    # Inertial axes at P: x forward, z down (y into the page).
    arrow(ax, (-0.38, 0.0), (0.28, 0.0), "x", "k")
    arrow(ax, (-0.38, 0.0), (0.0, -0.22), "z", "k")
    ax.text(-0.46, 0.06, "y ⊗", fontsize=10)
    # The steer axis and its angle λ, the wheel base w and the trail c.
    ax.text(top[0] - 0.02, top[1] + 0.04, "steer axis", color="tab:red", fontsize=9, ha="center")
    arc = [(S[0] + 0.45 * math.sin(-a), 0.45 * math.cos(a)) for a in [lam * k / 20 for k in range(21)]]
    ax.plot([a[0] for a in arc], [a[1] for a in arc], color="tab:red", lw=1)
    ax.plot([S[0], S[0]], [0, 0.5], ":", color="tab:red", lw=1)
    ax.text(S[0] - 0.09, 0.5, "λ", color="tab:red", fontsize=11)
    ax.annotate("", xy=(w, -0.17), xytext=(0, -0.17), arrowprops=dict(arrowstyle="<->", color="0.3"))
    ax.text(w / 2, -0.24, f"w = {w:g} m", ha="center", fontsize=9)
    ax.annotate("", xy=(S[0], -0.06), xytext=(w, -0.06), arrowprops=dict(arrowstyle="<->", color="0.3"))
    ax.text(S[0] + 0.03, -0.09, f"c = {c:g} m", fontsize=9)
    ax.set_aspect("equal")
    ax.set_xlim(-0.55, w + 0.75)
    ax.set_ylim(-0.32, 1.45)
    ax.axis("off")
    ax.set_title("Whipple bicycle, reference configuration q = 0 (Meijaard et al. 2007, Table 1)", fontsize=10)
    fig.tight_layout()
    fig.savefig(out, metadata={"Date": None} if out.endswith(".svg") else None)
    return Q


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "whipple_bicycle.svg")
    p = parameters()
    q = draw(p, out)
    model = model_front_contact_x(p)
    if abs(model - q[0]) > 1e-12:
        os.remove(out)
        sys.exit(f"error: the drawn front contact x = {q[0]} is not the model's {model}")
    print(f"wrote {out} (front contact at x = {model} m, as the model has it)")


if __name__ == "__main__":
    main()
