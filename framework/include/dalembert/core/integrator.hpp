#pragma once
// An integrator (plugin). What a plugin implements (DESIGN §2):
//  * bind(system) asks for the model it needs with require<Model>() and sizes every buffer (the
//    plugin's descriptor declares the same models in `needs`, plugin/descriptor.hpp);
//  * start(state) (re)initialises internal memory;
//  * step(state, h) advances by a signed h without heap allocation. On failure it throws
//    StepFailure and leaves the state (and its memory) unchanged.
//  * Integrators may publish named discrete quantities (e.g. the discrete constraint Φ of the
//    last step) that observers record; after a step, discrete_quantities() writes every one.
// What every caller relies on is enforced once, here, around the plugin's functions: callers never
// call start() or step() (they are protected) but begin() and advance(), which put the state back
// on any failure, set t = t + h exactly and turn a non-finite result into a StepFailure.
// `dalembert check INTEGRATOR` (study/conformance.hpp) checks the plugin's side of the contract.
#include <boost/config.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/state.hpp>
#include <dalembert/core/system.hpp>
#include <string>
#include <string_view>
#include <type_traits>
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
  virtual Traits traits() const = 0;

  /// Names of the discrete quantities this integrator publishes after each step.
  virtual void quantity_names(std::vector<std::string>& names) const {}
  /// Values for the last step, in the order of quantity_names().
  virtual void discrete_quantities(double* out) const {}

  // ----- The step contract, for every caller (runs, Python, compositions, tests) -----
  /// (Re)starts the integrator at `state`: sizes the copy advance() keeps (so advance() does not
  /// allocate), tells a StepAware integrator the step size h of the run about to start (h = 0: not
  /// told), then start(). A run calls it at t0 with h, and without h after every impact.
  void begin(const State& state, double h = 0.0);
  /// One step of signed size h: the plugin's step(), then t = t + h exactly (whatever step() did
  /// with t) and q, v checked finite. On failure the state is as it was before the call: a
  /// StepFailure from step() passes on, a non-finite result becomes a NonFiniteState (a StepFailure).
  void advance(State& state, double h);

 protected:
  // ----- What a plugin implements. Callers use begin() and advance(), never these: -----
  // (calling them through an Integrator is a compile error, "protected within this context")
  virtual void start(const State&) {}                // callers: begin(state, h) (API 1, ABI 7)
  virtual void step(State&, double h) = 0;            // callers: advance(state, h) (API 1, ABI 7)

 private:
  friend class StepContract;  // the conformance suite checks step() itself (study/conformance.hpp)
  std::string name_;
  State before_;  // the state before the step advance() is taking, sized by begin()
};

class ConstrainedLagrangian;

/// What a scheme treats beyond the constraints A(q)v = 0 of its model: holonomic constraints
/// g(q) = 0 (issue 28), moving constraints A(q)v + b(t, q) = 0 (issue 30, core/affine_constraint.hpp).
/// A scheme that treats them says so when it asks for its model (flags, combined with |), and
/// declares "treats HolonomicConstraints" / "treats AffineConstraints" in its needs (plugin/needs.hpp).
enum class Treats { Nothing = 0, HolonomicConstraints = 1, AffineConstraints = 2 };
constexpr Treats operator|(Treats a, Treats b) { return Treats(int(a) | int(b)); }
/// Whether `treats` includes every flag of `what`.
constexpr bool includes(Treats treats, Treats what) { return (int(treats) & int(what)) == int(what); }

/// An Error "'WHO' does not treat the k holonomic constraint(s) g(q) = 0 of system S ..." when
/// `system` has holonomic constraints and `treats` does not include them; the same for moving
/// constraints A(q)v + b(t, q) = 0.
BOOST_SYMBOL_VISIBLE void check_treats(const System& system, std::string_view who, Treats treats);

/// The model `Model` of `system`, or an Error "integrator WHO needs model M; system S does not provide it".
/// A ConstrainedLagrangian with holonomic constraints is refused unless the caller treats them
/// (`treats`): a scheme written for A(q)v = 0 alone — every one before issue 28 — refuses such a
/// system at bind() without a change to its source.
template <class Model>
const Model& require(const System& system, std::string_view who, Treats treats = Treats::Nothing) {
  if (auto* m = dynamic_cast<const Model*>(&system)) {
    if constexpr (std::is_same_v<Model, ConstrainedLagrangian>) check_treats(system, who, treats);
    return *m;
  }
  throw Error("'" + std::string(who) + "' needs model " + Model::model_name + "; system '" +
              system.name() + "' does not provide it");
}

}  // namespace dalembert
