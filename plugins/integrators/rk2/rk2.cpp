// Explicit midpoint rule (RK2), the paper's "standard Runge–Kutta second-order method" (seed 001
// §6; spec 001 §3.4), on the full-coordinate index-1 nonholonomic ODE of any ConstrainedLagrangian
// system (spec §2.0: multiplier eliminated, no projection):
//     z_{k+1} = z_k + h f(t_k + h/2, z_k + (h/2) f(t_k, z_k)),   Butcher tableau [[0],[½, 0]], b = (0, 1).
// ode = "reduced" (the spec's control, §3.4 and claim 16): the same tableau on the quasi-velocity ODE
// q̇ = B_D(q) w of a system's Lie-group model (QuasiVelocityField), which stays on D by construction.
// ode = "full" on a fixed-size system runs the same tableau compiled with the model (schemes/compiled_schemes.hpp).
#include <dalembert/schemes/compiled_schemes.hpp>
#include <dalembert/core/lie_group_model.hpp>
#include <dalembert/core/nonholonomic_field.hpp>
#include <dalembert/math/explicit_runge_kutta.hpp>
#include <dalembert/plugin/export.hpp>
#include <dalembert/plugin/needs.hpp>

namespace {

using namespace dalembert;

class RK2 final : public Integrator {
 public:
  RK2(bool reduced, bool compiled) : reduced_(reduced), compiled_(compiled), rk_({{{}, {0.5}}, {0.0, 1.0}, {0.0, 0.5}, 2}) {}
  void bind(const System& s) override {
    stepper_.reset();
    if (reduced_) {
      reduced_field_.bind(require<LieGroupModel>(s, name()));
      rk_.resize(reduced_field_.n(), reduced_field_.k());
      w_.resize(reduced_field_.k());
      return;
    }
    const auto& model = require<ConstrainedLagrangian>(s, name(), Treats::HolonomicConstraints | Treats::AffineConstraints);
    field_.bind(model);
    rk_.resize(model.dof(), model.dof());
    stepper_ = compiled_stepper(s, compiled_, [this](const CompiledSchemes& c) { return c.runge_kutta(rk_.tableau()); });
  }
  void step(State& s, double h) override {
    if (stepper_) return stepper_->step(s, h);
    if (reduced_) {
      reduced_field_.quasi_velocity(s.q, s.v, w_);
      rk_.step([this](double t, const Vec& q, const Vec& w, Vec& qd, Vec& wd) { reduced_field_.evaluate(t, q, w, qd, wd); },
               s.t, s.q, w_, h);
      reduced_field_.velocity(s.q, w_, s.v);
    } else {
      rk_.step([this](double t, const Vec& q, const Vec& v, Vec& qd, Vec& vd) { field_.evaluate(t, q, v, qd, vd); },
               s.t, s.q, s.v, h);
    }
    s.t += h;
  }
  Traits traits() const override { return {2, false, true, reduced_ ? std::vector<std::string>{"constraint"} : std::vector<std::string>{}}; }

 private:
  bool reduced_, compiled_;
  std::unique_ptr<CompiledStepper> stepper_;
  NonholonomicVectorField field_;
  QuasiVelocityField reduced_field_;
  ExplicitRungeKutta rk_;
  Vec w_;
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "rk2";
  d.kind = PluginKind::Integrator;
  d.version = "1.1.0";  // 1.1: moving constraints A(q)v + b(t, q) = 0 in the field (issue 30)
  d.summary = "Explicit midpoint (RK2) on the continuous nonholonomic vector field (no projection); order 2";
  d.seed = "001 (baseline RK2 of Sec 6), spec 001 Sec 3.4";
  ParamSpec ode{"ode", ParamType::String, "full",
                "full: the index-1 multiplier ODE of the ConstrainedLagrangian model (the paper's RK2); reduced: the "
                "quasi-velocity ODE of the LieGroupModel (stays on the constraints; the spec's control)"};
  ode.choices = {"full", "reduced"};
  d.params = {ode, {"compiled", ParamType::Boolean, true, kCompiledParameterDoc}};
  d.make_integrator = [](const Parameters& p, const PluginFactory&) {
    return std::make_unique<RK2>(p.string("ode") == "reduced", p.boolean("compiled"));
  };
  d.needs = [](const Parameters& p, const PluginFactory&) {
    // Holonomic constraints (full ODE): the continuous field keeps their velocity form (index-reduced);
    // g drifts at the method's error (README). The reduced ODE of a LieGroupModel has no g.
    if (p.string("ode") == "reduced") return Needs{LieGroupModel::model_name, "CoordinateVelocities"};  // q̇ = B_D w
    return Needs{ConstrainedLagrangian::model_name, treats("HolonomicConstraints"), treats("AffineConstraints")};
  };
  d.examples = {{"compiled", {{"compiled", true}}}, {"generic path", {{"compiled", false}}}, {"reduced", {{"ode", "reduced"}}}};
  return d;
}

}  // namespace

DALEMBERT_PLUGIN(describe)
