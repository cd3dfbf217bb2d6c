#pragma once
// An integrator (plugin). Contract (DESIGN §2):
//  * bind(system) asks for the model it needs with require<Model>() and sizes every buffer;
//  * start(state) (re)initialises internal memory; the runner calls it at t0 and after impacts;
//  * step(state, h) advances by a signed h without heap allocation. On failure it throws
//    StepFailure and leaves the state unchanged.
//  * Integrators may publish named discrete quantities (e.g. the discrete constraint Φ of the
//    last step) that observers record.
#include <boost/config.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/state.hpp>
#include <dalembert/core/system.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace dalembert {

struct Traits {
  int order = 1;
  bool symmetric = false;
  bool explicit_method = false;
  std::vector<std::string> preserves;  // e.g. "constraint", "discrete_constraint", "energy"
};

class BOOST_SYMBOL_VISIBLE Integrator {
 public:
  virtual ~Integrator();
  const std::string& name() const { return name_; }
  void set_name(std::string n) { name_ = std::move(n); }

  virtual void bind(const System&) = 0;
  virtual void start(const State&) {}
  virtual void step(State&, double h) = 0;
  virtual Traits traits() const = 0;

  /// Names of the discrete quantities this integrator publishes after each step.
  virtual void quantity_names(std::vector<std::string>& names) const {}
  /// Values for the last step, in the order of quantity_names().
  virtual void discrete_quantities(double* out) const {}

 private:
  std::string name_;
};

/// The model `Model` of `system`, or an Error "integrator WHO needs model M; system S does not provide it".
template <class Model>
const Model& require(const System& system, std::string_view who) {
  if (auto* m = dynamic_cast<const Model*>(&system)) return *m;
  throw Error("'" + std::string(who) + "' needs model " + Model::model_name + "; system '" +
              system.name() + "' does not provide it");
}

}  // namespace dalembert
