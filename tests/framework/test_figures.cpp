// Figure specs through the `dalembert` CLI: every key's type, the figure type of the study kind,
// the integrator labels and the columns a figure names are checked before anything runs (one line
// "error: FILE: /figures/I/KEY = VALUE: ..."), and a run that draws its figures records each
// figure's panel count in the manifest; a figure that fails after the run is named with its cause.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_support.hpp"  // tests/
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
