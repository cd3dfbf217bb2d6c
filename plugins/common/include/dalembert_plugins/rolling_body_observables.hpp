#pragma once
// What one reads off a state of the rolling body of rolling_body.hpp, and how one makes a state on its
// constraints (issue 29 items 1 and 3), shared by `chaplygin_ball` and `rattleback`.
//
//   Ω = 2 G(p) ṗ                     body angular velocity (quaternion_kinematics.hpp);
//   ṗ = ½ G(p)ᵀ Ω                     its inverse on |p| = 1 (G Gᵀ = I₃, G p = 0: ṗ ⊥ p, ṗ = ½ p ⊗ (0, Ω));
//   v_G = −R (Ω × d)                 the rolling velocity of the centre of mass G (rolling_body.hpp);
//   K = I Ω + m d × (Ω × d)          the angular momentum about the contact point, body axes
//                                    (r_G − r_P = −d, v_G = −Ω × d in body axes; Borisov & Mamaev 2002,
//                                    eq. (1.3): M = IΩ + m r × (Ω × r) with r from G to the contact);
//   K_space = R K, and K·γ = e_z·K_space (γ = Rᵀ e_z).
// Borisov & Mamaev, Regul. Chaotic Dyn. 7 (2002) 177–200, §1–§2: for a ball whose centre of mass is
// its geometric centre (c = 0; Chaplygin 1903) K_space is conserved (every force acts at the contact
// point or along the vertical through it, and the contact point moves with G), hence |K|² and
// K·γ; for an axisymmetric body with c on its axis (Routh's ball), K·γ is not, but Jellett's
// integral K·d is (README of chaplygin_ball: measured).
// Plain double: these are diagnostics and set-up, evaluated outside every derivative.
#include <Eigen/Core>
#include <cmath>
#include <dalembert/core/state.hpp>
#include <dalembert/math/quaternion_kinematics.hpp>
#include <dalembert/plugin/descriptor.hpp>
#include <dalembert_plugins/rolling_body.hpp>

namespace dalembert::rolling {

/// The names of q = (x, y, p) and v = q̇ of rolling_body.hpp.
inline Layout body_layout() {
  return {{"x", "y", "qw", "qx", "qy", "qz"}, {"xdot", "ydot", "qwdot", "qxdot", "qydot", "qzdot"}};
}

/// Everything the diagnostics of a rolling body need at one state (q, v) of rolling_body.hpp.
struct Observables {
  Eigen::Vector3d omega;    ///< Ω, body axes
  Eigen::Vector3d gamma;    ///< the space vertical in body axes
  Eigen::Vector3d K_body;   ///< K about the contact point, body axes
  Eigen::Vector3d K_space;  ///< R K
  Eigen::Vector3d contact;  ///< the contact point in space (x_P, y_P, z_P), z_P = 0 on the constraint
  double K_dot_gamma = 0.0, K_dot_d = 0.0, K_squared = 0.0;
  double height = 0.0;                 ///< h, the height of G
  double height_rate = 0.0;            ///< ḣ = Ω·(γ × d) (rolling_body.hpp)
  double quaternion_norm_error = 0.0;  ///< |p| − 1
};

/// Ω = 2 G(p) ṗ from the state's (q, v).
template <class Q, class V>
Eigen::Vector3d body_angular_velocity(const Q& q, const V& v) {
  const Eigen::Vector4d p(q[2], q[3], q[4], q[5]), pd(v[2], v[3], v[4], v[5]);
  return 2.0 * quaternion::angular_velocity_map<double>(p) * pd;
}

template <class Q, class V>
Observables observe(const RollingBodyModel& b, const Q& q, const V& v) {
  const auto ps = b.pose<double>(Eigen::Matrix<double, 6, 1>(q));
  Observables o;
  o.omega = body_angular_velocity(q, v);
  o.gamma = ps.gamma;
  o.K_body = b.inertia * o.omega + b.m * ps.d.cross(o.omega.cross(ps.d));
  o.K_space = ps.R * o.K_body;
  o.K_dot_gamma = o.K_body.dot(ps.gamma);
  o.K_dot_d = o.K_body.dot(ps.d);
  o.K_squared = o.K_body.squaredNorm();
  o.height = ps.height;
  o.height_rate = o.omega.dot(ps.gamma.cross(ps.d));
  o.contact = Eigen::Vector3d(q[0], q[1], ps.height) + ps.R * ps.d;
  o.quaternion_norm_error = std::sqrt(q[2] * q[2] + q[3] * q[3] + q[4] * q[4] + q[5] * q[5]) - 1.0;
  return o;
}

/// The state (q, v) at the centre of mass (x, y), attitude p (normalised here) and body angular
/// velocity Ω, on the constraints: ṗ = ½ G(p)ᵀ Ω (so p·ṗ = 0), (ẋ, ẏ) = the horizontal part of −R(Ω × d).
inline void state_from_body_rates(const RollingBodyModel& b, double x, double y, Eigen::Vector4d p,
                                  const Eigen::Vector3d& omega, Eigen::Matrix<double, 6, 1>& q,
                                  Eigen::Matrix<double, 6, 1>& v) {
  p.normalize();
  q << x, y, p[0], p[1], p[2], p[3];
  const auto ps = b.pose<double>(q);
  const Eigen::Vector3d vG = -ps.R * omega.cross(ps.d);
  v.head<2>() = vG.head<2>();
  v.tail<4>() = 0.5 * quaternion::angular_velocity_map<double>(p).transpose() * omega;
}

/// A plugin's example state (PluginDescriptor::examples) at the origin of the plane with attitude p
/// and body angular velocity Ω, on the constraints (state_from_body_rates); `params` the plugin's.
inline PluginExample example_from_body_rates(std::string label, const RollingBodyModel& b, const Eigen::Vector4d& p,
                                             const Eigen::Vector3d& omega, nlohmann::json params, double h) {
  Eigen::Matrix<double, 6, 1> q, v;
  state_from_body_rates(b, 0.0, 0.0, p, omega, q, v);
  PluginExample e{std::move(label), std::move(params), {}, h};
  e.state.q = q;
  e.state.v = v;
  return e;
}

}  // namespace dalembert::rolling
