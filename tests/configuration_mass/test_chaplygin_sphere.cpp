// Chaplygin's ball (plugins/systems/chaplygin_sphere, issue 14): a system in L-and-A form whose
// mass matrix depends on the configuration. Its derivatives (all from AD) pass the checker; RK4 from
// a perturbed permanent rotation conserves the energy and the three components of Chaplygin's
// integral K (the angular momentum about the contact point) to its truncation error; the rolling
// about a horizontal principal axis is an exact steady solution; and the diagnostics' K agrees with
// K computed independently in the body frame from a finite-difference angular velocity.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <dalembert/core/constrained_lagrangian.hpp>
#include <dalembert/study/derivative_check.hpp>
#include <Eigen/Geometry>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "support.hpp"

using namespace dalembert;
using namespace dalembert::test;
using nlohmann::json;

namespace {

constexpr double kPi = 3.14159265358979323846;

std::unique_ptr<System> sphere(json params = json::object()) {
  return registry().make_system("chaplygin_sphere", params, "test");
}
const LagrangianSystem& lagrangian(const System& s) { return dynamic_cast<const LagrangianSystem&>(s); }

/// Prints a measured number when SPHERE_VERBOSE is set (the values quoted in the report).
double report(const std::string& what, double value) {
  if (std::getenv("SPHERE_VERBOSE")) std::printf("MEASURED %-60s %.6e\n", what.c_str(), value);
  return value;
}

/// Q = Rz(φ) Rx(θ) Rz(ψ) by Eigen's angle-axis rotations (independent of the plugin's formulas).
Eigen::Matrix3d orientation(const Vec& q) {
  using Eigen::AngleAxisd, Eigen::Vector3d;
  return (AngleAxisd(q[2], Vector3d::UnitZ()) * AngleAxisd(q[3], Vector3d::UnitX()) *
          AngleAxisd(q[4], Vector3d::UnitZ()))
      .toRotationMatrix();
}

/// Body angular velocity Ω from Qᵀ Q̇ = [Ω]×, Q̇ by a fourth-order central difference along v.
Eigen::Vector3d body_angular_velocity(const Vec& q, const Vec& v) {
  const double e = 1e-3;
  auto Q = [&](double s) { return orientation(q + s * v); };
  const Eigen::Matrix3d Qd = (8.0 * (Q(e) - Q(-e)) - (Q(2 * e) - Q(-2 * e))) / (12.0 * e);
  const Eigen::Matrix3d W = orientation(q).transpose() * Qd;
  return {0.5 * (W(2, 1) - W(1, 2)), 0.5 * (W(0, 2) - W(2, 0)), 0.5 * (W(1, 0) - W(0, 1))};
}

/// Spatial angular velocity ω = φ̇ e_z + θ̇ Rz(φ) e_x + ψ̇ Q e_z, from Eigen's rotations.
Eigen::Vector3d spatial_angular_velocity(const Vec& q, const Vec& v) {
  const Eigen::Vector3d ex = Eigen::AngleAxisd(q[2], Eigen::Vector3d::UnitZ()) * Eigen::Vector3d::UnitX();
  return v[2] * Eigen::Vector3d::UnitZ() + v[3] * ex + v[4] * orientation(q).col(2);
}

/// The constrained velocity of a given angular rate: ẋ = R ω_y, ẏ = −R ω_x (contact point at rest).
State rolling_state(double phi, double theta, double psi, double phid, double thetad, double psid, double R = 1.0) {
  State s;
  s.t = 0.0;
  s.q = Vec::Zero(5);
  s.q << 0.0, 0.0, phi, theta, psi;
  s.v = Vec::Zero(5);
  s.v << 0.0, 0.0, phid, thetad, psid;
  const Eigen::Vector3d w = spatial_angular_velocity(s.q, s.v);
  s.v[0] = R * w.y();
  s.v[1] = -R * w.x();
  return s;
}

std::vector<double> diagnostics(const System& sys, const State& s) {
  std::vector<std::string> names;
  sys.diagnostic_names(names);
  std::vector<double> d(names.size());
  sys.diagnostics(s, d.data());
  return d;
}

int diagnostic(const System& sys, const std::string& name) {
  std::vector<std::string> names;
  sys.diagnostic_names(names);
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<int>(i);
  throw std::runtime_error("no diagnostic " + name);
}

/// Steps the registry's rk4 N times, calling `each` after every step.
State run_rk4(const System& sys, State s, double h, long N, const std::function<void(const State&)>& each) {
  auto rk4 = registry().make_integrator("rk4", json::object(), "test");
  rk4->bind(sys);
  rk4->begin(s);
  for (long k = 0; k < N; ++k) {
    rk4->advance(s, h);
    each(s);
  }
  return s;
}

}  // namespace

TEST_CASE("chaplygin_sphere: its AD derivatives pass the checker and M depends on the configuration",
          "[chaplygin_sphere][derivative_check]") {
  const auto sys = sphere();
  const auto& lag = lagrangian(*sys);
  CHECK_FALSE(lag.constant_mass());
  DerivativeCheckOptions opt;
  opt.samples = 8;
  opt.flow = true;
  opt.state = rolling_state(0.3, kPi / 2 + 0.2, 0.5, 0.2, -0.3, 1.0);
  const auto result = check_derivatives(lag, opt);
  INFO(format_check_result("chaplygin_sphere", result));
  CHECK(result.ok());
  CHECK(result.summary.size() >= 8);

  // M(q) at two configurations: its rotational block J_bᵀ I J_b changes with θ and ψ, not with
  // x, y, φ; compared with the independent formula Jᵀ Q I Qᵀ J, J the spatial Jacobian.
  auto mass = [&](const Vec& q) {
    Mat M(5, 5);
    lag.mass(q, M);
    return M;
  };
  auto independent_mass = [](const Vec& q, double m, const Eigen::Vector3d& I) {
    const Eigen::Matrix3d Q = orientation(q);
    Eigen::Matrix3d J;  // ω = J (φ̇, θ̇, ψ̇): columns e_z, Rz(φ)e_x, Q e_z
    J.col(0) = Eigen::Vector3d::UnitZ();
    J.col(1) = Eigen::AngleAxisd(q[2], Eigen::Vector3d::UnitZ()) * Eigen::Vector3d::UnitX();
    J.col(2) = Q.col(2);
    Mat M = Mat::Zero(5, 5);
    M(0, 0) = M(1, 1) = m;
    M.bottomRightCorner(3, 3) = J.transpose() * Q * I.asDiagonal() * Q.transpose() * J;
    return M;
  };
  Vec q1(5), q2(5), q3(5);
  q1 << 0.0, 0.0, 0.0, 1.2, 0.3;
  q2 << 0.0, 0.0, 0.0, 1.9, -0.7;
  q3 << 4.0, -2.0, 1.1, 1.2, 0.3;  // q1 moved and turned about the vertical
  const Mat M1 = mass(q1), M2 = mass(q2), M3 = mass(q3);
  CHECK((M1 - M2).cwiseAbs().maxCoeff() > 0.05);
  CHECK((M1 - M3).cwiseAbs().maxCoeff() < 1e-14);
  const Eigen::Vector3d I(0.4, 0.5, 0.6);
  for (const Vec& q : {q1, q2, q3}) CHECK((mass(q) - independent_mass(q, 1.0, I)).cwiseAbs().maxCoeff() < 1e-14);
  // And the energy ½vᵀMv equals ½m|ẋ|² + ½ΩᵀIΩ with Ω from the finite-difference Qᵀ Q̇.
  const State s = rolling_state(0.3, 1.4, 0.5, 0.2, -0.3, 1.0);
  const Eigen::Vector3d Om = body_angular_velocity(s.q, s.v);
  const double E = 0.5 * (s.v[0] * s.v[0] + s.v[1] * s.v[1]) + 0.5 * Om.dot(I.asDiagonal() * Om);
  CHECK(sys->energy(s) == Approx(E).epsilon(1e-10));
  CHECK(sys->constraint_residual(s) < 1e-14);
}

TEST_CASE("chaplygin_sphere: RK4 from a perturbed permanent rotation conserves the energy and Chaplygin's K",
          "[chaplygin_sphere]") {
  const auto sys = sphere();
  const State s0 = rolling_state(0.1, kPi / 2 + 0.05, 0.2, 0.03, 0.02, 1.0);
  const double E0 = sys->energy(s0);
  const std::vector<double> K0 = diagnostics(*sys, s0);
  const double Kscale = std::max({std::abs(K0[0]), std::abs(K0[1]), std::abs(K0[2])});
  double dE = 0.0, dK[3] = {0.0, 0.0, 0.0}, residual = 0.0, theta_min = 10.0, theta_max = -10.0;
  const double h = 1e-3;
  const long N = 20000;
  run_rk4(*sys, s0, h, N, [&](const State& s) {
    dE = std::max(dE, std::abs(sys->energy(s) - E0) / E0);
    const std::vector<double> K = diagnostics(*sys, s);
    for (int i = 0; i < 3; ++i) dK[i] = std::max(dK[i], std::abs(K[i] - K0[i]) / Kscale);
    residual = std::max(residual, sys->constraint_residual(s) / s.v.norm());
    theta_min = std::min(theta_min, s.q[3]);
    theta_max = std::max(theta_max, s.q[3]);
  });
  report("perturbed rotation: max relative energy error (rk4 h=1e-3 T=20)", dE);
  report("perturbed rotation: max |K_x - K_x(0)| / max|K(0)|", dK[0]);
  report("perturbed rotation: max |K_y - K_y(0)| / max|K(0)|", dK[1]);
  report("perturbed rotation: max |K_z - K_z(0)| / max|K(0)|", dK[2]);
  report("perturbed rotation: max |A(q)v| / |v|", residual);
  report("perturbed rotation: min theta", theta_min);
  report("perturbed rotation: max theta", theta_max);
  CHECK(dE < 1e-11);  // measured 2.3e-14 (the issue asks for < 1e-9)
  for (double d : dK) CHECK(d < 1e-11);  // measured 5e-15 .. 2e-14
  CHECK(residual < 1e-12);  // measured 1.1e-14
  CHECK(theta_min > 0.3);
  CHECK(theta_max < kPi - 0.3);
}

TEST_CASE("chaplygin_sphere: rolling about a horizontal principal axis is an exact steady solution",
          "[chaplygin_sphere]") {
  const double R = 0.7, w = 1.3;
  const auto sys = sphere({{"R", R}});
  for (double phi : {0.0, 0.6}) {
    INFO("phi = " << phi);
    const State s0 = rolling_state(phi, kPi / 2, 0.0, 0.0, 0.0, w, R);
    // ω = w Q e_3 = w (sinφ, −cosφ, 0): the centre moves along (−cosφ, −sinφ) at speed R w.
    CHECK(s0.v[0] == Approx(-R * w * std::cos(phi)).margin(1e-9));
    CHECK(s0.v[1] == Approx(-R * w * std::sin(phi)).margin(1e-9));
    double drift = 0.0, path = 0.0;
    const double h = 1e-3;
    const long N = 10000;
    long k = 0;
    const State s = run_rk4(*sys, s0, h, N, [&](const State& st) {
      ++k;
      drift = std::max({drift, std::abs(st.q[3] - s0.q[3]), std::abs(st.q[2] - s0.q[2]), std::abs(st.v[3]),
                        std::abs(st.v[2]), std::abs(st.v[4] - w)});
      const double t = k * h;
      path = std::max({path, std::abs(st.q[0] - s0.v[0] * t), std::abs(st.q[1] - s0.v[1] * t),
                       std::abs(st.q[4] - w * t)});
    });
    report("steady rolling phi=" + std::to_string(phi) + ": max drift of theta, phi, phidot, thetadot, psidot", drift);
    report("steady rolling phi=" + std::to_string(phi) + ": max |x - xdot0 t|, |y - ydot0 t|, |psi - w t|", path);
    CHECK(drift < 1e-12);
    CHECK(path < 1e-10);
    CHECK(std::hypot(s.v[0], s.v[1]) == Approx(R * w).epsilon(1e-12));
  }
}

TEST_CASE("chaplygin_sphere: the diagnostics' K equals K computed in the body frame",
          "[chaplygin_sphere]") {
  const double R = 0.8, m = 1.7;
  const Eigen::Vector3d I(0.3, 0.45, 0.7);
  const auto sys = sphere({{"R", R}, {"m", m}, {"I1", I[0]}, {"I2", I[1]}, {"I3", I[2]}});
  const int ix = diagnostic(*sys, "K_x"), in = diagnostic(*sys, "K_norm"), is = diagnostic(*sys, "sin_theta");
  const std::vector<State> states = {rolling_state(0.1, kPi / 2 + 0.05, 0.2, 0.03, 0.02, 1.0, R),
                                     rolling_state(-1.2, 0.7, 2.5, 0.4, -0.8, 0.3, R),
                                     rolling_state(2.9, 2.6, -0.4, -1.1, 0.5, -0.9, R)};
  double worst = 0.0;
  for (const State& s : states) {
    // K_body = IΩ + mR²(Ω − (Ω·γ)γ), γ = Qᵀe_z; K = Q K_body.
    const Eigen::Matrix3d Q = orientation(s.q);
    const Eigen::Vector3d Om = body_angular_velocity(s.q, s.v), gamma = Q.transpose().col(2);
    CHECK((Q * Om - spatial_angular_velocity(s.q, s.v)).norm() < 1e-10);  // Qᵀ Q̇ agrees with ω = J q̇
    const Eigen::Vector3d K = Q * (I.asDiagonal() * Om + m * R * R * (Om - Om.dot(gamma) * gamma));
    const std::vector<double> d = diagnostics(*sys, s);
    for (int i = 0; i < 3; ++i) {
      worst = std::max(worst, std::abs(d[ix + i] - K[i]));
      CHECK(d[ix + i] == Approx(K[i]).margin(1e-9));
    }
    CHECK(d[in] == Approx(K.norm()).epsilon(1e-9));
    CHECK(d[is] == Approx(std::sin(s.q[3])).margin(1e-15));
    // K is also the angular momentum about the contact point: I_C ω + m (C − P) × v_C.
    const Eigen::Vector3d w = Q * Om, vC(s.v[0], s.v[1], 0.0);
    const Eigen::Vector3d KP = Q * I.asDiagonal() * Q.transpose() * w + m * Eigen::Vector3d(0, 0, R).cross(vC);
    CHECK((KP - K).norm() < 1e-9);
  }
  report("diagnostics K vs body-frame K: max difference", worst);
}

TEST_CASE("chaplygin_sphere: a permanent rotation about the largest or smallest moment stays near theta = pi/2",
          "[chaplygin_sphere]") {
  // Axis 3 horizontal, rolling about it, θ perturbed by 0.05: θ stays near π/2 when I3 is the
  // largest or the smallest moment and leaves it when I3 is the middle one (see the README).
  auto excursion = [](double I1, double I2, double I3) {
    const auto sys = sphere({{"I1", I1}, {"I2", I2}, {"I3", I3}});
    const State s0 = rolling_state(0.0, kPi / 2 + 0.05, 0.0, 0.05, 0.05, 1.0);
    double worst = 0.0;
    run_rk4(*sys, s0, 1e-2, 10000, [&](const State& s) { worst = std::max(worst, std::abs(s.q[3] - kPi / 2)); });
    return worst;
  };
  const double largest = report("theta excursion, I3 largest (0.4,0.5,0.6), T=100", excursion(0.4, 0.5, 0.6));
  const double smallest = report("theta excursion, I3 smallest (0.5,0.6,0.4), T=100", excursion(0.5, 0.6, 0.4));
  const double middle = report("theta excursion, I3 middle (0.4,0.6,0.5), T=100", excursion(0.4, 0.6, 0.5));
  CHECK(largest < 0.2);
  CHECK(smallest < 0.2);
  CHECK(middle > 0.5);
}
