// Classical 4-stage Runge–Kutta on the index-1 nonholonomic ODE y = (q, v),
// v̇ = a(q) + B(q)λ(q,v) (spec 000 §3.6): the continuous multiplier at every stage, no projection.
// Generic over any ConstrainedLagrangian system; on a fixed-size system it runs the same tableau
// compiled with the model (schemes/compiled_schemes.hpp).
#include <dalembert/schemes/compiled_schemes.hpp>
#include <dalembert/core/nonholonomic_field.hpp>
#include <dalembert/math/explicit_runge_kutta.hpp>
#include <dalembert/plugin/export.hpp>
#include <dalembert/plugin/needs.hpp>

namespace {

using namespace dalembert;

class RK4 final : public Integrator {
 public:
  explicit RK4(bool compiled) : compiled_(compiled), rk_(classical_rk4()) {}
  void bind(const System& s) override {
    const auto& model = require<ConstrainedLagrangian>(s, name(), Treats::HolonomicConstraints | Treats::AffineConstraints);
    field_.bind(model);
    rk_.resize(model.dof(), model.dof());
    stepper_ = compiled_stepper(s, compiled_, [this](const CompiledSchemes& c) { return c.runge_kutta(rk_.tableau()); });
  }
  void step(State& s, double h) override {
    if (stepper_) return stepper_->step(s, h);
    rk_.step([this](double t, const Vec& q, const Vec& v, Vec& qd, Vec& vd) { field_.evaluate(t, q, v, qd, vd); },
             s.t, s.q, s.v, h);
    s.t += h;
  }
  Traits traits() const override { return {4, false, true, {}}; }

 private:
  bool compiled_;
  NonholonomicVectorField field_;
  ExplicitRungeKutta rk_;
  std::unique_ptr<CompiledStepper> stepper_;
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "rk4";
  d.kind = PluginKind::Integrator;
  d.version = "1.1.0";  // 1.1: moving constraints A(q)v + b(t, q) = 0 in the field (issue 30)
  d.summary = "Classical RK4 on the continuous nonholonomic vector field (no projection); order 4";
  d.seed = "000 (baseline, Sec 3.6 of the spec)";
  d.params = {{"compiled", ParamType::Boolean, true, kCompiledParameterDoc}};
  d.make_integrator = [](const Parameters& p, const PluginFactory&) {
    return std::make_unique<RK4>(p.boolean("compiled"));
  };
  // Holonomic constraints: the continuous field keeps their velocity form (index-reduced); g drifts
  // at the method's error (README, observer constraint_residual's holonomic_residual column).
  d.needs = fixed_needs({ConstrainedLagrangian::model_name, treats("HolonomicConstraints"), treats("AffineConstraints")});
  d.examples = {{"compiled", {{"compiled", true}}}, {"generic path", {{"compiled", false}}}};
  return d;
}

}  // namespace

DALEMBERT_PLUGIN(describe)
