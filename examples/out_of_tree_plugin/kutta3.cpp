// Example out-of-tree integrator plugin: Kutta's third-order Runge–Kutta method on the continuous
// nonholonomic vector field of any ConstrainedLagrangian system (constant or configuration-
// dependent mass), built from the framework's shared numerics — the field with its multiplier
// solve (core/nonholonomic_field.hpp) and the explicit Runge–Kutta template
// (math/explicit_runge_kutta.hpp). Butcher tableau (Hairer–Nørsett–Wanner I, Table II.1.1):
//   c = (0, ½, 1), a₂₁ = ½, a₃₁ = −1, a₃₂ = 2, b = (1/6, 2/3, 1/6).
// The Integrator contract: bind() checks the model and sizes every buffer, step() takes a signed h,
// allocates nothing and leaves the state unchanged if it throws.
#include <dalembert/core/integrator.hpp>
#include <dalembert/core/nonholonomic_field.hpp>
#include <dalembert/math/explicit_runge_kutta.hpp>
#include <dalembert/plugin/export.hpp>

namespace {
using namespace dalembert;

ButcherTableau kutta_tableau() { return {{{}, {0.5}, {-1.0, 2.0}}, {1.0 / 6, 2.0 / 3, 1.0 / 6}, {0.0, 0.5, 1.0}, 3}; }

class Kutta3 final : public Integrator {
 public:
  Kutta3() : rk_(kutta_tableau()) {}
  void bind(const System& s) override {
    const auto& model = require<ConstrainedLagrangian>(s, name());  // a clear error for any other system
    field_.bind(model);
    rk_.resize(model.dof(), model.dof());
  }
  void step(State& s, double h) override {
    rk_.step([this](double t, const Vec& q, const Vec& v, Vec& qd, Vec& vd) { field_.evaluate(t, q, v, qd, vd); },
             s.t, s.q, s.v, h);
    s.t += h;
  }
  Traits traits() const override { return {3, false, true, {}}; }  // order 3, not symmetric, explicit

 private:
  NonholonomicVectorField field_;
  ExplicitRungeKutta rk_;
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "kutta3";
  d.kind = PluginKind::Integrator;
  d.version = "0.1.0";
  d.summary = "Example out-of-tree plugin: Kutta's third-order Runge-Kutta method on the nonholonomic field";
  d.make_integrator = [](const Parameters&, const PluginFactory&) { return std::make_unique<Kutta3>(); };
  d.needs = fixed_needs({ConstrainedLagrangian::model_name});  // what bind() requires: `dalembert check kutta3` checks both agree
  return d;
}
}  // namespace

DALEMBERT_PLUGIN(describe)
