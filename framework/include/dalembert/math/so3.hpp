#pragma once
// SO(3) helpers (spec 003 §2.1, §2.7): skew/vee, the exponential (Rodrigues' formula), a robust
// logarithm and rotation angle that stay accurate near 0 and near π.
// Convention: R maps body to inertial; Ṙ = R S(ω) (body ω) = S(Ω) R (spatial Ω = R ω).
#include <Eigen/Core>
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>

namespace dalembert::so3 {

using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;

/// S(a) b = a × b (spec §2.1).
inline Mat3 skew(const Vec3& a) {
  Mat3 S;
  S << 0.0, -a.z(), a.y(), a.z(), 0.0, -a.x(), -a.y(), a.x(), 0.0;
  return S;
}

/// hat = skew (the name used by math/se2.hpp).
inline Mat3 hat(const Vec3& a) { return skew(a); }

/// vee(S(a)) = a; for a general matrix, the vee of its skew part times 2: vee(A − Aᵀ)/2 is returned
/// by `vee_skew_part`.
inline Vec3 vee(const Mat3& S) { return Vec3(S(2, 1), S(0, 2), S(1, 0)); }

/// vee(A − Aᵀ) = [A32 − A23, A13 − A31, A21 − A12] (spec §2.4).
inline Vec3 vee_antisym(const Mat3& A) { return Vec3(A(2, 1) - A(1, 2), A(0, 2) - A(2, 0), A(1, 0) - A(0, 1)); }

/// exp(S(θ)) = I + sinφ/φ S + (1 − cosφ)/φ² S², φ = |θ| (series below 1e-4).
inline Mat3 exp(const Vec3& theta) {
  const double p2 = theta.squaredNorm(), p = std::sqrt(p2);
  double a, b;
  if (p < 1e-4) {
    a = 1.0 - p2 / 6.0 + p2 * p2 / 120.0;
    b = 0.5 - p2 / 24.0 + p2 * p2 / 720.0;
  } else {
    a = std::sin(p) / p;
    b = (1.0 - std::cos(p)) / p2;
  }
  const Mat3 S = skew(theta);
  return Mat3::Identity() + a * S + b * S * S;
}

/// Rotation angle φ ∈ [0, π] of R, robust: atan2(|vee(R − Rᵀ)|/2, (tr R − 1)/2) (spec §2.7; not the
/// ill-conditioned arccos of the paper's (48)).
inline double angle(const Mat3& R) {
  return std::atan2(0.5 * vee_antisym(R).norm(), 0.5 * (R.trace() - 1.0));
}

/// log: θ with exp(S(θ)) = R, |θ| ∈ [0, π] (spec §4b item 1): θ = φ/sinφ · vee(R − Rᵀ)/2, and near
/// π the axis from the symmetric part (R + Rᵀ)/2 = cosφ I + (1 − cosφ) n nᵀ, signed by vee(R − Rᵀ).
inline Vec3 log(const Mat3& R) {
  const Vec3 w = 0.5 * vee_antisym(R);  // sinφ n
  const double s = w.norm(), c = 0.5 * (R.trace() - 1.0);
  const double phi = std::atan2(s, c);
  if (phi < 1e-4) return (1.0 + phi * phi / 6.0) * w;  // φ/sinφ series
  if (phi < 3.0) return (phi / s) * w;
  // Near π: n nᵀ = (Rsym − c I)/(1 − c); take the largest column for the axis.
  const Mat3 B = (0.5 * (R + R.transpose()) - c * Mat3::Identity()) / (1.0 - c);
  Eigen::Index k;
  B.diagonal().maxCoeff(&k);
  Vec3 n = B.col(k) / std::sqrt(std::max(B(k, k), 1e-300));
  n.normalize();
  if (n.dot(w) < 0.0) n = -n;
  return phi * n;
}

/// Quaternion (w, v) with w ≥ 0 angle: 2 atan2(|v|, |w|) (spec §2.7).
inline double angle(const Eigen::Quaterniond& q) { return 2.0 * std::atan2(q.vec().norm(), std::abs(q.w())); }

/// Distance of R from SO(3): ‖RᵀR − I‖∞ (group-structure defect).
inline double orthogonality_defect(const Mat3& R) {
  return (R.transpose() * R - Mat3::Identity()).cwiseAbs().maxCoeff();
}

}  // namespace dalembert::so3
