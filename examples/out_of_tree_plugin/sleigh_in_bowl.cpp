// Example out-of-tree system plugin, written in L-and-A form: no derivative is written by hand.
//
// The Chaplygin sleigh in a quadratic bowl, in the coordinates q = (x, y, θ) of its contact point
// and heading. The centre of mass sits a distance a ahead of the contact point, so the kinetic
// energy of the body (mass m, inertia I about its centre of mass) is
//   T = ½m[(ẋ − a sin θ θ̇)² + (ẏ + a cos θ θ̇)²] + ½Iθ̇² = ½ vᵀM(q)v,
//   M(q) = [[m, 0, −ma sin θ], [0, m, ma cos θ], [−ma sin θ, ma cos θ, I + ma²]]  (depends on θ),
// the bowl's potential is V = ½k(x² + y²), and the blade does not slip sideways:
//   −sin θ ẋ + cos θ ẏ = 0,  A(q) = [−sin θ, cos θ, 0].
// The framework derives ∇V, ∇²V, ∂A/∂q and the Coriolis terms of M(q) by automatic
// differentiation; `dalembert check sleigh_in_bowl` compares them with finite differences.
#include <cmath>
#include <dalembert/core/drawable.hpp>
#include <dalembert/schemes/fixed_lagrangian_system.hpp>
#include <dalembert/plugin/export.hpp>

namespace {
using namespace dalembert;

/// Every function is generic in the scalar (AD evaluates it on dual numbers): `auto` arguments,
/// `-> scalar_t<decltype(q)>` for a scalar result, and sin/cos called unqualified.
struct SleighInBowlModel {
  static constexpr int dof = 3, constraints = 1;
  double m, I, a, k;

  void mass(const auto& q, auto&& M) const {
    using std::cos, std::sin;
    const scalar_t<decltype(q)> s = sin(q[2]), c = cos(q[2]);
    M << m, 0.0, -m * a * s,  //
        0.0, m, m * a * c,    //
        -m * a * s, m * a * c, I + m * a * a;
  }
  auto potential(const auto& q) const -> scalar_t<decltype(q)> { return 0.5 * k * (q[0] * q[0] + q[1] * q[1]); }
  void constraint_matrix(const auto& q, auto&& A) const {
    using std::cos, std::sin;
    A << -sin(q[2]), cos(q[2]), 0.0;
  }
};

class SleighInBowl final : public FixedLagrangianSystem<SleighInBowlModel>, public Drawable {
 public:
  using FixedLagrangianSystem::FixedLagrangianSystem;
  Layout layout() const override { return {{"x", "y", "theta"}, {"xdot", "ydot", "thetadot"}}; }
  // How it looks (`dalembert animate`): a body at (x, y), heading theta, its skate a behind (red).
  nlohmann::json drawing() const override {
    const double a = fixed_model().a;
    return {{"dimension", 2},
            {"frames", {{{"name", "body"}, {"transform", {{{"translate", {"x", "y"}}}, {{"rotate", "theta"}}}}}}},
            {"shapes", {{{"frame", "body"}, {"polygon", {{-1.7 * a, -0.6 * a}, {1.4 * a, 0.0}, {-1.7 * a, 0.6 * a}}}},
                        {{"frame", "body"}, {"line", {{-1.5 * a, 0.0}, {-0.5 * a, 0.0}}}, {"color", "tab:red"}}}},
            {"traces", {{{"frame", "body"}, {"point", {-a, 0.0}}, {"label", "skate"}}}}};
  }
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "sleigh_in_bowl";
  d.kind = PluginKind::System;
  d.version = "0.2.0";
  d.summary = "Example out-of-tree plugin: a Chaplygin sleigh in a quadratic bowl, M depending on the heading";
  d.params = {{"m", ParamType::Number, 1.0, "mass", 1e-12},
              {"I", ParamType::Number, 0.5, "moment of inertia about the centre of mass", 1e-12},
              {"a", ParamType::Number, 0.3, "distance from the contact point to the centre of mass"},
              {"k", ParamType::Number, 1.0, "bowl stiffness", 0.0}};
  d.make_system = [](const Parameters& p) {
    return std::make_unique<SleighInBowl>(
        SleighInBowlModel{p.number("m"), p.number("I"), p.number("a"), p.number("k")});
  };
  // A state on the constraint (ydot cos theta = xdot sin theta) and a step size: what `dalembert check`
  // exercises this system and every integrator that binds to it on.
  d.examples = {system_example("", {1, 0, 0.3}, {0.9553364891256060, 0.2955202066613396, 0.5}, 0.1)};
  return d;
}
}  // namespace

DALEMBERT_PLUGIN(describe)
