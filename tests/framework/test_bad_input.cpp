// Bad input through the `dalembert` CLI: every case must give a non-zero exit and ONE line on
// stderr, "error: ...", naming the file, the JSON path and the offending value; and a failed run
// must never leave a folder under the final output name (".failed" is fine, the final name is not).
#include <catch2/catch.hpp>
#include <cmath>
#include <dalembert/core/errors.hpp>
#include <dalembert/plugin/abi.hpp>
#include <dalembert/host/registry.hpp>
#include <nlohmann/json.hpp>
#include <regex>
#include <sys/wait.h>

#include "cli_support.hpp"  // tests/
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using dalembert::test::check_one_line_error;
using dalembert::test::CliResult;
using dalembert::test::quote;
using dalembert::test::run_cli;
using dalembert::test::StudyCase;
using dalembert::test::read_text;
using dalembert::test::TempDir;
using dalembert::test::write_text;

namespace {

json dla() {
  return {{"label", "DLA"}, {"plugin", "nonholonomic_newmark"}, {"params", {{"beta", 0}, {"beta_prime", 0}, {"alpha", 0.5}}}};
}

// A small valid trajectory study of the nonholonomic particle (2 steps).
json particle_study() {
  json j;
  j["name"] = "bad_input";
  j["kind"] = "trajectory";
  j["system"] = {{"plugin", "nonholonomic_particle"}};
  j["initial"] = {{"q", {1, 1, -1}}, {"v", {1, -1, 1}}};
  j["h"] = 0.1;
  j["T"] = 0.2;
  j["integrators"] = json::array({dla()});
  return j;
}

}  // namespace

TEST_CASE("malformed JSON: file, line and column", "[cli]") {
  StudyCase c("malformed");
  write_text(c.file, "{\n  \"kind\": \"trajectory\",\n  \"T\": 1,,\n  \"h\": 0.1\n}\n");
  const auto r = c.run_text();
  check_one_line_error(r, {c.file.string() + ": line 3, column", "malformed JSON", "unexpected ','"});
  c.check_no_result();
}

TEST_CASE("a study file that does not exist", "[cli]") {
  TempDir dir("nofile");
  const fs::path file = dir / "no_such_study.json";
  const auto r = run_cli("run " + quote(file.string()) + " --quiet --no-plots", dir.path());
  check_one_line_error(r, {file.string(), "cannot open"});
}

TEST_CASE("unknown study key: path, value and nearest key", "[cli]") {
  StudyCase c("unknown_key");
  json j = particle_study();
  j["recrd_every"] = 2;
  const auto r = c.run(j);
  check_one_line_error(r, {c.file.string(), ": /recrd_every", "unknown key \"recrd_every\"", "did you mean \"record_every\""});
  c.check_no_result();
}

TEST_CASE("unknown plugin: path, name, nearest name and the available ones", "[cli]") {
  StudyCase c("unknown_plugin");
  SECTION("integrator") {
    json j = particle_study();
    j["integrators"].push_back("rkk4");
    const auto r = c.run(j);
    check_one_line_error(r, {c.file.string() + ": /integrators/1", "unknown integrator plugin 'rkk4'",
                             "did you mean 'rk4'", "available: ", "nonholonomic_newmark"});
  }
  SECTION("a Python integrator named on the command line") {
    json j = particle_study();
    j["integrators"].push_back({{"label", "Py"}, {"plugin", "python:my_schemes.Kutta3"}});
    const auto r = c.run(j);
    check_one_line_error(r, {c.file.string() + ": /integrators/1", "unknown integrator plugin 'python:my_schemes.Kutta3'",
                             "runs only in a study started from Python"});
  }
  SECTION("system") {
    json j = particle_study();
    j["system"]["plugin"] = "nonholonomic_particel";
    const auto r = c.run(j);
    check_one_line_error(r, {c.file.string() + ": /system", "unknown system plugin 'nonholonomic_particel'",
                             "did you mean 'nonholonomic_particle'"});
  }
  SECTION("observer") {
    json j = particle_study();
    j["observers"] = {"energy_error", "energy_eror"};
    const auto r = c.run(j);
    check_one_line_error(r, {c.file.string() + ": /observers/1", "unknown observer plugin 'energy_eror'",
                             "did you mean 'energy_error'"});
  }
  c.check_no_result();
}

TEST_CASE("unknown plugin parameter", "[cli]") {
  StudyCase c("unknown_param");
  SECTION("integrator") {
    json j = particle_study();
    j["integrators"][0]["params"]["betta"] = 0.25;
    const auto r = c.run(j);
    check_one_line_error(r, {c.file.string() + ": /integrators/0/params/betta", "unknown parameter 'betta'",
                             "did you mean 'beta'", "nonholonomic_newmark"});
  }
  SECTION("system without parameters") {
    json j = particle_study();
    j["system"]["params"] = {{"mass", 2}};
    const auto r = c.run(j);
    check_one_line_error(r, {c.file.string() + ": /system/params/mass", "unknown parameter 'mass'",
                             "its parameters are: none"});
  }
  c.check_no_result();
}

TEST_CASE("mistyped parameter or study field", "[cli]") {
  StudyCase c("mistyped");
  json j = particle_study();
  std::vector<std::string> needles;
  SECTION("number given as a string") {
    j["integrators"][0]["params"]["beta"] = "zero";
    needles = {"/integrators/0/params/beta", "\"zero\"", "must be a number"};
  }
  SECTION("integer given as a fraction") {
    j["integrators"][0]["params"]["newton_max_iterations"] = 2.5;
    needles = {"/integrators/0/params/newton_max_iterations", "2.5", "must be an integer"};
  }
  SECTION("string choice not allowed") {
    j["integrators"][0]["params"]["constraint_discretization"] = "16";
    needles = {"/integrators/0/params/constraint_discretization", "\"16\"", "must be one of 14, 15"};
  }
  SECTION("T given as a string") {
    j["T"] = "0.2";
    needles = {": /T", "\"0.2\"", "expected a number"};
  }
  SECTION("a component of v given as a string") {
    j["initial"]["v"] = {1, "a", 1};
    needles = {": /initial/v/1", "\"a\"", "expected a number"};
  }
  SECTION("integrators is not an array") {
    j["integrators"] = "rk4";
    needles = {": /integrators", "\"rk4\"", "expected an array"};
  }
  const auto r = c.run(j);
  needles.push_back(c.file.string());
  check_one_line_error(r, needles);
  c.check_no_result();
}

TEST_CASE("out-of-range parameter or study field", "[cli]") {
  StudyCase c("range");
  json j = particle_study();
  std::vector<std::string> needles;
  SECTION("alpha above 1") {
    j["integrators"][0]["params"]["alpha"] = 1.5;
    needles = {"/integrators/0/params/alpha", "1.5", "must lie in [0, 1]"};
  }
  SECTION("newton_max_iterations 0") {
    j["integrators"][0]["params"]["newton_max_iterations"] = 0;
    needles = {"/integrators/0/params/newton_max_iterations", "= 0", "must lie in [1, 1000]"};
  }
  SECTION("record_every 0") {
    j["record_every"] = 0;
    needles = {": /record_every", "= 0", "at least 1"};
  }
  SECTION("negative order_tolerance") {
    j["kind"] = "convergence";
    j["h"] = {0.1, 0.05};
    j["order_tolerance"] = -0.1;
    needles = {": /order_tolerance", "-0.1", "must be positive"};
  }
  const auto r = c.run(j);
  needles.push_back(c.file.string());
  check_one_line_error(r, needles);
  c.check_no_result();
}

TEST_CASE("initial state that violates the constraint, and one of the wrong size", "[cli]") {
  StudyCase c("violating");
  json j = particle_study();
  SECTION("violating, no projection asked") {
    j["initial"]["v"] = {1, -1, 0.5};  // zdot - y xdot = -0.5
    const auto r = c.run(j);
    check_one_line_error(r, {c.file.string() + ": /initial/v", "[1.0,-1.0,0.5]", "violates the constraints",
                             "\"project\": true"});
  }
  SECTION("wrong number of components") {
    j["initial"]["q"] = {1, 1};
    const auto r = c.run(j);
    check_one_line_error(r, {c.file.string() + ": /initial/q", "[1.0,1.0]", "has 2 components", "has 3"});
  }
  c.check_no_result();
}

TEST_CASE("an initial state that violates the constraint is projected when the study asks", "[cli]") {
  StudyCase c("projected");
  json j = particle_study();
  j["initial"]["v"] = {1, -1, 0.5};
  j["initial"]["project"] = true;
  const auto r = c.run(j);
  INFO("stderr: " << r.err);
  REQUIRE(r.status == 0);
  CHECK(r.err.empty());
  REQUIRE(fs::exists(c.out / "manifest.json"));
  CHECK_FALSE(fs::exists(fs::path(c.out.string() + ".incomplete")));
  const json m = json::parse(read_text(c.out / "manifest.json"));
  const auto q = m["study"]["initial"]["q"].get<std::vector<double>>();
  const auto v = m["study"]["initial"]["v"].get<std::vector<double>>();
  REQUIRE(q.size() == 3);
  REQUIRE(v.size() == 3);
  CHECK(std::abs(v[2] - q[1] * v[0]) < 1e-14);  // zdot = y xdot
  CHECK(v[2] != 0.5);                            // it was actually changed
  CHECK(m["study"]["initial"]["project"] == true);
}

TEST_CASE("non-positive horizon T", "[cli]") {
  StudyCase c("horizon");
  json j = particle_study();
  std::string value;
  SECTION("T = 0") {
    j["T"] = 0;
    value = "= 0";
  }
  SECTION("T < 0") {
    j["T"] = -1.5;
    value = "= -1.5";
  }
  const auto r = c.run(j);
  check_one_line_error(r, {c.file.string() + ": /T", value, "the horizon T must be positive"});
  c.check_no_result();
}

TEST_CASE("zero or unusable step size h", "[cli]") {
  StudyCase c("zero_h");
  json j = particle_study();
  std::vector<std::string> needles;
  SECTION("trajectory h = 0") {
    j["h"] = 0;
    needles = {": /h", "= 0", "h must not be zero"};
  }
  SECTION("per-integrator h = 0") {
    j["integrators"][0]["h"] = 0.0;
    needles = {": /integrators/0/h", "= 0.0", "h must not be zero"};
  }
  SECTION("convergence ladder with h = 0") {
    j["kind"] = "convergence";
    j["h"] = {0.1, 0};
    needles = {": /h/1", "= 0", "h must not be zero"};
  }
  SECTION("convergence ladder with h < 0") {
    j["kind"] = "convergence";
    j["h"] = {-0.1, 0.05};
    needles = {": /h/0", "= -0.1", "must be positive"};
  }
  SECTION("T not a whole number of steps") {
    j["h"] = 0.15;
    needles = {": /h", "T = 0.2", "h = 0.15", "not a whole number of steps"};
  }
  const auto r = c.run(j);
  needles.push_back(c.file.string());
  check_one_line_error(r, needles);
  c.check_no_result();
}

TEST_CASE("a non-finite state stops the run with the step number", "[cli]") {
  // V = -q^4 from q = 1, v = sqrt(2): q = 1/(1 - sqrt(2) t) blows up at t = 0.707.
  StudyCase c("nonfinite");
  json j;
  j["name"] = "blowup";
  j["kind"] = "trajectory";
  j["plugin_paths"] = {DALEMBERT_FIXTURE_SYSTEMS_DIR};
  j["system"] = "blowup";
  j["initial"] = {{"q", {1}}, {"v", {std::sqrt(2.0)}}};
  j["T"] = 2;
  j["h"] = 0.01;
  j["integrators"] = json::array({json{{"label", "RK4a"}, {"plugin", "rk4"}},
                                  json{{"label", "RK4b"}, {"plugin", "rk4"}, {"h", 0.02}}});
  j["observers"] = {"energy_error", "trajectory"};
  const auto r = c.run(j);
  // Both tasks fail: still one line, each failure with its integrator's path and step number.
  check_one_line_error(r, {c.file.string() + ": /integrators/0", c.file.string() + ": /integrators/1", "RK4a",
                           "RK4b", "h = 0.02", "non-finite"});
  const std::regex step_number("non-finite state at step [0-9]+ \\(t = 0\\.[0-9]+");
  CHECK(std::regex_search(r.err, step_number));
  c.check_failed_folder("non-finite");
  // What was recorded before the failure is kept for inspection, the manifest says the task failed.
  const fs::path failed = c.out.string() + ".failed";
  CHECK(fs::exists(failed / "trajectory_RK4a.csv"));
  const json m = json::parse(read_text(failed / "manifest.json"));
  CHECK(m["tasks"][0]["ok"] == false);
  CHECK(m["tasks"][1]["ok"] == false);
}

TEST_CASE("a Newton failure stops the run at step 1", "[cli]") {
  StudyCase c("newton");
  json j = particle_study();
  // On the chaotic particle, F^{0.1,0.1,½} is genuinely nonlinear (a(Q) in (N1)): one Newton
  // iteration cannot solve it. (On the nonholonomic particle every Newmark system is affine in its
  // unknowns and Newton finishes in one.)
  j["system"] = {{"plugin", "chaotic_nonholonomic_particle"}};
  j["initial"] = {{"q", {1, 0, 1, -1, -1}}, {"v", {0.05, 0.5, -0.5, -0.1, -0.05}}};
  j["integrators"][0]["params"] = {{"beta", 0.1}, {"beta_prime", 0.1}, {"alpha", 0.5}, {"newton_max_iterations", 1}};
  const auto r = c.run(j);
  check_one_line_error(r, {c.file.string() + ": /integrators/0", "DLA", "Newton", "step 1 ", "h = 0.1"});
  c.check_failed_folder("Newton");
}

TEST_CASE("missing plugin: empty or absent plugin folder, unloadable file", "[cli]") {
  StudyCase c("missing_plugin");
  const fs::path empty = c.dir / "empty_plugins";
  fs::create_directories(empty);
  json j = particle_study();
  SECTION("plugin_paths names an empty folder and the plugin does not exist") {
    j["plugin_paths"] = {empty.string()};
    j["integrators"][0] = {{"label", "X"}, {"plugin", "rkk4"}};
    const auto r = c.run(j);
    check_one_line_error(r, {c.file.string() + ": /integrators/0", "unknown integrator plugin 'rkk4'",
                             "did you mean 'rk4'", "available: ", "rk4", empty.string()});
  }
  SECTION("plugin_paths names a folder that does not exist") {
    const fs::path absent = c.dir / "no_such_folder";
    j["plugin_paths"] = {absent.string()};
    const auto r = c.run(j);
    check_one_line_error(r, {c.file.string() + ": /plugin_paths/0", absent.string(), "no such plugin folder"});
  }
  SECTION("a relative plugin_paths entry is looked for beside the study file") {
    j["plugin_paths"] = {"no_such_folder"};
    const auto r = c.run(j);
    check_one_line_error(r, {c.file.string() + ": /plugin_paths/0 = \"no_such_folder\"",
                             "looked for " + (c.dir / "no_such_folder").string()});
  }
  SECTION("a plugin file that cannot be loaded") {
    write_text(empty / "dalembert_integrator_junk.so", "not a shared library\n");
    j["plugin_paths"] = {empty.string()};
    j["integrators"][0] = {{"label", "X"}, {"plugin", "junk"}};
    const auto r = c.run(j);
    check_one_line_error(r, {c.file.string() + ": /integrators/0", "integrator plugin 'junk'",
                             (empty / "dalembert_integrator_junk.so").string(), "cannot be loaded"});
  }
  c.check_no_result();
}

TEST_CASE("ABI-mismatched plugin: the file and both versions", "[cli]") {
  StudyCase c("abi");
  json j = particle_study();
  j["plugin_paths"] = {DALEMBERT_FIXTURE_ABI_DIR};
  j["integrators"].push_back({{"label", "old"}, {"plugin", "abi_mismatch"}});
  const auto r = c.run(j);
  const std::string so = (fs::path(DALEMBERT_FIXTURE_ABI_DIR) / "dalembert_integrator_abi_mismatch.so").string();
  check_one_line_error(r, {c.file.string() + ": /integrators/1", so, "ABI version 999",
                           "ABI version " + std::to_string(dalembert::abi_version)});
  c.check_no_result();
}

TEST_CASE("ABI-mismatched plugin is refused by the registry", "[cli]") {
  dalembert::Registry reg;
  reg.add_search_path(DALEMBERT_FIXTURE_ABI_DIR);
  reg.list(dalembert::PluginKind::Integrator);  // opens every file (find() opens only the one it needs)
  const auto& refused = reg.refused();
  const auto it = std::find_if(refused.begin(), refused.end(), [](const auto& r) {
    return r.file.filename() == "dalembert_integrator_abi_mismatch.so";
  });
  REQUIRE(it != refused.end());
  CHECK(it->reason.find("999") != std::string::npos);
  CHECK(it->reason.find("ABI version " + std::to_string(dalembert::abi_version)) != std::string::npos);
  for (const auto* p : reg.list(dalembert::PluginKind::Integrator)) CHECK(p->name != "abi_mismatch");
  CHECK_THROWS_AS(reg.find(dalembert::PluginKind::Integrator, "abi_mismatch", "test"), dalembert::InputError);
  CHECK_THROWS_WITH(reg.find(dalembert::PluginKind::Integrator, "abi_mismatch", "test"),
                    Catch::Contains("999") && Catch::Contains("dalembert_integrator_abi_mismatch.so"));
}

TEST_CASE("test fixture plugins are invisible to a normal registry", "[cli]") {
  const dalembert::Registry reg;
  reg.list(dalembert::PluginKind::Integrator);  // opens every file
  for (const auto& r : reg.refused()) CHECK(r.file.filename() != "dalembert_integrator_abi_mismatch.so");
  for (const auto* p : reg.list(dalembert::PluginKind::Integrator)) CHECK(p->name != "abi_mismatch");
  for (const auto* p : reg.list(dalembert::PluginKind::System)) CHECK(p->name != "blowup");
  CHECK_FALSE(reg.list(dalembert::PluginKind::Integrator).empty());  // the bundled ones are there
}

TEST_CASE("unwritable output folder", "[cli]") {
  StudyCase c("unwritable");
  const fs::path blocker = c.dir / "a_file";
  write_text(blocker, "a regular file, not a folder\n");
  c.out = blocker / "sub";
  const auto r = c.run(particle_study());
  check_one_line_error(r, {c.out.string(), "cannot be created or written"});
  CHECK(fs::is_regular_file(blocker));
  CHECK(read_text(blocker) == "a regular file, not a folder\n");
}

TEST_CASE("bad command line", "[cli]") {
  StudyCase c("cmdline");
  write_text(c.file, particle_study().dump());
  SECTION("--threads not a number") {
    const auto r = c.run_text("--threads many");
    check_one_line_error(r, {"--threads", "many"});
  }
  SECTION("unknown option") {
    const auto r = c.run_text("--fast");
    check_one_line_error(r, {"unknown option --fast"});
  }
  c.check_no_result();
}

// Issue 26 (fuzzing): two quantities that write one column ("quantiles": [0.5, 0.5], or values
// that print alike) gave every ensemble_stats_*.csv two columns energy_q50, and exit 0. Refused
// before the run, naming both places.
TEST_CASE("duplicate ensemble quantiles are refused before the run", "[cli]") {
  StudyCase c("quantiles");
  json j = particle_study();
  j["kind"] = "ensemble";
  j["ensemble"] = {{"size", 2}, {"seed", 1}, {"quantiles", {0.1, 0.5, 0.5}},
                   {"sampler", {{"plugin", "uniform_perturbation"}, {"params", {{"v", {{"ydot", 0.1}}}}}}}};
  SECTION("equal values") {
    const auto r = c.run(j);
    CHECK(r.err == "error: " + c.file.string() + ": /ensemble/quantiles/2 = 0.5: duplicate quantile: " +
                       "/ensemble/quantiles/1 = 0.5 writes the same columns (<column>_q50)\n");
    check_one_line_error(r, {});
  }
  SECTION("values that name one column") {
    j["ensemble"]["quantiles"] = {0.5, 0.5000000001};
    const auto r = c.run(j);
    CHECK(r.err == "error: " + c.file.string() + ": /ensemble/quantiles/1 = 0.5000000001: duplicate quantile: " +
                       "/ensemble/quantiles/0 = 0.5 writes the same columns (<column>_q50)\n");
    check_one_line_error(r, {});
  }
  c.check_no_result();
}
