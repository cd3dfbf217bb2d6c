#pragma once
// One run: a system, an integrator and observers, stepped from an initial state. The loop checks
// every state for NaN/∞ and turns a StepFailure into a RunFailure naming the step and time.
#include <atomic>
#include <deque>
#include <boost/config.hpp>
#include <dalembert/core/impact_map.hpp>
#include <dalembert/core/integrator.hpp>
#include <dalembert/core/observer.hpp>
#include <dalembert/core/system.hpp>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace dalembert {

class BOOST_SYMBOL_VISIBLE Simulation {
 public:
  /// Binds the integrator and the observers to the system.
  Simulation(const System& system, Integrator& integrator, std::vector<Observer*> observers = {});
  /// The integrator and the observers are bound already (study/assembly.hpp binds them, naming the
  /// plugin use that refuses).
  struct Bound {};
  Simulation(const System& system, Integrator& integrator, std::vector<Observer*> observers, Bound);

  /// Hybrid systems: the impact law applied when one of the system's guards fires (the system
  /// must provide the Guarded model). Bound to the system here; not owned. The map's handling()
  /// (Zeno cap, time tolerance, locator) becomes the run's impact handling.
  void set_impact_map(ImpactMap* map);
  /// Overrides the impact handling taken from the map (call after set_impact_map).
  void set_impact_handling(const ImpactHandling& h);
  const ImpactHandling& impact_handling() const { return handling_; }
  /// Impacts applied by the last run().
  long impact_count() const { return impact_count_; }

  /// The observers, in the order of their columns.
  const std::vector<Observer*>& observers() const { return observers_; }

  /// "t" followed by every observer's columns.
  const std::vector<std::string>& columns() const { return columns_; }

  using RowSink = std::function<void(const double*)>;
  /// Advances `state` by `steps` steps of signed size h. Records the initial state and every
  /// `record_every`-th step (and the last) through `sink` if given. `progress` counts steps done.
  void run(State& state, double h, long steps, long record_every = 1, const RowSink& sink = {},
           std::atomic<long>* progress = nullptr);

  /// Checks that `state` may start a run: for a hybrid run, inside every guard (h ≤ 0). Throws
  /// RunFailure naming the guard otherwise. run() calls it; a study's plan calls it before the run.
  void check_initial(const State& state) const;

  /// Scalar summaries of every observer after run().
  std::vector<std::pair<std::string, double>> summary() const;

 private:
  void gather_columns();
  void record(const State& s, const RowSink& sink);
  /// Fills values_ for the state s (the energy once, if an observer needs it); `recorded`: a row follows.
  void share(const State& s, bool recorded);
  /// Every observer's step() at s, then the row if this step is recorded.
  void observe_step(const State& s, long k, long steps, long record_every, const RowSink& sink);
  // Hybrid runs (spec 004 §2, §3; framework/src/study/simulation.cpp).
  void run_hybrid(State& s, double h, long steps, long record_every, const RowSink& sink,
                  std::atomic<long>* progress);
  void checked_step(State& s, double h, long k, const char* what);
  void trial(const State& from, double tau, long k);  // trial_ = one step of signed size tau from `from`
  bool find_crossing(const State& s0, const State& s1, double dt, long k, int fired, double& tau, int& sigma);
  bool locate_on_guard(const State& s0, double dt, int g, double lo, double hi, long k, double& tau);
  bool locate_rate_zero(const State& s0, double dt, int g, double lo, double hi, long k, double& tau);
  void polish_exact(const State& s0, double dt, int g, long k, double& tau);
  bool apply_impact(State& s, int sigma, long k, double dir);
  ImpactHandling handling_;
  const ExactEventLocator* exact_locator_ = nullptr;
  long impact_count_ = 0;
  std::deque<double> recent_impacts_;
  State trial_, pre_, prev_;
  Vec dg_;
  const System& system_;
  Integrator& integrator_;
  ImpactMap* impact_map_ = nullptr;
  const Guarded* guarded_ = nullptr;
  std::vector<Observer*> observers_;
  std::vector<std::string> columns_;
  std::vector<std::size_t> offsets_;
  std::vector<double> row_;
  bool needs_energy_ = false;  // some observer needs_energy()
  StepValues values_;
};

}  // namespace dalembert
