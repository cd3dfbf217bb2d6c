// Out-of-line destructors: the key functions that make RTTI of the interfaces unique to
// libdalembert, so dynamic_cast to a model works across plugins built with hidden visibility.
#include <dalembert/core/affine_constraint.hpp>
#include <dalembert/core/automatic_derivatives.hpp>
#include <dalembert/core/error_text.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/schemes/compiled_schemes.hpp>
#include <dalembert/core/constrained_lagrangian.hpp>
#include <dalembert/core/impact_map.hpp>
#include <dalembert/core/integrator.hpp>
#include <dalembert/core/observer.hpp>
#include <dalembert/core/step_aware.hpp>
#include <dalembert/core/system.hpp>
#include <dalembert/core/time_dependent_potential.hpp>
#include <dalembert/plugin/descriptor.hpp>


namespace dalembert {

System::~System() = default;
void System::exact_solution(const State&, double, State&) const {
  throw Error("system '" + name_ + "' has no exact solution");
}
void check_inputs_cover(const System& system, double t0, double t1, const std::string& where) {
  for (const auto& u : system.given_inputs())
    if (u.signal.t_first() > t0 || u.signal.t_last() < t1) {
      const auto g17 = [](double x) { return number_text(x, "%.17g"); };
      throw InputError(where + "/" + u.name, "input '" + u.name + "' of system '" + system.name() + "' is a table over [" +
                                                 g17(u.signal.t_first()) + ", " + g17(u.signal.t_last()) +
                                                 "] but the run covers [" + g17(t0) + ", " + g17(t1) + "]");
    }
}

ConstrainedLagrangian::~ConstrainedLagrangian() = default;
AutomaticDerivatives::~AutomaticDerivatives() = default;
AffineConstraint::~AffineConstraint() = default;
TimeDependentPotential::~TimeDependentPotential() = default;
Integrator::~Integrator() = default;

void Integrator::begin(const State& state, double h) {
  before_.q.resize(state.q.size());
  before_.v.resize(state.v.size());
  if (h != 0.0)
    if (auto* a = dynamic_cast<StepAware*>(this)) a->expect_step(h);  // H0 of two-step data at t0
  start(state);
}

void Integrator::advance(State& state, double h) {
  before_.t = state.t;
  before_.q = state.q;  // sized by begin(): a copy, no allocation
  before_.v = state.v;
  try {
    step(state, h);
  } catch (...) {  // a StepFailure, or anything else the plugin let out
    state.t = before_.t, state.q = before_.q, state.v = before_.v;
    throw;
  }
  state.t = before_.t + h;
  if (!state.q.allFinite() || !state.v.allFinite()) {
    state.t = before_.t, state.q = before_.q, state.v = before_.v;
    throw NonFiniteState(name_, before_.t, h);
  }
}
Observer::~Observer() = default;
Guarded::~Guarded() = default;
ImpactMap::~ImpactMap() = default;
ExactEventLocator::~ExactEventLocator() = default;
StepAware::~StepAware() = default;
double Guarded::guard_rate(int sigma, const State& s) const {
  Vec dg(s.q.size());
  guard_gradient(sigma, s.q, dg);
  return dg.dot(s.v);
}
std::string Guarded::guard_name(int sigma) const { return "guard " + std::to_string(sigma); }
PluginFactory::~PluginFactory() = default;
CompiledStepper::~CompiledStepper() = default;
const std::vector<double>& CompiledStepper::quantities() const {
  static const std::vector<double> none;
  return none;
}
CompiledSchemes::~CompiledSchemes() = default;

const char* to_string(PluginKind k) {
  switch (k) {
    case PluginKind::System: return "system";
    case PluginKind::Integrator: return "integrator";
    case PluginKind::Impact: return "impact";
    case PluginKind::Observer: return "observer";
    case PluginKind::Sampler: return "sampler";
  }
  return "?";
}

}  // namespace dalembert
