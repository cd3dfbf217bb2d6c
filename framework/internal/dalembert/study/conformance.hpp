#pragma once
// The conformance suite (issue 27): what every plugin promises, checked on the examples the
// registry's plugins declare (PluginDescriptor::examples) — no hand-kept list. `dalembert check
// NAME` prints its table for one plugin; tests/conformance runs it over every installed plugin.
//
// An integrator is paired with every example state of every installed system that meets what it
// declares it needs (PluginDescriptor::needs), once per example parameter set, and checked for
//   needs        bind() accepts a system that meets the declared needs and refuses one that does not;
//   quantities   after a step, discrete_quantities() writes every published quantity, finite;
//   allocation   no heap allocation in 20 steps after begin() (needs an AllocationCounter);
//   failure      a step() that throws StepFailure (provoked by a NaN in q and v, then by h up to 4096 h)
//                leaves the state as it was (not exercised if it cannot be made to fail);
//   order        the declared order, as the slope of the global error at T = 8h over h, h/2, h/4,
//                h/8 against the system's exact solution, to ±0.1;
//   symmetric    after a first step, a step of h then one of −h returns to where it began
//                (declared symmetric only; the first step may be a multistep method's starter);
//   constraint   the constraint residual stays at round-off (declared preserves "constraint"),
//                and so does a published discrete constraint ("discrete_constraint").
// A system: its example states are finite, of its layout's sizes and on its constraints; its
// derivatives pass the derivative check (study/derivative_check.hpp) at each of them.
// An observer: bound beside an integrator, its columns are written at the start and written and
// finite after steps, and its summaries are finite. An impact map: a run with it meets an impact
// and the post-impact states are finite. A sampler: its draws are finite and of the right size.
#include <boost/config.hpp>
#include <dalembert/host/registry.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace dalembert {

/// Counts the process's heap allocations between begin() and end() — allocation hooks only an
/// executable can install (framework/app/allocation_counter.hpp). Without one the suite says the
/// allocation check was not run.
class BOOST_SYMBOL_VISIBLE AllocationCounter {
 public:
  virtual ~AllocationCounter();
  virtual void begin() = 0;
  /// Allocations since begin().
  virtual long end() = 0;
};

enum class Verdict { Pass, Finding, NotExercised };

/// One row of the table: one check of one plugin example on one system example.
struct ConformanceRow {
  std::string check;    ///< needs, quantities, allocation, failure, order, symmetric, constraint, state, derivatives, columns, impact, samples
  std::string example;  ///< the plugin's example ("" for a system's row: its example is `system`)
  std::string system;   ///< "system" or "system (example)"; "" when no system is involved
  Verdict verdict = Verdict::Pass;
  std::string detail;   ///< what was measured; for a finding its one line; why not exercised
};

struct ConformanceOptions {
  AllocationCounter* allocations = nullptr;
  /// Check this parameter set instead of the plugin's declared examples.
  std::optional<nlohmann::json> params;
};

struct ConformanceReport {
  std::string plugin;
  PluginKind kind = PluginKind::System;
  std::vector<ConformanceRow> rows;
  bool ok() const;  ///< no finding
};

/// Runs every check that applies to plugin `name` of `kind` (found in `registry`, paired with the
/// registry's systems). Deterministic.
BOOST_SYMBOL_VISIBLE ConformanceReport check_conformance(const Registry& registry, PluginKind kind,
                                                         const std::string& name, const ConformanceOptions& options);

/// The table (one line per row), then one line per finding "PLUGIN [check] on SYSTEM: detail".
BOOST_SYMBOL_VISIBLE std::string format_conformance(const ConformanceReport& report);

}  // namespace dalembert
