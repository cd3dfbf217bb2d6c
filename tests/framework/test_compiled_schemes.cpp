// Schemes compiled with a fixed-size model (schemes/fixed_lagrangian_system.hpp, issue 4) against the
// same schemes on the generic path (virtual model interface, dynamic sizes): the two are one source
// instantiated twice, so they must agree to round-off — on the shipped fixed-size systems through
// the registry (`compiled: true` vs `false`), and on a test model that exercises what those
// systems do not: a dense constant mass matrix, two constraints, and contractions formed from the
// constraint gradient (no closed-form curvature hook).
#include <catch2/catch.hpp>
#include <cmath>
#include <dalembert/schemes/fixed_lagrangian_system.hpp>
#include <dalembert/core/nonholonomic_field.hpp>
#include <dalembert/math/explicit_runge_kutta.hpp>
#include <dalembert/schemes/newmark_step.hpp>

#include "support.hpp"

using namespace dalembert;
using nlohmann::json;

namespace {

double distance(const State& a, const State& b) {
  return std::max((a.q - b.q).lpNorm<Eigen::Infinity>(), (a.v - b.v).lpNorm<Eigen::Infinity>());
}

json with_compiled(json params, bool compiled) {
  params["compiled"] = compiled;
  return params;
}

json newmark(double beta, double beta_prime, double alpha, const char* disc = "14") {
  return {{"beta", beta}, {"beta_prime", beta_prime}, {"alpha", alpha}, {"constraint_discretization", disc}};
}

/// n = 3, r = 2, M dense and constant, V with cross terms, A(q) depending on every coordinate along
/// the constraint forces (so the β = 0 Newmark equations are genuinely nonlinear in λ).
struct DenseTwoConstraintModel {
  static constexpr int dof = 3, constraints = 2;
  void mass(auto&& M) const { M << 2.0, 0.3, 0.1, 0.3, 1.5, -0.2, 0.1, -0.2, 1.0; }
  auto potential(const auto& q) const -> scalar_t<decltype(q)> { return 0.5 * q.squaredNorm() + 0.25 * q[0] * q[0] * q[1] + 0.1 * q[2] * q[2] * q[2] * q[2]; }
  void potential_gradient(const auto& q, auto&& g) const {
    g << q[0] + 0.5 * q[0] * q[1], q[1] + 0.25 * q[0] * q[0], q[2] + 0.4 * q[2] * q[2] * q[2];
  }
  void potential_hessian(const auto& q, auto&& H) const {
    H << 1.0 + 0.5 * q[1], 0.5 * q[0], 0.0, 0.5 * q[0], 1.0, 0.0, 0.0, 0.0, 1.0 + 1.2 * q[2] * q[2];
  }
  // A = [[1, sin q₂, q₀], [q₁, 1, cos q₀]]
  void constraint_matrix(const auto& q, auto&& A) const {
    using std::cos, std::sin;  // generic in the scalar: AD evaluates A on dual numbers
    A << 1.0, sin(q[2]), q[0], q[1], 1.0, cos(q[0]);
  }
  void constraint_gradient(const auto& q, int a, auto&& G) const {
    G.setZero();
    if (a == 0) {
      G(1, 2) = std::cos(q[2]);  // ∂A_{0,1}/∂q₂
      G(2, 0) = 1.0;             // ∂A_{0,2}/∂q₀
    } else {
      G(0, 1) = 1.0;              // ∂A_{1,0}/∂q₁
      G(2, 0) = -std::sin(q[0]);  // ∂A_{1,2}/∂q₀
    }
  }
};

class DenseTwoConstraintSystem final : public FixedLagrangianSystem<DenseTwoConstraintModel> {
 public:
  Layout layout() const override { return {{"q0", "q1", "q2"}, {"v0", "v1", "v2"}}; }
};

/// A state on the constraint distribution near the origin.
State dense_initial(const DenseTwoConstraintSystem& sys) {
  State s = test::make_state({0.2, -0.1, 0.3}, {0.4, -0.3, 0.5});
  sys.project(s);
  return s;
}

const ButcherTableau kRK4 = classical_rk4();

}  // namespace

TEST_CASE("shipped fixed-size systems offer compiled schemes", "[framework][compiled]") {
  for (const char* name : {"nonholonomic_particle", "chaotic_nonholonomic_particle", "pendulum_driven_cvt"}) {
    auto sys = test::registry().make_system(name, nullptr, "test");
    INFO(name);
    CHECK(dynamic_cast<const CompiledSchemes*>(sys.get()) != nullptr);
  }
}

TEST_CASE("compiled and generic paths of rk2, rk4 and nonholonomic_newmark agree to round-off",
          "[framework][compiled]") {
  struct Case {
    const char* system;
    json system_params;
    State initial;
    double h;
  };
  const std::vector<Case> systems = {
      {"nonholonomic_particle", json::object(), test::make_state({1, 1, -1}, {1, -1, 1}), 0.2},
      {"chaotic_nonholonomic_particle", json::object(),
       test::make_state({1, 0, 1, -1, -1}, {0.05, 0.5, -0.5, -0.1, -0.05}), 0.2},
      {"pendulum_driven_cvt", json{{"epsilon", 0.1}},
       test::make_state({1, 0, -2}, {-0.4481, -0.40745617696058795, 0.1}), 0.1},
  };
  const std::vector<std::pair<const char*, json>> schemes = {
      {"rk4", json::object()},
      {"rk2", json::object()},
      {"nonholonomic_newmark", newmark(0, 0, 0.5)},          // DLA
      {"nonholonomic_newmark", newmark(0, 0.1, 0.6, "15")},  // β = 0, (15)
      {"nonholonomic_newmark", newmark(0.1, 0.1, 0.5)},      // β ≠ 0: Newton on (Q, λ, λ′)
      {"nonholonomic_newmark", newmark(0.25, 0, 1.0)},
  };
  constexpr int kSteps = 200;
  for (const auto& c : systems) {
    auto sys = test::registry().make_system(c.system, c.system_params, "test");
    for (const auto& [integrator, params] : schemes) {
      INFO(integrator << " " << params.dump() << " on " << c.system);
      auto compiled = test::registry().make_integrator(integrator, with_compiled(params, true), "test");
      auto generic = test::registry().make_integrator(integrator, with_compiled(params, false), "test");
      compiled->bind(*sys);
      generic->bind(*sys);
      State a = c.initial, b = c.initial;
      std::vector<std::string> names;
      compiled->quantity_names(names);
      std::vector<double> qa(names.size()), qb(names.size());
      double worst = 0.0, worst_quantity = 0.0;
      for (int k = 0; k < kSteps; ++k) {
        compiled->advance(a, c.h);
        generic->advance(b, c.h);
        worst = std::max(worst, distance(a, b) / (1.0 + a.q.lpNorm<Eigen::Infinity>() + a.v.lpNorm<Eigen::Infinity>()));
        compiled->discrete_quantities(qa.data());
        generic->discrete_quantities(qb.data());
        for (std::size_t i = 0; i + 1 < names.size(); ++i)  // all but the Newton iteration count
          if (names[i] != "discrete_constraint_residual")
            worst_quantity = std::max(worst_quantity, std::abs(qa[i] - qb[i]) / (1.0 + std::abs(qb[i])));
          else
            CHECK(qa[i] <= 1e-12);
      }
      INFO("max relative state difference " << worst << ", multipliers " << worst_quantity);
      CHECK(a.t == b.t);
      // Chaotic runs amplify round-off differences (the two paths sum in different orders); 200
      // steps keep them far below the schemes' errors.
      CHECK(worst <= 1e-10);
      CHECK(worst_quantity <= 1e-9);
    }
  }
}

TEST_CASE("compiled schemes on a dense-mass, two-constraint model match the generic templates",
          "[framework][compiled]") {
  DenseTwoConstraintSystem sys;
  const State s0 = dense_initial(sys);
  REQUIRE(sys.constraint_residual(s0) <= 1e-14);

  SECTION("the fixed-size field equals NonholonomicVectorField") {
    FixedNonholonomicField<DenseTwoConstraintModel> fixed;
    fixed.bind(sys.fixed_model());
    NonholonomicVectorField generic;
    generic.bind(sys);
    Eigen::Vector3d q = s0.q, v = s0.v, qd, vd;
    Vec gqd(3), gvd(3);
    fixed.evaluate(0.0, q, v, qd, vd);
    generic.evaluate(0.0, s0.q, s0.v, gqd, gvd);
    CHECK((vd - gvd).lpNorm<Eigen::Infinity>() <= 1e-14 * (1.0 + gvd.lpNorm<Eigen::Infinity>()));
    CHECK((fixed.multiplier() - generic.multiplier()).lpNorm<Eigen::Infinity>() <= 1e-14);
    // The field keeps A(q)v = 0: d/dt(Av) = (∂A/∂q)[v]v + A v̇ = 0.
    Eigen::Matrix<double, 2, 3> A;
    sys.fixed_model().constraint_matrix(q, A);
    Eigen::Vector2d c;
    FixedAccess<DenseTwoConstraintModel> access;
    access.bind(sys.fixed_model());
    access.curvature(q, v, c);
    CHECK((c + A * vd).lpNorm<Eigen::Infinity>() <= 1e-13);
  }

  SECTION("compiled RK4 equals the generic RK4 step for step") {
    auto compiled = sys.runge_kutta(kRK4);
    NonholonomicVectorField field;
    field.bind(sys);
    ExplicitRungeKutta rk(kRK4);
    rk.resize(3, 3);
    State a = s0, b = s0;
    for (int k = 0; k < 100; ++k) {
      compiled->step(a, 0.05);
      rk.step([&](double t, const Vec& q, const Vec& v, Vec& qd, Vec& vd) { field.evaluate(t, q, v, qd, vd); }, b.t,
              b.q, b.v, 0.05);
      b.t += 0.05;
    }
    CHECK(distance(a, b) <= 1e-13);
    CHECK(sys.constraint_residual(a) <= 1e-6);  // RK4 drifts off D only at its order
  }

  SECTION("compiled Newmark equals NewmarkStep<DynamicAccess>, β = 0 and β ≠ 0") {
    for (const NewmarkParameters p : {NewmarkParameters{0.0, 0.0, 0.5}, NewmarkParameters{0.1, 0.1, 0.5},
                                      NewmarkParameters{0.0, 0.2, 0.3, ConstraintDiscretization::Eq15}}) {
      INFO("beta " << p.beta << " beta' " << p.beta_prime << " alpha " << p.alpha);
      const NewtonOptions newton;
      auto compiled = sys.newmark(p, newton);
      NewmarkStep<DynamicAccess> generic;
      generic.bind(static_cast<const ConstrainedLagrangian&>(sys), p, newton);
      State a = s0, b = s0;
      for (int k = 0; k < 100; ++k) {
        compiled->step(a, 0.05);
        generic.step(b, 0.05);
        // Both preserve the constraint at every step (N4) and the discrete constraint (N3).
        REQUIRE(sys.constraint_residual(a) <= 1e-12);
        REQUIRE(compiled->quantities()[0] <= 1e-12);
      }
      CHECK(distance(a, b) <= 1e-12);
      // A nonlinear Φ(λ) here: Newton needs more than one iteration.
      CHECK(compiled->quantities().back() >= 2);
      CHECK(compiled->quantities().back() == generic.quantities().back());
    }
  }

  SECTION("a failed compiled step leaves the state unchanged") {
    auto compiled = sys.newmark(NewmarkParameters{0.0, 0.5, 0.5}, NewtonOptions{});  // β′ = ½: λ′ undetermined
    State s = s0;
    CHECK_THROWS_AS(compiled->step(s, 0.05), StepFailure);
    CHECK(distance(s, s0) == 0.0);
    CHECK(s.t == s0.t);
  }
}

TEST_CASE("compiled and generic Runge-Kutta agree to round-off on systems with a configuration-dependent M(q)",
          "[framework][compiled][configuration_mass]") {
  // The compiled field factorises M(q) with SmallLdlt and takes M from the Coriolis pass's duals
  // (issue 32 item 1); the generic NonholonomicVectorField uses Eigen's LLT and a separate M(q).
  struct Case {
    const char* system;
    State initial;
    double h;
  };
  const std::vector<Case> systems = {
      {"rolling_disk", test::make_state({0, 0, 0, 0.6, 0}, {0.5, 0, 0, 0, 0.5}), 0.05},  // the bench's tilted disk
      {"chaplygin_sphere",
       test::make_state({0, 0, 0.1, 1.62, 0.2}, {-0.3711480667762606, -0.051160173919572824, 0.061412395945645605,
                                                  0.013851606558183904, 0.3748550380933625}),
       0.05},
      {"polar_oscillator", test::make_state({1.0, 0.0, 0.0}, {0.3, 0.8, 0.8}), 0.05},  // r = 1 (one constraint)
  };
  for (const auto& c : systems) {
    auto sys = test::registry().make_system(c.system, nullptr, "test");
    const auto* lagrangian = dynamic_cast<const ConstrainedLagrangian*>(sys.get());
    REQUIRE(lagrangian != nullptr);
    REQUIRE_FALSE(lagrangian->constant_mass());
    for (const char* integrator : {"rk4", "rk2"}) {
      INFO(integrator << " on " << c.system);
      auto compiled = test::registry().make_integrator(integrator, {{"compiled", true}}, "test");
      auto generic = test::registry().make_integrator(integrator, {{"compiled", false}}, "test");
      compiled->bind(*sys);
      generic->bind(*sys);
      State a = c.initial, b = c.initial;
      double worst = 0.0;
      for (int k = 0; k < 400; ++k) {
        compiled->advance(a, c.h);
        generic->advance(b, c.h);
        worst = std::max(worst, distance(a, b) / (1.0 + a.q.lpNorm<Eigen::Infinity>() + a.v.lpNorm<Eigen::Infinity>()));
      }
      INFO("max relative state difference " << worst);
      CHECK(a.t == b.t);
      CHECK(worst > 0.0);    // two factorisations: round-off, not the same code
      CHECK(worst <= 1e-12);  // 400 steps of a non-chaotic motion keep round-off near 1e-15 per step
    }
  }
}
