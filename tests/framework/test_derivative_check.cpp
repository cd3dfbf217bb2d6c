// The derivative checker (issue 13): `dalembert check` and the bind-time check catch each planted
// wrong derivative (tests/fixtures/planted_*.cpp), name the function, and pass on the correct ones
// and on every shipped Lagrangian system.
#include <catch2/catch.hpp>
#include <dalembert/core/constrained_lagrangian.hpp>
#include <dalembert/host/registry.hpp>
#include <dalembert/study/derivative_check.hpp>
#include <nlohmann/json.hpp>
#include <map>
#include <string>

#include "cli_support.hpp"

using namespace dalembert;
using namespace dalembert::test;
using nlohmann::json;

namespace {

const std::string kPlantedDir = std::string(DALEMBERT_TEST_FIXTURE_DIR) + "/planted";

struct Plant {
  std::string system;
  int plant;
  std::string function;  // the function the finding must name ("" for plant 0)
  std::string entry;     // the entry it must name
  json initial;          // a state where the planted entry matters
};

const json kParticleState = {{"q", {0.3, 0.4, -0.5, 0.6, 0.7}}, {"v", {0.2, -0.3, 0.5, 0.4, -0.6}}, {"project", true}};
const json kPolarState = {{"q", {0.5, 0.2, 0.1}}, {"v", {0.3, 0.7, 0.1}}, {"project", true}};
const json kKnifeState = {{"q", {0.1, 0.2, 0.3}}, {"v", {0.4, 0.5, 0.6}}, {"project", true}};

const std::vector<Plant> kPlants = {
    {"planted_particle", 0, "", "", kParticleState},
    {"planted_particle", 1, "constraint_gradient", "(a=0)[z1][y1]", kParticleState},
    {"planted_particle", 2, "potential_gradient", "[y1]", kParticleState},
    {"planted_particle", 3, "potential_hessian", "[y1][z1]", kParticleState},
    {"planted_polar", 0, "", "", kPolarState},
    {"planted_polar", 1, "coriolis", "[", kPolarState},  // both terms are wrong; the worst is named
    {"planted_polar", 2, "coriolis", "[r]", kPolarState},
    {"planted_knife_edge", 0, "", "", kKnifeState},
    {"planted_knife_edge", 1, "constraint_gradient", "(a=0)[x][phi]", kKnifeState},
};

std::string env() { return "DALEMBERT_PLUGIN_PATH=" + quote(kPlantedDir); }

std::string tag(const Plant& p) { return p.system + "_plant" + std::to_string(p.plant); }

json study_of(const Plant& p) {
  return {{"name", tag(p)},
          {"kind", "trajectory"},
          {"system", {{"plugin", p.system}, {"params", {{"plant", p.plant}}}}},
          {"initial", p.initial},
          {"h", 0.05},
          {"T", 0.2},
          {"integrators", {{{"label", "RK4"}, {"plugin", "rk4"}}}},
          {"observers", {"energy_error"}},
          {"plugin_paths", {kPlantedDir}}};
}

}  // namespace

TEST_CASE("dalembert check fails on each planted derivative error, naming function and entry, and passes on none",
          "[derivative_check][cli]") {
  TempDir dir("check_planted");
  for (const auto& p : kPlants) {
    INFO(tag(p));
    const auto r = run_cli("check " + p.system + " --params " + quote(json{{"plant", p.plant}}.dump()) + " --samples 4",
                           dir.path(), env());
    INFO("stdout: " << r.out << "\nstderr: " << r.err);
    if (p.plant == 0) {
      CHECK(r.status == 0);
      CHECK(r.out.find("all checks passed") != std::string::npos);
    } else {
      CHECK(r.status == 1);
      CHECK(r.out.find(p.system + ": " + p.function + p.entry) != std::string::npos);
    }
  }
}

TEST_CASE("a study binding a system with a planted derivative error stops before running, naming the function",
          "[derivative_check][study]") {
  for (const auto& p : kPlants) {
    INFO(tag(p));
    StudyCase sc(tag(p));
    const auto r = sc.run(study_of(p));
    if (p.plant == 0) {
      INFO("stderr: " << r.err);
      CHECK(r.status == 0);
      continue;
    }
    check_one_line_error(r, {"system '" + p.system + "'", p.function + p.entry, "check_derivatives"});
    sc.check_no_result();

    StudyCase off(tag(p) + "_off");  // the same study with the check turned off runs
    json st = study_of(p);
    st["check_derivatives"] = false;
    const auto r_off = off.run(st);
    INFO("stderr: " << r_off.err);
    CHECK(r_off.status == 0);
    const json manifest = json::parse(read_text(off.out / "manifest.json"));
    CHECK(manifest["study"]["check_derivatives"] == false);
  }
}

TEST_CASE("check_derivatives must be true or false", "[derivative_check][study]") {
  StudyCase sc("check_derivatives_type");
  json st = study_of(kPlants.front());
  st["check_derivatives"] = "no";
  check_one_line_error(sc.run(st), {"/check_derivatives", "true or false"});
}

TEST_CASE("dalembert check passes on every shipped Lagrangian system", "[derivative_check][cli]") {
  Registry reg;
  TempDir dir("check_shipped");
  int checked = 0;
  for (const auto* d : reg.list(PluginKind::System)) {
    const auto sys = reg.make_system(d->name, json::object(), "test");
    if (!dynamic_cast<const LagrangianSystem*>(sys.get())) continue;
    INFO(d->name);
    const auto r = run_cli("check " + d->name + " --samples 8 --seed 3", dir.path());
    INFO("stdout: " << r.out << "\nstderr: " << r.err);
    CHECK(r.status == 0);
    ++checked;
  }
  CHECK(checked >= 5);  // knife_edge, chaplygin_sleigh, snakeboard, vertical_rolling_disk, the particles
}

TEST_CASE("dalembert check refuses bad input in one line naming the value", "[derivative_check][cli]") {
  TempDir dir("check_bad_input");
  check_one_line_error(run_cli("check knife_edge --params " + quote("{bad"), dir.path()), {"--params", "{bad", "JSON"});
  check_one_line_error(run_cli("check no_such_system", dir.path()), {"no_such_system"});
  check_one_line_error(run_cli("check knife_edge --state " + quote(R"({"q":[1]})"), dir.path()), {"--state", "3 numbers"});
  check_one_line_error(run_cli("check knife_edge --samples many", dir.path()), {"--samples", "many"});
  check_one_line_error(run_cli("check", dir.path()), {"check needs a plugin name"});
}

TEST_CASE("the checker reports the worst entry with both values and a relative error", "[derivative_check]") {
  Registry reg;
  reg.add_search_path(kPlantedDir);
  const auto sys = reg.make_system("planted_knife_edge", json{{"plant", 1}}, "test");
  const auto& lag = dynamic_cast<const LagrangianSystem&>(*sys);
  DerivativeCheckOptions opt;
  opt.samples = 0;
  opt.state = State{0.0, Vec::Zero(3), Vec::Zero(3)};  // phi = 0: G(x, phi) = cos 0 = 1, planted -1
  const auto result = check_derivatives(lag, opt);
  REQUIRE(result.findings.size() == 1);
  const auto& f = result.findings.front();
  CHECK(f.function == "constraint_gradient");
  CHECK(f.entry == "(a=0)[x][phi]");
  CHECK(f.hand == Approx(-1.0));
  CHECK(f.reference == Approx(1.0).epsilon(1e-8));
  CHECK(f.relative_error == Approx(2.0).epsilon(1e-8));
  CHECK(f.message.rfind("constraint_gradient(a=0)[x][phi]: hand -1 vs central difference +1", 0) == 0);
}

TEST_CASE("an L-and-A system's own AD derivatives are checked against central differences, its closed forms against AD",
          "[derivative_check]") {
  Registry reg;
  auto summary_of = [&](const std::string& name) {
    const auto sys = reg.make_system(name, json::object(), "test");
    DerivativeCheckOptions opt;
    opt.samples = 8;
    const auto result = check_derivatives(dynamic_cast<const LagrangianSystem&>(*sys), opt);
    INFO(format_check_result(name, result));
    CHECK(result.ok());
    std::map<std::string, FunctionSummary> rows;
    for (const auto& s : result.summary) rows[s.function] = s;
    return rows;
  };
  // The snakeboard writes no derivative: AD itself is what is checked (Richardson differences, 1e-6).
  auto snake = summary_of("snakeboard");
  for (const char* f : {"potential_gradient", "constraint_gradient", "curvature", "constraint_derivative"}) {
    INFO(f);
    REQUIRE(snake.count(f) == 1);
    CHECK(snake[f].reference == "AD vs central difference");
    CHECK(snake[f].worst_relative_error < 1e-8);
  }
  // The knife edge keeps ∇V, ∇²V and ∂μ/∂q in closed form: those, and the contractions formed from
  // ∂μ/∂q, agree with AD to round-off.
  auto knife = summary_of("knife_edge");
  for (const char* f : {"potential_gradient", "potential_hessian", "constraint_gradient", "curvature"}) {
    INFO(f);
    CHECK(knife[f].reference == "AD");
    CHECK(knife[f].worst_relative_error < 1e-13);
  }
}
