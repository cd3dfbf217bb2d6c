#pragma once
// The ball's orbit on a turntable in closed form (README "The orbit"). With κ = k/(1 + k)
// (2/7 for a uniform ball) and z = x + iy the centre in the fixed frame, Newton–Euler and the
// derivative of the no-slip condition give (README eq. (4))
//   z̈ = iκ d/dt(Ω z),   so   c = ż − iκΩ(t) z   is constant for any Ω(t)        (eq. (5))
// and for a constant Ω the centre circles z_c = i c/(κΩ) at the frequency κΩ (eq. (6)). The
// exact solution here is the orbit centred on the table's axis (c = 0), whose attitude is in closed
// form too: the space angular velocity is ω_s(t) = R_z(κΩt) ω_s(0) (eq. (7)), so
//   R(t) = R_z(κΩt) exp(t (ω_s(0) − κΩ e_z)^) R(0),   p(t) = q_z(κΩt) ⊗ exp(t u) ⊗ p(0).
#include <cmath>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/state.hpp>
#include <dalembert/math/quaternion_kinematics.hpp>
#include <string>
#include "turntable_model.hpp"

namespace dalembert::turntable {

using Quaternion = Eigen::Vector4d;  // (w, x, y, z), Hamilton, scalar first

/// a ⊗ b (Hamilton): R(a ⊗ b) = R(a) R(b).
inline Quaternion multiply(const Quaternion& a, const Quaternion& b) {
  const Eigen::Vector3d av = a.tail<3>(), bv = b.tail<3>();
  Quaternion out;
  out[0] = a[0] * b[0] - av.dot(bv);
  out.tail<3>() = a[0] * bv + b[0] * av + av.cross(bv);
  return out;
}

/// exp(θ) as a unit quaternion: the rotation by |θ| about θ/|θ|.
inline Quaternion rotation_quaternion(const Eigen::Vector3d& theta) {
  const double angle = theta.norm();
  Quaternion out;
  out[0] = std::cos(0.5 * angle);
  out.tail<3>() = angle > 0.0 ? Eigen::Vector3d(std::sin(0.5 * angle) / angle * theta) : Eigen::Vector3d::Zero();
  return out;
}

/// The space angular velocity ω_s = R(p) · 2G(p)ṗ of a state.
inline Eigen::Vector3d space_angular_velocity(const State& s) {
  const Quaternion p = s.q.segment<4>(2), pd = s.v.segment<4>(2);
  return quaternion::rotation<double>(p) * (2.0 * quaternion::angular_velocity_map<double>(p) * pd);
}

/// (q, v) with attitude p and space angular velocity ω_s at centre (x, y): ṗ = ½G(p)ᵀR(p)ᵀω_s and
/// (ẋ, ẏ) from the no-slip rows, (ẋ, ẏ) = r(ω_y, −ω_x) + Ω(−y, x) (README eq. (2)).
inline void set_state(const BallOnTurntableModel& b, double t, double x, double y, const Quaternion& p,
                      const Eigen::Vector3d& omega_space, State& s) {
  const double r = b.shape.a, w = b.table.at(t);
  s.t = t;
  s.q.resize(6);
  s.v.resize(6);
  s.q << x, y, p[0], p[1], p[2], p[3];
  s.v[0] = r * omega_space[1] - w * y;
  s.v[1] = -r * omega_space[0] + w * x;
  s.v.segment<4>(2) =
      0.5 * quaternion::angular_velocity_map<double>(p).transpose() * (quaternion::rotation<double>(p).transpose() * omega_space);
}

/// The orbit centred on the axis at radius ρ (phase 0), attitude identity, spin s about the vertical:
/// ż = iκΩz, so ω_s = ((1 − κ)Ωρ/r, 0, s) (eq. (2) with ż = iκΩρ).
inline State centred_orbit(const BallOnTurntableModel& b, double rho, double spin) {
  const double kappa = b.k / (1.0 + b.k), w = b.table.at(0.0);
  State s;
  set_state(b, 0.0, rho, 0.0, Quaternion(1, 0, 0, 0), Eigen::Vector3d((1.0 - kappa) * w * rho / b.shape.a, 0.0, spin), s);
  return s;
}

/// c = ż − iκΩ(t)z (eq. (5)): (Re, Im).
inline Eigen::Vector2d orbit_invariant(const BallOnTurntableModel& b, const State& s) {
  const double kw = b.k / (1.0 + b.k) * b.table.at(s.t);
  return {s.v[0] + kw * s.q[1], s.v[1] - kw * s.q[0]};
}

/// The exact solution from s0 (constant Ω, c = 0; the header).
inline void centred_orbit_at(const BallOnTurntableModel& b, const State& s0, double t, State& out) {
  if (!b.table.constant()) throw Error("ball_on_turntable: an exact solution is known for a constant Omega only");
  const double w = b.k / (1.0 + b.k) * b.table.omega, tau = t - s0.t;
  const Eigen::Vector2d c = orbit_invariant(b, s0);
  const double scale = s0.v.head<2>().norm() + std::abs(w) * s0.q.head<2>().norm();
  if (c.norm() > 1e-10 * (1.0 + scale))
    throw Error("ball_on_turntable: the exact solution is that of an orbit centred on the table's axis (zdot = "
                "i (k/(1+k)) Omega z at t0); this state's orbit has c = (" + std::to_string(c[0]) + ", " +
                std::to_string(c[1]) + ")");
  const double cs = std::cos(w * tau), sn = std::sin(w * tau);
  const Eigen::Vector3d omega0 = space_angular_velocity(s0);
  const Quaternion qz = rotation_quaternion(Eigen::Vector3d(0.0, 0.0, w * tau));
  const Quaternion p = multiply(multiply(qz, rotation_quaternion(tau * (omega0 - Eigen::Vector3d(0, 0, w)))),
                                Quaternion(s0.q.segment<4>(2)));
  const Eigen::Vector3d omega(cs * omega0[0] - sn * omega0[1], sn * omega0[0] + cs * omega0[1], omega0[2]);
  set_state(b, t, cs * s0.q[0] - sn * s0.q[1], sn * s0.q[0] + cs * s0.q[1], p, omega, out);
}

}  // namespace dalembert::turntable
