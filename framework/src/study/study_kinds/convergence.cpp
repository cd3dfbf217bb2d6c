// Convergence studies (convergence.hpp).
#include "convergence.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <dalembert/core/error_text.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/study/figure_schema.hpp>
#include <dalembert/study/assembly.hpp>
#include <dalembert/study/order_entry.hpp>
#include <dalembert/study/convergence_table.hpp>
#include <dalembert/study/csv_writer.hpp>
#include <dalembert/core/json_input.hpp>
#include <limits>

using nlohmann::json;

namespace dalembert {

namespace {

json to_json(const Vec& x) { return json(std::vector<double>(x.data(), x.data() + x.size())); }

// The reference: the exact solution, or the declared run (tasks after the listed ones).
State reference(const Reduction& rd, double& estimate, double& wall) {
  const Study& st = rd.unit.study;
  const State& s0 = rd.unit.plan.initial;
  State ref;
  estimate = std::numeric_limits<double>::quiet_NaN();
  wall = 0.0;
  if (st.reference.exact) {
    rd.unit.plan.system->exact_solution(s0, s0.t + st.T, ref);
    return ref;
  }
  ref = rd.results[rd.unit.listed].final;
  wall = rd.results[rd.unit.listed].wall;
  if (rd.unit.tasks.size() > rd.unit.listed + 1) {
    const State& coarse = rd.results[rd.unit.listed + 1].final;
    estimate = std::max((ref.q - coarse.q).lpNorm<Eigen::Infinity>(), (ref.v - coarse.v).lpNorm<Eigen::Infinity>());
    wall += rd.results[rd.unit.listed + 1].wall;
  }
  return ref;
}

json convergence_of(const Reduction& rd, std::size_t i, const State& ref, double e_ref, CsvWriter& csv) {
  const Study& st = rd.unit.study;
  const System& system = *rd.unit.plan.system;
  std::vector<double> hs, errs;
  json rows = json::array();
  for (std::size_t k = 0; k < rd.unit.listed; ++k) {
    if (rd.unit.tasks[k].integrator != i) continue;
    const State& f = rd.results[k].final;
    const double eq = (f.q - ref.q).lpNorm<Eigen::Infinity>();
    const double ev = (f.v - ref.v).lpNorm<Eigen::Infinity>();
    const double eqv = std::max(eq, ev);  // ‖(q,v)(T) − ref‖∞ (spec 000 claim 3)
    const double ee = std::abs(system.energy(f) - e_ref);
    const double cr = system.constraint_residual(f);
    const std::vector<double> errors = {eq, ev, eqv, ee, cr};  // convergence_error_columns()
    std::vector<double> cells = {rd.unit.tasks[k].h, double(rd.unit.tasks[k].steps)};
    cells.insert(cells.end(), errors.begin(), errors.end());
    csv.row({st.integrators[i].label}, cells);
    hs.push_back(rd.unit.tasks[k].h);
    errs.push_back(eqv);
    json row = {{"h", rd.unit.tasks[k].h}};
    for (std::size_t c = 0; c < errors.size(); ++c) row[convergence_error_columns()[c]] = errors[c];
    for (const auto& [name, value] : rd.results[k].summary) row[name] = value;
    rows.push_back(row);
  }
  return order_entry(st.integrators[i].label, rd.unit.plan.traits[i].order, hs, errs, st.plateau, st.order_tolerance,
                     std::move(rows));
}

void convergence(Reduction& rd) {
  const Study& st = rd.unit.study;
  double estimate = 0.0, wall = 0.0;
  const State ref = reference(rd, estimate, wall);
  std::vector<std::string> cols = {"label", "h", "steps"};
  cols.insert(cols.end(), convergence_error_columns().begin(), convergence_error_columns().end());
  CsvWriter csv(rd.dir / "convergence.csv", cols);
  json conv = json::array();
  const double e_ref = rd.unit.plan.system->energy(ref);
  for (std::size_t i = 0; i < st.integrators.size(); ++i) conv.push_back(convergence_of(rd, i, ref, e_ref, csv));
  csv.close();
  rd.manifest["convergence"] = conv;
  rd.manifest["reference"] = {{"kind", st.reference.exact ? "exact" : "run"}, {"t", ref.t}, {"q", to_json(ref.q)},
                            {"v", to_json(ref.v)}, {"wall_time_s", wall}};
  if (!st.reference.exact) {
    // The reference must be far more accurate than the finest run it judges.
    double finest = std::numeric_limits<double>::infinity();
    for (const auto& c : conv)
      for (const auto& r : c["errors"]) finest = std::min(finest, r["error_qv"].get<double>());
    rd.manifest["reference"]["error_estimate"] = std::isfinite(estimate) ? json(estimate) : json(nullptr);
    rd.manifest["reference"]["negligible"] = std::isfinite(estimate) && estimate < 1e-2 * finest;
    if (rd.verbose && !(estimate < 1e-2 * finest))
      std::fprintf(stderr, "warning: %s: the reference's estimated error %s is not below 1%% of the smallest error %s\n",
                   st.name.c_str(), number_text(estimate).c_str(), number_text(finest).c_str());
  }
  rd.files.push_back({{"path", "convergence.csv"}, {"kind", "convergence"}, {"columns", cols}, {"format", "csv"}});
}

void report_convergence(std::ostream& out, const json& m) {
  const json& conv = report_get(m, "convergence");
  if (!conv.is_array()) return;
  out << "## Convergence\n\n";
  report_table_head(out, {"label", "declared order", "fitted order", "successive orders", "status", "agrees"});
  for (const auto& c : conv) {
    std::string succ;
    for (const auto& r : report_get(c, "successive_orders")) succ += (succ.empty() ? "" : " ") + report_cell(r);
    report_table_row(out, {report_cell(report_get(c, "label")), report_cell(report_get(c, "declared_order")),
                           report_cell(report_get(c, "fitted_order")), succ, report_cell(report_get(c, "status")), report_get(c, "agrees") == true ? "yes" : "**no**"});
  }
  out << "\n";
}

void print_convergence(const json& manifest) {
  std::printf("  %-14s %8s %8s  %s\n", "integrator", "declared", "fitted", "successive orders");
  for (const auto& c : manifest["convergence"]) {
    std::string ratios;
    for (const auto& r : c["successive_orders"]) ratios += number_text(r.get<double>(), "%.3f") + " ";
    std::printf("  %-14s %8d %8s  %s%s\n", c["label"].get<std::string>().c_str(), c["declared_order"].get<int>(),
                c["fitted_order"].is_null() ? c["status"].get<std::string>().c_str()
                                            : number_text(c["fitted_order"].get<double>(), "%.3f").c_str(),
                ratios.c_str(), c["agrees"].get<bool>() ? "" : "  <-- differs from the declared order");
  }
}

void keep_max(std::map<std::string, double>& m, const std::string& k, double x) { m[k] = m.contains(k) ? std::max(m[k], x) : x; }

}  // namespace

std::vector<KindKey> ConvergenceKind::keys() const {
  return {{"reference", "a reference is only used by convergence and work_precision studies"},
          {"order_tolerance", "order_tolerance (of the order audit) is only used by convergence and work_precision studies"},
          {"plateau", "plateau (of the order fit) is only used by convergence and work_precision studies"}};
}

// convergence.csv: its error columns are fixed (study/convergence_table.hpp).
void ConvergenceKind::check_figures(const JsonCursor& root, const Study&) const {
  if (!root.has("figures")) return;
  const JsonCursor f = root["figures"];
  for (std::size_t i = 0; i < f.size(); ++i)
    if (f.at(i).has("y")) check_one_of(f.at(i)["y"], convergence_error_columns(), "not a column of convergence.csv; its columns are: ");
}

void ConvergenceKind::parse_keys(const JsonCursor& root, Study& s) const {
  if (root.has("reference")) {
    const JsonCursor r = root["reference"];
    if (r.json().is_string() && r.string() == "exact") {
      s.reference.exact = true;
    } else {
      r.allow_keys({"plugin", "params", "h"});
      s.reference.exact = false;
      s.reference.run = parse_plugin(r, {"h"});
      s.reference.run.label = "reference";
      s.reference.run.h = r["h"].finite_positive();
      check_steps(root["T"], s.T, s.reference.run.h, s.limits);
      steps_for(s.T, s.reference.run.h, r["h"].where());
    }
  }
  if (root.has("order_tolerance")) s.order_tolerance = root["order_tolerance"].finite_positive();
  if (root.has("plateau")) s.plateau = root["plateau"].finite_positive();
}

Workload ConvergenceKind::workload(const Study& s) const {
  Workload w = task_workload(s, 1.0, 1.0, 0.0);  // one row of the error table per task
  if (!s.reference.exact) w.total_steps += steps_of(s.T, s.reference.run.h);
  return w;
}

std::vector<Task> ConvergenceKind::tasks(const Study& st) const {
  std::vector<Task> tasks;
  for (std::size_t i = 0; i < st.integrators.size(); ++i)
    for (double hk : st.h) tasks.push_back({i, st.integrators[i].label, hk, steps_for(st.T, hk, st.file + ": /h"), ""});
  return tasks;
}

// The declared reference run, and the same at twice the step: their difference bounds its error.
std::vector<Task> ConvergenceKind::extra_tasks(const Study& st) const {
  if (st.reference.exact) return {};
  const double h = st.reference.run.h;
  const long n = steps_for(st.T, h, st.file + ": /reference/h");
  std::vector<Task> tasks = {{0, "reference", h, n, "", -1, 1}};
  if (n % 2 == 0) tasks.push_back({0, "reference", 2.0 * h, n / 2, "", -1, 2});
  return tasks;
}

std::vector<KindPlugin> ConvergenceKind::plugins(const Study& st) const {
  if (st.reference.exact) return {};
  return {{PluginKind::Integrator, &st.reference.run}};
}

void ConvergenceKind::plan(const Study& st, StudyPlan& plan, json& run) const {
  run["order_tolerance"] = st.order_tolerance;
  run["plateau"] = st.plateau;
  if (st.reference.exact) {
    if (!plan.system->has_exact_solution())
      throw InputError(st.file + ": /reference", "system '" + st.system.plugin +
                                                     "' has no exact solution: declare a reference run, e.g. "
                                                     "\"reference\": {\"plugin\": \"rk4\", \"h\": 1e-4}");
    run["reference"] = "exact";
  } else {
    run["reference"] = plan_bound_plugin(plan, PluginKind::Integrator, st.reference.run);
    run["reference"]["h"] = st.reference.run.h;
  }
}

// A reference task runs the declared reference integrator (without observers and impact map).
void ConvergenceKind::run_task(const RunUnit& u, const Task& task, const std::filesystem::path& run_folder,
                               TaskOutcome& out, std::atomic<long>* steps) const {
  if (!task.reference) return StudyKind::run_task(u, task, run_folder, out, steps);
  Assembly a(*u.plan.registry, u.study, u.study.reference.run, {false, false});
  State s = u.plan.initial;
  a.simulation().run(s, task.h, task.steps, 1, {}, steps);
  out.final = s;
}

void ConvergenceKind::reduce(Reduction& rd) const { convergence(rd); }

void ConvergenceKind::report(std::ostream& out, const json& manifest) const {
  report_tasks(out, manifest);
  report_convergence(out, manifest);
}

void ConvergenceKind::print_tables(const json& manifest) const {
  if (manifest.contains("convergence")) print_convergence(manifest);
}

// A sweep's metrics of a convergence cell: the fitted and declared orders and, for every entry of
// the error table and every summary, its largest value over the ladder.
std::map<std::string, double> ConvergenceKind::cell_metrics(const json& manifest, const std::string& label) const {
  std::map<std::string, double> m;
  for (const auto& c : manifest["convergence"]) {
    if (c["label"] != label) continue;
    m["fitted_order"] = c["fitted_order"].is_null() ? std::numeric_limits<double>::quiet_NaN()
                                                    : c["fitted_order"].get<double>();
    m["declared_order"] = c["declared_order"].get<double>();
    for (const auto& row : c["errors"])
      for (const auto& [k, v] : row.items())
        if (k != "h" && v.is_number()) keep_max(m, k, v.get<double>());
  }
  return m;
}

ReportedNames ConvergenceKind::planned_metrics(const RunUnit& u, std::size_t i) const {
  const ReportedNames& summaries = u.plan.summaries[i];
  ReportedNames m = summaries;
  m.names = {"fitted_order", "declared_order"};
  m.names.insert(m.names.end(), convergence_error_columns().begin(), convergence_error_columns().end());
  m.names.insert(m.names.end(), summaries.names.begin(), summaries.names.end());
  return m;
}

DALEMBERT_STUDY_KIND(ConvergenceKind)

}  // namespace dalembert
