#include <algorithm>
#include <cmath>
#include <cstdio>
#include <dalembert/core/error_text.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/study/convergence_fit.hpp>
#include <dalembert/study/convergence_table.hpp>
#include <dalembert/study/csv_writer.hpp>
#include <dalembert/study/ensemble_statistics.hpp>
#include <dalembert/study/provenance.hpp>
#include <dalembert/study/reduce.hpp>
#include <dalembert/study/runner.hpp>
#include <limits>

namespace fs = std::filesystem;
using nlohmann::json;

namespace dalembert {

namespace {

json to_json(const Vec& x) { return json(std::vector<double>(x.data(), x.data() + x.size())); }

// The errors of failed tasks: the first three, then a count (an ensemble may fail 100 times alike).
struct ErrorList {
  std::string text;
  long failed = 0;
  void add(const std::string& what) {
    if (++failed > 3) return;
    text += (text.empty() ? "" : "; ") + what;
  }
  std::string str() const {
    return failed > 3 ? text + "; and " + std::to_string(failed - 3) + " more failed tasks (see manifest.json)" : text;
  }
};

// The plugins the study names, in the study's order, then any other plugin file the run loaded
// (a composite's parts): name, kind, version, file and the file's SHA-256.
json plugin_list(const RunUnit& u) {
  const Study& st = u.study;
  const json loaded = loaded_plugins(*u.plan.registry);
  json plugins = json::array();
  auto note = [&](const std::string& kind, const std::string& name) {
    for (const auto& p : plugins)
      if (p["name"] == name && p["kind"] == kind) return;
    for (const auto& p : loaded)
      if (p["name"] == name && p["kind"] == kind) plugins.push_back(p);
  };
  note(to_string(PluginKind::System), st.system.plugin);
  for (const auto& p : st.integrators) note(to_string(PluginKind::Integrator), p.plugin);
  for (const auto& p : st.observers) note(to_string(PluginKind::Observer), p.plugin);
  if (st.kind == "ensemble") note(to_string(PluginKind::Sampler), st.ensemble.sampler.plugin);
  if (st.impact_map) note(to_string(PluginKind::Impact), st.impact_map->plugin);
  if (ladder_kind(st.kind) && !st.reference.exact) note(to_string(PluginKind::Integrator), st.reference.run.plugin);
  for (const auto& p : loaded) note(p["kind"].get<std::string>(), p["name"].get<std::string>());
  return plugins;
}

class Reducer {
 public:
  Reducer(const RunUnit& u, const Outcomes& o, const fs::path& run_folder, bool verbose)
      : u_(u), st_(u.study), o_(o), dir_(run_folder / u.folder), verbose_(verbose) {}

  UnitResult run() {
    // Every outcome but ensemble members' (their rows stay on disk until the ensemble streams them).
    outcomes_.resize(u_.tasks.size());
    std::size_t k = 0;
    while (k < u_.tasks.size()) {
      if (u_.tasks[k].member >= 0) {
        scan_members(k);
        while (k < u_.tasks.size() && u_.tasks[k].member >= 0) ++k;
        continue;
      }
      o_.visit(u_.first + k, 1, [&](std::size_t, TaskOutcome& out) { outcomes_[k] = std::move(out); });
      if (!outcomes_[k].ok) errors_.add(task_name(u_, u_.tasks[k]) + ": " + outcomes_[k].error);
      ++k;
    }
    manifest_ = {{"dalembert", framework_provenance()},
                 {"study_file", st_.file},
                 {"study", u_.plan.study_run},
                 {"tasks", task_list()},
                 {"plugins", plugin_list(u_)}};
    if (!non_finite_.empty()) manifest_["non_finite_summaries"] = non_finite_;
    if (st_.kind == "ensemble" && errors_.failed == 0) ensembles();
    if (ladder_kind(st_.kind) && errors_.failed == 0) convergence();
    if (st_.kind == "work_precision" && errors_.failed == 0) work_precision();
    manifest_["files"] = files_;
    return {manifest_, errors_.str(), errors_.failed};
  }

 private:
  // Members: only their errors are needed before the ensemble is reduced.
  void scan_members(std::size_t k0) {
    std::size_t n = 0;
    while (k0 + n < u_.tasks.size() && u_.tasks[k0 + n].member >= 0) ++n;
    o_.visit(u_.first + k0, n, [&](std::size_t g, TaskOutcome& out) {
      if (!out.ok) errors_.add(task_name(u_, u_.tasks[g - u_.first]) + ": " + out.error);
    });
  }

  void note_non_finite(const Task& t, const TaskOutcome& r) {
    for (const auto& [name, value] : r.summary)
      if (!std::isfinite(value))
        non_finite_.push_back(t.label + (t.member >= 0 ? "#" + std::to_string(t.member) : "") + " (h = " + number_text(t.h, "%g") +
                              "): " + name + " = " + number_text(value, "%g"));
  }

  json task_list() {
    json list = json::array();
    for (std::size_t k = 0; k < u_.listed; ++k) {
      const Task& t = u_.tasks[k];
      if (t.member >= 0) continue;  // members: ensemble_summaries_<label>.csv
      const TaskOutcome& r = outcomes_[k];
      json tj = {{"id", k}, {"label", t.label}, {"integrator", st_.integrators[t.integrator].plugin}, {"h", t.h},
                 {"steps", t.steps}, {"wall_time_s", r.wall}, {"ok", r.ok}};
      if (!r.ok) tj["error"] = r.error;
      if (r.ok) {
        json summ = json::object();
        for (const auto& [name, value] : r.summary) summ[name] = value;  // JSON has no NaN: written as null
        note_non_finite(t, r);
        tj["summary"] = summ;
        tj["final"] = {{"t", r.final.t}, {"q", to_json(r.final.q)}, {"v", to_json(r.final.v)}};
      }
      if (!t.file.empty()) {
        tj["file"] = t.file;
        files_.push_back({{"path", t.file}, {"kind", "trajectory"}, {"task", k}, {"label", t.label}, {"h", t.h},
                          {"columns", u_.plan.columns[t.integrator]}});
        if (st_.record_format == "npy") files_.back()["format"] = "npy";  // csv entries as before
      }
      list.push_back(tj);
    }
    return list;
  }

  // Integrator i's members: tasks [k0, k0 + n).
  void ensemble_of(std::size_t i, json& ens) {
    const std::string& label = st_.integrators[i].label;
    std::size_t k0 = 0;
    while (u_.tasks[k0].integrator != i || u_.tasks[k0].member < 0) ++k0;
    const std::size_t n = static_cast<std::size_t>(st_.ensemble.size);
    const double h = u_.tasks[k0].h;
    const std::vector<std::string>& columns = u_.plan.columns[i];
    const EnsembleStatistics::MemberSource members = [&](const EnsembleStatistics::MemberVisitor& f) {
      o_.visit(u_.first + k0, n, [&](std::size_t g, TaskOutcome& r) {
        f(static_cast<std::size_t>(u_.tasks[g - u_.first].member), r.rows.data(), r.rows.size() / columns.size());
      });
    };
    // One pass for the files written member by member: initial states, summaries, rows.
    const Layout lay = u_.plan.system->layout();
    std::vector<std::string> init_cols = {"member"};
    init_cols.insert(init_cols.end(), lay.q.begin(), lay.q.end());
    init_cols.insert(init_cols.end(), lay.v.begin(), lay.v.end());
    const std::string init_file = "ensemble_initial_" + label + ".csv", summ_file = "ensemble_summaries_" + label + ".csv",
                      members_file = "ensemble_members_" + label + ".csv", stats_file = "ensemble_stats_" + label + ".csv";
    CsvWriter init_csv(dir_ / init_file, init_cols);
    std::unique_ptr<CsvWriter> summ_csv, members_csv;
    if (st_.ensemble.write_members) members_csv = std::make_unique<CsvWriter>(dir_ / members_file, EnsembleStatistics::member_columns(columns));
    std::vector<std::string> summary_names;
    std::vector<double> lo, hi, sum;
    o_.visit(u_.first + k0, n, [&](std::size_t g, TaskOutcome& r) {
      const Task& t = u_.tasks[g - u_.first];
      std::vector<double> row = {double(t.member)};
      row.insert(row.end(), r.initial.q.data(), r.initial.q.data() + r.initial.q.size());
      row.insert(row.end(), r.initial.v.data(), r.initial.v.data() + r.initial.v.size());
      init_csv.row(row.data());
      if (!summ_csv) {
        std::vector<std::string> cols = {"member"};
        for (const auto& [name, value] : r.summary) cols.push_back(name), summary_names.push_back(name);
        summ_csv = std::make_unique<CsvWriter>(dir_ / summ_file, cols);
        lo.assign(summary_names.size(), std::numeric_limits<double>::infinity());
        hi.assign(summary_names.size(), -std::numeric_limits<double>::infinity());
        sum.assign(summary_names.size(), 0.0);
      }
      row = {double(t.member)};
      for (std::size_t j = 0; j < r.summary.size() && j < summary_names.size(); ++j) {
        const double v = r.summary[j].second;
        row.push_back(v);
        lo[j] = std::min(lo[j], v), hi[j] = std::max(hi[j], v), sum[j] += v;
      }
      row.resize(summary_names.size() + 1, std::numeric_limits<double>::quiet_NaN());
      summ_csv->row(row.data());
      note_non_finite(t, r);
      if (members_csv)
        members_csv->write_text(EnsembleStatistics::member_rows_text(static_cast<std::size_t>(t.member), r.rows.data(),
                                                                     r.rows.size() / columns.size(), columns.size()));
    });
    init_csv.close();
    summ_csv->close();
    EnsembleStatistics stats(columns, st_.ensemble.quantiles);
    stats.write_statistics(members, n, dir_ / stats_file);
    files_.push_back({{"path", stats_file}, {"kind", "ensemble_statistics"}, {"label", label}, {"h", h},
                      {"columns", stats.statistics_columns()}});
    files_.push_back({{"path", init_file}, {"kind", "ensemble_initial"}, {"label", label}, {"columns", init_cols}});
    std::vector<std::string> summ_cols = {"member"};
    summ_cols.insert(summ_cols.end(), summary_names.begin(), summary_names.end());
    files_.push_back({{"path", summ_file}, {"kind", "ensemble_summaries"}, {"label", label}, {"columns", summ_cols}});
    if (members_csv) {
      members_csv->close();
      files_.push_back({{"path", members_file}, {"kind", "ensemble_members"}, {"label", label}, {"h", h},
                        {"columns", EnsembleStatistics::member_columns(columns)}});
    }
    json summ = json::object();
    for (std::size_t j = 0; j < summary_names.size(); ++j)  // EnsembleStatistics::summary_statistics()
      summ[summary_names[j]] = {{"min", lo[j]}, {"max", hi[j]}, {"mean", sum[j] / double(n)}};
    ens.push_back({{"label", label}, {"members", n}, {"h", h}, {"steps", u_.tasks[k0].steps}, {"summary", summ}});
  }

  void ensembles() {
    json ens = json::array();
    for (std::size_t i = 0; i < st_.integrators.size(); ++i) ensemble_of(i, ens);
    manifest_["ensemble"] = ens;
  }

  // The reference: the exact solution, or the declared run (tasks after the listed ones).
  State reference(double& estimate, double& wall) const {
    const State& s0 = u_.plan.initial;
    State ref;
    estimate = std::numeric_limits<double>::quiet_NaN();
    wall = 0.0;
    if (st_.reference.exact) {
      u_.plan.system->exact_solution(s0, s0.t + st_.T, ref);
      return ref;
    }
    ref = outcomes_[u_.listed].final;
    wall = outcomes_[u_.listed].wall;
    if (u_.tasks.size() > u_.listed + 1) {
      const State& coarse = outcomes_[u_.listed + 1].final;
      estimate = std::max((ref.q - coarse.q).lpNorm<Eigen::Infinity>(), (ref.v - coarse.v).lpNorm<Eigen::Infinity>());
      wall += outcomes_[u_.listed + 1].wall;
    }
    return ref;
  }

  json convergence_of(std::size_t i, const State& ref, double e_ref, CsvWriter& csv) const {
    const System& system = *u_.plan.system;
    std::vector<double> hs, errs;
    json rows = json::array();
    for (std::size_t k = 0; k < u_.listed; ++k) {
      if (u_.tasks[k].integrator != i) continue;
      const State& f = outcomes_[k].final;
      const double eq = (f.q - ref.q).lpNorm<Eigen::Infinity>();
      const double ev = (f.v - ref.v).lpNorm<Eigen::Infinity>();
      const double eqv = std::max(eq, ev);  // ‖(q,v)(T) − ref‖∞ (spec 000 claim 3)
      const double ee = std::abs(system.energy(f) - e_ref);
      const double cr = system.constraint_residual(f);
      const std::vector<double> errors = {eq, ev, eqv, ee, cr};  // convergence_error_columns()
      std::vector<double> cells = {u_.tasks[k].h, double(u_.tasks[k].steps)};
      cells.insert(cells.end(), errors.begin(), errors.end());
      csv.row({st_.integrators[i].label}, cells);
      hs.push_back(u_.tasks[k].h);
      errs.push_back(eqv);
      json row = {{"h", u_.tasks[k].h}};
      for (std::size_t c = 0; c < errors.size(); ++c) row[convergence_error_columns()[c]] = errors[c];
      for (const auto& [name, value] : outcomes_[k].summary) row[name] = value;
      rows.push_back(row);
    }
    const OrderFit fit = fit_order(hs, errs, st_.plateau);
    const int declared = u_.plan.traits[i].order;
    // Every error at the round-off plateau: the method is exact on this ladder (e.g. an exact
    // flow); no order can be fitted and none is contradicted.
    const bool at_round_off = fit.points_used < 2 && *std::max_element(errs.begin(), errs.end()) <= 100.0 * st_.plateau;
    const bool ok = at_round_off || (std::isfinite(fit.order) && std::abs(fit.order - declared) <= st_.order_tolerance);
    return {{"label", st_.integrators[i].label},
            {"declared_order", declared},
            {"fitted_order", std::isfinite(fit.order) ? json(fit.order) : json(nullptr)},
            {"successive_orders", fit.ratios},
            {"points_used", fit.points_used},
            {"used", fit.used},
            {"agrees", ok},
            {"status", at_round_off ? "round-off" : std::isfinite(fit.order) ? "fitted" : "not enough points"},
            {"errors", rows}};
  }

  void convergence() {
    double estimate = 0.0, wall = 0.0;
    const State ref = reference(estimate, wall);
    std::vector<std::string> cols = {"label", "h", "steps"};
    cols.insert(cols.end(), convergence_error_columns().begin(), convergence_error_columns().end());
    CsvWriter csv(dir_ / "convergence.csv", cols);
    json conv = json::array();
    const double e_ref = u_.plan.system->energy(ref);
    for (std::size_t i = 0; i < st_.integrators.size(); ++i) conv.push_back(convergence_of(i, ref, e_ref, csv));
    csv.close();
    manifest_["convergence"] = conv;
    manifest_["reference"] = {{"kind", st_.reference.exact ? "exact" : "run"}, {"t", ref.t}, {"q", to_json(ref.q)},
                              {"v", to_json(ref.v)}, {"wall_time_s", wall}};
    if (!st_.reference.exact) {
      // The reference must be far more accurate than the finest run it judges.
      double finest = std::numeric_limits<double>::infinity();
      for (const auto& c : conv)
        for (const auto& r : c["errors"]) finest = std::min(finest, r["error_qv"].get<double>());
      manifest_["reference"]["error_estimate"] = std::isfinite(estimate) ? json(estimate) : json(nullptr);
      manifest_["reference"]["negligible"] = std::isfinite(estimate) && estimate < 1e-2 * finest;
      if (verbose_ && !(estimate < 1e-2 * finest))
        std::fprintf(stderr, "warning: %s: the reference's estimated error %s is not below 1%% of the smallest error %s\n",
                     st_.name.c_str(), number_text(estimate).c_str(), number_text(finest).c_str());
    }
    files_.push_back({{"path", "convergence.csv"}, {"kind", "convergence"}, {"columns", cols}});
  }

  // Work-precision: each rung's error beside the CPU time of its timed runs (median, min, max).
  void work_precision() {
    const std::vector<std::string> cols = {"label", "h", "steps", "error_qv", "energy_error", "cpu_median_s", "cpu_min_s",
                                           "cpu_max_s", "repeats"};
    CsvWriter csv(dir_ / "work_precision.csv", cols);
    json wp = json::array();
    for (std::size_t i = 0; i < st_.integrators.size(); ++i) {
      const json& conv = manifest_["convergence"][i];
      json rows = json::array();
      std::size_t rung = 0;
      for (std::size_t k = 0; k < u_.listed; ++k) {
        if (u_.tasks[k].integrator != i) continue;
        std::vector<double> cpu = outcomes_[k].cpu;
        std::sort(cpu.begin(), cpu.end());
        const std::size_t n = cpu.size();
        const double median = n % 2 ? cpu[n / 2] : 0.5 * (cpu[n / 2 - 1] + cpu[n / 2]);
        const json& e = conv["errors"][rung++];
        const double err = e["error_qv"].get<double>(), ee = e["energy_error"].get<double>();
        csv.row({st_.integrators[i].label}, {u_.tasks[k].h, double(u_.tasks[k].steps), err, ee, median, cpu.front(),
                                             cpu.back(), double(n)});
        rows.push_back({{"h", u_.tasks[k].h}, {"steps", u_.tasks[k].steps}, {"error_qv", err}, {"energy_error", ee},
                        {"cpu_median_s", median}, {"cpu_min_s", cpu.front()}, {"cpu_max_s", cpu.back()},
                        {"cpu_per_step_s", median / double(u_.tasks[k].steps)}});
      }
      wp.push_back({{"label", st_.integrators[i].label}, {"rows", rows}});
    }
    csv.close();
    manifest_["work_precision"] = wp;
    files_.push_back({{"path", "work_precision.csv"}, {"kind", "work_precision"}, {"columns", cols}});
  }

  const RunUnit& u_;
  const Study& st_;
  const Outcomes& o_;
  fs::path dir_;
  bool verbose_;
  std::vector<TaskOutcome> outcomes_;
  ErrorList errors_;
  std::vector<std::string> non_finite_;
  json manifest_, files_ = json::array();
};

}  // namespace

void Outcomes::visit(std::size_t first, std::size_t count, const std::function<void(std::size_t, TaskOutcome&)>& f) const {
  std::size_t g = first;
  const std::size_t end = first + count;
  while (g < end) {
    const std::size_t c = g / partition.per_chunk;
    const std::size_t c0 = partition.first(c), cn = partition.size(c);
    std::vector<TaskOutcome> chunk;
    std::string why;
    if (auto it = lost.find(c); it != lost.end()) why = it->second;
    else {
      try {
        chunk = checkpoint.read_chunk(c, c0, cn);
      } catch (const std::exception& e) {
        why = e.what();
      }
    }
    for (; g < end && g < c0 + cn; ++g) {
      if (!why.empty()) {
        TaskOutcome missing;
        missing.error = "no result: " + why;
        f(g, missing);
      } else {
        f(g, chunk[g - c0]);
      }
    }
  }
}

UnitResult reduce_unit(const RunUnit& unit, const Outcomes& outcomes, const fs::path& run_folder, bool verbose) {
  return Reducer(unit, outcomes, run_folder, verbose).run();
}

}  // namespace dalembert
