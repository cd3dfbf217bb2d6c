// The `dalembert` command-line program: run studies, list and describe plugins.
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <optional>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <cstring>
#include <dalembert/core/error_text.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/plugin/abi.hpp>
#include <dalembert/host/plugin_file.hpp>
#include <dalembert/host/probe.hpp>
#include <dalembert/host/registry.hpp>
#include <dalembert/core/constrained_lagrangian.hpp>
#include <dalembert/study/crash_report.hpp>
#include <dalembert/study/derivative_check.hpp>
#include <dalembert/core/json_input.hpp>
#include <dalembert/study/run_folder.hpp>
#include <dalembert/study/study_plan.hpp>
#include <dalembert/study/report.hpp>
#include <dalembert/study/runner.hpp>
#include "check_plugin.hpp"
#include "describe.hpp"
#include "run_index.hpp"
#include <iostream>
#include <new>
#include <sstream>
#include <string>
#include <vector>

using namespace dalembert;

namespace {

const char* kUsage = R"(usage: dalembert <command> [options]

commands:
  run STUDY.json|FOLDER ... [--out DIR] [--threads N] [--resume] [--no-plots] [--quiet]
                        run studies (a folder: every *.json in it, in name order); results go
                        to DIR (one study) or DIR/<study name> (several); default results/<name>;
                        each run folder has a report.md; a FOLDER's run also writes
                        <FOLDER name>_index.md beside its run folders, linking every report;
                        --threads N per process (default: all cores); --resume continues an
                        interrupted or failed run (DIR.incomplete, DIR.failed), computing only
                        the tasks it had not finished; under `mpirun -n R` (or srun) the tasks
                        are spread over the R ranks and rank 0 writes the same files
  plot DIR              (re)draw the figures of a finished run folder
  animate DIR [--label L] [--out FILE.gif|FILE.mp4] [--frames N] [--fps F] [--dpi D]
                        the system of a run folder moving, with its traces (contact paths), from
                        the trajectory of integrator L (default: the first); .mp4 needs ffmpeg,
                        .gif uses Pillow; default DIR/animations/<L>.mp4, or .gif without ffmpeg
                        (an existing file is never replaced unless named by --out); N frames
                        (default 100) evenly spaced over the recorded rows; the system must
                        declare its drawing (README, "Adding a plugin": Drawable)
  check SYSTEM [--params JSON] [--state JSON] [--samples N] [--seed S]
                        compare the system's hand-written derivatives with automatic
                        differentiation (or central differences) at the given state (default:
                        its declared example state) and N random ones around it (default 8,
                        seed 1); check M SPD, A of full rank, and
                        RK4 energy error falling like h^4; exit 1 on any finding
  check PLUGIN [--params JSON]
                        an integrator, observer, impact map or sampler against the plugin
                        contract (the conformance suite) on every installed system example
                        that meets its declared needs; prints the table, exit 1 on a finding
  list                  list the plugins found, by kind
  describe NAME         show a plugin's summary, version and parameters, what it declares it
                        needs of a system; a system's layout, n, r, models, diagnostics and
                        exact solution; an integrator's order and published quantities; an
                        observer's columns
  --help                this text
  --version             version, source revision and plugin ABI

Plugins are searched in $DALEMBERT_PLUGIN_PATH (':'-separated), then next to libdalembert.
A plugin file is opened only when a study uses it (list and describe open them all).
)";

// The one line "error: ..." on stderr (an MPI job's other ranks name themselves), exit status 1.
int fail(const std::string& msg) {
  const int rank = process_cluster().rank();
  if (rank != 0) std::fprintf(stderr, "rank %d: ", rank);
  std::fprintf(stderr, "error: %s\n", one_line(msg).c_str());  // one line, whatever a library put in it
  return 1;
}

// `dalembert COMMAND --help`: the command's entry of kUsage (its synopsis and the lines indented
// under it) as its own usage; empty for a name that is not a command.
std::string command_usage(const std::string& cmd) {
  constexpr std::size_t kColumn = 24;  // where kUsage's descriptions start
  const std::string indent(kColumn, ' ');
  std::istringstream in(kUsage);
  std::string line, synopsis, text;
  while (std::getline(in, line)) {
    if (!synopsis.empty() && line.rfind(indent, 0) == 0) {
      text += "  " + line.substr(kColumn) + "\n";  // the description goes on
    } else if (!synopsis.empty()) {
      break;
    } else if (line.rfind("  " + cmd + " ", 0) == 0 || line == "  " + cmd) {
      // A short synopsis has its description on the same line: "  plot DIR      (re)draw ...".
      const bool same_line = line.size() > kColumn && line.compare(kColumn - 2, 2, "  ") == 0;
      synopsis = line.substr(2, same_line ? kColumn - 2 : std::string::npos);
      synopsis.erase(synopsis.find_last_not_of(' ') + 1);
      if (same_line) text = "  " + line.substr(kColumn) + "\n";
    }
  }
  if (synopsis.empty()) return {};
  return "usage: dalembert " + synopsis + "\n\n" + text + "\n'dalembert --help' lists every command.\n";
}

int usage_error(const std::string& msg) {
  std::fprintf(stderr, "dalembert: %s\n%s", msg.c_str(), kUsage);
  return 2;
}

int cmd_list() {
  Registry reg;
  for (auto kind : {PluginKind::System, PluginKind::Integrator, PluginKind::Impact, PluginKind::Observer,
                    PluginKind::Sampler}) {
    const auto plugins = reg.list(kind);
    std::printf("%ss:\n", to_string(kind));
    if (plugins.empty()) std::printf("  (none)\n");
    for (const auto* p : plugins) std::printf("  %-28s %s\n", p->name.c_str(), p->summary.c_str());
  }
  // Broken files are warnings: list still shows everything that works, and exits 0, so that one
  // bad plugin on the path does not stop scripts from listing the good ones.
  for (const auto& r : reg.refused()) std::fprintf(stderr, "warning: %s %s\n", r.file.c_str(), r.reason.c_str());
  return 0;
}

// `p` in a form two spellings of one folder share: "res/", "./res" and "res" are "res"; "" is ".".
std::filesystem::path as_folder(const std::filesystem::path& p) {
  auto n = p.lexically_normal();
  if (!n.empty() && n.filename().empty()) n = n.parent_path();
  return n.empty() ? "." : n;
}

// The folder each study writes, checked before any runs: every path names a folder of its own,
// and no two studies write the same one (the second would replace the first).
std::vector<std::filesystem::path> output_folders(const std::vector<Study>& studies, const RunOptions& opt) {
  std::vector<std::filesystem::path> out;
  for (std::size_t i = 0; i < studies.size(); ++i) {
    const auto& s = studies[i];
    const bool named = !opt.out_dir || studies.size() > 1;  // the folder is BASE/<study name>
    const auto base = opt.out_dir ? *opt.out_dir : opt.out_root;
    out.push_back(RunFolder::normalize(named ? base / s.name : base));
    if (named && as_folder(out.back().parent_path()) != as_folder(base))  // a name is never a path
      throw InputError(s.file + ": /name", "= \"" + s.name + "\": a study name must name a folder inside " + base.string());
    for (std::size_t k = 0; k < i; ++k)
      if (out[k] == out.back())
        throw InputError(s.file + ": /name", "= \"" + s.name + "\": studies " + studies[k].file + " and " + s.file +
                                                 " would both write " + out.back().string() +
                                                 "; give one of them another \"name\"");
  }
  return out;
}

// A folder named on the command line: its studies are files[first, last).
struct FolderSource {
  std::filesystem::path folder;
  std::size_t first, last;
};

// The run index of one folder: where it goes and what it lists so far.
struct FolderIndex {
  FolderSource source;
  std::filesystem::path file;
  std::vector<cli::IndexEntry> entries;
};

// Every folder's index, checked before anything runs.
std::vector<FolderIndex> plan_indexes(const std::vector<FolderSource>& sources, const std::vector<std::filesystem::path>& folders) {
  std::vector<FolderIndex> out;
  for (const auto& s : sources) {
    const std::vector<std::filesystem::path> mine(folders.begin() + long(s.first), folders.begin() + long(s.last));
    out.push_back({s, cli::index_path(s.folder, mine), {}});
    cli::check_index_writable(out.back().file, folders);
  }
  return out;
}

// Runs study i, then adds it to the index of its folder (if any) and rewrites that index; a
// failed study is indexed too, then the failure goes on.
/// Runs study i and records it in its folder's index; returns the number of its claims that failed.
long run_indexed(const Study& st, const RunOptions& opt, std::vector<FolderIndex>& indexes, std::size_t i) {
  FolderIndex* index = nullptr;
  for (auto& x : indexes)
    if (i >= x.source.first && i < x.source.last) index = &x;
  cli::IndexEntry e{st.name, st.file, *opt.out_dir, "", 0.0};
  long failed = 0;
  try {
    const RunReport r = run_study(st, opt);
    if (!r.rank0) return r.claims_failed;  // rank 0 writes the index
    e.verdict = claims_verdict(r.manifest);
    e.wall = r.manifest.value("wall_time_s", 0.0);
    failed = r.claims_failed;
  } catch (const std::exception& x) {
    if (!index || process_cluster().rank() != 0) throw;
    e.verdict = std::string("run FAILED: ") + x.what();
    index->entries.push_back(e);
    cli::write_index(index->file, index->source.folder, index->entries);
    throw;
  }
  if (!index) return failed;
  index->entries.push_back(e);
  cli::write_index(index->file, index->source.folder, index->entries);
  return failed;
}

int cmd_run(const std::vector<std::string>& args) {
  RunOptions opt;
  std::vector<std::string> files;
  std::vector<FolderSource> sources;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](const char* what) -> std::string {
      if (i + 1 >= args.size()) throw InputError("command line", std::string(a) + " needs " + what);
      return args[++i];
    };
    if (a == "--out") opt.out_dir = value("a folder");
    else if (a == "--threads") {
      const std::string v = value("a number");
      char* end = nullptr;
      const long n = std::strtol(v.c_str(), &end, 10);
      if (*end || n < 0 || n > 1024) throw InputError("command line: --threads", "= " + v + ": expected a whole number >= 0");
      opt.threads = static_cast<int>(n);
    } else if (a == "--no-plots") opt.plots = false;
    else if (a == "--quiet") opt.verbose = false, opt.progress = false;
    else if (a == "--resume") opt.resume = true;
    else if (!a.empty() && a[0] == '-') throw InputError("command line", "unknown option " + a);
    else if (std::filesystem::is_directory(a)) {
      std::vector<std::string> found;
      for (const auto& e : std::filesystem::directory_iterator(a))
        if (e.path().extension() == ".json") found.push_back(e.path().string());
      if (found.empty()) throw InputError("command line: " + a, "the folder holds no study (*.json)");
      std::sort(found.begin(), found.end());
      sources.push_back({a, files.size(), files.size() + found.size()});
      files.insert(files.end(), found.begin(), found.end());
    } else files.push_back(a);
  }
  if (files.empty()) throw InputError("command line", "run needs a study file or folder");
  if (process_cluster().rank() != 0) opt.verbose = false, opt.progress = false;  // rank 0 speaks for the job
  // Check every study before running any, so a typo in the last does not waste the first.
  std::vector<Study> studies;
  for (const auto& f : files) studies.push_back(load_study(f));
  const auto folders = output_folders(studies, opt);
  auto indexes = process_cluster().rank() == 0 ? plan_indexes(sources, folders) : std::vector<FolderIndex>{};
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::string> failing;  // studies whose claims did not all hold (their runs are complete)
  for (std::size_t i = 0; i < studies.size(); ++i) {
    opt.out_dir = folders[i];
    if (run_indexed(studies[i], opt, indexes, i) > 0) failing.push_back(studies[i].name);
  }
  if (process_cluster().rank() != 0) return failing.empty() ? 0 : 3;
  if (studies.size() > 1 && opt.verbose)
    std::printf("%zu studies in %.1f s\n", studies.size(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  if (failing.empty()) return 0;
  std::fprintf(stderr, "error: claims failed in %zu of %zu studies: %s\n", failing.size(), studies.size(),
               joined(failing).c_str());
  return 3;
}

// A JSON value given on the command line, through the studies' strict parser: a one-line error
// naming the option, the place in the text and the problem (no library text).
nlohmann::json parse_json_option(const std::string& option, const std::string& text) {
  return parse_json_text(text, "command line: " + option + " = " + printable(text));
}

// A whole number in [lo, hi] given on the command line.
long long parse_count(const std::string& option, const std::string& text, long long lo, long long hi) {
  char* end = nullptr;
  errno = 0;
  const long long n = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end || errno || n < lo || n > hi)
    throw InputError("command line: " + option, "= " + text + ": expected a whole number in [" + std::to_string(lo) +
                                                    ", " + std::to_string(hi) + "]");
  return n;
}

// --state {"q": [...], "v": [...]} with the system's sizes, on the constraints: v off the constraint
// distribution is not a state the system can be in, and a study refuses it as its initial state
// (README, "Studies"); "project": true moves it there as a study's does.
State parse_state_option(const std::string& text, const System& system, const std::string& name) {
  const auto j = parse_json_option("--state", text);
  const auto layout = system.layout();
  State s;
  auto read = [&](const char* key, std::size_t size) {
    if (!j.is_object() || !j.contains(key) || !j[key].is_array() || j[key].size() != size)
      throw InputError("command line: --state", "= " + text + ": expected {\"q\": [" + std::to_string(layout.q.size()) +
                                                    " numbers], \"v\": [" + std::to_string(layout.v.size()) +
                                                    " numbers]} for system '" + name + "'");
    Vec x(static_cast<Eigen::Index>(size));
    for (std::size_t i = 0; i < size; ++i) {
      if (!j[key][i].is_number())
        throw InputError("command line: --state", "= " + text + ": " + key + "[" + std::to_string(i) + "] is not a number");
      x[static_cast<Eigen::Index>(i)] = j[key][i].get<double>();
    }
    return x;
  };
  s.q = read("q", layout.q.size());
  s.v = read("v", layout.v.size());
  if (j.contains("t")) {
    if (!j["t"].is_number()) throw InputError("command line: --state", "= " + text + ": t is not a number");
    s.t = j["t"].get<double>();
  }
  if (j.contains("project") && !j["project"].is_boolean())
    throw InputError("command line: --state", "= " + text + ": project must be true or false");
  const bool project = j.contains("project") && j["project"].get<bool>();
  if (const ConstraintViolation off = constraint_violation(system, s); off.holonomic > 0) {  // g(q) = 0 (issue 28)
    if (off.ok()) return s;
    if (!project)
      throw InputError("command line: --state", "= " + text + ": the state is off the constraints of system '" + name +
                                                    "': " + off.residuals() + "; give q on g(q) = 0 and v with " +
                                                    "A(q)v = 0, or add \"project\": true to project it onto them");
    const State given = s;
    const bool projected = system.project(s);
    const ConstraintViolation after = constraint_violation(system, s);
    if (!projected || !after.ok())
      throw InputError("command line: --state", "system '" + name + "' could not project the state onto its " +
                                                    "constraints: " + after.residuals() + " after the projection");
    std::printf("%s: state projected onto the constraints (|dq| = %s, |dv| = %s; %s before)\n", name.c_str(),
                number_text((s.q - given.q).lpNorm<Eigen::Infinity>()).c_str(),
                number_text((s.v - given.v).lpNorm<Eigen::Infinity>()).c_str(), off.residuals().c_str());
    return s;
  }
  const double residual = system.constraint_residual(s), tol = constraint_tolerance(s);
  if (residual <= tol) return s;
  if (!project)
    throw InputError("command line: --state", "= " + text + ": |A(q)v| = " + number_text(residual) + " > " +
                                                  number_text(tol) + ": the velocities are off the constraint " +
                                                  "distribution of system '" + name + "' at this q; give v with " +
                                                  "A(q)v = 0, or add \"project\": true to project it onto the constraints");
  if (!system.project(s))
    throw InputError("command line: --state", "system '" + name + "' cannot project a state onto its constraints");
  return s;
}

// A system with no Lagrangian model (e.g. the rigid-body systems of seed 003) has no derivatives to
// check: at its example states (or --state), the state's sizes match its layout, the energy is
// finite and the state lies on its constraints. One row per example; exit 1 on a finding.
int check_example_states(const Registry& reg, const std::string& name, const nlohmann::json& params,
                         const std::string* state_text) {
  std::vector<PluginExample> examples = reg.find(PluginKind::System, name, "check").examples;
  if (state_text || !params.empty() || examples.empty()) {
    const auto system = reg.make_system(name, params, "check");
    if (!state_text)
      throw InputError("check", "system '" + name + "' has no Lagrangian model (no derivatives to check) and " +
                                    "declares no example state: give one with --state");
    examples = {PluginExample{"--state", params, parse_state_option(*state_text, *system, name), 0.0}};
  }
  std::printf("%s: no Lagrangian model (no derivatives to check); its example states:\n", name.c_str());
  int findings = 0;
  for (const auto& e : examples) {
    const auto system = reg.make_system(name, e.params, "check");
    const Layout lay = system->layout();
    std::string finding;
    const double energy = system->energy(e.state), residual = system->constraint_residual(e.state);
    if (e.state.q.size() != static_cast<Eigen::Index>(lay.q.size()) || e.state.v.size() != static_cast<Eigen::Index>(lay.v.size()))
      finding = "q has " + std::to_string(e.state.q.size()) + " entries, v " + std::to_string(e.state.v.size()) +
                "; the layout names " + std::to_string(lay.q.size()) + " and " + std::to_string(lay.v.size());
    else if (!std::isfinite(energy)) finding = "energy " + number_text(energy);
    else if (!(residual <= constraint_tolerance(e.state)))
      finding = "constraint residual " + number_text(residual) + " > " + number_text(constraint_tolerance(e.state));
    std::printf("  %-16s energy %-14s constraint residual %-10s %s\n", e.label.empty() ? "(default)" : e.label.c_str(),
                number_text(energy).c_str(), number_text(residual).c_str(), finding.empty() ? "ok" : finding.c_str());
    findings += !finding.empty();
  }
  if (findings == 0) std::printf("%s: all checks passed\n", name.c_str());
  return findings == 0 ? 0 : 1;
}

int cmd_check(const std::vector<std::string>& args) {
  std::string name;
  nlohmann::json params = nlohmann::json::object();
  std::optional<std::string> state_text;
  DerivativeCheckOptions opt;
  opt.flow = true;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](const char* what) -> std::string {
      if (i + 1 >= args.size()) throw InputError("command line", a + " needs " + what);
      return args[++i];
    };
    if (a == "--params") {
      const std::string text = value("a JSON object");
      params = parse_json_option("--params", text);
      if (!params.is_object()) throw InputError("command line: --params", "= " + text + ": expected a JSON object");
    } else if (a == "--state") state_text = value("a JSON object");
    else if (a == "--samples") opt.samples = static_cast<int>(parse_count("--samples", value("a number"), 0, 100000));
    else if (a == "--seed")
      opt.seed = static_cast<std::uint64_t>(parse_count("--seed", value("a number"), 0, 9223372036854775807LL));
    else if (!a.empty() && a[0] == '-') throw InputError("command line", "unknown option " + a);
    else if (name.empty()) name = a;
    else throw InputError("command line", "check takes one plugin, got '" + name + "' and '" + a + "'");
  }
  if (name.empty()) throw InputError("command line", "check needs a plugin name");
  Registry reg;
  // A plugin of another kind (not also a system): the conformance suite's table.
  const auto found = reg.find_any(name);
  if (found.empty()) {  // every kind's names: check takes any plugin
    std::string known;
    for (PluginKind k : {PluginKind::System, PluginKind::Integrator, PluginKind::Observer, PluginKind::Impact,
                         PluginKind::Sampler}) {
      std::vector<std::string> names;
      for (const auto* d : reg.list(k)) names.push_back(d->name);
      if (!names.empty()) known += std::string(known.empty() ? "" : "; ") + to_string(k) + "s: " + joined(names, ", ");
    }
    throw InputError("check", "unknown plugin '" + name + "'; " + (known.empty() ? "no plugin found" : known));
  }
  if (!found.empty() && std::none_of(found.begin(), found.end(), [](auto* d) { return d->kind == PluginKind::System; })) {
    if (state_text || opt.samples != DerivativeCheckOptions{}.samples || opt.seed != DerivativeCheckOptions{}.seed)
      throw InputError("command line", std::string("--state, --samples and --seed apply to a system, not to ") +
                                           to_string(found.front()->kind) + " plugin '" + name + "'");
    const PluginKind kind = found.front()->kind;
    // A crashing constructor is named: the given parameters, else every declared example's.
    std::vector<PluginConstruction> uses;
    for (const auto& e : found.front()->examples) uses.push_back({kind, name, e.params, "check"});
    if (!params.empty() || uses.empty()) uses = {{kind, name, params, "check"}};
    probe_constructions(reg, uses);
    const CrashContext crash(std::string("check: ") + to_string(kind) + " '" + name + "' " + params.dump());
    return cli::check_plugin(reg, kind, name,
                             params.empty() ? std::nullopt : std::optional<nlohmann::json>(params));
  }
  probe_constructions(reg, {{PluginKind::System, name, params, "check"}});  // a crashing constructor is named
  const CrashContext crash("check: system '" + name + "' " + params.dump());
  const auto system = reg.make_system(name, params, "check");
  const auto* lagrangian = dynamic_cast<const LagrangianSystem*>(system.get());
  if (!lagrangian) return check_example_states(reg, name, params, state_text ? &*state_text : nullptr);
  // Which state the checks are around, said first: --state, else the system's first declared
  // example state (PluginDescriptor::examples, a regular point: polar coordinates are singular at
  // the origin), else the origin.
  std::string around = "the origin (the system declares no example state)";
  if (state_text) {
    opt.state = parse_state_option(*state_text, *system, name);
    around = "--state";
  } else if (const auto& examples = reg.find(PluginKind::System, name, "check").examples; !examples.empty()) {
    opt.state = examples.front().state;
    around = "its first example state" + (examples.front().label.empty() ? std::string() : " '" + examples.front().label + "'");
  }
  std::printf("%s: checked around %s and %d random states near it (--samples)\n", name.c_str(), around.c_str(),
              opt.samples);
  const auto result = check_derivatives(*lagrangian, opt);
  const std::string text = format_check_result(name, result);
  std::fwrite(text.data(), 1, text.size(), stdout);
  if (result.ok()) std::printf("%s: all checks passed\n", name.c_str());
  return result.ok() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  // A write past a file-size limit (ulimit -f) fails with EFBIG, which the file writers report as
  // the run's one error line, instead of killing the process with SIGXFSZ.
  std::signal(SIGXFSZ, SIG_IGN);
  install_crash_report();  // a plugin that crashes the process is named (study/crash_report.hpp)
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) return usage_error("no command given");
  const std::string cmd = args[0];
  args.erase(args.begin());
  try {
    if (cmd == "--help" || cmd == "-h" || cmd == "help") {
      std::printf("%s", kUsage);
      return 0;
    }
    if (cmd == "--version") {
      std::printf("dalembert %s (revision %s, plugin ABI %d, plugin source API %d)\n", version(), source_revision(),
                  abi_version, api_version);
      return 0;
    }
    // `dalembert COMMAND --help`: the command's usage, exit 0, whatever else is on the line.
    if (const std::string usage = command_usage(cmd);
        !usage.empty() &&
        std::find_if(args.begin(), args.end(), [](const std::string& a) { return a == "--help" || a == "-h"; }) != args.end()) {
      std::printf("%s", usage.c_str());
      return 0;
    }
    if (cmd == "run") return cmd_run(args);
    if (cmd == "list") return cmd_list();
    if (cmd == "check") return cmd_check(args);
    if (cmd == "describe") {
      if (args.size() != 1) return usage_error("describe needs exactly one plugin name");
      return cli::describe(args[0]);
    }
    if (cmd == "animate") {
      if (args.empty()) return usage_error("animate needs a run folder");
      animate_run(args);
      return 0;
    }
    if (cmd == "plot") {
      if (args.size() != 1) return usage_error("plot needs exactly one run folder");
      for (const auto& f : draw_figures(args[0])) std::printf("%s\n", f.c_str());
      return 0;
    }
    return usage_error("unknown command '" + cmd + "'");
  } catch (const FailedOnRank0&) {
    return 1;  // an MPI job's other rank: rank 0 has said why
  } catch (const std::bad_alloc&) {
    return fail("out of memory in 'dalembert " + cmd + "' (std::bad_alloc)");
  } catch (const std::exception&) {
    return fail(exception_text(std::current_exception()));  // a library's failure in words
  } catch (...) {  // e.g. a plugin throwing an int: never let it reach std::terminate (SIGABRT)
    return fail("'dalembert " + cmd + "' was stopped by an exception of unknown type (not derived from "
                "std::exception), most likely thrown by a plugin");
  }
}
