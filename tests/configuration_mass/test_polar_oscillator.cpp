// polar_oscillator (issue 27): the M(q) system with a closed form that the conformance suite
// measures integrators' orders on. The closed form is checked against an independent reference:
// the Cartesian motion of the unit oscillator, x(t) = x0 cos t + ẋ0 sin t (so r, ṙ, θ̇, z are
// recomputed from Cartesian coordinates here, and θ by accumulating the angle of small increments),
// over many half-turns forwards and backwards, for both senses of rotation.
#include <catch2/catch.hpp>
#include <cmath>
#include <dalembert/study/derivative_check.hpp>

#include "support.hpp"

using namespace dalembert;

namespace {

// The reference at time t: Cartesian motion, θ unwrapped by summing the angle between successive
// positions 1e-3 apart in time (each far below a half-turn).
State reference(const State& s0, double t) {
  const double r0 = s0.q[0], th0 = s0.q[1], rd = s0.v[0], w = s0.v[1];
  const double x0 = r0 * std::cos(th0), y0 = r0 * std::sin(th0);
  const double xd = rd * std::cos(th0) - r0 * w * std::sin(th0), yd = rd * std::sin(th0) + r0 * w * std::cos(th0);
  auto pos = [&](double s) { return std::array<double, 2>{x0 * std::cos(s) + xd * std::sin(s), y0 * std::cos(s) + yd * std::sin(s)}; };
  const int n = static_cast<int>(std::ceil(std::abs(t) / 1e-3));
  double theta = th0;
  auto prev = pos(0.0);
  for (int k = 1; k <= n; ++k) {
    const auto p = pos(t * k / n);
    theta += std::atan2(prev[0] * p[1] - prev[1] * p[0], prev[0] * p[0] + prev[1] * p[1]);
    prev = p;
  }
  const double x = prev[0], y = prev[1];
  const double vx = -x0 * std::sin(t) + xd * std::cos(t), vy = -y0 * std::sin(t) + yd * std::cos(t);
  const double r = std::hypot(x, y), ell = r0 * r0 * w;
  return test::make_state({r, theta, s0.q[2] + ell * t}, {(x * vx + y * vy) / r, (x * vy - y * vx) / (r * r), ell}, t);
}

}  // namespace

TEST_CASE("polar_oscillator: the closed form is the Cartesian oscillator, over many half-turns both ways", "[configuration_mass][polar]") {
  auto sys = test::registry().make_system("polar_oscillator", nullptr, "test");
  for (double w : {0.8, -0.8, 2.5}) {
    const State s0 = test::make_state({1.0, 0.3, -0.2}, {0.3, w, w});  // zdot = r^2 thetadot at r = 1
    REQUIRE(sys->constraint_residual(s0) == 0.0);
    for (double t : {0.5, 3.0, 7.5, 20.0, -0.5, -7.5, -20.0}) {
      State exact;
      sys->exact_solution(s0, t, exact);
      const State ref = reference(s0, t);
      INFO("thetadot0 = " << w << ", t = " << t);
      // The reference sums up to 20 000 angle increments: 1e-12 covers its round-off.
      CHECK((exact.q - ref.q).lpNorm<Eigen::Infinity>() < 1e-12 * (1.0 + std::abs(ref.q[1])));
      CHECK((exact.v - ref.v).lpNorm<Eigen::Infinity>() < 1e-12);
      CHECK(sys->constraint_residual(exact) < 1e-14);  // zdot = r^2 thetadot holds along the motion
      CHECK(std::abs(sys->energy(exact) - sys->energy(s0)) < 1e-13);
    }
  }
}

TEST_CASE("polar_oscillator: M(q), and dalembert check passes at its example state", "[configuration_mass][polar]") {
  auto sys = test::registry().make_system("polar_oscillator", nullptr, "test");
  const auto& cl = dynamic_cast<const LagrangianSystem&>(*sys);
  CHECK_FALSE(cl.constant_mass());
  Mat M(3, 3);
  cl.mass(test::make_state({2.0, 0, 0}, {0, 0, 0}).q, M);
  CHECK(M(1, 1) == 4.0);  // r^2
  DerivativeCheckOptions opt;
  opt.state = test::make_state({1.0, 0.0, 0.0}, {0.3, 0.8, 0.8});
  opt.flow = true;
  const auto result = check_derivatives(cl, opt);
  INFO(format_check_result("polar_oscillator", result));
  CHECK(result.ok());
}
