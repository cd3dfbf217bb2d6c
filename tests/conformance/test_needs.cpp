// What a plugin needs of a system is declared in its descriptor (issue 27 item 4): `describe` reads
// the declaration (it used to read the text of a bind() refusal), and the vocabulary of capabilities
// is the framework's (plugin/needs.hpp).
#include <catch2/catch.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/study/describe.hpp>
#include <dalembert/plugin/needs.hpp>

#include "cli_process.hpp"
#include "support.hpp"

using namespace dalembert;

TEST_CASE("a system's capabilities: its models and the properties plugins may need", "[conformance][needs]") {
  const auto& reg = test::registry();
  auto polar = reg.make_system("polar_oscillator", nullptr, "test");
  auto particle = reg.make_system("nonholonomic_particle", nullptr, "test");
  auto snakeboard = reg.make_system("snakeboard", nullptr, "test");
  CHECK(meets(*polar, "ConstrainedLagrangian"));
  CHECK(meets(*polar, "ExactSolution"));
  CHECK_FALSE(meets(*polar, "ConstantMass"));  // M(q) = diag(1, r^2, 1)
  CHECK(meets(*particle, "ConstantMass"));
  CHECK_FALSE(meets(*snakeboard, "Unforced"));  // its joint torques
  CHECK_FALSE(meets(*particle, "LieGroupModel"));
  CHECK(meets(*particle, "LieGroupModel or ConstrainedLagrangian"));
  CHECK(unmet_need(*polar, {"ConstrainedLagrangian", "ConstantMass", "Unforced"}) == "ConstantMass");
  CHECK(unmet_need(*particle, {"ConstrainedLagrangian", "ConstantMass", "Unforced"}).empty());
  CHECK_THROWS_WITH(meets(*particle, "ConstantMas"), Catch::Contains("unknown capability 'ConstantMas'") &&
                                                         Catch::Contains("ConstantMass"));
}

TEST_CASE("describe prints what a plugin declares it needs", "[conformance][needs][cli]") {
  const auto& reg = test::registry();
  const auto newmark = describe_plugins(reg, "nonholonomic_newmark").at(0);
  CHECK(newmark["needs"] == nlohmann::json({"ConstrainedLagrangian", "ConstantMass", "Unforced"}));
  // The systems it binds to are those that meet the declaration: not M(q), not forced.
  const auto binds = newmark["instance"]["binds_to"].get<std::vector<std::string>>();
  CHECK(std::find(binds.begin(), binds.end(), "chaotic_nonholonomic_particle") != binds.end());
  for (const char* refused : {"rolling_disk", "chaplygin_sphere", "polar_oscillator", "snakeboard", "pendulum_3d"})
    CHECK(std::find(binds.begin(), binds.end(), refused) == binds.end());
  test::TempDir tmp("describe_needs");
  const auto r = test::run_dalembert({"describe", "nonholonomic_newmark"}, {tmp.path()});
  CHECK(r.out.find("  needs: ConstrainedLagrangian, ConstantMass, Unforced\n") != std::string::npos);
  // A composition needs what its stages need: not known without its parameters.
  // (its defaults do not make one: describe used to fail there with a raw JSON type error)
  const auto composition = test::run_dalembert({"describe", "composition"}, {tmp.path()});
  INFO(composition.out << composition.err);
  CHECK(composition.status == 0);
  CHECK(composition.out.find("  needs: depends on its parameters") != std::string::npos);
  const auto trajectory = test::run_dalembert({"describe", "trajectory"}, {tmp.path()});
  CHECK(trajectory.out.find("  needs: nothing of a system\n") != std::string::npos);
  const auto gni = test::run_dalembert({"describe", "rrp_error_measures"}, {tmp.path()});
  CHECK(gni.out.find("  needs: RigidBodyModel\n") != std::string::npos);
}

TEST_CASE("the registry gives a composition's needs as its stages declare them", "[conformance][needs]") {
  const auto& reg = test::registry();
  const nlohmann::json tj = {{"triple_jump", {{"integrator", "dla"}}}};
  // dla treats holonomic constraints (issue 28), moving ones and external forces (issue 30), so does
  // a composition whose every stage is dla.
  CHECK(reg.needs(PluginKind::Integrator, "composition", tj, "test") ==
        Needs{"ConstrainedLagrangian", "treats HolonomicConstraints", "treats AffineConstraints"});
  const nlohmann::json rk2 = {{"ode", "reduced"}};
  // q̇ = B_D w: a LieGroupModel whose v are the time derivatives of q (SE(2), not SO(3); issue 29)
  CHECK(reg.needs(PluginKind::Integrator, "rk2", rk2, "test") == Needs{"LieGroupModel", "CoordinateVelocities"});
}
