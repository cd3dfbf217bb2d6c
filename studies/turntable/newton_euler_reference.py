#!/usr/bin/env python3
"""Reference values for the turntable studies, from a formulation independent of the plugin: the
Newton-Euler equations of a ball (radius r, mass m, I = k m r^2) on a table turning at Omega(t), in the
fixed frame, with the friction F at the contact eliminated by the derivative of the no-slip condition
(no Lagrangian, no quaternion, no constraint matrix):

    m a = F,   I dw/dt = (-r e_z) x F = r (F_y, -F_x, 0),
    no slip:   v_x - r w_y + Omega y = 0,   v_y + r w_x - Omega x = 0,
    d/dt:      a_x - r dw_y/dt + Omega' y + Omega v_y = 0  =>  F_x = -(Omega' y + Omega v_y) / (1/m + r^2/I),
               a_y + r dw_x/dt - Omega' x - Omega v_x = 0  =>  F_y =  (Omega' x + Omega v_x) / (1/m + r^2/I).

State (x, y, v_x, v_y, w_x, w_y, w_z), SciPy DOP853 at rtol = atol = 1e-12. Prints the centre at T of
drift_turntable.json (Omega = 1 + 0.5 sin(0.7 t), off-axis start) and of ramp_turntable.json, which
those studies' claims quote, and the work of the table on the ramp, W = E(T) - E(0).
"""
import numpy as np
from scipy.integrate import solve_ivp

r, m, k = 1.0, 1.0, 0.4
I = k * m * r * r


def newton_euler(omega, omega_dot):
    def f(t, s):
        x, y, vx, vy, wx, wy, wz = s
        W, Wd = omega(t), omega_dot(t)
        Fx = -(Wd * y + W * vy) / (1.0 / m + r * r / I)
        Fy = (Wd * x + W * vx) / (1.0 / m + r * r / I)
        return [vx, vy, Fx / m, Fy / m, r * Fy / I, -r * Fx / I, 0.0]
    return f


def run(omega, omega_dot, x0, v0, wz, T):
    # w_x, w_y from the no-slip condition at t = 0
    wy = (v0[0] + omega(0.0) * x0[1]) / r
    wx = (omega(0.0) * x0[0] - v0[1]) / r
    s0 = [x0[0], x0[1], v0[0], v0[1], wx, wy, wz]
    sol = solve_ivp(newton_euler(omega, omega_dot), (0.0, T), s0, method="DOP853", rtol=1e-12, atol=1e-12)
    return sol.y[:, -1], s0


def energy(s):
    return 0.5 * m * (s[2] ** 2 + s[3] ** 2) + 0.5 * I * (s[4] ** 2 + s[5] ** 2 + s[6] ** 2)


sT, _ = run(lambda t: 1.0 + 0.5 * np.sin(0.7 * t), lambda t: 0.35 * np.cos(0.7 * t), (1.0, 0.0), (0.2, 0.5), 0.3, 30.0)
print(f"drift_turntable: x(30) = {sT[0]!r}, y(30) = {sT[1]!r}")
sT, s0 = run(lambda t: 1.0 + 0.05 * t, lambda t: 0.05, (1.0, 0.0), (0.0, 2.0 / 7.0), 0.5, 20.0)
print(f"ramp_turntable: x(20) = {sT[0]!r}, y(20) = {sT[1]!r}, |z| = {np.hypot(sT[0], sT[1])!r}, "
      f"W = E(20) - E(0) = {energy(sT) - energy(s0)!r} (closed form 3/7 = {3/7!r})")
