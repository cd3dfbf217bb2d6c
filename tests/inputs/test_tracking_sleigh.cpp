// tracking_sleigh, the feedback-driven example (issue 30 item 3): the framework's forced field
// against the sleigh's equations derived by hand in its README (eq. (1)), the law's steady state
// (the skate on the circle at v_ref) as an equilibrium of that field, and the bundled study's
// claims (convergence to the circle, the energy balance at each scheme's order).
#include <catch2/catch.hpp>
#include <cmath>
#include <dalembert/core/nonholonomic_field.hpp>
#include <numbers>

#include "claims_support.hpp"
#include "support.hpp"

using namespace dalembert;
using nlohmann::json;

namespace {

constexpr double I = 1.0, m = 1.0, a = 0.3, R = 2.0;

std::unique_ptr<System> tracking(json params = json::object()) {
  return test::registry().make_system("tracking_sleigh", params, "test");
}

// A state on the constraint from the skate position (xs, ys), heading θ, forward speed v and ω:
// the centre of mass is a ahead of the skate, its lateral velocity a ω.
State from_skate(double xs, double ys, double th, double v, double w) {
  const double c = std::cos(th), s = std::sin(th);
  return test::make_state({th, xs + a * c, ys + a * s}, {w, v * c - a * w * s, v * s + a * w * c});
}

// (ω̇, v̇) from the field: ω̇ = θ̈, v̇ = d/dt(cosθ ẋ + sinθ ẏ).
std::pair<double, double> rates(const System& sys, const State& st) {
  NonholonomicVectorField field;
  field.bind(dynamic_cast<const ConstrainedLagrangian&>(sys));
  Vec qd(3), vd(3);
  field.evaluate(st.t, st.q, st.v, qd, vd);
  const double th = st.q[0], c = std::cos(th), s = std::sin(th), w = st.v[0];
  const double vdot = c * vd[1] + s * vd[2] + w * (-s * st.v[1] + c * st.v[2]);
  return {vd[0], vdot};
}

}  // namespace

TEST_CASE("tracking_sleigh: the forced field is I' wdot = -m a v w + tau, m vdot = m a w^2 + f", "[inputs]") {
  auto sys = tracking();
  std::vector<std::string> names;
  sys->diagnostic_names(names);
  const auto col = [&](const std::string& n) { return std::find(names.begin(), names.end(), n) - names.begin(); };
  for (const State& st : {from_skate(3.0, 0.0, 1.2, 0.5, 0.2), from_skate(-1.0, 2.5, -2.0, 1.7, -0.9),
                          from_skate(0.4, -1.1, 3.0, -0.3, 1.4)}) {
    std::vector<double> d(names.size());
    sys->diagnostics(st, d.data());
    const double tau = d[col("torque")], f = d[col("thrust")], v = d[col("speed")], w = st.v[0];
    const auto [wdot, vdot] = rates(*sys, st);
    const double Ip = I + m * a * a;
    INFO("tau " << tau << " f " << f << " v " << v << " w " << w);
    CHECK(std::abs(Ip * wdot - (-m * a * v * w + tau)) < 1e-13);
    CHECK(std::abs(m * vdot - (m * a * w * w + f)) < 1e-13);
    CHECK(sys->constraint_residual(st) < 1e-15);
  }
}

TEST_CASE("tracking_sleigh: the skate on the circle at v_ref, heading tangent, is an equilibrium of the law",
          "[inputs]") {
  for (double v_ref : {1.0, 0.4}) {
    auto sys = tracking({{"v_ref", v_ref}});
    for (double phi : {0.0, 1.0, -2.5}) {  // the skate's polar angle; heading φ + π/2 (counter-clockwise)
      const State st = from_skate(R * std::cos(phi), R * std::sin(phi), phi + std::numbers::pi / 2, v_ref, v_ref / R);
      const auto [wdot, vdot] = rates(*sys, st);
      CHECK(std::abs(wdot) < 1e-14);
      CHECK(std::abs(vdot) < 1e-14);
    }
  }
}

TEST_CASE("tracking study: onto the circle, and the energy balance at each scheme's order, DLA and MLA included",
          "[inputs][studies]") {
  const test::TempDir dir("tracking");
  test::require_claims(test::run_bundled_study("studies/tracking/circle_tracking.json", dir / "run"), 13,
                       {"RK4 on the circle", "RK4 at the speed", "RK2 offset O(h^2)", "RK4 energy balance O(h^4)",
                        "RK2 energy balance O(h^2)", "DLA offset O(h^2)", "DLA on the skate constraint",
                        "DLA energy balance O(h^2)", "MLA energy balance O(h^2)"});
}
