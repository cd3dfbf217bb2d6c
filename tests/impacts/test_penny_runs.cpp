// Seed 004 (Clark & Bloch), spec 004 claims 9–18 and 21: the first 20 impacts of the four runs of
// Figs. 1–4 with the exact flow and the exact event locator (spec 004 §3), against the independent
// reproduction's reference values copied from ../shared/specs/004_nonholonomic_impacts.md §4–5.
#include <catch2/catch.hpp>
#include <map>

#include "penny_support.hpp"

using namespace dalembert;
using namespace dalembert::test;

namespace {

struct Case {
  std::string law, table;
  double T;                        // a little after the 20th impact (spec 004 §4 table)
  std::map<int, double> times;     // spec 004 §4, "Impact times" (k → t_k), 12 decimals
  double theta_post1, phi_post1;   // spec 004 §4, first post-impact θ̇⁺, φ̇⁺
  double energy_post1;             // E₁⁺
};

const std::vector<Case>& cases() {
  static const std::vector<Case> c = {
      {"elastic_nonholonomic", "circle", 37.9,
       {{1, 1.913388210255}, {2, 2.060738503836}, {3, 5.887514924347}, {4, 6.034865217927}, {5, 9.861641638438},
        {10, 17.957245360201}, {20, 37.827878930657}},
       -6.566329034520366, 18.47538735892942, 1.875125e-5},
      {"plastic_nonholonomic", "circle", 8.3,
       {{1, 1.913388210255}, {2, 2.129146134503}, {3, 2.561096661145}, {4, 2.843785688023}, {5, 3.226098273434},
        {10, 4.867957415672}, {20, 8.232392014416}},
       -1.363586143072439, 12.73590569875001, 5.417484280779e-6},
      {"elastic_nonholonomic", "ellipse", 23.8,
       {{1, 1.883406920198}, {2, 2.499852752599}, {3, 4.611455113063}, {4, 4.774580555962}, {5, 7.183271251123},
        {10, 12.704334402188}, {20, 23.767117735750}},
       -9.845787665707951, 4.289847485722432, 1.875125e-5},
      {"plastic_nonholonomic", "ellipse", 27.6,
       {{1, 1.883406920198}, {2, 2.860794908208}, {3, 4.353533659893}, {4, 5.641936628586}, {5, 7.050522632555},
        {10, 13.868524303191}, {20, 27.572312417033}},
       -3.246041759789376, 2.929762683123839, 2.243882250538e-6},
  };
  return c;
}

PennyRun exact_run(const Case& c) {
  auto sys = make_disk(c.table);
  return run_penny(*sys, c.law, c.T, 0.01, penny_state());
}

}  // namespace

TEST_CASE("Claim 9: first impact on the circle at (-0.0399, sqrt(0.04 - 0.0399^2)), t1 = (phi1 - pi/2)/0.2",
          "[impacts][penny]") {
  auto sys = make_disk("circle");
  const PennyRun r = run_penny(*sys, "elastic_nonholonomic", 2.0, 0.01, penny_state());
  REQUIRE(r.impacts.size() == 1);
  const Impact& i = r.impacts[0];
  CHECK(i.sigma == 0);  // front edge
  const double X = i.pre.q[0] + kR * std::cos(i.pre.q[3]), Y = i.pre.q[1] + kR * std::sin(i.pre.q[3]);
  CHECK(std::abs(X - (-0.0399)) < 1e-13);
  CHECK(std::abs(Y - std::sqrt(0.04 - 0.0399 * 0.0399)) < 1e-13);
  CHECK(std::abs(i.pre.t - 1.913388210255474) < 1e-12);
  CHECK(std::abs((i.pre.q[3] - std::numbers::pi / 2) / 0.2 - 1.913388210255474) < 1e-12);
}

TEST_CASE("Claims 10, 16, 21: first post-impact states, impact times, edge sequence (exact flow)", "[impacts][penny]") {
  for (const Case& c : cases()) {
    INFO(c.law << " on the " << c.table);
    auto sys = make_disk(c.table);
    const auto& g = dynamic_cast<const Guarded&>(*sys);
    const PennyRun r = run_penny(*sys, c.law, c.T, 0.01, penny_state());
    REQUIRE(r.impacts.size() == 20);
    // Claim 10: t1, θ̇⁺, φ̇⁺ to 1e-9; E₁⁺.
    CHECK(std::abs(r.impacts[0].post.v[2] - c.theta_post1) < 1e-9);
    CHECK(std::abs(r.impacts[0].post.v[3] - c.phi_post1) < 1e-9);
    CHECK(std::abs(sys->energy(r.impacts[0].post) - c.energy_post1) < 1e-12 * c.energy_post1 + 1e-18);
    // Claims 10 and 21: the impact times of the table (rounded to 1e-12 there). Elastic: every
    // impact to 1e-9. Plastic: k ≤ 12 to 1e-8 (claim 21); beyond that impacts are near-grazing
    // (dh q̇⁻ < 1e-6) and double precision may deviate by ~1e-6: k = 20 is checked to 2e-6 only.
    const bool elastic = c.law == "elastic_nonholonomic";
    for (const auto& [k, t] : c.times) {
      INFO("impact " << k);
      const double tol = elastic ? 1e-9 : (k <= 12 ? 1e-8 : 2e-6);
      CHECK(std::abs(r.impacts[k - 1].pre.t - t) < tol);
    }
    for (std::size_t k = 0; k < r.impacts.size(); ++k) {
      INFO("impact " << k + 1);
      // Claim 16: impact 1 uses the front edge, then B, F, B, …; the other edge is strictly inside.
      CHECK(r.impacts[k].sigma == static_cast<int>(k % 2));
      CHECK(g.guard(1 - r.impacts[k].sigma, r.impacts[k].pre.q) < -0.18);
      // The located impact is on the wall: |h̃_σ| ≈ 0 (time located to < 1e-12).
      CHECK(std::abs(g.guard(r.impacts[k].sigma, r.impacts[k].pre.q)) < 1e-12);
      CHECK(sys->constraint_residual(r.impacts[k].post) < 1e-15);
    }
  }
}

TEST_CASE("Claims 11, 12, 18: elastic circle - two alternating states, fixed times, radius, angle", "[impacts][penny]") {
  auto sys = make_disk("circle");
  const PennyRun r = run_penny(*sys, "elastic_nonholonomic", 37.9, 0.01, penny_state());
  REQUIRE(r.impacts.size() == 20);
  for (std::size_t k = 0; k < r.impacts.size(); ++k) {
    INFO("impact " << k + 1);
    const Impact& i = r.impacts[k];
    // Claim 11: post-impact (Ω, ω) alternates between (−6.566329034520366, 18.47538735892942) and (10, 0.2).
    if (k % 2 == 0) {
      CHECK(std::abs(i.post.v[2] - -6.566329034520366) < 1e-9);
      CHECK(std::abs(i.post.v[3] - 18.47538735892942) < 1e-9);
    } else {
      CHECK(std::abs(i.post.v[2] - 10.0) < 1e-9);
      CHECK(std::abs(i.post.v[3] - 0.2) < 1e-9);
    }
    // Claim 11: inter-impact times alternate 0.1473502935803 / 3.8267764205109.
    if (k > 0) CHECK(std::abs(i.pre.t - r.impacts[k - 1].pre.t - (k % 2 ? 0.1473502935803 : 3.8267764205109)) < 1e-9);
    // Claim 11: |(x, y)| = 0.190173453242 at every impact.
    CHECK(std::abs(std::hypot(i.pre.q[0], i.pre.q[1]) - 0.190173453242) < 1e-11);
    // Claim 12: E = 1.875125e-5 J at all 40 pre- and post-impact states, to 1e-12 relative.
    CHECK(std::abs(sys->energy(i.pre) - kE0) <= 1e-12 * kE0);
    CHECK(std::abs(sys->energy(i.post) - kE0) <= 1e-12 * kE0);
    // Claim 18: |cos ψ| between heading and wall normal (at the edge point) = 0.983514420538.
    const double sg = i.sigma == 0 ? 1 : -1, c = std::cos(i.pre.q[3]), s = std::sin(i.pre.q[3]);
    const double X = i.pre.q[0] + sg * kR * c, Y = i.pre.q[1] + sg * kR * s;
    CHECK(std::abs(std::abs((X * c + Y * s) / std::hypot(X, Y)) - 0.983514420538) < 1e-11);
    // Claim 11: each long arc (after a back-edge impact) passes through the origin at its midpoint.
    if (k % 2 == 1 && k + 1 < r.impacts.size()) {
      State mid;
      sys->exact_solution(i.post, 0.5 * (i.pre.t + r.impacts[k + 1].pre.t), mid);
      CHECK(std::hypot(mid.q[0], mid.q[1]) < 1e-10);
    }
  }
}

TEST_CASE("Claim 11: generic initial conditions on the circle - edges alternate, two post-impact states",
          "[impacts][penny]") {
  auto sys = make_disk("circle");
  RandomStream rng(11, 0);
  int tested = 0;
  for (int trial = 0; trial < 40 && tested < 8; ++trial) {
    const State s0 = penny_state(rng.uniform(-12, 12), rng.uniform(-3, 3), rng.uniform(0, 6.283),
                                 rng.uniform(-0.1, 0.1), rng.uniform(-0.1, 0.1));
    const PennyRun r = run_penny(*sys, "elastic_nonholonomic", 60.0, 0.05, s0);
    if (r.impacts.size() < 8) continue;  // spins in place (never reaches the wall) or too slow
    ++tested;
    for (std::size_t k = 1; k < r.impacts.size(); ++k) {
      CHECK(r.impacts[k].sigma != r.impacts[k - 1].sigma);
      if (k >= 2) {
        CHECK(std::abs(r.impacts[k].post.v[2] - r.impacts[k - 2].post.v[2]) < 1e-8 * (1 + std::abs(s0.v[2])));
        CHECK(std::abs(r.impacts[k].post.v[3] - r.impacts[k - 2].post.v[3]) < 1e-8 * (1 + std::abs(s0.v[2])));
      }
    }
  }
  CHECK(tested >= 5);
}

TEST_CASE("Claims 12-15, 18: energies and limit cycles of the plastic and elastic runs", "[impacts][penny]") {
  const auto& cs = cases();
  // Claim 12 on the ellipse: E constant to 1e-12 relative at all 40 states.
  {
    auto sys = make_disk("ellipse");
    const PennyRun r = exact_run(cs[2]);
    for (const auto& i : r.impacts) {
      CHECK(std::abs(sys->energy(i.pre) - kE0) <= 1e-12 * kE0);
      CHECK(std::abs(sys->energy(i.post) - kE0) <= 1e-12 * kE0);
    }
  }
  struct Limit {
    std::size_t case_index;
    double E20;                   // E₂₀⁺ (claims 13, 14)
    double Om_inf, om_inf;        // (Ω, ω) → (claims 13, 14)
    std::vector<double> last_dt;  // claim 15
  };
  const std::vector<Limit> limits = {{1, 3.27742711563e-6, 1.7168355, 9.3376937, {0.297497, 0.375387}},
                                     {3, 1.65260399759e-7, 0.0739082, 2.2925004, {1.342262, 1.398494}}};
  for (const Limit& L : limits) {
    const Case& c = cs[L.case_index];
    INFO("plastic on the " << c.table);
    auto sys = make_disk(c.table);
    const auto& g = dynamic_cast<const Guarded&>(*sys);
    const PennyRun r = exact_run(c);
    REQUIRE(r.impacts.size() == 20);
    // Energy non-increasing (claim 14), E₁⁺ and E₂₀⁺ (claims 13, 14).
    double prev = kE0;
    for (const auto& i : r.impacts) {
      CHECK(sys->energy(i.post) <= prev * (1 + 1e-15));
      CHECK(sys->energy(i.post) < sys->energy(i.pre));
      prev = sys->energy(i.post);
    }
    CHECK(std::abs(sys->energy(r.impacts[19].post) - L.E20) < 1e-8 * L.E20);
    if (c.table == "ellipse") CHECK(sys->energy(r.impacts[19].post) / kE0 == Approx(0.008813).margin(5e-7));
    // (Ω, ω) → limit (given to 7–8 digits). The last impacts are near-grazing (dh q̇⁻ ~ 1e-7): in double
    // precision (Ω, ω) wanders there by a few 1e-6 on the ellipse (spec 004 claim 21).
    CHECK(std::abs(r.impacts[19].post.v[2] - L.Om_inf) < 5e-6);
    CHECK(std::abs(r.impacts[19].post.v[3] - L.om_inf) < 5e-6);
    // Claim 15: the last inter-impact times, and (π ∓ 2 atan(ρ∞/R))/|ω∞| with ρ∞ = R|Ω∞/ω∞|.
    const double d20 = r.impacts[19].pre.t - r.impacts[18].pre.t, d19 = r.impacts[18].pre.t - r.impacts[17].pre.t;
    const double lo = std::min(d19, d20), hi = std::max(d19, d20);
    CHECK(std::abs(lo - L.last_dt[0]) < 2e-6);
    CHECK(std::abs(hi - L.last_dt[1]) < 2e-6);
    const double rho = kR * std::abs(L.Om_inf / L.om_inf);
    CHECK(std::abs(lo - (std::numbers::pi - 2 * std::atan(rho / kR)) / L.om_inf) < 2e-6);
    CHECK(std::abs(hi - (std::numbers::pi + 2 * std::atan(rho / kR)) / L.om_inf) < 2e-6);
    if (c.table == "circle") {
      // Claim 13: dh q̇⁺/dh q̇⁻ = −0.3718894656 at every impact; dh q̇⁻ decays geometrically.
      for (std::size_t k = 0; k < 12; ++k) {
        INFO("impact " << k + 1);
        const double wm = g.guard_rate(r.impacts[k].sigma, r.impacts[k].pre);
        const double wp = g.guard_rate(r.impacts[k].sigma, r.impacts[k].post);
        CHECK(std::abs(wp / wm - -0.3718894656) < 1e-9);
        if (k > 0 && k < 10) {  // later rates (< 1e-4) carry round-off of relative size > 1e-7
          const double wprev = g.guard_rate(r.impacts[k - 1].sigma, r.impacts[k - 1].pre);
          CHECK(std::abs(wm / wprev - 0.3718894656) < 1e-7);
        }
        // Claim 18 under the plastic law: the same |cos ψ| at every impact.
        const Impact& i = r.impacts[k];
        const double sg = i.sigma == 0 ? 1 : -1, cc = std::cos(i.pre.q[3]), s = std::sin(i.pre.q[3]);
        const double X = i.pre.q[0] + sg * kR * cc, Y = i.pre.q[1] + sg * kR * s;
        CHECK(std::abs(std::abs((X * cc + Y * s) / std::hypot(X, Y)) - 0.983514420538) < 1e-9);
      }
    }
  }
  // Spec 004 §4: the plastic circle loses energy to 17.48 % of E0 within about 5 impacts.
  {
    auto sys = make_disk("circle");
    const PennyRun r = exact_run(cs[1]);
    CHECK(sys->energy(r.impacts[19].post) / kE0 == Approx(0.1748).margin(5e-4));
  }
}
