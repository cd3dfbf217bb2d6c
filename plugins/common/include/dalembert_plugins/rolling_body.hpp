#pragma once
// A rigid body with an ellipsoidal surface rolling without slipping on a horizontal plane, in every
// attitude (issue 29 item 1): the L-and-A model shared by `chaplygin_ball` (a = b = c: a sphere,
// centre of mass anywhere) and `rattleback` (an ellipsoid, inertia tensor with products).
//
//   q = (x, y, p0, p1, p2, p3): (x, y) the centre of mass G on the horizontal plane, p a unit
//   quaternion (R(p) body → space, quaternion_kinematics.hpp); v = q̇; g(q) = |p|² − 1 = 0.
//   γ = Rᵀe_z the vertical in body axes, Ω = 2G(p)ṗ the body angular velocity.
//   P(γ) the contact point and s(γ) the height of the geometric centre (ellipsoid_contact.hpp),
//   c the centre of mass from the geometric centre (body axes), d = P − c (from G to the contact).
//   Height of G: h = s(γ) + γ·c, so ḣ = ∂h/∂γ·γ̇ = (c − P)·(γ × Ω) = Ω·(γ × d).
//   T = ½m(ẋ² + ẏ² + ḣ²) + ½ΩᵀIΩ + ½μ(p·ṗ)²
//     = ½m(ẋ² + ẏ²) + 2ṗᵀGᵀ(I + m w wᵀ)G ṗ + ½μ(p·ṗ)²,  w = γ × d,
//   I the inertia tensor about G in body axes. The last term vanishes on the constraint
//   (p·ṗ = ½ d/dt |p|² = 0) and changes no motion on it (its force is along ∇g = 2p, taken up by
//   g's multiplier); it makes M(q) positive definite in the radial direction that Ω does not see
//   (G p = 0). μ is the body's largest moment scale: tr I + m max(a, b, c)².
//   V = m g h.
//   Rolling: the material point at P is at rest, v_G + R(Ω × d) = 0; its vertical component is
//   ḣ = Ω·(γ × d) above (the holonomic relation), the two horizontal ones are the constraints:
//     ẋ + e_xᵀR(Ω × d) = 0,  ẏ + e_yᵀR(Ω × d) = 0,   Ω = 2G(p)ṗ.
// Sources: Borisov & Mamaev, Regul. Chaotic Dyn. 7 (2002) 177 (Chaplygin's ball and the rolling
// body's equations in γ, Ω); Kane & Levinson, J. Appl. Mech. 49 (1982) 641 (the rattleback);
// Bloch, Nonholonomic Mechanics and Control, 2nd ed. (2015), §1.12 and §8.
// Every function is generic in the scalar; AD supplies ∂A/∂q, the Coriolis terms, ∇V and ∂g/∂q.
#include <Eigen/Core>
#include <array>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/unit_quaternions.hpp>
#include <dalembert/math/ellipsoid_contact.hpp>
#include <dalembert/math/forward_derivatives.hpp>
#include <dalembert/math/nested_duals.hpp>
#include <dalembert/math/quaternion_kinematics.hpp>
#include <string>

namespace dalembert::rolling {

template <class S>
using Vec3 = Eigen::Matrix<S, 3, 1>;
template <class S>
using Mat3 = Eigen::Matrix<S, 3, 3>;

struct RollingBodyModel {
  static constexpr int dof = 6, constraints = 2, holonomic = 1;
  static constexpr int kX = 0, kY = 1, kP0 = 2;
  /// M, V, g and A depend on the attitude only (translating the body is a symmetry).
  static constexpr std::array<int, 4> mass_coordinates{2, 3, 4, 5};
  static constexpr std::array<int, 4> potential_coordinates{2, 3, 4, 5};

  ellipsoid::Semiaxes shape{1.0, 1.0, 1.0};
  double m = 1.0, gravity = 1.0;
  Eigen::Matrix3d inertia = Eigen::Matrix3d::Identity();  // about G, body axes
  Eigen::Vector3d offset = Eigen::Vector3d::Zero();       // c: G from the geometric centre, body axes
  double mu = 1.0;                                        // the radial regulariser (header)

  /// The geometry at an attitude, generic in the scalar.
  template <class S>
  struct Pose {
    Mat3<S> R;
    Vec3<S> gamma, d;  // the vertical and G → P, body axes
    S height;          // h, the height of G
  };
  template <class S, class Q>
  Pose<S> pose(const Q& q) const {
    const auto p = q.template segment<4>(kP0);
    Pose<S> out;
    out.R = quaternion::rotation<S>(p);
    out.gamma = quaternion::vertical_in_body<S>(p);
    const Vec3<S> c = lifted<S>(offset);
    out.d = ellipsoid::contact_point(shape, out.gamma) - c;
    out.height = ellipsoid::support_height(shape, out.gamma) + out.gamma.dot(c);
    return out;
  }

  void mass(const auto& q, auto&& M) const {
    using S = scalar_t<decltype(q)>;
    const Pose<S> ps = pose<S>(q);
    const auto p = q.template segment<4>(kP0);
    const Eigen::Matrix<S, 3, 4> G = quaternion::angular_velocity_map<S>(p);
    const Vec3<S> w = ps.gamma.cross(ps.d);
    const Mat3<S> J = lifted<S>(inertia) + nested::constant<S>(m) * w * w.transpose();
    Eigen::Matrix<S, 4, 1> pv;  // (not pv(S(p[0]), …): C++ would read a function declaration)
    for (int i = 0; i < 4; ++i) pv[i] = S(p[i]);
    M.setZero();
    M(0, 0) = nested::constant<S>(m);
    M(1, 1) = nested::constant<S>(m);
    M.template block<4, 4>(kP0, kP0) = nested::constant<S>(4.0) * G.transpose() * J * G + nested::constant<S>(mu) * pv * pv.transpose();
  }

  auto potential(const auto& q) const -> scalar_t<decltype(q)> {
    using S = scalar_t<decltype(q)>;
    return nested::constant<S>(m * gravity) * pose<S>(q).height;
  }

  void holonomic_constraint(const auto& q, auto&& g) const {
    using S = scalar_t<decltype(q)>;
    const S p0 = S(q[2]), p1 = S(q[3]), p2 = S(q[4]), p3 = S(q[5]);
    g[0] = p0 * p0 + p1 * p1 + p2 * p2 + p3 * p3 - nested::constant<S>(1.0);
  }

  /// Rows x, y of v_G + R(Ω × d) = 0; the column of ṗ_j is e_iᵀR(2G_j × d).
  void constraint_matrix(const auto& q, auto&& A) const {
    using S = scalar_t<decltype(q)>;
    const Pose<S> ps = pose<S>(q);
    const Eigen::Matrix<S, 3, 4> G = quaternion::angular_velocity_map<S>(q.template segment<4>(kP0));
    A.setZero();
    A(0, 0) = nested::constant<S>(1.0);
    A(1, 1) = nested::constant<S>(1.0);
    for (int j = 0; j < 4; ++j) {
      const Vec3<S> u = ps.R * (nested::constant<S>(2.0) * G.col(j)).cross(ps.d);
      A(0, kP0 + j) = u[0];
      A(1, kP0 + j) = u[1];
    }
  }

  /// A fixed-size double matrix lifted into the scalar S entry by entry.
  template <class S, int R, int C>
  static Eigen::Matrix<S, R, C> lifted(const Eigen::Matrix<double, R, C>& x) {
    Eigen::Matrix<S, R, C> out;
    for (int i = 0; i < R; ++i)
      for (int j = 0; j < C; ++j) out(i, j) = nested::constant<S>(x(i, j));
    return out;
  }
};

/// What a system on this model declares besides it: p = q[2..5] is a unit quaternion (rkmk4 moves it
/// on the group, core/unit_quaternions.hpp).
using UnitAttitude = UnitQuaternionsAt<RollingBodyModel::kP0>;

}  // namespace dalembert::rolling
