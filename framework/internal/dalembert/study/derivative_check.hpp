#pragma once
// The derivative checker (issue 13): compares every derivative a LagrangianSystem writes by hand
// with automatic differentiation (a system that is AutomaticDerivatives) or with a
// Richardson-extrapolated central difference of the lower-order function (any other), and every
// derivative an AD system leaves to AD with central differences, at a given state and at random
// states on the constraint distribution; checks M symmetric positive definite
// and A of full rank; optionally (the CLI, not bind time) runs RK4 on the continuous nonholonomic
// field at h and h/2 and checks energy error falling like h⁴ and constraint residual at round-off.
#include <boost/config.hpp>
#include <cstdint>
#include <dalembert/core/constrained_lagrangian.hpp>
#include <optional>
#include <string>
#include <vector>

namespace dalembert {

/// One failed check: a derivative entry that disagrees, or a property (SPD, rank, flow) that fails.
struct DerivativeFinding {
  std::string function;   ///< e.g. "constraint_gradient", "mass", "rk4_energy"
  std::string entry;      ///< e.g. "(a=0)[x][y]"; empty for a whole-function property
  double hand = 0.0;      ///< the system's value
  double reference = 0.0; ///< AD, central difference, or the expected figure
  double relative_error = 0.0;
  std::string message;    ///< one line, e.g. "constraint_gradient(a=0)[x][y]: hand -1 vs AD +1 (relative error 2)"
};

/// Per function checked: the worst relative error over the states and what it was compared with.
struct FunctionSummary {
  std::string function;
  std::string reference;  ///< "AD", "central difference", "AD vs central difference", or the property checked
  double worst_relative_error = 0.0;
  int states = 0;
  /// For a property (SPD, rank, flow): its least favourable measured value over the states
  /// (asymmetry, smallest eigenvalue, σ_min/σ_max, fitted order); unset for a comparison.
  std::optional<double> measured;
};

struct DerivativeCheckOptions {
  int samples = 8;                  ///< random states besides the given one
  std::uint64_t seed = 1;
  std::optional<State> state;       ///< checked first; samples lie in a box around its q (else the origin)
  double box = 0.5;                 ///< half-width of the q box, the same in every coordinate
  bool flow = false;                ///< also the RK4 energy/constraint run (CLI; not at bind time)
  double ad_tolerance = 1e-9;       ///< hand vs AD (a correct closed form agrees to ~1e-14)
  double fd_tolerance = 1e-6;       ///< hand vs Richardson central difference (O(δ⁴) ≈ 1e-12, round-off ≈ 1e-11)
};

struct DerivativeCheckResult {
  std::vector<FunctionSummary> summary;
  std::vector<DerivativeFinding> findings;
  bool ok() const { return findings.empty(); }
};

/// Runs the checks on `system` (named `system_name` in messages). Deterministic for a given seed.
BOOST_SYMBOL_VISIBLE DerivativeCheckResult check_derivatives(const LagrangianSystem& system,
                                                             const DerivativeCheckOptions& options);

/// The summary as a table and one line per finding, for the CLI.
BOOST_SYMBOL_VISIBLE std::string format_check_result(const std::string& system_name, const DerivativeCheckResult& result);

}  // namespace dalembert
