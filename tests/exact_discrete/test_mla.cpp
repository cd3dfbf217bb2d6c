// MLA and DLA (seed 002 eqs. (41)/(42), Sect. 5.4; spec 002 §3.1–3.3 and §5 claims 12–18).
// Numbers are copied from ../shared/specs/002_exact_discrete_nonholonomic.md (cited per check).
#include <catch2/catch.hpp>
#include <cmath>
#include <dalembert_plugins/discrete_mechanics.hpp>

#include "ed_support.hpp"

using namespace dalembert;
using test::vec;

namespace {

// Spec 002 §3.2 "Particle (paper)": explicit MLA step from (q0,q1) = (q_{k-1},q_k).
Vec particle_mla_step(const Vec& q0, const Vec& q1, bool forces) {
  const double y0 = q0[1], y1 = q1[1], y2 = 2 * y1 - y0;
  double x2;
  if (forces) {
    const double num = 1 + y1 * (y1 + y0) / 2 + (y1 - y0) * (y1 - y0) / (4 + (y1 + y0) * (y1 + y0));
    const double den = 1 + y1 * (3 * y1 - y0) / 2 + (y1 - y0) * (y1 - y0) / (4 + (3 * y1 - y0) * (3 * y1 - y0));
    x2 = q1[0] + (q1[0] - q0[0]) * num / den;
  } else {  // spec §3.3 DLA closed form
    x2 = q1[0] + (q1[0] - q0[0]) * (1 + y1 * (y1 + y0) / 2) / (1 + y1 * (3 * y1 - y0) / 2);
  }
  const double z2 = q1[2] + (y2 + y1) / 2 * (x2 - q1[0]);  // eq. (43)
  return vec({x2, y2, z2});
}

// Spec 002 §3.2 "Knife (derived here)", steps 1–6, q = (x, y, phi).
Vec knife_step(const Vec& q0, const Vec& q1, double h, double eps, bool forces) {
  const double phi0 = q0[2], phi1 = q1[2], phi2 = 2 * phi1 - phi0, dphi = phi1 - phi0;
  const double pa = (phi0 + phi1) / 2, pb = (phi1 + phi2) / 2;
  const double dx = q1[0] - q0[0], dy = q1[1] - q0[1];
  auto N = [eps](double p) { return 1 - 2 * eps * std::cos(p) + eps * eps; };
  const double lam_a = forces ? -((dphi / (h * h)) * (dx * std::cos(pa) + dy * std::sin(pa)) + 0.5 * std::sin(pa)) / N(pa) : 0.0;
  const double Pax = dx / h + h / 4 + (h / 2) * lam_a * std::sin(pa);
  const double Pay = dy / h - (h / 2) * lam_a * (std::cos(pa) - eps);
  const double pi = (std::cos(phi1) - eps) * Pax + std::sin(phi1) * Pay;
  const double gam = (std::cos(pb) - eps) * (std::cos(phi1) - eps) + std::sin(pb) * std::sin(phi1);
  const double sig = std::sin(pb) * (std::cos(phi1) - eps) - std::sin(phi1) * (std::cos(pb) - eps);
  const double alpha = forces ? -(dphi / (h * h)) * (1 - eps * std::cos(pb)) / N(pb) : 0.0;
  const double beta = forces ? -std::sin(pb) / (2 * N(pb)) : 0.0;
  const double rho = (pi + (h / 4) * (std::cos(phi1) - eps) + (h / 2) * beta * sig) / (gam / h - (h / 2) * alpha * sig);
  return vec({q1[0] + rho * (std::cos(pb) - eps), q1[1] + rho * std::sin(pb), phi2});
}

double knife_y1(double eps) { return 0.4 * std::sin(0.2) / (std::cos(0.2) - eps); }  // spec §4 (Fig 5/6), M_d

}  // namespace

TEST_CASE("Discrete objects at the paper's particle data (spec 002 claim 12)", "[exact_discrete][mla]") {
  auto sys = test::system("nonholonomic_particle");
  DiscreteNonholonomicMechanics dm;
  dm.bind(test::model(*sys));
  const Vec q0 = vec({0, 0, 0}), q1 = vec({0.4, 0.4, 0.08});
  Vec pi(2), P(3);
  dm.momentum_minus(q0, q1, 0.5, pi);
  CHECK(std::abs(pi[0] - 0.8307692307692) < 1e-12);  // claim 12: π^− = (0.8307692307692, 0.8)
  CHECK(std::abs(pi[1] - 0.8) < 1e-12);
  dm.momentum_plus(q0, q1, 0.5, pi);
  CHECK(std::abs(pi[0] - 0.894769230769) < 1e-11);  // claim 12: π^+ = (0.894769230769, 0.8)
  CHECK(std::abs(pi[1] - 0.8) < 1e-12);
  dm.legendre_minus(q0, q1, 0.5, P);  // claim 12: P^− = (0.830769230769, 0.8, 0.00615384615)
  CHECK((P - vec({0.830769230769, 0.8, 0.00615384615})).lpNorm<Eigen::Infinity>() < 1e-11);
  // Spec §3.1 particle forces: F_d = (2/h) dx dy/(4+(y0+y1)²) (−(y0+y1)/2, 0, 1).
  Vec F(3);
  dm.force_plus(q0, q1, 0.5, F);
  const double c = (2 / 0.5) * 0.4 * 0.4 / (4 + 0.16);
  CHECK((F - c * vec({-0.2, 0, 1})).norm() < 1e-15);
  // §3.1 midpoint = trapezoidal for a linear potential (A10) for L_d on the knife.
  auto knife = test::system("knife_edge", {{"eps", 0.1}});
  DiscreteNonholonomicMechanics mid, trap;
  mid.bind(test::model(*knife));
  trap.bind(test::model(*knife), DiscreteRule::trapezoidal());
  const Vec a = vec({0.1, -0.2, 0.3}), b = vec({0.5, 0.1, 0.6});
  CHECK(std::abs(mid.lagrangian(a, b, 0.3) - trap.lagrangian(a, b, 0.3)) < 1e-15);
  CHECK(std::abs(mid.lagrangian(a, b, 0.3) - ((b - a).squaredNorm() / 0.6 + 0.3 * (a[0] + b[0]) / 4)) < 1e-15);
  // H|D* does not depend on the frame (§2.0): system frame vs the default coordinate-graph frame.
  Vec v = vec({0.7698028402130456, 0.26596818599520566, 0.7}), pk(2);
  const Vec qk = vec({0.1, -0.2, 0.3});
  mid.momentum_from_velocity(qk, v, pk);
  CHECK(std::abs(mid.hamiltonian(qk, pk) - knife->energy(test::make_state({0.1, -0.2, 0.3}, {0.7698028402130456, 0.26596818599520566, 0.7}))) < 1e-15);
}

TEST_CASE("Slot derivatives against finite differences (spec 002 §3.1)", "[exact_discrete][mla]") {
  auto sys = test::system("knife_edge", {{"eps", 0.1}});
  for (auto rule : {DiscreteRule::midpoint(), DiscreteRule::trapezoidal(), DiscreteRule::gauss2()}) {
    DiscreteNonholonomicMechanics dm;
    dm.bind(test::model(*sys), rule);
    const Vec q0 = vec({0.1, -0.2, 0.3}), q1 = vec({0.4, 0.1, 0.5});
    const double h = 0.3, d = 1e-5;
    Vec D1(3), D2(3);
    dm.d1(q0, q1, h, D1);
    dm.d2(q0, q1, h, D2);
    for (int j = 0; j < 3; ++j) {
      Vec a = q0, b = q0;
      a[j] += d;
      b[j] -= d;
      CHECK(std::abs((dm.lagrangian(a, q1, h) - dm.lagrangian(b, q1, h)) / (2 * d) - D1[j]) < 1e-9);
      a = q1, b = q1;
      a[j] += d;
      b[j] -= d;
      CHECK(std::abs((dm.lagrangian(q0, a, h) - dm.lagrangian(q0, b, h)) / (2 * d) - D2[j]) < 1e-9);
    }
  }
}

TEST_CASE("Closed-form particle and knife steps = Newton (spec 002 §3.2, claim 12)", "[exact_discrete][mla]") {
  for (const std::string method : {"mla", "dla"}) {
    const bool forces = method == "mla";
    INFO(method);
    // Particle, paper setup, two-step form from (q0, q1) over 200 steps (claim 12: 1e-10) and step by step (1e-13).
    auto sys = test::system("nonholonomic_particle");
    for (const std::string form : {"two_step", "multiplier", "one_step"}) {
      INFO(form);
      auto I = test::integrator(method, {{"q1", {0.4, 0.4, 0.08}}, {"form", form}});
      const auto r = test::run(*sys, *I, test::make_state({0, 0, 0}, {0, 0, 0}), 0.5, 200);
      double step_err = 0, traj_err = 0;
      Vec a = r.q[0], b = r.q[1];
      for (int k = 1; k < 200; ++k) {
        const Vec c = particle_mla_step(a, b, forces);
        traj_err = std::max(traj_err, (c - r.q[k + 1]).lpNorm<Eigen::Infinity>());
        const Vec s = particle_mla_step(r.q[k - 1], r.q[k], forces);
        step_err = std::max(step_err, (s - r.q[k + 1]).lpNorm<Eigen::Infinity>() / std::max(1.0, r.q[k + 1].lpNorm<Eigen::Infinity>()));
        a = b;
        b = c;
      }
      CHECK(test::report("claim 12: particle closed form vs Newton, 200 steps " + method + " " + form, traj_err) < 1e-10);
      CHECK(test::report("claim 12: particle closed form vs Newton, per step (rel) " + method + " " + form, step_err) < 1e-13);
    }
    // Knife, eps = 0 and 0.1, paper data (q0 = 0, x1 = phi1 = 0.4, y1 on M_d), 40 steps.
    for (double eps : {0.0, 0.1}) {
      INFO("eps = " << eps);
      auto knife = test::system("knife_edge", {{"eps", eps}});
      auto I = test::integrator(method, {{"q1", {0.4, knife_y1(eps), 0.4}}, {"form", "two_step"}});
      const auto r = test::run(*knife, *I, test::make_state({0, 0, 0}, {0, 0, 0}), 0.5, 40);
      double step_err = 0;
      for (int k = 1; k < 40; ++k) {
        const Vec s = knife_step(r.q[k - 1], r.q[k], 0.5, eps, forces);
        step_err = std::max(step_err, (s - r.q[k + 1]).lpNorm<Eigen::Infinity>() / std::max(1.0, r.q[k + 1].lpNorm<Eigen::Infinity>()));
      }
      CHECK(test::report("3.2: knife closed form vs Newton, per step (rel) " + method + " eps=" + std::to_string(eps), step_err) < 1e-13);
    }
  }
}

TEST_CASE("One-step and two-step forms give the same q_k (spec 002 §3.2, HO 4e-14)", "[exact_discrete][mla]") {
  for (double eps : {0.0, 0.1}) {
    auto knife = test::system("knife_edge", {{"eps", eps}});
    const State s0 = test::make_state({0, 0, 0}, {0.72, 0, 0.8});
    auto one = test::integrator("mla", {{"form", "one_step"}});
    auto two = test::integrator("mla", {{"form", "two_step"}});
    auto mul = test::integrator("mla", {{"form", "multiplier"}});
    const auto a = test::run(*knife, *one, s0, 0.1, 100), b = test::run(*knife, *two, s0, 0.1, 100),
               c = test::run(*knife, *mul, s0, 0.1, 100);
    double d = 0;
    for (int k = 0; k <= 100; ++k)
      d = std::max({d, (a.q[k] - b.q[k]).lpNorm<Eigen::Infinity>(), (a.q[k] - c.q[k]).lpNorm<Eigen::Infinity>()});
    CHECK(test::report("3.2: one-step vs two-step vs multiplier q_k, eps=" + std::to_string(eps), d) < 1e-13);
  }
}

TEST_CASE("Discrete constraint, linear coordinates, momentum matching (spec 002 claims 13, 14)", "[exact_discrete][mla]") {
  for (const std::string method : {"mla", "dla"}) {
    for (const std::string form : {"one_step", "two_step"}) {
      INFO(method << " " << form);
      auto sys = test::system("nonholonomic_particle");
      auto I = test::integrator(method, {{"q1", {0.4, 0.4, 0.08}}, {"form", form}});
      const auto r = test::run(*sys, *I, test::make_state({0, 0, 0}, {0, 0, 0}), 0.5, 1200);
      double om = 0, lin = 0, mm = 0;
      for (std::size_t k = 0; k < r.omega.size(); ++k) om = std::max(om, r.omega[k]);
      for (std::size_t k = 0; k < r.q.size(); ++k) lin = std::max(lin, std::abs(r.q[k][1] - 0.4 * k));
      for (double m : r.matching) mm = std::max(mm, m);
      CHECK(test::report("claim 13: particle |omega| " + method + " " + form, om) < 1e-12);   // claim 13
      CHECK(test::report("claim 13: particle |y_k-0.4k| " + method + " " + form, lin) < 1e-10);  // claim 13: y_k = 0.4k
      CHECK(test::report("claim 14: particle matching " + method + " " + form, mm) < 1e-10);   // claim 14
      for (double eps : {0.0, 0.1}) {
        auto knife = test::system("knife_edge", {{"eps", eps}});
        auto J = test::integrator(method, {{"q1", {0.4, knife_y1(eps), 0.4}}, {"form", form}});
        const auto s = test::run(*knife, *J, test::make_state({0, 0, 0}, {0, 0, 0}), 0.5, 600);
        om = lin = mm = 0;
        for (double o : s.omega) om = std::max(om, o);
        for (std::size_t k = 0; k < s.q.size(); ++k) lin = std::max(lin, std::abs(s.q[k][2] - 0.4 * k));
        for (double m : s.matching) mm = std::max(mm, m);
        CHECK(test::report("claim 13: knife |omega| " + method + " " + form + " eps=" + std::to_string(eps), om) < 1e-12);   // claim 13
        CHECK(test::report("claim 13: knife |phi_k-0.4k| " + method + " " + form + " eps=" + std::to_string(eps), lin) < 1e-10);  // claim 13: phi_k = 0.4k
        CHECK(test::report("claim 14: knife matching " + method + " " + form + " eps=" + std::to_string(eps), mm) < 1e-10);   // claim 14
      }
    }
  }
}

TEST_CASE("Fig 2 numbers (spec 002 §4 item 1, claim 15)", "[exact_discrete][mla][figures]") {
  auto sys = test::system("nonholonomic_particle");
  struct Expect { const char* m; double H0, H1, HN, maxdH; Vec qN; };
  const std::vector<Expect> ex = {
      {"mla", 0.665088757396, 0.665091369108, 0.665133018812, 4.43e-5, vec({7.11794597684, 480, 497.456124275})},
      {"dla", 0.64, 0.641765517241, 0.646605796811, 6.61e-3, vec({6.94423913771, 480, 483.930092226})}};
  for (const auto& e : ex) {
    INFO(e.m);
    auto I = test::integrator(e.m, {{"q1", {0.4, 0.4, 0.08}}, {"form", "two_step"}});
    const auto r = test::run(*sys, *I, test::make_state({0, 0, 0}, {0, 0, 0}), 0.5, 1200);
    CHECK(r.H[0] == Approx(e.H0).epsilon(1e-9));
    CHECK(r.H[1] == Approx(e.H1).epsilon(1e-9));
    CHECK(r.H[1200] == Approx(e.HN).epsilon(1e-9));
    double m = 0;
    for (double H : r.H) m = std::max(m, std::abs(H - r.H[0]));
    CHECK(m == Approx(e.maxdH).epsilon(5e-3));  // 3 digits given
    for (int i = 0; i < 3; ++i) CHECK(r.q[1200][i] == Approx(e.qN[i]).epsilon(1e-8));
    // "H becomes constant after the first steps": max_{k>=100} |H_k − H_N| (HO 6.6e-13 MLA, 2.5e-9 DLA).
    double tail = 0;
    for (int k = 100; k <= 1200; ++k) tail = std::max(tail, std::abs(r.H[k] - r.H[1200]));
    CHECK(tail < (std::string(e.m) == "mla" ? 1e-11 : 5e-9));
    if (std::string(e.m) == "mla") {
      CHECK((r.q[2] - vec({0.752434590433, 0.8, 0.291460754260})).lpNorm<Eigen::Infinity>() < 1e-11);
      CHECK((r.q[10] - vec({2.162272056545, 4, 3.243499430978})).lpNorm<Eigen::Infinity>() < 1e-11);
    } else {
      CHECK((r.q[2] - vec({0.748387096774, 0.8, 0.289032258065})).lpNorm<Eigen::Infinity>() < 1e-11);
    }
  }
}

TEST_CASE("Fig 5/6 numbers (spec 002 §4 items 2-3, claims 16 and 20)", "[exact_discrete][mla][figures]") {
  struct Band { double lo, hi, maxdH; };
  auto band = [](double eps, const std::string& m, nlohmann::json extra = nlohmann::json::object()) {
    auto knife = test::system("knife_edge", {{"eps", eps}});
    nlohmann::json p = {{"q1", {0.4, knife_y1(eps), 0.4}}, {"form", "two_step"}};
    p.update(extra);
    auto I = test::integrator(m, p);
    const auto r = test::run(*knife, *I, test::make_state({0, 0, 0}, {0, 0, 0}), 0.5, 600);
    Band b{1e300, -1e300, 0};
    for (double H : r.H) b.lo = std::min(b.lo, H), b.hi = std::max(b.hi, H), b.maxdH = std::max(b.maxdH, std::abs(H - r.H[0]));
    return std::make_pair(b, r);
  };
  // Example 4 (eps = 0): MLA H_0 = 0.573733580464, H in [0.573401289, 0.573865119], max 3.32e-4.
  const auto [m0, rm0] = band(0.0, "mla");
  CHECK(rm0.H[0] == Approx(0.573733580464).epsilon(1e-8));
  CHECK(m0.lo == Approx(0.573401289).epsilon(1e-8));
  CHECK(m0.hi == Approx(0.573865119).epsilon(1e-8));
  CHECK(m0.maxdH == Approx(3.32e-4).epsilon(5e-3));
  // DLA: H in [0.514763, 0.552399], max 3.30e-2.
  const auto [d0, rd0] = band(0.0, "dla");
  CHECK(d0.lo == Approx(0.514763).epsilon(2e-6));
  CHECK(d0.hi == Approx(0.552399).epsilon(2e-6));
  CHECK(d0.maxdH == Approx(3.30e-2).epsilon(5e-3));
  // Band ratio ≥ 50 (HO 4.6e-4 vs 3.8e-2).
  CHECK(m0.hi - m0.lo == Approx(4.6e-4).epsilon(0.02));
  CHECK(d0.hi - d0.lo == Approx(3.8e-2).epsilon(0.02));
  CHECK((d0.hi - d0.lo) > 50 * (m0.hi - m0.lo));
  // Example 5 (eps = 0.1): MLA H from 0.579982 to 0.599941, max 2.00e-2; DLA falls to −0.1031, max 0.651.
  const auto [m1, rm1] = band(0.1, "mla");
  CHECK(rm1.H[0] == Approx(0.579982).epsilon(2e-6));
  CHECK(rm1.H.back() == Approx(0.599941).epsilon(2e-6));
  CHECK(m1.maxdH == Approx(2.00e-2).epsilon(5e-3));
  const auto [d1, rd1] = band(0.1, "dla");
  CHECK(d1.lo == Approx(-0.1031).epsilon(1e-3));
  CHECK(d1.maxdH == Approx(0.651).epsilon(2e-3));
  CHECK((d1.hi - d1.lo) > 20 * (m1.hi - m1.lo));  // HO 2.0e-2 vs 0.66
}

TEST_CASE("Order 2 of MLA and DLA on the three systems (spec 002 §4 convergence, claim 17)", "[exact_discrete][mla][convergence]") {
  struct Case { const char* sys; double eps; Vec v0; double e_mla, e_dla; };
  const std::vector<Case> cases = {{"nonholonomic_particle", -1, vec({0.8, 0.8, 0}), 3.328e-4, 6.127e-4},
                                   {"knife_edge", 0.0, vec({0.8, 0, 0.8}), 6.194e-4, 1.195e-3},
                                   {"knife_edge", 0.1, vec({0.72, 0, 0.8}), 7.024e-4, 1.303e-3}};
  for (const auto& c : cases) {
    auto sys = c.eps < 0 ? test::system(c.sys) : test::system(c.sys, {{"eps", c.eps}});
    State s0;
    s0.q = Vec::Zero(3);
    s0.v = c.v0;
    State ex;
    if (sys->has_exact_solution()) sys->exact_solution(s0, 1.0, ex);
    else ex = test::reference_flow(*sys, s0, 1.0, 20000);
    for (const std::string m : {"mla", "dla"}) {
      INFO(c.sys << " eps " << c.eps << " " << m);
      std::vector<double> err;
      for (int j = 0; j <= 4; ++j) {
        const double h = 0.1 / std::pow(2.0, j);
        auto I = test::integrator(m);
        const auto r = test::run(*sys, *I, s0, h, std::lround(1.0 / h));
        err.push_back(test::report(std::string("claim 17: error ") + c.sys + " eps=" + std::to_string(c.eps) + " " + m + " h=" + std::to_string(h), (r.last.q - ex.q).lpNorm<Eigen::Infinity>()));
      }
      CHECK(err[0] == Approx(m == "mla" ? c.e_mla : c.e_dla).epsilon(2e-3));
      for (int j = 0; j < 4; ++j) {
        const double p = test::order(err[j], err[j + 1]);
        CHECK(p >= 1.95);
        CHECK(p <= 2.05);
      }
    }
  }
}

TEST_CASE("Energy error ladders: MLA ~h^4, DLA ~h^2 (spec 002 §4, claim 18)", "[exact_discrete][mla][energy]") {
  struct Case { double eps; Vec v0; double T; std::vector<double> mla, dla; };
  const std::vector<Case> cases = {
      {-1, vec({0.8, 0.8, 0}), 600, {4.10e-5, 2.64e-6, 1.66e-7}, {6.61e-3, 1.61e-3, 4.01e-4}},
      {0.0, vec({0.8, 0, 0.8}), 300, {3.61e-4, 2.30e-5, 1.45e-6}, {3.62e-2, 8.94e-3, 2.23e-3}},
      {0.1, vec({0.72, 0, 0.8}), 300, {2.00e-2, 1.28e-3, 8.07e-5}, {0.642, 0.164, 0.0413}}};
  for (const auto& c : cases) {
    auto sys = c.eps < 0 ? test::system("nonholonomic_particle") : test::system("knife_edge", {{"eps", c.eps}});
    State s0;
    s0.q = Vec::Zero(3);
    s0.v = c.v0;
    const double E0 = sys->energy(s0);
    for (const std::string m : {"mla", "dla"}) {
      INFO("eps " << c.eps << " " << m);
      std::vector<double> e;
      for (double h : {0.5, 0.25, 0.125}) {
        auto I = test::integrator(m);
        const auto r = test::run(*sys, *I, s0, h, std::lround(c.T / h));
        double mx = 0;
        for (double H : r.H) mx = std::max(mx, std::abs(H - E0));
        e.push_back(mx);
      }
      const auto& want = m == "mla" ? c.mla : c.dla;
      for (int i = 0; i < 3; ++i) CHECK(e[i] == Approx(want[i]).epsilon(0.02));
      const double p = test::order(e[0], e[2], 4.0);
      if (m == "mla") CHECK((p >= 3.8 && p <= 4.2));
      else CHECK((p >= 1.9 && p <= 2.1));
    }
  }
}

TEST_CASE("Typo check: literal +cos in the knife forces breaks energy (spec 002 claim 20, A1)", "[exact_discrete][mla]") {
  // The corrected sign is in the knife_edge system (μ_y = −(cos φ − ε)); the literal paper sign makes F_d
  // non-reactive. Reproduced here by a direct two-step solve with the literal forces.
  const double h = 0.5;
  Vec q0 = vec({0, 0, 0}), q1 = vec({0.4, knife_y1(0.0), 0.4});
  auto Hd = [](const Vec& q, const Vec& P) {  // H|D* with the regular frame, eps = 0
    const double p1 = std::cos(q[2]) * P[0] + std::sin(q[2]) * P[1];
    return 0.5 * (p1 * p1 + P[2] * P[2]) - q[0] / 2;
  };
  auto force = [h](const Vec& a, const Vec& b) {  // literal paper sign: μ_y = +cos pb
    const double pb = (a[2] + b[2]) / 2, dx = b[0] - a[0], dy = b[1] - a[1], dphi = b[2] - a[2];
    const double lam = -((dphi / (h * h)) * (dx * std::cos(pb) + dy * std::sin(pb)) + 0.5 * std::sin(pb));
    return Vec((h / 2) * lam * vec({std::sin(pb), std::cos(pb), 0}));
  };
  auto Pplus = [&](const Vec& a, const Vec& b) { return Vec((b - a) / h + vec({h / 4, 0, 0}) + force(a, b)); };
  auto Pminus = [&](const Vec& a, const Vec& b) { return Vec((b - a) / h - vec({h / 4, 0, 0}) - force(a, b)); };
  double lo = Hd(q0, Pminus(q0, q1)), hi = lo;
  for (int k = 1; k < 600; ++k) {
    // Solve e1(φ_k)·[P^+(q_{k−1},q_k) − P^−(q_k,q_{k+1})] = 0 with φ_{k+1} = 2φ_k − φ_{k−1} and M_d by Newton on ρ.
    const double phi2 = 2 * q1[2] - q0[2], pb = (q1[2] + phi2) / 2;
    const Vec e1 = vec({std::cos(q1[2]), std::sin(q1[2]), 0});
    const Vec Pp = Pplus(q0, q1);
    auto R = [&](double rho) {
      const Vec q2 = vec({q1[0] + rho * std::cos(pb), q1[1] + rho * std::sin(pb), phi2});
      return e1.dot(Pp - Pminus(q1, q2));
    };
    double rho = (q1 - q0).head(2).norm();
    for (int it = 0; it < 30; ++it) {
      const double d = 1e-7 * std::max(1.0, std::abs(rho));
      rho -= R(rho) * 2 * d / (R(rho + d) - R(rho - d));
    }
    const Vec q2 = vec({q1[0] + rho * std::cos(pb), q1[1] + rho * std::sin(pb), phi2});
    const double H = Hd(q2, Pplus(q1, q2));
    lo = std::min(lo, H), hi = std::max(hi, H);
    q0 = q1;
    q1 = q2;
  }
  // Spec claim 20: H oscillates in [−0.075, 0.583].
  test::report("claim 20: literal-sign MLA H min", lo);
  test::report("claim 20: literal-sign MLA H max", hi);
  CHECK(lo == Approx(-0.075).margin(5e-3));
  CHECK(hi == Approx(0.583).margin(5e-3));
}

TEST_CASE("Cross-seed: DLA = nonholonomic Newmark beta = beta' = 0, alpha = 1/2 (seed 000 Prop 3.5)", "[exact_discrete][mla]") {
  auto sys = test::system("nonholonomic_particle");
  const State s0 = test::make_state({1, 1, -1}, {1, -1, 1});
  auto dla = test::integrator("dla");
  auto nm = test::integrator("nonholonomic_newmark", {{"beta", 0}, {"beta_prime", 0}, {"alpha", 0.5}});
  const auto a = test::run(*sys, *dla, s0, 0.1, 100);
  State s = s0;
  nm->bind(*sys);
  nm->begin(s);
  double d = 0;
  for (int k = 1; k <= 100; ++k) {
    nm->advance(s, 0.1);
    d = std::max(d, (s.q - a.q[k]).lpNorm<Eigen::Infinity>());
  }
  CHECK(test::report("cross-seed: |q_dla - q_newmark(0,0,1/2)|, 100 steps", d) < 1e-12);
}

TEST_CASE("Signed h: MLA forward then backward returns to the start (integrator contract)", "[exact_discrete][mla]") {
  for (double eps : {0.0, 0.1}) {
    auto knife = test::system("knife_edge", {{"eps", eps}});
    auto I = test::integrator("mla");
    State s = test::make_state({0, 0, 0}, {0.72, 0, 0.8});
    const State s0 = s;
    I->bind(*knife);
    I->begin(s);
    for (int k = 0; k < 20; ++k) I->advance(s, 0.1);
    for (int k = 0; k < 20; ++k) I->advance(s, -0.1);
    CHECK(test::report("signed h: |q - q0| after 20 steps +h and 20 steps -h", (s.q - s0.q).lpNorm<Eigen::Infinity>()) < 1e-12);
    CHECK((s.v - s0.v).lpNorm<Eigen::Infinity>() < 1e-12);
  }
}
