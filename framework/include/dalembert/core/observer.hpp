#pragma once
// An observer (plugin): sees the start, every step and the end of a run; at each recorded step it
// writes its named columns; at the end it reports scalar summaries (e.g. max |ΔE|), whose names
// are those of a run of no steps and, for some, patterns that depend on the run.
// Per-step work is only what the observer reports per step (running maxima). Values several
// observers need — the energy — are computed once per step by the Simulation and handed to every
// observer that declares it needs them (StepValues); a value an observer computes in step() for a
// running maximum is reused by observe() at the same state, not computed again.
#include <boost/config.hpp>
#include <limits>
#include <dalembert/core/integrator.hpp>
#include <dalembert/core/state.hpp>
#include <dalembert/core/system.hpp>
#include <string>
#include <utility>
#include <vector>

namespace dalembert {

/// What the Simulation computes once per step (and at the start) and shares between observers.
struct StepValues {
  /// E(q, v) of the current state, when some observer needs_energy(); NaN otherwise.
  double energy = std::numeric_limits<double>::quiet_NaN();
  /// A row is recorded at this state: observe() follows step().
  bool recorded = false;
};

class BOOST_SYMBOL_VISIBLE Observer {
 public:
  virtual ~Observer();
  virtual void bind(const System&, const Integrator&) = 0;
  virtual void columns(std::vector<std::string>& names) const = 0;
  /// True: StepValues::energy is filled for this observer's step() and observe() (asked once, after bind).
  virtual bool needs_energy() const { return false; }
  virtual void start(const State& s0) {}
  /// Every step (cheap: for running maxima). Default: nothing.
  virtual void step(const State&, const StepValues&) {}
  /// An impact on guard `sigma` at pre.t: the state just before and just after the impact map.
  virtual void impact(const State& pre, const State& post, int sigma) {}
  /// A recorded state (the start, after start(); later ones right after step() on the same state):
  /// write columns().size() values.
  virtual void observe(const State&, const StepValues&, double* out) = 0;
  /// End of run: named scalar summaries.
  virtual void summary(std::vector<std::pair<std::string, double>>& out) const {}
  /// The summaries whose names depend on the run, reported only when the run produces them
  /// (impact_log: impact_<k>_t of the k-th impact), as patterns in which "<k>" stands for a
  /// positive integer. Known after bind(). Every other name summary() reports must be one a run
  /// of no steps reports: a study's claims are checked against both before it runs. Default: none.
  virtual void run_dependent_summaries(std::vector<std::string>& patterns) const {}
};

}  // namespace dalembert
