// Seed 004 (Clark & Bloch), spec 004 claims 1–8 and 19: the penny's exact flow, the linear algebra
// of §2 against the paper's closed forms (30)–(33), and the three impact laws on random states.
// Numbers are copied from ../shared/specs/004_nonholonomic_impacts.md (named by claim).
#include <Eigen/Dense>
#include <catch2/catch.hpp>
#include <dalembert_plugins/impact_laws.hpp>
#include <random>

#include "penny_support.hpp"

using namespace dalembert;
using namespace dalembert::test;

namespace {

const ConstrainedLagrangian& model(const System& s) { return dynamic_cast<const ConstrainedLagrangian&>(s); }
const Guarded& guards(const System& s) { return dynamic_cast<const Guarded&>(s); }

Mat mass(const System& s) {
  Mat M(4, 4);
  model(s).mass(Vec::Zero(4), M);
  return M;
}
Mat cmat(const System& s, const Vec& q) {
  Mat A(2, 4);
  model(s).constraint_matrix(q, A);
  return A;
}
Vec dh(const System& s, int g, const Vec& q) {
  Vec d(4);
  guards(s).guard_gradient(g, q, d);
  return d;
}

// A random configuration with guard g on the wall of the table, and a random velocity in Δ
// pointing outward through it (an impact state).
State random_impact_state(const System& sys, int g, std::mt19937& rng, bool ellipse) {
  std::uniform_real_distribution<double> U(0.0, 1.0);
  const double a = ellipse ? 0.15 : 0.2, b = 0.2, pi = std::numbers::pi;
  for (;;) {
    const double th = 2 * pi * U(rng), phi = 2 * pi * U(rng);
    const double sg = g == 0 ? 1.0 : -1.0;
    State s = penny_state(20 * U(rng) - 10, 20 * U(rng) - 10, phi, a * std::cos(th) - sg * kR * std::cos(phi),
                          b * std::sin(th) - sg * kR * std::sin(phi));
    s.q[2] = 3 * U(rng);
    if (std::abs(guards(sys).guard(g, s.q)) > 1e-12) continue;
    if (guards(sys).guard_rate(g, s) > 1e-3) return s;
  }
}

double energy(const System& s, const State& st) { return s.energy(st); }

}  // namespace

TEST_CASE("Claim 1: exact flow of the penny (x(1), y(1), Omega, omega, E constant, A qdot = 0)", "[impacts][penny]") {
  auto sys = make_disk("circle");
  const State s0 = penny_state();
  State s1;
  sys->exact_solution(s0, 1.0, s1);
  // spec 004 claim 1: x(1) = 0.5(sin(π/2+0.2) − 1), y(1) = 0.5 sin 0.2.
  CHECK(std::abs(s1.q[0] - (-0.009966711079379)) < 1e-15);
  CHECK(std::abs(s1.q[1] - 0.099334665397531) < 1e-15);
  CHECK(std::abs(sys->energy(s0) - kE0) < 1e-12 * kE0);  // E0 = 1.875125e-5 J (spec 004 §4)
  for (double t : {0.3, 1.0, 7.7, 29.0}) {
    State s;
    sys->exact_solution(s0, t, s);
    CHECK(s.v[2] == 10.0);
    CHECK(s.v[3] == 0.2);
    CHECK(std::abs(sys->energy(s) - kE0) < 1e-15 * kE0);
    CHECK(sys->constraint_residual(s) < 1e-15);
  }
  // Any integrator must match to its accuracy: RK4 at h = 1e-3 on the continuous field.
  auto rk4 = registry().make_integrator("rk4", nullptr, "test");
  Simulation sim(*sys, *rk4);
  State s = s0;
  sim.run(s, 1e-3, 1000);
  CHECK(std::abs(s.q[0] - s1.q[0]) < 1e-13);
  CHECK(std::abs(s.q[1] - s1.q[1]) < 1e-13);
  // ω = 0: the sinc form is regular (a straight line at speed RΩ).
  State line;
  sys->exact_solution(penny_state(10.0, 0.0), 2.0, line);
  CHECK(std::abs(line.q[1] - 0.2) < 1e-16);
}

TEST_CASE("Claim 2: the contact point moves on the circle |(x+0.5, y)| = 0.5 for t in [0, 30]", "[impacts][penny]") {
  auto sys = make_disk("circle");
  const State s0 = penny_state();
  double worst = 0;
  for (int i = 0; i <= 3000; ++i) {
    State s;
    sys->exact_solution(s0, 0.01 * i, s);
    worst = std::max(worst, std::abs(std::hypot(s.q[0] + 0.5, s.q[1]) - 0.5));
  }
  CHECK(worst < 1e-14);  // spec 004 claim 2: to 1e-14
}

TEST_CASE("Claims 3 and 4: projector pi = eq. (33)/(I+mR^2), its properties, a_low = eq. (31)", "[impacts][penny]") {
  auto sys = make_disk("circle");
  std::mt19937 rng(4);
  std::uniform_real_distribution<double> U(-3.0, 3.0);
  ImpactGeometry geo;
  geo.resize(4, 2);
  const Mat M = mass(*sys);
  for (int trial = 0; trial < 20; ++trial) {
    Vec q(4);
    q << 0.01 * U(rng), 0.01 * U(rng), U(rng), U(rng);
    const Mat A = cmat(*sys, q);
    geo.compute(M, A, dh(*sys, 0, q));
    const double c = std::cos(q[3]), s = std::sin(q[3]), R = kR, m = kM, I = kI;
    Mat pi33(4, 4);  // eq. (32–33): (I+mR²) pi
    pi33 << m * R * R * c * c, m * R * R * s * c, I * R * c, 0, m * R * R * s * c, m * R * R * s * s, I * R * s, 0,
        m * R * c, m * R * s, I, 0, 0, 0, 0, I + m * R * R;
    pi33 /= (I + m * R * R);
    const Mat& P = geo.projector();
    CHECK((P - pi33).cwiseAbs().maxCoeff() < 1e-12 * pi33.cwiseAbs().maxCoeff());
    CHECK((P * P - P).cwiseAbs().maxCoeff() < 1e-12 * P.cwiseAbs().maxCoeff());
    const Mat MP = M * P;
    CHECK((MP - MP.transpose()).cwiseAbs().maxCoeff() < 1e-12 * MP.cwiseAbs().maxCoeff());
    CHECK((A * P).cwiseAbs().maxCoeff() < 1e-12 * A.cwiseAbs().maxCoeff() * P.cwiseAbs().maxCoeff());
    const Vec v = penny_state(U(rng), U(rng), q[3]).v;  // v ∈ Δ
    CHECK((P * v - v).cwiseAbs().maxCoeff() < 1e-12 * v.cwiseAbs().maxCoeff());
    // Claim 4: a_low of eq. (31), K = m²R²/(I+mR²).
    const double K = m * m * R * R / (I + m * R * R);
    Mat a31(2, 2);
    a31 << m - K * c * c, -K * s * c, -K * s * c, m - K * s * s;
    CHECK((geo.multiplier_matrix() - a31).cwiseAbs().maxCoeff() < 1e-12 * m);
    // W¹, W² of eq. (30).
    const Mat W = M.inverse() * A.transpose();
    CHECK(std::abs(W(2, 0) + R * c / I) < 1e-12 * R / I);
    CHECK(std::abs(W(0, 0) - 1 / m) < 1e-12 / m);
  }
}

TEST_CASE("Claim 5: the unconstrained P (28-29) keeps thetadot and E, reverses dh qdot, P o P = id", "[impacts][penny]") {
  auto sys = make_disk("ellipse");
  std::mt19937 rng(5);
  ImpactGeometry geo;
  geo.resize(4, 2);
  for (int trial = 0; trial < 50; ++trial) {
    const int g = trial % 2;
    const State s = random_impact_state(*sys, g, rng, true);
    const Vec d = dh(*sys, g, s.q);
    geo.compute(mass(*sys), cmat(*sys, s.q), d);
    State p = s;
    geo.unconstrained(p.v, 1.0);
    CHECK(p.v[2] == Approx(s.v[2]).epsilon(1e-14));
    CHECK(std::abs(energy(*sys, p) - energy(*sys, s)) < 1e-12 * energy(*sys, s));
    CHECK(std::abs(d.dot(p.v) + d.dot(s.v)) < 1e-12 * std::abs(d.dot(s.v)));
    geo.unconstrained(p.v, 1.0);
    CHECK((p.v - s.v).cwiseAbs().maxCoeff() < 1e-12 * s.v.cwiseAbs().maxCoeff());
  }
}

TEST_CASE("Claims 6 and 7: elastic and plastic nonholonomic maps on random impact states", "[impacts][penny]") {
  for (const std::string table : {"circle", "ellipse"}) {
    auto sys = make_disk(table);
    auto elastic = registry().make_impact("elastic_nonholonomic", nullptr, "test");
    auto plastic = registry().make_impact("plastic_nonholonomic", nullptr, "test");
    elastic->bind(*sys);
    plastic->bind(*sys);
    std::mt19937 rng(table == "circle" ? 6 : 7);
    ImpactGeometry geo;
    geo.resize(4, 2);
    const Mat M = mass(*sys);
    double rmin = 1, rmax = 0;
    for (int trial = 0; trial < 200; ++trial) {
      const int g = trial % 2;
      const State s = random_impact_state(*sys, g, rng, table == "ellipse");
      const Vec d = dh(*sys, g, s.q);
      const Mat A = cmat(*sys, s.q);
      const double E = energy(*sys, s), w = d.dot(s.v);
      geo.compute(M, A, d);
      // Span of {ω¹, ω², dh}: the momentum jump must have no component outside it.
      Mat span(4, 3);
      span << A.transpose(), d;
      auto in_span = [&](const Vec& dp) {
        const Vec coef = span.colPivHouseholderQr().solve(dp);
        return (span * coef - dp).norm() <= 1e-10 * dp.norm();
      };

      // ---- Claim 6 (elastic) ----
      State e = s;
      elastic->apply(e, g);
      CHECK((A * e.v).cwiseAbs().maxCoeff() < 1e-12 * s.v.cwiseAbs().maxCoeff());
      CHECK(std::abs(energy(*sys, e) - E) <= 1e-12 * E);
      CHECK(std::abs(d.dot(e.v) + w) <= 1e-12 * std::abs(w));
      CHECK(e.q == s.q);
      State ee = e;
      elastic->apply(ee, g);  // an involution
      CHECK((ee.v - s.v).cwiseAbs().maxCoeff() <= 1e-12 * s.v.cwiseAbs().maxCoeff());
      CHECK(in_span(M * (e.v - s.v)));
      // Prop IV.1: q̇(α) = q̇⁻ + Minv(Aᵀλ(α) + α dhᵀ), λ = −α a_low A Minv dhᵀ (eq. 16); H(α) = H⁻ is
      // ½α² kᵀMk + α q̇⁻ᵀMk = 0 with k = Minv(dhᵀ − Aᵀ a_low A Minv dhᵀ): roots 0 and α*.
      const Mat Minv = M.inverse();
      const Vec k = Minv * (d - A.transpose() * (A * Minv * A.transpose()).inverse() * (A * Minv * d));
      const double alpha_star = -2.0 * s.v.dot(M * k) / k.dot(M * k);
      CHECK(((s.v + alpha_star * k) - e.v).cwiseAbs().maxCoeff() <= 1e-12 * s.v.cwiseAbs().maxCoeff());
      CHECK(alpha_star == Approx(geo.elastic_alpha(s.v)).epsilon(1e-12));
      // Reduced penny formulas of spec 004 §3 (elastic D = n²/k_θ + s²/J).
      const double c = std::cos(s.q[3]), sn = std::sin(s.q[3]), sg = g == 0 ? 1.0 : -1.0, R = kR;
      const double hX = d[0], hY = d[1], n = hX * c + hY * sn, sdir = sg * (hY * c - hX * sn);
      const double Om = s.v[2], om = s.v[3], ww = n * Om + sdir * om, kth = kI + kM * R * R;
      CHECK(std::abs(d.dot(s.v) - R * ww) < 1e-12 * std::abs(R * ww));  // dh q̇ = R w
      const double De = n * n / kth + sdir * sdir / kJ;
      CHECK(e.v[2] == Approx(Om - 2 * ww * n / (kth * De)).epsilon(1e-12).margin(1e-12));
      CHECK(e.v[3] == Approx(om - 2 * ww * sdir / (kJ * De)).epsilon(1e-12).margin(1e-12));

      // ---- Claim 7 (plastic) ----
      State p = s;
      plastic->apply(p, g);
      // Generic form equals (28) followed by (33): P then pi of eq. (33).
      Vec Pv = s.v;
      geo.unconstrained(Pv, 1.0);
      CHECK(Pv[2] == Approx(s.v[2]).epsilon(1e-14));  // (28) leaves θ̇ unchanged
      const Vec v33 = geo.projector() * Pv;
      CHECK((p.v - v33).cwiseAbs().maxCoeff() <= 1e-12 * s.v.cwiseAbs().maxCoeff());
      CHECK((A * p.v).cwiseAbs().maxCoeff() < 1e-12 * s.v.cwiseAbs().maxCoeff());
      const double r = geo.r();
      rmin = std::min(rmin, r), rmax = std::max(rmax, r);
      const double dE = energy(*sys, p) - E, dE_formula = -2 * (1 - r) * w * w / geo.grad_sq();
      CHECK(dE < 0);
      INFO("dE = " << dE << ", formula " << dE_formula << ", E = " << E);
      CHECK(std::abs(dE - dE_formula) <= 1e-10 * std::abs(dE_formula) + 1e-13 * E);
      CHECK(std::abs(d.dot(p.v) - (1 - 2 * r) * w) <= 1e-12 * std::abs(w));
      CHECK(in_span(M * (p.v - s.v)));
      // Plastic D = (n² + s²)/(mR²) + s²/J (spec 004 §3).
      const double Dp = (n * n + sdir * sdir) / (kM * R * R) + sdir * sdir / kJ;
      CHECK(p.v[2] == Approx(Om - 2 * ww * n / (kth * Dp)).epsilon(1e-12).margin(1e-12));
      CHECK(p.v[3] == Approx(om - 2 * ww * sdir / (kJ * Dp)).epsilon(1e-12).margin(1e-12));
      // r = (⅔n² + 4s²)/(n² + 5s²) for I = ½mR², J = ¼mR².
      CHECK(r == Approx((2.0 / 3 * n * n + 4 * sdir * sdir) / (n * n + 5 * sdir * sdir)).epsilon(1e-12));
      // Neither idempotent nor an involution (spec 004 §2(c), §6.11).
      // (Applied through the plugin a second time it would throw: the result points outward.)
      Vec pp = p.v;
      geo.plastic(pp);
      CHECK((pp - p.v).cwiseAbs().maxCoeff() > 1e-6 * s.v.cwiseAbs().maxCoeff());
      CHECK((pp - s.v).cwiseAbs().maxCoeff() > 1e-6 * s.v.cwiseAbs().maxCoeff());
      CHECK(d.dot(pp) > 0.0);
      // Only pi itself is idempotent.
      const Vec pi_once = geo.projector() * s.v, pi_twice = geo.projector() * pi_once;
      CHECK((pi_twice - pi_once).cwiseAbs().maxCoeff() <= 1e-12 * s.v.cwiseAbs().maxCoeff());
    }
    // Claim 7: r ∈ [2/3, 4/5] for the penny.
    CHECK(rmin >= 2.0 / 3 - 1e-12);
    CHECK(rmax <= 0.8 + 1e-12);
  }
}

TEST_CASE("Claim 8: head-on impact at q = (0, b-R, 0, pi/2), (Omega, omega) = (10, 0.3)", "[impacts][penny]") {
  for (const std::string table : {"circle", "ellipse"}) {
    auto sys = make_disk(table);
    State s = penny_state(10.0, 0.3, std::numbers::pi / 2, 0.0, 0.2 - kR);
    CHECK(std::abs(guards(*sys).guard(0, s.q)) < 1e-15);
    auto elastic = registry().make_impact("elastic_nonholonomic", nullptr, "test");
    auto plastic = registry().make_impact("plastic_nonholonomic", nullptr, "test");
    elastic->bind(*sys);
    plastic->bind(*sys);
    State e = s, p = s;
    elastic->apply(e, 0);
    plastic->apply(p, 0);
    CHECK(e.v[2] == Approx(-10.0).epsilon(1e-13));  // (Ω, ω) → (−Ω, ω)
    CHECK(e.v[3] == Approx(0.3).epsilon(1e-13));
    CHECK(p.v[2] == Approx(-10.0 / 3).epsilon(1e-13));  // Ω → Ω(1 − 2mR²/(I+mR²)) = −Ω/3
    CHECK(p.v[3] == Approx(0.3).epsilon(1e-13));
  }
}

TEST_CASE("Claim 19: rescaling h, or using sqrt(X^2/a^2+Y^2/b^2) - 1, leaves both maps unchanged", "[impacts][penny]") {
  auto sys = make_disk("ellipse");
  std::mt19937 rng(19);
  ImpactGeometry geo;
  geo.resize(4, 2);
  const Mat M = mass(*sys);
  for (int trial = 0; trial < 50; ++trial) {
    const int g = trial % 2;
    const State s = random_impact_state(*sys, g, rng, true);
    const Mat A = cmat(*sys, s.q);
    const Vec d = dh(*sys, g, s.q);
    const double sg = g == 0 ? 1.0 : -1.0, c = std::cos(s.q[3]), sn = std::sin(s.q[3]);
    const double X = s.q[0] + sg * kR * c, Y = s.q[1] + sg * kR * sn;
    const double rho = std::sqrt(X * X / 0.0225 + Y * Y / 0.04);
    // d/dq of sqrt(X²/a²+Y²/b²) − 1 at the edge point (chain rule through the edge point).
    const double gX = X / 0.0225 / rho, gY = Y / 0.04 / rho;
    Vec d_sqrt(4);
    d_sqrt << gX, gY, 0.0, sg * kR * (gY * c - gX * sn);
    for (const Vec& dd : {Vec(7.5 * d), Vec(0.01 * d), d_sqrt}) {
      Vec e0 = s.v, e1 = s.v, p0 = s.v, p1 = s.v;
      geo.compute(M, A, d);
      geo.elastic(e0);
      geo.plastic(p0);
      geo.compute(M, A, dd);
      geo.elastic(e1);
      geo.plastic(p1);
      CHECK((e0 - e1).cwiseAbs().maxCoeff() <= 1e-12 * s.v.cwiseAbs().maxCoeff());
      CHECK((p0 - p1).cwiseAbs().maxCoeff() <= 1e-12 * s.v.cwiseAbs().maxCoeff());
    }
  }
}
