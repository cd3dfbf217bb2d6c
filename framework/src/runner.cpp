#include <algorithm>
#include <atomic>
#include <boost/dll/runtime_symbol_info.hpp>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <dalembert/core/errors.hpp>
#include <dalembert/plugin/abi.hpp>
#include <dalembert/plugin/registry.hpp>
#include <dalembert/study/convergence_fit.hpp>
#include <dalembert/core/sampler.hpp>
#include <dalembert/study/csv_writer.hpp>
#include <dalembert/study/ensemble_statistics.hpp>
#include <dalembert/study/run_folder.hpp>
#include <dalembert/study/runner.hpp>
#include <dalembert/study/simulation.hpp>
#include <fstream>
#include <map>
#include <memory>
#include <iostream>
#include <limits>
#include <mutex>
#include <sstream>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::json;

namespace dalembert {

const char* version() { return DALEMBERT_VERSION; }
const char* source_revision() { return DALEMBERT_REVISION; }

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

json to_json(const Vec& x) { return json(std::vector<double>(x.data(), x.data() + x.size())); }

std::string fmt(double x, const char* f = "%.3e") {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}

// One unit of parallel work: one integrator at one step size.
struct Task {
  std::size_t integrator = 0;  // index into study.integrators
  std::string label;
  double h = 0.0;
  long steps = 0;
  std::string file;   // trajectory CSV ("" for none)
  long member = -1;   // ensemble member (-1: not an ensemble task)
};

struct TaskResult {
  State final;
  double wall = 0.0;
  std::vector<std::pair<std::string, double>> summary;
  std::vector<std::string> columns;
  std::vector<double> rows;  // ensemble members: the recorded rows, kept in memory
  State initial;             // ensemble members: the sampled initial state
  std::exception_ptr error;
};

// A progress line on stderr while tasks run, only when stderr is a terminal.
class Progress {
 public:
  Progress(bool enabled, std::string name, long total) : name_(std::move(name)), total_(total) {
    if (!enabled || !isatty(STDERR_FILENO) || total <= 0) return;
    thread_ = std::thread([this] {
      std::unique_lock<std::mutex> lock(m_);
      const auto t0 = Clock::now();
      while (!cv_.wait_for(lock, std::chrono::milliseconds(250), [this] { return stop_; })) {
        const double f = std::min(1.0, double(steps.load()) / double(total_));
        std::fprintf(stderr, "\r%s: %5.1f%%  %ld/%ld tasks  %.1f s ", name_.c_str(), 100.0 * f, tasks.load(),
                     tasks_total, seconds_since(t0));
        std::fflush(stderr);
      }
      std::fprintf(stderr, "\r%*s\r", 60, "");
    });
  }
  ~Progress() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  std::atomic<long> steps{0}, tasks{0};
  long tasks_total = 0;

 private:
  std::string name_;
  long total_;
  std::mutex m_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

// Runs body(0), ..., body(n-1) on the arena's threads, handing the tasks out one at a time in
// index order (not as contiguous ranges split between threads): the last thread to finish ends
// at most one task after the others, and ensemble members finish roughly in member order, so
// their rows stream out to the members CSV with little text waiting (OrderedCsvWriter).
template <class F>
void parallel_tasks(tbb::task_arena& arena, std::size_t n, F&& body) {
  std::atomic<std::size_t> next{0};
  arena.execute([&] {
    tbb::parallel_for(0, arena.max_concurrency(), [&](int) {
      for (std::size_t i; (i = next.fetch_add(1)) < n;) body(i);
    });
  });
}

void write_json(const fs::path& file, const json& j) {
  std::ofstream out(file);
  out << j.dump(2) << "\n";
  if (!out) throw Error("cannot write " + file.string());
}

}  // namespace

fs::path plot_script() {
  if (const char* env = std::getenv("DALEMBERT_PLOT_SCRIPT")) return env;
  const fs::path libdir = fs::path(boost::dll::this_line_location()).parent_path();
  const fs::path installed = libdir.parent_path() / "share" / "dalembert" / "dalembert_plot.py";
  if (fs::exists(installed)) return installed;
  return DALEMBERT_SOURCE_PLOT_SCRIPT;
}

// Debian's interpreter first: python3-matplotlib installs there, whatever else is on PATH.
std::string python_interpreter() {
  if (const char* env = std::getenv("DALEMBERT_PYTHON")) return env;
  if (fs::exists("/usr/bin/python3")) return "/usr/bin/python3";
  return "python3";
}

std::vector<fs::path> draw_figures(const fs::path& folder) {
  const fs::path script = plot_script();
  if (!fs::exists(script)) throw Error("plotting script not found: " + script.string());
  const std::string cmd = python_interpreter() + " '" + script.string() + "' '" + folder.string() + "'";
  const int rc = std::system(cmd.c_str());
  if (rc != 0)
    throw Error("the plotting script failed (exit " + std::to_string(rc) + "): " + cmd +
                " (it needs python3 with matplotlib: apt-get install python3-matplotlib)");
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(folder / "figures", ec)) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

void attach_figures(json& manifest, const fs::path& staging, bool draw, bool none_requested) {
  if (!draw) {
    manifest["figures_status"] = none_requested ? "none requested" : "skipped (--no-plots)";
    return;
  }
  try {
    for (const auto& f : draw_figures(staging))
      manifest["files"].push_back({{"path", (fs::path("figures") / f.filename()).string()}, {"kind", "figure"}});
    manifest["figures_status"] = "ok";
  } catch (const std::exception& e) {  // the data are complete; a missing figure is a warning
    std::fprintf(stderr, "warning: %s\n", e.what());
    manifest["figures_status"] = std::string("failed: ") + e.what();
  }
}

RunReport run_study(const Study& st, const RunOptions& opt) {
  if (st.kind == "sweep") return run_sweep(st, opt);
  const auto t_start = Clock::now();
  Registry reg;
  for (auto it = st.plugin_paths.rbegin(); it != st.plugin_paths.rend(); ++it) reg.add_search_path(*it);
  reg.refused();  // scan once, before any parallel use

  // ---- Check everything before any output exists --------------------------------------------
  const json sys_params = reg.resolve(PluginKind::System, st.system.plugin, st.system.params, st.system.where).to_json();
  auto system = reg.make_system(st.system.plugin, st.system.params, st.system.where);
  const Layout layout = system->layout();
  State s0 = st.initial.state;
  if (s0.q.size() != static_cast<Eigen::Index>(layout.q.size()))
    throw InputError(st.initial.where + "/q", "= " + to_json(s0.q).dump() + ": has " + std::to_string(s0.q.size()) +
                                                  " components, but system '" + st.system.plugin + "' has " +
                                                  std::to_string(layout.q.size()));
  if (s0.v.size() != static_cast<Eigen::Index>(layout.v.size()))
    throw InputError(st.initial.where + "/v", "= " + to_json(s0.v).dump() + ": has " + std::to_string(s0.v.size()) +
                                                  " components, but system '" + st.system.plugin + "' has " +
                                                  std::to_string(layout.v.size()));
  const double residual = system->constraint_residual(s0);
  const double tol = 1e-12 * (1.0 + s0.v.lpNorm<Eigen::Infinity>());
  if (residual > tol) {
    if (!st.initial.project)
      throw InputError(st.initial.where + "/v", "= " + to_json(s0.v).dump() +
                                                    ": the initial state violates the constraints of system '" +
                                                    st.system.plugin + "' at q = " + to_json(s0.q).dump() +
                                                    ": |A(q)v| = " + fmt(residual) + " > " + fmt(tol) +
                                                    "; fix v, or set \"project\": true to project it onto the constraints");
    if (!system->project(s0))
      throw InputError(st.initial.where, "system '" + st.system.plugin + "' cannot project a state onto its constraints");
  }

  json integrators_run = json::array();
  std::vector<Traits> traits;
  for (const auto& u : st.integrators) {
    json params = reg.resolve(PluginKind::Integrator, u.plugin, u.params, u.where).to_json();
    auto integ = reg.make_integrator(u.plugin, u.params, u.where);
    try {
      integ->bind(*system);
    } catch (const InputError&) {
      throw;
    } catch (const Error& e) {
      throw InputError(u.where, e.what());
    }
    traits.push_back(integ->traits());
    json ij = {{"label", u.label}, {"plugin", u.plugin}, {"params", params}};
    if (u.h != 0.0) ij["h"] = u.h;
    ij["traits"] = {{"order", traits.back().order},
                    {"symmetric", traits.back().symmetric},
                    {"explicit", traits.back().explicit_method},
                    {"preserves", traits.back().preserves}};
    integrators_run.push_back(ij);
  }
  json observers_run = json::array();
  for (const auto& u : st.observers)
    observers_run.push_back({{"plugin", u.plugin},
                             {"params", reg.resolve(PluginKind::Observer, u.plugin, u.params, u.where).to_json()}});
  if (st.kind == "convergence" && st.reference.exact && !system->has_exact_solution())
    throw InputError(st.file + ": /reference", "system '" + st.system.plugin +
                                                   "' has no exact solution: declare a reference run, e.g. "
                                                   "\"reference\": {\"plugin\": \"rk4\", \"h\": 1e-4}");
  if (!st.reference.exact) reg.resolve(PluginKind::Integrator, st.reference.run.plugin, st.reference.run.params, st.reference.run.where);
  json sampler_params;
  if (st.kind == "ensemble") {
    const auto& u = st.ensemble.sampler;
    sampler_params = reg.resolve(PluginKind::Sampler, u.plugin, u.params, u.where).to_json();
    auto sampler = reg.make_sampler(u.plugin, u.params, u.where);
    try {
      sampler->bind(*system);
    } catch (const InputError&) {
      throw;
    } catch (const Error& e) {
      throw InputError(u.where, e.what());
    }
  }
  if (st.impact_map) reg.resolve(PluginKind::Impact, st.impact_map->plugin, st.impact_map->params, st.impact_map->where);

  json study_run = {{"name", st.name},
                    {"kind", st.kind},
                    {"description", st.description},
                    {"system", {{"plugin", st.system.plugin}, {"params", sys_params}}},
                    {"initial", {{"t", s0.t}, {"q", to_json(s0.q)}, {"v", to_json(s0.v)}, {"project", st.initial.project}}},
                    {"integrators", integrators_run},
                    {"observers", observers_run},
                    {"T", st.T},
                    {"h", st.kind != "convergence" ? json(st.h[0]) : json(st.h)},
                    {"record_every", st.record_every},
                    {"figures", st.figures},
                    {"plugin_paths", st.plugin_paths}};
  if (st.kind == "convergence") {
    study_run["order_tolerance"] = st.order_tolerance;
    study_run["plateau"] = st.plateau;
    study_run["reference"] = st.reference.exact ? json("exact")
                                                : json{{"plugin", st.reference.run.plugin},
                                                       {"params", reg.resolve(PluginKind::Integrator, st.reference.run.plugin,
                                                                              st.reference.run.params, st.reference.run.where)
                                                                      .to_json()},
                                                       {"h", st.reference.run.h}};
  }
  if (st.kind == "ensemble")
    study_run["ensemble"] = {{"size", st.ensemble.size},
                             {"seed", st.ensemble.seed},
                             {"sampler", {{"plugin", st.ensemble.sampler.plugin}, {"params", sampler_params}}},
                             {"quantiles", st.ensemble.quantiles},
                             {"write_members", st.ensemble.write_members}};
  if (st.impact_map)
    study_run["impact_map"] = {{"plugin", st.impact_map->plugin},
                               {"params", reg.resolve(PluginKind::Impact, st.impact_map->plugin, st.impact_map->params,
                                                      st.impact_map->where)
                                              .to_json()}};
  if (st.raw.contains("claims")) study_run["claims"] = st.raw["claims"];

  // ---- Tasks ---------------------------------------------------------------------------------
  std::vector<Task> tasks;
  if (st.kind == "trajectory") {
    for (std::size_t i = 0; i < st.integrators.size(); ++i) {
      const double h = st.integrators[i].h != 0.0 ? st.integrators[i].h : st.h[0];
      tasks.push_back({i, st.integrators[i].label, h, steps_for(st.T, h, st.file + ": /h"),
                       "trajectory_" + st.integrators[i].label + ".csv"});
    }
  } else if (st.kind == "ensemble") {
    for (std::size_t i = 0; i < st.integrators.size(); ++i) {
      const double h = st.integrators[i].h != 0.0 ? st.integrators[i].h : st.h[0];
      for (long m = 0; m < st.ensemble.size; ++m)
        tasks.push_back({i, st.integrators[i].label, h, steps_for(st.T, h, st.file + ": /h"), "", m});
    }
  } else {
    for (std::size_t i = 0; i < st.integrators.size(); ++i)
      for (double h : st.h) tasks.push_back({i, st.integrators[i].label, h, steps_for(st.T, h, st.file + ": /h"), ""});
  }

  const fs::path dir = opt.out_dir ? *opt.out_dir : opt.out_root / st.name;
  RunFolder folder(dir);
  json manifest;
  try {
    long total_steps = 0;
    for (const auto& t : tasks) total_steps += t.steps;
    Progress progress(opt.progress, st.name, total_steps);
    progress.tasks_total = static_cast<long>(tasks.size());

    // The convergence reference: exact solution or a declared run.
    State ref;
    double ref_wall = 0.0;
    double ref_error_estimate = 0.0;
    if (st.kind == "convergence") {
      const auto t0 = Clock::now();
      if (st.reference.exact) {
        system->exact_solution(s0, s0.t + st.T, ref);
      } else {
        // The declared run, and the same at twice the step: their difference bounds its error.
        const double h_ref = st.reference.run.h;
        auto run_reference = [&](double h, long steps, State& s) {
          auto integ = reg.make_integrator(st.reference.run.plugin, st.reference.run.params, st.reference.run.where);
          Simulation sim(*system, *integ);
          s = s0;
          sim.run(s, h, steps);
        };
        const long n = steps_for(st.T, h_ref, st.file + ": /reference/h");
        run_reference(h_ref, n, ref);
        ref_error_estimate = std::numeric_limits<double>::quiet_NaN();
        if (n % 2 == 0) {
          State coarse;
          run_reference(2.0 * h_ref, n / 2, coarse);
          ref_error_estimate = std::max((ref.q - coarse.q).lpNorm<Eigen::Infinity>(),
                                        (ref.v - coarse.v).lpNorm<Eigen::Infinity>());
        }
      }
      ref_wall = seconds_since(t0);
    }

    tbb::task_arena arena(opt.threads > 0 ? opt.threads : tbb::task_arena::automatic);
    // Ensemble members format their own rows of ensemble_members_<label>.csv as they finish, on
    // their own threads; the file is opened by the first member that finishes.
    std::vector<std::unique_ptr<OrderedCsvWriter>> members_csv;
    std::vector<std::once_flag> members_csv_opened(st.integrators.size());
    if (st.kind == "ensemble" && st.ensemble.write_members) members_csv.resize(st.integrators.size());
    auto members_file = [&](std::size_t i) { return "ensemble_members_" + st.integrators[i].label + ".csv"; };

    std::vector<TaskResult> results(tasks.size());
    parallel_tasks(arena, tasks.size(), [&](std::size_t k) {
      const Task& task = tasks[k];
      TaskResult& res = results[k];
      const auto t0 = Clock::now();
      try {
        const PluginUse& u = st.integrators[task.integrator];
        auto sys = reg.make_system(st.system.plugin, st.system.params, st.system.where);
        auto integ = reg.make_integrator(u.plugin, u.params, u.where);
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
        res.columns = sim.columns();
        State s = s0;
        if (task.member >= 0) {
          // Member m's stream depends on the seed and m alone (any thread count, any order).
          auto sampler = reg.make_sampler(st.ensemble.sampler.plugin, st.ensemble.sampler.params, st.ensemble.sampler.where);
          sampler->bind(*sys);
          RandomStream rng(st.ensemble.seed, static_cast<std::uint64_t>(task.member));
          sampler->sample(rng, s0, s);
          const double r = sys->constraint_residual(s);
          if (r > 1e-12 * (1.0 + s.v.lpNorm<Eigen::Infinity>())) {
            if (!st.initial.project || !sys->project(s))
              throw Error("sampler '" + st.ensemble.sampler.plugin + "' drew a state that violates the constraints (|A(q)v| = " +
                          fmt(r) + ") for member " + std::to_string(task.member) +
                          "; set \"initial\": {\"project\": true} to project the drawn states");
          }
          res.initial = s;
          const std::size_t nc = res.columns.size();
          // Room for every record: the initial state, every record_every-th step and the last.
          res.rows.reserve((static_cast<std::size_t>(task.steps / st.record_every) + 2) * nc);
          sim.run(s, task.h, task.steps, st.record_every,
                  [&](const double* row) { res.rows.insert(res.rows.end(), row, row + nc); }, &progress.steps);
          if (!members_csv.empty()) {
            auto& out = members_csv[task.integrator];
            std::call_once(members_csv_opened[task.integrator], [&] {
              out = std::make_unique<OrderedCsvWriter>(folder.file(members_file(task.integrator)),
                                                       EnsembleStatistics::member_columns(res.columns),
                                                       static_cast<std::size_t>(st.ensemble.size));
            });
            out->put(static_cast<std::size_t>(task.member), EnsembleStatistics::member_rows_text(task.member, res.rows, nc));
          }
        } else if (!task.file.empty()) {
          CsvWriter csv(folder.file(task.file), sim.columns());
          try {
            sim.run(s, task.h, task.steps, st.record_every, [&](const double* row) { csv.row(row); }, &progress.steps);
          } catch (...) {
            csv.flush();  // keep what was recorded before the failure
            throw;
          }
          csv.close();
        } else {
          sim.run(s, task.h, task.steps, 1, {}, &progress.steps);
        }
        res.final = s;
        res.summary = sim.summary();
      } catch (...) {
        res.error = std::current_exception();
      }
      res.wall = seconds_since(t0);
      progress.tasks.fetch_add(1);
    });

    // ---- Results, in task order (independent of the thread count) -----------------------------
    std::string errors;
    long failed = 0;
    for (std::size_t k = 0; k < tasks.size(); ++k) {
      if (!results[k].error) continue;
      if (++failed > 3) continue;  // the first three, then a count (an ensemble may fail 100 times alike)
      try {
        std::rethrow_exception(results[k].error);
      } catch (const std::exception& e) {
        errors += (errors.empty() ? "" : "; ") + st.integrators[tasks[k].integrator].where + " [" + tasks[k].label +
                  ", h = " + fmt(tasks[k].h, "%g") + (tasks[k].member >= 0 ? ", member " + std::to_string(tasks[k].member) : "") +
                  "]: " + e.what();
      }
    }
    if (failed > 3) errors += "; and " + std::to_string(failed - 3) + " more failed tasks (see manifest.json)";
    if (!errors.empty())  // an ensemble's files are written only when every member ran
      for (std::size_t i = 0; i < members_csv.size(); ++i)
        if (members_csv[i]) {
          members_csv[i].reset();
          fs::remove(folder.file(members_file(i)));
        }

    json files = json::array();
    json task_list = json::array();
    for (std::size_t k = 0; k < tasks.size(); ++k) {
      const auto& t = tasks[k];
      json tj = {{"id", k}, {"label", t.label}, {"integrator", st.integrators[t.integrator].plugin}, {"h", t.h},
                 {"steps", t.steps}, {"wall_time_s", results[k].wall}, {"ok", !results[k].error}};
      if (t.member >= 0) tj["member"] = t.member;
      if (results[k].error) {
        try {
          std::rethrow_exception(results[k].error);
        } catch (const std::exception& e) {
          tj["error"] = e.what();
        }
      }
      if (!results[k].error) {
        json summ = json::object();
        for (const auto& [name, value] : results[k].summary) summ[name] = value;
        tj["summary"] = summ;
        tj["final"] = {{"t", results[k].final.t}, {"q", to_json(results[k].final.q)}, {"v", to_json(results[k].final.v)}};
      }
      if (!t.file.empty()) {
        tj["file"] = t.file;
        files.push_back({{"path", t.file}, {"kind", "trajectory"}, {"task", k}, {"label", t.label}, {"h", t.h},
                         {"columns", results[k].columns}});
      }
      task_list.push_back(tj);
    }

    manifest = {{"dalembert", {{"version", version()}, {"revision", source_revision()}, {"abi", abi_version}}},
                {"study_file", st.file},
                {"study", study_run},
                {"tasks", task_list},
                {"threads", opt.threads}};
    json plugins = json::array();
    auto note_plugin = [&](PluginKind kind, const std::string& name) {
      const auto& d = reg.find(kind, name, "");
      for (const auto& p : plugins)
        if (p["name"] == d.name && p["kind"] == to_string(kind)) return;
      plugins.push_back({{"name", d.name}, {"kind", to_string(kind)}, {"version", d.version}, {"file", d.file}});
    };
    note_plugin(PluginKind::System, st.system.plugin);
    for (const auto& u : st.integrators) note_plugin(PluginKind::Integrator, u.plugin);
    for (const auto& u : st.observers) note_plugin(PluginKind::Observer, u.plugin);
    manifest["plugins"] = plugins;

    if (st.kind == "ensemble" && errors.empty()) {
      json ens = json::array();
      for (std::size_t i = 0; i < st.integrators.size(); ++i) {
        const std::string& label = st.integrators[i].label;
        std::vector<std::string> columns;
        std::vector<std::size_t> members;
        for (std::size_t k = 0; k < tasks.size(); ++k)
          if (tasks[k].integrator == i) members.push_back(k);
        columns = results[members.front()].columns;
        EnsembleStatistics stats(columns, st.ensemble.quantiles);
        // Initial states and summaries, member by member.
        const Layout lay = system->layout();
        std::vector<std::string> init_cols = {"member"};
        init_cols.insert(init_cols.end(), lay.q.begin(), lay.q.end());
        init_cols.insert(init_cols.end(), lay.v.begin(), lay.v.end());
        CsvWriter init_csv(folder.file("ensemble_initial_" + label + ".csv"), init_cols);
        std::map<std::string, std::vector<double>> summaries;
        for (std::size_t k : members) {
          stats.add_member(std::move(results[k].rows));
          std::vector<double> row = {double(tasks[k].member)};
          const State& s = results[k].initial;
          row.insert(row.end(), s.q.data(), s.q.data() + s.q.size());
          row.insert(row.end(), s.v.data(), s.v.data() + s.v.size());
          init_csv.row(row.data());
          for (const auto& [name, value] : results[k].summary) summaries[name].push_back(value);
        }
        init_csv.close();
        const std::string stats_file = "ensemble_stats_" + label + ".csv";
        arena.execute([&] { stats.write_statistics(folder.file(stats_file)); });  // in parallel over times
        files.push_back({{"path", stats_file}, {"kind", "ensemble_statistics"}, {"label", label},
                         {"h", tasks[members.front()].h}, {"columns", stats.statistics_columns()}});
        files.push_back({{"path", "ensemble_initial_" + label + ".csv"}, {"kind", "ensemble_initial"},
                         {"label", label}, {"columns", init_cols}});
        if (st.ensemble.write_members) {
          members_csv[i]->close();  // every member has written its rows
          files.push_back({{"path", members_file(i)}, {"kind", "ensemble_members"}, {"label", label},
                           {"h", tasks[members.front()].h}, {"columns", EnsembleStatistics::member_columns(columns)}});
        }
        json summ = json::object();
        for (const auto& [name, values] : summaries) {
          double lo = values.front(), hi = values.front(), mean = 0.0;
          for (double v : values) lo = std::min(lo, v), hi = std::max(hi, v), mean += v;
          summ[name] = {{"min", lo}, {"max", hi}, {"mean", mean / double(values.size())}};
        }
        ens.push_back({{"label", label}, {"members", members.size()}, {"summary", summ}});
      }
      manifest["ensemble"] = ens;
    }

    if (st.kind == "convergence" && errors.empty()) {
      const Layout lay = system->layout();
      CsvWriter csv(folder.file("convergence.csv"),
                    {"label", "h", "steps", "error_q", "error_v", "error_qv", "energy_error", "constraint_residual",
                     "wall_time_s"});
      json conv = json::array();
      const double e_ref = system->energy(ref);
      for (std::size_t i = 0; i < st.integrators.size(); ++i) {
        std::vector<double> hs, errs;
        json rows = json::array();
        for (std::size_t k = 0; k < tasks.size(); ++k) {
          if (tasks[k].integrator != i) continue;
          const State& f = results[k].final;
          const double eq = (f.q - ref.q).lpNorm<Eigen::Infinity>();
          const double ev = (f.v - ref.v).lpNorm<Eigen::Infinity>();
          const double eqv = std::max(eq, ev);  // ‖(q,v)(T) − ref‖∞ (spec 000 claim 3)
          const double ee = std::abs(system->energy(f) - e_ref);
          const double cr = system->constraint_residual(f);
          csv.row({st.integrators[i].label}, {tasks[k].h, double(tasks[k].steps), eq, ev, eqv, ee, cr, results[k].wall});
          hs.push_back(tasks[k].h);
          errs.push_back(eqv);
          json row = {{"h", tasks[k].h}, {"error_q", eq}, {"error_v", ev}, {"error_qv", eqv}, {"energy_error", ee},
                      {"constraint_residual", cr}};
          for (const auto& [name, value] : results[k].summary) row[name] = value;
          rows.push_back(row);
        }
        const OrderFit fit = fit_order(hs, errs, st.plateau);
        const int declared = traits[i].order;
        // Every error at the round-off plateau: the method is exact on this ladder (e.g. an exact
        // flow); no order can be fitted and none is contradicted.
        const bool at_round_off = fit.points_used < 2 && *std::max_element(errs.begin(), errs.end()) <= 100.0 * st.plateau;
        const bool ok = at_round_off || (std::isfinite(fit.order) && std::abs(fit.order - declared) <= st.order_tolerance);
        conv.push_back({{"label", st.integrators[i].label},
                        {"declared_order", declared},
                        {"fitted_order", std::isfinite(fit.order) ? json(fit.order) : json(nullptr)},
                        {"successive_orders", fit.ratios},
                        {"points_used", fit.points_used},
                        {"used", fit.used},
                        {"agrees", ok},
                        {"status", at_round_off ? "round-off" : std::isfinite(fit.order) ? "fitted" : "not enough points"},
                        {"errors", rows}});
      }
      csv.close();
      manifest["convergence"] = conv;
      manifest["reference"] = {{"kind", st.reference.exact ? "exact" : "run"}, {"t", ref.t}, {"q", to_json(ref.q)},
                               {"v", to_json(ref.v)}, {"wall_time_s", ref_wall}};
      if (!st.reference.exact) {
        // The reference must be far more accurate than the finest run it judges.
        double finest = std::numeric_limits<double>::infinity();
        for (const auto& c : conv)
          for (const auto& r : c["errors"]) finest = std::min(finest, r["error_qv"].get<double>());
        manifest["reference"]["error_estimate"] = std::isfinite(ref_error_estimate) ? json(ref_error_estimate) : json(nullptr);
        manifest["reference"]["negligible"] = std::isfinite(ref_error_estimate) && ref_error_estimate < 1e-2 * finest;
        if (opt.verbose && !(ref_error_estimate < 1e-2 * finest))
          std::fprintf(stderr, "warning: %s: the reference's estimated error %s is not below 1%% of the smallest error %s\n",
                       st.name.c_str(), fmt(ref_error_estimate).c_str(), fmt(finest).c_str());
      }
      files.push_back({{"path", "convergence.csv"}, {"kind", "convergence"},
                       {"columns", {"label", "h", "steps", "error_q", "error_v", "error_qv", "energy_error",
                                    "constraint_residual", "wall_time_s"}}});
    }
    manifest["files"] = files;
    manifest["wall_time_s"] = seconds_since(t_start);
    write_json(folder.file("manifest.json"), manifest);
    if (!errors.empty()) throw RunFailure(errors, -1, 0.0);

    attach_figures(manifest, folder.staging(), opt.plots && !st.figures.empty(), st.figures.empty());
    manifest["wall_time_s"] = seconds_since(t_start);
    write_json(folder.file("manifest.json"), manifest);
  } catch (const std::exception& e) {
    folder.fail(e.what());
    throw;
  }
  folder.commit();

  if (opt.verbose) {
    std::printf("%s: %s study, %zu tasks, %.2f s -> %s\n", st.name.c_str(), st.kind.c_str(), tasks.size(),
                manifest["wall_time_s"].get<double>(), dir.string().c_str());
    if (manifest.contains("convergence")) {
      std::printf("  %-14s %8s %8s  %s\n", "integrator", "declared", "fitted", "successive orders");
      for (const auto& c : manifest["convergence"]) {
        std::string ratios;
        for (const auto& r : c["successive_orders"]) ratios += fmt(r.get<double>(), "%.3f") + " ";
        std::printf("  %-14s %8d %8s  %s%s\n", c["label"].get<std::string>().c_str(), c["declared_order"].get<int>(),
                    c["fitted_order"].is_null() ? c["status"].get<std::string>().c_str()
                                                : fmt(c["fitted_order"].get<double>(), "%.3f").c_str(),
                    ratios.c_str(), c["agrees"].get<bool>() ? "" : "  <-- differs from the declared order");
      }
    }
  }
  return {dir, manifest};
}

}  // namespace dalembert
