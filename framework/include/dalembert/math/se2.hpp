#pragma once
// The special Euclidean group SE(2) (spec 001 §2.0, §3.1; seed 001 App. A and B), one concept per
// function, fixed-size Eigen types, small-angle series branches. Written as a struct of static
// functions so SO(3)/SE(3) can sit beside it with the same names (SO3::exp, SE3::dexp_inv, ...).
//
// Conventions (spec §2.0):
//   g ↔ (θ, x, y),  g = [[cosθ, −sinθ, x], [sinθ, cosθ, y], [0, 0, 1]]        (App. B eq. 41)
//   ξ = (ω, v, v⊥),  hat(ξ) = [[0, −ω, v], [ω, 0, v⊥], [0, 0, 0]]
//   [ad_ξ] = [[0,0,0], [ξ³,0,−ξ¹], [−ξ², ξ¹, 0]],  ad*_ξ μ = [ad_ξ]ᵀ μ
//   Ad_g = [[1,0,0], [y, cosθ, −sinθ], [−x, sinθ, cosθ]]
//   Tangents are right-trivialised: Dτ(ξ)·δ = dτ_ξ(δ) τ(ξ)                      (spec §3.1)
#include <Eigen/Core>
#include <Eigen/LU>
#include <cmath>
#include <dalembert/math/dexp_inverse.hpp>
#include <dalembert/math/lie_coefficients.hpp>
#include <dalembert/math/retraction.hpp>

namespace dalembert {

struct SE2 {
  using Algebra = Eigen::Vector3d;  // ξ = (ω, v, v⊥)
  using Matrix = Eigen::Matrix3d;   // group element or linear map on 𝔤
  static constexpr int dim = 3;

  // The coefficient functions (spec 001 §3.1) live in math/lie_coefficients.hpp, shared with SO(3).
  static constexpr double small_angle = lie_coefficients::small_angle;
  static double sinc(double w) { return lie_coefficients::sinc(w); }                 ///< sin w / w
  static double cosc(double w) { return lie_coefficients::cosc(w); }                 ///< (1 − cos w)/w²
  static double sinc3(double w) { return lie_coefficients::sinc3(w); }               ///< (w − sin w)/w³
  static double bernoulli_coefficient(double w) { return lie_coefficients::bernoulli_coefficient(w); }

  // ---- group elements ↔ coordinates (App. B eq. 41) -----------------------------------------
  static Matrix from_coordinates(double theta, double x, double y) {
    const double c = std::cos(theta), s = std::sin(theta);
    Matrix g;
    g << c, -s, x, s, c, y, 0, 0, 1;
    return g;
  }
  /// (θ, x, y) of g, θ ∈ (−π, π]. Integrators track θ additively instead (spec §3.1).
  static Eigen::Vector3d to_coordinates(const Matrix& g) { return {std::atan2(g(1, 0), g(0, 0)), g(0, 2), g(1, 2)}; }
  static Matrix inverse(const Matrix& g) {
    Matrix gi = Matrix::Identity();
    gi.topLeftCorner<2, 2>() = g.topLeftCorner<2, 2>().transpose();
    gi.topRightCorner<2, 1>() = -g.topLeftCorner<2, 2>().transpose() * g.topRightCorner<2, 1>();
    return gi;
  }

  // ---- algebra (spec §2.0) ------------------------------------------------------------------
  static Matrix hat(const Algebra& v) {
    Matrix m;
    m << 0, -v[0], v[1], v[0], 0, v[2], 0, 0, 0;
    return m;
  }
  static Algebra vee(const Matrix& m) { return {m(1, 0), m(0, 2), m(1, 2)}; }
  /// [ad_ξ], so that ad_ξ η = vee([hat ξ, hat η]).
  static Matrix ad(const Algebra& v) {
    Matrix m;
    m << 0, 0, 0, v[2], 0, -v[0], -v[1], v[0], 0;
    return m;
  }
  /// ad*_ξ μ = [ad_ξ]ᵀ μ = (ξ³μ₂ − ξ²μ₃, ξ¹μ₃, −ξ¹μ₂).
  static Algebra ad_star(const Algebra& xi, const Algebra& mu) {
    return {xi[2] * mu[1] - xi[1] * mu[2], xi[0] * mu[2], -xi[0] * mu[1]};
  }
  /// Ad_g for g = (θ, x, y).
  static Matrix Ad(double theta, double x, double y) {
    const double c = std::cos(theta), s = std::sin(theta);
    Matrix m;
    m << 1, 0, 0, y, c, -s, -x, s, c;
    return m;
  }
  static Matrix Ad(const Matrix& g) {
    Matrix m;
    m << 1, 0, 0, g(1, 2), g(0, 0), g(0, 1), -g(0, 2), g(1, 0), g(1, 1);
    return m;
  }

  // ---- body ↔ coordinate velocities (spec §2.0) ----------------------------------------------
  /// ξ = J(θ)(θ̇, ẋ, ẏ): ω = θ̇, v = cosθ ẋ + sinθ ẏ, v⊥ = −sinθ ẋ + cosθ ẏ.
  static Matrix body_jacobian(double theta) {
    const double c = std::cos(theta), s = std::sin(theta);
    Matrix m;
    m << 1, 0, 0, 0, c, s, 0, -s, c;
    return m;
  }
  static Algebra body_velocity(double theta, const Eigen::Vector3d& qdot) { return body_jacobian(theta) * qdot; }
  static Eigen::Vector3d coordinate_velocity(double theta, const Algebra& xi) {
    return body_jacobian(theta).transpose() * xi;  // J is orthogonal
  }

  // ---- exponential (App. B) -------------------------------------------------------------------
  static Matrix exp(const Algebra& v) {
    const double w = v[0];
    const double sw = sinc(w), cw = w * cosc(w);  // sin w / w, (1 − cos w)/w
    Matrix g;
    g << std::cos(w), -std::sin(w), v[1] * sw - v[2] * cw,  //
        std::sin(w), std::cos(w), v[1] * cw + v[2] * sw,    //
        0, 0, 1;
    return g;
  }
  /// dexp_v = Σ ad_v^j/(j+1)! = I + ((1−cos w)/w²) ad_v + ((w − sin w)/w³) ad_v²  (ad³ = −w² ad)
  static Matrix dexp(const Algebra& v) {
    const Matrix a = ad(v);
    return Matrix::Identity() + cosc(v[0]) * a + sinc3(v[0]) * a * a;
  }
  /// dexp⁻¹_v = I − ½ad_v + c(w) ad_v²
  static Matrix dexp_inv(const Algebra& v) { return dexp_inverse(ad(v), v[0]); }
  /// The truncations of dexp⁻¹ used by the RDP variants (spec §3.1, eq. 42).
  static Matrix dexp_inv(const Algebra& v, DexpInverse which) { return dexp_inverse(ad(v), v[0], which); }

  // ---- Cayley map (spec §3.1; the paper's diagonal sign is a typo, fixed here) ---------------
  /// cay(v) = (I − v̂/2)⁻¹(I + v̂/2) = (1/(4+w²)) [[4−w², −4w, 4v² − 2wv³], [4w, 4−w², 4v³ + 2wv²], [0,0,4+w²]]
  static Matrix cay(const Algebra& v) {
    const double w = v[0], d = 1.0 / (4.0 + w * w);
    Matrix g;
    g << (4 - w * w) * d, -4 * w * d, (4 * v[1] - 2 * w * v[2]) * d,  //
        4 * w * d, (4 - w * w) * d, (4 * v[2] + 2 * w * v[1]) * d,    //
        0, 0, 1;
    return g;
  }
  /// [dcay_v] = (2/(4+w²)) (2I + ad_v)
  static Matrix dcay(const Algebra& v) { return (2.0 / (4.0 + v[0] * v[0])) * (2.0 * Matrix::Identity() + ad(v)); }
  /// [dcay⁻¹_v] = I − ½ad_v + ¼ v¹ v e₁ᵀ   (eq. 44)
  static Matrix dcay_inv(const Algebra& v) {
    Matrix m = Matrix::Identity() - 0.5 * ad(v);
    m.col(0) += 0.25 * v[0] * v;
    return m;
  }

  // ---- retractions, by name (spec §3.1) --------------------------------------------------------
  static Matrix retract(Retraction r, const Algebra& v) { return r == Retraction::Exp ? exp(v) : cay(v); }
  /// The rotation angle of τ(v): w for exp, 2·atan(w/2) for Cayley. Added to θ (no unwrapping).
  static double retraction_angle(Retraction r, const Algebra& v) {
    return r == Retraction::Exp ? v[0] : 2.0 * std::atan(0.5 * v[0]);
  }
  static Matrix dtau(Retraction r, const Algebra& v) { return r == Retraction::Exp ? dexp(v) : dcay(v); }
  static Matrix dtau_inv(Retraction r, const Algebra& v, DexpInverse which = DexpInverse::Exact) {
    return r == Retraction::Exp ? dexp_inv(v, which) : dcay_inv(v);
  }

  /// g·τ(v) in coordinates: θ advances by the retraction angle, (x, y) by R(θ)·translation(τ(v)).
  static void compose_coordinates(Retraction r, const Algebra& v, double& theta, double& x, double& y) {
    const Matrix t = retract(r, v);
    const double c = std::cos(theta), s = std::sin(theta);
    x += c * t(0, 2) - s * t(1, 2);
    y += s * t(0, 2) + c * t(1, 2);
    theta += retraction_angle(r, v);
  }

  // ---- the group's slice of a State (the interface every group shares, math/so3_group.hpp) --------
  // q holds `coordinates` numbers of g, v holds `velocities` numbers; here (θ, x, y) and (θ̇, ẋ, ẏ).
  static constexpr int coordinates = 3;
  static constexpr int velocities = 3;
  /// ξ = g⁻¹ġ from the slices (q_g, v_g).
  template <class Q, class V>
  static Algebra body_velocity_at(const Q& q, const V& v) {
    return body_velocity(q[0], v.template head<3>());
  }
  /// v_g of ξ at q_g.
  template <class Q, class V>
  static void coordinate_velocity_at(const Q& q, const Algebra& xi, V&& v) {
    v.template head<3>() = coordinate_velocity(q[0], xi);
  }
  /// q_g ← coordinates of g·τ(ξ) (seed 001 eq. 28).
  template <class Q>
  static void compose_at(Retraction r, const Algebra& xi, Q&& q) {
    compose_coordinates(r, xi, q[0], q[1], q[2]);
  }
};

}  // namespace dalembert
