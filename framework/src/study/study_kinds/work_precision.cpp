// Work-precision studies: a convergence study (convergence.hpp) whose every rung is also timed —
// `repeats` more runs of each task on fresh plugin instances, without observers, in this thread's
// CPU time, one task at a time — giving error against CPU time (work_precision.csv).
#include <algorithm>
#include <ctime>
#include <dalembert/study/assembly.hpp>
#include <dalembert/study/csv_writer.hpp>
#include <dalembert/core/json_input.hpp>

#include "convergence.hpp"

using nlohmann::json;

namespace dalembert {

namespace {

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// `repeats` more runs of the task, each on fresh plugin instances and without observers, timed
// around the stepping loop alone in this thread's CPU time.
void time_repeats(const RunUnit& u, const Task& task, TaskOutcome& out, std::atomic<long>* steps) {
  const Study& st = u.study;
  for (int r = 0; r < st.repeats; ++r) {
    Assembly a(*u.plan.registry, st, st.integrators[task.integrator], {false, true});
    State s = u.plan.initial;
    const double t0 = thread_cpu_seconds();
    a.simulation().run(s, task.h, task.steps, 1, {}, steps);
    out.cpu.push_back(thread_cpu_seconds() - t0);
  }
}

// Work-precision: each rung's error beside the CPU time of its timed runs (median, min, max).
void work_precision(Reduction& rd) {
  const Study& st = rd.unit.study;
  const std::vector<std::string> cols = {"label", "h", "steps", "error_qv", "energy_error", "cpu_median_s", "cpu_min_s",
                                         "cpu_max_s", "repeats"};
  CsvWriter csv(rd.dir / "work_precision.csv", cols);
  json wp = json::array();
  for (std::size_t i = 0; i < st.integrators.size(); ++i) {
    const json& conv = rd.manifest["convergence"][i];
    json rows = json::array();
    std::size_t rung = 0;
    for (std::size_t k = 0; k < rd.unit.listed; ++k) {
      if (rd.unit.tasks[k].integrator != i) continue;
      std::vector<double> cpu = rd.results[k].cpu;
      std::sort(cpu.begin(), cpu.end());
      const std::size_t n = cpu.size();
      const double median = n % 2 ? cpu[n / 2] : 0.5 * (cpu[n / 2 - 1] + cpu[n / 2]);
      const json& e = conv["errors"][rung++];
      const double err = e["error_qv"].get<double>(), ee = e["energy_error"].get<double>();
      csv.row({st.integrators[i].label}, {rd.unit.tasks[k].h, double(rd.unit.tasks[k].steps), err, ee, median, cpu.front(),
                                           cpu.back(), double(n)});
      rows.push_back({{"h", rd.unit.tasks[k].h}, {"steps", rd.unit.tasks[k].steps}, {"error_qv", err}, {"energy_error", ee},
                      {"cpu_median_s", median}, {"cpu_min_s", cpu.front()}, {"cpu_max_s", cpu.back()},
                      {"cpu_per_step_s", median / double(rd.unit.tasks[k].steps)}});
    }
    wp.push_back({{"label", st.integrators[i].label}, {"rows", rows}});
  }
  csv.close();
  rd.manifest["work_precision"] = wp;
  rd.files.push_back({{"path", "work_precision.csv"}, {"kind", "work_precision"}, {"columns", cols}, {"format", "csv"}});
}


class WorkPrecisionKind : public ConvergenceKind {
 public:
  std::string name() const override { return "work_precision"; }
  std::vector<KindKey> keys() const override {
    auto keys = ConvergenceKind::keys();
    keys.push_back({"repeats", "repeats (timed runs) belong to work_precision studies"});
    return keys;
  }
  bool sweepable() const override { return false; }  // timed runs: one at a time, not a grid of cells
  std::vector<std::string> figure_types() const override { return {"convergence", "work_precision"}; }
  void parse_keys(const JsonCursor& root, Study& s) const override {
    ConvergenceKind::parse_keys(root, s);
    if (!root.has("repeats")) return;
    const long r = root["repeats"].integer();
    if (r < 1 || r > 1000) root["repeats"].fail("repeats must lie in [1, 1000]");
    s.repeats = static_cast<int>(r);
  }
  Workload workload(const Study& s) const override {
    Workload w = task_workload(s, 1.0, 1.0 + s.repeats, 0.0);  // the timed repeats
    if (!s.reference.exact) w.total_steps += steps_of(s.T, s.reference.run.h);
    return w;
  }
  void plan(const Study& st, StudyPlan& plan, json& run) const override {
    run["repeats"] = st.repeats;
    ConvergenceKind::plan(st, plan, run);
  }
  bool one_task_at_a_time() const override { return true; }
  void run_task(const RunUnit& u, const Task& task, const std::filesystem::path& run_folder, TaskOutcome& out,
                std::atomic<long>* steps) const override {
    ConvergenceKind::run_task(u, task, run_folder, out, steps);
    if (!task.reference) time_repeats(u, task, out, steps);
  }
  void reduce(Reduction& rd) const override {
    ConvergenceKind::reduce(rd);
    work_precision(rd);
  }
};

}  // namespace

DALEMBERT_STUDY_KIND(WorkPrecisionKind)

}  // namespace dalembert
