#pragma once
// A uniform ball on a turntable (issue 30 item 3): the shared rolling-body model
// (dalembert_plugins/rolling_body.hpp: q = (x, y, p), g = |p|² − 1, T, V) for a sphere of radius r with
// I = k m r² 1 about its centre, whose contact point moves with a table turning at Ω(t) about the
// vertical through the origin. No slip: the ball's material point at the contact has the table's
// velocity there, Ω(t) e_z × (x, y, 0) = Ω(−y, x, 0), so the rolling rows v_G + R(Ω_b × d) = 0 of
// the plane become
//   A(q)v + b(t, q) = 0,   b(t, q) = (Ω(t) y, −Ω(t) x)                         (README, eq. (1))
// with Ω(t) = Ω₀ + α t + a sin(ν t) (constant, a ramp or a sinusoid). Generic in the scalar, t too:
// AD gives ∂b/∂q and ∂b/∂t (schemes/fixed_affine_constraint.hpp).
#include <dalembert_plugins/rolling_body.hpp>
#include <dalembert_plugins/rolling_body_validate.hpp>

namespace dalembert::turntable {

struct TableRate {
  double omega = 1.0, rate = 0.0, amplitude = 0.0, frequency = 1.0;  // Ω₀, α, a, ν
  bool constant() const { return rate == 0.0 && amplitude == 0.0; }
  /// Ω(t) = Ω₀ + α t + a sin(ν t), generic in the scalar of t.
  template <class S>
  S at(const S& t) const {
    using std::sin;
    const S phase = nested::constant<S>(frequency) * t;
    const S wave = sin(phase);
    const S linear = nested::constant<S>(omega) + nested::constant<S>(rate) * t;
    return linear + nested::constant<S>(amplitude) * wave;
  }
};

struct BallOnTurntableModel : rolling::RollingBodyModel {
  TableRate table;
  double k = 0.4;  // I = k m r²: 2/5 for a uniform ball

  /// b(t, q) = (Ω(t) y, −Ω(t) x): minus the table's velocity under the ball (README eq. (1)).
  void affine_constraint(const auto& t, const auto& q, auto&& b) const {
    using S = scalar_t<decltype(q)>;
    const S w = table.at(S(t));
    b[0] = w * S(q[kY]);
    b[1] = -w * S(q[kX]);
  }
};

/// The model of a ball of radius r, mass m, I = k m r² (gravity acts through the centre: V = m g r).
inline BallOnTurntableModel ball_on_turntable(double r, double m, double k, const TableRate& table) {
  BallOnTurntableModel b;
  static_cast<rolling::RollingBodyModel&>(b) =
      rolling::rolling_body({r, r, r}, m, 1.0, Eigen::Matrix3d::Identity() * (k * m * r * r), Eigen::Vector3d::Zero());
  b.table = table;
  b.k = k;
  return b;
}

}  // namespace dalembert::turntable
