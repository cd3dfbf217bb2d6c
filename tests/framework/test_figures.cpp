// Figure specs through the `dalembert` CLI: every key's type, the figure type of the study kind,
// the integrator labels and the columns a figure names are checked before anything runs (one line
// "error: FILE: /figures/I/KEY = VALUE: ..."), and a run that draws its figures records each
// figure's panel count in the manifest; a figure that fails after the run is named with its cause.
#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_process.hpp"  // tests/
#include "cli_support.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using dalembert::test::check_one_line_error;
using dalembert::test::quote;
using dalembert::test::run_cli;
using dalembert::test::StudyCase;
using dalembert::test::write_text;

namespace {

// A small trajectory study of the nonholonomic particle (2 steps) writing t, energy_error,
// constraint_residual.
json particle_study() {
  json j;
  j["name"] = "figures";
  j["kind"] = "trajectory";
  j["system"] = {{"plugin", "nonholonomic_particle"}};
  j["initial"] = {{"q", {1, 1, -1}}, {"v", {1, -1, 1}}};
  j["h"] = 0.1;
  j["T"] = 0.2;
  j["integrators"] = json::array({{{"label", "DLA"}, {"plugin", "nonholonomic_newmark"},
                                   {"params", {{"beta", 0}, {"beta_prime", 0}, {"alpha", 0.5}}},
                                   {"display", "F^{0,0,1/2}"}},
                                  {{"label", "RK4"}, {"plugin", "rk4"}}});
  return j;
}

json read_manifest(const fs::path& dir) {
  std::ifstream in(dir / "manifest.json");
  return json::parse(in);
}

}  // namespace

TEST_CASE("a figure naming a column no task writes is refused before anything runs", "[cli][figures]") {
  StudyCase c("figure_column");
  SECTION("figure y") {
    json j = particle_study();
    j["figures"] = {{{"name", "energy"}, {"type", "timeseries"}, {"y", "energy_eror"}}};
    const auto r = c.run(j);
    check_one_line_error(r, {c.file.string() + ": /figures/0/y", "= \"energy_eror\"", "figure \"energy\"",
                             "not a column of trajectory_DLA.csv", "its columns are: t, energy, energy_error, constraint_residual"});
  }
  SECTION("a panel's y, restricted to one task") {
    json j = particle_study();
    j["figures"] = {{{"name", "energy"}, {"type", "timeseries"},
                     {"panels", {{{"y", "energy_error"}}, {{"y", "energy_half"}, {"tasks", {"RK4"}}}}}}};
    const auto r = c.run(j);
    check_one_line_error(r, {c.file.string() + ": /figures/0/panels/1/y", "= \"energy_half\"",
                             "not a column of trajectory_RK4.csv"});
  }
  SECTION("a path's x") {
    json j = particle_study();
    j["figures"] = {{{"name", "path"}, {"type", "path"}, {"x", "x"}, {"y", "energy_error"}}};
    const auto r = c.run(j);
    check_one_line_error(r, {c.file.string() + ": /figures/0/x", "= \"x\"", "not a column of trajectory_DLA.csv"});
  }
  SECTION("a convergence figure's y is a column of convergence.csv") {
    json j = particle_study();
    j["kind"] = "convergence";
    j["h"] = {0.1, 0.05};
    j["reference"] = "exact";
    j["figures"] = {{{"name", "conv"}, {"type", "convergence"}, {"y", "error"}}};
    const auto r = c.run(j);
    check_one_line_error(r, {c.file.string() + ": /figures/0/y", "= \"error\"", "not a column of convergence.csv",
                             "error_qv"});
  }
  c.check_no_result();
}

TEST_CASE("figure keys have their types, tasks are labels, types fit the study kind", "[cli][figures]") {
  StudyCase c("figure_keys");
  json j = particle_study();
  json fig = {{"name", "energy"}, {"type", "timeseries"}, {"y", "energy_error"}};
  std::vector<std::string> needles;
  SECTION("a boolean") {
    fig["logy"] = "yes";
    needles = {": /figures/0/logy", "= \"yes\""};
  }
  SECTION("limits are two numbers") {
    fig["ylim"] = {0, 1, 2};
    needles = {": /figures/0/ylim", "two numbers"};
  }
  SECTION("a string") {
    fig["title"] = 3;
    needles = {": /figures/0/title", "= 3"};
  }
  SECTION("tasks name integrator labels") {
    fig["tasks"] = {"DLA", "RK2"};
    needles = {": /figures/0/tasks/1", "= \"RK2\"", "the labels are: DLA, RK4"};
  }
  SECTION("a type the kind draws") {
    fig["type"] = "convergence";
    needles = {": /figures/0/type", "this study kind draws figures of type timeseries"};
  }
  SECTION("a key its type needs") {
    fig.erase("y");
    needles = {": /figures/0", "needs \"y\""};
  }
  SECTION("an integrator's display name is a string") {
    j["integrators"][0]["display"] = 1;
    needles = {": /integrators/0/display", "= 1"};
  }
  j["figures"] = {fig};
  const auto r = c.run(j);
  needles.insert(needles.begin(), c.file.string());
  check_one_line_error(r, needles);
  c.check_no_result();
}

TEST_CASE("figures drawn are indexed with their panel counts, and a failing one is named with its cause", "[cli][figures]") {
  StudyCase c("figure_panels");
  json j = particle_study();
  j["figures"] = {{{"name", "energy"}, {"type", "timeseries"},
                   {"panels", {{{"y", "energy_error"}}, {{"y", "energy_error"}, {"abs", true}, {"logy", true}},
                               {{"y", "constraint_residual"}, {"logy", true}}}}},
                  {{"name", "one"}, {"type", "timeseries"}, {"y", "constraint_residual"}, {"logx", true}}};
  SECTION("all drawn") {
    write_text(c.file, j.dump(2));
    const auto r = run_cli("run " + quote(c.file.string()) + " --out " + quote(c.out.string()) + " --quiet", c.dir.path());
    INFO(r.err);
    REQUIRE(r.status == 0);
    const json m = read_manifest(c.out);
    CHECK(m["figures_status"] == "ok");
    REQUIRE(m["figures"].size() == 2);
    CHECK(m["figures"][0]["name"] == "energy");
    CHECK(m["figures"][0]["panels"] == 3);
    CHECK(m["figures"][1]["panels"] == 1);
    CHECK(m["study"]["integrators"][0]["display"] == "F^{0,0,1/2}");
    for (const char* f : {"energy.png", "energy.svg", "one.png", "one.svg"}) CHECK(fs::file_size(c.out / "figures" / f) > 0);
    CHECK_FALSE(fs::exists(c.out / "figures" / "index.json"));
    CHECK(std::distance(fs::directory_iterator(c.out / "figures"), fs::directory_iterator()) == 4);  // no .partial
  }
  SECTION("a summary the tasks do not have (known only after the run)") {
    j["figures"].push_back({{"name", "orders"}, {"type", "summary"}, {"y", "no_such_summary"}});
    write_text(c.file, j.dump(2));
    const auto r = run_cli("run " + quote(c.file.string()) + " --out " + quote(c.out.string()) + " --quiet", c.dir.path());
    INFO(r.err);
    REQUIRE(r.status == 0);  // the data are complete: a figure is a warning
    CHECK(r.err.find("warning: 1 figure could not be drawn") != std::string::npos);
    CHECK(r.err.find("figure orders: ValueError: no task has the summary 'no_such_summary'") != std::string::npos);
    CHECK(r.err.find("matplotlib") == std::string::npos);
    const json m = read_manifest(c.out);
    CHECK(m["figures"].size() == 2);  // the two that were drawn
    CHECK(fs::exists(c.out / "figures" / "energy.png"));
  }
}

namespace {

// Whether process `pid` runs (a zombie, killed and not yet reaped by init, does not).
bool running(long pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const auto close = line.rfind(')');  // "pid (comm) S ...": the state follows the command name
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] != 'Z';
}

}  // namespace

// Issue 26: the plotter had no time limit. A fake plotter ($DALEMBERT_PLOT_SCRIPT) that starts a
// child and sleeps stands for one stuck on a figure; the CLI runs under a 60 s alarm, so that a
// missing timeout fails the test instead of holding it for the plotter's 300 s.
TEST_CASE("a plotter past DALEMBERT_FIGURE_TIMEOUT is stopped with what it started, the figure fails, the data stay",
          "[cli][figures]") {
  dalembert::test::TempDir dir("figure_timeout");
  write_text(dir / "slow_plot.py",
             "import os, subprocess, sys, time\n"
             "child = subprocess.Popen(['sleep', '300'])\n"
             "with open(os.environ['SLOW_PLOT_RECORD'], 'w') as f:\n"
             "    f.write(f\"{os.getpid()} {child.pid} {os.environ.get('MPLCONFIGDIR', '')}\\n\")\n"
             "time.sleep(300)\n");
  json j = particle_study();
  j["figures"] = {{{"name", "energy"}, {"type", "timeseries"}, {"y", "energy_error"}}};
  write_text(dir / "study.json", j.dump(2));
  const auto start = std::chrono::steady_clock::now();
  const auto r = dalembert::test::run_dalembert(
      {"run", "study.json", "--out", "res", "--quiet"},
      {dir.path(), -1, 60,
       {"DALEMBERT_PLOT_SCRIPT=" + (dir / "slow_plot.py").string(), "DALEMBERT_FIGURE_TIMEOUT=2",
        "SLOW_PLOT_RECORD=" + (dir / "plotter.txt").string(), "MPLCONFIGDIR="}});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(r.err);
  REQUIRE(r.signal == 0);
  CHECK(r.status == 0);  // the data are complete: a figure that fails is a warning
  CHECK(seconds < 30);   // 2 s of plotting, and the run
  CHECK(r.err.find("warning: drawing the figures took longer than 2 s (DALEMBERT_FIGURE_TIMEOUT) and the plotter "
                   "was stopped, after 0 figure(s) (the data are complete)") != std::string::npos);
  const json m = read_manifest(dir / "res");
  CHECK(m["figures_status"].get<std::string>().rfind("failed: drawing the figures took longer than 2 s", 0) == 0);
  CHECK(m["figures"].empty());
  CHECK(fs::file_size(dir / "res" / "trajectory_DLA.csv") > 0);
  // The plotter and the child it started are gone, and so is its matplotlib folder.
  std::ifstream record(dir / "plotter.txt");
  long plotter = 0, child = 0;
  std::string mplconfigdir;
  REQUIRE(record >> plotter >> child >> mplconfigdir);
  CHECK_FALSE(running(plotter));
  CHECK_FALSE(running(child));
  CHECK(mplconfigdir.find("dalembert-matplotlib-") != std::string::npos);
  CHECK_FALSE(fs::exists(mplconfigdir));
}

// Issue 26: matplotlib wrote its font cache into $HOME (~/.cache/matplotlib). It now gets a folder
// of its own (MPLCONFIGDIR) in the temporary folder, removed afterwards: $HOME, TMPDIR and the run
// folder hold nothing of it (dalembert's own cache, ~/.cache/dalembert, aside).
TEST_CASE("drawing figures writes nothing into $HOME and leaves no matplotlib folder behind", "[cli][figures]") {
  dalembert::test::TempDir dir("matplotlib_home");
  fs::create_directories(dir / "home");
  fs::create_directories(dir / "tmp");
  json j = particle_study();
  j["figures"] = {{{"name", "energy"}, {"type", "timeseries"}, {"y", "energy_error"}}};
  write_text(dir / "study.json", j.dump(2));
  const auto r = dalembert::test::run_dalembert(
      {"run", "study.json", "--out", "res", "--quiet"},
      {dir.path(), -1, 120,
       {"HOME=" + (dir / "home").string(), "TMPDIR=" + (dir / "tmp").string(), "MPLCONFIGDIR=", "XDG_CACHE_HOME=",
        "XDG_CONFIG_HOME="}});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(read_manifest(dir / "res")["figures_status"] == "ok");
  CHECK(fs::file_size(dir / "res" / "figures" / "energy.png") > 0);
  for (const char* folder : {"home", "tmp"}) {
    INFO(folder);
    std::vector<std::string> left;
    // dalembert's own cache folder (README "Plugins": the probed plugins and file hashes) is the one
    // thing a run keeps in $HOME, where the XDG base directory rules put caches
    const fs::path own_cache = dir / "home" / ".cache";
    for (const auto& e : fs::recursive_directory_iterator(dir / folder)) {
      const std::string p = e.path().string();
      if (p == own_cache.string() || p.rfind((own_cache / "dalembert").string(), 0) == 0) continue;
      left.push_back(p);
    }
    CHECK(left.empty());
  }
  for (const auto& e : fs::recursive_directory_iterator(dir / "res")) {
    INFO(e.path());
    CHECK(e.path().filename().string().find("matplotlib") == std::string::npos);
    CHECK(e.path().extension() != ".partial");
  }
}
