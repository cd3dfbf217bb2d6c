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
#include <dalembert/study/claims.hpp>
#include <dalembert/study/csv_writer.hpp>
#include <dalembert/study/file_output.hpp>
#include <dalembert/study/process.hpp>
#include <dalembert/study/report.hpp>
#include <dalembert/study/ensemble_statistics.hpp>
#include <dalembert/study/run_folder.hpp>
#include <dalembert/study/runner.hpp>
#include <dalembert/study/simulation.hpp>
#include <dalembert/study/study_plan.hpp>
#include <dalembert/study/visible_join.hpp>
#include <fstream>
#include <map>
#include <memory>
#include <iostream>
#include <limits>
#include <mutex>
#include <sstream>
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

// The message of any exception a task ended with, whatever its type: a plugin may throw
// anything, and the run must still report it as one line (never std::terminate).
std::string what_of(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::bad_alloc&) {
    return "out of memory (std::bad_alloc)";
  } catch (const std::exception& x) {
    return x.what();
  } catch (...) {
    return "an exception that is not a std::exception (thrown by a plugin)";
  }
}

// Runs body(0), ..., body(n-1) on the arena's threads, handing the tasks out one at a time in
// index order (not as contiguous ranges split between threads): the last thread to finish ends
// at most one task after the others, and ensemble members finish roughly in member order, so
// their rows stream out to the members CSV with little text waiting (OrderedCsvWriter).
template <class F>
void parallel_tasks(tbb::task_arena& arena, std::size_t n, F&& body) {
  std::atomic<std::size_t> next{0};
  arena.execute([&] {
    parallel_for_visibly(0, arena.max_concurrency(), [&](int) {
      for (std::size_t i; (i = next.fetch_add(1)) < n;) body(i);
    });
  });
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

namespace {

// The plotting script's own diagnosis: its last non-empty stderr lines (it prints one line per
// figure that failed, "figure NAME: cause"), joined into one line.
std::string last_lines(const std::string& text, int n) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  std::string out;
  for (std::size_t i = lines.size() > std::size_t(n) ? lines.size() - n : 0; i < lines.size(); ++i)
    out += (out.empty() ? "" : "; ") + lines[i];
  return out;
}

}  // namespace

std::vector<fs::path> draw_figures(const fs::path& folder, json* index) {
  const fs::path script = plot_script();
  if (!fs::exists(script)) throw Error("plotting script not found: " + script.string());
  // An argument vector, never a shell: a quote in a study name or a folder stays a quote.
  ProcessResult r;
  try {
    r = run_process({python_interpreter(), script.string(), folder.string()});
  } catch (const Error& e) {
    throw Error(std::string(e.what()) + " (figures need python3 with matplotlib: apt-get install python3-matplotlib)");
  }
  // The script's stderr: "warning: figure NAME: ..." lines (e.g. a record_every that aliases an
  // oscillation) are passed on; "figure NAME: cause" lines name the figures that failed.
  std::vector<std::string> failures;
  {
    std::istringstream lines(r.stderr_text);
    std::string line;
    while (std::getline(lines, line)) {
      if (line.rfind("warning: figure ", 0) == 0) std::fprintf(stderr, "%s\n", line.c_str());
      if (line.rfind("figure ", 0) == 0) failures.push_back(line);
    }
  }
  // figures/index.json: one entry per figure drawn (name, type, panel count, files); read into the
  // manifest and removed, so that figures/ holds the figures only.
  const fs::path index_file = folder / "figures" / "index.json";
  if (index) *index = json::array();
  std::error_code ec;
  if (fs::exists(index_file, ec)) {
    try {
      std::ifstream in(index_file);
      const json j = json::parse(in);
      if (index && j.contains("figures")) *index = j["figures"];
    } catch (const std::exception&) {
      // a torn index only loses the panel counts; the figures are listed below
    }
    fs::remove(index_file, ec);
  }
  if (!r.ok()) {
    std::string cause;
    for (std::size_t i = 0; i < failures.size() && i < 3; ++i) cause += (cause.empty() ? "" : "; ") + failures[i];
    if (failures.size() > 3) cause += "; and " + std::to_string(failures.size() - 3) + " more";
    if (cause.empty()) cause = last_lines(r.stderr_text, 3);
    if (r.stderr_text.find("No module named 'matplotlib'") != std::string::npos)
      cause = "python3 has no matplotlib (apt-get install python3-matplotlib)";
    if (!failures.empty())
      throw Error(std::to_string(failures.size()) + " figure" + (failures.size() > 1 ? "s" : "") +
                  " could not be drawn (the data are complete): " + cause);
    throw Error("drawing the figures failed (" + r.status() + "): " + (cause.empty() ? "no message" : cause));
  }
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(folder / "figures", ec)) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

void attach_figures(json& manifest, const fs::path& staging, bool draw, bool none_requested) {
  if (!draw) {
    manifest["figures_status"] = none_requested ? "none requested" : "skipped (--no-plots)";
    return;
  }
  json drawn = json::array();
  try {
    for (const auto& f : draw_figures(staging, &drawn))
      manifest["files"].push_back({{"path", (fs::path("figures") / f.filename()).string()}, {"kind", "figure"}});
    manifest["figures_status"] = "ok";
  } catch (const std::exception& e) {  // the data are complete; a missing figure is a warning
    std::fprintf(stderr, "warning: %s\n", e.what());
    manifest["figures_status"] = std::string("failed: ") + e.what();
    for (const auto& d : drawn)  // the figures that were drawn are whole files
      for (const auto& f : d.value("files", json::array())) manifest["files"].push_back({{"path", f}, {"kind", "figure"}});
  }
  manifest["figures"] = drawn;  // name, type, panels, files of every figure drawn
}

RunReport run_study(const Study& st, const RunOptions& opt) {
  if (st.kind == "sweep") return run_sweep(st, opt);
  const auto t_start = Clock::now();
  StudyPlan plan = plan_study(st);
  const Registry& reg = *plan.registry;
  const std::unique_ptr<System>& system = plan.system;
  const State& s0 = plan.initial;
  const std::vector<Traits>& traits = plan.traits;
  const std::vector<Task>& tasks = plan.tasks;
  const json& study_run = plan.study_run;

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
      errors += (errors.empty() ? "" : "; ") + st.integrators[tasks[k].integrator].where + " [" + tasks[k].label +
                ", h = " + fmt(tasks[k].h, "%g") + (tasks[k].member >= 0 ? ", member " + std::to_string(tasks[k].member) : "") +
                "]: " + what_of(results[k].error);
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
    std::vector<std::string> non_finite;  // summaries an observer could not compute (overflow, NaN)
    for (std::size_t k = 0; k < tasks.size(); ++k) {
      const auto& t = tasks[k];
      json tj = {{"id", k}, {"label", t.label}, {"integrator", st.integrators[t.integrator].plugin}, {"h", t.h},
                 {"steps", t.steps}, {"wall_time_s", results[k].wall}, {"ok", !results[k].error}};
      if (t.member >= 0) tj["member"] = t.member;
      if (results[k].error) tj["error"] = what_of(results[k].error);
      if (!results[k].error) {
        json summ = json::object();
        for (const auto& [name, value] : results[k].summary) {
          summ[name] = value;  // JSON has no NaN: written as null
          if (!std::isfinite(value)) non_finite.push_back(t.label + (t.member >= 0 ? "#" + std::to_string(t.member) : "") +
                                                          " (h = " + fmt(t.h, "%g") + "): " + name + " = " + fmt(value, "%g"));
        }
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
    if (st.kind == "ensemble") note_plugin(PluginKind::Sampler, st.ensemble.sampler.plugin);
    if (st.impact_map) note_plugin(PluginKind::Impact, st.impact_map->plugin);
    if (st.kind == "convergence" && !st.reference.exact) note_plugin(PluginKind::Integrator, st.reference.run.plugin);
    manifest["plugins"] = plugins;
    if (!non_finite.empty()) manifest["non_finite_summaries"] = non_finite;

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
});
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
          csv.row({st.integrators[i].label}, {tasks[k].h, double(tasks[k].steps), eq, ev, eqv, ee, cr});
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
                                    "constraint_residual"}}});
    }
    manifest["files"] = files;
    manifest["wall_time_s"] = seconds_since(t_start);
    write_json_file(folder.file("manifest.json"), manifest);
    if (!errors.empty()) throw RunFailure(errors, -1, 0.0);

    manifest["claims"] = evaluate_claims(st.claims, manifest, folder.staging());  // a failed claim: still complete
    attach_figures(manifest, folder.staging(), opt.plots && !st.figures.empty(), st.figures.empty());
    manifest["wall_time_s"] = seconds_since(t_start);
    write_report(manifest, folder.staging());
    write_json_file(folder.file("manifest.json"), manifest);
  } catch (const std::exception& e) {
    folder.fail(e.what());
    throw;
  }
  folder.commit();
  if (manifest.contains("non_finite_summaries")) {
    const auto& nf = manifest["non_finite_summaries"];
    std::fprintf(stderr, "warning: %s: %zu task summaries are not finite, e.g. %s (listed in manifest.json)\n",
                 st.name.c_str(), nf.size(), nf[0].get<std::string>().c_str());
  }

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
  print_claims(st.name, manifest["claims"], opt.verbose);
  return {dir, manifest, manifest["claims"]["failed"].get<long>()};
}

}  // namespace dalembert
