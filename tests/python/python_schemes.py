"""Integrators written in Python, for the tests of dalembert.register_integrator (issue 31 item 2).

Each is a textbook explicit Runge-Kutta method on the constrained field the model gives Python,
q' = v, v' = System.f(t, q, v): the same schemes as the C++ plugins rk2 (explicit midpoint) and
rk4, so their numbers can be compared with the plugins' (the same field, the same tableau).
"""
import dalembert


class TwoStage:
    """Two-stage explicit Runge-Kutta with c2 = c (c = 1/2: the explicit midpoint rule; c = 1: Heun)."""
    order = 2
    parameters = {"c": 0.5}

    def __init__(self, c):
        if c == 0:
            raise ValueError("c = 0 is not a second-order method")
        self.c = c

    def bind(self, system):
        self.f = system.f

    def step(self, s, h):
        t, q, v = s.t, s.q, s.v
        c = self.c
        a1 = self.f(t, q, v)
        q2, v2 = q + c * h * v, v + c * h * a1
        a2 = self.f(t + c * h, q2, v2)
        b2 = 1.0 / (2.0 * c)
        b1 = 1.0 - b2
        return q + h * (b1 * v + b2 * v2), v + h * (b1 * a1 + b2 * a2)


class RK4:
    """The classical Runge-Kutta method of order 4."""
    order = 4

    def bind(self, system):
        self.system = system

    def step(self, s, h):
        f, t, q, v = self.system.f, s.t, s.q, s.v
        k1q, k1v = v, f(t, q, v)
        k2q, k2v = v + 0.5 * h * k1v, f(t + 0.5 * h, q + 0.5 * h * k1q, v + 0.5 * h * k1v)
        k3q, k3v = v + 0.5 * h * k2v, f(t + 0.5 * h, q + 0.5 * h * k2q, v + 0.5 * h * k2v)
        k4q, k4v = v + h * k3v, f(t + h, q + h * k3q, v + h * k3v)
        return (q + h / 6 * (k1q + 2 * k2q + 2 * k3q + k4q),
                v + h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v))


class FailsAbove:
    """The explicit midpoint rule that refuses steps larger than h_max (dalembert.StepFailure)."""
    order = 2
    parameters = {"h_max": 0.1}

    def __init__(self, h_max):
        self.h_max = h_max
        self.inner = TwoStage(0.5)

    def bind(self, system):
        self.inner.bind(system)

    def step(self, s, h):
        if abs(h) > self.h_max:
            raise dalembert.StepFailure(f"h = {h} is above h_max = {self.h_max}")
        return self.inner.step(s, h)


class ReturnsNothing:
    """A mistake: step returns None."""
    order = 1

    def step(self, s, h):
        return None


class KeepsTheSystem:
    """Keeps the system it was lent after the run (it must then refuse to be used)."""
    order = 2
    kept = []

    def bind(self, system):
        KeepsTheSystem.kept.append(system)
        self.inner = TwoStage(0.5)
        self.inner.bind(system)

    def step(self, s, h):
        return self.inner.step(s, h)
