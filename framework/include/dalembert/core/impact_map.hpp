#pragma once
// Hybrid systems (seed 004, spec 004 §2): the Guarded model, the optional ExactEventLocator model,
// and the ImpactMap plugin interface. The runner (Simulation::run) detects guard crossings inside
// a step, locates them, applies the map and finishes the step.
#include <boost/config.hpp>
#include <dalembert/core/constrained_lagrangian.hpp>
#include <dalembert/core/parameters.hpp>
#include <dalembert/core/state.hpp>
#include <dalembert/core/system.hpp>
#include <string>
#include <vector>

namespace dalembert {

/// Guard functions h_σ(q), σ = 0 … num_guards()−1, with their differentials. Convention of
/// spec 004 §2 (Def II.7): h_σ < 0 is the admissible side; an impact on guard σ is a crossing of
/// h_σ from h < 0 to h > 0, i.e. with dh_σ(q)·q̇⁻ > 0. Several guards are checked at once.
class BOOST_SYMBOL_VISIBLE Guarded {
 public:
  static constexpr const char* model_name = "Guarded";
  virtual ~Guarded();
  virtual int num_guards() const = 0;
  virtual double guard(int sigma, ConstVecRef q) const = 0;
  /// dh_σ(q), a row of length n (stored as a vector).
  virtual void guard_gradient(int sigma, ConstVecRef q, VecRef dg) const = 0;
  /// d/dt h_σ along the motion at (q, v). Default dh_σ(q)·v, right when v = q̇ (plain coordinates).
  virtual double guard_rate(int sigma, const State& s) const;
  /// A short name for guard σ in logs and messages ("front edge"); default "guard σ".
  virtual std::string guard_name(int sigma) const;
};

/// Optional model: a system that knows its flow in closed form can locate the next impact exactly
/// (spec 004 §3, "exact event location"). The runner uses it when present (unless told not to).
class BOOST_SYMBOL_VISIBLE ExactEventLocator {
 public:
  static constexpr const char* model_name = "ExactEventLocator";
  virtual ~ExactEventLocator();
  /// The first impact (upward crossing with positive rate) of the exact, impact-free flow from `s`
  /// at a time τ ∈ (0, horizon] (horizon > 0). `skip_guard` (−1: none) is the guard that fired at
  /// s.t: its root at τ = 0 is not an impact. Returns false if there is none in (0, horizon].
  virtual bool next_impact(const State& s, double horizon, int skip_guard, double& tau, int& sigma) const = 0;
};

/// How the runner handles impacts (a plugin's params carry them, see impact_handling_params()).
struct ImpactHandling {
  /// A run with more impacts than this inside any window of one unit of time is stopped
  /// (RunFailure) as Zeno-like instead of looping.
  double max_impacts_per_unit_time = 1e4;
  /// The located impact time is refined until its uncertainty is at most this (spec 004 §6.3).
  double time_tolerance = 1e-12;
  /// "auto": the system's ExactEventLocator if it has one, else the generic locator;
  /// "exact": require it; "generic": always the runner's step-based locator.
  std::string locator = "auto";
};

/// Maps a pre-impact state on guard σ to the post-impact state.
class BOOST_SYMBOL_VISIBLE ImpactMap {
 public:
  virtual ~ImpactMap();
  virtual void bind(const System&) = 0;
  /// Replaces state.v by the post-impact velocity (q and t unchanged). Throws dalembert::Error if
  /// the law cannot be applied (e.g. a plastic impact leaving the velocity pointing outward).
  virtual void apply(State& state, int sigma) = 0;
  /// How the runner should detect, locate and cap impacts with this law.
  virtual ImpactHandling handling() const { return {}; }
};

/// The declared parameters every impact plugin of this repository offers for ImpactHandling.
inline std::vector<ParamSpec> impact_handling_params() {
  const double inf = std::numeric_limits<double>::infinity();
  return {
      {"max_impacts_per_unit_time", ParamType::Number, 1e4,
       "stop the run (Zeno-like) when more impacts than this happen within one unit of time (at most 10^6: the "
       "run keeps their times)",
       1.0, 1e6},
      {"time_tolerance", ParamType::Number, 1e-12, "uncertainty of each located impact time", 1e-16, 1e-3},
      {"locator", ParamType::String, "auto",
       "auto: the system's exact event locator if it has one; exact: require it; generic: the runner's "
       "step-based locator (sign change and local maxima of each guard)",
       -inf, inf, {"auto", "exact", "generic"}},
  };
}

inline ImpactHandling impact_handling_from(const Parameters& p) {
  ImpactHandling h;
  h.max_impacts_per_unit_time = p.number("max_impacts_per_unit_time");
  h.time_tolerance = p.number("time_tolerance");
  h.locator = p.string("locator");
  return h;
}

}  // namespace dalembert
