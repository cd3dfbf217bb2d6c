// The conformance checks of systems, observers, impact maps and samplers
// (dalembert/study/conformance.hpp).
#include <algorithm>
#include <cmath>
#include <map>
#include <dalembert/core/constrained_lagrangian.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/plugin/needs.hpp>
#include <dalembert/study/derivative_check.hpp>
#include <dalembert/study/simulation.hpp>
#include <dalembert/study/study_plan.hpp>

#include "conformance_support.hpp"

namespace dalembert::conformance {

namespace {

constexpr double kUnwritten = -7.77e307;  // a value no column holds: still there, the column was not written

// ---- Systems ----------------------------------------------------------------------------------

// A finite state of the layout's sizes, on the constraints, where the exact solution starts.
void check_state(const System& sys, const PluginExample& e, Rows& rows) {
  const Layout lay = sys.layout();
  const State& s = e.state;
  if (s.q.size() != Eigen::Index(lay.q.size()) || s.v.size() != Eigen::Index(lay.v.size()))
    return rows.finding("state", "the example state has " + std::to_string(s.q.size()) + " q and " +
                                     std::to_string(s.v.size()) + " v components; the layout has " +
                                     std::to_string(lay.q.size()) + " and " + std::to_string(lay.v.size()));
  if (!s.q.allFinite() || !s.v.allFinite() || !std::isfinite(s.t)) return rows.finding("state", "the example state is not finite");
  if (!(e.h > 0.0) || !std::isfinite(e.h)) return rows.finding("state", "the example's step size h = " + short_number(e.h) + " is not positive");
  const double residual = sys.constraint_residual(s), tol = constraint_tolerance(s);
  if (const ConstraintViolation off = constraint_violation(sys, s); off.holonomic > 0 && !off.ok())
    return rows.finding("state", "the example state is off the constraints: " + off.residuals());
  if (!(residual <= tol))
    return rows.finding("state", "the example state is off the constraints: |A(q)v| = " + short_number(residual) +
                                     " > " + short_number(tol));
  if (sys.has_exact_solution()) {
    State at0;
    sys.exact_solution(s, s.t, at0);
    const double d = state_distance(at0, s);
    if (!(d <= 1e-12 * state_scale(s)))
      return rows.finding("state", "the exact solution at t0 is " + short_number(d) + " away from the example state");
  }
  const ConstraintViolation on = constraint_violation(sys, s);
  rows.pass("state", "on the constraints (" + (on.holonomic > 0 ? "|g(q)| = " + short_number(on.position) + ", " : std::string()) +
                         "|A(q)v| = " + short_number(residual) + "), h = " + short_number(e.h));
}

void check_derivatives_at(const System& sys, const PluginExample& e, Rows& rows) {
  const auto* lagrangian = dynamic_cast<const LagrangianSystem*>(&sys);
  if (!lagrangian) return rows.not_exercised("derivatives", "not a LagrangianSystem: no derivatives to check");
  DerivativeCheckOptions opt;
  if (e.state.q.size() > 0) opt.state = e.state;
  opt.flow = true;
  const auto result = check_derivatives(*lagrangian, opt);
  if (result.ok()) {
    double worst = 0.0;
    for (const auto& f : result.summary)
      if (!f.measured) worst = std::max(worst, f.worst_relative_error);
    return rows.pass("derivatives", std::to_string(result.summary.size()) + " functions, worst relative error " +
                                        short_number(worst) + " (dalembert check --state at the example)");
  }
  for (const auto& f : result.findings) rows.finding("derivatives", f.message);
}

// ---- Observers --------------------------------------------------------------------------------

// Which of an observer's columns and summaries were finite after a step somewhere: a column may be
// NaN where its value does not exist (momentum_map_half beside an integrator without half steps),
// but it must be written everywhere and finite on some system beside some integrator.
struct Finite {
  std::map<std::string, bool> columns, summaries;
  void note(std::map<std::string, bool>& seen, const std::string& name, double value) {
    seen[name] = seen[name] || std::isfinite(value);
  }
  bool all() const {
    auto finite = [](const auto& m) { return std::all_of(m.begin(), m.end(), [](const auto& x) { return x.second; }); };
    return finite(columns) && finite(summaries);
  }
};

// Observer `obs` beside `in` on s: the Simulation's calls (start, observe, then step and observe
// after each of a few steps). "" or the column it did not write.
std::string exercise_observer(Observer& obs, Integrator& in, const SystemExample& s, Finite& finite) {
  std::vector<std::string> names;
  obs.columns(names);
  const bool energy = obs.needs_energy();
  State st = s.state;
  in.begin(st, s.h);
  obs.start(st);
  auto row = [&](bool stepped) -> std::string {
    StepValues v;
    v.recorded = true;
    if (energy) v.energy = s.instance->energy(st);
    if (stepped) obs.step(st, v);
    std::vector<double> out(names.size(), kUnwritten);
    obs.observe(st, v, out.data());
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (out[i] == kUnwritten) return "column '" + names[i] + "' not written";
      if (stepped) finite.note(finite.columns, names[i], out[i]);
    }
    return {};
  };
  if (const auto bad = row(false); !bad.empty()) return "at the start: " + bad;
  for (int k = 1; k <= 5; ++k) {
    in.advance(st, s.h);
    if (const auto bad = row(true); !bad.empty()) return "after step " + std::to_string(k) + ": " + bad;
  }
  std::vector<std::pair<std::string, double>> summary;
  obs.summary(summary);
  for (const auto& [name, value] : summary) finite.note(finite.summaries, name, value);
  return {};
}

// The columns and summaries never finite, after every pairing of one observer example.
void report_finite(const Finite& finite, Rows&& rows) {
  std::vector<std::string> never;
  for (const auto& [name, ok] : finite.columns)
    if (!ok) never.push_back("column '" + name + "'");
  for (const auto& [name, ok] : finite.summaries)
    if (!ok) never.push_back("summary '" + name + "'");
  if (!never.empty())
    rows.finding("columns", joined(never) + " never finite, on any system beside any integrator");
  else if (!finite.columns.empty())
    rows.pass("columns", std::to_string(finite.columns.size()) + " columns and " + std::to_string(finite.summaries.size()) +
                             " summaries finite on some system beside some integrator");
}

// ---- Impact maps ------------------------------------------------------------------------------

// Sees every impact of a run: the map keeps t and q and writes a finite v.
class ImpactWitness final : public Observer {
 public:
  void bind(const System&, const Integrator&) override {}
  void columns(std::vector<std::string>&) const override {}
  void observe(const State&, const StepValues&, double*) override {}
  void impact(const State& pre, const State& post, int sigma) override {
    ++count;
    if (bad.empty() && !post.v.allFinite()) bad = "the post-impact velocity is not finite (guard " + std::to_string(sigma) + ")";
    if (bad.empty() && (post.q != pre.q || post.t != pre.t))
      bad = "the map changed q or t (guard " + std::to_string(sigma) + ")";
  }
  long count = 0;
  std::string bad;
};

bool exercise_impact(const Registry& reg, ImpactMap& map, const SystemExample& s, Rows& rows) {
  for (const auto& [name, params] : integrators_for(reg, *s.instance)) try {
      auto in = reg.make_integrator(name, params, "check");
      ImpactWitness witness;
      Simulation sim(*s.instance, *in, {&witness});
      sim.set_impact_map(&map);
      State st = s.state;
      sim.run(st, s.h, 400);
      if (!witness.bad.empty()) rows.finding("impact", witness.bad);
      else if (witness.count == 0) rows.not_exercised("impact", "no impact in 400 steps of " + name);
      else rows.pass("impact", std::to_string(witness.count) + " impacts in 400 steps of " + name + ", post-impact states finite");
      return true;
    } catch (const RunFailure& e) {
      rows.finding("impact", "a run of " + name + " with the map failed: " + e.what());
      return true;
    } catch (const std::exception&) {  // this integrator or the map refuses the system: try the next
    }
  return false;
}

// ---- Samplers ---------------------------------------------------------------------------------

void exercise_sampler(Sampler& sampler, const SystemExample& s, Rows& rows) {
  for (std::uint64_t i = 0; i < 4; ++i) {
    RandomStream rng(1, i);
    State out = s.state;
    sampler.sample(rng, s.state, out);
    if (out.q.size() != s.state.q.size() || out.v.size() != s.state.v.size())
      return rows.finding("samples", "draw " + std::to_string(i) + " has the wrong size");
    if (!out.q.allFinite() || !out.v.allFinite()) return rows.finding("samples", "draw " + std::to_string(i) + " is not finite");
  }
  rows.pass("samples", "4 draws finite, of the state's sizes");
}

// Every (parameter set, system) pair of a plugin that binds to a system, on each system's first
// example: where the system meets the declared needs, `exercise` runs the plugin's check (false:
// the plugin refused this system for another reason, e.g. its parameters name other components);
// where it does not, `binds` must say the plugin refuses it.
template <class Exercise, class Binds>
void over_systems(const Registry& reg, const PluginDescriptor& d, const ConformanceOptions& options,
                  ConformanceReport& report, const std::string& check, Exercise&& exercise, Binds&& binds) {
  const auto systems = system_examples(reg);
  for (const auto& e : parameter_sets(d, options)) {
    int exercised = 0;
    Needs needs;
    try {
      needs = reg.needs(d.kind, d.name, e.params, "check");
    } catch (const std::exception& x) {
      Rows(report, e.label, "").finding("needs", x.what());
      continue;
    }
    for (const auto& s : systems) {
      if (!s.first) continue;
      Rows rows(report, e.label, s.system);
      try {
        if (const std::string unmet = unmet_need(*s.instance, needs); !unmet.empty()) {
          if (binds(e, s))
            rows.finding("needs", "bind() accepted a system that lacks the declared need " + unmet);
          else
            rows.pass("needs", "refused (it lacks " + unmet + ")");
        } else if (exercise(e, s, rows)) {
          ++exercised;
        }
      } catch (const std::exception& x) {
        rows.finding(check, x.what());
        ++exercised;
      }
    }
    if (exercised == 0) Rows(report, e.label, "").not_exercised(check, "no installed system example accepted it");
  }
}

// Whether `bind` accepts: false if it throws a dalembert Error (a refusal).
template <class Bind>
bool accepts(Bind&& bind) {
  try {
    bind();
    return true;
  } catch (const Error&) {
    return false;
  }
}

// An integrator of the registry bound to `system` (the first that binds), for observers; null if none.
std::unique_ptr<Integrator> bound_integrator(const Registry& reg, const System& system) {
  for (const auto& [name, params] : integrators_for(reg, system)) try {
      auto in = reg.make_integrator(name, params, "check");
      in->bind(system);
      return in;
    } catch (const std::exception&) {
    }
  return nullptr;
}

}  // namespace

// Each example state: valid, and the derivative check there. Given parameters (or no example):
// the derivative check at the first example's state (or around the origin), as `dalembert check`.
void check_system(const Registry& reg, const PluginDescriptor& d, const ConformanceOptions& options,
                  ConformanceReport& report) {
  const bool declared = !d.examples.empty() && !options.params;
  std::vector<PluginExample> examples = d.examples;
  if (!declared) {
    PluginExample given{"", options.params.value_or(nlohmann::json::object())};
    if (!d.examples.empty()) given.state = d.examples.front().state;
    examples = {given};
  }
  if (d.examples.empty()) Rows(report, "", d.name).not_exercised("state", "declares no example state: no integrator is checked on it");
  for (const auto& e : examples) {
    Rows rows(report, "", e.label.empty() ? d.name : d.name + " (" + e.label + ")");
    try {
      auto sys = reg.make_system(d.name, e.params, "check");
      if (declared) check_state(*sys, e, rows);
      check_derivatives_at(*sys, e, rows);
    } catch (const std::exception& x) {
      rows.finding("state", x.what());
    }
  }
}

void check_observer(const Registry& reg, const PluginDescriptor& d, const ConformanceOptions& options,
                    ConformanceReport& report) {
  std::map<std::string, Finite> finite;  // by example label
  // Beside the integrators that bind to the system and that the observer accepts, until every column
  // has been finite once.
  auto exercise = [&](const PluginExample& e, const SystemExample& s, Rows& rows) {
    std::vector<std::string> beside, refused;
    for (const auto& [name, params] : integrators_for(reg, *s.instance)) {
      std::unique_ptr<Integrator> in;
      std::unique_ptr<Observer> obs;
      try {
        in = reg.make_integrator(name, params, "check");
        in->bind(*s.instance);
        obs = reg.make_observer(d.name, e.params, "check");
        obs->bind(*s.instance, *in);
      } catch (const std::exception&) {  // e.g. one that publishes discrete_energy is needed
        continue;
      }
      try {
        if (const auto bad = exercise_observer(*obs, *in, s, finite[e.label]); !bad.empty()) {
          rows.finding("columns", "beside " + name + ", " + bad);
          return true;
        }
        beside.push_back(name);
        if (finite[e.label].all()) break;
      } catch (const StepFailure&) {  // the integrator's, at this h: not the observer's business
      } catch (const Error& x) {      // refused this system in start() or observe(), with a reason
        refused.push_back(name + ": " + x.what());
      }
    }
    if (!beside.empty()) rows.pass("columns", "written at the start and after 5 steps beside " + joined(beside));
    else if (!refused.empty()) rows.not_exercised("columns", "the observer refused it (beside " + refused.front() + ")");
    return !beside.empty();
  };
  auto binds = [&](const PluginExample& e, const SystemExample& s) {
    auto in = bound_integrator(reg, *s.instance);
    auto obs = reg.make_observer(d.name, e.params, "check");
    return in && accepts([&] { obs->bind(*s.instance, *in); });
  };
  over_systems(reg, d, options, report, "columns", exercise, binds);
  for (const auto& e : parameter_sets(d, options)) report_finite(finite[e.label], Rows(report, e.label, ""));
}

void check_impact(const Registry& reg, const PluginDescriptor& d, const ConformanceOptions& options,
                  ConformanceReport& report) {
  auto exercise = [&](const PluginExample& e, const SystemExample& s, Rows& rows) {
    auto map = reg.make_impact(d.name, e.params, "check");
    return exercise_impact(reg, *map, s, rows);
  };
  auto binds = [&](const PluginExample& e, const SystemExample& s) {
    auto map = reg.make_impact(d.name, e.params, "check");
    return accepts([&] { map->bind(*s.instance); });
  };
  over_systems(reg, d, options, report, "impact", exercise, binds);
}

void check_sampler(const Registry& reg, const PluginDescriptor& d, const ConformanceOptions& options,
                   ConformanceReport& report) {
  auto exercise = [&](const PluginExample& e, const SystemExample& s, Rows& rows) {
    auto sampler = reg.make_sampler(d.name, e.params, "check");
    if (!accepts([&] { sampler->bind(*s.instance); })) return false;  // e.g. components its parameters name
    exercise_sampler(*sampler, s, rows);
    return true;
  };
  auto binds = [&](const PluginExample& e, const SystemExample& s) {
    auto sampler = reg.make_sampler(d.name, e.params, "check");
    return accepts([&] { sampler->bind(*s.instance); });
  };
  over_systems(reg, d, options, report, "samples", exercise, binds);
}

}  // namespace dalembert::conformance
