#pragma once
// A hand-written RK4 of the rolling disk's closed-form equations (issue 32 item 1: the baseline of
// the M(q) systems), from plugins/systems/rolling_disk/README.md, "Equations of motion", for the
// default uniform disk (m = R = g = 1, I_d = 1/4, I_a = 1/2). The constraint is eliminated: with
// ω₂ = ψ̇ + φ̇ sin θ the spin about the axis,
//   θ:  (mR² + I_d) θ̈ = (mR² + I_a − I_d) φ̇² sinθ cosθ + (mR² + I_a) φ̇ψ̇ cosθ + m g R sinθ
//   ψ:  (I_a + mR²) ω̇₂ = −mR² θ̇ φ̇ cosθ               (e1·a_G = R(ω̇₂ + θ̇ φ̇ cosθ))
//   φ:  d/dt[(mR² + I_a) sinθ ω₂ + I_d cos²θ φ̇] = mR² cosθ θ̇ ψ̇, solved for φ̈
//   ψ̈ = ω̇₂ − φ̈ sinθ − φ̇ θ̇ cosθ,   ẋ = R cosφ ψ̇,  ẏ = R sinφ ψ̇.
// State y = (x, y, φ, θ, ψ, φ̇, θ̇, ψ̇): fixed-size Eigen, no virtual call, every formula inlined.
#include <Eigen/Core>
#include <cmath>

namespace dalembert::bench {

struct HandDiskRK4 {
  using Vec8 = Eigen::Matrix<double, 8, 1>;
  static constexpr double m = 1.0, R = 1.0, g = 1.0, Id = 0.25, Ia = 0.5, mR2 = m * R * R;
  Vec8 y;

  static Vec8 rate(const Vec8& y) {
    const double phi = y[2], s = std::sin(y[3]), c = std::cos(y[3]);
    const double pd = y[5], td = y[6], sd = y[7], w2 = sd + pd * s;
    const double w2dot = -mR2 * td * pd * c / (Ia + mR2);
    const double thdd = ((mR2 + Ia - Id) * pd * pd * s * c + (mR2 + Ia) * pd * sd * c + m * g * R * s) / (mR2 + Id);
    const double phdd = (mR2 * c * td * sd - (mR2 + Ia) * (c * td * w2 + s * w2dot) + 2.0 * Id * c * s * td * pd) / (Id * c * c);
    Vec8 d;
    d << R * std::cos(phi) * sd, R * std::sin(phi) * sd, pd, td, sd, phdd, thdd, w2dot - phdd * s - pd * c * td;
    return d;
  }
  void step(double h) {
    const Vec8 k1 = rate(y), k2 = rate(y + 0.5 * h * k1), k3 = rate(y + 0.5 * h * k2), k4 = rate(y + h * k3);
    y += (h / 6.0) * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
  }
  /// From the framework's state q = (x, y, φ, θ, ψ), v = q̇.
  void set(const double* q, const double* v) { y << q[0], q[1], q[2], q[3], q[4], v[2], v[3], v[4]; }
};

}  // namespace dalembert::bench
