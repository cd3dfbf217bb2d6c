// One task of a run: one integrator at one step size, one ensemble member, or a convergence
// reference run, each with plugin instances of its own.
#include <chrono>
#include <ctime>
#include <cstdio>
#include <dalembert/core/error_text.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/study/crash_report.hpp>
#include <dalembert/core/json_input.hpp>
#include <dalembert/study/table_format.hpp>
#include <dalembert/study/run_units.hpp>
#include <dalembert/study/simulation.hpp>
#include <dalembert/study/study_kind.hpp>
#include <dalembert/study/assembly.hpp>
#include <memory>

namespace fs = std::filesystem;

namespace dalembert {

namespace {

// The plugins a task runs, with their parameters as the study gives them: for a message about
// a failure that does not say which plugin it came from (a crash, a library's exception).
std::string task_plugins(const RunUnit& u, const Task& t) {
  const Study& st = u.study;
  const PluginUse& integ = t.reference ? st.reference.run : st.integrators[t.integrator];
  const auto plugin = [](const char* kind, const PluginUse& p) {
    return std::string(kind) + " '" + p.plugin + "' " + json_excerpt(p.params, 300);
  };
  std::string out = plugin("system", st.system) + " with " + plugin("integrator", integ);
  if (t.member >= 0) out += ", " + plugin("sampler", st.ensemble.sampler);
  if (!t.reference)
    for (const auto& o : st.observers) out += ", " + plugin("observer", o);
  if (st.impact_map) out += ", " + plugin("impact map", *st.impact_map);
  return out;
}

// The rows Simulation::run records: the initial state, every `every`-th step and the last.
std::size_t recorded_rows(long steps, long every) {
  return static_cast<std::size_t>(1 + steps / every + (steps % every != 0 ? 1 : 0));
}

// Runs the task, each recorded row into `w`. On failure what was recorded is kept (flushed here,
// the file renamed by the writer's destructor), and the failure is what is reported, not an error
// of the flush.
void record_run(Simulation& sim, State& s, const Task& task, long every, TableWriter& w, std::atomic<long>* steps) {
  try {
    sim.run(s, task.h, task.steps, every, [&w](const double* row) { w.row(row); }, steps);
  } catch (...) {
    try {
      w.flush();
    } catch (...) {
    }
    throw;
  }
  w.close();
}

}  // namespace

void run_plain(const RunUnit& u, const Task& task, TaskOutcome& out, std::atomic<long>* steps) {
  Assembly a(*u.plan.registry, u.study, u.study.integrators[task.integrator], {});
  State s = u.plan.initial;
  out.ncol = a.simulation().columns().size();
  a.simulation().run(s, task.h, task.steps, 1, {}, steps);
  out.final = s;
  out.summary = a.simulation().summary();
}

void run_recorded(const RunUnit& u, const Task& task, const fs::path& run_folder, TaskOutcome& out,
                  std::atomic<long>* steps) {
  const Study& st = u.study;
  Assembly a(*u.plan.registry, st, st.integrators[task.integrator], {});
  Simulation& sim = a.simulation();
  State s = u.plan.initial;
  out.ncol = sim.columns().size();
  const fs::path file = run_folder / u.folder / task.file;
  const auto writer = table_format(st.record_format).writer(file, sim.columns(), recorded_rows(task.steps, st.record_every));
  record_run(sim, s, task, st.record_every, *writer, steps);
  out.final = s;
  out.summary = sim.summary();
}

RunUnit plan_unit(const Study& study, fs::path folder) {
  RunUnit u{study, plan_study(study), std::move(folder), {}, 0, 0};
  u.tasks = u.plan.tasks;
  u.listed = u.tasks.size();
  for (auto& t : kind_of(study).extra_tasks(study)) u.tasks.push_back(std::move(t));
  return u;
}

std::string task_name(const RunUnit& u, const Task& t) {
  if (t.reference) return u.study.where("/reference") + " [h = " + number_text(t.h, "%g") + "]";
  return u.study.integrators[t.integrator].where + " [" + t.label + ", h = " + number_text(t.h, "%g") +
         (t.member >= 0 ? ", member " + std::to_string(t.member) : "") + "]";
}

TaskOutcome run_task(const RunUnit& u, const Task& task, const fs::path& run_folder, std::atomic<long>* steps) {
  TaskOutcome out;
  const auto t0 = std::chrono::steady_clock::now();
  const CrashContext crash(task_name(u, task) + ": running " + task_plugins(u, task));
  try {
    kind_of(u.study).run_task(u, task, run_folder, out, steps);
    out.ok = true;
  } catch (...) {
    out.ok = false;
    bool library = false;
    out.error = exception_text(std::current_exception(), &library);
    if (library) out.error += ", running " + task_plugins(u, task);
    out.rows.clear();
    out.rows.shrink_to_fit();
  }
  out.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace dalembert
