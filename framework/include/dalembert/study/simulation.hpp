#pragma once
// One run: a system, an integrator and observers, stepped from an initial state. The loop checks
// every state for NaN/∞ and turns a StepFailure into a RunFailure naming the step and time.
#include <atomic>
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

  /// Hybrid systems: the impact law applied when one of the system's guards fires (the system
  /// must provide the Guarded model). Bound to the system here; not owned.
  void set_impact_map(ImpactMap* map);

  /// "t" followed by every observer's columns.
  const std::vector<std::string>& columns() const { return columns_; }

  using RowSink = std::function<void(const double*)>;
  /// Advances `state` by `steps` steps of signed size h. Records the initial state and every
  /// `record_every`-th step (and the last) through `sink` if given. `progress` counts steps done.
  void run(State& state, double h, long steps, long record_every = 1, const RowSink& sink = {},
           std::atomic<long>* progress = nullptr);

  /// Scalar summaries of every observer after run().
  std::vector<std::pair<std::string, double>> summary() const;

 private:
  void record(const State& s, const RowSink& sink);
  const System& system_;
  Integrator& integrator_;
  ImpactMap* impact_map_ = nullptr;
  const Guarded* guarded_ = nullptr;
  std::vector<Observer*> observers_;
  std::vector<std::string> columns_;
  std::vector<std::size_t> offsets_;
  std::vector<double> row_;
};

}  // namespace dalembert
