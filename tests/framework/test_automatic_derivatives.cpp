// Automatic derivatives (issue 13): a fixed-size model written as V, M(q) and A alone gets every
// derivative by forward-mode AD (math/forward_derivatives.hpp), and a closed form a model writes
// agrees with AD. Each derivative is checked against an independent number: a closed form derived
// by hand here, a shipped closed form, or the exact solution of the same mechanical system written
// in other coordinates.
#include <catch2/catch.hpp>
#include <cmath>
#include <dalembert/core/automatic_derivatives.hpp>
#include <dalembert/schemes/fixed_lagrangian_system.hpp>
#include <dalembert/core/nonholonomic_field.hpp>
#include <dalembert/math/explicit_runge_kutta.hpp>
#include <dalembert/plugin/export.hpp>
#include <dalembert/study/derivative_check.hpp>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "support.hpp"

// The out-of-tree example system (README "Adding a plugin"), compiled into this test: its
// DALEMBERT_PLUGIN becomes a plain function.
#undef DALEMBERT_PLUGIN
#define DALEMBERT_PLUGIN(describe_fn) \
  namespace dalembert::test {         \
  PluginDescriptor sleigh_in_bowl_descriptor() { return ::describe_fn(); } \
  }
#include "../../examples/out_of_tree_plugin/sleigh_in_bowl.cpp"

using namespace dalembert;

namespace {

/// ‖x − y‖∞ / ‖y‖∞ (0 when both vanish).
template <class X, class Y>
double relative_difference(const X& x, const Y& y) {
  const double scale = y.template lpNorm<Eigen::Infinity>();
  const double diff = (x - y).template lpNorm<Eigen::Infinity>();
  return diff == 0.0 ? 0.0 : diff / scale;
}

/// n = 3, r = 2: V and A only, with every derivative derived by hand below (the second method).
struct PotentialAndConstraints {
  static constexpr int dof = 3, constraints = 2;
  // V = ½|q|² + ¼q₀²q₁ + 0.1 q₂⁴ + cos(q₀q₂)
  auto potential(const auto& q) const -> scalar_t<decltype(q)> {
    using std::cos;
    return 0.5 * q.squaredNorm() + 0.25 * q[0] * q[0] * q[1] + 0.1 * q[2] * q[2] * q[2] * q[2] + cos(q[0] * q[2]);
  }
  // A = [[1, sin q₂, q₀], [q₁, 1, exp(q₀)]]
  void constraint_matrix(const auto& q, auto&& A) const {
    using std::exp, std::sin;
    A << 1.0, sin(q[2]), q[0], q[1], 1.0, exp(q[0]);
  }
};
class PotentialAndConstraintsSystem final : public FixedLagrangianSystem<PotentialAndConstraints> {
 public:
  Layout layout() const override { return {{"q0", "q1", "q2"}, {"v0", "v1", "v2"}}; }
};

void hand_gradient(const Vec& q, Vec& g) {
  const double s = std::sin(q[0] * q[2]);
  g.resize(3);
  g << q[0] + 0.5 * q[0] * q[1] - q[2] * s, q[1] + 0.25 * q[0] * q[0], q[2] + 0.4 * q[2] * q[2] * q[2] - q[0] * s;
}
void hand_hessian(const Vec& q, Mat& H) {
  const double s = std::sin(q[0] * q[2]), c = std::cos(q[0] * q[2]);
  H.resize(3, 3);
  H << 1.0 + 0.5 * q[1] - q[2] * q[2] * c, 0.5 * q[0], -s - q[0] * q[2] * c,  //
      0.5 * q[0], 1.0, 0.0,                                                  //
      -s - q[0] * q[2] * c, 0.0, 1.0 + 1.2 * q[2] * q[2] - q[0] * q[0] * c;
}
/// G^a_{ij} = ∂A_{ai}/∂q^j
void hand_constraint_gradient(const Vec& q, int a, Mat& G) {
  G = Mat::Zero(3, 3);
  if (a == 0) {
    G(1, 2) = std::cos(q[2]);
    G(2, 0) = 1.0;
  } else {
    G(0, 1) = 1.0;
    G(2, 0) = std::exp(q[0]);
  }
}

/// `steps` classical RK4 steps of size h on the generic continuous field of `sys`, from s.
State rk4_on_field(const LagrangianSystem& sys, State s, int steps, double h) {
  NonholonomicVectorField field;
  field.bind(sys);
  ExplicitRungeKutta rk(classical_rk4());
  rk.resize(sys.dof(), sys.dof());
  for (int k = 0; k < steps; ++k) {
    rk.step([&](double t, const Vec& q, const Vec& v, Vec& qd, Vec& vd) { field.evaluate(t, q, v, qd, vd); }, s.t, s.q, s.v, h);
    s.t += h;
  }
  return s;
}

Vec random_vector(std::mt19937_64& rng, int n, double scale) {
  std::uniform_real_distribution<double> u(-scale, scale);
  Vec x(n);
  for (int i = 0; i < n; ++i) x[i] = u(rng);
  return x;
}

}  // namespace

TEST_CASE("a model written as V and A gets its derivatives by AD, equal to the closed forms", "[framework][ad]") {
  const PotentialAndConstraintsSystem sys;
  CHECK(sys.hand_written().empty());
  std::mt19937_64 rng(13);
  double worst = 0.0;
  for (int k = 0; k < 100; ++k) {
    const Vec q = random_vector(rng, 3, 1.5), v = random_vector(rng, 3, 2.0), lambda = random_vector(rng, 2, 1.0);
    Vec g(3), g_hand, c(2), c_hand(2);
    Mat H(3, 3), H_hand, G(3, 3), G_hand, DA(2, 3), DA_hand(2, 3);
    sys.potential_gradient(q, g);
    hand_gradient(q, g_hand);
    worst = std::max(worst, relative_difference(g, g_hand));
    sys.potential_hessian(q, H);
    hand_hessian(q, H_hand);
    worst = std::max(worst, relative_difference(H, H_hand));
    for (int a = 0; a < 2; ++a) {
      sys.constraint_gradient(q, a, G);
      hand_constraint_gradient(q, a, G_hand);
      worst = std::max(worst, relative_difference(G, G_hand));
      c_hand[a] = v.dot(G_hand * v);             // (∂A/∂q)[v]v
      DA_hand.row(a) = v.transpose() * G_hand;   // DA[v]
    }
    sys.model_curvature(q, v, c);
    worst = std::max(worst, relative_difference(c, c_hand));
    sys.model_constraint_derivative(q, v, DA);
    worst = std::max(worst, relative_difference(DA, DA_hand));
    // The contractions the virtual interface forms from constraint_gradient, by the shared code.
    ConstraintContractions contractions;
    contractions.bind(sys);
    Mat K(3, 3), K_hand = Mat::Zero(3, 3);
    contractions.transpose_derivative(q, lambda, K);
    for (int a = 0; a < 2; ++a) {
      hand_constraint_gradient(q, a, G_hand);
      K_hand += lambda[a] * G_hand;
    }
    worst = std::max(worst, relative_difference(K, K_hand));
  }
  INFO("worst relative difference AD vs closed form over 100 states: " << worst);
  CHECK(worst <= 1e-13);
}

TEST_CASE("every shipped L-and-A system's closed forms agree with AD at 100 random states", "[framework][ad]") {
  int systems = 0;
  const std::vector<std::pair<std::string, nlohmann::json>> shipped = {
      {"nonholonomic_particle", nullptr}, {"chaotic_nonholonomic_particle", nullptr}, {"pendulum_driven_cvt", nullptr},
      {"knife_edge", nullptr},            {"knife_edge", {{"eps", 0.1}}},           {"chaplygin_sleigh", nullptr},
      {"snakeboard", nullptr},            {"vertical_rolling_disk", nullptr}};
  for (const auto& [name, params] : shipped) {
    auto sys = test::registry().make_system(name, params, "test");
    const auto* ad = dynamic_cast<const AutomaticDerivatives*>(sys.get());
    const auto* model = dynamic_cast<const ConstrainedLagrangian*>(sys.get());
    REQUIRE(ad != nullptr);
    REQUIRE(model != nullptr);
    ++systems;
    const int n = model->dof(), r = model->num_constraints();
    std::mt19937_64 rng(101);
    double worst = 0.0;
    for (int k = 0; k < 100; ++k) {
      const Vec q = random_vector(rng, n, 2.0), v = random_vector(rng, n, 2.0);
      Vec x(n), y(n), cx(r), cy(r);
      Mat X(n, n), Y(n, n), DX(r, n), DY(r, n);
      model->potential_gradient(q, x);
      ad->automatic_potential_gradient(q, y);
      worst = std::max(worst, relative_difference(x, y));
      model->potential_hessian(q, X);
      ad->automatic_potential_hessian(q, Y);
      worst = std::max(worst, relative_difference(X, Y));
      for (int a = 0; a < r; ++a) {
        model->constraint_gradient(q, a, X);
        ad->automatic_constraint_gradient(q, a, Y);
        worst = std::max(worst, relative_difference(X, Y));
      }
      ad->model_curvature(q, v, cx);
      ad->automatic_curvature(q, v, cy);
      worst = std::max(worst, relative_difference(cx, cy));
      ad->model_constraint_derivative(q, v, DX);
      ad->automatic_constraint_derivative(q, v, DY);
      worst = std::max(worst, relative_difference(DX, DY));
    }
    INFO(name << ": worst relative difference closed form vs AD " << worst);
    CHECK(worst <= 1e-13);
  }
  CHECK(systems == 8);
}

namespace {

/// The example's sleigh without the bowl (k = 0): the shipped chaplygin_sleigh in other coordinates.
SleighInBowlModel sleigh_model() { return {/*m=*/1.3, /*I=*/0.7, /*a=*/0.4, /*k=*/0.0}; }

/// Contact-point state (x, y, θ) of the example → centre-of-mass state (θ, x_c, y_c) of the
/// shipped sleigh: x_c = x + a cos θ, y_c = y + a sin θ.
State to_centre_of_mass(const State& s, double a) {
  const double th = s.q[2], c = std::cos(th), sn = std::sin(th), w = s.v[2];
  return test::make_state({th, s.q[0] + a * c, s.q[1] + a * sn}, {w, s.v[0] - a * sn * w, s.v[1] + a * c * w});
}

}  // namespace

TEST_CASE("M(q): the Coriolis terms of the example sleigh by AD equal their closed form", "[framework][ad]") {
  const SleighInBowlModel m = sleigh_model();
  const SleighInBowl sys(m);
  CHECK_FALSE(sys.constant_mass());
  std::mt19937_64 rng(7);
  double worst = 0.0;
  for (int k = 0; k < 100; ++k) {
    const Vec q = random_vector(rng, 3, 3.0), v = random_vector(rng, 3, 2.0);
    Vec c(3), c_hand(3);
    sys.coriolis(q, v, c);
    // M(θ) of the example: Ṁv − ½∂_q(vᵀMv) = −ma θ̇² (cos θ, sin θ, 0), the centripetal terms.
    const double w = v[2], mw2 = m.m * m.a * w * w;
    c_hand << -mw2 * std::cos(q[2]), -mw2 * std::sin(q[2]), 0.0;
    worst = std::max(worst, relative_difference(c, c_hand));
    // The one pass that gives M with c (the compiled field's): M bit for bit the model's, c the same.
    Eigen::Matrix3d M_pass, M_model;
    Eigen::Vector3d c_pass;
    ad::mass_and_coriolis<3>(m, q, v, M_pass, c_pass);
    m.mass(q, M_model);
    CHECK(M_pass == M_model);
    worst = std::max(worst, relative_difference(c_pass, c_hand));
  }
  INFO("worst relative difference " << worst);
  CHECK(worst <= 1e-13);
}

TEST_CASE("M(q): RK4 on the example sleigh converges at order 4 to the shipped sleigh's exact solution", "[framework][ad]") {
  const SleighInBowlModel m = sleigh_model();
  const SleighInBowl sys(m);
  auto shipped = test::registry().make_system("chaplygin_sleigh", {{"I", m.I}, {"m", m.m}, {"a", m.a}}, "test");
  const double th0 = 0.3, u = 0.8, w0 = 0.9, T = 2.0;
  const State s0 = test::make_state({0.0, 0.0, th0}, {u * std::cos(th0), u * std::sin(th0), w0});
  State exact;
  shipped->exact_solution(to_centre_of_mass(s0, m.a), T, exact);

  // The generic path: M(q) factorised per evaluation, Coriolis by AD.
  auto error_at = [&](int steps) {
    const State s = rk4_on_field(sys, s0, steps, T / steps);
    CHECK(sys.constraint_residual(s) < 1e-6);
    const State c = to_centre_of_mass(s, m.a);
    return std::max((c.q - exact.q).lpNorm<Eigen::Infinity>(), (c.v - exact.v).lpNorm<Eigen::Infinity>());
  };
  const double e1 = error_at(40), e2 = error_at(80);
  const double order = std::log2(e1 / e2);
  INFO("errors " << e1 << ", " << e2 << "; order " << order);
  CHECK(e2 < 1e-6);
  CHECK(order == Approx(4.0).margin(0.25));
}

TEST_CASE("the example sleigh's energy is conserved by RK4 at order 4 (M(q) and a potential)", "[framework][ad]") {
  SleighInBowlModel m = sleigh_model();
  m.k = 2.0;
  const SleighInBowl sys(m);
  const double th0 = 0.3, T = 3.0;
  const State s0 = test::make_state({1.0, 0.0, th0}, {0.7 * std::cos(th0), 0.7 * std::sin(th0), 0.5});
  const double E0 = sys.energy(s0);
  auto energy_error = [&](int steps) { return std::abs(sys.energy(rk4_on_field(sys, s0, steps, T / steps)) - E0); };
  const double e1 = energy_error(30), e2 = energy_error(60);
  INFO("energy errors " << e1 << ", " << e2);
  CHECK(std::log2(e1 / e2) == Approx(4.0).margin(0.4));
}

namespace {

/// A model whose size is a run-time parameter (dof = constraints = Eigen::Dynamic): k independent
/// copies of the example sleigh in its bowl, n = 3k, r = k, M(q) and A(q) block diagonal. Each copy
/// must move exactly as the fixed-size sleigh does.
struct SleighFleet {
  static constexpr int dof = Eigen::Dynamic, constraints = Eigen::Dynamic;
  SleighInBowlModel one;
  int k;
  int n() const { return 3 * k; }
  int r() const { return k; }
  void mass(const auto& q, auto&& M) const {
    M.setZero();
    for (int b = 0; b < k; ++b) one.mass(q.template segment<3>(3 * b), M.template block<3, 3>(3 * b, 3 * b));
  }
  auto potential(const auto& q) const -> scalar_t<decltype(q)> {
    scalar_t<decltype(q)> V(0.0);
    for (int b = 0; b < k; ++b) V += one.potential(q.template segment<3>(3 * b));
    return V;
  }
  void constraint_matrix(const auto& q, auto&& A) const {
    A.setZero();
    for (int b = 0; b < k; ++b) one.constraint_matrix(q.template segment<3>(3 * b), A.template block<1, 3>(b, 3 * b));
  }
};
class SleighFleetSystem final : public FixedLagrangianSystem<SleighFleet> {
 public:
  using FixedLagrangianSystem::FixedLagrangianSystem;
  Layout layout() const override {
    Layout l;
    for (int b = 0; b < fixed_model().k; ++b)
      for (const char* c : {"x", "y", "theta"}) {
        l.q.push_back(c + std::to_string(b));
        l.v.push_back(c + std::string("dot") + std::to_string(b));
      }
    return l;
  }
};

}  // namespace

TEST_CASE("a model of run-time size gets the same derivatives and RK4 trajectory as its fixed-size copies",
          "[framework][ad]") {
  SleighInBowlModel one = sleigh_model();
  one.k = 2.0;
  const SleighInBowl single(one);
  const int k = 3;
  const SleighFleetSystem fleet(SleighFleet{one, k});
  REQUIRE(fleet.dof() == 9);
  REQUIRE(fleet.num_constraints() == 3);
  CHECK_FALSE(fleet.constant_mass());
  CHECK(fleet.runge_kutta({{{}, {1.0}}, {0.5, 0.5}, {0.0, 1.0}, 2}) == nullptr);  // no compiled scheme at run-time size

  // Derivatives: block b of each fleet derivative equals the single sleigh's at (q_b, v_b).
  std::mt19937_64 rng(29);
  double worst = 0.0;
  for (int trial = 0; trial < 20; ++trial) {
    const Vec q = random_vector(rng, 9, 2.0), v = random_vector(rng, 9, 2.0);
    Vec g(9), c(9), curv(3);
    Mat H(9, 9), G(9, 9), DA(3, 9);
    fleet.potential_gradient(q, g);
    fleet.potential_hessian(q, H);
    fleet.coriolis(q, v, c);
    fleet.model_curvature(q, v, curv);
    fleet.model_constraint_derivative(q, v, DA);
    for (int b = 0; b < k; ++b) {
      const Vec qb = q.segment<3>(3 * b), vb = v.segment<3>(3 * b);
      Vec gb(3), cb(3), curvb(1);
      Mat Hb(3, 3), Gb(3, 3), DAb(1, 3);
      single.potential_gradient(qb, gb);
      single.potential_hessian(qb, Hb);
      single.coriolis(qb, vb, cb);
      single.model_curvature(qb, vb, curvb);
      single.model_constraint_derivative(qb, vb, DAb);
      fleet.constraint_gradient(q, b, G);
      single.constraint_gradient(qb, 0, Gb);
      worst = std::max({worst, relative_difference(g.segment<3>(3 * b), gb), relative_difference(H.block<3, 3>(3 * b, 3 * b), Hb),
                        relative_difference(c.segment<3>(3 * b), cb), std::abs(curv[b] - curvb[0]),
                        relative_difference(DA.block<1, 3>(b, 3 * b), DAb), relative_difference(G.block<3, 3>(3 * b, 3 * b), Gb)});
      // Off the diagonal blocks the copies do not interact: exact zeros.
      CHECK((G.norm() - G.block<3, 3>(3 * b, 3 * b).norm()) == 0.0);
    }
    CHECK(H.block<3, 3>(0, 3).norm() + H.block<3, 3>(3, 6).norm() == 0.0);
  }
  INFO("worst difference fleet vs single sleigh " << worst);
  CHECK(worst <= 1e-15);

  // Trajectory: RK4 on the generic field of the fleet, copy b against the single sleigh from (q_b, v_b).
  State s0 = test::make_state({1.0, 0.0, 0.3, -0.5, 0.8, 2.0, 0.2, -1.0, -1.2}, {0.1, 0.2, 0.5, -0.3, 0.4, -0.6, 0.7, 0.0, 0.9});
  fleet.project(s0);
  const double E0 = fleet.energy(s0), h = 0.05;
  const State s = rk4_on_field(fleet, s0, 100, h);
  double apart = 0.0;
  for (int b = 0; b < k; ++b) {
    const State c = rk4_on_field(single, test::make_state({s0.q[3 * b], s0.q[3 * b + 1], s0.q[3 * b + 2]},
                                                          {s0.v[3 * b], s0.v[3 * b + 1], s0.v[3 * b + 2]}),
                                 100, h);
    apart = std::max({apart, (s.q.segment<3>(3 * b) - c.q).lpNorm<Eigen::Infinity>(),
                      (s.v.segment<3>(3 * b) - c.v).lpNorm<Eigen::Infinity>()});
  }
  INFO("fleet vs single sleighs after 100 RK4 steps: " << apart << "; energy drift " << std::abs(fleet.energy(s) - E0));
  CHECK(apart <= 1e-12);
  CHECK(std::abs(fleet.energy(s) - E0) <= 1e-5 * E0);
  CHECK(fleet.constraint_residual(s) <= 1e-6);

  DerivativeCheckOptions options;  // `dalembert check` on the fleet: SPD, rank 3, RK4 orders
  options.flow = true;
  const DerivativeCheckResult checked = check_derivatives(fleet, options);
  INFO(format_check_result("sleigh_fleet", checked));
  CHECK(checked.ok());
  CHECK(checked.summary.size() >= 6);
}
