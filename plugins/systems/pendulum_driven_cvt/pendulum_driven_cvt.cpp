// The pendulum-driven continuously variable transmission (seed 000 §4.3 after Modin–Verdier 2020;
// spec 000 §2.3): q = (x, y, ξ), M = I, V = ½(x² + y²) + cos ξ − (ε/2) sin 2ξ,
// constraint ẏ + sin(ξ) ẋ = 0. E_ξ = ½ξ̇² + V_d(ξ) and E_xy = E − E_ξ are conserved separately.
#include <cmath>
#include <dalembert/core/drawable.hpp>
#include <dalembert/schemes/fixed_lagrangian_system.hpp>
#include <dalembert/plugin/export.hpp>

namespace {
using namespace dalembert;

enum { X, Y, XI };

/// The model at fixed size (schemes/fixed_lagrangian_system.hpp); M = I.
struct CVTModel {
  static constexpr int dof = 3, constraints = 1;
  double eps = 0.0;
  // V_d(ξ) = cos ξ − (ε/2) sin 2ξ (spec 000 §2.3; ξ = 0 is the upper equilibrium, §6.14)
  template <class S>
  S driver_potential(const S& xi) const {
    using std::cos, std::sin;
    return cos(xi) - 0.5 * eps * sin(2 * xi);
  }
  auto potential(const auto& q) const -> scalar_t<decltype(q)> {
    return 0.5 * (q[X] * q[X] + q[Y] * q[Y]) + driver_potential<scalar_t<decltype(q)>>(q[XI]);
  }
  // ∇V = (x, y, −sin ξ − ε cos 2ξ)
  void potential_gradient(const auto& q, auto&& g) const {
    g << q[X], q[Y], -std::sin(q[XI]) - eps * std::cos(2 * q[XI]);
  }
  // ∇²V = diag(1, 1, −cos ξ + 2ε sin 2ξ)
  void potential_hessian(const auto& q, auto&& H) const {
    H.setZero();
    H(X, X) = H(Y, Y) = 1.0;
    H(XI, XI) = -std::cos(q[XI]) + 2 * eps * std::sin(2 * q[XI]);
  }
  // A = [sin ξ, 1, 0]
  void constraint_matrix(const auto& q, auto&& A) const {
    using std::sin;
    A << sin(q[XI]), 1.0, 0.0;
  }
  // Only nonzero ∂A_i/∂q^j: ∂A_x/∂ξ = cos ξ.
  void constraint_gradient(const auto& q, int, auto&& G) const {
    G.setZero();
    G(X, XI) = std::cos(q[XI]);
  }
  // From it (spec 000 §2.3): (∂A/∂q)[v]v = cos ξ ẋ ξ̇ and DA[w] = (0, 0, cos ξ w_x). (No closed-form
  // A x: sin ξ would be evaluated once per product instead of once per A.)
  void curvature(const auto& q, const auto& v, auto&& c) const { c[0] = std::cos(q[XI]) * v[X] * v[XI]; }
  void constraint_derivative(const auto& q, const auto& w, auto&& DA) const {
    DA << 0.0, 0.0, std::cos(q[XI]) * w[X];
  }
};

class PendulumDrivenCVT final : public FixedLagrangianSystem<CVTModel>, public Drawable {
 public:
  explicit PendulumDrivenCVT(double eps) : FixedLagrangianSystem(CVTModel{eps}) {}
  Layout layout() const override { return {{"x", "y", "xi"}, {"xdot", "ydot", "xidot"}}; }

  void diagnostic_names(std::vector<std::string>& n) const override { n = {"E_xi", "E_xy"}; }
  void diagnostics(const State& s, double* out) const override {
    out[0] = 0.5 * s.v[XI] * s.v[XI] + fixed_model().driver_potential(s.q[XI]);
    out[1] = energy(s) - out[0];
  }

  // How the transmission looks (core/drawable.hpp): the body at (x, y) and its driving pendulum at
  // angle ξ, the body's path traced.
  nlohmann::json drawing() const override {
    return {{"dimension", 2},
            {"frames", {{{"name", "body"}, {"transform", {{{"translate", {"x", "y"}}}}}},
                        {{"name", "pendulum"}, {"parent", "body"}, {"transform", {{{"rotate", "xi"}}}}},
                        {{"name", "bob"}, {"parent", "pendulum"}, {"transform", {{{"translate", {0.0, -0.4}}}}}}}},
            {"shapes", {{{"frame", "body"}, {"circle", {{"radius", 0.12}}}, {"color", "tab:blue"}},
                        {{"link", {"body", "bob"}}, {"color", "0.3"}},
                        {{"frame", "bob"}, {"circle", {{"radius", 0.06}}}, {"color", "tab:red"}}}},
            {"traces", {{{"frame", "body"}, {"label", "body"}}}}};
  }

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
  d.examples = {system_example("", {1, 0, -2}, {-0.4481, -0.40745617696058795, 0.1}, 0.1)};  // spec 000 §2.3
  return d;
}
}  // namespace

DALEMBERT_PLUGIN(describe)
