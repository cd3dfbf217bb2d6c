// The rattleback's model (issue 29 item 3), header-only: plugins/systems/rattleback/rattleback_model.hpp
// on the shared rolling-body model (dalembert_plugins/rolling_body.hpp), checked against
// independent computations: the body angular velocity against a finite difference of R(p(t)),
// the vertical velocity of G against the rolling velocity and a finite difference of the height,
// the contact point against the ellipsoid's surface and normal, the kinetic energy ½vᵀMv against
// Newton's ½m|v_G|² + ½ΩᵀIΩ, and the validation's messages.
#include <catch2/catch.hpp>
#include <cmath>
#include <dalembert/core/model_rules.hpp>
#include <numbers>
#include <random>

#include "rattleback/rattleback_model.hpp"

namespace {

using namespace dalembert;
using namespace dalembert::rattleback;

static_assert(model_rules::generic<Model>);

Mat3 rotation_of(const Vec4& p) { return quaternion::rotation<double>(p.normalized()); }

/// A few attitudes (the identity, Kane & Levinson's tilt, generic ones) with body angular velocities.
struct Sample {
  Vec4 p;
  Vec3 Omega;
};
std::vector<Sample> samples() {
  std::vector<Sample> out = {{Vec4(1, 0, 0, 0), Vec3(0.3, -0.2, -5.0)},
                             {attitude_from_roll_pitch(0.0087, 0.0087), Vec3(0.0, 0.0, -5.0)},
                             {Vec4(0.8, 0.3, -0.4, 0.35).normalized(), Vec3(1.0, -2.0, 3.0)}};
  std::mt19937 rng(29);
  std::normal_distribution<double> n;
  for (int k = 0; k < 5; ++k) out.push_back({Vec4(n(rng), n(rng), n(rng), n(rng)).normalized(), Vec3(n(rng), n(rng), n(rng))});
  return out;
}

Eigen::Matrix<double, 6, 1> q_of(const Vec4& p) {
  Vec6 q = Vec6::Zero();
  q.segment<4>(Model::kP0) = p;
  return q;
}

}  // namespace

TEST_CASE("rattleback model: Omega = 2G(p)pdot is the body angular velocity of R(p(t))", "[rattleback]") {
  const Model model = kane_levinson();
  for (const auto& s : samples()) {
    Vec6 q, v;
    rolling::state_from_body_rates(model, 0.0, 0.0, s.p, s.Omega, q, v);
    const Vec4 p = q.segment<4>(Model::kP0), pd = v.segment<4>(Model::kP0);
    // Rᵀ Ṙ = Ω̂ with Ṙ by a central difference of R along p + t ṗ (normalised: a curve on S³)
    const double e = 1e-6;
    const Mat3 Rdot = (rotation_of(p + e * pd) - rotation_of(p - e * pd)) / (2 * e);
    const Mat3 W = rotation_of(p).transpose() * Rdot;
    const Vec3 Omega_fd(W(2, 1), W(0, 2), W(1, 0));
    CHECK((Omega_fd - s.Omega).norm() < 1e-8 * (1 + s.Omega.norm()));
    CHECK(std::abs(p.dot(pd)) < 1e-15);
    // γ = Rᵀ e_z
    CHECK((quaternion::vertical_in_body<double>(p) - rotation_of(p).row(2).transpose()).norm() < 1e-15);
  }
}

TEST_CASE("rattleback model: roll and pitch read back the attitude that built them", "[rattleback]") {
  const Model model = kane_levinson();
  for (const double roll : {-0.7, 0.0087, 0.3})
    for (const double pitch : {-0.4, 0.0087, 1.2}) {
      Vec6 q, v;
      rolling::state_from_body_rates(model, 0.0, 0.0, attitude_from_roll_pitch(roll, pitch), Vec3(0, 0, 1), q, v);
      // R = R_y(pitch) R_x(roll), built from elementary rotations, not from the quaternion
      const Mat3 R = (Eigen::AngleAxisd(pitch, Vec3::UnitY()) * Eigen::AngleAxisd(roll, Vec3::UnitX())).toRotationMatrix();
      CHECK((rotation_of(q.segment<4>(Model::kP0)) - R).norm() < 1e-15);
      const auto o = tilt(rolling::observe(model, q, v));
      CHECK(o.roll == Approx(roll).margin(1e-14));
      CHECK(o.pitch == Approx(pitch).margin(1e-14));
    }
}

TEST_CASE("rattleback model: the contact point is on the surface, its normal is -gamma, and it is on the plane", "[rattleback]") {
  const Model model = kane_levinson();
  const Eigen::Vector3d Dinv(1 / (0.2 * 0.2), 1 / (0.03 * 0.03), 1 / (0.02 * 0.02));
  for (const auto& s : samples()) {
    const Vec6 q = q_of(s.p);
    const auto pose = model.pose<double>(q);
    const Vec3 P = pose.d + model.offset;  // from the geometric centre
    CHECK(P.dot(Dinv.asDiagonal() * P) == Approx(1.0).epsilon(1e-14));
    const Vec3 normal = (Dinv.asDiagonal() * P).normalized();  // outward normal of the ellipsoid at P
    CHECK((normal + pose.gamma).norm() < 1e-14);
    // every other point of the surface is above the plane: the support in −γ is P (sampled)
    std::mt19937 rng(3);
    std::normal_distribution<double> n;
    for (int k = 0; k < 200; ++k) {
      const Vec3 u = Vec3(n(rng), n(rng), n(rng)).normalized();
      const Vec3 X(0.2 * u[0], 0.03 * u[1], 0.02 * u[2]);  // a point of the surface
      CHECK(X.dot(pose.gamma) >= P.dot(pose.gamma) - 1e-15);
    }
    // the contact in space is on the plane: h + e_z·R d = 0
    CHECK(std::abs(pose.height + (pose.R * pose.d)[2]) < 1e-15);
  }
}

TEST_CASE("rattleback model: hdot = Omega.(gamma x d) is the rolling velocity's vertical part and dh/dt", "[rattleback]") {
  const Model model = kane_levinson();
  for (const auto& s : samples()) {
    Vec6 q, v;
    rolling::state_from_body_rates(model, 0.0, 0.0, s.p, s.Omega, q, v);
    const auto pose = model.pose<double>(q);
    const double hdot = s.Omega.dot(pose.gamma.cross(pose.d));
    // rolling: v_G = −R(Ω × d), its vertical component
    const double vz = -(pose.R * s.Omega.cross(pose.d))[2];
    CHECK(hdot == Approx(vz).margin(1e-15));
    // a central difference of h along the attitude's curve
    const double e = 1e-6;
    const Vec4 p = q.segment<4>(Model::kP0), pd = v.segment<4>(Model::kP0);
    const double hp = model.pose<double>(q_of((p + e * pd).normalized())).height;
    const double hm = model.pose<double>(q_of((p - e * pd).normalized())).height;
    CHECK((hp - hm) / (2 * e) == Approx(hdot).margin(1e-9));
  }
}

TEST_CASE("rattleback model: on the constraints, v^T M v / 2 is Newton's kinetic energy and A v = 0", "[rattleback]") {
  const Model model = kane_levinson();
  for (const auto& s : samples()) {
    Vec6 q, v;
    rolling::state_from_body_rates(model, 0.0, 0.0, s.p, s.Omega, q, v);
    Eigen::Matrix<double, 6, 6> M;
    model.mass(q, M);
    Eigen::Matrix<double, 2, 6> A;
    model.constraint_matrix(q, A);
    CHECK((A * v).norm() < 1e-15);
    const auto pose = model.pose<double>(q);
    const Vec3 vG = -pose.R * s.Omega.cross(pose.d);  // the contact point at rest
    const double T = 0.5 * model.m * vG.squaredNorm() + 0.5 * s.Omega.dot(model.inertia * s.Omega);
    CHECK(0.5 * v.dot(M * v) == Approx(T).epsilon(1e-14));
    // M is positive definite (the regulariser fills the radial direction)
    CHECK(Eigen::SelfAdjointEigenSolver<Eigen::Matrix<double, 6, 6>>(M).eigenvalues().minCoeff() > 0.0);
  }
}

TEST_CASE("rattleback model: the rest attitude is an equilibrium at height c + c3", "[rattleback]") {
  const Model model = kane_levinson();
  const auto pose = model.pose<double>(q_of(Vec4(1, 0, 0, 0)));
  CHECK(pose.height == Approx(0.01).epsilon(1e-15));  // c = 0.02 and G 0.01 below the centre
  CHECK((pose.d - Vec3(0, 0, -0.01)).norm() < 1e-17);  // straight below G
}

TEST_CASE("rattleback model: unphysical parameters are refused by name and value", "[rattleback]") {
  const Mat3 I = kane_levinson_inertia();
  const auto message = [&](auto&& f) {
    try {
      f();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK_THAT(message([&] { rolling::rolling_body({0.2, 0.03, 0.02}, -1.0, 9.81, I, Vec3(0, 0, -0.01)); }),
             Catch::Contains("parameter m ") && Catch::Contains("got -1"));
  CHECK_THAT(message([&] { rolling::rolling_body({0.2, 0.0, 0.02}, 1.0, 9.81, I, Vec3(0, 0, -0.01)); }),
             Catch::Contains("parameter b ") && Catch::Contains("got 0"));
  CHECK_THAT(message([&] { rolling::rolling_body({0.2, 0.03, 0.02}, 1.0, 9.81, I, Vec3(0, 0, -0.03)); }),
             Catch::Contains("parameter offset ") && Catch::Contains("= 2.25"));  // (0.03/0.02)²
  Mat3 bad = I;
  bad(2, 2) = 1.0;  // C > A + B
  CHECK_THAT(message([&] { rolling::rolling_body({0.2, 0.03, 0.02}, 1.0, 9.81, bad, Vec3(0, 0, -0.01)); }),
             Catch::Contains("parameter inertia ") && Catch::Contains("the largest exceeds the sum"));
  bad = I;
  bad(0, 0) = -1e-4;
  CHECK_THAT(message([&] { rolling::rolling_body({0.2, 0.03, 0.02}, 1.0, 9.81, bad, Vec3(0, 0, -0.01)); }),
             Catch::Contains("parameter inertia ") && Catch::Contains("positive definite"));
}
