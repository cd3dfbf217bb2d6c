#pragma once
// The planar pendulum's exact solution in closed form (Jacobi elliptic functions), for the
// cartesian_pendulum system (README.md derives it). Sources: Abramowitz & Stegun, Handbook of
// Mathematical Functions (1964), 16.4 (sn, cn, dn, am by the arithmetic-geometric mean) and 17.2;
// B. C. Carlson, Numer. Math. 33 (1979) 1–16 (R_F, for F(φ|m)); the pendulum: Lawden, Elliptic
// Functions and Applications (1989), §5.2.
#include <algorithm>
#include <cmath>
#include <numbers>

namespace dalembert::pendulum {

/// Jacobi's amplitude am(u|m) and sn, cn, dn, 0 ≤ m < 1 (A&S 16.4.3: descending Landen by the AGM).
struct Jacobi {
  double am, sn, cn, dn;
};

inline Jacobi jacobi(double u, double m) {
  if (m == 0.0) return {u, std::sin(u), std::cos(u), 1.0};
  constexpr int kMax = 16;
  double a[kMax + 1], c[kMax + 1];
  a[0] = 1.0;
  double b = std::sqrt(1.0 - m);
  c[0] = std::sqrt(m);
  int n = 0;
  while (n < kMax && std::abs(c[n]) > 1e-17) {  // quadratic convergence: ≤ 6 steps for m < 1 − 1e-12
    const double an = 0.5 * (a[n] + b);
    c[n + 1] = 0.5 * (a[n] - b);
    b = std::sqrt(a[n] * b);
    a[++n] = an;
  }
  double phi = std::ldexp(a[n] * u, n);  // φ_N = 2^N a_N u
  double phi_next = phi;
  for (int j = n; j >= 1; --j) {  // φ_{j−1} = (φ_j + asin((c_j/a_j) sin φ_j)) / 2
    phi_next = phi;
    phi = 0.5 * (phi + std::asin(c[j] / a[j] * std::sin(phi)));
  }
  const double s = std::sin(phi), co = std::cos(phi);
  const double dn = n >= 1 ? co / std::cos(phi_next - phi) : 1.0;
  return {phi, s, co, dn};
}

/// Carlson's R_F(x, y, z) (Carlson 1979, Algorithm 1), x, y, z ≥ 0, at most one zero.
inline double carlson_rf(double x, double y, double z) {
  for (int it = 0; it < 100; ++it) {
    const double mu = (x + y + z) / 3.0;
    const double dx = 1.0 - x / mu, dy = 1.0 - y / mu, dz = 1.0 - z / mu;
    const double e = std::max({std::abs(dx), std::abs(dy), std::abs(dz)});
    if (e < 1e-4) {  // the fifth-order series: error ~ e^6 / 4 < 1e-25
      const double e2 = dx * dy - dz * dz, e3 = dx * dy * dz;
      return (1.0 - e2 / 10.0 + e3 / 14.0 + e2 * e2 / 24.0 - 3.0 * e2 * e3 / 44.0) / std::sqrt(mu);
    }
    const double sx = std::sqrt(x), sy = std::sqrt(y), sz = std::sqrt(z);
    const double lambda = sx * (sy + sz) + sy * sz;
    x = 0.25 * (x + lambda);
    y = 0.25 * (y + lambda);
    z = 0.25 * (z + lambda);
  }
  return std::nan("");
}

/// K(m), the complete elliptic integral of the first kind (A&S 17.3.1).
inline double complete_k(double m) { return carlson_rf(0.0, 1.0 - m, 1.0); }

/// F(φ|m) = ∫_0^φ dθ/√(1 − m sin²θ) for any real φ (A&S 17.2.6 for |φ| ≤ π/2, with
/// F(φ + jπ) = F(φ) + 2jK(m) beyond), 0 ≤ m < 1.
inline double incomplete_f(double phi, double m) {
  const double j = std::round(phi / std::numbers::pi);
  const double p = phi - j * std::numbers::pi;  // in [−π/2, π/2]
  const double s = std::sin(p), c = std::cos(p);
  return s * carlson_rf(c * c, 1.0 - m * s * s, 1.0) + 2.0 * j * complete_k(m);
}

/// θ(t), θ̇(t) of θ̈ = −ω² sin θ from θ(0) = θ0, θ̇(0) = w0 (Lawden §5.2). With
/// k² = sin²(θ0/2) + w0²/(4ω²) (the energy: k² < 1 libration, k² > 1 rotation):
///   libration  sin(θ/2) = k sn(ωt + u0 | k²),  θ̇ = 2kω cn(ωt + u0 | k²),
///              sn(u0) = sin(θ0/2)/k, cn(u0) of the sign of w0;
///   rotation   θ/2 = am(kωt + u0 | 1/k²),  θ̇ = 2kω dn(kωt + u0 | 1/k²),  u0 = F(θ0/2 | 1/k²)
///              (for w0 > 0; w0 < 0 by the symmetry θ → −θ).
/// Not at the separatrix k² = 1 (the state is then refused by the caller: no periodic closed form).
inline void angle_at(double theta0, double w0, double omega, double t, double& theta, double& w) {
  const double s0 = std::sin(0.5 * theta0);
  const double k2 = s0 * s0 + w0 * w0 / (4.0 * omega * omega);
  if (k2 == 0.0) {  // at rest at the bottom
    theta = theta0, w = 0.0;
    return;
  }
  const double k = std::sqrt(k2);
  if (k2 < 1.0) {
    // θ0 may carry whole turns (the angle is defined mod 2π): solve from its principal value θp ∈
    // [−π, π] and keep the turns. In libration |θp| < π, so cos(θp/2) > 0 and d/dt sin(θ/2) =
    // ½cos(θ/2)θ̇ has the sign of w0. u0: sn(u0) = sin(θp/2)/k; F gives the branch with cn ≥ 0,
    // 2K − F the one with cn < 0.
    const double turns = 2.0 * std::numbers::pi * std::round(theta0 / (2.0 * std::numbers::pi));
    const double ratio = std::max(-1.0, std::min(1.0, std::sin(0.5 * (theta0 - turns)) / k));
    double u0 = incomplete_f(std::asin(ratio), k2);
    if (w0 < 0.0) u0 = 2.0 * complete_k(k2) - u0;
    const Jacobi j = jacobi(omega * t + u0, k2);
    theta = turns + 2.0 * std::asin(std::max(-1.0, std::min(1.0, k * j.sn)));
    w = 2.0 * k * omega * j.cn;
    return;
  }
  const double sign = w0 < 0.0 ? -1.0 : 1.0;  // θ → −θ maps a clockwise rotation onto an anticlockwise one
  const double m = 1.0 / k2;
  const double u0 = incomplete_f(0.5 * sign * theta0, m);
  const Jacobi j = jacobi(k * omega * t + u0, m);
  theta = sign * 2.0 * j.am;
  w = sign * 2.0 * k * omega * j.dn;
}

}  // namespace dalembert::pendulum
