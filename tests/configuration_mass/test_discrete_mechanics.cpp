// Discrete nonholonomic mechanics on a configuration-dependent mass matrix (issue 14, item 1):
// the discrete Lagrangians by quadrature with M(q_{c_i}), their slot derivatives, and the dla, mla
// and exact_discrete plugins on an M(q) system. Independent numbers: central differences of L_d,
// the constant-mass code path, fitted orders against a fine RK4 run, the exact flow's own error.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <dalembert/schemes/fixed_lagrangian_system.hpp>
#include <dalembert_plugins/discrete_mechanics.hpp>

#include "support.hpp"

using namespace dalembert;

namespace {

/// A Chaplygin sleigh in a quadratic bowl with a potential ripple: M depends on the heading θ
/// (the centre of mass sits a ahead of the blade), q = (x, y, θ), one constraint −sinθ ẋ + cosθ ẏ = 0.
struct BowlSleigh {
  static constexpr int dof = 3, constraints = 1;
  double m = 1.0, I = 0.5, a = 0.3, k = 1.0;
  void mass(const auto& q, auto&& M) const {
    using std::cos, std::sin;
    const scalar_t<decltype(q)> s = sin(q[2]), c = cos(q[2]);
    M << m, 0.0, -m * a * s, 0.0, m, m * a * c, -m * a * s, m * a * c, I + m * a * a;
  }
  auto potential(const auto& q) const -> scalar_t<decltype(q)> {
    using std::cos;
    return 0.5 * k * (q[0] * q[0] + q[1] * q[1]) + 0.1 * cos(q[2]);
  }
  void constraint_matrix(const auto& q, auto&& A) const {
    using std::cos, std::sin;
    A << -sin(q[2]), cos(q[2]), 0.0;
  }
};

/// A dense constant M and a nonholonomic particle-like constraint, written twice: with the constant
/// form mass(M) and with the configuration form mass(q, M) that ignores q.
template <bool AsFunctionOfQ>
struct DenseParticle {
  static constexpr int dof = 3, constraints = 1;
  static void fill(auto&& M) { M << 2.0, 0.3, 0.1, 0.3, 1.5, -0.2, 0.1, -0.2, 1.0; }
  void mass(auto&& M) const
    requires(!AsFunctionOfQ)
  {
    fill(M);
  }
  void mass(const auto&, auto&& M) const
    requires AsFunctionOfQ
  {
    fill(M);
  }
  auto potential(const auto& q) const -> scalar_t<decltype(q)> {
    using std::cos;
    return 0.5 * (q[0] * q[0] + q[1] * q[1]) + cos(q[2]);
  }
  void constraint_matrix(const auto& q, auto&& A) const { A << -q[1], 0.0, 1.0; }  // ż = y ẋ
};

template <class Model>
class TestSystem final : public FixedLagrangianSystem<Model> {
 public:
  explicit TestSystem(std::string name) : FixedLagrangianSystem<Model>(Model{}) { this->set_name(std::move(name)); }
  Layout layout() const override { return {{"x", "y", "theta"}, {"xdot", "ydot", "thetadot"}}; }
};

State sleigh_state() {  // on D: ẋ, ẏ along the heading θ = 0.4
  const double th = 0.4, u = 0.7;
  return test::make_state({0.5, -0.2, th}, {u * std::cos(th), u * std::sin(th), 0.9});
}

/// q after N steps of `integrator` from s.
State advance(const System& sys, const std::string& integrator, State s, double h, long N,
              nlohmann::json params = nlohmann::json::object()) {
  auto in = test::registry().make_integrator(integrator, params, "test");
  in->bind(sys);
  in->begin(s);
  for (long k = 0; k < N; ++k) in->advance(s, h);
  return s;
}

double fitted_order(const std::vector<double>& h, const std::vector<double>& e) {
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < h.size(); ++i) mx += std::log(h[i]) / h.size(), my += std::log(e[i]) / h.size();
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < h.size(); ++i) {
    sxy += (std::log(h[i]) - mx) * (std::log(e[i]) - my);
    sxx += (std::log(h[i]) - mx) * (std::log(h[i]) - mx);
  }
  return sxy / sxx;
}

}  // namespace

TEST_CASE("M(q): the slot derivatives D1L_d, D2L_d are the derivatives of L_d (central differences)",
          "[configuration_mass][discrete_mechanics]") {
  TestSystem<BowlSleigh> sys("bowl_sleigh");
  const Vec q0 = test::make_state({0.5, -0.2, 0.4}, {}).q, q1 = test::make_state({0.56, -0.17, 0.49}, {}).q;
  const double h = 0.1;
  for (const auto& rule : {DiscreteRule::midpoint(), DiscreteRule::trapezoidal(), DiscreteRule::gauss2()}) {
    INFO(rule.name);
    DiscreteNonholonomicMechanics dm;
    dm.bind(sys, rule, false);
    REQUIRE_FALSE(dm.constant_mass());
    Vec D1(3), D2(3), fd1(3), fd2(3);
    dm.d1(q0, q1, h, D1);
    dm.d2(q0, q1, h, D2);
    for (int j = 0; j < 3; ++j) {  // fourth-order central differences of L_d in each slot
      const double d = 1e-3;
      auto at = [&](int slot, double off) {
        Vec a = q0, b = q1;
        (slot == 0 ? a : b)[j] += off * d;
        return dm.lagrangian(a, b, h);
      };
      for (int slot = 0; slot < 2; ++slot)
        (slot == 0 ? fd1 : fd2)[j] = (at(slot, -2) - 8 * at(slot, -1) + 8 * at(slot, 1) - at(slot, 2)) / (12 * d);
    }
    CHECK((D1 - fd1).lpNorm<Eigen::Infinity>() < 1e-9 * D1.lpNorm<Eigen::Infinity>());
    CHECK((D2 - fd2).lpNorm<Eigen::Infinity>() < 1e-9 * D2.lpNorm<Eigen::Infinity>());
  }
}

TEST_CASE("M(q): a constant M written as M(q) gives the constant-mass path's dla, mla and exact_discrete steps",
          "[configuration_mass][discrete_mechanics]") {
  TestSystem<DenseParticle<false>> constant("dense_particle");
  TestSystem<DenseParticle<true>> general("dense_particle_as_mq");
  REQUIRE(constant.constant_mass());
  REQUIRE_FALSE(general.constant_mass());
  const State s0 = test::make_state({1.0, 0.5, -1.0}, {0.6, -0.4, 0.3});
  for (const std::string integrator : {"dla", "mla", "exact_discrete"}) {
    INFO(integrator);
    const long N = integrator == "exact_discrete" ? 20 : 200;
    const State a = advance(constant, integrator, s0, 0.1, N), b = advance(general, integrator, s0, 0.1, N);
    CHECK((a.q - b.q).lpNorm<Eigen::Infinity>() < 1e-12);
    CHECK((a.v - b.v).lpNorm<Eigen::Infinity>() < 1e-12);
    CHECK(a.q != s0.q);
  }
}

TEST_CASE("M(q): dla and mla converge with order 2, exact_discrete at round-off (sleigh in a bowl)",
          "[configuration_mass][discrete_mechanics]") {
  TestSystem<BowlSleigh> sys("bowl_sleigh");
  const State s0 = sleigh_state();
  const double T = 1.0;
  const State ref = advance(sys, "rk4", s0, 1e-4, 10000);
  const std::vector<double> hs = {0.1, 0.05, 0.025, 0.0125};
  for (const std::string integrator : {"dla", "mla"}) {
    std::vector<double> err;
    for (double h : hs) err.push_back((advance(sys, integrator, s0, h, std::lround(T / h)).q - ref.q).lpNorm<Eigen::Infinity>());
    INFO(integrator << " errors " << err[0] << " .. " << err.back());
    CHECK(std::abs(fitted_order(hs, err) - 2.0) < 0.1);
  }
  const State ex = advance(sys, "exact_discrete", s0, 0.1, 10);
  CHECK((ex.q - ref.q).lpNorm<Eigen::Infinity>() < 1e-11);
  CHECK((ex.v - ref.v).lpNorm<Eigen::Infinity>() < 1e-11);
}

TEST_CASE("M(q): dla and mla keep the discrete constraint at round-off and the energy bounded over 2e4 steps",
          "[configuration_mass][discrete_mechanics]") {
  TestSystem<BowlSleigh> sys("bowl_sleigh");
  const State s0 = sleigh_state();
  const double E0 = sys.energy(s0);
  for (const std::string integrator : {"dla", "mla"}) {
    INFO(integrator);
    auto in = test::registry().make_integrator(integrator, nlohmann::json::object(), "test");
    in->bind(sys);
    State s = s0;
    in->begin(s);
    std::vector<std::string> names;
    in->quantity_names(names);
    std::vector<double> values(names.size());
    const long N = 20000;
    double first = 0, second = 0, omega = 0;
    for (long k = 0; k < N; ++k) {
      in->advance(s, 0.05);
      in->discrete_quantities(values.data());
      omega = std::max(omega, values[1]);  // discrete_constraint_residual
      const double dE = std::abs(sys.energy(s) - E0);
      (k < N / 2 ? first : second) = std::max(k < N / 2 ? first : second, dE);
    }
    CHECK(names[1] == "discrete_constraint_residual");
    CHECK(omega < 1e-13);
    CHECK(first < 1e-2 * E0);
    CHECK(second < 1.5 * first);  // bounded: no drift from the first half to the second
  }
}

TEST_CASE("M(q): kinetic_gradient by AD agrees with the finite-difference fallback", "[configuration_mass]") {
  TestSystem<BowlSleigh> sys("bowl_sleigh");
  const State s = sleigh_state();
  Vec ad(3), fd(3);
  sys.kinetic_gradient(s.q, s.v, ad);
  sys.ConstrainedLagrangian::kinetic_gradient(s.q, s.v, fd);  // the default for plain LagrangianSystems
  CHECK(ad.norm() > 0.1);
  CHECK((ad - fd).lpNorm<Eigen::Infinity>() < 1e-10);
}

TEST_CASE("M(q): nonholonomic_newmark refuses, naming plugin, system and the integrators that accept it",
          "[configuration_mass]") {
  TestSystem<BowlSleigh> sys("bowl_sleigh");
  auto in = test::registry().make_integrator("nonholonomic_newmark", nlohmann::json::object(), "test");
  CHECK_THROWS_WITH(in->bind(sys), Catch::Contains("'nonholonomic_newmark'") && Catch::Contains("'bowl_sleigh'") &&
                                        Catch::Contains("dla, mla or exact_discrete"));
}

TEST_CASE("M(q): the Newton Jacobian from the model gives the central-difference Jacobian's steps",
          "[configuration_mass][discrete_mechanics]") {
  TestSystem<BowlSleigh> sys("bowl_sleigh");
  const State s0 = sleigh_state();
  const nlohmann::json fd = {{"jacobian", "central_difference"}};
  for (const std::string integrator : {"dla", "mla"}) {
    for (const std::string form : {"one_step", "two_step", "multiplier"}) {
      INFO(integrator << " " << form);
      const State a = advance(sys, integrator, s0, 0.1, 100, {{"form", form}});
      const State b = advance(sys, integrator, s0, 0.1, 100, {{"form", form}, {"jacobian", "central_difference"}});
      CHECK((a.q - b.q).lpNorm<Eigen::Infinity>() < 1e-12);
      CHECK((a.q - s0.q).lpNorm<Eigen::Infinity>() > 0.1);
    }
  }
}

TEST_CASE("momenta(): pi^- and pi^+ from one pass are momentum_minus and momentum_plus, bit for bit",
          "[configuration_mass][discrete_mechanics]") {
  TestSystem<BowlSleigh> sleigh("bowl_sleigh");
  TestSystem<DenseParticle<false>> particle("dense_particle");
  const Vec q0 = test::make_state({0.5, -0.2, 0.4}, {}).q, q1 = test::make_state({0.56, -0.17, 0.49}, {}).q;
  for (const System* sys : {static_cast<const System*>(&sleigh), static_cast<const System*>(&particle)})
    for (const auto& rule : {DiscreteRule::midpoint(), DiscreteRule::trapezoidal(), DiscreteRule::gauss2()})
      for (const bool forces : {false, true}) {
        INFO(sys->name() << " " << rule.name << (forces ? " MLA" : " DLA"));
        DiscreteNonholonomicMechanics dm;
        dm.bind(dynamic_cast<const ConstrainedLagrangian&>(*sys), rule, forces);
        Vec minus(dm.k()), plus(dm.k()), both_minus(dm.k()), both_plus(dm.k());
        dm.momentum_minus(q0, q1, 0.1, minus);
        dm.momentum_plus(q0, q1, 0.1, plus);
        dm.momenta(q0, q1, 0.1, both_minus, both_plus);
        CHECK(both_minus == minus);
        CHECK(both_plus == plus);
        CHECK(plus != minus);
      }
}

TEST_CASE("M(q): dla and mla's extrapolated Newton guess finds the same steps in fewer iterations",
          "[configuration_mass][discrete_mechanics]") {
  // guess_order 0: q_k + h v_k (no extrapolation); 5: from the last five increments. The root is
  // the same to the Newton tolerance (1e-15 relative), grown over the steps by the dynamics.
  TestSystem<BowlSleigh> sys("bowl_sleigh");
  const State s0 = sleigh_state();
  for (const std::string integrator : {"dla", "mla"}) {
    INFO(integrator);
    const State a = advance(sys, integrator, s0, 0.01, 300, {{"guess_order", 0}});
    const State b = advance(sys, integrator, s0, 0.01, 300, {{"guess_order", 5}});
    CHECK((a.q - b.q).lpNorm<Eigen::Infinity>() < 1e-12);
    CHECK((a.q - s0.q).lpNorm<Eigen::Infinity>() > 0.1);
    auto iterations = [&](int order) {
      auto in = test::registry().make_integrator(integrator, {{"guess_order", order}}, "test");
      in->bind(sys);
      State s = s0;
      in->begin(s);
      std::vector<std::string> names;
      in->quantity_names(names);
      const auto at = std::find(names.begin(), names.end(), "newton_iterations") - names.begin();
      std::vector<double> values(names.size());
      double total = 0.0;
      for (int k = 0; k < 300; ++k) {
        in->advance(s, 0.01);
        in->discrete_quantities(values.data());
        total += values[at];
      }
      return total / 300.0;
    };
    const double plain = iterations(0), extrapolated = iterations(5);
    INFO("mean Newton iterations per step: h v guess " << plain << ", extrapolated " << extrapolated);
    CHECK(extrapolated < 0.75 * plain);
  }
}
