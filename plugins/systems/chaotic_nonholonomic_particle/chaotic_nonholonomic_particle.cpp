// The chaotic nonholonomic particle (seed 000 §4.2 after McLachlan–Perlmutter 2006; spec 000 §2.2):
// Q = R⁵, q = (x, y₁, y₂, z₁, z₂), M = I,
// V = ½(x² + y₁² + y₂² + z₁² + z₂² + z₁²z₂² + y₁²z₁² + y₂²z₂²), constraint ẋ + y₁ż₁ + y₂ż₂ = 0.
#include <dalembert/core/constrained_lagrangian.hpp>
#include <dalembert/plugin/export.hpp>

namespace {
using namespace dalembert;

enum { X, Y1, Y2, Z1, Z2 };

class ChaoticNonholonomicParticle final : public LagrangianSystem {
 public:
  Layout layout() const override {
    return {{"x", "y1", "y2", "z1", "z2"}, {"xdot", "y1dot", "y2dot", "z1dot", "z2dot"}};
  }
  int dof() const override { return 5; }
  int num_constraints() const override { return 1; }
  void mass(ConstVecRef, MatRef M) const override { M.setIdentity(); }
  double potential(ConstVecRef q) const override {
    const double z12 = q[Z1] * q[Z1], z22 = q[Z2] * q[Z2];
    return 0.5 * (q.squaredNorm() + z12 * z22 + q[Y1] * q[Y1] * z12 + q[Y2] * q[Y2] * z22);
  }
  // ∇V (spec 000 §2.2)
  void potential_gradient(ConstVecRef q, VecRef g) const override {
    g[X] = q[X];
    g[Y1] = q[Y1] * (1 + q[Z1] * q[Z1]);
    g[Y2] = q[Y2] * (1 + q[Z2] * q[Z2]);
    g[Z1] = q[Z1] * (1 + q[Z2] * q[Z2] + q[Y1] * q[Y1]);
    g[Z2] = q[Z2] * (1 + q[Z1] * q[Z1] + q[Y2] * q[Y2]);
  }
  // ∇²V (spec 000 §2.2): diagonal 1, 1+z₁², 1+z₂², 1+z₂²+y₁², 1+z₁²+y₂²; H_{y₁z₁} = 2y₁z₁,
  // H_{y₂z₂} = 2y₂z₂, H_{z₁z₂} = 2z₁z₂.
  void potential_hessian(ConstVecRef q, MatRef H) const override {
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
  void constraint_matrix(ConstVecRef q, MatRef A) const override { A << 1.0, 0.0, 0.0, q[Y1], q[Y2]; }
  // Nonzero ∂A_i/∂q^j: ∂A_{z₁}/∂y₁ = 1, ∂A_{z₂}/∂y₂ = 1.
  void constraint_gradient(ConstVecRef, int, MatRef G) const override {
    G.setZero();
    G(Z1, Y1) = 1.0;
    G(Z2, Y2) = 1.0;
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
  return d;
}
}  // namespace

DALEMBERT_PLUGIN(describe)
