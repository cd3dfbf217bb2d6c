#!/usr/bin/env python3
"""Reference reversal times for the rattleback studies, from a formulation independent of the
plugin: the Newton-Euler equations of a rigid body rolling without slipping on a plane, in body
axes (the standard vector form, e.g. Garcia & Hubbard, Proc. R. Soc. A 418 (1988) 165):

    m dv_G/dt = F - m g gamma,   I dOmega/dt + Omega x I Omega = r x F,   v_G = -Omega x r,

r = P(gamma) - c from G to the contact, P = -D gamma / sqrt(gamma^T D gamma), D = diag(a^2, b^2, c^2);
F eliminated:
    (I - m [r]x^2) dOmega/dt = -Omega x I Omega + m r x (g gamma - Omega x dr/dt - Omega x (Omega x r)),
dr/dt = dP/dgamma (gamma x Omega); attitude a quaternion renormalised in the right-hand side (no
holonomic constraint, no Lagrangian). SciPy DOP853, rtol 1e-10..1e-11.

  newton_euler_reference.py            Kane & Levinson's start: the spin's sign changes up to T = 60
  newton_euler_reference.py --sweep    the sweep's start (identity, Omega = (0.1, 0.1, s)): first change
Prints what the studies' claims quote (reversal_rattleback.json, sweep_spin_rattleback.json).
"""
import sys

import numpy as np
from scipy.integrate import solve_ivp

a, b, c = 0.2, 0.03, 0.02
m, g = 1.0, 9.81
D = np.diag([a * a, b * b, c * c])
OFFSET = np.array([0.0, 0.0, -0.01])
I = np.array([[2e-4, -2e-5, 0], [-2e-5, 1.6e-3, 0], [0, 0, 1.7e-3]])  # Kane & Levinson 1982, D = I12


def G_of(p):
    w, x, y, z = p
    return np.array([[-x, w, z, -y], [-y, -z, w, x], [-z, y, -x, w]])


def R_of(p):
    w, x, y, z = p
    return np.array([[w*w + x*x - y*y - z*z, 2*(x*y - w*z), 2*(x*z + w*y)],
                     [2*(x*y + w*z), w*w - x*x + y*y - z*z, 2*(y*z - w*x)],
                     [2*(x*z - w*y), 2*(y*z + w*x), w*w - x*x - y*y + z*z]])


def hat(v):
    return np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])


def rhs(t, X):
    p = X[2:6] / np.linalg.norm(X[2:6])
    W = X[6:9]
    R = R_of(p)
    gam = R[2]
    s = np.sqrt(gam @ D @ gam)
    r = -D @ gam / s - OFFSET
    rdot = (-D / s + np.outer(D @ gam, D @ gam) / s**3) @ np.cross(gam, W)
    A = I - m * hat(r) @ hat(r)
    Wd = np.linalg.solve(A, -np.cross(W, I @ W) + m * np.cross(r, g * gam - np.cross(W, rdot) - np.cross(W, np.cross(W, r))))
    vG = R @ (-np.cross(W, r))
    return np.concatenate([vG[:2], 0.5 * G_of(p).T @ W, Wd])


def spin(t, X):
    p = X[2:6] / np.linalg.norm(X[2:6])
    return X[6:9] @ R_of(p)[2]


def tilted(roll, pitch):
    """R = R_y(pitch) R_x(roll) (rattleback_model.hpp)."""
    cx, sx, cy, sy = np.cos(roll / 2), np.sin(roll / 2), np.cos(pitch / 2), np.sin(pitch / 2)
    return np.array([cx * cy, sx * cy, cx * sy, -sx * sy])


def sign_changes(X0, T, terminal):
    spin.terminal = terminal
    sol = solve_ivp(rhs, (0, T), X0, method="DOP853", rtol=1e-11, atol=1e-13, events=spin)
    return sol.t_events[0]


if __name__ == "__main__":
    if "--sweep" in sys.argv:
        for s in [-10, -8, -6, -5, -4, -3, -2, -1, 1, 2, 3, 4, 5, 6, 8, 10]:
            X0 = np.concatenate([[0, 0], [1, 0, 0, 0], [0.1, 0.1, s]])
            t = sign_changes(X0, 20.0, True)
            print(f"spin {s:+d}: first sign change at {t[0]:.4f} s" if len(t) else f"spin {s:+d}: none before 20 s")
    else:
        p = tilted(0.5 * np.pi / 180, 0.5 * np.pi / 180)
        X0 = np.concatenate([[0, 0], p, -5 * R_of(p)[2]])
        print("spin sign changes (Kane & Levinson's start):", np.round(sign_changes(X0, 60.0, False), 4))
