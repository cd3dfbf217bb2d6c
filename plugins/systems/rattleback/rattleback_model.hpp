#pragma once
// The rattleback (issue 29 item 3) on the shared rolling-body model
// (dalembert_plugins/rolling_body.hpp): Kane & Levinson's values, an attitude from roll and pitch,
// and the tilt the plugin reports (the validation, the state from body rates and the other
// observables are the rolling body's, shared with chaplygin_ball). Header-only, so that
// tests/systems checks it without the plugin.
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
#include <dalembert_plugins/rolling_body_observables.hpp>
#include <dalembert_plugins/rolling_body_validate.hpp>
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

/// Kane & Levinson (1982)'s rattleback.
inline Model kane_levinson() { return rolling::rolling_body({0.2, 0.03, 0.02}, 1.0, 9.81, kane_levinson_inertia(), Vec3(0, 0, -0.01)); }

/// The unit quaternion of R = R_y(pitch) R_x(roll) (body → space): roll about body axis 1, then
/// pitch about the space-fixed axis 2, so that γ = Rᵀe_z = (−sin θ, cos θ sin φ, cos θ cos φ)
/// (the Tait–Bryan angles of γ read back by `observe`): p = q_y(θ) ⊗ q_x(φ).
inline Vec4 attitude_from_roll_pitch(double roll, double pitch) {
  const double cx = std::cos(0.5 * roll), sx = std::sin(0.5 * roll), cy = std::cos(0.5 * pitch), sy = std::sin(0.5 * pitch);
  return Vec4(cx * cy, sx * cy, cx * sy, -sx * sy);
}

/// What the plugin reports of a state beyond the rolling body's observables
/// (rolling_body_observables.hpp): the spin about the vertical and the tilt of body axis 3.
struct Tilt {
  double spin;   // Ω·γ: the angular velocity about the space vertical
  double roll;   // φ = atan2(γ₂, γ₃): tilt about body axis 1
  double pitch;  // θ = asin(−γ₁): tilt about body axis 2
};

inline Tilt tilt(const rolling::Observables& o) {
  return {o.omega.dot(o.gamma), std::atan2(o.gamma[1], o.gamma[2]), std::asin(std::clamp(-o.gamma[0], -1.0, 1.0))};
}

}  // namespace dalembert::rattleback
