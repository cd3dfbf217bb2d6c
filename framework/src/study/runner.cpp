// The study runner: plan, execute, reduce, write (runner.hpp).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <dalembert/core/error_text.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/study/checkpoint.hpp>
#include <dalembert/study/claims.hpp>
#include <dalembert/study/crash_report.hpp>
#include <dalembert/study/file_output.hpp>
#include <dalembert/study/progress_meter.hpp>
#include <dalembert/study/provenance.hpp>
#include <dalembert/study/reduce.hpp>
#include <dalembert/study/report.hpp>
#include <dalembert/study/run_folder.hpp>
#include <dalembert/study/runner.hpp>
#include <dalembert/study/study_kind.hpp>
#include <fstream>
#include <memory>

namespace fs = std::filesystem;
using nlohmann::json;

namespace dalembert {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Every unit of the run, planned; the same on every rank (each rank plans for itself).
struct Plan {
  std::vector<RunUnit> units;
  std::vector<std::pair<std::size_t, std::size_t>> index;  // task g -> (unit, task of the unit)
  long steps_of(std::size_t g) const { return units[index[g].first].tasks[index[g].second].steps; }
};

Plan make_plan(const Study& st) {
  Plan p;
  p.units = kind_of(st).units(st);
  for (std::size_t u = 0; u < p.units.size(); ++u) {
    p.units[u].first = p.index.size();
    for (std::size_t k = 0; k < p.units[u].tasks.size(); ++k) p.index.emplace_back(u, k);
  }
  return p;
}

json fingerprint(const Plan& p) {
  json runs = json::array(), plugins = json::array();
  for (const auto& u : p.units) {
    runs.push_back(u.plan.study_run);
    for (const auto& d : loaded_plugins(*u.plan.registry)) {
      const json code = {{"kind", d["kind"]}, {"name", d["name"]}, {"sha256", d["sha256"]}};
      if (std::find(plugins.begin(), plugins.end(), code) == plugins.end()) plugins.push_back(code);
    }
  }
  return task_fingerprint(runs, plugins);
}

// Plans on every rank; a rank that cannot plan stops them all.
Plan plan_everywhere(const Study& st, Cluster& cl) {
  Plan p;
  std::exception_ptr error;
  try {
    p = make_plan(st);
  } catch (...) {
    error = std::current_exception();
  }
  if (!cl.all(!error)) {
    if (error) std::rethrow_exception(error);
    throw Error("another rank of the MPI job could not plan " + st.name + " (its message is above)");
  }
  return p;
}

// Rank 0 prepares the folder and checkpoint; every rank must see them (a shared file system).
struct Prepared {
  std::unique_ptr<RunFolder> folder;
  std::unique_ptr<Checkpoint> checkpoint;
  bool resumed = false;
};

Prepared prepare_folder(const Study& st, const Plan& p, const fs::path& dir, const RunOptions& opt, Cluster& cl) {
  Prepared out;
  std::exception_ptr error;
  if (cl.rank() == 0) {
    try {
      out.folder = std::make_unique<RunFolder>(dir, opt.resume);
      out.checkpoint = std::make_unique<Checkpoint>(out.folder->staging());
      const json f = fingerprint(p);
      out.resumed = out.folder->resumed() && out.checkpoint->matches(f, st.file.empty() ? st.name : st.file);
      if (!out.resumed) out.checkpoint->start(f);
      for (const auto& u : p.units) fs::create_directories(out.folder->staging() / u.folder);
    } catch (...) {
      if (out.folder && out.folder->resumed()) out.folder->release();  // a refused resume: untouched
      else if (out.folder) out.folder->fail("the run could not start");
      error = std::current_exception();
    }
  }
  if (!cl.all(!error)) {
    if (error) std::rethrow_exception(error);
    throw Error("rank 0 could not prepare the run folder of " + st.name + " (its message is above)");
  }
  const fs::path staging = fs::path(RunFolder::normalize(dir).string() + ".incomplete");
  if (cl.rank() != 0) out.checkpoint = std::make_unique<Checkpoint>(staging);
  std::error_code ec;
  const bool visible = fs::exists(out.checkpoint->folder() / "study.json", ec);
  if (!cl.all(visible)) {
    const std::string msg = "the run folder " + staging.string() + " is not visible from every rank (rank " +
                            std::to_string(cl.rank()) + " on " + cl.host() + (visible ? " sees it" : " does not") +
                            "): put --out on a file system that every node shares";
    if (out.folder) out.folder->fail(msg);
    throw Error(msg);
  }
  return out;
}

// The chunks still to run, the costliest first (so that unequal tasks balance); the tasks kept.
std::vector<std::size_t> pending_chunks(const Plan& p, const ChunkPartition& part, const Checkpoint& cp, bool resumed,
                                        long& kept_tasks) {
  std::vector<std::size_t> pending;
  std::vector<long> cost(part.chunks(), 0);
  kept_tasks = 0;
  for (std::size_t c = 0; c < part.chunks(); ++c) {
    if (resumed && cp.completed(c, part.first(c), part.size(c))) {
      kept_tasks += static_cast<long>(part.size(c));
      continue;
    }
    for (std::size_t g = part.first(c); g < part.first(c) + part.size(c); ++g) cost[c] += p.steps_of(g);
    pending.push_back(c);
  }
  std::stable_sort(pending.begin(), pending.end(), [&](std::size_t a, std::size_t b) { return cost[a] > cost[b]; });
  return pending;
}

class Run {
 public:
  Run(const Study& st, const RunOptions& opt, Cluster& cl) : st_(st), opt_(opt), cl_(cl) {}

  RunReport run() {
    plan_ = plan_everywhere(st_, cl_);
    dir_ = opt_.out_dir ? *opt_.out_dir : opt_.out_root / st_.name;
    prepared_ = prepare_folder(st_, plan_, dir_, opt_, cl_);
    const ChunkPartition part(plan_.index.size());
    std::vector<ChunkFailure> lost;
    if (cl_.rank() == 0) pending_ = pending_chunks(plan_, part, *prepared_.checkpoint, prepared_.resumed, kept_);
    try {
      lost = execute(part);
    } catch (...) {
      if (prepared_.folder) prepared_.folder->fail("the run was interrupted");
      throw;
    }
    if (cl_.rank() != 0) return follow();
    long status = 1;
    struct Announce {  // the other ranks wait for rank 0's verdict, whatever happens here
      Cluster& cl;
      long& status;
      ~Announce() { cl.broadcast(status); }
    } announce{cl_, status};
    RunReport report;
    try {
      report = reduce_and_write(part, lost);
    } catch (const std::exception& e) {
      prepared_.folder->fail(e.what());
      throw;
    }
    status = report.claims_failed > 0 ? 3 : 0;
    return report;
  }

 private:
  std::vector<ChunkFailure> execute(const ChunkPartition& part) {
    long steps = 0, tasks = 0;
    for (std::size_t c : pending_)
      for (std::size_t g = part.first(c); g < part.first(c) + part.size(c); ++g) steps += plan_.steps_of(g), ++tasks;
    computed_ = tasks;
    ProgressMeter meter(opt_.progress && cl_.rank() == 0, st_.name, steps, tasks, batch_progress_interval());
    const fs::path staging = prepared_.checkpoint->folder().parent_path();
    const CrashFolder crash_folder(staging);  // a task that crashes the process writes error.txt there
    const auto run_chunk = [&](std::size_t c) {
      std::vector<TaskOutcome> outcomes;
      for (std::size_t g = part.first(c); g < part.first(c) + part.size(c); ++g) {
        const RunUnit& u = plan_.units[plan_.index[g].first];
        outcomes.push_back(run_task(u, u.tasks[plan_.index[g].second], staging, &meter.steps));
        meter.tasks += 1;
      }
      prepared_.checkpoint->write_chunk(c, part.first(c), outcomes);
    };
    // A work-precision study's timed tasks run one at a time, so that they do not disturb each other.
    return cl_.execute(pending_, opt_.threads, run_chunk, meter, kind_of(st_).one_task_at_a_time());
  }

  // Ranks other than 0: rank 0's verdict.
  RunReport follow() {
    const long status = cl_.broadcast(0);
    if (status == 1) throw FailedOnRank0();
    RunReport r;
    r.folder = dir_;
    r.rank0 = false;
    r.claims_failed = status == 3 ? 1 : 0;
    return r;
  }

  json execution() const {
    return {{"ranks", cl_.size()},
            {"threads_per_rank", opt_.threads},
            {"chunks", ChunkPartition(plan_.index.size()).chunks()},
            {"tasks", plan_.index.size()},
            {"tasks_computed", computed_},
            {"tasks_resumed", kept_}};
  }

  void stamp(json& manifest) const {
    manifest["threads"] = opt_.threads;
    manifest["execution"] = execution();
    manifest["wall_time_s"] = seconds_since(t_start_);
  }

  RunReport reduce_and_write(const ChunkPartition& part, const std::vector<ChunkFailure>& lost) {
    RunFolder& folder = *prepared_.folder;
    Outcomes outcomes{*prepared_.checkpoint, part, {}, opt_.threads};
    for (const auto& f : lost) outcomes.lost[f.chunk] = "rank " + std::to_string(f.rank) + ": " + f.error;
    KindResult r = kind_of(st_).reduce_run(st_, plan_.units, outcomes, folder.staging(), opt_.verbose);
    json& manifest = r.manifest;
    stamp(manifest);
    write_json_file(folder.file("manifest.json"), manifest);
    if (!r.errors.empty()) throw RunFailure(r.errors, -1, 0.0);  // the checkpoint is kept for --resume
    attach_claims(manifest, st_.claims, folder.staging());  // a failed claim: still complete
    attach_figures(manifest, folder.staging(), opt_.plots && !st_.figures.empty(), st_.figures.empty());
    stamp(manifest);
    write_report(manifest, folder.staging());
    write_json_file(folder.file("manifest.json"), manifest);
    std::error_code ec;
    fs::remove_all(prepared_.checkpoint->folder(), ec);  // the run is complete: nothing to resume
    folder.commit();
    finish(manifest);
    return {dir_, manifest, manifest["claims"]["failed"].get<long>(), true};
  }

  void finish(const json& manifest) const {
    if (manifest.contains("non_finite_summaries")) {
      const auto& nf = manifest["non_finite_summaries"];
      std::fprintf(stderr, "warning: %s: %zu task summaries are not finite, e.g. %s (listed in manifest.json)\n",
                   st_.name.c_str(), nf.size(), nf[0].get<std::string>().c_str());
    }
    const StudyKind& kind = kind_of(st_);
    kind.warn(st_, manifest);
    if (opt_.verbose) {
      kind.print_headline(st_, manifest, plan_.index.size(), dir_);
      if (kept_ > 0) std::printf("  resumed: %ld tasks kept from the interrupted run, %ld computed\n", kept_, computed_);
      kind.print_tables(manifest);
    }
    print_claims(st_.name, manifest["claims"], opt_.verbose);
  }

  const Study& st_;
  const RunOptions& opt_;
  Cluster& cl_;
  const Clock::time_point t_start_ = Clock::now();
  Plan plan_;
  fs::path dir_;
  Prepared prepared_;
  std::vector<std::size_t> pending_;
  long kept_ = 0, computed_ = 0;
};

}  // namespace

void attach_claims(json& manifest, const std::vector<ClaimCheck>& checks, const fs::path& folder) {
  manifest["claims"] = evaluate_claims(checks, manifest, folder);
  manifest["files"].push_back({{"path", "claims.csv"}, {"kind", "claims"}, {"format", "csv"}});
}

RunReport run_study(const Study& st, const RunOptions& opt) {
  Cluster& cl = opt.cluster ? *opt.cluster : process_cluster();
  if (opt.resume && cl.rank() == 0) {
    // A job requeued after it finished: nothing to resume, nothing to redo.
    const fs::path dir = RunFolder::normalize(opt.out_dir ? *opt.out_dir : opt.out_root / st.name);
    std::error_code ec;
    const bool pending = fs::exists(dir.string() + ".incomplete", ec) || fs::exists(dir.string() + ".failed", ec);
    if (!pending && RunFolder::is_complete_run(dir)) {
      std::ifstream in(dir / "manifest.json");
      const json m = json::parse(in);
      if (opt.verbose) std::printf("%s: %s is complete; nothing to resume\n", st.name.c_str(), dir.string().c_str());
      const long failed = m.contains("claims") ? m["claims"].value("failed", 0L) : 0L;
      cl.broadcast(-2);
      return {dir, m, failed, true};
    }
    cl.broadcast(0);
  } else if (opt.resume) {
    if (cl.broadcast(0) == -2) return {RunFolder::normalize(opt.out_dir ? *opt.out_dir : opt.out_root / st.name), {}, 0, false};
  }
  return Run(st, opt, cl).run();
}

}  // namespace dalembert
