#pragma once
// Hybrid systems (seed 004). Interfaces only so far: the Guarded model and the ImpactMap plugin.
#include <boost/config.hpp>
#include <dalembert/core/constrained_lagrangian.hpp>
#include <dalembert/core/state.hpp>
#include <dalembert/core/system.hpp>

namespace dalembert {

/// Guard functions g_σ(q) ≥ 0 with their differentials; an impact happens where one reaches 0.
class BOOST_SYMBOL_VISIBLE Guarded {
 public:
  static constexpr const char* model_name = "Guarded";
  virtual ~Guarded();
  virtual int num_guards() const = 0;
  virtual double guard(int sigma, ConstVecRef q) const = 0;
  virtual void guard_gradient(int sigma, ConstVecRef q, VecRef dg) const = 0;
};

/// Maps a pre-impact state on guard σ to the post-impact state.
class BOOST_SYMBOL_VISIBLE ImpactMap {
 public:
  virtual ~ImpactMap();
  virtual void bind(const System&) = 0;
  virtual void apply(State& state, int sigma) = 0;
};

}  // namespace dalembert
