#pragma once
// The Whipple bicycle (issue 28 item 3): four rigid bodies — rear wheel R, rear frame with rider B,
// front frame (fork and handlebar) H, front wheel F — with knife-edge wheels rolling without
// slipping on the horizontal ground. Written only as kinetic energy, potential, holonomic constraint
// and rolling constraints (no hand-written equations of motion); README.md derives every formula.
// Sources: J. P. Meijaard, J. M. Papadopoulos, A. Ruina, A. L. Schwab, Proc. R. Soc. A 463 (2007)
// 1955–1982, Appendix A (the benchmark, its parameters, Table 1); S. Basu-Mandal, A. Chatterjee,
// J. M. Papadopoulos, Proc. R. Soc. A 463 (2007) 1983–2003 (the nonlinear equations, Table 1).
//
// Conventions (those of Meijaard et al. 2007):
//   * the ground frame N: x forward (for zero yaw), y to the right, z DOWN; the ground is z = 0;
//   * q = (x, y, ψ, φ, θ, δ, θ_R, θ_F):
//       x, y   the rear wheel's (geometric) contact point P on the ground,
//       ψ      yaw (heading of the rear frame) about the downward z axis: ψ > 0 turns to the right,
//       φ      roll (lean) about the heading: φ > 0 leans to the right,
//       θ      pitch of the rear frame about its rear axle: θ > 0 lifts the front (nose up),
//       δ      steer about the steering axis, which points downward: δ > 0 turns the front wheel right,
//       θ_R    rear wheel angle relative to the rear frame, about the rear axle (y_B, to the right),
//       θ_F    front wheel angle relative to the front frame, about the front axle (y_H);
//     rolling forward at speed v gives θ̇_R = −v/r_R and θ̇_F = −v/r_F (the wheel's top moves forward);
//   * orientations: rear frame R_B = Rz(ψ) Rx(φ) Ry(θ); front frame R_H = R_B S(δ), S(δ) the rotation
//     by δ about the steering axis s = (sin λ, 0, cos λ) (in B: tilted back by λ from the vertical,
//     pointing down); wheels R_R = R_B Ry(θ_R), R_F = R_H Ry(θ_F);
//   * the reference configuration q = 0 is the benchmark's upright one (Meijaard Table 1 / Fig. 1):
//     origin at P, rear wheel centre (0, 0, −r_R), front wheel centre (w, 0, −r_F), mass centres
//     (x_B, 0, z_B) and (x_H, 0, z_H), steering axis through the ground point (w + c, 0, 0). Inertia
//     tensors are about each mass centre in the N axes of this configuration;
//   * dependent coordinate: θ, fixed by the front wheel touching the ground (holonomic_constraint).
//     At upright (φ = δ = 0) θ = 0 exactly for every parameter set, because the reference
//     configuration has both wheels on the ground (pitch_for() computes it for any φ, δ).
//     x, y, θ_R, θ_F appear in none of M, V, g, A; ψ appears in M and A only, through the ground
//     velocities (turning the whole bicycle about a vertical axis is a symmetry), not in V or g.
//     Independent speeds: φ̇, δ̇, θ̇_R.
//
// Every function below is generic in the scalar (double or a dual number of any depth: see
// framework/include/dalembert/math/forward_derivatives.hpp); constants are lifted into the scalar
// with nested::constant so that even the third derivatives of g (the linearisation) compile.
#include <array>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <stdexcept>
#include <string>

#include <dalembert/core/linearizable.hpp>
#include <dalembert/math/forward_derivatives.hpp>

#include <dalembert/math/nested_duals.hpp>

namespace dalembert::whipple {

template <class S>
using Vec3 = Eigen::Matrix<S, 3, 1>;
template <class S>
using Mat3 = Eigen::Matrix<S, 3, 3>;

/// A value in an error message, as people write it: -1, 0.3, 1e+308 (std::to_string's fixed
/// notation prints 1e308 as 309 digits and -1e-9 as -0.000000).
inline std::string shown(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.10g", x);
  return text;
}

namespace detail {

template <class S>
Vec3<S> cross(const Vec3<S>& a, const Vec3<S>& b) {
  Vec3<S> r;
  r[0] = a[1] * b[2] - a[2] * b[1];
  r[1] = a[2] * b[0] - a[0] * b[2];
  r[2] = a[0] * b[1] - a[1] * b[0];
  return r;
}

template <class S>
S dot(const Vec3<S>& a, const Vec3<S>& b) {
  return S(a[0] * b[0] + a[1] * b[1] + a[2] * b[2]);
}

template <class S>
Vec3<S> vec(const S& a, const S& b, const S& c) {
  Vec3<S> r;
  r << a, b, c;
  return r;
}

template <class S>
Vec3<S> constant_vec(double a, double b, double c) {
  return vec<S>(nested::constant<S>(a), nested::constant<S>(b), nested::constant<S>(c));
}

template <class S>
Vec3<S> zero_vec() {
  return constant_vec<S>(0.0, 0.0, 0.0);
}

/// Matrix times vector, written out (3×3 on any scalar).
template <class S>
Vec3<S> apply(const Mat3<S>& R, const Vec3<S>& v) {
  Vec3<S> r;
  for (int i = 0; i < 3; ++i) r[i] = R(i, 0) * v[0] + R(i, 1) * v[1] + R(i, 2) * v[2];
  return r;
}

template <class S>
Mat3<S> product(const Mat3<S>& A, const Mat3<S>& B) {
  Mat3<S> r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r(i, j) = A(i, 0) * B(0, j) + A(i, 1) * B(1, j) + A(i, 2) * B(2, j);
  return r;
}

/// Elementary rotations (right-handed, active): Rx(a) turns y towards z, Ry(a) turns z towards x,
/// Rz(a) turns x towards y.
template <class S>
Mat3<S> rot_x(const S& c, const S& s) {
  const S o = nested::constant<S>(0.0), l = nested::constant<S>(1.0);
  Mat3<S> R;
  R << l, o, o, o, c, S(-s), o, s, c;
  return R;
}
template <class S>
Mat3<S> rot_y(const S& c, const S& s) {
  const S o = nested::constant<S>(0.0), l = nested::constant<S>(1.0);
  Mat3<S> R;
  R << c, o, s, o, l, o, S(-s), o, c;
  return R;
}
template <class S>
Mat3<S> rot_z(const S& c, const S& s) {
  const S o = nested::constant<S>(0.0), l = nested::constant<S>(1.0);
  Mat3<S> R;
  R << c, S(-s), o, s, c, o, o, o, l;
  return R;
}

}  // namespace detail

/// Positions and orientations of the bodies at q (the ground frame N; see the header comment).
template <class S>
struct WhipplePose {
  Mat3<S> yaw_roll;       // Rz(ψ) Rx(φ): the rear wheel plane's frame (not pitched)
  Mat3<S> rear_frame;     // R_B = Rz(ψ) Rx(φ) Ry(θ)
  Mat3<S> front_frame;    // R_H = R_B S(δ)
  Vec3<S> rear_contact;   // P = (x, y, 0)
  Vec3<S> rear_down;      // n_R = Rz Rx e_z: in the rear wheel plane, centre → contact
  Vec3<S> rear_centre;    // C_R = P − r_R n_R
  Vec3<S> rear_axle;      // a_R = R_B e_y = Rz Rx e_y
  Vec3<S> frame_centre;   // G_B, the rear frame's mass centre
  Vec3<S> steer_point;    // the steering axis' point that is on the ground in the reference configuration
  Vec3<S> steer_axis;     // R_B s, pointing down
  Vec3<S> fork_centre;    // G_H, the front frame's mass centre
  Vec3<S> front_centre;   // C_F
  Vec3<S> front_axle;     // a_F = R_H e_y
  Vec3<S> front_down;     // n_F = (e_z − (e_z·a_F) a_F)/|…|: in the front wheel plane, most downward
  Vec3<S> front_contact;  // Q = C_F + r_F n_F
};

/// Angular velocities of the bodies and velocities of points, for given rates (linear in q̇).
template <class S>
struct WhippleTwist {
  Vec3<S> w_B, w_H, w_R, w_F;      // angular velocities of B, H, R, F
  Vec3<S> v_rear_centre;           // Ċ_R
  Vec3<S> v_frame_centre;          // Ġ_B
  Vec3<S> v_fork_centre;           // Ġ_H
  Vec3<S> v_front_centre;          // Ċ_F
  Vec3<S> v_rear_material_contact;   // velocity of the rear wheel's material point at P
  Vec3<S> v_front_material_contact;  // velocity of the front wheel's material point at Q
};

/// Every body's position and orientation (for an animation), wheels' spin included.
template <class S>
struct WhippleBodies {
  Vec3<S> rear_centre, frame_centre, fork_centre, front_centre, rear_contact, front_contact;
  Mat3<S> rear_wheel, rear_frame, front_frame, front_wheel;  // R_R, R_B, R_H, R_F
};

struct WhippleBicycleModel {
  static constexpr int dof = 8, constraints = 4, holonomic = 1;
  static constexpr int kX = 0, kY = 1, kYaw = 2, kRoll = 3, kPitch = 4, kSteer = 5, kRearWheel = 6, kFrontWheel = 7;
  /// The coordinates M(q) depends on (the contact point and the wheel angles appear in none of M,
  /// V, g, A; see the header): the framework differentiates M along these four only.
  static constexpr std::array<int, 4> mass_coordinates{kYaw, kRoll, kPitch, kSteer};
  /// The coordinates V (the heights of the mass centres) and g (the height of the front contact)
  /// depend on: the framework differentiates them along these three only.
  static constexpr std::array<int, 3> potential_coordinates{kRoll, kPitch, kSteer};

  // Meijaard et al. (2007), Table 1 (SI units). Inertias about the body's mass centre, in the axes
  // of the upright reference configuration (x forward, y right, z down); products are the matrix
  // entries (I_xz = −∫ x z dm).
  double w = 1.02, c = 0.08, lambda = std::numbers::pi / 10.0, g = 9.81;    // wheelbase, trail, steer axis tilt, gravity
  double r_R = 0.3, m_R = 2.0, I_Rxx = 0.0603, I_Ryy = 0.12;                  // rear wheel
  double x_B = 0.3, z_B = -0.9, m_B = 85.0;                                   // rear body and frame
  double I_Bxx = 9.2, I_Byy = 11.0, I_Bzz = 2.8, I_Bxz = 2.4;
  double x_H = 0.9, z_H = -0.7, m_H = 4.0;                                    // front handlebar and fork
  double I_Hxx = 0.05892, I_Hyy = 0.06, I_Hzz = 0.00708, I_Hxz = -0.00756;
  double r_F = 0.35, m_F = 3.0, I_Fxx = 0.1405, I_Fyy = 0.28;                 // front wheel

  // ----- kinematics -----

  /// Positions and frames at q (README "Coordinates and frames", "Contact geometry").
  template <class Q>
  auto pose(const Q& q) const -> WhipplePose<scalar_t<Q>> {
    using S = scalar_t<Q>;
    using nested::constant;
    using std::cos, std::sin, std::sqrt;
    const S cy = cos(q[kYaw]), sy = sin(q[kYaw]), cr = cos(q[kRoll]), sr = sin(q[kRoll]);
    const S cp = cos(q[kPitch]), sp = sin(q[kPitch]), cd = cos(q[kSteer]), sd = sin(q[kSteer]);
    WhipplePose<S> p;
    p.yaw_roll = detail::product(detail::rot_z(cy, sy), detail::rot_x(cr, sr));
    p.rear_frame = detail::product(p.yaw_roll, detail::rot_y(cp, sp));
    // S(δ) = cos δ I + sin δ [s]× + (1 − cos δ) s sᵀ, s = (sin λ, 0, cos λ) (Rodrigues).
    const S sl = constant<S>(std::sin(lambda)), cl = constant<S>(std::cos(lambda)), one = constant<S>(1.0);
    const S vd = S(one - cd);
    Mat3<S> steer;
    steer << S(cd + vd * sl * sl), S(-sd * cl), S(vd * sl * cl),  //
        S(sd * cl), cd, S(-sd * sl),                              //
        S(vd * sl * cl), S(sd * sl), S(cd + vd * cl * cl);
    p.front_frame = detail::product(p.rear_frame, steer);

    const S zero = constant<S>(0.0);
    p.rear_contact = detail::vec<S>(S(q[kX]), S(q[kY]), zero);
    p.rear_down = p.yaw_roll.col(2);
    p.rear_axle = p.yaw_roll.col(1);
    const S rR = constant<S>(r_R), rF = constant<S>(r_F);
    p.rear_centre = p.rear_contact - rR * p.rear_down;
    // A rear-frame point with reference position r sits at C_R + R_B (r − (0, 0, −r_R)).
    p.frame_centre = p.rear_centre + detail::apply(p.rear_frame, detail::constant_vec<S>(x_B, 0.0, z_B + r_R));
    p.steer_point = p.rear_centre + detail::apply(p.rear_frame, detail::constant_vec<S>(w + c, 0.0, r_R));
    p.steer_axis = detail::apply(p.rear_frame, detail::constant_vec<S>(std::sin(lambda), 0.0, std::cos(lambda)));
    // A front-frame point with reference position r sits at steer_point + R_H (r − (w + c, 0, 0)).
    p.fork_centre = p.steer_point + detail::apply(p.front_frame, detail::constant_vec<S>(x_H - w - c, 0.0, z_H));
    p.front_centre = p.steer_point + detail::apply(p.front_frame, detail::constant_vec<S>(-c, 0.0, -r_F));
    p.front_axle = p.front_frame.col(1);
    const S az = p.front_axle[2];
    const S horizontal = sqrt(S(one - az * az));  // |e_z × a_F|; 0 only with the front wheel flat
    Vec3<S> down = detail::constant_vec<S>(0.0, 0.0, 1.0) - az * p.front_axle;
    p.front_down = down / horizontal;
    p.front_contact = p.front_centre + rF * p.front_down;
    return p;
  }

  /// The angular velocities and point velocities for the rates qd (any vector of 8 entries of the
  /// pose's scalar). Rates times axes for ω, ω × r for the points (README "Velocities").
  template <class S, class V>
  WhippleTwist<S> twist(const WhipplePose<S>& p, const V& qd) const {
    WhippleTwist<S> t = unit_twist(p, 0);
    scale(t, nested::lift<S>(qd[0]));
    for (int k = 1; k < dof; ++k) {
      WhippleTwist<S> u = unit_twist(p, k);
      scale(u, nested::lift<S>(qd[k]));
      add(t, u);
    }
    return t;
  }

  /// The twist for q̇ = e_k: column k of every velocity Jacobian.
  template <class S>
  WhippleTwist<S> unit_twist(const WhipplePose<S>& p, int k) const {
    using detail::cross;
    const S rR = nested::constant<S>(r_R);
    const Vec3<S> zero = detail::zero_vec<S>();
    // ω of the yaw-roll frame (which carries n_R), then of B, H, R, F.
    Vec3<S> w_Y = zero;
    if (k == kYaw) w_Y = detail::constant_vec<S>(0.0, 0.0, 1.0);
    if (k == kRoll) w_Y = p.yaw_roll.col(0);  // Rz e_x
    WhippleTwist<S> t;
    t.w_B = w_Y;
    if (k == kPitch) t.w_B = p.yaw_roll.col(1);  // Rz Rx e_y
    t.w_H = t.w_B;
    if (k == kSteer) t.w_H = p.steer_axis;
    t.w_R = t.w_B;
    if (k == kRearWheel) t.w_R = p.rear_axle;
    t.w_F = t.w_H;
    if (k == kFrontWheel) t.w_F = p.front_axle;

    Vec3<S> v_P = zero;
    if (k == kX) v_P = detail::constant_vec<S>(1.0, 0.0, 0.0);
    if (k == kY) v_P = detail::constant_vec<S>(0.0, 1.0, 0.0);
    t.v_rear_centre = v_P - rR * cross(w_Y, p.rear_down);
    t.v_frame_centre = t.v_rear_centre + cross(t.w_B, Vec3<S>(p.frame_centre - p.rear_centre));
    const Vec3<S> v_steer = t.v_rear_centre + cross(t.w_B, Vec3<S>(p.steer_point - p.rear_centre));
    t.v_fork_centre = v_steer + cross(t.w_H, Vec3<S>(p.fork_centre - p.steer_point));
    t.v_front_centre = v_steer + cross(t.w_H, Vec3<S>(p.front_centre - p.steer_point));
    t.v_rear_material_contact = t.v_rear_centre + cross(t.w_R, Vec3<S>(p.rear_contact - p.rear_centre));
    t.v_front_material_contact = t.v_front_centre + cross(t.w_F, Vec3<S>(p.front_contact - p.front_centre));
    return t;
  }

  // ----- the Lagrangian -----

  /// T = ½ q̇ᵀ M(q) q̇ = Σ_bodies ½ m |v_G|² + ½ ωᵀ I ω, so M = Σ m J_vᵀ J_v + J_ωᵀ I_N J_ω, the
  /// Jacobian columns being the unit twists (README "Kinetic energy").
  void mass(const auto& q, auto&& M) const {
    using S = scalar_t<decltype(q)>;
    using detail::dot, detail::apply;
    using nested::constant;
    const WhipplePose<S> p = pose(q);
    std::array<WhippleTwist<S>, dof> J;
    for (int k = 0; k < dof; ++k) J[k] = unit_twist(p, k);
    // Inertia tensors in N: R I Rᵀ for B and H; I_xx 1 + (I_yy − I_xx) a aᵀ for the axisymmetric wheels.
    const Mat3<S> IB = rotate_inertia(p.rear_frame, I_Bxx, I_Byy, I_Bzz, I_Bxz);
    const Mat3<S> IH = rotate_inertia(p.front_frame, I_Hxx, I_Hyy, I_Hzz, I_Hxz);
    const S mR = constant<S>(m_R), mB = constant<S>(m_B), mH = constant<S>(m_H), mF = constant<S>(m_F);
    const S IRxx = constant<S>(I_Rxx), IRd = constant<S>(I_Ryy - I_Rxx);
    const S IFxx = constant<S>(I_Fxx), IFd = constant<S>(I_Fyy - I_Fxx);
    std::array<Vec3<S>, dof> IBw, IHw;
    std::array<S, dof> aRw, aFw;
    for (int k = 0; k < dof; ++k) {
      IBw[k] = apply(IB, J[k].w_B);
      IHw[k] = apply(IH, J[k].w_H);
      aRw[k] = dot(p.rear_axle, J[k].w_R);
      aFw[k] = dot(p.front_axle, J[k].w_F);
    }
    for (int i = 0; i < dof; ++i)
      for (int j = i; j < dof; ++j) {
        const S translation = S(mR * dot(J[i].v_rear_centre, J[j].v_rear_centre) +
                                mB * dot(J[i].v_frame_centre, J[j].v_frame_centre) +
                                mH * dot(J[i].v_fork_centre, J[j].v_fork_centre) +
                                mF * dot(J[i].v_front_centre, J[j].v_front_centre));
        const S rotation = S(dot(J[i].w_B, IBw[j]) + dot(J[i].w_H, IHw[j]) +
                             IRxx * dot(J[i].w_R, J[j].w_R) + IRd * aRw[i] * aRw[j] +
                             IFxx * dot(J[i].w_F, J[j].w_F) + IFd * aFw[i] * aFw[j]);
        M(i, j) = S(translation + rotation);
        if (i != j) M(j, i) = M(i, j);
      }
  }

  /// V = Σ m g · (height of G) = −g Σ m z_G (z down).
  auto potential(const auto& q) const -> scalar_t<decltype(q)> {
    using S = scalar_t<decltype(q)>;
    using nested::constant;
    const WhipplePose<S> p = pose(q);
    return S(-(constant<S>(g * m_R) * p.rear_centre[2] + constant<S>(g * m_B) * p.frame_centre[2] +
               constant<S>(g * m_H) * p.fork_centre[2] + constant<S>(g * m_F) * p.front_centre[2]));
  }

  /// g(q) = the height below ground (z) of the front contact point Q, the point of the front rim
  /// whose outward normal in the wheel plane points most downward:
  ///   g = z(C_F) + r_F √(1 − a_z²),  a_z = e_z · a_F  (README "The holonomic constraint").
  /// g = 0: the front wheel touches the ground; g < 0: it is lifted.
  void holonomic_constraint(const auto& q, auto&& out) const {
    using S = scalar_t<decltype(q)>;
    out[0] = S(pose(q).front_contact[2]);
  }

  /// Rolling without slipping: the horizontal velocity of each wheel's material contact point is
  /// zero. Rows: rear x, rear y, front x, front y (N components); columns: the unit twists.
  void constraint_matrix(const auto& q, auto&& A) const {
    using S = scalar_t<decltype(q)>;
    const WhipplePose<S> p = pose(q);
    for (int k = 0; k < dof; ++k) {
      const WhippleTwist<S> t = unit_twist(p, k);
      A(0, k) = t.v_rear_material_contact[0];
      A(1, k) = t.v_rear_material_contact[1];
      A(2, k) = t.v_front_material_contact[0];
      A(3, k) = t.v_front_material_contact[1];
    }
  }

  // ----- geometry for users -----

  /// (x, y) of the front contact point Q.
  template <class Q>
  auto front_contact(const Q& q) const -> Eigen::Matrix<scalar_t<Q>, 2, 1> {
    const auto p = pose(q);
    Eigen::Matrix<scalar_t<Q>, 2, 1> r;
    r << p.front_contact[0], p.front_contact[1];
    return r;
  }

  /// Every body's position and orientation (rear wheel R_B Ry(θ_R), front wheel R_H Ry(θ_F)).
  template <class Q>
  auto bodies(const Q& q) const -> WhippleBodies<scalar_t<Q>> {
    using S = scalar_t<Q>;
    using std::cos, std::sin;
    const WhipplePose<S> p = pose(q);
    WhippleBodies<S> b;
    b.rear_centre = p.rear_centre;
    b.frame_centre = p.frame_centre;
    b.fork_centre = p.fork_centre;
    b.front_centre = p.front_centre;
    b.rear_contact = p.rear_contact;
    b.front_contact = p.front_contact;
    b.rear_frame = p.rear_frame;
    b.front_frame = p.front_frame;
    b.rear_wheel = detail::product(p.rear_frame, detail::rot_y(S(cos(q[kRearWheel])), S(sin(q[kRearWheel]))));
    b.front_wheel = detail::product(p.front_frame, detail::rot_y(S(cos(q[kFrontWheel])), S(sin(q[kFrontWheel]))));
    return b;
  }

  // ----- the dependent coordinate -----

  /// The pitch θ at which the front wheel touches the ground, for roll φ and steer δ: Newton on
  /// g(θ) from θ = 0 (the upright root: other roots, the bicycle stood on its nose or tail, are
  /// far away), derivative by a dual number; iterated in double to convergence, then twice in S
  /// so that a dual (φ, δ) gets the implicit-function derivatives dθ/dφ, dθ/dδ too.
  /// Throws if the iteration does not converge (no contact at this roll and steer).
  template <class S>
  S pitch_for(const S& roll, const S& steer) const {
    using nested::value_of;
    double theta = 0.0;
    bool converged = false;
    for (int it = 0; it < 50 && !converged; ++it) {
      double value = 0.0, slope = 0.0;
      pitch_residual(value_of(roll), value_of(steer), theta, value, slope);
      const double step = value / slope;
      theta -= step;
      converged = std::abs(step) <= 4e-16 * (1.0 + std::abs(theta));
    }
    if (!converged || !std::isfinite(theta))
      throw std::runtime_error("whipple_bicycle: no pitch puts the front wheel on the ground at roll " +
                               shown(value_of(roll)) + ", steer " + shown(value_of(steer)));
    S th = nested::constant<S>(theta);
    for (int it = 0; it < (std::is_same_v<S, double> ? 1 : 2); ++it) {
      S value, slope;
      pitch_residual(roll, steer, th, value, slope);
      th = S(th - value / slope);
    }
    return th;
  }

  /// g and ∂g/∂θ at (φ, θ, δ), the other coordinates zero (g depends on none of them).
  template <class S>
  void pitch_residual(const S& roll, const S& steer, const S& theta, S& value, S& slope) const {
    using D = nested::Dual1<S>;
    Eigen::Matrix<D, dof, 1> q;
    for (int i = 0; i < dof; ++i) q[i] = D(nested::constant<S>(0.0), Eigen::Matrix<S, 1, 1>(nested::constant<S>(0.0)));
    q[kRoll] = D(roll, Eigen::Matrix<S, 1, 1>(nested::constant<S>(0.0)));
    q[kSteer] = D(steer, Eigen::Matrix<S, 1, 1>(nested::constant<S>(0.0)));
    q[kPitch] = D(theta, Eigen::Matrix<S, 1, 1>(nested::constant<S>(1.0)));
    Eigen::Matrix<D, 1, 1> h;
    holonomic_constraint(q, h);
    value = h[0].value();
    slope = h[0].derivatives()[0];
  }

  // ----- parameters -----

  /// Refuses unphysical parameters with a message naming the parameter: non-finite values,
  /// non-positive masses and radii, inertia tensors that are not positive definite or violate the
  /// triangle inequality of a rigid body's principal moments, a steering axis tilt outside
  /// (−π/2, π/2), mass centres at or below the ground, and geometries in which the two wheels
  /// cannot both stand on the ground upright (front wheel not ahead of the rear one, wheels
  /// overlapping). With these, the reference configuration stands on both wheels by construction.
  void validate() const {
    const std::array<std::pair<const char*, double>, 26> all{{{"w", w},         {"c", c},         {"lambda", lambda},
                                                              {"g", g},         {"r_R", r_R},     {"m_R", m_R},
                                                              {"I_Rxx", I_Rxx}, {"I_Ryy", I_Ryy}, {"x_B", x_B},
                                                              {"z_B", z_B},     {"m_B", m_B},     {"I_Bxx", I_Bxx},
                                                              {"I_Byy", I_Byy}, {"I_Bzz", I_Bzz}, {"I_Bxz", I_Bxz},
                                                              {"x_H", x_H},     {"z_H", z_H},     {"m_H", m_H},
                                                              {"I_Hxx", I_Hxx}, {"I_Hyy", I_Hyy}, {"I_Hzz", I_Hzz},
                                                              {"I_Hxz", I_Hxz}, {"r_F", r_F},     {"m_F", m_F},
                                                              {"I_Fxx", I_Fxx}, {"I_Fyy", I_Fyy}}};
    for (const auto& [name, value] : all)
      if (!std::isfinite(value)) refuse(name, "is not a finite number");
    for (const auto& [name, value] : {std::pair{"m_R", m_R}, {"m_B", m_B}, {"m_H", m_H}, {"m_F", m_F}})
      if (!(value > 0.0)) refuse(name, "is a mass: it must be positive (got " + shown(value) + ")");
    for (const auto& [name, value] : {std::pair{"r_R", r_R}, {"r_F", r_F}})
      if (!(value > 0.0)) refuse(name, "is a wheel radius: it must be positive (got " + shown(value) + ")");
    if (!(g >= 0.0)) refuse("g", "is the gravitational acceleration: it must not be negative");
    if (!(std::abs(lambda) < std::numbers::pi / 2))
      refuse("lambda", "is the steering axis tilt from the vertical: it must lie in (-pi/2, pi/2) (got " +
                           shown(lambda) + ")");
    check_wheel_inertia("I_Rxx", "I_Ryy", I_Rxx, I_Ryy);
    check_wheel_inertia("I_Fxx", "I_Fyy", I_Fxx, I_Fyy);
    check_body_inertia("I_B", I_Bxx, I_Byy, I_Bzz, I_Bxz);
    check_body_inertia("I_H", I_Hxx, I_Hyy, I_Hzz, I_Hxz);
    if (!(z_B < 0.0)) refuse("z_B", "puts the rear frame's mass centre at or below the ground (z is down: z_B < 0)");
    if (!(z_H < 0.0)) refuse("z_H", "puts the front frame's mass centre at or below the ground (z is down: z_H < 0)");
    if (!(w > 0.0)) refuse("w", "is the wheelbase: the front contact must be ahead of the rear one (w > 0)");
    const double centres = std::hypot(w, r_F - r_R);
    if (!(centres >= r_R + r_F))
      refuse("w", "is too short for the wheels (r_R, r_F): upright on the ground, they would overlap (need "
                  "sqrt(w^2 + (r_F - r_R)^2) >= r_R + r_F)");
    // With w > 0 the pitch is fixed near upright: ∂g/∂θ = −w there (pitching turns Q about the rear
    // wheel centre, a horizontal distance w behind it), so Newton's iteration is well posed.
  }

  // ----- steady motions (the linear_stability study kind, core/linearizable.hpp) -----

  /// Upright straight running at forward speed v (Meijaard et al. 2007, §2): q = 0 (both wheels on
  /// the ground, θ = 0 exactly), rolling forward, θ̇_R = −v/r_R and θ̇_F = −v/r_F. Linearised in roll
  /// and steer with the pitch solved from g and the rear wheel's rate held: the speed decouples from
  /// lean and steer at first order, which the linearisation measures (held_coupling).
  SteadyMotionFamily steady_family() const {
    return {"upright", "v", "upright straight running at forward speed v (m/s)",
            {.minimal = {kRoll, kSteer}, .dependent = {kPitch}, .speeds = {}, .held = {kRearWheel}}};
  }
  void steady_state(double v, auto&& q, auto&& qd) const {
    q.setZero();
    qd.setZero();
    qd[kX] = v;
    qd[kRearWheel] = -v / r_R;
    qd[kFrontWheel] = -v / r_F;
  }

 private:
  template <class S>
  static void scale(WhippleTwist<S>& t, const S& a) {
    for (Vec3<S>* v : {&t.w_B, &t.w_H, &t.w_R, &t.w_F, &t.v_rear_centre, &t.v_frame_centre, &t.v_fork_centre,
                       &t.v_front_centre, &t.v_rear_material_contact, &t.v_front_material_contact})
      *v = a * *v;
  }
  template <class S>
  static void add(WhippleTwist<S>& t, const WhippleTwist<S>& u) {
    t.w_B += u.w_B;
    t.w_H += u.w_H;
    t.w_R += u.w_R;
    t.w_F += u.w_F;
    t.v_rear_centre += u.v_rear_centre;
    t.v_frame_centre += u.v_frame_centre;
    t.v_fork_centre += u.v_fork_centre;
    t.v_front_centre += u.v_front_centre;
    t.v_rear_material_contact += u.v_rear_material_contact;
    t.v_front_material_contact += u.v_front_material_contact;
  }

  /// R I Rᵀ for I = [[xx, 0, xz], [0, yy, 0], [xz, 0, zz]].
  template <class S>
  static Mat3<S> rotate_inertia(const Mat3<S>& R, double xx, double yy, double zz, double xz) {
    using nested::constant;
    const S o = constant<S>(0.0);
    Mat3<S> I;
    I << constant<S>(xx), o, constant<S>(xz), o, constant<S>(yy), o, constant<S>(xz), o, constant<S>(zz);
    const Mat3<S> RI = detail::product(R, I);
    Mat3<S> Rt;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) Rt(i, j) = R(j, i);
    return detail::product(RI, Rt);
  }

  [[noreturn]] static void refuse(const std::string& name, const std::string& why) {
    throw std::invalid_argument("whipple_bicycle: parameter " + name + " " + why);
  }
  static void check_wheel_inertia(const char* xx_name, const char* yy_name, double xx, double yy) {
    if (!(xx > 0.0)) refuse(xx_name, "is a wheel's moment of inertia about a diameter: it must be positive");
    if (!(yy > 0.0)) refuse(yy_name, "is a wheel's moment of inertia about its axle: it must be positive");
    if (!(yy <= 2.0 * xx))
      refuse(yy_name, std::string("exceeds 2 ") + xx_name +
                          ": an axisymmetric rigid body's axial moment is at most the sum of its two diametral ones");
  }
  /// [[xx, 0, xz], [0, yy, 0], [xz, 0, zz]] positive definite, principal moments obeying the
  /// triangle inequality (each at most the sum of the other two).
  static void check_body_inertia(const std::string& name, double xx, double yy, double zz, double xz) {
    if (!(xx > 0.0)) refuse(name + "xx", "must be positive (the inertia tensor is not positive definite)");
    if (!(yy > 0.0)) refuse(name + "yy", "must be positive (the inertia tensor is not positive definite)");
    if (!(zz > 0.0)) refuse(name + "zz", "must be positive (the inertia tensor is not positive definite)");
    if (!(xx * zz - xz * xz > 0.0))
      refuse(name + "xz", "is too large: I_xx I_zz - I_xz^2 <= 0, the inertia tensor is not positive definite");
    const double mean = 0.5 * (xx + zz), half = std::hypot(0.5 * (xx - zz), xz);
    const double p1 = mean + half, p2 = mean - half;  // principal moments in the x-z plane
    const double slack = 1e-12 * (p1 + p2 + yy);
    if (!(yy <= p1 + p2 + slack && p1 <= p2 + yy + slack && p2 <= p1 + yy + slack))
      refuse(name + "yy", "and the x-z moments violate the triangle inequality of a rigid body's principal moments "
                          "(principal moments " + shown(p1) + ", " + shown(yy) + ", " +
                              shown(p2) + ")");
  }
};

}  // namespace dalembert::whipple
