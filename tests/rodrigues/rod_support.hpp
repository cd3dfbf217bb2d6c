#pragma once
// Helpers for the seed-003 tests: the pendulum and torus set-ups of spec 003 §4 and a step loop.
#include <cmath>
#include <dalembert/core/rigid_body_model.hpp>
#include <dalembert/host/registry.hpp>
#include <numbers>
#include <vector>

#include "support.hpp"

namespace dalembert::test {

/// Spec §4a IC (42): α(0) = 2 tan(3π/8) e2, i.e. q = (cos 3π/8, 0, sin 3π/8, 0); Ω(0) = (0.2, 0, 0.2).
inline State pendulum_ic() {
  const double a = 3.0 * std::numbers::pi / 8.0;
  return make_state({std::cos(a), 0.0, std::sin(a), 0.0}, {0.2, 0.0, 0.2});
}

/// Torus IC (spec §4b): the reference configuration, R = I, v = (−v0, 0, 0), Ω = 0.
inline State torus_ic(const System& sys, const RigidBodyModel& m, const std::vector<Vec3>& x0, double v0 = 1.0) {
  State s;
  const int n = m.bodies();
  s.q.resize(7 * n);
  s.v.resize(6 * n);
  for (int i = 0; i < n; ++i)
    write_body(m, s, i, x0[static_cast<std::size_t>(i)], Eigen::Quaterniond::Identity(), Vec3(-v0, 0, 0), Vec3::Zero());
  (void)sys;
  return s;
}

/// Ring reference positions of spec §4b (same formula as the plugin).
inline std::vector<Vec3> ring_positions(int N = 80, double Dt = 3.0, double gap = 0.1, double tilt_deg = 0.0) {
  const double pi = std::numbers::pi, Dp = Dt * std::sin(pi / N), xc = Dt / 2 + Dp / 2 + gap;
  const Mat3 Ry = Eigen::AngleAxisd(tilt_deg * pi / 180.0, Vec3::UnitY()).toRotationMatrix();
  std::vector<Vec3> x;
  for (int i = 0; i < N; ++i) {
    const double a = 2 * pi * i / N;
    Vec3 r(Dt / 2 * std::cos(a), Dt / 2 * std::sin(a), 0.0);
    if (tilt_deg != 0.0) r = Ry * r;
    x.push_back(Vec3(xc, 0, 0) + r);
  }
  return x;
}

/// Least-squares slope of log e against log h.
inline double fit_slope(const std::vector<double>& h, const std::vector<double>& e) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const double n = static_cast<double>(h.size());
  for (std::size_t k = 0; k < h.size(); ++k) {
    const double x = std::log(h[k]), y = std::log(e[k]);
    sx += x, sy += y, sxx += x * x, sxy += x * y;
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

inline const RigidBodyModel& rigid(const System& s) { return dynamic_cast<const RigidBodyModel&>(s); }

/// Column index of a diagnostic.
inline std::size_t diag_index(const System& s, const std::string& name) {
  std::vector<std::string> n;
  s.diagnostic_names(n);
  for (std::size_t k = 0; k < n.size(); ++k)
    if (n[k] == name) return k;
  throw std::runtime_error("no diagnostic " + name);
}

}  // namespace dalembert::test
