#pragma once
// Schemes compiled together with a system (issue 4). A separately built integrator plugin reaches
// its system through virtual calls on dynamic-size vectors; for the small systems of the seeds
// that costs more than the arithmetic. A system written as a fixed-size model
// (schemes/fixed_lagrangian_system.hpp) therefore also offers the framework's own scheme templates —
// the same source the integrator plugins run — instantiated inside its plugin with every model
// call inlined. An integrator asks for one at bind time (require-style, by dynamic_cast) and falls
// back to its generic path when the system offers none or `compiled: false` is set.
#include <boost/config.hpp>
#include <dalembert/core/state.hpp>
#include <dalembert/core/system.hpp>
#include <dalembert/math/explicit_runge_kutta.hpp>
#include <dalembert/math/newmark_parameters.hpp>
#include <dalembert/schemes/newton.hpp>
#include <memory>
#include <vector>

namespace dalembert {

/// One scheme, compiled for one system. step() follows the Integrator contract: signed h, no heap
/// allocation, StepFailure leaves the state unchanged.
class BOOST_SYMBOL_VISIBLE CompiledStepper {
 public:
  virtual ~CompiledStepper();
  virtual void step(State& s, double h) = 0;
  /// The discrete quantities of the last step, in the order the integrator names them (may be none).
  virtual const std::vector<double>& quantities() const;
};

/// The model a system provides when it can compile the framework's schemes.
class BOOST_SYMBOL_VISIBLE CompiledSchemes {
 public:
  static constexpr const char* model_name = "CompiledSchemes";
  virtual ~CompiledSchemes();
  /// The explicit Runge–Kutta method of `tableau` on the continuous nonholonomic field
  /// (math/explicit_runge_kutta.hpp + core/fixed_nonholonomic_field.hpp); nullptr if not offered.
  virtual std::unique_ptr<CompiledStepper> runge_kutta(const ButcherTableau& tableau) const { return nullptr; }
  /// Nonholonomic Newmark F_h^{β,β′,α} (schemes/newmark_step.hpp); nullptr if not offered.
  /// Its quantities are named by newmark_quantity_names(r).
  virtual std::unique_ptr<CompiledStepper> newmark(const NewmarkParameters&, const NewtonOptions&) const {
    return nullptr;
  }
};

/// What the integrators' `compiled` parameter says (one text for every integrator that has it).
inline constexpr const char* kCompiledParameterDoc =
    "use the scheme compiled with the system when it offers one (a fixed-size model; same equations, "
    "inlined); false: the generic path through the model's virtual interface";

/// The system's compiled form of a scheme, or nullptr when it offers none or `enabled` is false.
template <class Make>
std::unique_ptr<CompiledStepper> compiled_stepper(const System& system, bool enabled, Make&& make) {
  if (!enabled) return nullptr;
  const auto* schemes = dynamic_cast<const CompiledSchemes*>(&system);
  return schemes ? make(*schemes) : nullptr;
}

}  // namespace dalembert
