// The nonholonomic particle (seed 000 §4.1, spec 000 §2.1): Q = R³, M = I, V = 0,
// constraint ż − y ẋ = 0, with its closed-form solution.
#include <cmath>
#include <dalembert/core/drawable.hpp>
#include <dalembert/schemes/fixed_lagrangian_system.hpp>
#include <dalembert/plugin/export.hpp>

namespace {

using namespace dalembert;

/// The model at fixed size (schemes/fixed_lagrangian_system.hpp); M = I, V = 0.
struct ParticleModel {
  static constexpr int dof = 3, constraints = 1;
  auto potential(const auto& q) const -> scalar_t<decltype(q)> { return scalar_t<decltype(q)>(0.0); }
  void potential_gradient(const auto&, auto&& g) const { g.setZero(); }
  void potential_hessian(const auto&, auto&& H) const { H.setZero(); }
  // A(q) = [−y, 0, 1]
  void constraint_matrix(const auto& q, auto&& A) const { A << -q[1], 0.0, 1.0; }
  // The only nonzero ∂A_{1,i}/∂q^j is ∂A_{1,x}/∂y = −1.
  void constraint_gradient(const auto&, int, auto&& G) const {
    G.setZero();
    G(0, 1) = -1.0;
  }
  // Closed forms the compiled schemes use (schemes/fixed_lagrangian_system.hpp), from A of spec 000
  // §2.1: A x, f += Aᵀλ, and from the gradient (∂A/∂q)[v]v = −ẋẏ and DA[w] = (0, −w_x, 0).
  void apply_constraint(const auto& q, const auto& x, auto&& y) const { y[0] = x[2] - q[1] * x[0]; }
  void add_constraint_force(const auto& q, const auto& lambda, auto&& f) const {
    f[0] -= q[1] * lambda[0];
    f[2] += lambda[0];
  }
  void curvature(const auto&, const auto& v, auto&& c) const { c[0] = -v[0] * v[1]; }
  void constraint_derivative(const auto&, const auto& w, auto&& DA) const { DA << 0.0, -w[0], 0.0; }
};

class NonholonomicParticle final : public FixedLagrangianSystem<ParticleModel>, public Drawable {
 public:
  Layout layout() const override { return {{"x", "y", "z"}, {"xdot", "ydot", "zdot"}}; }

  void diagnostic_names(std::vector<std::string>& n) const override {
    n = {"ydot", "xdot_sqrt_1_plus_y2"};  // the invariants ẏ and ẋ√(1+y²)
  }
  void diagnostics(const State& s, double* out) const override {
    out[0] = s.v[1];
    out[1] = s.v[0] * std::sqrt(1.0 + s.q[1] * s.q[1]);
  }

  bool has_exact_solution() const override { return true; }
  // Spec 000 §2.1: y = y₀ + ẏ₀t, c = ẋ₀√(1+y₀²), x = x₀ + (c/ẏ₀)(asinh y − asinh y₀),
  // z = z₀ + (c/ẏ₀)(√(1+y²) − √(1+y₀²)), ẋ = c/√(1+y²), ż = yẋ. Needs ẏ₀ ≠ 0 (else y is constant).
  void exact_solution(const State& s0, double t, State& out) const override {
    const double x0 = s0.q[0], y0 = s0.q[1], z0 = s0.q[2], xd0 = s0.v[0], yd0 = s0.v[1];
    const double dt = t - s0.t;
    const double c = xd0 * std::sqrt(1.0 + y0 * y0);
    const double y = y0 + yd0 * dt;
    const double xd = c / std::sqrt(1.0 + y * y);
    out.t = t;
    out.q.resize(3);
    out.v.resize(3);
    if (yd0 != 0.0) {
      out.q << x0 + (c / yd0) * (std::asinh(y) - std::asinh(y0)), y,
          z0 + (c / yd0) * (std::sqrt(1.0 + y * y) - std::sqrt(1.0 + y0 * y0));
    } else {  // straight line at constant y
      out.q << x0 + xd0 * dt, y0, z0 + y0 * xd0 * dt;
    }
    out.v << xd, yd0, y * xd;
  }

  // How the particle looks (core/drawable.hpp): a point at (x, y, z) in space, its path traced.
  nlohmann::json drawing() const override {
    return {{"dimension", 3},
            {"frames", {{{"name", "particle"}, {"transform", {{{"translate", {"x", "y", "z"}}}}}}}},
            {"shapes", {{{"frame", "particle"}, {"point", {0.0, 0.0, 0.0}}, {"color", "tab:red"}, {"width", 6}}}},
            {"traces", {{{"frame", "particle"}, {"label", "particle"}}}}};
  }

};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "nonholonomic_particle";
  d.kind = PluginKind::System;
  d.version = "1.0.0";
  d.summary = "Particle in R^3 with the constraint zdot = y xdot (M = I, V = 0); closed-form solution";
  d.seed = "000 (Anahory Simoes et al., Sec 4.1)";
  d.make_system = [](const Parameters&) { return std::make_unique<NonholonomicParticle>(); };
  d.examples = {system_example("", {1, 1, -1}, {1, -1, 1}, 0.1)};  // zdot = y xdot
  return d;
}

}  // namespace

DALEMBERT_PLUGIN(describe)
