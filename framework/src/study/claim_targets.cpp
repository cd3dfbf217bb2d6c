// Checked claims against what the planned run will produce (study/claim_targets.hpp).
#include <algorithm>
#include <cmath>
#include <dalembert/core/error_text.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/parameters.hpp>
#include <dalembert/study/claim_targets.hpp>
#include <dalembert/study/convergence_table.hpp>
#include <dalembert/study/ensemble_statistics.hpp>
#include <dalembert/core/json_input.hpp>
#include <dalembert/study/study_plan.hpp>
#include <functional>
#include <limits>

namespace dalembert {

namespace {

std::string num(double x) { return number_text(x, "%.12g"); }

bool listed(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::size_t integrator_of(const Study& st, const std::string& label) {
  for (std::size_t i = 0; i < st.integrators.size(); ++i)
    if (st.integrators[i].label == label) return i;
  throw Error("claims: no integrator is labelled " + label);  // parse_claims checked every label
}

// The times of the rows a task records: t0 + k h for k = 0, every, 2 every, ... and the last step
// (Simulation::run). A claim reads the rows as written; the margins here only keep a window or a
// time that meets a row to round-off from being refused.
struct RecordedTimes {
  double t0 = 0.0, h = 0.0;
  long steps = 0, every = 1;

  double time(double k) const { return t0 + k * h; }
  bool recorded(double k) const {
    return k >= 0 && k <= double(steps) && (std::fmod(k, double(every)) == 0 || k == double(steps));
  }
  bool any_at(double at) const {
    const double k = (at - t0) / h;
    if (!(k > -1.0 && k < double(steps) + 1.0)) return false;
    for (double c : {std::floor(k), std::ceil(k)})
      if (recorded(c) && std::abs(time(c) - at) <= 1e-9 * std::max(1.0, std::abs(time(c)))) return true;
    return false;
  }
  bool any_in(double from, double to) const {
    double a = (from - t0) / h, b = (to - t0) / h;  // the window in steps (h may be negative)
    if (a > b) std::swap(a, b);
    a = std::max(a - 1e-9 * std::max(1.0, std::abs(a)), 0.0);
    b = std::min(b + 1e-9 * std::max(1.0, std::abs(b)), double(steps));
    if (a > b) return false;
    return b == double(steps) || std::ceil(a / double(every)) * double(every) <= b;
  }
  std::string text() const {
    return "its rows run from t = " + num(t0) + " to " + num(time(double(steps))) + " every " + num(double(every) * h);
  }
};

// A window ("from", "to") or time ("at") must select a row of `file`.
void check_window(const JsonCursor& q, const RecordedTimes& times, const std::string& file) {
  if (q.has("at")) {
    if (!times.any_at(q["at"].number()))
      q["at"].fail(file + " records no row at this time (" + times.text() + ")");
    return;
  }
  if (!q.has("from") && !q.has("to")) return;
  const double inf = std::numeric_limits<double>::infinity();
  const double from = q.has("from") ? q["from"].number() : -inf, to = q.has("to") ? q["to"].number() : inf;
  if (!times.any_in(from, to))
    (q.has("from") ? q["from"] : q["to"]).fail(file + " has no row in [" + num(from) + ", " + num(to) + "] (" +
                                                 times.text() + ")");
}

// What a planned study (not a sweep) will write, as its claims name it.
class PlanTargets {
 public:
  PlanTargets(const Study& st, const StudyPlan& plan) : st_(st), plan_(plan) {}

  /// One quantity (not a ratio).
  void check(const JsonCursor& q) const {
    if (q.has("summary")) {
      const std::size_t i = integrator_of(st_, q["task"].string());
      if (!plan_.summaries[i].may_report(q["summary"].string()))
        q["summary"].fail("task " + st_.integrators[i].label + " reports no such summary; its summaries are: " +
                          plan_.summaries[i].text());
    } else if (q.has("column")) {
      const std::size_t i = integrator_of(st_, q["task"].string());
      const std::string file = trajectory_file(st_, st_.integrators[i].label);
      if (!listed(plan_.columns[i], q["column"].string()))
        q["column"].fail("not a column of " + file + "; its columns are: " + joined(plan_.columns[i]));
      check_window(q, times(i), file);
    } else if (q.has("error")) {
      convergence_entry(q);
    } else if (q.has("ensemble")) {
      const std::size_t i = integrator_of(st_, q["label"].string());
      const std::string file = "ensemble_stats_" + st_.integrators[i].label + ".csv";
      const auto columns = EnsembleStatistics(plan_.columns[i], st_.ensemble.quantiles).statistics_columns();
      if (!listed(columns, q["ensemble"].string()))
        q["ensemble"].fail("not a column of " + file + "; its columns are: " + joined(columns));
      check_window(q, times(i), file);
    } else if (q.has("ensemble_summary")) {
      const std::size_t i = integrator_of(st_, q["label"].string());
      if (!plan_.summaries[i].may_report(q["ensemble_summary"].string()))
        q["ensemble_summary"].fail("the members of " + st_.integrators[i].label +
                                   " report no such summary; their summaries are: " + plan_.summaries[i].text());
    }
    // "fitted_order": its label was checked with the study; "manifest": known after the run.
  }

 private:
  // A row of the convergence table: an entry it has (study/convergence_table.hpp, or a summary of
  // the task) at a step size of the ladder.
  void convergence_entry(const JsonCursor& q) const {
    const std::size_t i = integrator_of(st_, q["label"].string());
    std::vector<std::string> entries = {"h"};
    entries.insert(entries.end(), convergence_error_columns().begin(), convergence_error_columns().end());
    if (!listed(entries, q["error"].string()) && !plan_.summaries[i].may_report(q["error"].string()))
      q["error"].fail("not an entry of the convergence table of " + st_.integrators[i].label + "; its entries are: " +
                      joined(entries) + " and the task summaries: " + plan_.summaries[i].text());
    if (!q.has("h")) return;
    const double h = q["h"].number();
    if (std::none_of(st_.h.begin(), st_.h.end(), [&](double x) { return std::abs(x - h) <= 1e-12 * std::abs(x); }))
      q["h"].fail("not a step size of the ladder; \"h\" is " + nlohmann::json(st_.h).dump());
  }

  RecordedTimes times(std::size_t i) const {
    const auto task = std::find_if(plan_.tasks.begin(), plan_.tasks.end(), [&](const Task& t) { return t.integrator == i; });
    return {plan_.initial.t, task->h, task->steps, st_.record_every};
  }

  const Study& st_;
  const StudyPlan& plan_;
};

// The claims' quantities, ratios unfolded.
void each_quantity(const Study& st, const std::function<void(const JsonCursor&)>& f) {
  if (st.claims.empty()) return;
  const JsonCursor checks = JsonCursor(st.raw, st.file)["claims"]["checks"];
  const std::function<void(const JsonCursor&)> visit = [&](const JsonCursor& q) {
    if (q.has("ratio")) visit(q["ratio"].at(0)), visit(q["ratio"].at(1));
    else f(q);
  };
  for (std::size_t i = 0; i < checks.size(); ++i) visit(checks.at(i)["quantity"]);
}

// "where": {AXIS: VALUE}: an axis of the sweep and one of its values.
void check_where(const JsonCursor& where, const SweepSpec& sweep) {
  std::vector<std::string> names;
  for (const auto& a : sweep.axes) names.push_back(a.name);
  for (const auto& [name, value] : where.json().items()) {
    const JsonCursor v = where[name];
    const auto axis = std::find_if(sweep.axes.begin(), sweep.axes.end(), [&](const SweepAxis& a) { return a.name == name; });
    if (axis == sweep.axes.end()) v.fail("not a sweep axis; the axes are: " + joined(names));
    const double x = v.number();
    if (std::none_of(axis->values.begin(), axis->values.end(),
                     [&](double a) { return std::abs(a - x) <= 1e-12 * std::max(1.0, std::abs(x)); }))
      v.fail("not a value of axis " + name + "; its values are " + nlohmann::json(axis->values).dump());
  }
}

}  // namespace

void check_claim_targets(const Study& st, const StudyPlan& plan) {
  const PlanTargets targets(st, plan);
  each_quantity(st, [&](const JsonCursor& q) { targets.check(q); });
}

void check_sweep_claim_targets(const Study& sw, const std::vector<ReportedNames>& metrics) {
  each_quantity(sw, [&](const JsonCursor& q) {
    if (!q.has("sweep")) return;
    const std::size_t i = integrator_of(sw, q["label"].string());
    std::vector<std::string> fixed = {"cell"};
    for (const auto& a : sw.sweep.axes) fixed.push_back(a.name);
    fixed.push_back("ok");
    if (!listed(fixed, q["sweep"].string()) && !metrics[i].may_report(q["sweep"].string()))
      q["sweep"].fail("not a column of sweep.csv for integrator " + sw.integrators[i].label + "; its columns are: " +
                      joined(fixed) + " and the metrics " + metrics[i].text());
    if (q.has("where")) check_where(q["where"], sw.sweep);
  });
}

}  // namespace dalembert
