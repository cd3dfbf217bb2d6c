// The particle-binder model of seed 003 (spec 003 §4b): claims 13–21 (two-sphere test, forces by
// finite differences, torus momenta/energy/stability/convergence, (25) ≡ (27), tilted variant).
// Claims 15, 16, 20 (in part) and 21 are the checked claims of the bundled torus studies
// (studies/rodrigues/fig3, fig4, fig6, torus_tilted), which these tests run.
#include <catch2/catch.hpp>
#include <dalembert/math/rodrigues.hpp>
#include <dalembert_plugins/rigid_potentials.hpp>
#include <dalembert/study/simulation.hpp>
#include <functional>
#include <map>
#include <random>
#include <set>

#include "claims_support.hpp"
#include "rod_support.hpp"

using namespace dalembert;

namespace {

nlohmann::json two_sphere_params(const std::string& shear = "paper") {
  return {{"geometry", "custom"}, {"positions", {{0, 0, 0}, {1, 0, 0}}}, {"diameters", 1.0}, {"bonds", {{0, 1}}},
          {"masses", {1.0, 2.0}}, {"inertias", {0.5, 1.0}}, {"wall", false}, {"shear", shear}};
}

State two_sphere_ic() {
  // Spec claim 13: v0 = ((0.3,0.1,-0.2), (-0.1,0.2,0.05)), Ω0 = ((0.5,-1,0.3), (-0.2,0.4,0.8)), α0 = 0.
  return test::make_state({0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0},
                          {0.3, 0.1, -0.2, 0.5, -1, 0.3, -0.1, 0.2, 0.05, -0.2, 0.4, 0.8});
}

/// Runs `steps` steps and tracks the max deviation of named diagnostics and of the impulse balance.
struct Track {
  std::map<std::string, double> maxdev, maxabs;
  double max_balance = 0, max_dE = 0;
  bool finite = true;
  double blowup_t = -1;
  std::string failure;
  State final;
};

Track run(const System& sys, const std::string& map, State s, double h, long steps, const std::vector<std::string>& watch,
          long every = 1, std::function<void(const State&)> each = {}) {
  auto integ = test::registry().make_integrator(map, nullptr, "test");
  integ->bind(sys);
  integ->begin(s);
  std::vector<std::string> names, qn;
  sys.diagnostic_names(names);
  integ->quantity_names(qn);
  std::vector<double> d(names.size()), d0(names.size()), q(qn.size());
  sys.diagnostics(s, d0.data());
  const double E0 = sys.energy(s);
  Track t;
  for (long k = 1; k <= steps; ++k) {
    try {
      integ->advance(s, h);
    } catch (const StepFailure& e) {  // e.g. the contact search refuses a blown-up configuration
      t.finite = false;
      if (t.blowup_t < 0) t.blowup_t = s.t + h;
      t.failure = e.what();
      break;
    }
    if (each) each(s);
    if (!s.q.allFinite() || !s.v.allFinite()) {
      t.finite = false;
      t.blowup_t = s.t;
      break;
    }
    integ->discrete_quantities(q.data());
    for (int c = 3; c < 6; ++c) t.max_balance = std::max(t.max_balance, std::abs(q[c]));  // impulse_balance_*
    if (k % every && k != steps) continue;
    sys.diagnostics(s, d.data());
    for (std::size_t i = 0; i < names.size(); ++i)
      if (std::find(watch.begin(), watch.end(), names[i]) != watch.end()) {
        t.maxdev[names[i]] = std::max(t.maxdev[names[i]], std::abs(d[i] - d0[i]));
        t.maxabs[names[i]] = std::max(t.maxabs[names[i]], std::abs(d[i]));
      }
    const double E = sys.energy(s);
    if (!std::isfinite(E) || std::abs(E - E0) > t.max_dE) t.max_dE = std::isfinite(E) ? std::abs(E - E0) : 1e300;
    if (t.max_dE > 40 && t.blowup_t < 0) t.blowup_t = s.t;  // |E - 40| > 40 (claim 17)
  }
  t.final = s;
  return t;
}

double diag(const System& sys, const State& s, const std::string& name) {
  std::vector<std::string> n;
  sys.diagnostic_names(n);
  std::vector<double> d(n.size());
  sys.diagnostics(s, d.data());
  return d[test::diag_index(sys, name)];
}

}  // namespace

TEST_CASE("Claim 14: forces and spatial torques are minus the FD gradient of each potential, sums vanish", "[rodrigues][binder]") {
  // A perturbed torus (overlaps with neighbours and with the wall, rotated particles) and the
  // two-sphere model with both shear laws.
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (const auto& params : std::vector<nlohmann::json>{{{"n", 12}, {"gap", -0.05}}, two_sphere_params("paper"),
                                                       two_sphere_params("objective"), {{"n", 12}, {"shear", "objective"}}}) {
    auto sys = test::registry().make_system("binder_torus", params, "test");
    const auto& m = test::rigid(*sys);
    const int n = m.bodies();
    State s0;
    if (n == 2) s0 = two_sphere_ic();
    else s0 = test::torus_ic(*sys, m, test::ring_positions(12, 3.0, -0.05));
    std::vector<Vec3> x(n);
    std::vector<Mat3> R(n);
    for (int i = 0; i < n; ++i) {
      Eigen::Quaterniond q;
      Vec3 v, W;
      read_body(m, s0, i, x[i], q, v, W);
      x[i] += Vec3(u(rng), u(rng), u(rng)) * (n == 2 ? 0.1 : 0.02);
      R[i] = so3::exp(Vec3(u(rng), u(rng), u(rng)) * 0.3);
    }
    auto terms = m.make_potential();
    for (auto& t : terms) {
      const auto en = t->energy_names();
      std::vector<double> U(en.size());
      std::vector<Vec3> F(n, Vec3::Zero()), T(n, Vec3::Zero());
      t->evaluate(x.data(), R.data(), F.data(), T.data(), U.data());
      auto energy = [&](const std::vector<Vec3>& xx, const std::vector<Mat3>& RR) {
        std::vector<double> UU(en.size());
        t->evaluate(xx.data(), RR.data(), nullptr, nullptr, UU.data());
        double s = 0;
        for (double v : UU) s += v;
        return s;
      };
      const double eps = 1e-6;
      double worst = 0, scale = 1e-300;
      for (int i = 0; i < n; ++i)
        for (int a = 0; a < 3; ++a) {
          auto xp = x, xm = x;
          xp[i][a] += eps, xm[i][a] -= eps;
          const double fd = -(energy(xp, R) - energy(xm, R)) / (2 * eps);
          auto Rp = R, Rm = R;
          Rp[i] = so3::exp(eps * Vec3::Unit(a)) * R[i], Rm[i] = so3::exp(-eps * Vec3::Unit(a)) * R[i];  // left perturbation
          const double td = -(energy(x, Rp) - energy(x, Rm)) / (2 * eps);
          worst = std::max({worst, std::abs(fd - F[i][a]), std::abs(td - T[i][a])});
          scale = std::max({scale, std::abs(F[i][a]), std::abs(T[i][a])});
        }
      INFO(params.dump() << " term " << en[0] << ": max FD error " << worst << " (scale " << scale << ")");
      CHECK(worst / scale < 1e-6);
      Vec3 sF = Vec3::Zero(), sT = Vec3::Zero();
      for (int i = 0; i < n; ++i) sF += F[i], sT += T[i];
      if (!t->external()) CHECK(sF.norm() < 1e-12 * std::max(1.0, scale));
      if (params.value("shear", "paper") == "paper") CHECK(sT.norm() < 1e-12 * std::max(1.0, scale));  // Σ T = 0 (paper model)
    }
  }
}

TEST_CASE("Claim 13: two-sphere binder test (momenta, energy, non-objectivity)", "[rodrigues][binder]") {
  const std::vector<std::string> watch = {"P_x", "P_y", "P_z", "S_x", "S_y", "S_z", "L_x", "L_y", "L_z", "E"};
  auto sys = test::registry().make_system("binder_torus", two_sphere_params(), "test");
  CHECK(sys->energy(two_sphere_ic()) == Approx(0.8775).epsilon(1e-12));  // E0 = 0.8775
  std::map<std::string, State> finals;
  for (const std::string map : {"rodrigues_23", "rodrigues_25", "campello_27"}) {
    const Track t = run(*sys, map, two_sphere_ic(), 1e-3, 5000, watch);
    double P = 0, S = 0, L = 0;
    for (const char* c : {"P_x", "P_y", "P_z"}) P = std::max(P, t.maxdev.at(c));
    for (const char* c : {"S_x", "S_y", "S_z"}) S = std::max(S, t.maxdev.at(c));
    for (const char* c : {"L_x", "L_y", "L_z"}) L = std::max(L, t.maxdev.at(c));
    WARN(map << ": two-sphere P drift " << P << ", spin drift " << S << ", total L drift " << L << ", max|E-E0| " << t.max_dE);
    CHECK(P < 1e-13);
    CHECK(S < 1e-13);
    CHECK(L > 0.1);  // not conserved: the paper model is not objective (≈ 0.66)
    if (map == "campello_27") CHECK(t.max_dE == Approx(2.4e-3).epsilon(0.1));
    else CHECK(t.max_dE == Approx(1.29e-5).epsilon(0.1));
    finals[map] = t.final;
  }
  // Final states: not sensitive (held out to 1e-9): a 1e-13 perturbation changes them by ~1e-13.
  State p = two_sphere_ic();
  p.v[0] += 1e-13;
  const Track tp = run(*sys, "rodrigues_23", p, 1e-3, 5000, watch);
  CHECK((tp.final.q - finals["rodrigues_23"].q).cwiseAbs().maxCoeff() < 1e-11);
  // Objective shear variant: total angular momentum conserved, spin not.
  auto obj = test::registry().make_system("binder_torus", two_sphere_params("objective"), "test");
  const Track to = run(*obj, "rodrigues_23", two_sphere_ic(), 1e-3, 5000, watch);
  double L = 0, S = 0;
  for (const char* c : {"L_x", "L_y", "L_z"}) L = std::max(L, to.maxdev.at(c));
  for (const char* c : {"S_x", "S_y", "S_z"}) S = std::max(S, to.maxdev.at(c));
  WARN("objective variant: total L drift " << L << ", spin drift " << S);
  CHECK(L < 1e-13);
  CHECK(S > 1e-6);
}

TEST_CASE("Claims 15, 16: torus momenta (Fig. 6) and energy (Figs. 3, 4), h = 1e-3, t in [0, 25]", "[rodrigues][binder][torus]") {
  // Fig. 6 (maps 23, 25, 27): P_y, P_z, Σ J Ω (every step) and the wall-impulse balance (every 10th
  // step) ≤ 1e-12, P_x(25) as the spec's [HO]. Fig. 4 (map 25): E0 = 40, max|E - 40| < 0.15, KE_t,
  // P_x, peak energies, the state at t = 1 (claim 20). Fig. 3: the wall contact from t = 0.1 to ≈ 2.4.
  struct Bundled {
    std::string file;
    std::vector<std::string> claims;
  };
  const std::vector<Bundled> studies = {
      {"studies/rodrigues/fig6_torus_momenta.json",
       {"15 R23 P_y", "15 R23 P_z", "15 R23 S_z", "15 R25 S_x", "15 C27 P_y", "15 R23 impulse balance x",
        "15 R25 impulse balance x", "15 C27 impulse balance x", "16 R23 P_x", "16 R25 P_x", "16 C27 P_x"}},
      {"studies/rodrigues/fig4_torus_energy.json",
       {"16 E0", "16 impact phase", "16 KE_t", "16 P_x", "§5 U_pw peak", "20 P_x", "20 E"}},
      {"studies/rodrigues/fig3_torus.json", {"A16 gap", "A16 no early contact", "16 contact lasts", "16 rebound", "20 centroid"}}};
  for (const Bundled& st : studies) {
    INFO(st.file);
    const test::TempDir dir("torus");
    test::require_claims(test::run_bundled_study(st.file, dir / "run"), st.claims);
  }
}

TEST_CASE("Claim 17: torus stability limit (Fig. 5): h = 1e-2 blows up before t = 0.2", "[rodrigues][binder][torus]") {
  auto sys = test::registry().make_system("binder_torus", nullptr, "test");
  const State s0 = test::torus_ic(*sys, test::rigid(*sys), test::ring_positions());
  for (const std::string map : {"rodrigues_25", "campello_27"}) {
    const Track t = run(*sys, map, s0, 1e-2, 20, {"E"});
    WARN(map << " at h = 1e-2: blow-up at t = " << t.blowup_t << ", max|E-40| " << t.max_dE << " " << t.failure);
    CHECK((!t.finite || t.max_dE > 40));
    CHECK(t.blowup_t > 0.0);
    CHECK(t.blowup_t < 0.2);
  }
}

TEST_CASE("Claims 19, 20: (25) and (27) give the same configurations from F0 = T0 = 0, the state at t = 1", "[rodrigues][binder][torus]") {
  auto sys = test::registry().make_system("binder_torus", nullptr, "test");
  const State s0 = test::torus_ic(*sys, test::rigid(*sys), test::ring_positions());
  const Track a = run(*sys, "rodrigues_25", s0, 1e-3, 1000, {}, 1000), b = run(*sys, "campello_27", s0, 1e-3, 1000, {}, 1000);
  double dx = 0;
  for (int i = 0; i < 80; ++i) dx = std::max(dx, (a.final.q.segment<3>(7 * i) - b.final.q.segment<3>(7 * i)).cwiseAbs().maxCoeff());
  WARN("max|x_25 - x_27| at t = 1: " << dx);
  CHECK(dx < 1e-9);  // [HO] 2.1e-11 (round-off only)
  // Claim 20 (held out to 1e-7): centroid x ≈ 1.14, P_x ≈ −2.87, E ≈ 39.96 at t = 1 (map 25).
  const double cx = diag(*sys, a.final, "centroid_x"), Px = diag(*sys, a.final, "P_x"), E = sys->energy(a.final);
  WARN("t = 1, map 25: centroid x " << cx << ", P_x " << Px << ", E " << E);
  CHECK(cx == Approx(1.14).margin(0.01));
  CHECK(Px == Approx(-2.87).margin(0.02));
  CHECK(E == Approx(39.96).margin(0.01));
}

TEST_CASE("Claim 18: torus convergence at t_N = 1 (robust form of Fig. 7)", "[rodrigues][binder][torus]") {
  auto sys = test::registry().make_system("binder_torus", nullptr, "test");
  const State s0 = test::torus_ic(*sys, test::rigid(*sys), test::ring_positions());
  // Reference: map (23) at h = 2e-3/256 = 7.8125e-6.
  const Track ref = run(*sys, "rodrigues_23", s0, 2e-3 / 256, 128000, {}, 128000);
  const std::vector<double> hs = {5e-4, 2.5e-4, 1.25e-4, 6.25e-5};
  for (const std::string map : {"rodrigues_23", "rodrigues_25", "campello_27"}) {
    std::vector<double> eE, eX;
    for (double h : hs) {
      auto integ = test::registry().make_integrator(map, nullptr, "test");
      auto obs = test::registry().make_observer("rrp_error_measures", {{"track_diagnostics", false}}, "test");
      Simulation sim(*sys, *integ, {obs.get()});
      State s = s0;
      sim.run(s, h, std::lround(1.0 / h), 1000000);
      for (auto& [k, v] : sim.summary())
        if (k == "E_error_38") eE.push_back(v);
      double dx = 0;
      for (int i = 0; i < 80; ++i) dx = std::max(dx, (s.q.segment<3>(7 * i) - ref.final.q.segment<3>(7 * i)).cwiseAbs().maxCoeff());
      eX.push_back(dx);
    }
    const double sE = test::fit_slope(hs, eE), sX = test::fit_slope(hs, eX);
    WARN(map << ": torus t_N = 1 E-error slope " << sE << " (errors " << eE[0] << " .. " << eE[3] << "), end-point position slope "
             << sX << " (" << eX[0] << " .. " << eX[3] << ")");
    if (map == "campello_27") {
      CHECK(sE >= 0.85);
      CHECK(sE <= 1.2);
    } else {
      CHECK(sE >= 1.6);
    }
    CHECK(sX >= 1.8);
  }
}

TEST_CASE("Claim 21: tilted (3D) torus, h = 1e-3, t_N = 10", "[rodrigues][binder][torus]") {
  // The ring, rotated 30° about e2, starts 0.1 from the wall (nearest sphere). P_y, P_z, Σ J Ω and the
  // wall-impulse balance ≤ 1e-12 are the study's checked claims. Its max|E - 40| (spec ≈ 0.034 (23),
  // ≈ 0.054 (25)) is not reproduced and not asserted: measured 0.054 (23) and 0.054 … 0.10 (25),
  // the latter changing with 1e-16 changes of the initial state (chaos, spec A24).
  const test::TempDir dir("tilted");
  const auto rep = test::run_bundled_study("studies/rodrigues/torus_tilted.json", dir / "run");
  test::require_claims(rep, {"21 gap", "21 E0", "21 R23 P_y", "21 R23 P_z", "21 R23 S_x", "21 R23 S_y", "21 R23 S_z",
                     "21 R23 impulse balance x", "21 R25 P_y", "21 R25 S_z", "21 R25 impulse balance x"});
  for (const std::string lab : {"R23", "R25"})
    WARN("tilted torus, " << lab << ": max|E - 40| = "
                          << test::task(rep.manifest, lab).at("summary").at("max_abs_energy_error").get<double>());
}

TEST_CASE("Large rings: neighbour search and parallel force evaluation give identical results", "[rodrigues][binder]") {
  // 3000 spheres (Dt scaled to keep Dp): the Verlet/cell-list contact search, and TBB inside the step
  // (parallel_threshold 1) against the serial path: bitwise identical (fixed-order gather).
  const int N = 3000;
  const double Dt = 3.0 * N / 80.0;
  auto serial = test::registry().make_system("binder_torus", {{"n", N}, {"Dt", Dt}}, "test");
  auto para = test::registry().make_system("binder_torus", {{"n", N}, {"Dt", Dt}, {"parallel_threshold", 1}}, "test");
  State a = test::torus_ic(*serial, test::rigid(*serial), test::ring_positions(N, Dt)), b = a;
  auto ia = test::registry().make_integrator("rodrigues_25", nullptr, "test");
  auto ib = test::registry().make_integrator("rodrigues_25", nullptr, "test");
  ia->bind(*serial), ib->bind(*para);
  ia->begin(a), ib->begin(b);
  for (int k = 0; k < 150; ++k) ia->advance(a, 1e-3), ib->advance(b, 1e-3);  // through the first wall contact
  CHECK(a.q == b.q);
  CHECK(a.v == b.v);
  CHECK(diag(*serial, a, "U_pw") > 0.0);
  CHECK(std::abs(serial->energy(a) - 0.5 * N) < 1e-2 * N);
}
