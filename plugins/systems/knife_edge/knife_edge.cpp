// The knife edge on an inclined plane (seed 002 Example 4, eps = 0) and the perturbed knife edge
// (Example 5, eps > 0), spec 002 §2.2. Internal ordering q = (x, y, phi) (spec §6 A2; the paper
// writes (x, phi, y)). L = ½(ẋ²+ẏ²+φ̇²) + x/2, i.e. M = I, V = −x/2 (m = I = 1, g sin α = ½).
// Constraint sin φ ẋ − (cos φ − ε) ẏ = 0, μ(q) = (sin φ, −(cos φ − ε), 0).
// Regular frame of D (spec §2.2): B = [[cos φ − ε, 0], [sin φ, 0], [0, 1]].
#include <cmath>
#include <dalembert/core/drawable.hpp>
#include <dalembert/core/constraint_frame.hpp>
#include <dalembert/schemes/fixed_lagrangian_system.hpp>
#include <dalembert/plugin/export.hpp>
#include <dalembert_plugins/knife_edge.hpp>

namespace {

using namespace dalembert;

/// L and A (M = I). The derivatives stay in closed form, checked against AD: MLA, DLA and the exact
/// discrete flow call them through the virtual interface in every Newton iteration, where AD costs
/// 1.16× per MLA step and 1.16× per generic RK4 step (bench_steps mla/knife_edge 6.9 vs 8.0 µs,
/// rk4_generic/knife_edge 528 vs 612 ns, one run).
struct KnifeEdgeModel : plugins::KnifeEdgeConstraint {
  // V = −x/2 (spec 002 §2.2).
  auto potential(const auto& q) const -> scalar_t<decltype(q)> { return -0.5 * q[0]; }
  void potential_gradient(const auto&, auto&& g) const { g << -0.5, 0.0, 0.0; }  // ∇V
  void potential_hessian(const auto&, auto&& H) const { H.setZero(); }          // ∇²V = 0
};

class KnifeEdge final : public FixedLagrangianSystem<KnifeEdgeModel>, public ConstraintFrame, public Drawable {
 public:
  explicit KnifeEdge(double eps) : FixedLagrangianSystem(KnifeEdgeModel{{eps}}) {}
  Layout layout() const override { return {{"x", "y", "phi"}, {"xdot", "ydot", "phidot"}}; }
  void frame(ConstVecRef q, MatRef B) const override { plugins::knife_edge_frame(q, eps(), B); }

  void diagnostic_names(std::vector<std::string>& n) const override { n = {"phidot", "u_sqrtN"}; }
  // Invariants: φ̇, and for ε = 0 nothing else; u√N with u the speed along e1 is reported.
  void diagnostics(const State& s, double* out) const override {
    const double phi = s.q[2], N = 1.0 - 2.0 * eps() * std::cos(phi) + eps() * eps();
    out[0] = s.v[2];
    out[1] = (s.v[0] * (std::cos(phi) - eps()) + s.v[1] * std::sin(phi)) / std::sqrt(N);
  }

  // Closed form only for ε = 0 (spec 002 §2.2); for ε > 0 there is none.
  bool has_exact_solution() const override { return eps() == 0.0; }
  void exact_solution(const State& s0, double t, State& out) const override {
    if (eps() != 0.0) System::exact_solution(s0, t, out);
    const double x0 = s0.q[0], y0 = s0.q[1], p0 = s0.q[2];
    const double w = s0.v[2], dt = t - s0.t;
    const double u0 = s0.v[0] * std::cos(p0) + s0.v[1] * std::sin(p0);
    const double phi = p0 + w * dt;
    out.t = t;
    out.q.resize(3);
    out.v.resize(3);
    double x, y, u;
    if (w != 0.0) {
      // u = a + sin φ/(2w), a = u0 − sin φ0/(2w); x, y from ẋ = u cos φ, ẏ = u sin φ.
      const double a = u0 - std::sin(p0) / (2.0 * w);
      u = a + std::sin(phi) / (2.0 * w);
      x = x0 + (a / w) * (std::sin(phi) - std::sin(p0)) +
          (std::sin(phi) * std::sin(phi) - std::sin(p0) * std::sin(p0)) / (4.0 * w * w);
      y = y0 - (a / w) * (std::cos(phi) - std::cos(p0)) +
          (1.0 / (2.0 * w)) * (dt / 2.0 - (std::sin(2.0 * phi) - std::sin(2.0 * p0)) / (4.0 * w));
    } else {
      const double s = u0 * dt + dt * dt * std::cos(p0) / 4.0;
      u = u0 + 0.5 * std::cos(p0) * dt;
      x = x0 + s * std::cos(p0);
      y = y0 + s * std::sin(p0);
    }
    out.q << x, y, phi;
    out.v << u * std::cos(phi), u * std::sin(phi), w;
  }

  nlohmann::json drawing() const override { return plugins::knife_edge_drawing(); }

 private:
  double eps() const { return fixed_model().eps; }
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "knife_edge";
  d.kind = PluginKind::System;
  d.version = "1.0.0";
  d.summary = "Knife edge on an inclined plane, q = (x, y, phi), constraint sin(phi) xdot = (cos(phi) - eps) ydot; "
              "closed form for eps = 0";
  d.seed = "002 (Anahory Simoes, Marrero, Martin de Diego; Examples 4 and 5)";
  d.params = {{"eps", ParamType::Number, 0.0,
               "perturbation eps of the constraint (0: Example 4, 0.1: Example 5); the frame needs cos(phi) != eps only "
               "in the paper's frame, not in the regular one used here",
               0.0, 0.99}};
  d.make_system = [](const Parameters& p) { return std::make_unique<KnifeEdge>(p.number("eps")); };
  d.examples = {system_example("", {0, 0, 0}, {0.8, 0, 0.8}, 0.1)};  // spec 002 Figs 5-6
  return d;
}

}  // namespace

DALEMBERT_PLUGIN(describe)
