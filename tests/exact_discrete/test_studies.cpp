// The bundled studies of studies/exact_discrete/ run end to end (runner, observers, manifests).
// Numbers from ../shared/specs/002_exact_discrete_nonholonomic.md §4 (cited per check).
#include <catch2/catch.hpp>
#include <cmath>

#include "claims_support.hpp"
#include "ed_support.hpp"

using namespace dalembert;

TEST_CASE("Fig 2 and Fig 3 studies (spec 002 §4 item 1, claims 15, A4): their checked claims hold",
          "[exact_discrete][studies]") {
  const test::TempDir dir("ed_fig23");
  test::require_claims(test::run_bundled_study("studies/exact_discrete/fig2_particle.json", dir / "fig2"),
                 {"H0 MLA", "H_final MLA", "15 MLA band", "H0 DLA", "H_final DLA", "15 DLA band", "15 MLA better"});
  // Fig 3, interpretation (a): final error MLA 6.218, DLA 7.309 ("MLA slightly better").
  test::require_claims(test::run_bundled_study("studies/exact_discrete/fig3_particle.json", dir / "fig3"),
                 {"fig3 MLA", "fig3 DLA", "fig3 MLA better"});
}

TEST_CASE("Fig 3 interpretation (b): each method's own v0 (spec 002 §4 item 1, A4)", "[exact_discrete][studies]") {
  // v0 = FL⁻¹(π^−(q0,q1)): MLA (0.8307692307692, 0.8, 0), DLA (0.8, 0.8, 0); final errors 0.0345 and 4.93.
  auto sys = test::system("nonholonomic_particle");
  for (const auto& [m, v0, want] : {std::tuple{"mla", 0.8307692307692308, 0.0345}, std::tuple{"dla", 0.8, 4.93}}) {
    auto I = test::integrator(m, {{"q1", {0.4, 0.4, 0.08}}, {"form", "two_step"}});
    const auto r = test::run(*sys, *I, test::make_state({0, 0, 0}, {0, 0, 0}), 0.5, 1200);
    State ex;
    sys->exact_solution(test::make_state({0, 0, 0}, {v0, 0.8, 0}), 600.0, ex);
    CHECK((r.q[1200] - ex.q).norm() == Approx(want).epsilon(2e-3));
  }
}

TEST_CASE("Fig 5/6 studies (spec 002 §4 items 2-3, claim 16): their checked claims hold", "[exact_discrete][studies]") {
  const test::TempDir dir("ed_fig56");
  test::require_claims(test::run_bundled_study("studies/exact_discrete/fig5_knife.json", dir / "fig5"),
                 {"16 MLA band", "16 DLA band", "16 MLA H0"});
  test::require_claims(test::run_bundled_study("studies/exact_discrete/fig6_perturbed_knife.json", dir / "fig6"),
                 {"16 MLA band", "16 DLA band"});
}

TEST_CASE("Fig 4 study: M_d and M^e through q0 = 0 (spec 002 §4 item 4)", "[exact_discrete][studies]") {
  const test::TempDir dir("ed_fig4");
  test::run_bundled_study("studies/exact_discrete/fig4_constraint_spaces.json", dir / "run");
  const auto c = test::read_csv(dir / "run" / "trajectory_exact.csv");
  for (std::size_t i = 0; i < c.at("t").size(); ++i) {
    const double x = c.at("x")[i], y = c.at("y")[i];
    CHECK(std::abs(c.at("z_Md")[i] - x * y / 2) < 1e-12);  // M_d: z1 = x1 y1 / 2
    CHECK(std::abs(c.at("z_Me")[i] - c.at("z")[i]) < 1e-10);  // the exact trajectory lies on M^e
    if (y > 0) CHECK(std::abs(c.at("z_Me")[i] - x * (std::sqrt(1 + y * y) - 1) / std::asinh(y)) < 1e-10);
  }
}

TEST_CASE("Convergence and energy-ladder studies (spec 002 claims 17-19): their checked claims hold",
          "[exact_discrete][studies]") {
  const test::TempDir dir("ed_conv");
  for (const std::string name : {"particle", "knife", "perturbed_knife"}) {
    INFO(name);
    test::require_claims(test::run_bundled_study("studies/exact_discrete/convergence_" + name + ".json", dir / name),
                   {"17 MLA order", "17 DLA order", "17 MLA error", "17 DLA error", "19", "order MLA", "order DLA"});
    test::require_claims(test::run_bundled_study("studies/exact_discrete/energy_ladder_" + name + ".json", dir / ("e" + name)),
                   {"18 MLA rate", "18 DLA rate"});
  }
}
