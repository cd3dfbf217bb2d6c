// The integrator contract (DESIGN §2): no heap allocation inside step(), for gni, rdp, rk2. Counted
// by tests/allocation_counter.hpp.
#include <catch2/catch.hpp>

#include "allocation_counter.hpp"
#include "lie_support.hpp"

using namespace dalembert;

TEST_CASE("gni rdp and rk2 do not allocate inside step()", "[lie_group][contract]") {
  struct Case {
    const char* system;
    const char* integ;
    nlohmann::json params;
  };
  const std::vector<Case> cases = {
      {"chaplygin_sleigh", "gni", {{"init", "paper"}}}, {"chaplygin_sleigh", "rdp", {{"retraction", "exp1"}}},
      {"chaplygin_sleigh", "rdp", {{"retraction", "cay"}}}, {"snakeboard", "gni", {{"init", "exact"}}},
      {"snakeboard", "rdp", {{"retraction", "exp"}}},     {"snakeboard", "rk2", {{"ode", "full"}}},
      {"snakeboard", "rk2", {{"ode", "reduced"}}}};
  {  // the counter sees allocations (self-check of the interposition)
    allocations = 0;
    counting = true;
    Eigen::VectorXd probe(1000);
    probe.setZero();
    counting = false;
    REQUIRE(allocations.load() > 0);
  }
  for (const auto& c : cases) {
    auto sys = test::registry().make_system(c.system, nullptr, "test");
    auto in = test::registry().make_integrator(c.integ, c.params, "test");
    in->bind(*sys);
    State s = std::string(c.system) == "snakeboard" ? test::snakeboard_initial() : test::sleigh_initial();
    in->begin(s);
    std::vector<double> q(64);
    in->advance(s, 0.05);  // first step (initialisation)
    allocations = 0;
    counting = true;
    for (int k = 0; k < 20; ++k) {
      in->advance(s, 0.05);
      in->discrete_quantities(q.data());
    }
    counting = false;
    INFO(c.system << " / " << c.integ << " " << c.params.dump() << ": " << allocations.load() << " allocations");
    CHECK(allocations.load() == 0);
  }
}
