// A potential U(t, q) that changes in time, and external forces in DLA and MLA (issue 30 item 1).
// Each check compares with something the code under test does not compute: U's derivatives and the
// blade's equation u̇ = f₀ cos Ωt cos φ written out (plugins/systems/rocking_knife_edge/README.md), the
// seed knife edge (whose V(q) is the rocking one's U at Ω = 0, so the forced discrete
// Lagrange–d'Alembert steps must equal the variational ones), and the bundled study's claims.
#include <catch2/catch.hpp>
#include <cmath>
#include <dalembert/core/nonholonomic_field.hpp>
#include <dalembert/core/time_dependent_potential.hpp>
#include <dalembert/plugin/needs.hpp>

#include "claims_support.hpp"
#include "cli_support.hpp"
#include "support.hpp"

using namespace dalembert;
using nlohmann::json;

namespace {

constexpr double f0 = 0.5, W = 0.8;

std::unique_ptr<System> rocking(json params = json::object()) {
  return test::registry().make_system("rocking_knife_edge", params, "test");
}

// A state on the constraint: blade at (x, y), heading φ, speed u along it, turning at w.
State on_blade(double t, double x, double y, double phi, double u, double w) {
  return test::make_state({x, y, phi}, {u * std::cos(phi), u * std::sin(phi), w}, t);
}

bool lists(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

}  // namespace

TEST_CASE("rocking_knife_edge: U, dU/dq and dU/dt are -f0 cos(Wt) x and its derivatives", "[time_potential]") {
  auto sys = rocking();
  const auto& cl = dynamic_cast<const ConstrainedLagrangian&>(*sys);
  const auto* U = time_dependent_potential_of(cl);
  REQUIRE(U);
  const State s = on_blade(1.7, 0.9, -0.4, 0.6, 1.1, 0.3);
  const double c = std::cos(W * s.t), x = s.q[0];
  CHECK(std::abs(U->time_potential(s.t, s.q) + f0 * c * x) < 1e-15);
  Vec g(3), F(3);
  U->time_potential_gradient(s.t, s.q, g);
  CHECK(std::abs(g[0] + f0 * c) < 1e-15);
  CHECK(g.tail(2).norm() == 0.0);
  CHECK(std::abs(U->time_potential_rate(s.t, s.q) - f0 * W * std::sin(W * s.t) * x) < 1e-15);
  // Its force is the system's external force, and its value part of the energy.
  REQUIRE(cl.has_external_force());
  cl.external_force(s.t, s.q, s.v, F);
  CHECK((F + g).norm() < 1e-15);
  CHECK(std::abs(sys->energy(s) - (0.5 * s.v.squaredNorm() - f0 * c * x)) < 1e-15);
}

TEST_CASE("rocking_knife_edge: the field gives phi'' = 0 and u' = f0 cos(Wt) cos(phi)", "[time_potential]") {
  auto sys = rocking();
  NonholonomicVectorField field;
  field.bind(dynamic_cast<const ConstrainedLagrangian&>(*sys));
  Vec qd(3), vd(3);
  for (const State& s : {on_blade(0.0, 0.0, 0.0, 0.0, 0.8, 0.8), on_blade(2.3, 1.5, -2.0, 2.1, -0.7, 0.4),
                         on_blade(7.9, -3.0, 0.5, -1.2, 2.5, -1.1)}) {
    field.evaluate(s.t, s.q, s.v, qd, vd);
    const double phi = s.q[2], w = s.v[2];
    // u̇ = ẍ cos φ + ÿ sin φ + φ̇(−ẋ sin φ + ẏ cos φ)
    const double udot = vd[0] * std::cos(phi) + vd[1] * std::sin(phi) + w * (-s.v[0] * std::sin(phi) + s.v[1] * std::cos(phi));
    CHECK(std::abs(vd[2]) < 1e-15);
    CHECK(std::abs(udot - f0 * std::cos(W * s.t) * std::cos(phi)) < 1e-14);
  }
}

TEST_CASE("capabilities: a time-dependent potential is forced, and no compiled scheme is listed for it",
          "[time_potential]") {
  const auto rock = capabilities_of(*rocking());
  CHECK(lists(rock, "TimeDependentPotential"));
  CHECK_FALSE(lists(rock, "Unforced"));
  CHECK_FALSE(lists(rock, "CompiledSchemes"));  // a forced model compiles none (issue 32 item 1)
  const auto knife = capabilities_of(*test::registry().make_system("knife_edge", json::object(), "test"));
  CHECK(lists(knife, "CompiledSchemes"));
  CHECK(lists(knife, "Unforced"));
  CHECK_FALSE(lists(knife, "TimeDependentPotential"));
  const auto tracking = capabilities_of(*test::registry().make_system("tracking_sleigh", json::object(), "test"));
  CHECK_FALSE(lists(tracking, "CompiledSchemes"));
}

TEST_CASE("dla and mla: U(t, q) as a force equals the same potential in L_d (Omega = 0: the seed knife edge)",
          "[time_potential]") {
  // With Ω = 0, U = −x/2 is knife_edge's V: the forced discrete Lagrange–d'Alembert steps, which take
  // −∂U/∂q by the midpoint quadrature as F_d^±, must be the variational steps of L_d with V in it.
  auto forced = rocking({{"Omega", 0.0}});
  auto seed = test::registry().make_system("knife_edge", json::object(), "test");
  const State s0 = on_blade(0.0, 0.0, 0.0, 0.0, 0.8, 0.8);
  for (const char* integrator : {"dla", "mla"}) {
    const Vec a = test::integrate(*forced, integrator, s0, 0.1, 200).q, b = test::integrate(*seed, integrator, s0, 0.1, 200).q;
    INFO(integrator << ": " << a.transpose() << " vs " << b.transpose());
    CHECK((a - b).lpNorm<Eigen::Infinity>() < 1e-12 * (1.0 + b.lpNorm<Eigen::Infinity>()));
  }
}

TEST_CASE("dalembert check passes on rocking_knife_edge (dU/dq and dU/dt against differences)", "[time_potential]") {
  const test::TempDir dir("check_rocking");
  const auto r = test::run_cli("check rocking_knife_edge --samples 4 --seed 3", dir.path());
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.status == 0);
  CHECK(r.out.find("time_potential_gradient") != std::string::npos);
  CHECK(r.out.find("time_potential_rate") != std::string::npos);
}

TEST_CASE("resonant_drift study: the invariant and the energy balance at each scheme's order, DLA and MLA included",
          "[time_potential][studies]") {
  const test::TempDir dir("rocking");
  test::require_claims(test::run_bundled_study("studies/rocking_knife_edge/resonant_drift.json", dir / "run"), 8,
                       {"DLA invariant O(h^2)", "MLA invariant O(h^2)", "RK4 invariant O(h^4)",
                        "DLA energy balance O(h^2)", "MLA energy balance O(h^2)", "resonant propulsion"});
}

TEST_CASE("exact_discrete (one_step) keeps the rocking knife edge's invariant K to its tolerance", "[time_potential]") {
  // The exact discrete flow samples the continuous forced flow at t_k: K = u − ∫ f₀ cos Ωt cos φ dt
  // (the drift_invariant diagnostic, closed form) stays at its start over the run.
  auto sys = rocking();
  std::vector<std::string> names;
  sys->diagnostic_names(names);
  const auto col = std::find(names.begin(), names.end(), "drift_invariant") - names.begin();
  State s = on_blade(0.0, 0.0, 0.0, 0.0, 0.8, 0.8);
  auto in = test::registry().make_integrator("exact_discrete", json::object(), "test");
  in->bind(*sys);
  in->begin(s, 0.1);
  std::vector<double> d(names.size());
  double worst = 0.0;
  for (int k = 0; k < 100; ++k) {
    in->advance(s, 0.1);
    sys->diagnostics(s, d.data());
    worst = std::max(worst, std::abs(d[col] - 0.8));
  }
  INFO("max |K - K0| over t in [0, 10]: " << worst << ", u(10) = " << d[0]);
  CHECK(worst < 1e-9);
  CHECK(d[0] > 3.0);  // propelled: u(10) = 0.8 + 0.25 (10 + sin(16)/1.6) = 3.26
}
