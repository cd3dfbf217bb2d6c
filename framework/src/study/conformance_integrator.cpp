// The conformance checks of an integrator (dalembert/study/conformance.hpp): the plugin's side of
// the step contract (core/integrator.hpp) and its declared traits, on every installed system
// example that meets its declared needs.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <dalembert/core/constrained_lagrangian.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/plugin/needs.hpp>
#include <limits>

#include "conformance_support.hpp"

namespace dalembert {

/// The plugin's own step(), bypassing advance(): what the "failure" check is about.
class StepContract {
 public:
  static void step(Integrator& integrator, State& s, double h) { integrator.step(s, h); }
};

namespace conformance {

namespace {

constexpr int kSteps = 20;            // steps of the allocation and constraint checks
constexpr double kOrderTolerance = 0.1;
constexpr int kExactOrder = 50;       // a declared order this high means "exact" (exact_flow)
// Round-off of a state after a few dozen steps: relative 1e-10 covers the solvers' tolerances
// (Newton stops at 1e-13..1e-15 relative) with room; a wrong scheme is off by h^p ≫ 1e-6.
constexpr double kRoundOff = 1e-10;
// An error below this (relative to the state) is not used for an order: a few dozen steps of
// round-off (1e-14) or of a Newton tolerance (1e-13) would move the slope by more than 0.02.
constexpr double kOrderFloor = 1e-11;

bool same_bits(const State& a, const State& b) {
  auto same = [](const Vec& x, const Vec& y) {
    return x.size() == y.size() && std::memcmp(x.data(), y.data(), sizeof(double) * x.size()) == 0;
  };
  return std::memcmp(&a.t, &b.t, sizeof a.t) == 0 && same(a.q, b.q) && same(a.v, b.v);
}

// One integrator example on one system example.
class Pair {
 public:
  Pair(const Registry& reg, const PluginDescriptor& d, const PluginExample& e, const SystemExample& s,
       const ConformanceOptions& o, ConformanceReport& report)
      : reg_(reg), d_(d), e_(e), s_(s), options_(o), rows_(report, e.label, s.label) {}

  void run() {
    in_ = make();
    try {
      in_->bind(*s_.instance);
    } catch (const std::exception& e) {
      return rows_.finding("needs", "bind() refused a system that meets the declared needs: " + std::string(e.what()));
    }
    traits_ = in_->traits();
    guarded("quantities", [&] { quantities(); });
    guarded("allocation", [&] { allocation(); });
    guarded("failure", [&] { failure(); });
    guarded("order", [&] { order(); });
    guarded("symmetric", [&] { symmetric(); });
  }

 private:
  std::unique_ptr<Integrator> make() const { return reg_.make_integrator(d_.name, e_.params, "check"); }

  // A step may fail (StepFailure: the contract allows it, e.g. a Newton solve at a large h): the check
  // is then not exercised here. Any other error is a finding of that check.
  template <class F>
  void guarded(const char* check, F&& f) {
    try {
      f();
    } catch (const StepFailure& e) {
      rows_.not_exercised(check, std::string("a step failed at this example's h: ") + e.what());
    } catch (const std::exception& e) {
      rows_.finding(check, e.what());
    }
  }

  void quantities() {
    std::vector<std::string> names;
    in_->quantity_names(names);
    if (names.empty()) return;
    State s = s_.state;
    in_->begin(s, s_.h);
    in_->advance(s, s_.h);
    constexpr double sentinel = -7.77e307;
    std::vector<double> values(names.size(), sentinel);
    in_->discrete_quantities(values.data());
    for (std::size_t i = 0; i < names.size(); ++i)
      if (values[i] == sentinel || !std::isfinite(values[i]))
        return rows_.finding("quantities", "after a step, published quantity '" + names[i] + "' is " +
                                               (values[i] == sentinel ? "not written" : "not finite (" + short_number(values[i]) + ")"));
    rows_.pass("quantities", std::to_string(names.size()) + " written, finite");
  }

  // kSteps steps from begin(), counting allocations; the constraint residuals on the way.
  void allocation() {
    State s = s_.state;
    std::vector<std::string> names;
    in_->quantity_names(names);
    std::vector<double> values(names.size() + 1);
    double residual = 0.0, discrete = 0.0, holonomic = 0.0;
    const auto* model = dynamic_cast<const ConstrainedLagrangian*>(s_.instance.get());
    const auto slot = std::find_if(names.begin(), names.end(),
                                   [](const std::string& n) { return n.find("discrete_constraint") != std::string::npos; });
    long count = 0;
    in_->begin(s, s_.h);
    for (int k = 0; k < kSteps; ++k) {
      if (options_.allocations) options_.allocations->begin();
      in_->advance(s, s_.h);
      in_->discrete_quantities(values.data());
      if (options_.allocations) count += options_.allocations->end();
      residual = std::max(residual, s_.instance->constraint_residual(s));
      if (model) holonomic = std::max(holonomic, model->holonomic_residual(s.q));
      if (slot != names.end()) discrete = std::max(discrete, std::abs(values[slot - names.begin()]));
    }
    if (!options_.allocations)
      rows_.not_exercised("allocation", "no allocation counter in this program");
    else if (count == 0)
      rows_.pass("allocation", "0 in " + std::to_string(kSteps) + " steps");
    else
      rows_.finding("allocation", std::to_string(count) + " heap allocations in " + std::to_string(kSteps) +
                                      " steps after begin() (DALEMBERT_ALLOC_TRACE=N prints where)");
    constraint(residual, "constraint", "constraint residual |A(q)v|");
    if (slot != names.end()) constraint(discrete, "discrete_constraint", "published " + *slot);
    if (model && model->holonomic_count() > 0) constraint(holonomic, "holonomic_constraint", "holonomic residual |g(q)|");
  }

  void constraint(double worst, const std::string& preserved, const std::string& what) {
    const auto& p = traits_.preserves;
    if (std::find(p.begin(), p.end(), preserved) == p.end()) return;
    const double tol = kRoundOff * state_scale(s_.state);
    const std::string text = what + " at most " + short_number(worst) + " over " + std::to_string(kSteps) + " steps";
    if (worst <= tol)
      rows_.pass("constraint", text);
    else
      rows_.finding("constraint", "declares it preserves \"" + preserved + "\", but the " + text + " (round-off: " +
                                      short_number(tol) + ")");
  }

  // step() itself, provoked to fail by a NaN, then by ever larger steps: the state must be as it was.
  void failure() {
    const double h0 = s_.h;
    if (provoke(h0, true)) return;
    for (int k = 1; k <= 6; ++k)
      if (provoke(h0 * std::pow(4.0, k), false)) return;
    rows_.not_exercised("failure", "no StepFailure for h up to " + short_number(h0 * 4096) + " nor from a NaN in q and v");
  }

  bool provoke(double h, bool nan) {
    State s = s_.state;
    in_->begin(s, h);
    if (nan) s.q[0] = s.v[0] = std::numeric_limits<double>::quiet_NaN();
    const State before = s;
    try {
      StepContract::step(*in_, s, h);
    } catch (const StepFailure& e) {
      const std::string when = nan ? "from a state with a NaN" : "at h = " + short_number(h);
      if (same_bits(s, before))
        rows_.pass("failure", "state unchanged after a StepFailure " + when);
      else
        rows_.finding("failure", "step() changed the state before throwing StepFailure " + when + " (by " +
                                     short_number(state_distance(s, before)) + "): " + e.what());
      return true;
    } catch (const std::exception& e) {
      rows_.finding("failure", "step() threw an error that is not a StepFailure at h = " + short_number(h) + ": " + e.what());
      return true;
    }
    return false;
  }

  // The global error at T = 8h of steps h/2^j (j = 0..3); the slope between the finest pair of
  // step sizes whose errors both stand above round-off.
  void order() {
    if (!s_.instance->has_exact_solution()) return;
    const int p = traits_.order;
    const double T = 8.0 * s_.h, floor = kOrderFloor * state_scale(s_.state);
    State exact;
    s_.instance->exact_solution(s_.state, s_.state.t + T, exact);
    double e[4];
    for (int j = 0; j < 4; ++j) {
      State s = s_.state;
      const double h = s_.h / (1 << j);
      in_->begin(s, h);
      for (int k = 0; k < (8 << j); ++k) in_->advance(s, h);
      e[j] = state_distance(s, exact);
    }
    const std::string errors = "errors " + short_number(e[0]) + ", " + short_number(e[1]) + ", " + short_number(e[2]) +
                               ", " + short_number(e[3]) + " at h = " + short_number(s_.h) + "/2^j, T = " + short_number(T);
    int j = 3;
    while (j > 0 && !(e[j] > floor && e[j - 1] > floor)) --j;
    if (j == 0) {
      if (p >= kExactOrder) return rows_.pass("order", "exact: " + errors);
      return rows_.not_exercised("order", "errors at round-off (" + errors + "): the method is exact here");
    }
    const double measured = std::log2(e[j - 1] / e[j]);
    const std::string text = "declared " + std::to_string(p) + ", measured " + short_number(measured) + " (" + errors + ")";
    if (p < kExactOrder && std::abs(measured - p) <= kOrderTolerance)
      rows_.pass("order", text);
    else
      rows_.finding("order", text);
  }

  // From the state after one step (a multistep method's first step is its starter, not the map
  // that is symmetric), a step of h then one of −h comes back to it.
  void symmetric() {
    if (!traits_.symmetric) return;
    State s = s_.state;
    in_->begin(s, s_.h);
    in_->advance(s, s_.h);
    const State start = s;
    in_->advance(s, s_.h);
    in_->advance(s, -s_.h);
    const double back = state_distance(s, start), tol = kRoundOff * state_scale(start);
    const std::string text = "a step of h = " + short_number(s_.h) + " then -h ends " + short_number(back) + " from where it began";
    if (back <= tol)
      rows_.pass("symmetric", text);
    else
      rows_.finding("symmetric", "declared symmetric, but " + text + " (round-off: " + short_number(tol) + ")");
  }

  const Registry& reg_;
  const PluginDescriptor& d_;
  const PluginExample& e_;
  const SystemExample& s_;
  const ConformanceOptions& options_;
  Rows rows_;
  std::unique_ptr<Integrator> in_;
  Traits traits_;
};

// Why a system does not meet an integrator's declared needs: it lacks a need, or it has a capability
// the integrator does not declare it treats (unmet_integrator_need: "treats C").
std::string lacking(const std::string& unmet) {
  if (unmet.rfind("treats ", 0) == 0)
    return "it has " + unmet.substr(7) + ", which the integrator does not declare it treats";
  return "it lacks " + unmet;
}

// bind() must refuse a system that does not meet the declared needs (once per system).
void check_refusal(const Registry& reg, const PluginDescriptor& d, const PluginExample& e, const SystemExample& s,
                   const std::string& unmet, ConformanceReport& report) {
  Rows rows(report, e.label, s.system);
  try {
    reg.make_integrator(d.name, e.params, "check")->bind(*s.instance);
  } catch (const std::exception&) {
    return rows.pass("needs", "refused (" + lacking(unmet) + ")");
  }
  rows.finding("needs", "bind() accepted a system that does not meet the declared needs: " + lacking(unmet));
}

}  // namespace

void check_integrator(const Registry& registry, const PluginDescriptor& d, const ConformanceOptions& options,
                      ConformanceReport& report) {
  const auto systems = system_examples(registry);
  for (const auto& e : parameter_sets(d, options)) {
    Needs needs;
    try {
      needs = registry.needs(PluginKind::Integrator, d.name, e.params, "check");
    } catch (const std::exception& x) {
      Rows(report, e.label, "").finding("needs", x.what());
      continue;
    }
    int exercised = 0;
    for (const auto& s : systems) try {
        const std::string unmet = unmet_integrator_need(*s.instance, needs);
        if (!unmet.empty()) {
          if (s.first) check_refusal(registry, d, e, s, unmet, report);
          continue;
        }
        ++exercised;
        Pair(registry, d, e, s, options, report).run();
      } catch (const std::exception& x) {  // e.g. an unknown capability in the declaration
        Rows(report, e.label, s.label).finding("needs", x.what());
      }
    if (exercised == 0)
      Rows(report, e.label, "").not_exercised("needs", "no installed system example meets " + joined(needs));
  }
}

}  // namespace conformance
}  // namespace dalembert
