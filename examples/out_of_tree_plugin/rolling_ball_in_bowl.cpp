// Example out-of-tree system plugin: a point "ball" in the plane z = 0 in a quadratic bowl,
// V = ½k(x² + y²), forced to roll without lateral slip along its heading θ (a knife edge in a
// bowl): q = (x, y, θ), constraint −sin θ ẋ + cos θ ẏ = 0, M = diag(m, m, J).
// It shows everything a system plugin writes: layout, M, V with ∇V and ∇²V, A and ∂A/∂q.
#include <cmath>
#include <dalembert/core/constrained_lagrangian.hpp>
#include <dalembert/plugin/export.hpp>

namespace {
using namespace dalembert;

class RollingBallInBowl final : public LagrangianSystem {
 public:
  RollingBallInBowl(double m, double J, double k) : m_(m), J_(J), k_(k) {}
  Layout layout() const override { return {{"x", "y", "theta"}, {"xdot", "ydot", "thetadot"}}; }
  int dof() const override { return 3; }
  int num_constraints() const override { return 1; }
  void mass(ConstVecRef, MatRef M) const override {
    M.setZero();
    M.diagonal() << m_, m_, J_;
  }
  double potential(ConstVecRef q) const override { return 0.5 * k_ * (q[0] * q[0] + q[1] * q[1]); }
  void potential_gradient(ConstVecRef q, VecRef g) const override { g << k_ * q[0], k_ * q[1], 0.0; }
  void potential_hessian(ConstVecRef, MatRef H) const override {
    H.setZero();
    H(0, 0) = H(1, 1) = k_;
  }
  void constraint_matrix(ConstVecRef q, MatRef A) const override { A << -std::sin(q[2]), std::cos(q[2]), 0.0; }
  // G_{ij} = ∂A_i/∂q^j: only the θ column is nonzero.
  void constraint_gradient(ConstVecRef q, int, MatRef G) const override {
    G.setZero();
    G(0, 2) = -std::cos(q[2]);
    G(1, 2) = -std::sin(q[2]);
  }

 private:
  double m_, J_, k_;
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "rolling_ball_in_bowl";
  d.kind = PluginKind::System;
  d.version = "0.1.0";
  d.summary = "Example out-of-tree plugin: a knife edge in a quadratic bowl";
  d.params = {{"m", ParamType::Number, 1.0, "mass", 1e-12},
              {"J", ParamType::Number, 0.5, "moment of inertia about the vertical", 1e-12},
              {"k", ParamType::Number, 1.0, "bowl stiffness", 0.0}};
  d.make_system = [](const Parameters& p) {
    return std::make_unique<RollingBallInBowl>(p.number("m"), p.number("J"), p.number("k"));
  };
  return d;
}
}  // namespace

DALEMBERT_PLUGIN(describe)
