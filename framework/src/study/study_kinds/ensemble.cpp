// Ensemble studies: N initial states drawn by a sampler from the study's initial state, every
// member integrated by every integrator; the members' statistics over time (streamed,
// study/ensemble_statistics.hpp), their initial states, summaries and, if asked, recorded rows.
#include <algorithm>
#include <cmath>
#include <dalembert/core/error_text.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/sampler.hpp>
#include <dalembert/study/assembly.hpp>
#include <dalembert/study/csv_writer.hpp>
#include <dalembert/study/ensemble_statistics.hpp>
#include <dalembert/core/json_input.hpp>
#include <dalembert/study/study_kind.hpp>
#include <dalembert/study/study_plan.hpp>
#include <limits>

using nlohmann::json;

namespace dalembert {

namespace {

// Member m's initial state: its stream depends on the seed and m alone (any rank, thread, order).
State sample_member(const Study& st, const Registry& reg, const System& sys, const State& s0, long m) {
  auto sampler = reg.make_sampler(st.ensemble.sampler.plugin, st.ensemble.sampler.params, st.ensemble.sampler.where);
  sampler->bind(sys);
  RandomStream rng(st.ensemble.seed, static_cast<std::uint64_t>(m));
  State s = s0;
  sampler->sample(rng, s0, s);
  if (const ConstraintViolation off = constraint_violation(sys, s); off.holonomic > 0) {  // g(q) = 0 too (issue 28)
    if (off.ok()) return s;
    if (!st.initial.project || !sys.project(s) || !constraint_violation(sys, s).ok())
      throw Error("sampler '" + st.ensemble.sampler.plugin + "' drew a state off the constraints (" + off.residuals() +
                  ") for member " + std::to_string(m) +
                  (st.initial.project ? std::string("; the projection did not reach them")
                                      : "; set \"initial\": {\"project\": true} to project the drawn states"));
    return s;
  }
  const double r = sys.constraint_residual(s);
  if (r > 1e-12 * (1.0 + s.v.lpNorm<Eigen::Infinity>())) {
    if (!st.initial.project || !sys.project(s))
      throw Error("sampler '" + st.ensemble.sampler.plugin + "' drew a state that violates the constraints (|A(q)v| = " +
                  number_text(r) + ") for member " + std::to_string(m) +
                  "; set \"initial\": {\"project\": true} to project the drawn states");
  }
  return s;
}

// ensemble_summaries_<label>.csv, one row per member in member order, and each summary's min, max
// and sum over the members (the manifest's "summary"); its columns are the first member's summaries.
class SummaryFile {
 public:
  explicit SummaryFile(std::filesystem::path file) : file_(std::move(file)) {}

  void add(long member, const TaskOutcome& r) {
    if (!csv_) {
      for (const auto& [name, value] : r.summary) names_.push_back(name);
      csv_ = std::make_unique<CsvWriter>(file_, columns());
      lo_.assign(names_.size(), std::numeric_limits<double>::infinity());
      hi_.assign(names_.size(), -std::numeric_limits<double>::infinity());
      sum_.assign(names_.size(), 0.0);
    }
    std::vector<double> row = {double(member)};
    for (std::size_t j = 0; j < r.summary.size() && j < names_.size(); ++j) {
      const double v = r.summary[j].second;
      row.push_back(v);
      lo_[j] = std::min(lo_[j], v), hi_[j] = std::max(hi_[j], v), sum_[j] += v;
    }
    row.resize(names_.size() + 1, std::numeric_limits<double>::quiet_NaN());
    csv_->row(row.data());
  }

  void close() { csv_->close(); }

  std::vector<std::string> columns() const {
    std::vector<std::string> cols = {"member"};
    cols.insert(cols.end(), names_.begin(), names_.end());
    return cols;
  }

  // Over n members: EnsembleStatistics::summary_statistics() of every summary.
  json statistics(std::size_t n) const {
    json out = json::object();
    for (std::size_t j = 0; j < names_.size(); ++j)
      out[names_[j]] = {{"min", lo_[j]}, {"max", hi_[j]}, {"mean", sum_[j] / double(n)}};
    return out;
  }

 private:
  std::filesystem::path file_;
  std::unique_ptr<CsvWriter> csv_;
  std::vector<std::string> names_;
  std::vector<double> lo_, hi_, sum_;
};

// Integrator i's members: tasks [k0, k0 + n).
void ensemble_of(Reduction& rd, std::size_t i, json& ens) {
  const Study& st = rd.unit.study;
  const std::string& label = st.integrators[i].label;
  std::size_t k0 = 0;
  while (rd.unit.tasks[k0].integrator != i || rd.unit.tasks[k0].member < 0) ++k0;
  const std::size_t n = static_cast<std::size_t>(st.ensemble.size);
  const double h = rd.unit.tasks[k0].h;
  const std::vector<std::string>& columns = rd.unit.plan.columns[i];
  const EnsembleStatistics::MemberSource members = [&](const EnsembleStatistics::MemberVisitor& f) {
    rd.outcomes.visit(rd.unit.first + k0, n, [&](std::size_t g, TaskOutcome& r) {
      f(static_cast<std::size_t>(rd.unit.tasks[g - rd.unit.first].member), r.rows.data(), r.rows.size() / columns.size());
    });
  };
  // One pass for the files written member by member (initial states, summaries, rows) and the
  // statistics' sums, extremes and, if they fit in memory, values.
  const Layout lay = rd.unit.plan.system->layout();
  std::vector<std::string> init_cols = {"member"};
  init_cols.insert(init_cols.end(), lay.q.begin(), lay.q.end());
  init_cols.insert(init_cols.end(), lay.v.begin(), lay.v.end());
  const std::string init_file = "ensemble_initial_" + label + ".csv", summ_file = "ensemble_summaries_" + label + ".csv",
                    members_file = "ensemble_members_" + label + ".csv", stats_file = "ensemble_stats_" + label + ".csv";
  CsvWriter init_csv(rd.dir / init_file, init_cols);
  std::unique_ptr<CsvWriter> members_csv;
  if (st.ensemble.write_members) members_csv = std::make_unique<CsvWriter>(rd.dir / members_file, EnsembleStatistics::member_columns(columns));
  SummaryFile summaries(rd.dir / summ_file);
  EnsembleStatistics stats(columns, st.ensemble.quantiles, n, rd.outcomes.threads);
  rd.outcomes.visit(rd.unit.first + k0, n, [&](std::size_t g, TaskOutcome& r) {
    const Task& t = rd.unit.tasks[g - rd.unit.first];
    std::vector<double> row = {double(t.member)};
    row.insert(row.end(), r.initial.q.data(), r.initial.q.data() + r.initial.q.size());
    row.insert(row.end(), r.initial.v.data(), r.initial.v.data() + r.initial.v.size());
    init_csv.row(row.data());
    summaries.add(t.member, r);
    rd.note_non_finite(t, r);
    stats.add(r.rows.data(), r.rows.size() / columns.size());
    if (members_csv)
      members_csv->write_text(EnsembleStatistics::member_rows_text(static_cast<std::size_t>(t.member), r.rows.data(),
                                                                   r.rows.size() / columns.size(), columns.size()));
  });
  init_csv.close();
  summaries.close();
  stats.write_statistics(members, rd.dir / stats_file);  // reads the members again only if they did not fit in memory
  rd.files.push_back({{"path", stats_file}, {"kind", "ensemble_statistics"}, {"label", label}, {"h", h},
                    {"columns", stats.statistics_columns()}, {"format", "csv"}});
  rd.files.push_back({{"path", init_file}, {"kind", "ensemble_initial"}, {"label", label}, {"columns", init_cols}, {"format", "csv"}});
  rd.files.push_back({{"path", summ_file}, {"kind", "ensemble_summaries"}, {"label", label}, {"columns", summaries.columns()},
                      {"format", "csv"}});
  if (members_csv) {
    members_csv->close();
    rd.files.push_back({{"path", members_file}, {"kind", "ensemble_members"}, {"label", label}, {"h", h},
                      {"columns", EnsembleStatistics::member_columns(columns)}, {"format", "csv"}});
  }
  ens.push_back({{"label", label}, {"members", n}, {"h", h}, {"steps", rd.unit.tasks[k0].steps}, {"summary", summaries.statistics(n)}});
}

void ensembles(Reduction& rd) {
  const Study& st = rd.unit.study;
  json ens = json::array();
  for (std::size_t i = 0; i < st.integrators.size(); ++i) ensemble_of(rd, i, ens);
  rd.manifest["ensemble"] = ens;
}


void report_ensemble(std::ostream& out, const json& m) {
  const json& ens = report_get(m, "ensemble");
  if (!ens.is_array()) return;
  out << "## Ensemble\n\n";
  report_table_head(out, {"label", "members", "summary", "min", "mean", "max"});
  for (const auto& e : ens)
    for (const auto& [k, v] : report_get(e, "summary").items())
      report_table_row(out, {report_cell(report_get(e, "label")), report_cell(report_get(e, "members")), k,
                             report_cell(report_get(v, "min")), report_cell(report_get(v, "mean")),
                             report_cell(report_get(v, "max"))});
  out << "\n";
}

class EnsembleKind : public StudyKind {
 public:
  std::string name() const override { return "ensemble"; }
  std::vector<KindKey> keys() const override {
    return {{"ensemble", "an \"ensemble\" block needs \"kind\": \"ensemble\""}};
  }
  bool sweepable() const override { return true; }
  std::vector<std::string> figure_types() const override {
    return {"timeseries", "path", "ensemble", "members", "member_panels", "surface"};
  }
  std::vector<std::string> claim_quantities() const override { return {"ensemble", "ensemble_summary"}; }

  void parse_keys(const JsonCursor& root, Study& s) const override {
    const JsonCursor e = root["ensemble"];
    e.allow_keys({"size", "seed", "sampler", "quantiles", "write_members"});
    s.ensemble.size = e["size"].integer();
    if (s.ensemble.size < 1) e["size"].fail("an ensemble needs at least one member");
    check_members(e["size"], static_cast<double>(s.ensemble.size), s.limits);
    const long seed = e["seed"].integer();
    if (seed < 0) e["seed"].fail("the seed must be a non-negative integer");
    s.ensemble.seed = static_cast<std::uint64_t>(seed);
    s.ensemble.sampler = parse_plugin(e["sampler"], {});
    if (e.has("quantiles")) {
      s.ensemble.quantiles = e["quantiles"].numbers();
      for (std::size_t i = 0; i < s.ensemble.quantiles.size(); ++i) {
        const double q = s.ensemble.quantiles[i];
        if (q < 0.0 || q > 1.0) e["quantiles"].at(i).fail("a quantile lies in [0, 1]");
        // Two quantiles with one column name would give every ensemble_stats file two columns of one name.
        const std::string suffix = EnsembleStatistics::quantile_suffix(q);
        for (std::size_t k = 0; k < i; ++k)
          if (EnsembleStatistics::quantile_suffix(s.ensemble.quantiles[k]) == suffix)
            e["quantiles"].at(i).fail("duplicate quantile: " + e["quantiles"].at(k).path() + " = " +
                                      json(s.ensemble.quantiles[k]).dump() + " writes the same columns (<column>" +
                                      suffix + ")");
      }
    }
    if (e.has("write_members")) s.ensemble.write_members = e["write_members"].boolean();
  }

  Workload workload(const Study& s) const override {
    const double members = static_cast<double>(s.ensemble.size);
    return task_workload(s, members, 1.0, (s.ensemble.write_members ? members : 0.0) + 1.0);
  }

  std::vector<Task> tasks(const Study& st) const override {
    std::vector<Task> tasks;
    for (std::size_t i = 0; i < st.integrators.size(); ++i) {
      const auto& u = st.integrators[i];
      const double h = u.h != 0.0 ? u.h : st.h[0];
      for (long m = 0; m < st.ensemble.size; ++m) tasks.push_back({i, u.label, h, steps_for(st.T, h, st.file + ": /h"), "", m});
    }
    return tasks;
  }

  std::vector<KindPlugin> plugins(const Study& st) const override { return {{PluginKind::Sampler, &st.ensemble.sampler}}; }

  void plan(const Study& st, StudyPlan& plan, json& run) const override {
    run["ensemble"] = {{"size", st.ensemble.size},
                       {"seed", st.ensemble.seed},
                       {"sampler", plan_bound_plugin(plan, PluginKind::Sampler, st.ensemble.sampler)},
                       {"quantiles", st.ensemble.quantiles},
                       {"write_members", st.ensemble.write_members}};
  }

  void check_figure_columns(const Study& st, const std::vector<std::vector<std::string>>& columns) const override {
    check_recorded_figure_columns(st, columns);
  }

  // A member: its initial state drawn, its recorded rows kept in the outcome (the reduction streams them).
  void run_task(const RunUnit& u, const Task& task, const std::filesystem::path&, TaskOutcome& out,
                std::atomic<long>* steps) const override {
    const Study& st = u.study;
    Assembly a(*u.plan.registry, st, st.integrators[task.integrator], {});
    Simulation& sim = a.simulation();
    const std::size_t nc = sim.columns().size();
    out.ncol = nc;
    State s = sample_member(st, *u.plan.registry, a.system(), u.plan.initial, task.member);
    out.initial = s;
    // Room for every record: the initial state, every record_every-th step and the last.
    out.rows.reserve((static_cast<std::size_t>(task.steps / st.record_every) + 2) * nc);
    sim.run(s, task.h, task.steps, st.record_every,
            [&](const double* row) { out.rows.insert(out.rows.end(), row, row + nc); }, steps);
    out.final = s;
    out.summary = sim.summary();
  }

  void reduce(Reduction& rd) const override { ensembles(rd); }
  void report(std::ostream& out, const json& manifest) const override { report_ensemble(out, manifest); }

  // A sweep's metrics of an ensemble cell: every summary's min, max and mean over the members.
  std::map<std::string, double> cell_metrics(const json& manifest, const std::string& label) const override {
    std::map<std::string, double> m;
    for (const auto& e : manifest["ensemble"])
      if (e["label"] == label)
        for (const auto& [name, s] : e["summary"].items())
          for (const auto& [stat, v] : s.items())
            m[name + "_" + stat] = v.is_number() ? v.get<double>() : std::numeric_limits<double>::quiet_NaN();
    return m;
  }

  ReportedNames planned_metrics(const RunUnit& u, std::size_t i) const override {
    const ReportedNames& summaries = u.plan.summaries[i];
    ReportedNames m = summaries;
    m.names.clear(), m.patterns.clear();
    for (const auto& stat : EnsembleStatistics::summary_statistics()) {
      for (const auto& n : summaries.names) m.names.push_back(n + "_" + stat);
      for (const auto& p : summaries.patterns) m.patterns.push_back(p + "_" + stat);
    }
    return m;
  }
};

}  // namespace

DALEMBERT_STUDY_KIND(EnsembleKind)

}  // namespace dalembert
