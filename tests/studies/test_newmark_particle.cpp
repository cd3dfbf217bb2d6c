// End-to-end checks of seed 000 on the nonholonomic particle, through the bundled studies.
// Numbers from ../shared/specs/000_nonholonomic_newmark.md (claims 3, 9, 10, 16).
#include <catch2/catch.hpp>
#include <cmath>
#include <dalembert/study/simulation.hpp>

#include "support.hpp"

using namespace dalembert;

TEST_CASE("Fig 1 (spec 000 claims 9 and 10): energy plateaus of RK4, DLA and Psi_h", "[studies][newmark]") {
  const test::TempDir dir("fig1");
  const auto rep = test::run_bundled_study("studies/newmark/fig1_particle.json", dir / "run");
  const auto& m = rep.manifest;

  // Claim 9 / issue: RK4 ΔE settles at 6.63e−7 (±2e−8), constant to 1e−12 over t ∈ [50, 100].
  const auto rk4 = test::read_csv(dir / "run" / "trajectory_RK4.csv");
  double lo = 1e300, hi = -1e300;
  for (std::size_t i = 0; i < rk4.at("t").size(); ++i)
    if (rk4.at("t")[i] >= 50.0) lo = std::min(lo, rk4.at("energy_error")[i]), hi = std::max(hi, rk4.at("energy_error")[i]);
  CHECK(hi - lo < 1e-12);
  CHECK(std::abs(hi - 6.63e-7) < 2e-8);
  const double rk4_max = test::task(m, "RK4")["summary"]["max_abs_energy_error"];
  CHECK(rk4_max == Approx(7.3e-6).epsilon(0.02));

  // Claim 10: DLA ΔE(100) ≈ +1.25e−3, Ψ_h ΔE(100) ≈ −1.24e−3 (mirror image), max |ΔE| ≈ 3.8e−3.
  const auto& dla = test::task(m, "DLA")["summary"];
  const auto& psi = test::task(m, "Psi_h")["summary"];
  CHECK(dla["final_energy_error"].get<double>() == Approx(1.25e-3).epsilon(0.005));
  CHECK(psi["final_energy_error"].get<double>() == Approx(-1.24e-3).epsilon(0.005));
  CHECK(dla["max_abs_energy_error"].get<double>() == Approx(3.8e-3).epsilon(0.02));
  CHECK(psi["max_abs_energy_error"].get<double>() == Approx(3.8e-3).epsilon(0.02));
  // RK4 is better here: its max |ΔE| is below 1e−2 × DLA's (the paper's reading of Fig 1).
  CHECK(rk4_max < 1e-2 * dla["max_abs_energy_error"].get<double>());
  // The DLA plateau holds from t ≈ 5 on.
  const auto d = test::read_csv(dir / "run" / "trajectory_DLA.csv");
  for (std::size_t i = 0; i < d.at("t").size(); ++i)
    if (d.at("t")[i] >= 10.0) REQUIRE(std::abs(d.at("energy_error")[i] - dla["final_energy_error"].get<double>()) < 1e-5);

  // Claim 1 on this run: the Newmark methods keep A(q)v = 0 to round-off; RK4 does not exactly.
  CHECK(dla["max_constraint_residual"].get<double>() <= 1e-13);
  CHECK(psi["max_constraint_residual"].get<double>() <= 1e-13);
  CHECK(test::task(m, "RK4")["summary"]["max_constraint_residual"].get<double>() > 1e-15);
}

TEST_CASE("Orders on the particle (spec 000 claim 3): fitted and successive within 0.15", "[studies][newmark]") {
  const test::TempDir dir("conv_particle");
  const auto rep = test::run_bundled_study("studies/newmark/convergence_particle.json", dir / "run");
  const std::map<std::string, int> expected = {{"F000", 1}, {"F001", 1}, {"DLA", 2}, {"F0.1_0.1_half", 2},
                                               {"Psi_h", 2}, {"triple_jump", 4}, {"RK4", 4}};
  // Spec 000 claim 3: repro errors at h = 0.1.
  const std::map<std::string, double> error_at_01 = {
      {"DLA", 9.2e-4}, {"Psi_h", 6.6e-4}, {"F0.1_0.1_half", 1.1e-3}, {"RK4", 3.4e-7}, {"triple_jump", 3.9e-6}};
  REQUIRE(rep.manifest["convergence"].size() == expected.size());
  for (const auto& c : rep.manifest["convergence"]) {
    const std::string label = c["label"];
    INFO(label);
    CHECK(c["declared_order"].get<int>() == expected.at(label));
    CHECK(std::abs(c["fitted_order"].get<double>() - expected.at(label)) <= 0.15);
    for (const auto& r : c["successive_orders"]) CHECK(std::abs(r.get<double>() - expected.at(label)) <= 0.15);
    CHECK(c["agrees"].get<bool>());
    if (error_at_01.contains(label)) {
      const double e = c["errors"][0]["error_qv"];
      CHECK(e == Approx(error_at_01.at(label)).epsilon(0.06));
    }
  }
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
