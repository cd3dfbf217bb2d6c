// The knife edge on a rocking plane (issue 30 item 1: a potential that changes in time). The knife
// edge of seed 002 Example 4 (spec 002 §2.2, ε = 0, m = I = 1), on a plane whose tilt is driven so
// that the downhill pull g sin α(t) = f₀ cos Ωt oscillates: L = ½(ẋ² + ẏ² + φ̇²) − U(t, q),
//   U(t, q) = −f₀ cos(Ωt) x,            constraint sin φ ẋ − cos φ ẏ = 0.
// The blade turns freely, φ = φ₀ + ωt, and its speed along itself, u = ẋ cos φ + ẏ sin φ, obeys
// u̇ = f₀ cos(Ωt) cos φ (README). Hence the closed-form invariant of the flow
//   K = u − (f₀/2) t [cos(A₁ + δ₁t/2) sinc(δ₁t/2) + cos(A₂ + δ₂t/2) sinc(δ₂t/2)],
//   A₁ = ωt − φ, δ₁ = Ω − ω, A₂ = φ − ωt, δ₂ = Ω + ω, ω = φ̇, sinc x = sin x / x,
// (K = u at t = 0), finite at the resonance Ω = ω, where the blade is propelled: u grows like
// (f₀/2) t cos φ₀. A study checks K, and the energy balance E − E₀ = ∫ ∂U/∂t dt, at each scheme's order.
#include <cmath>
#include <dalembert/core/constraint_frame.hpp>
#include <dalembert/core/drawable.hpp>
#include <dalembert/plugin/export.hpp>
#include <dalembert/schemes/fixed_lagrangian_system.hpp>
#include <dalembert_plugins/knife_edge.hpp>

namespace {

using namespace dalembert;

struct RockingKnifeEdgeModel : plugins::KnifeEdgeConstraint {
  double f0, Omega;
  auto potential(const auto& q) const -> scalar_t<decltype(q)> { return scalar_t<decltype(q)>(0.0); }
  // U(t, q) = −f₀ cos(Ωt) x: the time-dependent potential (schemes/fixed_time_potential.hpp).
  auto time_potential(const auto& t, const auto& q) const -> scalar_t<decltype(q)> {
    using std::cos;
    return -f0 * cos(Omega * t) * q[0];
  }
};

/// sin x / x, with its Taylor series where the quotient loses digits.
double sinc(double x) { return std::abs(x) < 1e-4 ? 1.0 - x * x / 6.0 : std::sin(x) / x; }

class RockingKnifeEdge final : public FixedLagrangianSystem<RockingKnifeEdgeModel>,
                               public ConstraintFrame,
                               public Drawable {
 public:
  using FixedLagrangianSystem::FixedLagrangianSystem;
  Layout layout() const override { return {{"x", "y", "phi"}, {"xdot", "ydot", "phidot"}}; }
  void frame(ConstVecRef q, MatRef B) const override { plugins::knife_edge_frame(q, 0.0, B); }

  void diagnostic_names(std::vector<std::string>& n) const override { n = {"u", "drift_invariant"}; }
  void diagnostics(const State& s, double* out) const override {
    const double t = s.t, phi = s.q[2], w = s.v[2], u = s.v[0] * std::cos(phi) + s.v[1] * std::sin(phi);
    const double f0 = fixed_model().f0, W = fixed_model().Omega;
    const double A1 = w * t - phi, d1 = W - w, A2 = phi - w * t, d2 = W + w;
    out[0] = u;
    out[1] = u - 0.5 * f0 * t *
                     (std::cos(A1 + 0.5 * d1 * t) * sinc(0.5 * d1 * t) + std::cos(A2 + 0.5 * d2 * t) * sinc(0.5 * d2 * t));
  }
  nlohmann::json drawing() const override { return plugins::knife_edge_drawing(); }
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "rocking_knife_edge";
  d.kind = PluginKind::System;
  d.version = "1.0.0";
  d.summary = "Knife edge on a rocking plane: U(t, q) = -f0 cos(Omega t) x, q = (x, y, phi), sin(phi) xdot = "
              "cos(phi) ydot; closed-form invariant drift_invariant";
  d.seed = "issue 30 item 1 (beyond the seeds): the knife edge of 002 Example 4 with a time-dependent potential";
  d.params = {{"f0", ParamType::Number, 0.5, "amplitude of the downhill pull g sin(alpha(t)) (seed 002: 1/2, fixed)"},
              {"Omega", ParamType::Number, 0.8,
               "angular frequency of the rocking (0.8: the example's turning rate, the resonance)"}};
  d.make_system = [](const Parameters& p) {
    return std::make_unique<RockingKnifeEdge>(RockingKnifeEdgeModel{{0.0}, p.number("f0"), p.number("Omega")});
  };
  d.examples = {system_example("", {0, 0, 0}, {0.8, 0, 0.8}, 0.1)};  // the seed's Figs 5-6 start
  return d;
}

}  // namespace

DALEMBERT_PLUGIN(describe)
