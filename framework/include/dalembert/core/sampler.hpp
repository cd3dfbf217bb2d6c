#pragma once
// A sampler (plugin) draws the initial states of an ensemble. Each member's random stream is
// derived from the study seed and the member's index alone, so an ensemble is the same for any
// number of threads and any order of completion.
#include <boost/config.hpp>
#include <cstdint>
#include <dalembert/core/state.hpp>
#include <dalembert/core/system.hpp>

namespace dalembert {

/// A small, portable, reproducible generator (SplitMix64 seeding xoshiro256**), with its own
/// uniform and normal variates so results do not depend on the standard library's distributions.
class RandomStream {
 public:
  /// The stream of ensemble member `index` of a study seeded with `seed`.
  RandomStream(std::uint64_t seed, std::uint64_t index);
  std::uint64_t next();
  double uniform();                          ///< in [0, 1)
  double uniform(double lo, double hi);      ///< in [lo, hi)
  double normal();                           ///< standard normal (Box–Muller, no cached pair)

 private:
  std::uint64_t s_[4];
};

class BOOST_SYMBOL_VISIBLE Sampler {
 public:
  virtual ~Sampler();
  /// Checks the system (e.g. that it has the model the sampler needs); called once per task.
  virtual void bind(const System&) = 0;
  /// Draws one initial state. `base` is the study's initial state (sizes, t, and the point that
  /// perturbation samplers perturb); `out` arrives as a copy of it.
  virtual void sample(RandomStream& rng, const State& base, State& out) = 0;
};

}  // namespace dalembert
