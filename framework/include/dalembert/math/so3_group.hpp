#pragma once
// The rotation group SO(3) as a Lie group for the integrators of seed 001 (GNI, RDP) and for RKMK:
// the same names as math/se2.hpp (hat, ad, ad_star, exp, dexp, dexp_inv, cay, dcay, dcay_inv,
// retract, dtau, dtau_inv, the State-slice adapters), so one template serves both groups.
//
// Conventions: R maps body to space, Ṙ = R hat(ω) (ω = ξ the body angular velocity, left-invariant
// like SE(2)'s g⁻¹ġ). hat(x) y = x × y, ad_x = hat(x) ([x̂, ŷ] = (x × y)^), ad*_x μ = ad_xᵀ μ = μ × x.
// Tangents are right-trivialised as in spec 001 §3.1: Dτ(x)·δ = hat(dτ_x δ) τ(x).
//
// Formulas (θ = |x|, ad³ = −θ² ad, so the SE(2) coefficient functions apply with w = θ):
//   exp(x)    = I + (sinθ/θ) x̂ + ((1−cosθ)/θ²) x̂²                 Rodrigues; Murray–Li–Sastry (1994) eq. 2.14
//   dexp_x    = I + ((1−cosθ)/θ²) x̂ + ((θ−sinθ)/θ³) x̂²             Iserles et al., Acta Numerica 9 (2000), eq. (2.38) (Σ adʲ/(j+1)!)
//   dexp⁻¹_x  = I − ½x̂ + ((1 − (θ/2)cot(θ/2))/θ²) x̂²               ibid. (Σ Bⱼ adʲ/j!); Kobilarov–Marsden (2011) eq. (A.4)
//   cay(x)    = (I − x̂/2)⁻¹(I + x̂/2) = I + 4/(4+θ²) (x̂ + x̂²/2)    Kobilarov–Marsden (2011) eq. (A.6)
//   dcay_x    = 2/(4+θ²) (2I + x̂),  dcay⁻¹_x = I − ½x̂ + ¼ x xᵀ     ibid. eqs. (A.7), (A.8)
// (tests/lie_group/test_so3_group.cpp checks each derivative against central differences.)
//
// State slice: q_g = a unit quaternion (qw, qx, qy, qz), R = R(q_g); v_g = ω (body), so
// body_velocity_at is the identity. compose_at multiplies the quaternion of τ(ξ) on the right and
// renormalises: both retractions give unit quaternions in exact arithmetic (exp: (cos θ/2,
// sin(θ/2) x/θ); cay: (2, x)/√(4+θ²), a rotation by 2 atan(θ/2)), so the renormalisation removes
// round-off only (|δ| ~ 1e-16 per step) and ‖R ᵀR − I‖ stays at round-off over any number of steps.
#include <Eigen/Core>
#include <Eigen/Geometry>
#include <cmath>
#include <dalembert/math/dexp_inverse.hpp>
#include <dalembert/math/lie_coefficients.hpp>
#include <dalembert/math/retraction.hpp>

namespace dalembert {

struct SO3 {
  using Algebra = Eigen::Vector3d;  // ξ = ω (body)
  using Matrix = Eigen::Matrix3d;   // group element or linear map on 𝔤
  static constexpr int dim = 3;

  // ---- algebra -----------------------------------------------------------------------------
  static Matrix hat(const Algebra& x) {
    Matrix m;
    m << 0.0, -x[2], x[1], x[2], 0.0, -x[0], -x[1], x[0], 0.0;
    return m;
  }
  static Algebra vee(const Matrix& m) { return {m(2, 1), m(0, 2), m(1, 0)}; }
  /// [ad_x] = hat(x): ad_x y = x × y.
  static Matrix ad(const Algebra& x) { return hat(x); }
  /// ad*_x μ = [ad_x]ᵀ μ = μ × x.
  static Algebra ad_star(const Algebra& x, const Algebra& mu) { return mu.cross(x); }
  /// Ad_R = R.
  static Matrix Ad(const Matrix& R) { return R; }

  // ---- exponential ---------------------------------------------------------------------------
  static Matrix exp(const Algebra& x) {
    const double t = x.norm();
    const Matrix a = hat(x);
    return Matrix::Identity() + lie_coefficients::sinc(t) * a + lie_coefficients::cosc(t) * a * a;
  }
  static Matrix dexp(const Algebra& x) {
    const double t = x.norm();
    const Matrix a = hat(x);
    return Matrix::Identity() + lie_coefficients::cosc(t) * a + lie_coefficients::sinc3(t) * a * a;
  }
  static Matrix dexp_inv(const Algebra& x) { return dexp_inverse(hat(x), x.norm()); }
  /// The truncations of dexp⁻¹ (spec 001 §3.1, eq. 42), as for SE(2).
  static Matrix dexp_inv(const Algebra& x, DexpInverse which) { return dexp_inverse(hat(x), x.norm(), which); }

  // ---- Cayley map ----------------------------------------------------------------------------
  static Matrix cay(const Algebra& x) {
    const Matrix a = hat(x);
    return Matrix::Identity() + (4.0 / (4.0 + x.squaredNorm())) * (a + 0.5 * a * a);
  }
  static Matrix dcay(const Algebra& x) { return (2.0 / (4.0 + x.squaredNorm())) * (2.0 * Matrix::Identity() + hat(x)); }
  static Matrix dcay_inv(const Algebra& x) { return Matrix::Identity() - 0.5 * hat(x) + 0.25 * x * x.transpose(); }

  // ---- retractions, by name ------------------------------------------------------------------
  static Matrix retract(Retraction r, const Algebra& x) { return r == Retraction::Exp ? exp(x) : cay(x); }
  static Matrix dtau(Retraction r, const Algebra& x) { return r == Retraction::Exp ? dexp(x) : dcay(x); }
  static Matrix dtau_inv(Retraction r, const Algebra& x, DexpInverse which = DexpInverse::Exact) {
    return r == Retraction::Exp ? dexp_inv(x, which) : dcay_inv(x);
  }
  /// The unit quaternion of τ(x).
  static Eigen::Quaterniond retract_quaternion(Retraction r, const Algebra& x) {
    if (r == Retraction::Exp) {
      const double half = 0.5 * x.norm();
      const Algebra v = (0.5 * lie_coefficients::sinc(half)) * x;  // sin(θ/2)/θ · x
      return Eigen::Quaterniond(std::cos(half), v[0], v[1], v[2]);
    }
    const double s = 1.0 / std::sqrt(4.0 + x.squaredNorm());
    return Eigen::Quaterniond(2.0 * s, x[0] * s, x[1] * s, x[2] * s);
  }

  // ---- the group's slice of a State ----------------------------------------------------------
  static constexpr int coordinates = 4;  // (qw, qx, qy, qz)
  static constexpr int velocities = 3;   // ω, body
  template <class Q>
  static Eigen::Quaterniond quaternion_at(const Q& q) {
    return Eigen::Quaterniond(q[0], q[1], q[2], q[3]);
  }
  /// R(q) by the unit-quaternion formula, not renormalised first: a drift of |q| shows in ‖RᵀR − I‖.
  template <class Q>
  static Matrix rotation_at(const Q& q) {
    return quaternion_at(q).toRotationMatrix();
  }
  template <class Q, class V>
  static Algebra body_velocity_at(const Q&, const V& v) {
    return v.template head<3>();
  }
  template <class Q, class V>
  static void coordinate_velocity_at(const Q&, const Algebra& xi, V&& v) {
    v.template head<3>() = xi;
  }
  /// q_g ← q_g ⊗ quaternion(τ(ξ)), renormalised (seed 001 eq. 28: g_{k+1} = g_k τ(hξ_k)).
  template <class Q>
  static void compose_at(Retraction r, const Algebra& xi, Q&& q) {
    Eigen::Quaterniond p = quaternion_at(q) * retract_quaternion(r, xi);
    p.normalize();
    q[0] = p.w();
    q[1] = p.x();
    q[2] = p.y();
    q[3] = p.z();
  }
};

}  // namespace dalembert
