// One task of a run: one integrator at one step size, one ensemble member, or a convergence
// reference run, each with plugin instances of its own.
#include <chrono>
#include <ctime>
#include <cstdio>
#include <dalembert/core/error_text.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/sampler.hpp>
#include <dalembert/study/crash_report.hpp>
#include <dalembert/study/csv_writer.hpp>
#include <dalembert/study/json_input.hpp>
#include <dalembert/study/npy_writer.hpp>
#include <dalembert/study/run_units.hpp>
#include <dalembert/study/simulation.hpp>
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

// Member m's initial state: its stream depends on the seed and m alone (any rank, thread, order).
State sample_member(const Study& st, const Registry& reg, const System& sys, const State& s0, long m) {
  auto sampler = reg.make_sampler(st.ensemble.sampler.plugin, st.ensemble.sampler.params, st.ensemble.sampler.where);
  sampler->bind(sys);
  RandomStream rng(st.ensemble.seed, static_cast<std::uint64_t>(m));
  State s = s0;
  sampler->sample(rng, s0, s);
  const double r = sys.constraint_residual(s);
  if (r > 1e-12 * (1.0 + s.v.lpNorm<Eigen::Infinity>())) {
    if (!st.initial.project || !sys.project(s))
      throw Error("sampler '" + st.ensemble.sampler.plugin + "' drew a state that violates the constraints (|A(q)v| = " +
                  number_text(r) + ") for member " + std::to_string(m) +
                  "; set \"initial\": {\"project\": true} to project the drawn states");
  }
  return s;
}

void run_reference(const RunUnit& u, const Task& task, TaskOutcome& out, std::atomic<long>* steps) {
  const Study& st = u.study;
  const Registry& reg = *u.plan.registry;
  auto sys = reg.make_system(st.system.plugin, st.system.params, st.system.where);
  auto integ = reg.make_integrator(st.reference.run.plugin, st.reference.run.params, st.reference.run.where);
  Simulation sim(*sys, *integ);
  State s = u.plan.initial;
  sim.run(s, task.h, task.steps, 1, {}, steps);
  out.final = s;
}

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Work-precision studies: `repeats` more runs of the task, each on fresh plugin instances and
// without observers, timed around the stepping loop alone in this thread's CPU time (the runner
// runs such a study's tasks one at a time, so that runs do not disturb each other's timing).
void time_repeats(const RunUnit& u, const Task& task, TaskOutcome& out, std::atomic<long>* steps) {
  const Study& st = u.study;
  const Registry& reg = *u.plan.registry;
  const PluginUse& use = st.integrators[task.integrator];
  for (int r = 0; r < st.repeats; ++r) {
    auto sys = reg.make_system(st.system.plugin, st.system.params, st.system.where);
    auto integ = reg.make_integrator(use.plugin, use.params, use.where);
    Simulation sim(*sys, *integ);
    std::unique_ptr<ImpactMap> impact;
    if (st.impact_map) {
      impact = reg.make_impact(st.impact_map->plugin, st.impact_map->params, st.impact_map->where);
      sim.set_impact_map(impact.get());
    }
    State s = u.plan.initial;
    const double t0 = thread_cpu_seconds();
    sim.run(s, task.h, task.steps, 1, {}, steps);
    out.cpu.push_back(thread_cpu_seconds() - t0);
  }
}

// The rows Simulation::run records: the initial state, every `every`-th step and the last.
std::size_t recorded_rows(long steps, long every) {
  return static_cast<std::size_t>(1 + steps / every + (steps % every != 0 ? 1 : 0));
}

// Runs the task, each recorded row into `w` (a CsvWriter or an NpyWriter). On failure what was
// recorded is kept (flushed here, the file renamed by the writer's destructor), and the failure is
// what is reported, not an error of the flush.
template <class Writer>
void record_run(Simulation& sim, State& s, const Task& task, long every, Writer& w, std::atomic<long>* steps) {
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

void run_simulation(const RunUnit& u, const Task& task, const fs::path& run_folder, TaskOutcome& out,
                    std::atomic<long>* steps) {
  const Study& st = u.study;
  const Registry& reg = *u.plan.registry;
  const PluginUse& use = st.integrators[task.integrator];
  auto sys = reg.make_system(st.system.plugin, st.system.params, st.system.where);
  auto integ = reg.make_integrator(use.plugin, use.params, use.where);
  std::vector<std::unique_ptr<Observer>> owned;
  std::vector<Observer*> obs;
  for (const auto& o : st.observers) {
    owned.push_back(reg.make_observer(o.plugin, o.params, o.where));
    obs.push_back(owned.back().get());
  }
  Simulation sim(*sys, *integ, obs);
  std::unique_ptr<ImpactMap> impact;
  if (st.impact_map) {
    impact = reg.make_impact(st.impact_map->plugin, st.impact_map->params, st.impact_map->where);
    sim.set_impact_map(impact.get());
  }
  State s = u.plan.initial;
  const std::size_t nc = sim.columns().size();
  out.ncol = nc;
  if (task.member >= 0) {
    s = sample_member(st, reg, *sys, u.plan.initial, task.member);
    out.initial = s;
    // Room for every record: the initial state, every record_every-th step and the last.
    out.rows.reserve((static_cast<std::size_t>(task.steps / st.record_every) + 2) * nc);
    sim.run(s, task.h, task.steps, st.record_every,
            [&](const double* row) { out.rows.insert(out.rows.end(), row, row + nc); }, steps);
  } else if (!task.file.empty()) {
    const fs::path file = run_folder / u.folder / task.file;
    if (st.record_format == "npy") {
      NpyWriter npy(file, sim.columns(), recorded_rows(task.steps, st.record_every));
      record_run(sim, s, task, st.record_every, npy, steps);
    } else {
      CsvWriter csv(file, sim.columns());
      record_run(sim, s, task, st.record_every, csv, steps);
    }
  } else {
    sim.run(s, task.h, task.steps, 1, {}, steps);
  }
  out.final = s;
  out.summary = sim.summary();
  if (st.kind == "work_precision") time_repeats(u, task, out, steps);
}

}  // namespace

RunUnit plan_unit(const Study& study, fs::path folder) {
  RunUnit u{study, plan_study(study), std::move(folder), {}, 0, 0};
  u.tasks = u.plan.tasks;
  u.listed = u.tasks.size();
  if (ladder_kind(study.kind) && !study.reference.exact) {
    // The declared run, and the same at twice the step: their difference bounds its error.
    const double h = study.reference.run.h;
    const long n = steps_for(study.T, h, study.file + ": /reference/h");
    Task ref{0, "reference", h, n, "", -1, 1};
    u.tasks.push_back(ref);
    if (n % 2 == 0) u.tasks.push_back({0, "reference", 2.0 * h, n / 2, "", -1, 2});
  }
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
    if (task.reference) run_reference(u, task, out, steps);
    else run_simulation(u, task, run_folder, out, steps);
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
