#pragma once
// A mechanical system (plugin). What it can do for integrators is expressed by the models it
// also derives from (ConstrainedLagrangian, ...); integrators ask for them with require<Model>().
#include <boost/config.hpp>
#include <dalembert/core/input_signal.hpp>
#include <dalembert/core/state.hpp>
#include <string>
#include <vector>

namespace dalembert {

class BOOST_SYMBOL_VISIBLE System {
 public:
  virtual ~System();

  /// The plugin name, stamped by the registry when it creates the system.
  const std::string& name() const { return name_; }
  void set_name(std::string n) { name_ = std::move(n); }

  /// The inputs the study gave this system (Input parameters not left to their defaults), stamped
  /// by the registry with its name: the trajectory observer records their values.
  struct GivenInput {
    std::string name;
    InputSignal signal;
  };
  const std::vector<GivenInput>& given_inputs() const { return given_inputs_; }
  void set_given_inputs(std::vector<GivenInput> inputs) { given_inputs_ = std::move(inputs); }

  virtual Layout layout() const = 0;
  virtual double energy(const State&) const = 0;

  /// Named diagnostics (momenta, Casimirs, partial energies, ...), written by observers.
  virtual void diagnostic_names(std::vector<std::string>& names) const {}
  virtual void diagnostics(const State&, double* out) const {}

  /// Size of the constraint violation of a state (0 for unconstrained systems); ∞-norm.
  virtual double constraint_residual(const State&) const { return 0.0; }
  /// Moves the velocity onto the constraint distribution. Returns false if the system cannot.
  virtual bool project(State&) const { return false; }

  /// The exact solution from s0 at time t, where known (the convergence reference).
  virtual bool has_exact_solution() const { return false; }
  virtual void exact_solution(const State& s0, double t, State& out) const;

 private:
  std::string name_;
  std::vector<GivenInput> given_inputs_;
};

/// Refuses (InputError at `where`) a run over [t0, t1] that leaves the table of an input given to
/// `system`: a table holds its end values outside, which a study must not rely on unknowingly.
BOOST_SYMBOL_VISIBLE void check_inputs_cover(const System& system, double t0, double t1, const std::string& where);

/// Sizes of q and v from a system's layout.
inline int nq(const System& s) { return static_cast<int>(s.layout().q.size()); }
inline int nv(const System& s) { return static_cast<int>(s.layout().v.size()); }

}  // namespace dalembert
