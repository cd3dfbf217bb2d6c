#pragma once
// SE(3) helpers beside SE(2): a pose g = (R, x) acting as y ↦ R y + x, composition, inverse,
// adjoint. Rigid bodies of spec 003 live on SE(3)ⁿ with (x_i, R_i) and spatial angular velocity.
#include <dalembert/math/so3.hpp>

namespace dalembert::se3 {

using so3::Mat3;
using so3::Vec3;

struct Pose {
  Mat3 R = Mat3::Identity();
  Vec3 x = Vec3::Zero();

  Vec3 act(const Vec3& y) const { return R * y + x; }
  /// (this ∘ o)(y) = this(o(y)).
  Pose operator*(const Pose& o) const { return {R * o.R, R * o.x + x}; }
  Pose inverse() const { return {R.transpose(), -(R.transpose() * x)}; }
};

/// Ad_g acting on a spatial twist (ω, v): (R ω, R v + x × R ω).
inline void adjoint(const Pose& g, const Vec3& w, const Vec3& v, Vec3& w_out, Vec3& v_out) {
  w_out = g.R * w;
  v_out = g.R * v + g.x.cross(w_out);
}

/// exp of a twist (ω, v) in se(3) (left Jacobian of SO(3) for the translation).
inline Pose exp(const Vec3& w, const Vec3& v) {
  const double p2 = w.squaredNorm(), p = std::sqrt(p2);
  double b, c;
  if (p < 1e-4) {
    b = 0.5 - p2 / 24.0;
    c = 1.0 / 6.0 - p2 / 120.0;
  } else {
    b = (1.0 - std::cos(p)) / p2;
    c = (p - std::sin(p)) / (p2 * p);
  }
  const Mat3 S = so3::skew(w);
  const Mat3 V = Mat3::Identity() + b * S + c * S * S;
  return {so3::exp(w), V * v};
}

}  // namespace dalembert::se3
