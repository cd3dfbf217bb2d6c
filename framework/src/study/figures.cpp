// Figures of a run folder: the plotting program (dalembert/plot.py: python3 + matplotlib) started
// with an argument vector, its failures named figure by figure, the figures indexed in the manifest.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dalembert/core/error_text.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/study/figure_schema.hpp>
#include <dalembert/study/process.hpp>
#include <dalembert/study/runner.hpp>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using nlohmann::json;

namespace dalembert {

// The module dalembert.plot of the package found by python_package_root(), started as a file: it
// then imports itself from its package (never from the current folder).
fs::path plot_script() {
  if (const char* env = std::getenv("DALEMBERT_PLOT_SCRIPT")) return env;
  return python_package_root() / "dalembert" / "plot.py";
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

// Seconds the plotter may take: $DALEMBERT_FIGURE_TIMEOUT, default 600 (a figure of a long run
// takes seconds; a plotter stuck on a pathological figure must not hold the run for ever).
double figure_timeout() {
  const char* env = std::getenv("DALEMBERT_FIGURE_TIMEOUT");
  if (!env || !*env) return 600.0;
  char* end = nullptr;
  const double s = std::strtod(env, &end);
  if (*end || !(s > 0) || !std::isfinite(s))
    throw Error(std::string("DALEMBERT_FIGURE_TIMEOUT = '") + env + "': expected a number of seconds > 0");
  return s;
}

// A folder of its own for matplotlib's cache and configuration (MPLCONFIGDIR), removed when the
// plotter is done: a run writes nothing into $HOME, and leaves nothing in the run folder. A
// MPLCONFIGDIR the user set is theirs, and kept.
class MatplotlibFolder {
 public:
  MatplotlibFolder() {
    if (const char* env = std::getenv("MPLCONFIGDIR"); env && *env) return;
    std::error_code ec;
    const fs::path tmp = fs::temp_directory_path(ec);
    std::string pattern = (tmp / "dalembert-matplotlib-XXXXXX").string();
    if (ec || !::mkdtemp(pattern.data()))
      throw Error("cannot create a folder for matplotlib in the temporary folder " + tmp.string() + " ($TMPDIR): " +
                  (ec ? ec.message() : std::strerror(errno)));
    folder_ = pattern;
  }
  ~MatplotlibFolder() {
    std::error_code ec;
    if (!folder_.empty()) fs::remove_all(folder_, ec);
  }
  MatplotlibFolder(const MatplotlibFolder&) = delete;
  MatplotlibFolder& operator=(const MatplotlibFolder&) = delete;
  /// What the plotter's environment gets.
  std::vector<std::string> environment() const {
    return folder_.empty() ? std::vector<std::string>{} : std::vector<std::string>{"MPLCONFIGDIR=" + folder_.string()};
  }

 private:
  fs::path folder_;
};

// The files a killed plotter was writing (it writes each figure as NAME.EXT.partial, then renames it).
void remove_partial_figures(const fs::path& figures) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(figures, ec))
    if (e.path().extension() == ".partial" && e.is_regular_file(ec)) fs::remove(e.path(), ec);
}

}  // namespace

std::vector<fs::path> draw_figures(const fs::path& folder, json* index) {
  const fs::path script = plot_script();
  if (!fs::exists(script)) throw Error("plotting script not found: " + script.string());
  // An argument vector, never a shell: a quote in a study name or a folder stays a quote.
  const double timeout = figure_timeout();
  const MatplotlibFolder matplotlib;
  // No bytecode cache written beside the package (the source tree, an installed prefix): a run
  // writes into its own folder only.
  std::vector<std::string> environment = matplotlib.environment();
  environment.push_back("PYTHONDONTWRITEBYTECODE=1");
  ProcessResult r;
  try {
    r = run_process({python_interpreter(), script.string(), folder.string()}, {timeout, environment});
  } catch (const Error& e) {
    throw Error(std::string(e.what()) + " (figures need python3 with matplotlib: apt-get install python3-matplotlib)");
  }
  if (r.timed_out) remove_partial_figures(folder / "figures");
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
  json drawn = json::array();
  std::error_code ec;
  if (fs::exists(index_file, ec)) {
    try {
      std::ifstream in(index_file);
      const json j = json::parse(in);
      if (j.contains("figures")) drawn = j["figures"];
    } catch (const std::exception&) {
      // a torn index only loses the panel counts; the figures are listed below
    }
    fs::remove(index_file, ec);
  }
  if (index) *index = drawn;
  if (!r.ok()) {
    std::string cause;
    for (std::size_t i = 0; i < failures.size() && i < 3; ++i) cause += (cause.empty() ? "" : "; ") + failures[i];
    if (failures.size() > 3) cause += "; and " + std::to_string(failures.size() - 3) + " more";
    if (cause.empty()) cause = last_lines(r.stderr_text, 3);
    if (r.stderr_text.find("No module named 'matplotlib'") != std::string::npos)
      cause = "python3 has no matplotlib (apt-get install python3-matplotlib)";
    if (r.timed_out)
      throw Error("drawing the figures took longer than " + number_text(timeout, "%g") +
                  " s (DALEMBERT_FIGURE_TIMEOUT) and the plotter was stopped, after " + std::to_string(drawn.size()) +
                  " figure(s) (the data are complete)" + (cause.empty() ? "" : ": " + cause));
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

void animate_run(const std::vector<std::string>& arguments) {
  const fs::path script = python_package_root() / "dalembert" / "animation.py";
  if (!fs::exists(script)) throw Error("animation script not found: " + script.string());
  const double timeout = figure_timeout();
  const MatplotlibFolder matplotlib;
  std::vector<std::string> environment = matplotlib.environment();
  environment.push_back("PYTHONDONTWRITEBYTECODE=1");
  std::vector<std::string> argv = {python_interpreter(), script.string()};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  ProcessResult r;
  try {
    r = run_process(argv, {timeout, environment});
  } catch (const Error& e) {
    throw Error(std::string(e.what()) + " (animations need python3 with matplotlib: apt-get install python3-matplotlib)");
  }
  if (r.ok()) return;
  std::string cause = last_lines(r.stderr_text, 1);
  if (cause.rfind("error: ", 0) == 0) cause = cause.substr(7);  // the animator's own one line
  if (r.stderr_text.find("No module named 'matplotlib'") != std::string::npos)
    cause = "python3 has no matplotlib (apt-get install python3-matplotlib)";
  if (r.timed_out)
    throw Error("the animation took longer than " + number_text(timeout, "%g") +
                " s (DALEMBERT_FIGURE_TIMEOUT) and the animator was stopped");
  throw Error(cause.empty() ? "the animator failed (" + r.status() + ")" : cause);
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

}  // namespace dalembert
