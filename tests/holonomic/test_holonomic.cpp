// Holonomic constraints g(q) = 0 in the L-and-A model (issue 28 items 1-3), with numbers from
// independent sources:
//   * the planar pendulum written in Cartesian coordinates (system cartesian_pendulum: L = ½m|v|² −
//     mgy, g = x² + y² − L²) against the angle pendulum θ̈ = −(g/L) sin θ: its closed form (Jacobi
//     elliptic functions, checked against a fine RK4 on θ and against K(1/2) of the tables), the
//     tension of the rod, and the orders of dla, mla and rk4 against the closed form;
//   * |g| at round-off over 10⁵ steps of dla and mla, rk4's drift beside them;
//   * the Whipple bicycle plugin's continuous field at Basu-Mandal et al.'s Table 1 state against
//     the model test's index-1 solve (tests/systems/test_whipple_model.cpp) and their published
//     accelerations; dla and mla on the bicycle keep g and the discrete rolling constraints;
//   * an initial state off g refused by name, or projected (Newton on g, then v) with the distance
//     in the manifest; the integrators that do not treat g refused, naming those that do.
// Run with ED_VERBOSE=1 to print the measured numbers (MEASURED lines) quoted in the READMEs.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <dalembert/core/nonholonomic_field.hpp>
#include <limits>
#include <dalembert/plugin/needs.hpp>
#include <dalembert/study/derivative_check.hpp>
#include <dalembert/study/study.hpp>
#include <dalembert/study/study_plan.hpp>
#include <dalembert/schemes/fixed_lagrangian_system.hpp>
#include <numbers>

#include "../../plugins/systems/cartesian_pendulum/pendulum_exact.hpp"
#include <dalembert/core/model_linearisation.hpp>
#include "../../plugins/systems/whipple_bicycle/whipple_model.hpp"
#include "exact_discrete/ed_support.hpp"

namespace {

using namespace dalembert;
using namespace dalembert::test;
using json = nlohmann::json;
constexpr double kPi = std::numbers::pi;

/// The pendulum's state at angle θ (from the downward vertical) and rate w: q = L(sin θ, −cos θ).
State at_angle(double L, double theta, double w) {
  return make_state({L * std::sin(theta), -L * std::cos(theta)}, {L * std::cos(theta) * w, L * std::sin(theta) * w});
}

/// θ̈ = −ω² sin θ by classical RK4 with n steps to time T: the second method for the closed form.
void angle_rk4(double& theta, double& w, double omega, double T, long n) {
  const double h = T / static_cast<double>(n), o2 = omega * omega;
  for (long i = 0; i < n; ++i) {
    const double k1t = w, k1w = -o2 * std::sin(theta);
    const double k2t = w + 0.5 * h * k1w, k2w = -o2 * std::sin(theta + 0.5 * h * k1t);
    const double k3t = w + 0.5 * h * k2w, k3w = -o2 * std::sin(theta + 0.5 * h * k2t);
    const double k4t = w + h * k3w, k4w = -o2 * std::sin(theta + h * k3t);
    theta += h / 6.0 * (k1t + 2 * k2t + 2 * k3t + k4t);
    w += h / 6.0 * (k1w + 2 * k2w + 2 * k3w + k4w);
  }
}

double distance(const State& a, const State& b) {
  return std::max((a.q - b.q).lpNorm<Eigen::Infinity>(), (a.v - b.v).lpNorm<Eigen::Infinity>());
}

/// Steps `name` from s0 with h for n steps; the largest |g(q_k)|, |E_k − E_0| over the first and the
/// last tenth of the run, and the largest published discrete_constraint_residual.
struct LongRun {
  double g_max = 0.0, g_last = 0.0, energy_first = 0.0, energy_last = 0.0, omega_max = 0.0;
  State last;
};
LongRun long_run(const System& sys, const std::string& name, State s, double h, long n, json params = nullptr) {
  auto I = integrator(name, std::move(params));
  I->bind(sys);
  I->begin(s, h);
  std::vector<std::string> names;
  I->quantity_names(names);
  std::vector<double> values(names.size());
  int slot = -1;
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == "discrete_constraint_residual") slot = static_cast<int>(i);
  const auto& m = model(sys);
  const double E0 = sys.energy(s);
  LongRun r;
  for (long k = 1; k <= n; ++k) {
    I->advance(s, h);
    r.g_last = m.holonomic_residual(s.q);
    r.g_max = std::max(r.g_max, r.g_last);
    const double dE = std::abs(sys.energy(s) - E0);
    if (k <= n / 10) r.energy_first = std::max(r.energy_first, dE);
    if (k > n - n / 10) r.energy_last = std::max(r.energy_last, dE);
    if (slot >= 0) {
      I->discrete_quantities(values.data());
      r.omega_max = std::max(r.omega_max, std::abs(values[slot]));
    }
  }
  r.last = s;
  return r;
}

}  // namespace

TEST_CASE("cartesian_pendulum: the closed form is the angle pendulum's flow", "[holonomic][pendulum]") {
  // K(1/2) = 1.854074677301372 (Abramowitz & Stegun Table 17.1, m = 0.5).
  CHECK(std::abs(pendulum::complete_k(0.5) - 1.8540746773013719) < 1e-15);
  const double omega = std::sqrt(9.81 / 2.0);
  // Libration both ways, a rotation both ways, a wound-up angle, rest at the bottom.
  const double cases[][2] = {{0.5, 1.0}, {-1.0, -0.3}, {2.0, 2.5 * omega}, {3.0, -2.1 * omega}, {0.4 + 4 * kPi, 0.7}, {0.0, 0.0}};
  double worst = 0.0;
  for (const auto& c : cases) {
    double th = c[0], w = c[1], th_exact = 0.0, w_exact = 0.0;
    angle_rk4(th, w, omega, 3.0, 30000);  // h = 1e-4: RK4's error ~ 1e-15 here
    pendulum::angle_at(c[0], c[1], omega, 3.0, th_exact, w_exact);
    INFO("theta0 " << c[0] << ", w0 " << c[1] << ": closed form " << th_exact << ", " << w_exact << "; RK4 " << th << ", " << w);
    CHECK(std::abs(th - th_exact) < 1e-11);
    CHECK(std::abs(w - w_exact) < 1e-11);
    worst = std::max({worst, std::abs(th - th_exact), std::abs(w - w_exact)});
  }
  report("pendulum closed form vs RK4 on theta (h = 1e-4, t = 3): max |d|", worst);
  // A libration returns after its period 4K(k²)/ω (Lawden §5.2).
  const double th0 = 1.1, w0 = -0.4;
  const double k2 = std::pow(std::sin(th0 / 2), 2) + w0 * w0 / (4 * omega * omega);
  double th = 0.0, w = 0.0;
  pendulum::angle_at(th0, w0, omega, 4.0 * pendulum::complete_k(k2) / omega, th, w);
  CHECK(std::abs(th - th0) < 1e-13);
  CHECK(std::abs(w - w0) < 1e-13);
}

TEST_CASE("cartesian_pendulum: the field is the pendulum's, the multiplier the rod's tension", "[holonomic][pendulum]") {
  const double L = 2.0, m = 3.0, g = 9.81, theta = 0.7, w = 1.3;
  auto sys = test::system("cartesian_pendulum", {{"L", L}, {"m", m}, {"g", g}});
  const auto& lag = model(*sys);
  CHECK(lag.holonomic_count() == 1);
  CHECK(lag.num_constraints() == 1);  // C = ∂g/∂q = 2(x, y): the velocity form x ẋ + y ẏ = 0
  const State s = at_angle(L, theta, w);
  NonholonomicVectorField field;
  field.bind(lag);
  Vec qd(2), vd(2);
  field.evaluate(0.0, s.q, s.v, qd, vd);
  // θ̈ = −(g/L) sin θ; ẍ = L(cos θ θ̈ − sin θ θ̇²), ÿ = L(sin θ θ̈ + cos θ θ̇²).
  const double thdd = -(g / L) * std::sin(theta);
  const Vec expected = vec({L * (std::cos(theta) * thdd - std::sin(theta) * w * w),
                            L * (std::sin(theta) * thdd + std::cos(theta) * w * w)});
  INFO("field " << vd.transpose() << ", closed form " << expected.transpose());
  CHECK((vd - expected).lpNorm<Eigen::Infinity>() < 1e-14 * expected.norm() * 10);
  // The rod's tension T = m(g cos θ + L θ̇²) pulls towards the pivot: Cᵀλ = 2λ(x, y) = −T (x, y)/L.
  const double tension = m * (g * std::cos(theta) + L * w * w);
  CHECK(std::abs(field.multiplier()[0] - (-tension / (2 * L))) < 1e-13 * tension);
  // The compiled RK4 (the model inlined, FixedAccess with the rows of g) and the generic path agree.
  State a = s, b = s;
  auto compiled = integrator("rk4", {{"compiled", true}}), generic = integrator("rk4", {{"compiled", false}});
  compiled->bind(*sys);
  generic->bind(*sys);
  compiled->begin(a, 0.01);
  generic->begin(b, 0.01);
  for (int k = 0; k < 200; ++k) {
    compiled->advance(a, 0.01);
    generic->advance(b, 0.01);
  }
  CHECK(distance(a, b) < 1e-13);
}

TEST_CASE("dla and mla keep |g| at round-off over 1e5 steps, rk4 drifts beside them", "[holonomic][pendulum][long]") {
  auto sys = test::system("cartesian_pendulum");
  const State s0 = at_angle(1.0, 0.5, 1.0);  // the plugin's example: a swing of amplitude 1.18 rad
  const double h = 0.05;
  const long n = 100000;  // t = 5000, ~ 770 periods
  for (const char* name : {"dla", "mla"}) {
    const LongRun r = long_run(*sys, name, s0, h, n);
    report(std::string(name) + " pendulum 1e5 steps h=0.05: max |g|", r.g_max);
    report(std::string(name) + " pendulum: max |E - E0| first tenth", r.energy_first);
    report(std::string(name) + " pendulum: max |E - E0| last tenth", r.energy_last);
    INFO(name << ": max |g| " << r.g_max << ", energy error first/last tenth " << r.energy_first << " " << r.energy_last);
    // Newton stops at |δ| <= 1e-15 (1 + |u|): |g| = |2q·δ| <= 4e-15, and g's own rounding is ~4e-16.
    CHECK(r.g_max <= 1e-14);
    // A symplectic (variational) method: the energy error oscillates at O(h²), it does not grow.
    CHECK(r.energy_last <= 1.5 * r.energy_first);
    CHECK(r.energy_first < 1e-3);
  }
  // rk4 integrates the index-reduced field: it keeps d²g/dt² = 0 to its error, not g, so the
  // errors of ġ add up linearly and g drifts like t² (Hairer & Wanner, Solving ODEs II, §VII.2):
  // at h = 0.05 the pendulum shortens by 2.7 % by t = 500 (and collapses onto the pivot at t ≈ 1786).
  const LongRun rk_half = long_run(*sys, "rk4", s0, h, 5000), rk = long_run(*sys, "rk4", s0, h, 10000);
  report("rk4 pendulum h=0.05: |g| at t = 250", rk_half.g_last);
  report("rk4 pendulum h=0.05: |g| at t = 500", rk.g_last);
  INFO("rk4: |g| at t = 250 " << rk_half.g_last << ", at t = 500 " << rk.g_last);
  CHECK(rk.g_last > 1e-2);
  CHECK(std::abs(rk.g_last / rk_half.g_last - 4.0) < 0.4);  // ∝ t²
}

TEST_CASE("orders of dla, mla and rk4 on the Cartesian pendulum against its closed form", "[holonomic][pendulum]") {
  auto sys = test::system("cartesian_pendulum");
  const State s0 = at_angle(1.0, 0.5, 1.0);
  const double T = 2.0;
  State exact;
  sys->exact_solution(s0, T, exact);
  for (const auto& [name, declared] : {std::pair{"dla", 2.0}, std::pair{"mla", 2.0}, std::pair{"rk4", 4.0}}) {
    double e[4], g[4];
    for (int j = 0; j < 4; ++j) {
      const double h = 0.1 / (1 << j);
      const LongRun r = long_run(*sys, name, s0, h, std::lround(T / h));
      e[j] = distance(r.last, exact);
      g[j] = r.g_max;
    }
    if (std::string(name) == "rk4") {
      CHECK(g[2] / g[3] > 14.0);  // the drift of g is the method's error: h⁴
    } else {
      CHECK(*std::max_element(g, g + 4) < 1e-14);
    }
    const double fitted = std::log2(e[2] / e[3]);
    report(std::string(name) + " pendulum fitted order (h = 0.025 -> 0.0125)", fitted);
    INFO(name << ": errors " << e[0] << " " << e[1] << " " << e[2] << " " << e[3] << ", fitted order " << fitted);
    CHECK(std::abs(fitted - declared) < 0.05);
    CHECK(std::abs(std::log2(e[0] / e[1]) - declared) < 0.15);
  }
}

namespace {

// Holonomic and nonholonomic together, with a closed form: the nonholonomic particle (ż = y ẋ)
// held on the unit circle x² + y² = 1, free (V = 0). With x = cos θ, y = sin θ the rolling constraint
// integrates along the circle, z = z0 − [(θ − θ0)/2 − (sin 2θ − sin 2θ0)/4], the energy
// E = ½θ̇²(1 + sin⁴θ) is conserved (D is one-dimensional), and t(θ) = ∫ √((1 + sin⁴s)/(2E)) ds is a
// quadrature: the reference. A test-local model (FixedLagrangianSystem: the rows A and ∂g/∂q mixed).
struct ParticleOnCircleModel {
  static constexpr int dof = 3, constraints = 1, holonomic = 1;
  auto potential(const auto& q) const -> scalar_t<decltype(q)> { return scalar_t<decltype(q)>(0.0); }
  void constraint_matrix(const auto& q, auto&& A) const { A << -q[1], 0.0, 1.0; }  // ż − y ẋ = 0
  void holonomic_constraint(const auto& q, auto&& g) const { g[0] = q[0] * q[0] + q[1] * q[1] - 1.0; }
};
class ParticleOnCircle final : public FixedLagrangianSystem<ParticleOnCircleModel> {
 public:
  ParticleOnCircle() { set_name("particle_on_circle"); }
  Layout layout() const override { return {{"x", "y", "z"}, {"xdot", "ydot", "zdot"}}; }
};

State circle_state(double theta, double rate, double z) {
  const double s = std::sin(theta), c = std::cos(theta);
  return make_state({c, s, z}, {-s * rate, c * rate, -s * s * rate});
}

/// The state at time T from circle_state(theta0, rate0, z0): θ(T) by Newton on t(θ) = T, t by
/// 5-point Gauss–Legendre on 400 panels (error far below 1e-15 for this smooth integrand).
State circle_reference(double theta0, double rate0, double z0, double T) {
  const double E = 0.5 * rate0 * rate0 * (1 + std::pow(std::sin(theta0), 4));
  auto speed = [&](double th) { return std::sqrt(2 * E / (1 + std::pow(std::sin(th), 4))); };  // θ̇(θ)
  const double x5[] = {0.0, -0.5384693101056831, 0.5384693101056831, -0.9061798459386640, 0.9061798459386640};
  const double w5[] = {0.5688888888888889, 0.4786286704993665, 0.4786286704993665, 0.2369268850561891, 0.2369268850561891};
  auto time_to = [&](double th) {
    const int panels = 400;
    const double d = (th - theta0) / panels;
    double t = 0.0;
    for (int p = 0; p < panels; ++p)
      for (int i = 0; i < 5; ++i) t += 0.5 * d * w5[i] / speed(theta0 + d * (p + 0.5 + 0.5 * x5[i]));
    return t;
  };
  double th = theta0 + rate0 * T;
  for (int it = 0; it < 50; ++it) {
    const double step = (time_to(th) - T) * speed(th);
    th -= step;
    if (std::abs(step) < 1e-16) break;
  }
  const double z = z0 - ((th - theta0) / 2 - (std::sin(2 * th) - std::sin(2 * theta0)) / 4);
  State s = circle_state(th, speed(th), z);
  s.t = T;
  return s;
}

}  // namespace

TEST_CASE("holonomic and nonholonomic together: dla and mla keep g and the discrete constraint over 1e5 steps",
          "[holonomic][long]") {
  const ParticleOnCircle sys;
  CHECK(sys.num_constraints() == 2);  // ż − y ẋ and x ẋ + y ẏ
  const State s0 = circle_state(0.3, 1.0, 0.0);
  REQUIRE(constraint_violation(sys, s0).ok());
  // The closed form of z along the path, and the energy, against the quadrature reference at t = 0.
  CHECK(distance(circle_reference(0.3, 1.0, 0.0, 0.0), s0) < 1e-15);
  const double h = 0.05;
  const long n = 100000;  // t = 5000
  for (const char* name : {"dla", "mla"}) {
    const LongRun r = long_run(sys, name, s0, h, n);
    report(std::string(name) + " particle on circle 1e5 steps h=0.05: max |g|", r.g_max);
    report(std::string(name) + " particle on circle: max discrete constraint", r.omega_max);
    report(std::string(name) + " particle on circle: max |E - E0| first tenth", r.energy_first);
    report(std::string(name) + " particle on circle: max |E - E0| last tenth", r.energy_last);
    INFO(name << ": max |g| " << r.g_max << ", max |omega| " << r.omega_max << ", energy " << r.energy_first << " "
              << r.energy_last);
    CHECK(r.g_max <= 1e-14);
    // ω = (z_{k+1} − z_k)/h − ȳ(x_{k+1} − x_k)/h: the rounding of Δq at |z| ~ 2500 over h.
    CHECK(r.omega_max <= 8 * std::numeric_limits<double>::epsilon() * r.last.q.lpNorm<Eigen::Infinity>() / h);
    CHECK(r.energy_last <= 1.5 * r.energy_first + 1e-14);
  }
  // Orders against the quadrature.
  const double T = 2.0;
  const State exact = circle_reference(0.3, 1.0, 0.0, T);
  for (const auto& [name, declared] : {std::pair{"dla", 2.0}, std::pair{"mla", 2.0}, std::pair{"rk4", 4.0}}) {
    double e[3];
    for (int j = 0; j < 3; ++j) {
      const double hj = 0.05 / (1 << j);
      e[j] = distance(long_run(sys, name, s0, hj, std::lround(T / hj)).last, exact);
    }
    const double fitted = std::log2(e[1] / e[2]);
    report(std::string(name) + " particle on circle fitted order (h = 0.025 -> 0.0125)", fitted);
    INFO(name << ": errors " << e[0] << " " << e[1] << " " << e[2]);
    CHECK(std::abs(fitted - declared) < 0.1);
  }
}

TEST_CASE("whipple_bicycle plugin: its continuous field at Basu-Mandal's state is the model test's", "[holonomic][bicycle]") {
  using Model = whipple::WhippleBicycleModel;
  const Model b;
  auto sys = test::system("whipple_bicycle");
  const auto& lag = model(*sys);
  CHECK(lag.dof() == 8);
  CHECK(lag.num_constraints() == 5);  // four rolling rows and ∂g/∂q
  CHECK(lag.holonomic_count() == 1);
  // Basu-Mandal et al. Table 1 in our coordinates (tests/systems/test_whipple_model.cpp, README):
  // φ = π/2 − lean, δ = −steer, ψ = −yaw = 0, θ from g; the independent rates −(lean, steer, rear).
  const auto& examples = registry().find(PluginKind::System, "whipple_bicycle", "test").examples;
  REQUIRE(examples.size() == 2);
  const State& s = examples[1].state;
  CHECK(std::abs(s.q[Model::kRoll] - (kPi / 2 - 0.9501292851472)) < 1e-15);
  CHECK(std::abs(s.q[Model::kSteer] - (-0.2311385135743)) < 1e-15);
  CHECK(std::abs(s.q[Model::kPitch] - (kPi - 3.1257073014894)) < 1e-12);  // their pitch, 13 decimals
  CHECK(std::abs(s.v[Model::kRoll] - (-0.6068425835418)) < 1e-15);
  CHECK(std::abs(s.v[Model::kYaw] - (-0.7830033527065)) < 1e-12);         // a dependent rate: theirs
  CHECK(std::abs(s.v[Model::kFrontWheel] - (-8.0133620584155)) < 1e-12);  // idem
  CHECK(constraint_violation(*sys, s).ok());
  NonholonomicVectorField field;
  field.bind(lag);
  Vec qd(8), vd(8);
  field.evaluate(0.0, s.q, s.v, qd, vd);
  const Eigen::Matrix<double, 8, 1> q = s.q, v = s.v;
  const auto acc = linearisation::constrained_acceleration(b, q, v);
  const double rel = (vd - acc.qdd).lpNorm<Eigen::Infinity>() / acc.qdd.lpNorm<Eigen::Infinity>();
  report("bicycle: plugin field vs model test's index-1 solve, max relative", rel);
  INFO("plugin " << vd.transpose() << "\nmodel  " << acc.qdd.transpose());
  CHECK(rel < 1e-13);
  // And their published accelerations (yaw, lean, pitch, steer, rear and front wheel).
  const double published[][2] = {{-vd[Model::kYaw], 0.8353281706379},     {-vd[Model::kRoll], -7.8555281128244},
                                 {-vd[Model::kPitch], 0.1205543897884},   {-vd[Model::kSteer], -4.6198904039403},
                                 {-vd[Model::kRearWheel], 1.8472554144217}, {-vd[Model::kFrontWheel], 2.454807290455}};
  double worst = 0.0;
  for (const auto& p : published) worst = std::max(worst, std::abs(p[0] - p[1]) / std::abs(p[1]));
  report("bicycle: plugin field vs Basu-Mandal Table 1 accelerations, max relative", worst);
  CHECK(worst < 1e-10);
  // The multiplier of g is the front wheel's normal force direction's: the acceleration-level
  // constraints hold, C q̈ + κ = 0 (κ with vᵀ∇²g v).
  Mat C(5, 8);
  lag.constraint_matrix(s.q, C);
  Vec kappa(5);
  ConstraintContractions contractions;
  contractions.bind(lag);
  contractions.curvature(s.q, s.v, kappa);
  CHECK((C * vd + kappa).norm() < 1e-12);
}

TEST_CASE("dla and mla on the bicycle keep g and the discrete rolling constraints at round-off", "[holonomic][bicycle]") {
  auto sys = test::system("whipple_bicycle");
  const auto& examples = registry().find(PluginKind::System, "whipple_bicycle", "test").examples;
  // From the upright 5 m/s state with a lean rate of 0.5 rad/s (projected onto the constraints).
  State s0 = examples[0].state;
  s0.v[3] = 0.5;
  REQUIRE(sys->project(s0));
  REQUIRE(constraint_violation(*sys, s0).ok());
  const double h = 0.01;
  const long n = 2000;  // 20 s of self-stable weave decay
  for (const char* name : {"dla", "mla"}) {
    const LongRun r = long_run(*sys, name, s0, h, n);
    report(std::string(name) + " bicycle 2000 steps h=0.01: max |g|", r.g_max);
    report(std::string(name) + " bicycle: max discrete constraint", r.omega_max);
    report(std::string(name) + " bicycle: max |E - E0|", std::max(r.energy_first, r.energy_last));
    INFO(name << ": max |g| " << r.g_max << ", max |omega| " << r.omega_max << ", final lean " << r.last.q[3]);
    CHECK(r.g_max < 1e-14);  // metres: Newton's tolerance on a 1-m bicycle
    // ω = A(q̄)(q_{k+1} − q_k)/h: the rounding of q_{k+1} − q_k at the size of q (x reaches 100 m,
    // the rear wheel angle −333 rad in 20 s) over h, a few ε|q|∞/h.
    const double roundoff = 4.0 * std::numeric_limits<double>::epsilon() * r.last.q.lpNorm<Eigen::Infinity>() / h;
    INFO("round-off of the discrete constraint " << roundoff);
    CHECK(r.omega_max < roundoff);
    CHECK(std::abs(r.last.q[3]) < 0.01);  // self-stable at 5 m/s: the lean decays
  }
  const LongRun rk = long_run(*sys, "rk4", s0, h, n);
  report("rk4 bicycle 2000 steps h=0.01: |g| at the end", rk.g_last);
  CHECK(rk.g_last > 0.0);
}

TEST_CASE("an initial state off g is refused naming |g|, or projected with the distance in the manifest",
          "[holonomic][initial]") {
  auto study = [](json initial) {
    json j = {{"name", "off_g"},
              {"kind", "trajectory"},
              {"system", {{"plugin", "cartesian_pendulum"}}},
              {"initial", initial},
              {"integrators", {{{"label", "dla"}, {"plugin", "dla"}}}},
              {"T", 0.1},
              {"h", 0.05}};
    return parse_study(j, "off_g.json");
  };
  // |q| = √(0.36 + 0.81) ≠ 1: off the circle.
  const json off = {{"q", {0.6, -0.9}}, {"v", {1.0, 0.0}}};
  try {
    plan_study(study(off));
    FAIL("a state off g was accepted");
  } catch (const InputError& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find("|g(q)| = 1.700e-01 > ") != std::string::npos);  // x² + y² − 1 = 0.17
    CHECK(what.find("\"project\": true") != std::string::npos);
    CHECK(what.find('\n') == std::string::npos);
  }
  // On the circle but moving off it: |A(q)v| named.
  const json radial = {{"q", {0.6, -0.8}}, {"v", {0.6, -0.8}}};
  CHECK_THROWS_WITH(plan_study(study(radial)), Catch::Contains("|A(q)v| = 2.000e+00 > ") && Catch::Contains("|g(q)| = "));
  // Projected: Newton on g in the metric of M = m·1 is radial, so q goes to q/|q|; then v loses its
  // radial part (v·q̂)q̂, q̂ = (0.6, −0.9)/√1.17.
  json projected = off;
  projected["project"] = true;
  const StudyPlan plan = plan_study(study(projected));
  const double r = std::sqrt(1.17);
  CHECK(std::abs(plan.initial.q[0] - 0.6 / r) < 1e-15);
  CHECK(std::abs(plan.initial.q[1] + 0.9 / r) < 1e-15);
  CHECK(constraint_violation(*plan.system, plan.initial).ok());
  const json& d = plan.study_run.at("initial").at("projection_distance");
  CHECK(std::abs(d.at("q").get<double>() - 0.9 * (1 - 1 / r)) < 1e-15);
  const double radial_speed = 0.6 / r;  // v·q̂
  CHECK(std::abs(d.at("v").get<double>() - radial_speed * 0.9 / r) < 1e-15);
  // A system without g writes no projection distance (the manifests of the seeds are unchanged).
  json sleigh = {{"name", "no_g"},     {"kind", "trajectory"}, {"system", {{"plugin", "nonholonomic_particle"}}},
                 {"initial", {{"q", {0, 0, 0}}, {"v", {1, 0, 0}}, {"project", true}}},
                 {"integrators", {{{"label", "rk4"}, {"plugin", "rk4"}}}}, {"T", 0.1}, {"h", 0.05}};
  CHECK_FALSE(plan_study(parse_study(sleigh, "no_g.json")).study_run.at("initial").contains("projection_distance"));
}

TEST_CASE("integrators that do not treat g refuse it, naming those that do", "[holonomic][needs]") {
  auto pendulum = test::system("cartesian_pendulum");
  auto particle = test::system("nonholonomic_particle");
  CHECK(meets(*pendulum, "HolonomicConstraints"));
  CHECK_FALSE(meets(*particle, "HolonomicConstraints"));
  CHECK(unmet_integrator_need(*pendulum, {"ConstrainedLagrangian"}) == "treats HolonomicConstraints");
  CHECK(unmet_integrator_need(*particle, {"ConstrainedLagrangian"}).empty());
  CHECK(unmet_integrator_need(*pendulum, {"ConstrainedLagrangian", treats("HolonomicConstraints")}).empty());
  CHECK_THROWS_WITH(meets(*pendulum, "treats Holonomic"), Catch::Contains("unknown capability 'Holonomic'"));
  // bind() of a scheme that does not treat g: why, and the shipped schemes that do.
  auto newmark = integrator("nonholonomic_newmark");
  CHECK_THROWS_WITH(newmark->bind(*pendulum), Catch::Contains("does not treat the 1 holonomic constraint(s)") &&
                                                  Catch::Contains("dla and mla") && Catch::Contains("rk4"));
  CHECK_THROWS_WITH(integrator("exact_discrete", {{"form", "two_step"}})->bind(*pendulum), Catch::Contains("one_step"));
  CHECK_NOTHROW(integrator("exact_discrete")->bind(*pendulum));
  // The declared needs say the same, for a composition too: g is treated only if every stage treats it.
  const auto& reg = registry();
  CHECK(unmet_integrator_need(*pendulum, reg.needs(PluginKind::Integrator, "nonholonomic_newmark", nullptr, "t")) ==
        "treats HolonomicConstraints");
  for (const char* name : {"dla", "mla", "rk2", "rk4", "exact_discrete"})
    CHECK(unmet_integrator_need(*pendulum, reg.needs(PluginKind::Integrator, name, nullptr, "t")).empty());
  const json tj = {{"triple_jump", {{"integrator", "dla"}}}};
  CHECK(unmet_integrator_need(*pendulum, reg.needs(PluginKind::Integrator, "composition", tj, "t")).empty());
  const json mixed = {{"stages",
                       {{{"integrator", "dla"}, {"fraction", 0.5}},
                        {{"integrator", "nonholonomic_newmark"}, {"fraction", 0.5}}}}};
  CHECK(unmet_integrator_need(*pendulum, reg.needs(PluginKind::Integrator, "composition", mixed, "t")) ==
        "treats HolonomicConstraints");
  // A study: refused before bind(), naming the installed integrators that treat g.
  const json j = {{"name", "newmark_on_g"},
                  {"kind", "trajectory"},
                  {"system", {{"plugin", "cartesian_pendulum"}}},
                  {"initial", {{"q", {0, -1}}, {"v", {1, 0}}}},
                  {"integrators", {{{"label", "newmark"}, {"plugin", "nonholonomic_newmark"}}}},
                  {"T", 0.1},
                  {"h", 0.05}};
  CHECK_THROWS_WITH(plan_study(parse_study(j, "newmark_on_g.json")),
                    Catch::Contains("integrator 'nonholonomic_newmark' does not treat") &&
                        Catch::Contains("integrators that do: ") && Catch::Contains("dla") && Catch::Contains("rk4") &&
                        Catch::Contains("/integrators/0"));
}

TEST_CASE("the derivative check covers g: its Jacobian, its curvature, |g| at the state", "[holonomic][check]") {
  for (const char* name : {"cartesian_pendulum", "whipple_bicycle"}) {
    auto sys = test::system(name);
    const auto& lag = dynamic_cast<const LagrangianSystem&>(*sys);
    DerivativeCheckOptions opt;
    opt.state = registry().find(PluginKind::System, name, "test").examples.back().state;
    opt.samples = std::string(name) == "whipple_bicycle" ? 2 : 8;
    opt.flow = true;
    const auto result = check_derivatives(lag, opt);
    INFO(format_check_result(name, result));
    CHECK(result.ok());
    std::vector<std::string> functions;
    for (const auto& f : result.summary) functions.push_back(f.function);
    for (const char* f : {"holonomic_jacobian", "holonomic_residual", "constraint_gradient", "curvature",
                          "constraint_rank", "rk4_holonomic"})
      CHECK(std::find(functions.begin(), functions.end(), f) != functions.end());
  }
}

namespace {

// The pendulum written by hand as a plain LagrangianSystem (no AD), with the row ∂g/∂q of its
// distribution given the wrong sign in x when `plant` is set: the check must catch it against
// central differences of g.
class HandPendulum final : public LagrangianSystem {
 public:
  explicit HandPendulum(bool plant) : plant_(plant) {}
  Layout layout() const override { return {{"x", "y"}, {"xdot", "ydot"}}; }
  int dof() const override { return 2; }
  int num_constraints() const override { return 1; }
  void mass(ConstVecRef, MatRef M) const override { M.setIdentity(); }
  double potential(ConstVecRef q) const override { return q[1]; }
  void potential_gradient(ConstVecRef, VecRef g) const override { g << 0.0, 1.0; }
  void potential_hessian(ConstVecRef, MatRef H) const override { H.setZero(); }
  void constraint_matrix(ConstVecRef q, MatRef A) const override { A << (plant_ ? -2.0 : 2.0) * q[0], 2.0 * q[1]; }
  void constraint_gradient(ConstVecRef, int, MatRef G) const override { G << (plant_ ? -2.0 : 2.0), 0.0, 0.0, 2.0; }
  int holonomic_count() const override { return 1; }
  void holonomic(ConstVecRef q, VecRef g) const override { g[0] = q[0] * q[0] + q[1] * q[1] - 1.0; }

 private:
  bool plant_;
};

}  // namespace

TEST_CASE("the derivative check finds a wrong dg/dq in a hand-written system", "[holonomic][check]") {
  DerivativeCheckOptions opt;
  opt.state = at_angle(1.0, 0.5, 1.0);
  const auto good = check_derivatives(HandPendulum(false), opt);
  INFO(format_check_result("hand_pendulum", good));
  CHECK(good.ok());
  const auto bad = check_derivatives(HandPendulum(true), opt);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.findings.front().function == "holonomic_jacobian");
  CHECK(bad.findings.front().message.find("(g0)[x]") != std::string::npos);
}
