// The bundled studies of studies/exact_discrete/ run end to end (runner, observers, manifests).
// Numbers from ../shared/specs/002_exact_discrete_nonholonomic.md §4 (cited per check).
#include <catch2/catch.hpp>
#include <cmath>

#include "ed_support.hpp"

using namespace dalembert;

TEST_CASE("Fig 2 and Fig 3 studies (spec 002 §4 item 1, claims 15, A4)", "[exact_discrete][studies]") {
  const test::TempDir dir("ed_fig23");
  const auto m2 = test::run_bundled_study("studies/exact_discrete/fig2_particle.json", dir / "fig2").manifest;
  const auto& mla = test::task(m2, "MLA")["summary"];
  const auto& dla = test::task(m2, "DLA")["summary"];
  CHECK(mla["H0"].get<double>() == Approx(0.665088757396).epsilon(1e-9));
  CHECK(mla["H_final"].get<double>() == Approx(0.665133018812).epsilon(1e-9));
  CHECK(mla["max_abs_H_minus_H0"].get<double>() == Approx(4.43e-5).epsilon(5e-3));
  CHECK(dla["H0"].get<double>() == Approx(0.64).epsilon(1e-12));
  CHECK(dla["H_final"].get<double>() == Approx(0.646605796811).epsilon(1e-9));
  CHECK(dla["max_abs_H_minus_H0"].get<double>() == Approx(6.61e-3).epsilon(5e-3));
  // Fig 3, interpretation (a): final error MLA 6.218, DLA 7.309 ("MLA slightly better").
  const auto m3 = test::run_bundled_study("studies/exact_discrete/fig3_particle.json", dir / "fig3").manifest;
  CHECK(test::task(m3, "MLA")["summary"]["final_position_error"].get<double>() == Approx(6.218).epsilon(1e-3));
  CHECK(test::task(m3, "DLA")["summary"]["final_position_error"].get<double>() == Approx(7.309).epsilon(1e-3));
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

TEST_CASE("Fig 5/6 studies (spec 002 §4 items 2-3, claim 16)", "[exact_discrete][studies]") {
  const test::TempDir dir("ed_fig56");
  const auto m5 = test::run_bundled_study("studies/exact_discrete/fig5_knife.json", dir / "fig5").manifest;
  CHECK(test::task(m5, "MLA")["summary"]["H_band"].get<double>() == Approx(4.6e-4).epsilon(0.02));
  CHECK(test::task(m5, "DLA")["summary"]["H_band"].get<double>() == Approx(3.8e-2).epsilon(0.02));
  const auto m6 = test::run_bundled_study("studies/exact_discrete/fig6_perturbed_knife.json", dir / "fig6").manifest;
  CHECK(test::task(m6, "MLA")["summary"]["H_band"].get<double>() == Approx(2.0e-2).epsilon(0.03));
  CHECK(test::task(m6, "DLA")["summary"]["H_band"].get<double>() == Approx(0.66).epsilon(0.01));
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

TEST_CASE("Convergence and energy-ladder studies (spec 002 claims 17-19)", "[exact_discrete][studies]") {
  const test::TempDir dir("ed_conv");
  for (const std::string name : {"particle", "knife", "perturbed_knife"}) {
    INFO(name);
    const auto m = test::run_bundled_study("studies/exact_discrete/convergence_" + name + ".json", dir / name).manifest;
    for (const auto& c : m["convergence"]) {
      const std::string label = c["label"];
      if (label == "exact") {
        for (const auto& e : c["errors"]) CHECK(e["error_q"].get<double>() < 1e-11);  // claim 19
      } else {
        CHECK(std::abs(c["fitted_order"].get<double>() - 2.0) < 0.05);  // claim 17
        CHECK(c["agrees"].get<bool>());
      }
    }
    const auto e = test::run_bundled_study("studies/exact_discrete/energy_ladder_" + name + ".json", dir / ("e" + name)).manifest;
    auto err = [&](const std::string& l) { return test::task(e, l)["summary"]["max_abs_H_minus_E0"].get<double>(); };
    const double pm = std::log(err("MLA_h0.5") / err("MLA_h0.125")) / std::log(4.0);
    const double pd = std::log(err("DLA_h0.5") / err("DLA_h0.125")) / std::log(4.0);
    CHECK((pm >= 3.8 && pm <= 4.2));  // claim 18
    CHECK((pd >= 1.9 && pd <= 2.1));
  }
}
