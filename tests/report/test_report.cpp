// report.md, the folder run index, describe, COMMAND --help and unique CSV columns (issue 15).
#include <catch2/catch.hpp>
#include <map>
#include <dalembert/core/errors.hpp>
#include <dalembert/plugin/abi.hpp>
#include <dalembert/study/report.hpp>
#include <dalembert/study/runner.hpp>
#include <dalembert/study/study_plan.hpp>
#include <dalembert/study/simulation.hpp>
#include <set>

#include "cli_process.hpp"
#include "support.hpp"
#include "temp_dir.hpp"

using namespace dalembert;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// fig1_particle shortened to T = 2 (the report does not depend on the horizon).
fs::path short_fig1(const fs::path& dir) {
  auto j = json::parse(test::read_text(fs::path(DALEMBERT_SOURCE_DIR) / "studies/newmark/fig1_particle.json"));
  j["T"] = 2.0;
  j.erase("claims");
  fs::create_directories(dir);
  test::write_text(dir / "fig1_particle.json", j.dump());
  return dir / "fig1_particle.json";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("report.md of a run without figures: what ran, the claims table, the provenance", "[report]") {
  test::TempDir tmp("report");
  const auto r = test::run_bundled_study("studies/newmark/fig1_particle.json", tmp.path() / "fig1");
  const std::string md = test::read_text(tmp.path() / "fig1" / "report.md");
  CHECK(contains(md, "# fig1_particle\n"));
  CHECK(contains(md, "Seed 000, Figure 1"));
  CHECK(contains(md, "System `nonholonomic_particle`"));
  CHECK(contains(md, "| DLA | `nonholonomic_newmark` | 2 |"));
  CHECK(contains(md, "h = 0.2, T = 100"));
  CHECK(contains(md, "| id | source | claim | quantity | value | comparison | verdict |"));
  CHECK(contains(md, std::string("revision `") + source_revision() + "`"));
  CHECK(contains(md, "`fig1_energy`: not drawn (skipped (--no-plots))"));  // no figure link without a figure
  CHECK_FALSE(contains(md, "](figures/"));
  CHECK(contains(md, "| DLA | 0.2 | 500 | final_energy_error = 0.00124608"));
  bool indexed = false;
  for (const auto& f : r.manifest["files"]) indexed = indexed || f["path"] == "report.md";
  CHECK(indexed);
}

TEST_CASE("report.md links drawn figures and renders claim verdicts", "[report]") {
  const json m = {
      {"study", {{"name", "s"}, {"kind", "convergence"}, {"figures", {{{"name", "fig_a"}}, {{"name", "fig_b"}}}}}},
      {"files", {{{"path", "figures/fig_a.png"}, {"kind", "figure"}}}},
      {"figures_status", "ok"},
      {"convergence", {{{"label", "MLA"}, {"declared_order", 2}, {"fitted_order", 2.0003}, {"successive_orders", {2.0, 2.001}},
                        {"status", "fitted"}, {"agrees", true}}}},
      {"claims", {{"passed", 1}, {"failed", 1}, {"results", {
          {{"id", "order_mla"}, {"source", "spec 002 claim 17"}, {"text", "MLA is of order 2"}, {"quantity", "fitted order of MLA"},
           {"value", 2.0003}, {"comparison", "within 0.05 of 2"}, {"verdict", "pass"}},
          {{"id", "x"}, {"source", "s"}, {"text", "t"}, {"quantity", "q"}, {"value", 1.0}, {"comparison", "< 0.5"}, {"verdict", "FAIL"},
           {"reason", "1 not < 0.5"}}}}}},
      {"dalembert", {{"version", "9.9"}, {"revision", "abc123"}}}};
  const std::string md = report_markdown(m);
  CHECK(contains(md, "![fig_a](figures/fig_a.png)"));
  CHECK(contains(md, "`fig_b`: not drawn"));
  CHECK(contains(md, "| order_mla | spec 002 claim 17 | MLA is of order 2 | fitted order of MLA | 2.0003 | within 0.05 of 2 | **pass** |"));
  CHECK(contains(md, "| q | 1 | < 0.5 | **FAIL**: 1 not < 0.5 |"));
  CHECK(contains(md, "Verdict: **1 of 2 claims FAILED**"));
  CHECK(contains(md, "| MLA | 2 | 2.0003 | 2 2.001 | fitted | yes |"));
  CHECK(contains(md, "revision `abc123`"));
  CHECK(claims_verdict(json::object()) == "no checked claims");
}

// Issue 26: a sweep's report showed "—" for every order and parameter (it read the sweep file,
// where neither is); it shows cell 0's study as it ran, each place an axis sets marked, and the
// declared orders of the cells.
TEST_CASE("report.md of a sweep shows the integrators' orders and parameters, the swept ones marked", "[report][sweep]") {
  test::TempDir tmp("sweep_report");
  const json sweep = {
      {"name", "sweep_report"},
      {"kind", "sweep"},
      {"sweep", {{"of", "trajectory"},
                 {"axes", {{{"name", "alpha"}, {"set", {"/integrators/0/params/alpha"}}, {"values", {0.5, 0.25}}}}}}},
      {"system", {{"plugin", "nonholonomic_particle"}}},
      {"initial", {{"q", {1, 1, -1}}, {"v", {1, -1, 1}}}},
      {"h", 0.1},
      {"T", 1},
      {"integrators", {{{"label", "F"}, {"plugin", "nonholonomic_newmark"}, {"params", {{"beta", 0}, {"beta_prime", 0}, {"alpha", 0.5}}}},
                       {{"label", "RK4"}, {"plugin", "rk4"}}}}};
  const auto r = test::run_quietly(parse_study(sweep, "s.json"), tmp.path() / "run");
  const std::string md = test::read_text(tmp.path() / "run" / "report.md");
  INFO(md);
  // F^{0,0,1/2} is of order 2, F^{0,0,1/4} of order 1 (nonholonomic_newmark's traits).
  CHECK(contains(md, "| F | `nonholonomic_newmark` | 1 or 2 (by cell) | `{\"alpha\":\"swept (alpha)\",\"beta\":0,"));
  CHECK(contains(md, "| RK4 | `rk4` | 4 | `{\"compiled\":true}` |"));  // every parameter, defaults included
  CHECK(contains(md, "System `nonholonomic_particle` with parameters `{}`"));
  CHECK(contains(md, "h = 0.1, T = 1"));
  CHECK_FALSE(contains(md, "—"));
  const auto& f = r.manifest.at("study").at("integrators").at(0);
  CHECK(f.at("declared_orders") == json({1, 2}));
  CHECK(f.at("params").at("alpha") == 0.5);  // the manifest keeps cell 0's value
}

TEST_CASE("dalembert run FOLDER writes an index linking every report, and a foreign index file is refused", "[report][cli]") {
  test::TempDir tmp("index");
  short_fig1(tmp.path() / "mine");
  const auto r = test::run_dalembert({"run", "mine", "--out", "out", "--no-plots", "--quiet"}, {tmp.path()});
  REQUIRE(r.status == 0);
  const std::string index = test::read_text(tmp.path() / "mine_index.md");
  CHECK(contains(index, "dalembert run index"));
  CHECK(contains(index, "| no checked claims | [report.md](out/report.md) |"));
  CHECK(fs::exists(tmp.path() / "out" / "report.md"));
  // Not dalembert's: refused before anything runs, and left as it was.
  test::write_text(tmp.path() / "mine_index.md", "my notes\n");
  fs::remove_all(tmp.path() / "out");
  const auto refused = test::run_dalembert({"run", "mine", "--out", "out", "--no-plots", "--quiet"}, {tmp.path()});
  CHECK(refused.status == 1);
  CHECK(contains(refused.err, "was not written by dalembert"));
  CHECK(test::read_text(tmp.path() / "mine_index.md") == "my notes\n");
  CHECK_FALSE(fs::exists(tmp.path() / "out"));
}

TEST_CASE("describe shows a system's layout, sizes and models, and suggests the nearest name", "[report][cli]") {
  test::TempDir tmp("describe");
  const auto r = test::run_dalembert({"describe", "nonholonomic_particle"}, {tmp.path()});
  REQUIRE(r.status == 0);
  CHECK(contains(r.out, "q (3): x, y, z"));
  CHECK(contains(r.out, "v (3): xdot, ydot, zdot"));
  CHECK(contains(r.out, "n = 3, r = 1"));
  CHECK(contains(r.out, "models: ConstrainedLagrangian"));
  CHECK(contains(r.out, "exact solution: yes"));
  CHECK(contains(r.out, "framework: plugin ABI " + std::to_string(abi_version) + ", plugin source API " +
                            std::to_string(api_version) + " (README: Migration notes)"));
  const auto integ = test::run_dalembert({"describe", "rk4"}, {tmp.path()});
  CHECK(contains(integ.out, "order 4, explicit"));
  const auto typo = test::run_dalembert({"describe", "nonholonomic_partcle"}, {tmp.path()});
  CHECK(typo.status == 1);
  CHECK(contains(typo.err, "did you mean 'nonholonomic_particle', a system?"));
  const auto typo2 = test::run_dalembert({"describe", "rk5"}, {tmp.path()});
  CHECK(contains(typo2.err, "did you mean 'rk"));
}

TEST_CASE("COMMAND --help prints that command's usage, not the others', and exits 0", "[report][cli]") {
  test::TempDir tmp("help");
  const std::map<std::string, std::string> synopsis = {{"run", "run STUDY.json|FOLDER ... [--out DIR]"},
                                                       {"plot", "plot DIR"},
                                                       {"animate", "animate DIR [--label L]"},
                                                       {"check", "check SYSTEM [--params JSON]"},
                                                       {"list", "list"},
                                                       {"describe", "describe NAME"}};
  for (const auto& [cmd, first] : synopsis)
    for (const std::vector<std::string>& args : {std::vector<std::string>{cmd, "--help"}, {cmd, "-h"}, {cmd, "x.json", "--help"}}) {
      const auto r = test::run_dalembert(args, {tmp.path()});
      INFO(args[0] << " " << args[1]);
      INFO(r.out);
      CHECK(r.status == 0);
      CHECK(r.out.rfind("usage: dalembert " + first, 0) == 0);  // its own synopsis first
      CHECK_FALSE(contains(r.out, "commands:"));                // not the list of every command
      for (const auto& [other, other_first] : synopsis)
        if (other != cmd && other != "list") CHECK_FALSE(contains(r.out, other_first));
    }
  CHECK(contains(test::run_dalembert({"run", "--help"}, {tmp.path()}).out, "--resume continues an"));  // its description
  const auto unknown = test::run_dalembert({"frobnicate", "--help"}, {tmp.path()});
  CHECK(unknown.status == 2);
  CHECK(contains(unknown.err, "unknown command 'frobnicate'"));
}

TEST_CASE("two observers writing one column name are refused before anything runs, naming both", "[report][columns]") {
  test::TempDir tmp("clash");
  auto j = json::parse(test::read_text(short_fig1(tmp.path())));
  j["observers"] = {"trajectory", "energy_error", "trajectory"};
  test::write_text(tmp.path() / "clash.json", j.dump());
  try {
    plan_study(load_study((tmp.path() / "clash.json").string()));
    FAIL("no error");
  } catch (const InputError& e) {
    const std::string m = e.what();
    CHECK(contains(m, "/observers"));
    CHECK(contains(m, "column 'x' is written by both observer 'trajectory' (/observers/0) and observer 'trajectory' (/observers/2)"));
  }
}

// Every shipped study (a sweep as its base study): each integrator's CSV columns are distinct.
TEST_CASE("no CSV of a shipped study has two columns of one name", "[report][columns]") {
  test::TempDir tmp("columns");
  int checked = 0;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(DALEMBERT_SOURCE_DIR) / "studies")) {
    if (e.path().extension() != ".json") continue;
    auto j = json::parse(test::read_text(e.path()));
    if (j.value("kind", "") == "sweep") j["kind"] = j["sweep"]["of"], j.erase("sweep"), j.erase("figures"), j.erase("claims");
    j["check_derivatives"] = false;
    const fs::path file = tmp.path() / e.path().filename();
    test::write_text(file, j.dump());
    INFO(e.path().string());
    const StudyPlan plan = plan_study(load_study(file.string()));  // refuses a clash at bind
    const Study st = load_study(file.string());
    for (const auto& u : st.integrators) {
      auto sys = plan.registry->make_system(st.system.plugin, st.system.params, "test");
      auto integ = plan.registry->make_integrator(u.plugin, u.params, "test");
      std::vector<std::unique_ptr<Observer>> owned;
      std::vector<Observer*> obs;
      for (const auto& o : st.observers) owned.push_back(plan.registry->make_observer(o.plugin, o.params, "test")), obs.push_back(owned.back().get());
      Simulation sim(*sys, *integ, obs);
      const auto& c = sim.columns();
      INFO(u.label);
      CHECK(std::set<std::string>(c.begin(), c.end()).size() == c.size());
      ++checked;
    }
  }
  CHECK(checked > 40);
}
