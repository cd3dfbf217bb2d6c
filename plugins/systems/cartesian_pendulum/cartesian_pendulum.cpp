// The planar pendulum in Cartesian coordinates (issue 28): the smallest system with a holonomic
// constraint, and one whose exact solution is known in closed form. A point mass m at q = (x, y)
// (y up) in gravity g, held at distance L from the pivot (the origin) by the holonomic constraint
//   g(q) = x² + y² − L² = 0,
// written only as L = ½ m |v|² − m g y and g: no nonholonomic constraint, no equation of motion.
// The framework derives ∂g/∂q = 2(x, y), ∇²g = 2·1 and the multiplier; the velocity form x ẋ + y ẏ = 0
// is the constraint distribution. In the angle θ from the downward vertical (x = L sin θ,
// y = −L cos θ) this is θ̈ = −(g/L) sin θ, whose solution (pendulum_exact.hpp, README.md) is the
// system's exact solution: the convergence reference, and what the conformance suite measures every
// integrator's order against on a holonomic system.
#include <cmath>
#include <dalembert/core/drawable.hpp>
#include <dalembert/schemes/fixed_lagrangian_system.hpp>
#include <dalembert/plugin/export.hpp>
#include <stdexcept>

#include "pendulum_exact.hpp"

namespace {

using namespace dalembert;

struct CartesianPendulumModel {
  static constexpr int dof = 2, constraints = 0, holonomic = 1;
  double L, m, g;

  void mass(auto&& M) const { M << m, 0.0, 0.0, m; }
  auto potential(const auto& q) const -> scalar_t<decltype(q)> { return m * g * q[1]; }
  /// g(q) = x² + y² − L² (README: the constraint).
  void holonomic_constraint(const auto& q, auto&& c) const { c[0] = q[0] * q[0] + q[1] * q[1] - L * L; }
};

class CartesianPendulum final : public FixedLagrangianSystem<CartesianPendulumModel>, public Drawable {
 public:
  using FixedLagrangianSystem::FixedLagrangianSystem;
  Layout layout() const override { return {{"x", "y"}, {"xdot", "ydot"}}; }

  /// The angle θ from the downward vertical, its rate, and the distance from the circle.
  void diagnostic_names(std::vector<std::string>& n) const override { n = {"angle", "angle_rate", "radius_error"}; }
  void diagnostics(const State& s, double* out) const override {
    const double x = s.q[0], y = s.q[1];
    out[0] = std::atan2(x, -y);
    out[1] = (x * s.v[1] - y * s.v[0]) / (x * x + y * y);
    out[2] = std::hypot(x, y) - fixed_model().L;
  }

  // θ(0) = atan2(x, −y), θ̇(0) = (x ẏ − y ẋ)/L², then θ(t) in closed form (pendulum_exact.hpp).
  bool has_exact_solution() const override { return true; }
  void exact_solution(const State& s0, double t, State& out) const override {
    const auto& p = fixed_model();
    const double x = s0.q[0], y = s0.q[1], r2 = x * x + y * y;
    const double theta0 = std::atan2(x, -y), w0 = (x * s0.v[1] - y * s0.v[0]) / r2;
    const double omega = std::sqrt(p.g / p.L);
    double theta = theta0, w = w0;
    if (omega > 0.0) {
      pendulum::angle_at(theta0, w0, omega, t - s0.t, theta, w);
    } else {  // no gravity: uniform rotation
      theta = theta0 + w0 * (t - s0.t);
    }
    out.t = t;
    out.q.resize(2);
    out.v.resize(2);
    out.q << p.L * std::sin(theta), -p.L * std::cos(theta);
    out.v << p.L * std::cos(theta) * w, p.L * std::sin(theta) * w;
  }

  // How the pendulum looks (core/drawable.hpp): the rod from the pivot at the origin to the bob at
  // (x, y), gravity along −y, the bob's path traced.
  nlohmann::json drawing() const override {
    const double L = fixed_model().L;
    return {{"dimension", 2},
            {"frames", {{{"name", "bob"}, {"transform", {{{"translate", {"x", "y"}}}}}}}},
            {"shapes", {{{"link", {"world", "bob"}}, {"color", "0.3"}, {"width", 2}},
                        {{"frame", "world"}, {"point", {0.0, 0.0}}, {"color", "k"}},
                        {{"frame", "bob"}, {"circle", {{"radius", 0.08 * L}}}, {"color", "tab:red"}}}},
            {"traces", {{{"frame", "bob"}, {"label", "bob"}}}}};
  }

};

/// The state at angle θ and rate w, on the constraints.
PluginExample at_angle(std::string label, double L, double theta, double w, double h) {
  return system_example(std::move(label), {L * std::sin(theta), -L * std::cos(theta)},
                        {L * std::cos(theta) * w, L * std::sin(theta) * w}, h);
}

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "cartesian_pendulum";
  d.kind = PluginKind::System;
  d.version = "1.0.0";
  d.summary = "planar pendulum in Cartesian coordinates q = (x, y): holonomic constraint x^2 + y^2 = L^2, exact solution";
  d.seed = "issue 28 (holonomic constraints); Lawden, Elliptic Functions and Applications (1989) §5.2";
  d.params = {{"L", ParamType::Number, 1.0, "length (distance of the mass from the pivot at the origin)", 1e-12},
              {"m", ParamType::Number, 1.0, "mass", 1e-12},
              {"g", ParamType::Number, 1.0, "gravity, along -y (units with L = m = g = 1 by default)", 0.0}};
  d.make_system = [](const Parameters& p) {
    return std::make_unique<CartesianPendulum>(CartesianPendulumModel{p.number("L"), p.number("m"), p.number("g")});
  };
  // A swing of amplitude ~1.2 rad from below the pivot, and a rotation over the top.
  d.examples = {at_angle("", 1.0, 0.5, 1.0, 0.1), at_angle("rotating", 1.0, 2.0, 2.5, 0.05)};
  return d;
}

}  // namespace

DALEMBERT_PLUGIN(describe)
