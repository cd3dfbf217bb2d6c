// The chaotic nonholonomic particle (seed 000 §4.2 after McLachlan–Perlmutter 2006; spec 000 §2.2):
// Q = R⁵, q = (x, y₁, y₂, z₁, z₂), M = I,
// V = ½(x² + y₁² + y₂² + z₁² + z₂² + z₁²z₂² + y₁²z₁² + y₂²z₂²), constraint ẋ + y₁ż₁ + y₂ż₂ = 0.
#include <dalembert/core/drawable.hpp>
#include <dalembert/schemes/fixed_lagrangian_system.hpp>
#include <dalembert/plugin/export.hpp>

namespace {
using namespace dalembert;

enum { X, Y1, Y2, Z1, Z2 };

/// The model at fixed size (schemes/fixed_lagrangian_system.hpp); M = I.
struct ChaoticParticleModel {
  static constexpr int dof = 5, constraints = 1;
  auto potential(const auto& q) const -> scalar_t<decltype(q)> {
    const scalar_t<decltype(q)> z12 = q[Z1] * q[Z1], z22 = q[Z2] * q[Z2];
    return 0.5 * (q.squaredNorm() + z12 * z22 + q[Y1] * q[Y1] * z12 + q[Y2] * q[Y2] * z22);
  }
  // ∇V (spec 000 §2.2)
  void potential_gradient(const auto& q, auto&& g) const {
    g[X] = q[X];
    g[Y1] = q[Y1] * (1 + q[Z1] * q[Z1]);
    g[Y2] = q[Y2] * (1 + q[Z2] * q[Z2]);
    g[Z1] = q[Z1] * (1 + q[Z2] * q[Z2] + q[Y1] * q[Y1]);
    g[Z2] = q[Z2] * (1 + q[Z1] * q[Z1] + q[Y2] * q[Y2]);
  }
  // ∇²V (spec 000 §2.2): diagonal 1, 1+z₁², 1+z₂², 1+z₂²+y₁², 1+z₁²+y₂²; H_{y₁z₁} = 2y₁z₁,
  // H_{y₂z₂} = 2y₂z₂, H_{z₁z₂} = 2z₁z₂.
  void potential_hessian(const auto& q, auto&& H) const {
    H.setZero();
    H(X, X) = 1;
    H(Y1, Y1) = 1 + q[Z1] * q[Z1];
    H(Y2, Y2) = 1 + q[Z2] * q[Z2];
    H(Z1, Z1) = 1 + q[Z2] * q[Z2] + q[Y1] * q[Y1];
    H(Z2, Z2) = 1 + q[Z1] * q[Z1] + q[Y2] * q[Y2];
    H(Y1, Z1) = H(Z1, Y1) = 2 * q[Y1] * q[Z1];
    H(Y2, Z2) = H(Z2, Y2) = 2 * q[Y2] * q[Z2];
    H(Z1, Z2) = H(Z2, Z1) = 2 * q[Z1] * q[Z2];
  }
  // A = [1, 0, 0, y₁, y₂]
  void constraint_matrix(const auto& q, auto&& A) const { A << 1.0, 0.0, 0.0, q[Y1], q[Y2]; }
  // Nonzero ∂A_i/∂q^j: ∂A_{z₁}/∂y₁ = 1, ∂A_{z₂}/∂y₂ = 1.
  void constraint_gradient(const auto&, int, auto&& G) const {
    G.setZero();
    G(Z1, Y1) = 1.0;
    G(Z2, Y2) = 1.0;
  }
  // Closed forms the compiled schemes use (schemes/fixed_lagrangian_system.hpp), from A of spec 000
  // §2.2: A x, f += Aᵀλ, and from the gradient above (∂A/∂q)[v]v = ẏ₁ż₁ + ẏ₂ż₂ and
  // DA[w] = (0, w_{z₁}, w_{z₂}, 0, 0).
  void apply_constraint(const auto& q, const auto& x, auto&& y) const { y[0] = x[X] + q[Y1] * x[Z1] + q[Y2] * x[Z2]; }
  void add_constraint_force(const auto& q, const auto& lambda, auto&& f) const {
    f[X] += lambda[0];
    f[Z1] += q[Y1] * lambda[0];
    f[Z2] += q[Y2] * lambda[0];
  }
  void curvature(const auto&, const auto& v, auto&& c) const { c[0] = v[Y1] * v[Z1] + v[Y2] * v[Z2]; }
  void constraint_derivative(const auto&, const auto& w, auto&& DA) const { DA << 0.0, w[Z1], w[Z2], 0.0, 0.0; }
};

class ChaoticNonholonomicParticle final : public FixedLagrangianSystem<ChaoticParticleModel>, public Drawable {
 public:
  Layout layout() const override {
    return {{"x", "y1", "y2", "z1", "z2"}, {"xdot", "y1dot", "y2dot", "z1dot", "z2dot"}};
  }

  // How the particle looks (core/drawable.hpp): the point (x, y1, z1) of its five coordinates, in
  // space, its path traced.
  nlohmann::json drawing() const override {
    return {{"dimension", 3},
            {"frames", {{{"name", "particle"}, {"transform", {{{"translate", {"x", "y1", "z1"}}}}}}}},
            {"shapes", {{{"frame", "particle"}, {"point", {0.0, 0.0, 0.0}}, {"color", "tab:red"}, {"width", 6}}}},
            {"traces", {{{"frame", "particle"}, {"label", "(x, y1, z1)"}}}}};
  }

};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "chaotic_nonholonomic_particle";
  d.kind = PluginKind::System;
  d.version = "1.0.0";
  d.summary = "Chaotic nonholonomic particle in R^5 (McLachlan-Perlmutter): xdot + y1 z1dot + y2 z2dot = 0";
  d.seed = "000 (Sec 4.2)";
  d.make_system = [](const Parameters&) { return std::make_unique<ChaoticNonholonomicParticle>(); };
  // Spec 000 §2.2 (the paper's Fig 2 start): xdot + y1 z1dot + y2 z2dot = 0.
  d.examples = {system_example("", {1, 0, 1, -1, -1}, {0.05, 0.5, -0.5, -0.1, -0.05}, 0.1)};
  return d;
}
}  // namespace

DALEMBERT_PLUGIN(describe)
