// End-to-end checks of seed 000 on the nonholonomic particle, through the bundled studies: their
// claims (spec 000 claims 1, 3, 9, 10) are checks in the studies (studies/newmark/*.json), evaluated
// by every run; here the runs must hold them. The closed form (claim 16) is a unit test.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <dalembert/study/simulation.hpp>

#include "claims_support.hpp"
#include "support.hpp"

using namespace dalembert;

TEST_CASE("Fig 1 (spec 000 claims 1, 9 and 10): energy plateaus of RK4, DLA and Psi_h", "[studies][newmark]") {
  const test::TempDir dir("fig1");
  test::require_claims(test::run_bundled_study("studies/newmark/fig1_particle.json", dir / "run"), 12,
                 {"claim 9 RK4 plateau", "claim 9 RK4 level", "claim 9 RK4 max", "claim 10 DLA final",
                  "claim 10 Psi_h final", "claim 10 DLA max", "claim 10 Psi_h max", "claim 10 RK4 better",
                  "claim 10 DLA plateau", "claim 1 DLA", "claim 1 Psi_h", "claim 1 RK4"});
}

TEST_CASE("Orders on the particle (spec 000 claim 3): fitted and successive within 0.15", "[studies][newmark]") {
  const test::TempDir dir("conv_particle");
  const auto rep = test::run_bundled_study("studies/newmark/convergence_particle.json", dir / "run");
  REQUIRE(rep.manifest["convergence"].size() == 7);
  test::require_claims(rep, 40,
                 {"claim 3 F000", "claim 3 F001", "claim 3 DLA", "claim 3 F0.1_0.1_half", "claim 3 Psi_h",
                  "claim 3 triple_jump", "claim 3 RK4", "claim 3 DLA error", "claim 3 Psi_h error",
                  "claim 3 F0.1_0.1_half error", "claim 3 RK4 error", "claim 3 triple_jump error",
                  "order F000", "order F001", "order DLA", "order F0.1_0.1_half", "order Psi_h",
                  "order triple_jump", "order RK4"});
}

TEST_CASE("Particle closed form against a fine RK4 run at t = 100 (spec 000 claim 16)", "[studies][newmark]") {
  const auto& reg = test::registry();
  auto sys = reg.make_system("nonholonomic_particle", nullptr, "test");
  auto rk4 = reg.make_integrator("rk4", nullptr, "test");
  State s = test::make_state({1, 1, -1}, {1, -1, 1});
  const State s0 = s;
  CHECK(sys->energy(s0) == Approx(1.5).epsilon(1e-15));  // E₀ = 1.5
  Simulation sim(*sys, *rk4);
  sim.run(s, 0.005, 20000);  // h = 0.005: truncation and round-off both ~1e-11 here (q error 7.6e-11)
  State exact;
  sys->exact_solution(s0, 100.0, exact);
  CHECK(s.t == 100.0);
  INFO("q error " << (s.q - exact.q).lpNorm<Eigen::Infinity>() << ", v error " << (s.v - exact.v).lpNorm<Eigen::Infinity>());
  CHECK((s.q - exact.q).lpNorm<Eigen::Infinity>() < 1e-10);
  CHECK((s.v - exact.v).lpNorm<Eigen::Infinity>() < 1e-10);
  // and the closed form is itself consistent: y = 1 − t, ẋ√(1+y²) = √2.
  CHECK(exact.q[1] == Approx(-99.0));
  CHECK(exact.v[0] * std::sqrt(1 + exact.q[1] * exact.q[1]) == Approx(std::sqrt(2.0)).epsilon(1e-14));
}
