// The pendulum-driven continuously variable transmission (seed 000 §4.3 after Modin–Verdier 2020;
// spec 000 §2.3): q = (x, y, ξ), M = I, V = ½(x² + y²) + cos ξ − (ε/2) sin 2ξ,
// constraint ẏ + sin(ξ) ẋ = 0. E_ξ = ½ξ̇² + V_d(ξ) and E_xy = E − E_ξ are conserved separately.
#include <cmath>
#include <dalembert/core/constrained_lagrangian.hpp>
#include <dalembert/plugin/export.hpp>

namespace {
using namespace dalembert;

enum { X, Y, XI };

class PendulumDrivenCVT final : public LagrangianSystem {
 public:
  explicit PendulumDrivenCVT(double eps) : eps_(eps) {}
  Layout layout() const override { return {{"x", "y", "xi"}, {"xdot", "ydot", "xidot"}}; }
  int dof() const override { return 3; }
  int num_constraints() const override { return 1; }
  void mass(ConstVecRef, MatRef M) const override { M.setIdentity(); }
  // V_d(ξ) = cos ξ − (ε/2) sin 2ξ (spec 000 §2.3; ξ = 0 is the upper equilibrium, §6.14)
  double driver_potential(double xi) const { return std::cos(xi) - 0.5 * eps_ * std::sin(2 * xi); }
  double potential(ConstVecRef q) const override {
    return 0.5 * (q[X] * q[X] + q[Y] * q[Y]) + driver_potential(q[XI]);
  }
  // ∇V = (x, y, −sin ξ − ε cos 2ξ)
  void potential_gradient(ConstVecRef q, VecRef g) const override {
    g << q[X], q[Y], -std::sin(q[XI]) - eps_ * std::cos(2 * q[XI]);
  }
  // ∇²V = diag(1, 1, −cos ξ + 2ε sin 2ξ)
  void potential_hessian(ConstVecRef q, MatRef H) const override {
    H.setZero();
    H(X, X) = H(Y, Y) = 1.0;
    H(XI, XI) = -std::cos(q[XI]) + 2 * eps_ * std::sin(2 * q[XI]);
  }
  // A = [sin ξ, 1, 0]
  void constraint_matrix(ConstVecRef q, MatRef A) const override { A << std::sin(q[XI]), 1.0, 0.0; }
  // Only nonzero ∂A_i/∂q^j: ∂A_x/∂ξ = cos ξ.
  void constraint_gradient(ConstVecRef q, int, MatRef G) const override {
    G.setZero();
    G(X, XI) = std::cos(q[XI]);
  }

  void diagnostic_names(std::vector<std::string>& n) const override { n = {"E_xi", "E_xy"}; }
  void diagnostics(const State& s, double* out) const override {
    out[0] = 0.5 * s.v[XI] * s.v[XI] + driver_potential(s.q[XI]);
    out[1] = energy(s) - out[0];
  }

 private:
  double eps_;
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "pendulum_driven_cvt";
  d.kind = PluginKind::System;
  d.version = "1.0.0";
  d.summary = "Pendulum-driven continuously variable transmission (Modin-Verdier): ydot + sin(xi) xdot = 0";
  d.seed = "000 (Sec 4.3)";
  d.params = {{"epsilon", ParamType::Number, 0.0, "asymmetry of the driver potential V_d = cos xi - (eps/2) sin 2xi"}};
  d.make_system = [](const Parameters& p) { return std::make_unique<PendulumDrivenCVT>(p.number("epsilon")); };
  return d;
}
}  // namespace

DALEMBERT_PLUGIN(describe)
