#include <algorithm>
#include <cmath>
#include <functional>
#include <cstdio>
#include <dalembert/core/constrained_lagrangian.hpp>
#include <dalembert/core/error_text.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/impact_map.hpp>
#include <dalembert/core/observer.hpp>
#include <dalembert/core/parameters.hpp>
#include <dalembert/host/probe.hpp>
#include <dalembert/study/column_names.hpp>
#include <dalembert/study/crash_report.hpp>
#include <dalembert/core/sampler.hpp>
#include <dalembert/study/derivative_check.hpp>
#include <dalembert/study/drawing_plan.hpp>
#include <dalembert/study/ensemble_statistics.hpp>
#include <dalembert/study/claim_targets.hpp>
#include <dalembert/core/json_input.hpp>
#include <dalembert/study/simulation.hpp>
#include <dalembert/study/study_kind.hpp>
#include <dalembert/study/assembly.hpp>
#include <dalembert/study/study_plan.hpp>

using nlohmann::json;

namespace dalembert {

namespace {

json to_json(const Vec& x) { return json(std::vector<double>(x.data(), x.data() + x.size())); }

void check_size(const std::string& where, const char* what, const Vec& x, std::size_t n, const std::string& system) {
  if (x.size() != static_cast<Eigen::Index>(n))
    throw InputError(where + "/" + what, "= " + to_json(x).dump() + ": has " + std::to_string(x.size()) +
                                             " components, but system '" + system + "' has " + std::to_string(n));
}

// The initial state of a system with holonomic constraints: on g(q) = 0 and on the distribution, or
// projected onto both if asked (q by Newton on g, then v), the distance moved written to `distance`.
State check_holonomic_initial_state(const Study& st, const System& system, State s0, json& distance) {
  const ConstraintViolation off = constraint_violation(system, s0);
  if (!st.initial.project) {
    if (off.ok()) return s0;
    throw InputError(st.initial.where, "the initial state is off the constraints of system '" + st.system.plugin +
                                           "' at q = " + to_json(s0.q).dump() + ", v = " + to_json(s0.v).dump() + ": " +
                                           off.residuals() +
                                           "; fix q and v, or set \"project\": true to project it onto them");
  }
  const State given = s0;
  const bool projected = system.project(s0);
  const ConstraintViolation after = constraint_violation(system, s0);
  if (!projected || !after.ok())
    throw InputError(st.initial.where, "system '" + st.system.plugin + "' could not project the initial state onto its " +
                                           "constraints (Newton on g(q) = 0, then v): " + after.residuals() +
                                           " after the projection, " + off.residuals() + " before");
  distance = {{"q", (s0.q - given.q).lpNorm<Eigen::Infinity>()}, {"v", (s0.v - given.v).lpNorm<Eigen::Infinity>()}};
  return s0;
}

// The initial state: the system's sizes, on the constraints (or projected there if asked), with a
// finite energy (v = 1e200 is a finite number whose energy is not).
State check_initial_state(const Study& st, const System& system, json& distance) {
  const Layout layout = system.layout();
  State s0 = st.initial.state;
  check_size(st.initial.where, "q", s0.q, layout.q.size(), st.system.plugin);
  check_size(st.initial.where, "v", s0.v, layout.v.size(), st.system.plugin);
  const double residual = system.constraint_residual(s0);
  const double tol = constraint_tolerance(s0);
  if (constraint_violation(system, s0).holonomic > 0) {
    s0 = check_holonomic_initial_state(st, system, s0, distance);
  } else if (!(residual <= tol)) {
    if (!st.initial.project)
      throw InputError(st.initial.where + "/v", "= " + to_json(s0.v).dump() +
                                                    ": the initial state violates the constraints of system '" +
                                                    st.system.plugin + "' at q = " + to_json(s0.q).dump() +
                                                    ": |A(q)v| = " + number_text(residual) + " > " + number_text(tol) +
                                                    "; fix v, or set \"project\": true to project it onto the constraints");
    if (!system.project(s0))
      throw InputError(st.initial.where, "system '" + st.system.plugin + "' cannot project a state onto its constraints");
  }
  const double e0 = system.energy(s0);
  if (!std::isfinite(e0))
    throw InputError(st.initial.where, "the energy of the initial state is " + number_text(e0) + " for system '" +
                                           st.system.plugin + "' (its values overflow double precision)");
  return s0;
}

json traits_json(const Traits& t) {
  return {{"order", t.order}, {"symmetric", t.symmetric}, {"explicit", t.explicit_method}, {"preserves", t.preserves}};
}

// The integrators as run, in the manifest's form.
json integrator_run(const Registry& reg, const PluginUse& u, const Traits& traits) {
  const json params = reg.resolve(PluginKind::Integrator, u.plugin, u.params, u.where).to_json();
  json ij = {{"label", u.label}, {"plugin", u.plugin}, {"params", params}};
  if (u.h != 0.0) ij["h"] = u.h;
  if (!u.display.empty()) ij["display"] = u.display;
  if (u.reference) ij["reference"] = true;
  ij["traits"] = traits_json(traits);
  return ij;
}

json observers_run(const Study& st, const Registry& reg) {
  json out = json::array();
  for (const auto& u : st.observers)
    out.push_back({{"plugin", u.plugin}, {"params", reg.resolve(PluginKind::Observer, u.plugin, u.params, u.where).to_json()}});
  return out;
}

// Every integrator assembled with the study's observers on the plan's system: an integrator or an
// observer that refuses the system (or two observers writing one column) fails here, naming its
// JSON path, not inside a task.
std::vector<std::unique_ptr<Assembly>> assemble_all(const Study& st, const StudyPlan& plan) {
  std::vector<std::unique_ptr<Assembly>> out;
  for (const auto& u : st.integrators)
    out.push_back(std::make_unique<Assembly>(*plan.registry, st, u, Assembly::Parts{true, false}, *plan.system));
  return out;
}

// The impact map bound to the system (which must be Guarded) with the first integrator, and the
// initial state inside the admissible set, checked as a run would.
json plan_impact_map(const Study& st, const StudyPlan& plan) {
  const auto& u = *st.impact_map;
  const json params = plan.registry->resolve(PluginKind::Impact, u.plugin, u.params, u.where).to_json();
  Assembly a(*plan.registry, st, st.integrators.front(), {false, true}, *plan.system);
  located(st.initial.where, [&] { a.simulation().check_initial(plan.initial); });
  return {{"plugin", u.plugin}, {"params", params}};
}

}  // namespace

// The bind-time derivative check (issue 13): at the initial state only, hand-written derivatives
// against AD or central differences, M SPD, A of full rank; no RK4 run. The first finding stops
// the study before anything runs.
void check_system_derivatives(const Study& st, const System& system, const State& s0) {
  const auto* lagrangian = dynamic_cast<const LagrangianSystem*>(&system);
  if (!lagrangian) return;
  DerivativeCheckOptions opt;
  opt.samples = 0;
  opt.state = s0;
  const auto result = check_derivatives(*lagrangian, opt);
  if (result.ok()) return;
  throw InputError(st.system.where, "system '" + st.system.plugin + "' fails the derivative check at the initial state: " +
                                        result.findings.front().message +
                                        (result.findings.size() > 1
                                             ? " and " + std::to_string(result.findings.size() - 1) + " more"
                                             : std::string()) +
                                        " (run 'dalembert check " + st.system.plugin +
                                        "' for the full report; \"check_derivatives\": false turns this off)");
}

namespace {

// The summaries each integrator's tasks will report: those a run of no steps from the initial
// state reports (the study's observers, bound to that integrator: the names do not depend on the
// steps) and the patterns of those that depend on the run (impact_log's impact_<k>_t). A run of no
// steps that fails leaves them unknown: the tasks fail the same way and say why.
std::vector<ReportedNames> task_summaries(const Study& st, const StudyPlan& plan,
                                          const std::vector<std::unique_ptr<Assembly>>& assemblies) {
  std::vector<ReportedNames> out(assemblies.size());
  for (std::size_t i = 0; i < assemblies.size(); ++i) {
    try {
      State s = plan.initial;
      Simulation& sim = assemblies[i]->simulation();
      sim.run(s, st.integrators[i].h != 0.0 ? st.integrators[i].h : st.h[0], 0);
      for (const auto& [name, value] : sim.summary()) out[i].names.push_back(name);
      for (const auto* o : sim.observers()) o->run_dependent_summaries(out[i].patterns);
    } catch (...) {
      out[i] = ReportedNames{};
      out[i].known = false;
    }
  }
  return out;
}

// Every column a figure names must be one a task writes: "x"/"y" of timeseries panels and paths,
// x_0/y_0 of snapshots, the statistics of ensemble figures, the member columns of members
// figures. Not checked here: the task summaries a "summary" figure plots (the plotting script
// names the figure and the summaries there are; the planned summaries, task_summaries, are checked
// against claims only), and the files of other kinds (convergence.csv's fixed columns and a sweep's
// axes are checked by parse_study; its metrics by the plotting script).
}  // namespace

json plan_bound_plugin(const StudyPlan& plan, PluginKind kind, const PluginUse& u) {
  const json params = plan.registry->resolve(kind, u.plugin, u.params, u.where).to_json();
  if (kind == PluginKind::Integrator)
    (void)assemble_integrator(*plan.registry, u, *plan.system);
  else if (kind == PluginKind::Sampler)
    (void)assemble_sampler(*plan.registry, u, *plan.system);
  else
    throw Error(std::string("plan_bound_plugin: a ") + to_string(kind) + " is not bound to the system alone");
  return {{"plugin", u.plugin}, {"params", params}};
}

void check_recorded_figure_columns(const Study& st, const std::vector<std::vector<std::string>>& columns) {
  const JsonCursor root(st.raw, st.file);
  if (!root.has("figures")) return;
  const bool trajectories = kind_of(st).writes_trajectories();
  std::vector<std::string> labels;
  for (const auto& u : st.integrators) labels.push_back(u.label);
  auto cols_of = [&](const std::string& label) -> const std::vector<std::string>& {
    return columns[static_cast<std::size_t>(std::find(labels.begin(), labels.end(), label) - labels.begin())];
  };
  auto tasks_of = [&](const JsonCursor& panel, const JsonCursor& fig) {
    const JsonCursor* c = panel.has("tasks") ? &panel : fig.has("tasks") ? &fig : nullptr;
    if (!c) return labels;
    std::vector<std::string> out;
    for (std::size_t k = 0; k < (*c)["tasks"].size(); ++k) out.push_back((*c)["tasks"].at(k).string());
    return out;
  };
  // `key` of the panel (or, failing that, of the figure; else `fallback`) in every task's columns.
  auto need = [&](const JsonCursor& panel, const JsonCursor& fig, const char* key, const std::string& fallback,
                  const std::string& file_prefix, const std::vector<std::string>& tasks,
                  const std::function<std::vector<std::string>(const std::string&)>& cols) {
    const JsonCursor* c = panel.has(key) ? &panel : fig.has(key) ? &fig : nullptr;
    const std::string name = c ? (*c)[key].string() : fallback;
    if (name.empty()) return;
    for (const auto& label : tasks) {
      const auto have = cols(label);
      if (std::find(have.begin(), have.end(), name) != have.end()) continue;
      const std::string file = file_prefix == "trajectory_" ? trajectory_file(st, label) : file_prefix + label + ".csv";
      const std::string msg = "figure \"" + fig["name"].string() + "\": not a column of " + file +
                              "; its columns are: " + joined(have);
      if (c) (*c)[key].fail(msg);
      throw InputError(fig.where(), "figure \"" + fig["name"].string() + "\": the default \"" + key + "\" = \"" + name +
                                        "\" is not a column of " + file + "; its columns are: " + joined(have));
    }
  };
  const auto trajectory = [&](const std::string& label) { return cols_of(label); };
  const auto members = [&](const std::string& label) { return EnsembleStatistics::member_columns(cols_of(label)); };
  const auto statistics = [&](const std::string& label) {
    return EnsembleStatistics(cols_of(label), st.ensemble.quantiles).statistics_columns();
  };
  const JsonCursor figs = root["figures"];
  for (std::size_t i = 0; i < figs.size(); ++i) {
    const JsonCursor fig = figs.at(i);
    const std::string type = fig["type"].string();
    if (type == "timeseries") {
      if (!trajectories) fig["type"].fail("a timeseries figure draws trajectory files, and " + st.kind + " studies write none");
      if (fig.has("panels")) {
        for (std::size_t k = 0; k < fig["panels"].size(); ++k) {
          const JsonCursor p = fig["panels"].at(k);
          need(p, fig, "y", "", "trajectory_", tasks_of(p, fig), trajectory);
          need(p, fig, "x", "t", "trajectory_", tasks_of(p, fig), trajectory);
        }
      } else {
        need(fig, fig, "y", "", "trajectory_", tasks_of(fig, fig), trajectory);
        need(fig, fig, "x", "t", "trajectory_", tasks_of(fig, fig), trajectory);
      }
    } else if (type == "path" || type == "snapshots") {
      if (!trajectories) fig["type"].fail("a " + type + " figure draws trajectory files, and " + st.kind + " studies write none");
      if (type == "path") {
        need(fig, fig, "x", "", "trajectory_", tasks_of(fig, fig), trajectory);
        need(fig, fig, "y", "", "trajectory_", tasks_of(fig, fig), trajectory);
      } else {  // the first task's bodies x_0, y_0, ...
        const std::vector<std::string> first = {tasks_of(fig, fig).front()};
        need(fig, fig, "_", "x_0", "trajectory_", first, trajectory);
        need(fig, fig, "_", "y_0", "trajectory_", first, trajectory);
      }
    } else if (type == "members") {
      if (!st.ensemble.write_members) fig["type"].fail("a members figure needs \"ensemble\": {\"write_members\": true}");
      need(fig, fig, "y", "", "ensemble_members_", tasks_of(fig, fig), members);
      need(fig, fig, "x", "", "ensemble_members_", tasks_of(fig, fig), members);
    } else if (type == "ensemble") {
      need(fig, fig, "y", "", "ensemble_stats_", tasks_of(fig, fig), statistics);
      if (fig.has("band")) {
        const std::string c = fig["band"].string();
        for (const auto& label : tasks_of(fig, fig)) {
          const auto have = cols_of(label);
          if (c == "t" || std::find(have.begin(), have.end(), c) == have.end())
            fig["band"].fail("figure \"" + fig["name"].string() + "\": not a recorded column of " + label +
                             " (the band shades its quantiles); the columns are: " + joined(have));
        }
      }
    }
  }
}

namespace {

// Every plugin instance a run of `st` makes, with the parameters the study gives it: its
// integrators and those its kind adds (a reference run), its observers and the other plugins its
// kind adds (a sampler), its impact map.
std::vector<PluginConstruction> plugin_constructions(const Study& st) {
  std::vector<PluginConstruction> out = {{PluginKind::System, st.system.plugin, st.system.params, st.system.where}};
  const auto extras = kind_of(st).plugins(st);
  for (const auto& u : st.integrators) out.push_back({PluginKind::Integrator, u.plugin, u.params, u.where});
  for (const auto& [kind, u] : extras)
    if (kind == PluginKind::Integrator) out.push_back({kind, u->plugin, u->params, u->where});
  for (const auto& u : st.observers) out.push_back({PluginKind::Observer, u.plugin, u.params, u.where});
  for (const auto& [kind, u] : extras)
    if (kind != PluginKind::Integrator) out.push_back({kind, u->plugin, u->params, u->where});
  if (st.impact_map) out.push_back({PluginKind::Impact, st.impact_map->plugin, st.impact_map->params, st.impact_map->where});
  return out;
}

}  // namespace

double constraint_tolerance(const State& s) { return 1e-12 * (1.0 + s.v.lpNorm<Eigen::Infinity>()); }

ConstraintViolation constraint_violation(const System& system, const State& s) {
  ConstraintViolation c;
  c.velocity = system.constraint_residual(s);
  c.velocity_tolerance = constraint_tolerance(s);
  if (const auto* model = dynamic_cast<const ConstrainedLagrangian*>(&system); model && model->holonomic_count() > 0) {
    c.holonomic = model->holonomic_count();
    c.position = model->holonomic_residual(s.q);
    c.position_tolerance = holonomic_tolerance(s);
  }
  return c;
}

std::string ConstraintViolation::residuals() const {
  auto one = [](const char* name, double x, double tol) {
    return std::string(name) + " = " + number_text(x) + (x <= tol ? " <= " : " > ") + number_text(tol);
  };
  std::string text = one("|A(q)v|", velocity, velocity_tolerance);
  if (holonomic > 0) text = one("|g(q)|", position, position_tolerance) + ", " + text;
  return text;
}

std::unique_ptr<Registry> study_registry(const Study& st) {
  auto reg = std::make_unique<Registry>();
  for (auto it = st.plugin_paths.rbegin(); it != st.plugin_paths.rend(); ++it) reg->add_search_path(*it);
  return reg;
}

void probe_study_plugins(const Registry& registry, const std::vector<const Study*>& studies) {
  std::vector<PluginConstruction> all;
  for (const Study* st : studies) {
    auto mine = plugin_constructions(*st);
    all.insert(all.end(), std::make_move_iterator(mine.begin()), std::make_move_iterator(mine.end()));
  }
  probe_constructions(registry, all);
}

StudyPlan plan_study(const Study& st) { return kind_of(st).make_plan(st); }

StudyPlan plan_runs(const Study& st) {
  const StudyKind& kind = kind_of(st);
  StudyPlan plan;
  plan.registry = study_registry(st);
  const Registry& reg = *plan.registry;
  probe_study_plugins(reg, {&st});  // a constructor that crashes stops the study here, not the process
  // A plugin that crashes while being bound or checked below is named (study/crash_report.hpp).
  const CrashContext crash((st.file.empty() ? st.name : st.file) + ": checking the study before the run, with system '" +
                           st.system.plugin + "' " + json_excerpt(st.system.params, 300) + ",");

  const json sys_params = reg.resolve(PluginKind::System, st.system.plugin, st.system.params, st.system.where).to_json();
  plan.system = reg.make_system(st.system.plugin, st.system.params, st.system.where);
  plan.initial = check_initial_state(st, *plan.system, plan.projection_distance);
  const State& s0 = plan.initial;
  // An input given as a table must cover the run, [t₀, t₀ + T]: refused here, before anything runs.
  check_inputs_cover(*plan.system, s0.t, s0.t + st.T, st.system.where + "/params");
  if (st.check_derivatives) check_system_derivatives(st, *plan.system, s0);

  const auto assemblies = assemble_all(st, plan);
  json integrators_run = json::array();
  for (std::size_t i = 0; i < assemblies.size(); ++i) {
    plan.traits.push_back(assemblies[i]->integrator().traits());
    integrators_run.push_back(integrator_run(reg, st.integrators[i], plan.traits.back()));
    plan.columns.push_back(assemblies[i]->simulation().columns());
  }
  kind.check_figure_columns(st, plan.columns);
  check_animation_figures(st, *plan.system, plan.columns);
  plan.summaries = task_summaries(st, plan, assemblies);

  json& run = plan.study_run;
  run = {{"name", st.name},
         {"kind", st.kind},
         {"description", st.description},
         {"system", {{"plugin", st.system.plugin}, {"params", sys_params}}},
         {"initial", {{"t", s0.t}, {"q", to_json(s0.q)}, {"v", to_json(s0.v)}, {"project", st.initial.project}}},
         {"integrators", integrators_run},
         {"observers", observers_run(st, reg)},
         {"T", st.T},
         {"h", !kind.ladder() ? json(st.h[0]) : json(st.h)},
         {"record_every", st.record_every},
         {"check_derivatives", st.check_derivatives},
         {"figures", st.figures},
         {"plugin_paths", st.plugin_paths}};
  if (st.record_format != "csv") run["record_format"] = st.record_format;  // csv manifests as before
  if (!plan.projection_distance.is_null()) run["initial"]["projection_distance"] = plan.projection_distance;
  // How the system looks (core/drawable.hpp): the animator needs the run folder alone.
  if (json drawing = system_drawing(*plan.system); !drawing.is_null()) run["system"]["drawing"] = std::move(drawing);
  kind.plan(st, plan, run);
  if (st.impact_map) run["impact_map"] = plan_impact_map(st, plan);
  if (st.raw.contains("claims")) run["claims"] = st.raw["claims"];
  plan.tasks = kind.tasks(st);
  check_claim_targets(st, plan);
  return plan;
}

}  // namespace dalembert
