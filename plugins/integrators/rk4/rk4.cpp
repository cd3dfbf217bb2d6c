// Classical 4-stage Runge–Kutta on the index-1 nonholonomic ODE y = (q, v),
// v̇ = a(q) + B(q)λ(q,v) (spec 000 §3.6): the continuous multiplier at every stage, no projection.
// Generic over any ConstrainedLagrangian system.
#include <dalembert/core/nonholonomic_field.hpp>
#include <dalembert/math/explicit_runge_kutta.hpp>
#include <dalembert/plugin/export.hpp>

namespace {

using namespace dalembert;

class RK4 final : public Integrator {
 public:
  RK4() : rk_({{{}, {0.5}, {0.0, 0.5}, {0.0, 0.0, 1.0}}, {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6}, {0.0, 0.5, 0.5, 1.0}, 4}) {}
  void bind(const System& s) override {
    const auto& model = require<ConstrainedLagrangian>(s, name());
    field_.bind(model);
    rk_.resize(model.dof(), model.dof());
  }
  void step(State& s, double h) override {
    rk_.step([this](double t, const Vec& q, const Vec& v, Vec& qd, Vec& vd) { field_.evaluate(t, q, v, qd, vd); },
             s.t, s.q, s.v, h);
    s.t += h;
  }
  Traits traits() const override { return {4, false, true, {}}; }

 private:
  NonholonomicVectorField field_;
  ExplicitRungeKutta rk_;
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "rk4";
  d.kind = PluginKind::Integrator;
  d.version = "1.0.0";
  d.summary = "Classical RK4 on the continuous nonholonomic vector field (no projection); order 4";
  d.seed = "000 (baseline, Sec 3.6 of the spec)";
  d.make_integrator = [](const Parameters&, const PluginFactory&) { return std::make_unique<RK4>(); };
  return d;
}

}  // namespace

DALEMBERT_PLUGIN(describe)
