// The registry of study kinds and what a kind does unless it says otherwise (study/study_kind.hpp).
#include <cstdio>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/json_input.hpp>
#include <dalembert/study/study_kind.hpp>
#include <limits>

using nlohmann::json;

namespace dalembert {

namespace {

std::map<std::string, std::unique_ptr<StudyKind>>& registry() {
  static std::map<std::string, std::unique_ptr<StudyKind>> kinds;
  return kinds;
}

}  // namespace

void register_study_kind(std::unique_ptr<StudyKind> kind) {
  const std::string name = kind->name();
  if (!registry().emplace(name, std::move(kind)).second) throw Error("study kind '" + name + "' is registered twice");
}

const StudyKind* find_study_kind(const std::string& name) {
  const auto it = registry().find(name);
  return it == registry().end() ? nullptr : it->second.get();
}

const StudyKind& kind_of(const Study& st) {
  if (const StudyKind* k = find_study_kind(st.kind)) return *k;
  throw Error("no study kind '" + st.kind + "' is registered (study " + st.name + ")");
}

std::vector<const StudyKind*> study_kinds() {
  std::vector<const StudyKind*> out;
  for (const auto& [name, kind] : registry()) out.push_back(kind.get());
  return out;
}

StudyKind::~StudyKind() = default;

Study StudyKind::parse(const JsonCursor& root, Study s) const {
  parse_study_runs(root, s, *this);
  return s;
}

void StudyKind::parse_keys(const JsonCursor&, Study&) const {}
void StudyKind::check_figures(const JsonCursor&, const Study&) const {}
Workload StudyKind::workload(const Study& s) const { return task_workload(s, 1.0, 1.0, 1.0); }

StudyPlan StudyKind::make_plan(const Study& st) const { return plan_runs(st); }

std::vector<RunUnit> StudyKind::units(const Study& st) const {
  std::vector<RunUnit> units;
  units.push_back(plan_unit(st));
  return units;
}

std::vector<Task> StudyKind::tasks(const Study& st) const {
  std::vector<Task> tasks;
  for (std::size_t i = 0; i < st.integrators.size(); ++i) {
    const auto& u = st.integrators[i];
    const double h = u.h != 0.0 ? u.h : st.h[0];
    tasks.push_back({i, u.label, h, steps_for(st.T, h, st.file + ": /h"),
                     writes_trajectories() ? trajectory_file(st, u.label) : std::string()});
  }
  return tasks;
}

std::vector<Task> StudyKind::extra_tasks(const Study&) const { return {}; }
std::vector<KindPlugin> StudyKind::plugins(const Study&) const { return {}; }
void StudyKind::plan(const Study&, StudyPlan&, json&) const {}
void StudyKind::check_figure_columns(const Study&, const std::vector<std::vector<std::string>>&) const {}

void StudyKind::run_task(const RunUnit& unit, const Task& task, const std::filesystem::path&, TaskOutcome& out,
                         std::atomic<long>* steps) const {
  run_plain(unit, task, out, steps);
}

KindResult StudyKind::reduce_run(const Study&, const std::vector<RunUnit>& units, const Outcomes& outcomes,
                                 const std::filesystem::path& staging, bool verbose) const {
  UnitResult r = reduce_unit(units.front(), outcomes, staging, verbose);
  return {std::move(r.manifest), std::move(r.errors)};
}

void StudyKind::check_claim_quantity(const JsonCursor& q, const std::string& which) const {
  q[which].fail("a \"" + which + "\" quantity is not one of " + name() + " studies");
}

ClaimValue StudyKind::claim_value(const json& q, const json&, const std::filesystem::path&) const {
  return {std::numeric_limits<double>::quiet_NaN(), q.dump(), name() + " studies evaluate no such quantity"};
}

void StudyKind::reduce(Reduction&) const {}
void StudyKind::report(std::ostream& out, const json& manifest) const { report_tasks(out, manifest); }

void StudyKind::print_headline(const Study& st, const json& manifest, std::size_t tasks,
                               const std::filesystem::path& dir) const {
  std::printf("%s: %s study, %zu tasks, %.2f s -> %s\n", st.name.c_str(), st.kind.c_str(), tasks,
              manifest["wall_time_s"].get<double>(), dir.string().c_str());
}

void StudyKind::print_tables(const json&) const {}
void StudyKind::warn(const Study&, const json&) const {}

std::map<std::string, double> StudyKind::cell_metrics(const json& manifest, const std::string& label) const {
  std::map<std::string, double> m;
  for (const auto& t : manifest["tasks"])
    if (t["label"] == label && t.contains("summary"))
      for (const auto& [k, v] : t["summary"].items())
        m[k] = v.is_number() ? v.get<double>() : std::numeric_limits<double>::quiet_NaN();
  return m;
}

ReportedNames StudyKind::planned_metrics(const RunUnit& unit, std::size_t i) const { return unit.plan.summaries[i]; }

}  // namespace dalembert
