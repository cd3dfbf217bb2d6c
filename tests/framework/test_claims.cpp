// Checked claims (issue 15, study/claims.hpp): a claim is parsed before the run, evaluated after
// it into claims.csv and the manifest, and a failed claim fails the command (exit 3) while the run
// folder stays complete. The planted wrong values below are independent of the code: the spec's
// numbers moved off by a known amount.
#include <catch2/catch.hpp>
#include <cstdio>
#include <dalembert/core/errors.hpp>
#include <dalembert/study/runner.hpp>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "cli_process.hpp"
#include "support.hpp"
#include "temp_dir.hpp"

using namespace dalembert;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

/// studies/exact_discrete/convergence_knife.json (0.03 s) with its claims replaced by `checks`.
json knife_with(const json& checks) {
  std::ifstream in(std::string(DALEMBERT_SOURCE_DIR) + "/studies/exact_discrete/convergence_knife.json");
  json j = json::parse(in);
  j["claims"]["checks"] = checks;
  return j;
}

json order_check(const std::string& label, double of) {
  return {{"id", label + " order"}, {"quantity", {{"fitted_order", label}}}, {"within", 0.05}, {"of", of}};
}

std::string parse_error(const json& checks) {
  try {
    (void)parse_study(knife_with(checks), "k.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("claims: every check holds on a bundled study and claims.csv lists them with the order audit",
          "[claims]") {
  const test::TempDir dir("claims_pass");
  const auto r = test::run_bundled_study("studies/exact_discrete/convergence_knife.json", dir / "run");
  CHECK(r.claims_failed == 0);
  const auto& c = r.manifest.at("claims");
  CHECK(c.at("failed") == 0);
  CHECK(c.at("passed").get<long>() == long(c.at("results").size()));
  CHECK(c.at("results").size() >= 3 + 5);  // three order audits and the study's checks
  CHECK(c.at("results")[0].at("id") == "order MLA");
  const std::string csv = test::read_text(dir / "run" / "claims.csv");
  CHECK(csv.rfind("id,source,text,quantity,comparison,verdict,reason,value\n", 0) == 0);
  CHECK(csv.find("spec 002 claim 19") != std::string::npos);
}

TEST_CASE("claims: a planted wrong value fails the run's claims, names the claim, exits 3, keeps the folder",
          "[claims]") {
  const test::TempDir dir("claims_fail");
  // MLA is second order (spec 002 claim 17): a claim of order 3 cannot hold.
  const json study = knife_with(json::array({order_check("MLA", 2.0), order_check("DLA", 3.0)}));
  {
    std::ofstream(dir / "study.json") << study.dump(2);
  }
  const auto run = test::run_dalembert({"run", "study.json", "--out", "out", "--no-plots", "--quiet"}, {dir.path()});
  CHECK(run.status == 3);
  CHECK(run.err.find("DLA order") != std::string::npos);
  CHECK(run.err.find("MLA order") == std::string::npos);
  CHECK(run.err.find("\nerror: claims failed in 1 of 1 studies: convergence_knife\n") != std::string::npos);
  // The run is complete: the folder has its final name, and it says which claim failed.
  REQUIRE(fs::exists(dir / "out" / "manifest.json"));
  CHECK_FALSE(fs::exists(dir / "out.failed"));
  std::ifstream in(dir / "out" / "manifest.json");
  const json m = json::parse(in);
  CHECK(m.at("claims").at("failed") == 1);
  for (const auto& r : m.at("claims").at("results"))
    CHECK(r.at("verdict") == (r.at("id") == "DLA order" ? "FAIL" : "pass"));
}

TEST_CASE("claims: a declared order the fit contradicts is a failed claim", "[claims]") {
  const test::TempDir dir("claims_order");
  json study = knife_with(json::array());
  study["integrators"][0]["plugin"] = "composition";  // MLA relabelled as a triple jump: declared 4, fits 2
  study["integrators"][0]["params"] = {{"stages", json::array({{{"integrator", "mla"}, {"fraction", 1.0}}})}, {"order", 4}};
  RunOptions opt;
  opt.out_dir = dir / "run";
  opt.plots = false;
  opt.verbose = false;
  opt.progress = false;
  const auto r = run_study(parse_study(study, "k.json"), opt);
  CHECK(r.claims_failed == 1);
  CHECK(r.manifest.at("claims").at("results")[0].at("id") == "order MLA");
  CHECK(r.manifest.at("claims").at("results")[0].at("verdict") == "FAIL");
}

TEST_CASE("claims: malformed checks are refused before the run, naming the place", "[claims]") {
  CHECK_THAT(parse_error(json::array({{{"quantity", {{"fitted_order", "RK4"}}}, {"<", 1}}})),
             Catch::Contains("/claims/checks/0/quantity/fitted_order") && Catch::Contains("no integrator has this label"));
  CHECK_THAT(parse_error(json::array({{{"quantity", {{"summary", "x"}, {"task", "MLA"}}}, {"<", 1}}})),
             Catch::Contains("belongs to a trajectory study"));
  CHECK_THAT(parse_error(json::array({{{"quantity", {{"fitted_order", "MLA"}}}, {"<", 1}, {">", 0}}})),
             Catch::Contains("exactly one comparison"));
  CHECK_THAT(parse_error(json::array({{{"quantity", {{"fitted_order", "MLA"}}}, {"within", 0.1}}})),
             Catch::Contains("/claims/checks/0") && Catch::Contains("of"));
  CHECK_THAT(parse_error(json::array({{{"quantity", {{"error", "error_q"}, {"label", "MLA"}, {"stat", "median"}}}, {"<", 1}}})),
             Catch::Contains("unknown stat"));
  CHECK(parse_error(json::array({order_check("MLA", 2.0)})).empty());
  // A claim's id, source and text are printed in one-line warnings and CSV rows: no line break
  // (the fuzzer's case fig2_plastic_circle /claims/checks/22/text = "\n").
  for (const char* key : {"id", "source", "text"}) {
    json check = order_check("MLA", 2.0);
    check[key] = "two\nlines";
    CHECK_THAT(parse_error(json::array({check})),
               Catch::Contains(std::string("/claims/checks/0/") + key) && Catch::Contains("one line"));
  }
}

namespace {

// The nonholonomic particle, DLA and RK4 at h = 0.1 to T = 1 (E0 = 1.5), with `checks`.
json particle_with(const json& checks) {
  return {{"name", "claims_reasons"},
          {"kind", "trajectory"},
          {"system", {{"plugin", "nonholonomic_particle"}}},
          {"initial", {{"q", {1, 1, -1}}, {"v", {1, -1, 1}}}},
          {"h", 0.1},
          {"T", 1},
          {"integrators", {{{"label", "DLA"}, {"plugin", "nonholonomic_newmark"},
                            {"params", {{"beta", 0}, {"beta_prime", 0}, {"alpha", 0.5}}}},
                           {{"label", "RK4"}, {"plugin", "rk4"}}}},
          {"claims", {{"checks", checks}}}};
}

std::string g12(double x) {
  char b[40];
  std::snprintf(b, sizeof b, "%.12g", x);
  return b;
}

}  // namespace

// Issue 26: a failed claim says why, in claims.csv (column "reason"), report.md (after the
// verdict) and the manifest; a claim that holds has no reason.
TEST_CASE("claims: a failed claim's reason is in claims.csv, report.md and the manifest", "[claims]") {
  const test::TempDir dir("claims_reasons");
  const json checks = {
      {{"id", "holds"}, {"quantity", {{"summary", "initial_energy"}, {"task", "DLA"}}}, {"within", 1e-12}, {"of", 1.5}},
      {{"id", "too big"}, {"quantity", {{"column", "energy_error"}, {"task", "RK4"}, {"stat", "max_abs"}}}, {"<", -1}},
      {{"id", "off"}, {"quantity", {{"summary", "initial_energy"}, {"task", "DLA"}}}, {"within", 0.1}, {"of", 2}},
      {{"id", "no such task"}, {"quantity", {{"manifest", "/tasks/7/steps"}}}, {">", 0}},
      {{"id", "over zero"},
       {"quantity", {{"ratio", {{{"summary", "initial_energy"}, {"task", "DLA"}}, {{"manifest", "/study/initial/t"}}}}}},
       {"<", 1}}};
  const auto r = test::run_quietly(parse_study(particle_with(checks), "r.json"), dir / "run");
  CHECK(r.claims_failed == 4);
  std::map<std::string, json> by_id;
  for (const auto& c : r.manifest.at("claims").at("results")) by_id[c.at("id")] = c;
  CHECK(by_id.at("holds").at("reason") == "");
  const double max_abs = by_id.at("too big").at("value").get<double>();
  CHECK(by_id.at("too big").at("reason") == g12(max_abs) + " not < -1");
  CHECK(by_id.at("off").at("reason") == "1.5 not within 0.1 of 2 (|1.5 - 2| = 0.5)");
  CHECK(by_id.at("no such task").at("reason") ==
        "value nan: manifest.json has no /tasks/7/steps (the manifest is known only after the run; /tasks is an array "
        "of 2 elements)");
  CHECK(by_id.at("over zero").at("reason") == "inf not < 1 (its denominator manifest /study/initial/t is 0)");

  const std::string csv = test::read_text(dir / "run" / "claims.csv");
  CHECK(csv.rfind("id,source,text,quantity,comparison,verdict,reason,value\n", 0) == 0);
  CHECK(csv.find(",FAIL,1.5 not within 0.1 of 2 (|1.5 - 2| = 0.5),1.5\n") != std::string::npos);
  CHECK(csv.find(",FAIL,value nan: manifest.json has no /tasks/7/steps") != std::string::npos);
  const std::string md = test::read_text(dir / "run" / "report.md");
  CHECK(md.find("| **FAIL**: 1.5 not within 0.1 of 2 (\\|1.5 - 2\\| = 0.5) |") != std::string::npos);  // '|' escaped
  CHECK(md.find("| **FAIL**: value nan: manifest.json has no /tasks/7/steps") != std::string::npos);
  CHECK(md.find("| **pass** |") != std::string::npos);
}

// A summary whose name depends on the run passes the check before the run (it has the form of
// one); when the run does not produce it, the claim fails saying so.
TEST_CASE("claims: a summary the run did not produce fails with its reason", "[claims]") {
  const test::TempDir dir("claims_run_dependent");
  json j = json::parse(test::read_text(fs::path(DALEMBERT_SOURCE_DIR) / "studies/penny/fig4_plastic_ellipse.json"));
  j["T"] = 1;  // the first impact is at t = 1.88
  j.erase("figures");
  j["claims"]["checks"] = {{{"id", "first impact"}, {"quantity", {{"summary", "impact_1_t"}, {"task", "RK4"}}}, {">", 0}}};
  const auto r = test::run_quietly(parse_study(j, "p.json"), dir / "run");
  REQUIRE(r.claims_failed == 1);
  CHECK_THAT(r.manifest.at("claims").at("results")[0].at("reason").get<std::string>(),
             Catch::StartsWith("value nan: task RK4 reported no summary impact_1_t (a summary whose name depends on the "
                               "run, like impact_<k>_t, is reported only when the run produces it); it reported "
                               "final_energy_error, impact_count, initial_energy, "));
}
