#pragma once
// Optional model of an integrator (found by dynamic_cast, like Guarded / ExactEventLocator on
// systems): told the run's step size h before start(). An integrator whose initial data depend on
// h publishes them at t0 instead of after its first step — e.g. mla/dla started from the paper's
// two-step data (q0, q1): H0 = H|D*(q0, π^−(q0, q1; h)) (seed 002 Figs 2–6, issue 15).
// The hint concerns the next start() only; an integrator must still work without it.
#include <boost/config.hpp>

namespace dalembert {

class BOOST_SYMBOL_VISIBLE StepAware {
 public:
  static constexpr const char* model_name = "StepAware";
  virtual ~StepAware();
  /// The step size of the run about to start (signed; the runner calls it right before start()).
  virtual void expect_step(double h) = 0;
};

}  // namespace dalembert
