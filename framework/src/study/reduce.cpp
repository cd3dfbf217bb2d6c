#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <dalembert/core/error_text.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/study/execution.hpp>
#include <dalembert/study/provenance.hpp>
#include <dalembert/study/reduce.hpp>
#include <dalembert/study/runner.hpp>
#include <dalembert/study/study_kind.hpp>
#include <limits>
#include <thread>

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
  // The kind's plugins: a sampler before the impact map, a reference integrator after it.
  const auto extras = kind_of(st).plugins(st);
  note(to_string(PluginKind::System), st.system.plugin);
  for (const auto& p : st.integrators) note(to_string(PluginKind::Integrator), p.plugin);
  for (const auto& p : st.observers) note(to_string(PluginKind::Observer), p.plugin);
  for (const auto& [kind, use] : extras)
    if (kind != PluginKind::Integrator) note(to_string(kind), use->plugin);
  if (st.impact_map) note(to_string(PluginKind::Impact), st.impact_map->plugin);
  for (const auto& [kind, use] : extras)
    if (kind == PluginKind::Integrator) note(to_string(kind), use->plugin);
  for (const auto& p : loaded) note(p["kind"].get<std::string>(), p["name"].get<std::string>());
  return plugins;
}

class Reducer {
 public:
  Reducer(const RunUnit& u, const Outcomes& o, const fs::path& run_folder, bool verbose)
      : u_(u), st_(u.study), r_{u, o, run_folder / u.folder, verbose} {}

  UnitResult run() {
    // Every outcome but ensemble members' (their rows stay on disk until the ensemble streams them).
    r_.results.resize(u_.tasks.size());
    std::size_t k = 0;
    while (k < u_.tasks.size()) {
      if (u_.tasks[k].member >= 0) {
        scan_members(k);
        while (k < u_.tasks.size() && u_.tasks[k].member >= 0) ++k;
        continue;
      }
      r_.outcomes.visit(u_.first + k, 1, [&](std::size_t, TaskOutcome& out) { r_.results[k] = std::move(out); });
      if (!r_.results[k].ok) errors_.add(task_name(u_, u_.tasks[k]) + ": " + r_.results[k].error);
      ++k;
    }
    r_.manifest = {{"dalembert", framework_provenance()},
                   {"study_file", st_.file},
                   {"study", u_.plan.study_run},
                   {"tasks", task_list()},
                   {"plugins", plugin_list(u_)}};
    if (!r_.non_finite.empty()) r_.manifest["non_finite_summaries"] = r_.non_finite;
    if (errors_.failed == 0) kind_of(st_).reduce(r_);
    r_.manifest["files"] = r_.files;
    return {r_.manifest, errors_.str(), errors_.failed};
  }

 private:
  // Members: only their errors are needed before the ensemble is reduced (none, most often: the
  // chunks' headers say so).
  void scan_members(std::size_t k0) {
    std::size_t n = 0;
    while (k0 + n < u_.tasks.size() && u_.tasks[k0 + n].member >= 0) ++n;
    if (r_.outcomes.all_ok(u_.first + k0, n)) return;
    r_.outcomes.visit(u_.first + k0, n, [&](std::size_t g, TaskOutcome& out) {
      if (!out.ok) errors_.add(task_name(u_, u_.tasks[g - u_.first]) + ": " + out.error);
    });
  }

  json task_list() {
    json list = json::array();
    for (std::size_t k = 0; k < u_.listed; ++k) {
      const Task& t = u_.tasks[k];
      if (t.member >= 0) continue;  // members: ensemble_summaries_<label>.csv
      const TaskOutcome& r = r_.results[k];
      json tj = {{"id", k}, {"label", t.label}, {"integrator", st_.integrators[t.integrator].plugin}, {"h", t.h},
                 {"steps", t.steps}, {"wall_time_s", r.wall}, {"ok", r.ok}};
      if (!r.ok) tj["error"] = r.error;
      if (r.ok) {
        json summ = json::object();
        for (const auto& [name, value] : r.summary) summ[name] = value;  // JSON has no NaN: written as null
        r_.note_non_finite(t, r);
        tj["summary"] = summ;
        tj["final"] = {{"t", r.final.t}, {"q", to_json(r.final.q)}, {"v", to_json(r.final.v)}};
      }
      if (!t.file.empty()) {
        tj["file"] = t.file;
        r_.files.push_back({{"path", t.file}, {"kind", "trajectory"}, {"task", k}, {"label", t.label}, {"h", t.h},
                            {"columns", u_.plan.columns[t.integrator]}, {"format", st_.record_format}});
      }
      list.push_back(tj);
    }
    return list;
  }

  const RunUnit& u_;
  const Study& st_;
  Reduction r_;
  ErrorList errors_;
};

}  // namespace

void Reduction::note_non_finite(const Task& t, const TaskOutcome& r) {
  for (const auto& [name, value] : r.summary)
    if (!std::isfinite(value))
      non_finite.push_back(t.label + (t.member >= 0 ? "#" + std::to_string(t.member) : "") + " (h = " + number_text(t.h, "%g") +
                           "): " + name + " = " + number_text(value, "%g"));
}

namespace {

// Chunk c's outcomes, or why there are none.
struct LoadedChunk {
  std::vector<TaskOutcome> outcomes;
  std::string why;
};

LoadedChunk load_chunk(const Outcomes& o, std::size_t c) {
  LoadedChunk out;
  if (auto it = o.lost.find(c); it != o.lost.end()) return {{}, it->second};
  try {
    out.outcomes = o.checkpoint.read_chunk(c, o.partition.first(c), o.partition.size(c));
  } catch (const std::exception& e) {
    out.why = e.what();
  }
  return out;
}

}  // namespace

void Outcomes::visit(std::size_t first, std::size_t count, const std::function<void(std::size_t, TaskOutcome&)>& f) const {
  if (count == 0) return;
  const std::size_t end = first + count;
  const std::size_t c_end = (end - 1) / partition.per_chunk + 1;
  const int workers = threads > 0 ? threads : static_cast<int>(std::thread::hardware_concurrency());
  const std::size_t batch = 2 * static_cast<std::size_t>(std::max(1, workers));
  std::vector<LoadedChunk> loaded;
  for (std::size_t c0 = first / partition.per_chunk; c0 < c_end; c0 += batch) {
    loaded.assign(std::min(batch, c_end - c0), {});
    parallel_indices(threads, loaded.size(), [&](std::size_t i) { loaded[i] = load_chunk(*this, c0 + i); });
    for (std::size_t i = 0; i < loaded.size(); ++i) {
      const std::size_t c = c0 + i, g0 = std::max(first, partition.first(c));
      const std::size_t g1 = std::min(end, partition.first(c) + partition.size(c));
      for (std::size_t g = g0; g < g1; ++g) {
        if (!loaded[i].why.empty()) {
          TaskOutcome missing;
          missing.error = "no result: " + loaded[i].why;
          f(g, missing);
        } else {
          f(g, loaded[i].outcomes[g - partition.first(c)]);
        }
      }
    }
  }
}

bool Outcomes::all_ok(std::size_t first, std::size_t count) const {
  if (count == 0) return true;
  const std::size_t c0 = first / partition.per_chunk, c_end = (first + count - 1) / partition.per_chunk + 1;
  std::atomic<bool> ok{true};
  parallel_indices(threads, c_end - c0, [&](std::size_t i) {
    const std::size_t c = c0 + i;
    if (ok && (lost.count(c) || !checkpoint.completed(c, partition.first(c), partition.size(c)))) ok = false;
  });
  return ok;
}

UnitResult reduce_unit(const RunUnit& unit, const Outcomes& outcomes, const fs::path& run_folder, bool verbose) {
  return Reducer(unit, outcomes, run_folder, verbose).run();
}

}  // namespace dalembert
