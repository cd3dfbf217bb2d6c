#pragma once
// An observer (plugin): sees the start, every step and the end of a run; at each recorded step it
// writes its named columns; at the end it reports scalar summaries (e.g. max |ΔE|).
#include <boost/config.hpp>
#include <dalembert/core/integrator.hpp>
#include <dalembert/core/state.hpp>
#include <dalembert/core/system.hpp>
#include <string>
#include <utility>
#include <vector>

namespace dalembert {

class BOOST_SYMBOL_VISIBLE Observer {
 public:
  virtual ~Observer();
  virtual void bind(const System&, const Integrator&) = 0;
  virtual void columns(std::vector<std::string>& names) const = 0;
  virtual void start(const State& s0) {}
  /// Every step (cheap: for running maxima). Default: nothing.
  virtual void step(const State&) {}
  /// An impact on guard `sigma` at pre.t: the state just before and just after the impact map.
  virtual void impact(const State& pre, const State& post, int sigma) {}
  /// A recorded step: write columns().size() values.
  virtual void observe(const State&, double* out) = 0;
  /// End of run: named scalar summaries.
  virtual void summary(std::vector<std::pair<std::string, double>>& out) const {}
};

}  // namespace dalembert
