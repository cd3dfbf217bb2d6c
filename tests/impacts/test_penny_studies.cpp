// Seed 004 end to end: the bundled studies of Figs. 1–5 and Table I (studies/penny/) run and their
// checked claims (the studies' "claims" blocks, spec 004 claims 9–21) must all hold; here only what a
// study cannot state: the edge alternation at every impact, the contact path inside the table outline,
// the exact rms spread of Fig. 5, and Fig. 5 (claim 17) again as a direct exact-flow ensemble.
#include <catch2/catch.hpp>
#include <cstdio>
#include <dalembert/core/sampler.hpp>
#include <set>

#include "claims_support.hpp"
#include "penny_support.hpp"

using namespace dalembert;
using namespace dalembert::test;

namespace {

double summary(const nlohmann::json& task, const std::string& key) { return task.at("summary").at(key).get<double>(); }

// Contact points of 100 members at t = 5, 10, 15, 20 (spec 004 §6.2: (θ̇0, φ̇0) + U(−0.005, 0.005),
// independent, seeded), elastic law, exact flow + exact locator, steps of 0.05 s.
std::vector<double> fig5_spread(const std::string& table) {
  auto sys = make_disk(table);
  std::vector<std::vector<double>> xs(4), ys(4);
  for (int i = 0; i < 100; ++i) {
    RandomStream rng(2024, static_cast<std::uint64_t>(i));
    State s = penny_state(10.0 + rng.uniform(-0.005, 0.005), 0.2 + rng.uniform(-0.005, 0.005));
    ExactFlow exact;
    auto map = registry().make_impact("elastic_nonholonomic", nullptr, "test");
    Simulation sim(*sys, exact);
    sim.set_impact_map(map.get());
    for (int k = 0; k < 4; ++k) {
      sim.run(s, 0.05, 100);  // 5 s
      xs[k].push_back(s.q[0]);
      ys[k].push_back(s.q[1]);
    }
  }
  std::vector<double> out;
  for (int k = 0; k < 4; ++k) out.push_back(rms_spread(xs[k], ys[k]));
  return out;
}

}  // namespace

TEST_CASE("Claim 17 (Fig. 5): 100 perturbed initial conditions spread on the ellipse, not on the circle",
          "[impacts][penny][fig5]") {
  const auto e = fig5_spread("ellipse");
  const auto c = fig5_spread("circle");
  char line[200];
  std::snprintf(line, sizeof line, "rms spread at t = 5, 10, 15, 20 s: ellipse %.4f %.4f %.4f %.4f, circle %.4f %.4f %.4f %.4f",
                e[0], e[1], e[2], e[3], c[0], c[1], c[2], c[3]);
  WARN(line);  // spec 004 §4: 0.006, 0.032, 0.109, 0.112 m on the ellipse
  CHECK(e[0] < 0.01);  // claim 17: < 0.01 m at t = 5 s
  CHECK(e[3] > 0.08);  // claim 17: > 0.08 m at t = 20 s
  for (double r : c) CHECK(r < 0.01);  // claim 17: the circle stays < 0.01 m
}

TEST_CASE("Figs. 1-4: the bundled studies (RK4 h = 1e-3, exact locator) reproduce the first 20 impacts",
          "[impacts][penny][studies]") {
  // The impact times, post-impact states, energies, limit cycles and impact counts (spec 004 §4 tables,
  // claims 9–16, 20, 21) are the studies' checked claims. Claim "20 count" of the plastic studies (the
  // exact flow finds all 20 impacts) needs the exact-flow locator that finds near-grazing impacts.
  struct Fig {
    std::string file;
    bool elastic;
    std::vector<std::string> claims;
  };
  const std::vector<Fig> figs = {
      {"studies/penny/fig1_elastic_circle.json", true,
       {"9 t1", "9 t1 RK4", "10 thetadot+", "10 phidot+", "10 t10", "10 t20", "21 t10 RK4", "21 t20 RK4", "12 energy",
        "12 E20", "12 E1 RK4", "12 E20 RK4", "11 thetadot+ k19", "11 phidot+ k20", "16 other edge inside", "12 count RK4"}},
      {"studies/penny/fig2_plastic_circle.json", false,
       {"9 t1", "9 t1 RK4", "10 thetadot+", "13 E1", "13 E1 RK4", "13 E20", "13 E20 RK4", "13 limit Omega",
        "13 limit omega", "13 restitution k12", "21 t10 RK4", "21 count RK4", "20 count"}},
      {"studies/penny/fig3_elastic_ellipse.json", true,
       {"9 t1", "9 t1 RK4", "10 thetadot+", "10 t10", "10 t20", "21 t10 RK4", "21 t20 RK4", "12 energy", "12 E20",
        "12 E1 RK4", "12 E20 RK4", "12 count RK4"}},
      {"studies/penny/fig4_plastic_ellipse.json", false,
       {"9 t1", "9 t1 RK4", "10 thetadot+", "14 E1", "14 E1 RK4", "14 E20", "14 E20 RK4", "14 limit Omega",
        "14 E fraction", "21 t10 RK4", "21 count RK4", "20 count"}}};
  for (const Fig& f : figs) {
    INFO(f.file);
    const TempDir dir("penny");
    const auto rep = run_bundled_study(f.file, dir / "run");
    test::require_claims(rep, f.claims);
    const auto& t = task(rep.manifest, "RK4");
    // Elastic: RK4 finds all 20 impacts; plastic: every impact up to k = 12 (claim 21; impacts k ≳ 13
    // are near-grazing). The edges alternate F, B, F, B, … at every one of them (claim 16).
    const int n = static_cast<int>(summary(t, "impact_count"));
    REQUIRE(n >= (f.elastic ? 20 : 12));
    for (int k = 1; k <= std::min(n, f.elastic ? 20 : 12); ++k)
      CHECK(summary(t, "impact_" + std::to_string(k) + "_guard") == (k - 1) % 2);
    WARN(f.file << ": " << n << " impacts, max |E - E0| between impacts (RK4) = " << summary(t, "max_abs_energy_error"));
    // The contact-point path stays inside the table outline (spec 004 §4, Figs. 1–4).
    const auto csv = read_csv(dir / "run" / "trajectory_RK4.csv");
    const bool ellipse = f.file.find("ellipse") != std::string::npos;
    const double a = ellipse ? 0.15 : 0.2, b = 0.2;
    double worst = -1;
    for (std::size_t i = 0; i < csv.at("t").size(); ++i) {
      const double x = csv.at("contact_x")[i], y = csv.at("contact_y")[i];
      worst = std::max(worst, x * x / (a * a) + y * y / (b * b) - 1);
      worst = std::max(worst, std::max(csv.at("h_front")[i], csv.at("h_back")[i]));
    }
    CHECK(worst <= 1e-9);
  }
}

TEST_CASE("Table I: the parameters in use, printed from the resolved study", "[impacts][penny][studies]") {
  const TempDir dir("table1");
  const auto rep = run_bundled_study("studies/penny/table1_parameters.json", dir / "run");
  // Spec 004 §4, Table I and E0: the study's checked claims.
  test::require_claims(rep, {"Table I R", "Table I m", "Table I I", "Table I J", "Table I b", "Table I a ellipse", "Table I a circle",
                     "Sec 4 E0"});
  const auto& p = rep.manifest.at("study").at("system").at("params");
  const double R = p.at("R"), m = p.at("m"), I = p.at("I"), J = p.at("J");
  char table[600];
  std::snprintf(table, sizeof table,
                "Table I (parameters in use)\n| Parameter | Value |\n|---|---|\n| R | %g m |\n| m | %g kg |\n"
                "| I = mR^2/2 | %g kg m^2 |\n| J = mR^2/4 | %g kg m^2 |\n| b | %g m |\n| a, elliptical table | %g m |\n"
                "| a, circular table | %g m |",
                R, m, I, J, p.at("b").get<double>(), p.at("a").get<double>(), p.at("radius").get<double>());
  WARN(table);
}

TEST_CASE("Claim 17 through the ensemble runner: studies/penny/fig5_ensemble_ellipse.json", "[impacts][penny][fig5][studies]") {
  {
    const TempDir dir("fig5c");
    test::require_claims(run_bundled_study("studies/penny/fig5_ensemble_circle.json", dir / "run"), {"17 circle x", "17 circle y"});
  }
  const TempDir dir("fig5");
  // The study checks claim 17 through sufficient conditions on var(contact_x), var(contact_y) (the
  // claims engine has no sum); the rms spread itself is checked below.
  test::require_claims(run_bundled_study("studies/penny/fig5_ensemble_ellipse.json", dir / "run"), {"17 t=5 x", "17 t=5 y", "17 t=20"});
  std::filesystem::path stats;
  for (const auto& e : std::filesystem::directory_iterator(dir / "run"))
    if (e.path().filename().string().rfind("ensemble_stats", 0) == 0) stats = e.path();
  REQUIRE(!stats.empty());
  const auto csv = read_csv(stats);
  std::map<double, double> rms;  // rms spread = sqrt(var contact_x + var contact_y) at the recorded times
  for (std::size_t i = 0; i < csv.at("t").size(); ++i)
    rms[csv.at("t")[i]] = std::sqrt(csv.at("contact_x_var")[i] + csv.at("contact_y_var")[i]);
  for (double t : {5.0, 10.0, 15.0, 20.0}) REQUIRE(rms.contains(t));
  WARN("ensemble runner, RK4 h = 2e-3: rms spread at 5, 10, 15, 20 s = " << rms[5.0] << ", " << rms[10.0] << ", "
                                                                         << rms[15.0] << ", " << rms[20.0]);
  CHECK(rms[5.0] < 0.01);   // spec 004 claim 17
  CHECK(rms[20.0] > 0.08);  // spec 004 claim 17
}
