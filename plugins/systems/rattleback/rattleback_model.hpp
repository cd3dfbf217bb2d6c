#pragma once
// The rattleback (issue 29 item 3) on the shared rolling-body model
// (dalembert_plugins/rolling_body.hpp): its parameters with Kane & Levinson's values, their
// validation, a state on the constraints from an attitude and a body angular velocity, and the
// observables the plugin reports. Header-only, so that tests/systems checks it without the plugin.
//
// Kane & Levinson, "Realistic mathematical modeling of the rattleback", J. Appl. Mech. 49 (1982)
// 641–654: an ellipsoid with semi-axes a, b, c = 0.2, 0.03, 0.02 m along body axes 1, 2, 3, mass
// m = 1 kg, g = 9.81 m/s², centre of mass G 0.01 m from the geometric centre O towards the contact
// at rest (offset c = (0, 0, −0.01), axis 3 up), and the inertia about G in the geometric axes
//   I = [[A, D, 0], [D, B, 0], [0, 0, C]],  A, B, C = 2e-4, 1.6e-3, 1.7e-3,  D = −2e-5 kg m²:
// D is the 1–2 entry of the inertia matrix (Kane's inertia scalar I₁₂ = b₁·I·b₂, i.e. minus the
// product ∫x₁x₂ dm); README.md says how the sign was checked (a spin of −5 rad/s reverses).
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <dalembert_plugins/rolling_body.hpp>
#include <stdexcept>
#include <string>

namespace dalembert::rattleback {

using Model = rolling::RollingBodyModel;
using Vec6 = Eigen::Matrix<double, 6, 1>;
using Vec4 = Eigen::Vector4d;
using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;

/// Kane & Levinson (1982)'s inertia about G in body axes (header).
inline Mat3 kane_levinson_inertia() {
  Mat3 I;
  I << 2e-4, -2e-5, 0.0,  //
      -2e-5, 1.6e-3, 0.0,  //
      0.0, 0.0, 1.7e-3;
  return I;
}

/// The model with these values, validated: an unphysical value is a std::invalid_argument naming
/// the parameter and its value.
inline Model make_model(double m, double gravity, double a, double b, double c, const Mat3& inertia,
                        const Vec3& offset) {
  const auto bad = [](const std::string& name, double value, const std::string& why) {
    throw std::invalid_argument("rattleback: parameter " + name + " = " + std::to_string(value) + " " + why);
  };
  if (!(m > 0.0) || !std::isfinite(m)) bad("m", m, "is a mass: it must be positive and finite");
  if (!(gravity >= 0.0) || !std::isfinite(gravity)) bad("g", gravity, "must be non-negative and finite");
  const double axes[3] = {a, b, c};
  const char* axis_names[3] = {"a", "b", "c"};
  for (int i = 0; i < 3; ++i)
    if (!(axes[i] > 0.0) || !std::isfinite(axes[i])) bad(axis_names[i], axes[i], "is a semi-axis: it must be positive and finite");
  if (!inertia.allFinite()) throw std::invalid_argument("rattleback: parameter I11 the inertia tensor has a non-finite entry");
  const Eigen::SelfAdjointEigenSolver<Mat3> es(inertia);
  const Vec3 l = es.eigenvalues();
  if (!(l.minCoeff() > 0.0))
    bad("I11", l.minCoeff(), "(the smallest principal moment of I11..I33, I12, I13, I23): the inertia tensor must be positive definite");
  // principal moments of a rigid body obey the triangle inequality (l₀ ≤ l₁ ≤ l₂ sorted)
  if (l[0] + l[1] < l[2] * (1.0 - 1e-12))
    bad("I33", l[2], "(the largest principal moment) exceeds the sum of the other two: no rigid body has this inertia");
  const double inside = offset[0] * offset[0] / (a * a) + offset[1] * offset[1] / (b * b) + offset[2] * offset[2] / (c * c);
  if (!(inside < 1.0)) bad("c3", offset[2], "(with c1, c2): the centre of mass must lie inside the ellipsoid");
  Model model;
  model.shape = {a, b, c};
  model.m = m;
  model.gravity = gravity;
  model.inertia = inertia;
  model.offset = offset;
  const double r = std::max({a, b, c});
  model.mu = inertia.trace() + m * r * r;  // rolling_body.hpp: the body's largest moment scale
  return model;
}

/// Kane & Levinson (1982)'s rattleback.
inline Model kane_levinson() { return make_model(1.0, 9.81, 0.2, 0.03, 0.02, kane_levinson_inertia(), Vec3(0, 0, -0.01)); }

/// The unit quaternion of R = R_y(pitch) R_x(roll) (body → space): roll about body axis 1, then
/// pitch about the space-fixed axis 2, so that γ = Rᵀe_z = (−sin θ, cos θ sin φ, cos θ cos φ)
/// (the Tait–Bryan angles of γ read back by `observe`): p = q_y(θ) ⊗ q_x(φ).
inline Vec4 attitude_from_roll_pitch(double roll, double pitch) {
  const double cx = std::cos(0.5 * roll), sx = std::sin(0.5 * roll), cy = std::cos(0.5 * pitch), sy = std::sin(0.5 * pitch);
  return Vec4(cx * cy, sx * cy, cx * sy, -sx * sy);
}

/// A state on the constraints: the attitude p (normalised here), G at (x, y) = (0, 0), the body
/// angular velocity Ω; ṗ = ½G(p)ᵀΩ (G Gᵀ = I₃ and G p = 0 on |p| = 1: Ω = 2Gṗ and p·ṗ = 0), and
/// (ẋ, ẏ) the horizontal part of v_G = −R(Ω × d), the contact point at rest (rolling_body.hpp).
inline void state_on_constraints(const Model& model, const Vec4& attitude, const Vec3& Omega, Vec6& q, Vec6& v) {
  q.setZero();
  q.segment<4>(Model::kP0) = attitude.normalized();
  const auto pose = model.pose<double>(q);
  const Eigen::Matrix<double, 3, 4> G = quaternion::angular_velocity_map<double>(q.segment<4>(Model::kP0));
  const Vec3 vG = -pose.R * Omega.cross(pose.d);
  v.setZero();
  v[Model::kX] = vG[0];
  v[Model::kY] = vG[1];
  v.segment<4>(Model::kP0) = 0.5 * G.transpose() * Omega;
}

/// What the plugin reports of a state (rattleback.cpp's diagnostics).
struct Observables {
  Vec3 Omega;       // body angular velocity 2G(p)ṗ
  Vec3 gamma;       // the vertical in body axes
  double spin;      // Ω·γ: the angular velocity about the space vertical
  double roll;      // φ = atan2(γ₂, γ₃): tilt about body axis 1
  double pitch;     // θ = asin(−γ₁): tilt about body axis 2
  double height;    // of G above the plane
  double norm_error;  // |p| − 1
  double contact_x, contact_y;  // the contact point in space
};

inline Observables observe(const Model& model, const Vec6& q, const Vec6& v) {
  Observables o;
  const auto pose = model.pose<double>(q);
  const Vec4 p = q.segment<4>(Model::kP0);
  o.Omega = 2.0 * quaternion::angular_velocity_map<double>(p) * v.segment<4>(Model::kP0);
  o.gamma = pose.gamma;
  o.spin = o.Omega.dot(o.gamma);
  o.roll = std::atan2(o.gamma[1], o.gamma[2]);
  o.pitch = std::asin(std::clamp(-o.gamma[0], -1.0, 1.0));
  o.height = pose.height;
  o.norm_error = p.norm() - 1.0;
  const Vec3 Rd = pose.R * pose.d;
  o.contact_x = q[Model::kX] + Rd[0];
  o.contact_y = q[Model::kY] + Rd[1];
  return o;
}

}  // namespace dalembert::rattleback
