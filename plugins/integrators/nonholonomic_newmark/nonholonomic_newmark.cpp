// The nonholonomic Newmark method F_h^{β,β′,α} (seed 000 Def. 3.1 + Sec. 3.4; spec 000 §3.2),
// generic over any ConstrainedLagrangian system with constant mass matrix. The discrete equations
// (N1)–(N4) and their Jacobians live in <dalembert/schemes/newmark_residual.hpp>, the step (which
// reduced system, Newton, commit) in <dalembert/schemes/newmark_step.hpp>; on a fixed-size system the
// same step runs compiled with the model (schemes/compiled_schemes.hpp). This file checks the system,
// owns the parameters and publishes the step's quantities.
#include <cmath>
#include <cstdio>
#include <dalembert/schemes/compiled_schemes.hpp>
#include <dalembert/core/warn_once.hpp>
#include <dalembert/schemes/newmark_step.hpp>
#include <dalembert/plugin/export.hpp>
#include <dalembert_plugins/holonomic_refusal.hpp>
#include <limits>

namespace {

using namespace dalembert;
using nlohmann::json;

class NonholonomicNewmark final : public Integrator {
 public:
  NonholonomicNewmark(NewmarkParameters p, NewtonOptions newton, bool compiled)
      : p_(p), newton_options_(newton), compiled_(compiled) {}

  void bind(const System& s) override {
    refuse_holonomic(s, name(), "seed 000's Newmark equations (N1)-(N4) impose A(q)v = 0 only");
    const auto& model = require<ConstrainedLagrangian>(s, name());
    if (!model.constant_mass())
      throw Error("integrator '" + name() + "' needs a constant mass matrix (seed 000 derives the Newmark family for "
                  "constant M; spec 000 §2.0); system '" + s.name() +
                  "' has a configuration-dependent M(q): use dla, mla or exact_discrete (discrete mechanics for any "
                  "M(q)), rk2 or rk4, or a composition of them");
    if (model.has_external_force())
      throw Error("integrator '" + name() + "' does not support external forces yet; system '" + s.name() +
                  "' has one");
    // Remark 3.3 / spec 000 §3.5.5, §6.12: β + β′ = ½ makes the scheme ill-conditioned and inconsistent.
    // Once per process (a sweep binds it in every cell), by rank 0 only under MPI.
    if (std::abs(p_.beta + p_.beta_prime - 0.5) < 1e-8) {
      char buf[256];
      std::snprintf(buf, sizeof buf,
                    "integrator '%s': beta + beta_prime = %.17g + %.17g = 1/2: nonholonomic Newmark is "
                    "ill-conditioned and inconsistent there (seed 000 Remark 3.3, spec 000 §3.5.5)",
                    name().c_str(), p_.beta, p_.beta_prime);
      warn_once(buf, buf);
    }
    compiled_stepper_ =
        compiled_stepper(s, compiled_, [this](const CompiledSchemes& c) { return c.newmark(p_, newton_options_); });
    if (!compiled_stepper_) generic_.bind(model, p_, newton_options_);
    names_ = newmark_quantity_names(model.num_constraints());
  }

  void step(State& s, double h) override {
    if (compiled_stepper_)
      compiled_stepper_->step(s, h);
    else
      generic_.step(s, h);
  }

  Traits traits() const override {
    Traits t;
    const bool symmetric = p_.beta == p_.beta_prime && p_.alpha == 0.5;  // Prop 3.4 (needs β+β′ ≠ ½)
    // β + β′ = ½ is inconsistent (spec 000 §3.5.5, §6.12): declared order 0, so the audit agrees.
    const bool consistent = std::abs(p_.beta + p_.beta_prime - 0.5) > 1e-8;
    t.order = !consistent ? 0 : symmetric ? 2 : 1;
    t.symmetric = symmetric;
    t.explicit_method = p_.beta == 0.0 && p_.beta_prime == 0.0 && p_.alpha == 0.0;  // Prop 3.8
    t.preserves = {"constraint", "discrete_constraint"};
    return t;
  }

  void quantity_names(std::vector<std::string>& names) const override { names = names_; }
  void discrete_quantities(double* out) const override {
    const auto& values = compiled_stepper_ ? compiled_stepper_->quantities() : generic_.quantities();
    std::copy(values.begin(), values.end(), out);
  }

 private:
  NewmarkParameters p_;
  NewtonOptions newton_options_;
  bool compiled_;
  NewmarkStep<DynamicAccess> generic_;
  std::unique_ptr<CompiledStepper> compiled_stepper_;
  std::vector<std::string> names_;
};

std::unique_ptr<Integrator> make(const Parameters& p, const PluginFactory&) {
  NewmarkParameters np;
  np.beta = p.number("beta");
  np.beta_prime = p.number("beta_prime");
  np.alpha = p.number("alpha");
  np.discretization =
      p.string("constraint_discretization") == "15" ? ConstraintDiscretization::Eq15 : ConstraintDiscretization::Eq14;
  NewtonOptions opt;
  opt.tolerance = p.number("newton_tolerance");
  // At β + β′ = ½ the Jacobian is near-singular (Remark 3.3): iterates wander with R at round-off;
  // any of them solves (N1)–(N4), so there accept a residual at round-off level. Consistent
  // schemes keep the plain step criterion.
  if (std::abs(p.number("beta") + p.number("beta_prime") - 0.5) <= 1e-8) opt.residual_tolerance = 1e-12;
  opt.max_iterations = static_cast<int>(p.integer("newton_max_iterations"));
  opt.finite_difference_jacobian = p.boolean("finite_difference_jacobian");
  return std::make_unique<NonholonomicNewmark>(np, opt, p.boolean("compiled"));
}

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "nonholonomic_newmark";
  d.kind = PluginKind::Integrator;
  d.version = "1.0.0";
  d.summary = "Nonholonomic Newmark F_h^{beta,beta',alpha}: order 2 if beta = beta' and alpha = 1/2, else 1";
  d.seed = "000 (Anahory Simoes, Ferraro, Marrero, Martin de Diego; Def 3.1, Sec 3.4)";
  d.params = {
      {"beta", ParamType::Number, 0.0,
       "weight of Gamma_nh(q_{k+1}) in the forward exponential map (N1); beta = 0 is the fast, explicit-in-Q path"},
      {"beta_prime", ParamType::Number, 0.0,
       "weight of Gamma_nh(q_k) in the backward exponential map (N2); Newmark gamma = 1/2 + beta - beta_prime"},
      {"alpha", ParamType::Number, 0.5, "point of the discrete constraint Phi between q_k (0) and q_{k+1} (1)", 0.0, 1.0},
      {"constraint_discretization", ParamType::String, "14",
       "discrete constraint: \"14\" mu((1-alpha)q_k + alpha q_{k+1}), or \"15\" (1-alpha)mu(q_k) + alpha mu(q_{k+1})",
       -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(), {"14", "15"}},
      {"newton_tolerance", ParamType::Number, 1e-13, "Newton stops when |delta|_inf <= tol (1 + |u|_inf)", 0.0},
      {"newton_max_iterations", ParamType::Integer, 25, "Newton iterations before the step fails", 1, 1000},
      {"finite_difference_jacobian", ParamType::Boolean, false,
       "use a forward-difference Newton Jacobian instead of the analytic one (for checking)"},
      {"compiled", ParamType::Boolean, true, kCompiledParameterDoc},
  };
  d.make_integrator = make;
  d.needs = fixed_needs({ConstrainedLagrangian::model_name, "ConstantMass", "Unforced"});
  // The members of the family the papers use, on the compiled and the generic path (seed 000 Sec 3.4).
  auto F = [](double beta, double beta_prime, double alpha, const char* disc = "14", bool compiled = true) {
    return json{{"beta", beta},  {"beta_prime", beta_prime}, {"alpha", alpha}, {"constraint_discretization", disc},
                {"compiled", compiled}};
  };
  d.examples = {{"DLA F^{0,0,1/2}", F(0, 0, 0.5)},
                {"F^{0,0.3,1/2} (15)", F(0, 0.3, 0.5, "15")},
                {"F^{0.1,0.1,1/2}", F(0.1, 0.1, 0.5)},
                {"F^{0.1,0.1,1/2} (15)", F(0.1, 0.1, 0.5, "15")},
                {"F^{0.25,0,1}", F(0.25, 0, 1.0)},
                {"DLA generic path", F(0, 0, 0.5, "14", false)},
                {"F^{0.1,0.1,1/2} generic path", F(0.1, 0.1, 0.5, "14", false)}};
  return d;
}

}  // namespace

DALEMBERT_PLUGIN(describe)
