// Tests of the nonholonomic Newmark integrator F_h^{β,β′,α} (plugin nonholonomic_newmark) and of
// the residual/Jacobian assembly it uses (<dalembert/schemes/newmark_residual.hpp>), against the
// verifiable claims of spec 000 §5 and the closed forms of spec 000 §3.2.
#include <catch2/catch.hpp>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <dalembert/core/constrained_lagrangian.hpp>
#include <dalembert/core/nonholonomic_field.hpp>
#include <dalembert/schemes/newmark_residual.hpp>
#include <iostream>
#include <sstream>

#include "support.hpp"

using namespace dalembert;
using nlohmann::json;

namespace {

constexpr double kH = 0.2;  // the paper's step (spec 000 §4, Fig 1)

std::unique_ptr<System> particle() { return test::registry().make_system("nonholonomic_particle", nullptr, "test"); }

/// Paper IC of the nonholonomic particle (spec 000 §2.1).
State paper_ic() { return test::make_state({1.0, 1.0, -1.0}, {1.0, -1.0, 1.0}); }

json newmark_params(double beta, double beta_prime, double alpha, json extra = json::object()) {
  json p = {{"beta", beta}, {"beta_prime", beta_prime}, {"alpha", alpha}};
  p.update(extra);
  return p;
}

/// F^{β,β′,α} bound to `system`.
std::unique_ptr<Integrator> newmark(const System& system, double beta, double beta_prime, double alpha,
                                    json extra = json::object()) {
  auto integrator = test::registry().make_integrator("nonholonomic_newmark",
                                                     newmark_params(beta, beta_prime, alpha, extra), "test");
  integrator->bind(system);
  return integrator;
}

/// A published discrete quantity of the last step, by name.
double quantity(const Integrator& integrator, const std::string& name) {
  std::vector<std::string> names;
  integrator.quantity_names(names);
  std::vector<double> values(names.size());
  integrator.discrete_quantities(values.data());
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return values[i];
  FAIL("integrator does not publish '" << name << "'");
  return 0.0;
}

/// A number in scientific notation, for INFO messages (Catch prints doubles in fixed notation).
std::string sci(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3e", x);
  return buf;
}

/// ‖(q,v) − (q′,v′)‖∞.
double distance(const State& a, const State& b) {
  return std::max((a.q - b.q).lpNorm<Eigen::Infinity>(), (a.v - b.v).lpNorm<Eigen::Infinity>());
}

State advance(Integrator& integrator, State s, double h, int steps) {
  for (int k = 0; k < steps; ++k) integrator.advance(s, h);
  return s;
}

// ----- the particle's constraint, written out independently of the plugin (spec 000 §2.1, §3.4) -----

/// μ(q) = A(q)ᵀ = (−y, 0, 1).
Vec particle_mu(const Vec& q) { return (Vec(3) << -q[1], 0.0, 1.0).finished(); }

/// Φ of (14) for the particle: ⟨μ((1−α)q_k + αq_{k+1}), (q_{k+1} − q_k)/h⟩.
double particle_phi(const Vec& qk, const Vec& q1, double alpha, double h) {
  return particle_mu((1.0 - alpha) * qk + alpha * q1).dot((q1 - qk) / h);
}

// ----- a test-only system with r = 2, non-identity M, nonlinear A(q) and non-quadratic V -----

/// Q = R⁴, M = diag(1, 2, 1, ½), V = ½|q|² + 0.1x²y² + cos w,
/// constraints ż − yẋ = 0 and ẇ + cos(x)ẏ = 0, i.e. A = [[−y, 0, 1, 0], [0, cos x, 0, 1]].
class TwoConstraintModel : public LagrangianSystem {
 public:
  TwoConstraintModel() { set_name("two_constraint_model"); }
  Layout layout() const override { return {{"x", "y", "z", "w"}, {"xdot", "ydot", "zdot", "wdot"}}; }
  int dof() const override { return 4; }
  int num_constraints() const override { return 2; }
  void mass(ConstVecRef, MatRef M) const override {
    M.setZero();
    M.diagonal() << 1.0, 2.0, 1.0, 0.5;
  }
  double potential(ConstVecRef q) const override {
    return 0.5 * q.squaredNorm() + 0.1 * q[0] * q[0] * q[1] * q[1] + std::cos(q[3]);
  }
  void potential_gradient(ConstVecRef q, VecRef g) const override {
    g << q[0] + 0.2 * q[0] * q[1] * q[1], q[1] + 0.2 * q[0] * q[0] * q[1], q[2], q[3] - std::sin(q[3]);
  }
  void potential_hessian(ConstVecRef q, MatRef H) const override {
    H.setZero();
    H(0, 0) = 1.0 + 0.2 * q[1] * q[1];
    H(0, 1) = H(1, 0) = 0.4 * q[0] * q[1];
    H(1, 1) = 1.0 + 0.2 * q[0] * q[0];
    H(2, 2) = 1.0;
    H(3, 3) = 1.0 - std::cos(q[3]);
  }
  void constraint_matrix(ConstVecRef q, MatRef A) const override {
    A << -q[1], 0.0, 1.0, 0.0, 0.0, std::cos(q[0]), 0.0, 1.0;
  }
  void constraint_gradient(ConstVecRef q, int a, MatRef G) const override {
    G.setZero();
    if (a == 0) G(0, 1) = -1.0;              // ∂A_{0,x}/∂y
    else G(1, 0) = -std::sin(q[0]);          // ∂A_{1,y}/∂x
  }
};

/// A constrained initial state of TwoConstraintModel (A(q)v = 0 exactly up to round-off).
State two_constraint_ic() {
  const double x = 0.3, y = 0.7, xd = 0.5, yd = -0.3;
  return test::make_state({x, y, -0.2, 0.4}, {xd, yd, y * xd, -std::cos(x) * yd});
}

struct VaryingMassModel final : TwoConstraintModel {
  VaryingMassModel() { set_name("varying_mass_model"); }
  bool constant_mass() const override { return false; }
};
struct ForcedModel final : TwoConstraintModel {
  ForcedModel() { set_name("forced_model"); }
  bool has_external_force() const override { return true; }
};

}  // namespace

// ------------------------------------------------------------------------------------------------

TEST_CASE("nonholonomic_newmark: traits, published quantities and refusals", "[plugins][newmark]") {
  auto sys = particle();
  CHECK(newmark(*sys, 0.1, 0.1, 0.5)->traits().order == 2);
  CHECK(newmark(*sys, 0.1, 0.1, 0.5)->traits().symmetric);
  CHECK(newmark(*sys, 0.1, 0.2, 0.5)->traits().order == 1);
  CHECK_FALSE(newmark(*sys, 0.0, 0.0, 0.0)->traits().symmetric);
  CHECK(newmark(*sys, 0.0, 0.0, 0.0)->traits().explicit_method);
  CHECK_FALSE(newmark(*sys, 0.1, 0.0, 0.0)->traits().explicit_method);
  CHECK(newmark(*sys, 0.0, 0.0, 0.5)->traits().preserves == std::vector<std::string>{"constraint", "discrete_constraint"});

  std::vector<std::string> names;
  newmark(*sys, 0.0, 0.0, 0.5)->quantity_names(names);
  CHECK(names == std::vector<std::string>{"discrete_constraint_residual", "lambda", "lambda_prime", "newton_iterations"});
  TwoConstraintModel two;
  newmark(two, 0.1, 0.1, 0.5)->quantity_names(names);
  CHECK(names == std::vector<std::string>{"discrete_constraint_residual", "lambda_0", "lambda_1", "lambda_prime_0",
                                          "lambda_prime_1", "newton_iterations"});

  VaryingMassModel varying;
  ForcedModel forced;
  CHECK_THROWS_WITH(newmark(varying, 0.1, 0.1, 0.5), Catch::Contains("varying_mass_model") && Catch::Contains("constant mass"));
  CHECK_THROWS_WITH(newmark(forced, 0.1, 0.1, 0.5), Catch::Contains("forced_model") && Catch::Contains("external force"));
  CHECK_THROWS_AS(test::registry().make_integrator("nonholonomic_newmark", json{{"alpha", 1.5}}, "test"), InputError);
  CHECK_THROWS_AS(test::registry().make_integrator("nonholonomic_newmark", json{{"constraint_discretization", "16"}}, "test"),
                  InputError);
}

TEST_CASE("claim 1: A(q)v = 0 and Φ = 0 are preserved (particle, 500 steps)", "[plugins][newmark][claim1]") {
  // Over 500 steps the particle reaches |y| ≈ 99, |z| ≈ 160, so Φ(q_k, q_{k+1}) evaluated from the stored
  // (rounded) positions cannot be below ≈ ε·(|ȳ|(|x_k|+|x_{k+1}|) + |z_k|+|z_{k+1}|)/|h| ≈ 1e−12. The spec's
  // absolute bound is therefore checked while the coordinates are O(10) (first 50 steps, t ≤ 10), and Φ
  // relative to that round-off scale over all 500 steps. A(q)v involves only O(1) velocities: absolute bound.
  auto sys = particle();
  for (double beta : {0.0, 0.1})
    for (double beta_prime : {0.0, 0.1})
      for (double alpha : {0.0, 0.5, 1.0}) {
        CAPTURE(beta, beta_prime, alpha);
        auto F = newmark(*sys, beta, beta_prime, alpha);
        State s = paper_ic();
        double max_Av = 0.0, max_phi_50 = 0.0, max_phi = 0.0, max_phi_relative = 0.0, max_published_gap = 0.0;
        for (int k = 0; k < 500; ++k) {
          const Vec qk = s.q;
          F->advance(s, kH);
          const double phi = std::abs(particle_phi(qk, s.q, alpha, kH));
          const double ybar = std::abs((1.0 - alpha) * qk[1] + alpha * s.q[1]);
          const double scale = (ybar * (std::abs(qk[0]) + std::abs(s.q[0])) + std::abs(qk[2]) + std::abs(s.q[2])) / kH;
          max_Av = std::max(max_Av, sys->constraint_residual(s));
          max_phi = std::max(max_phi, phi);
          if (k < 50) max_phi_50 = std::max(max_phi_50, phi);
          max_phi_relative = std::max(max_phi_relative, phi / scale);
          max_published_gap = std::max(max_published_gap, std::abs(quantity(*F, "discrete_constraint_residual") - phi));
        }
        INFO("max|Av| = " << sci(max_Av) << ", max|Phi| (50 steps) = " << sci(max_phi_50) << ", max|Phi| = "
                          << sci(max_phi) << ", max|Phi|/scale = " << sci(max_phi_relative));
        const double bound = beta == 0.0 ? 1e-13 : 1e-11;  // spec 000 §5 claim 1
        CHECK(max_Av <= bound);
        CHECK(max_phi_50 <= bound);
        CHECK(max_phi <= 1e-11);
        CHECK(max_phi_relative <= (beta == 0.0 ? 1e-15 : 1e-13));
        CHECK(max_published_gap <= 1e-14);  // the plugin publishes the same Φ
      }
}

TEST_CASE("claim 1 and orders (r = 2): a model with M ≠ I, nonlinear A and non-quadratic V", "[plugins][newmark][claim1]") {
  TwoConstraintModel sys;
  const State x = two_constraint_ic();
  for (double beta : {0.0, 0.1})
    for (double alpha : {0.0, 0.5, 1.0})
      for (const char* disc : {"14", "15"}) {
        CAPTURE(beta, alpha, disc);
        auto F = newmark(sys, beta, 0.1, alpha, {{"constraint_discretization", disc}});
        State s = x;
        double max_Av = 0.0, max_phi = 0.0;
        for (int k = 0; k < 200; ++k) {
          F->advance(s, kH);
          max_Av = std::max(max_Av, sys.constraint_residual(s));
          max_phi = std::max(max_phi, quantity(*F, "discrete_constraint_residual"));
        }
        INFO("max|Av| = " << sci(max_Av) << ", max|Phi| = " << sci(max_phi));
        CHECK(max_Av <= (beta == 0.0 ? 1e-13 : 1e-11));
        CHECK(max_phi <= (beta == 0.0 ? 1e-13 : 1e-11));
      }
  // Global error at t = 1 against RK4 at h = 1e−3 (error ≈ 1e−13): orders 1 and 2 as in spec 000 §3.3.
  auto rk4 = test::registry().make_integrator("rk4", nullptr, "test");
  rk4->bind(sys);
  const State reference = advance(*rk4, x, 1e-3, 1000);
  struct Case {
    double beta, beta_prime, alpha;
    const char* disc;
    int order;
  };
  for (const Case& c : {Case{0, 0, 0, "14", 1}, Case{0, 0, 1, "15", 1}, Case{0.1, 0.2, 0.3, "14", 1},
                        Case{0, 0, 0.5, "14", 2}, Case{0.1, 0.1, 0.5, "15", 2}}) {
    CAPTURE(c.beta, c.beta_prime, c.alpha, c.disc);
    auto F = newmark(sys, c.beta, c.beta_prime, c.alpha, {{"constraint_discretization", c.disc}});
    std::vector<double> err;
    for (int steps : {10, 20, 40, 80}) err.push_back(distance(advance(*F, x, 1.0 / steps, steps), reference));
    for (std::size_t i = 0; i + 1 < err.size(); ++i) {
      INFO("errors " << sci(err[i]) << " -> " << sci(err[i + 1]));
      CHECK(std::abs(std::log2(err[i] / err[i + 1]) - c.order) <= 0.15);
    }
  }
}

TEST_CASE("spec 000 §3.2 closed forms for β = β′ = 0 on the particle agree with the plugin", "[plugins][newmark]") {
  auto sys = particle();
  for (double alpha : {0.0, 0.5, 1.0}) {
    CAPTURE(alpha);
    auto F = newmark(*sys, 0.0, 0.0, alpha);
    State s = paper_ic();
    double max_lambda = 0.0, max_q = 0.0, max_v = 0.0;
    for (int k = 0; k < 20; ++k) {
      const Vec q = s.q, v = s.v;
      const double y1 = q[1] + kH * v[1];
      const double ybar = (1.0 - alpha) * q[1] + alpha * y1;
      // λ_k = −2(ż_k − ȳẋ_k)/(h(1 + ȳy_k))
      const double lambda = -2.0 * (v[2] - ybar * v[0]) / (kH * (1.0 + ybar * q[1]));
      // q_{k+1} = q_k + h v_k + (h²/2)λ_k(−y_k, 0, 1)
      const Vec q1 = q + kH * v + 0.5 * kH * kH * lambda * particle_mu(q);
      // d = (q_{k+1} − q_k)/h, s = (d_z − y_{k+1}d_x)/(1 + y²_{k+1}), v_{k+1} = (d_x + s y_{k+1}, d_y, d_z − s)
      const Vec d = (q1 - q) / kH;
      const double sc = (d[2] - q1[1] * d[0]) / (1.0 + q1[1] * q1[1]);
      const Vec v1 = (Vec(3) << d[0] + sc * q1[1], d[1], d[2] - sc).finished();
      F->advance(s, kH);
      max_lambda = std::max(max_lambda, std::abs(quantity(*F, "lambda") - lambda));
      max_q = std::max(max_q, (s.q - q1).lpNorm<Eigen::Infinity>());
      max_v = std::max(max_v, (s.v - v1).lpNorm<Eigen::Infinity>());
    }
    INFO("max|dlambda| = " << sci(max_lambda) << ", max|dq| = " << sci(max_q) << ", max|dv| = " << sci(max_v));
    CHECK(max_lambda <= 1e-13);
    CHECK(max_q <= 1e-13);
    CHECK(max_v <= 1e-13);
  }
}

TEST_CASE("claim 4: F^{0,0,α} is the DLA integrator (Prop 3.5), 40 steps", "[plugins][newmark][claim4]") {
  auto sys = particle();
  const double h2 = kH * kH;
  for (double alpha : {0.0, 0.5, 1.0}) {
    CAPTURE(alpha);
    auto F = newmark(*sys, 0.0, 0.0, alpha);
    State s = paper_ic();
    std::vector<Vec> q{s.q};
    std::vector<double> lambda, lambda_prime;  // lambda[k]: step k→k+1; lambda_prime[k]: λ′_{k+1}
    for (int k = 0; k < 40; ++k) {
      F->advance(s, kH);
      q.push_back(s.q);
      lambda.push_back(quantity(*F, "lambda"));
      lambda_prime.push_back(quantity(*F, "lambda_prime"));
    }
    // q_{k+2} − 2q_{k+1} + q_k = h²M⁻¹[−∇V(q_{k+1}) + A(q_{k+1})ᵀ(λ_{k+1} + λ′_{k+1})/2]   (M = I, V = 0)
    double max_two_step = 0.0;
    for (int k = 0; k + 2 <= 40; ++k) {
      const Vec rhs = h2 * particle_mu(q[k + 1]) * 0.5 * (lambda[k + 1] + lambda_prime[k]);
      max_two_step = std::max(max_two_step, (q[k + 2] - 2.0 * q[k + 1] + q[k] - rhs).lpNorm<Eigen::Infinity>());
    }
    INFO("two-step identity residual = " << sci(max_two_step));
    CHECK(max_two_step <= 1e-13);

    // Stand-alone DLA from (q₀, q₁): q_{k+2} = 2q_{k+1} − q_k + h² μ(q_{k+1}) c with Φ(q_{k+1}, q_{k+2}) = 0.
    // Φ is affine in the DLA multiplier c for the particle (μ has no y-component), so one secant step is exact.
    std::vector<Vec> dla{q[0], q[1]};
    for (int k = 0; k + 2 <= 40; ++k) {
      const Vec base = 2.0 * dla[k + 1] - dla[k];
      const Vec dir = h2 * particle_mu(dla[k + 1]);
      const double phi0 = particle_phi(dla[k + 1], base, alpha, kH);
      const double phi1 = particle_phi(dla[k + 1], base + dir, alpha, kH);
      dla.push_back(base - (phi0 / (phi1 - phi0)) * dir);
    }
    double max_position = 0.0;
    for (int k = 0; k <= 40; ++k) max_position = std::max(max_position, (dla[k] - q[k]).lpNorm<Eigen::Infinity>());
    INFO("stand-alone DLA vs Newmark positions = " << sci(max_position));
    CHECK(max_position <= 1e-12);
  }
}

TEST_CASE("claim 5: α = 0 closed-form multipliers (after Prop 3.7) match the first step", "[plugins][newmark][claim5]") {
  // λ_k = C_k⁻¹A_kM⁻¹∇V(q_k),  λ′_{k+1} = C_{k+1}⁻¹[−(2/h)A_{k+1}(q_{k+1} − q_k)/h + A_{k+1}M⁻¹∇V(q_{k+1})]
  auto check_first_step = [](const System& system, const State& s0, double tol) {
    const auto& model = dynamic_cast<const ConstrainedLagrangian&>(system);
    const int n = model.dof(), r = model.num_constraints();
    auto closed_form = [&](const Vec& q, const Vec& extra) {
      Mat M(n, n), A(r, n);
      Vec g(n);
      model.mass(q, M);
      model.constraint_matrix(q, A);
      model.potential_gradient(q, g);
      const Mat B = M.llt().solve(A.transpose());
      return Vec((A * B).llt().solve(A * M.llt().solve(g) + extra));
    };
    auto F = newmark(system, 0.0, 0.0, 0.0);
    State s = s0;
    F->advance(s, kH);
    Mat A1(r, n);
    model.constraint_matrix(s.q, A1);
    const Vec lambda = closed_form(s0.q, Vec::Zero(r));
    const Vec lambda_prime = closed_form(s.q, -(2.0 / kH) * A1 * (s.q - s0.q) / kH);
    for (int a = 0; a < r; ++a) {
      const std::string suffix = r == 1 ? "" : "_" + std::to_string(a);
      CAPTURE(a, lambda[a], lambda_prime[a]);
      INFO("|dlambda| = " << sci(std::abs(quantity(*F, "lambda" + suffix) - lambda[a])) << ", |dlambda'| = "
                          << sci(std::abs(quantity(*F, "lambda_prime" + suffix) - lambda_prime[a])));
      CHECK(std::abs(quantity(*F, "lambda" + suffix) - lambda[a]) <= tol * (1.0 + std::abs(lambda[a])));
      CHECK(std::abs(quantity(*F, "lambda_prime" + suffix) - lambda_prime[a]) <= tol * (1.0 + std::abs(lambda_prime[a])));
    }
  };
  SECTION("particle") { check_first_step(*particle(), paper_ic(), 1e-14); }
  SECTION("r = 2 model with ∇V ≠ 0") {
    TwoConstraintModel two;
    check_first_step(two, two_constraint_ic(), 1e-14);
  }
}

TEST_CASE("claim 6: F^{β′,β,1−α}_h ∘ F^{β,β′,α}_{−h} = id", "[plugins][newmark][claim6]") {
  auto sys = particle();
  auto dla = newmark(*sys, 0.0, 0.0, 0.5);
  const State x = advance(*dla, paper_ic(), kH, 3);  // the state after 3 DLA steps
  const std::vector<std::array<double, 3>> cases = {
      {0.0, 0.0, 0.0}, {0.0, 0.0, 0.5}, {0.1, 0.1, 0.5}, {0.1, 0.0, 0.0}, {0.0, 0.1, 1.0}, {0.1, 0.2, 0.3}, {0.3, 0.05, 0.8}};
  for (const char* disc : {"14", "15"})
    for (const auto& [beta, beta_prime, alpha] : cases) {
      CAPTURE(disc, beta, beta_prime, alpha);
      auto F = newmark(*sys, beta, beta_prime, alpha, {{"constraint_discretization", disc}});
      auto F_adjoint = newmark(*sys, beta_prime, beta, 1.0 - alpha, {{"constraint_discretization", disc}});
      State y = x;
      F->advance(y, -kH);
      CHECK(distance(y, x) > 1e-2);  // a real step was taken
      F_adjoint->advance(y, kH);
      INFO("adjoint error = " << sci(distance(y, x)));
      CHECK(distance(y, x) <= 1e-13);
      CHECK(std::abs(y.t - x.t) <= 1e-15);
    }
  SECTION("r = 2 model") {
    TwoConstraintModel two;
    auto F = newmark(two, 0.1, 0.2, 0.3);
    auto F_adjoint = newmark(two, 0.2, 0.1, 0.7);
    const State x2 = two_constraint_ic();
    State y = x2;
    F->advance(y, -kH);
    F_adjoint->advance(y, kH);
    INFO("adjoint error = " << sci(distance(y, x2)));
    CHECK(distance(y, x2) <= 1e-13);
  }
}

TEST_CASE("claim 7: F^{β,β,½} is symmetric, F_{−h} ∘ F_h = id", "[plugins][newmark][claim7]") {
  auto sys = particle();
  for (double beta : {0.0, 0.1, 0.2, 0.4}) {
    CAPTURE(beta);
    auto F = newmark(*sys, beta, beta, 0.5);
    const State x = paper_ic();
    State y = x;
    F->advance(y, kH);
    F->advance(y, -kH);
    INFO("symmetry error = " << sci(distance(y, x)));
    CHECK(distance(y, x) <= 1e-13);
  }
}

TEST_CASE("claim 8: Newmark γ = ½ + β − β′ (spec 000 §6.1)", "[plugins][newmark][claim8]") {
  // Adding (N1) and (N2): v_{k+1} − v_k = h[(1−γ)G₀ + γG₁], G₀ = B(q_k)λ_k, G₁ = B(q_{k+1})λ′_{k+1} (V = 0).
  auto sys = particle();
  const double beta = 0.1, beta_prime = 0.2, h = 0.1;
  auto F = newmark(*sys, beta, beta_prime, 0.5);
  State s = paper_ic();
  const State s0 = s;
  F->advance(s, h);
  const Vec G0 = particle_mu(s0.q) * quantity(*F, "lambda");
  const Vec G1 = particle_mu(s.q) * quantity(*F, "lambda_prime");
  auto gamma_residual = [&](double gamma) {
    return (s.v - s0.v - h * ((1.0 - gamma) * G0 + gamma * G1)).lpNorm<Eigen::Infinity>();
  };
  INFO("residual with gamma = 0.4: " << sci(gamma_residual(0.5 + beta - beta_prime)) << ", with 0.6: "
                                     << sci(gamma_residual(0.5 - beta + beta_prime)));
  CHECK(gamma_residual(0.5 + beta - beta_prime) <= 1e-14);
  CHECK(gamma_residual(0.5 - beta + beta_prime) > 1e-4);  // the paper's printed γ does not fit
}

TEST_CASE("claim 3: orders on the particle against the exact solution", "[plugins][newmark][claim3]") {
  auto sys = particle();
  struct Case {
    double beta, beta_prime, alpha;
    int order;
  };
  for (const Case& c : {Case{0, 0, 0, 1}, Case{0, 0, 1, 1}, Case{0, 0, 0.5, 2}, Case{0.1, 0.1, 0.5, 2}}) {
    CAPTURE(c.beta, c.beta_prime, c.alpha);
    auto F = newmark(*sys, c.beta, c.beta_prime, c.alpha);
    State exact;
    sys->exact_solution(paper_ic(), 1.0, exact);
    std::vector<double> err;
    for (int steps : {10, 20, 40, 80}) err.push_back(distance(advance(*F, paper_ic(), 1.0 / steps, steps), exact));
    INFO("errors at h = 0.1 .. 0.0125: " << sci(err[0]) << " " << sci(err[1]) << " " << sci(err[2]) << " " << sci(err[3]));
    for (std::size_t i = 0; i + 1 < err.size(); ++i) CHECK(std::abs(std::log2(err[i] / err[i + 1]) - c.order) <= 0.15);
    // Repro errors at h = 0.1 (spec 000 §5 claim 3): DLA ≈ 9.2e−4, F^{0.1,0.1,½} ≈ 1.1e−3.
    if (c.alpha == 0.5 && c.beta == 0.0) CHECK(err[0] == Approx(9.2e-4).epsilon(0.02));
    if (c.alpha == 0.5 && c.beta == 0.1) CHECK(err[0] == Approx(1.1e-3).epsilon(0.05));
  }
}

TEST_CASE("negative h integrates backwards in time", "[plugins][newmark]") {
  auto sys = particle();
  auto F = newmark(*sys, 0.1, 0.1, 0.5);
  const State s = advance(*F, paper_ic(), -0.01, 100);
  State exact;
  sys->exact_solution(paper_ic(), -1.0, exact);
  CHECK(s.t == Approx(-1.0).epsilon(1e-14));
  INFO("error at t = -1: " << sci(distance(s, exact)));
  CHECK(distance(s, exact) < 1e-4);  // order 2 at h = 0.01
  CHECK(sys->constraint_residual(s) <= 1e-12);
}

TEST_CASE("analytic and finite-difference Newton Jacobians give the same steps", "[plugins][newmark][jacobian]") {
  for (bool two_constraints : {false, true}) {
    CAPTURE(two_constraints);
    TwoConstraintModel two;
    auto p = particle();
    const System& sys = two_constraints ? static_cast<const System&>(two) : *p;
    const State x = two_constraints ? two_constraint_ic() : paper_ic();
    for (double beta : {0.0, 0.1}) {
      CAPTURE(beta);
      auto analytic = newmark(sys, beta, 0.2, 0.3);
      auto fd = newmark(sys, beta, 0.2, 0.3, {{"finite_difference_jacobian", true}});
      State a = x, b = x;
      double max_diff = 0.0;
      for (int k = 0; k < 10; ++k) {
        analytic->advance(a, kH);
        fd->advance(b, kH);
        max_diff = std::max(max_diff, distance(a, b));
      }
      INFO("analytic vs FD Jacobian steps: " << sci(max_diff));
      CHECK(max_diff <= 1e-10);
      CHECK(quantity(*analytic, "newton_iterations") <= 6);
    }
  }
}

TEST_CASE("NewmarkResidual: analytic Jacobians match central differences", "[plugins][newmark][jacobian]") {
  TwoConstraintModel two;
  auto p = particle();
  for (bool two_constraints : {false, true}) {
    const System& sys = two_constraints ? static_cast<const System&>(two) : *p;
    const State x = two_constraints ? two_constraint_ic() : paper_ic();
    const auto& model = dynamic_cast<const ConstrainedLagrangian&>(sys);
    NonholonomicVectorField field;
    field.bind(model);
    Vec qd(model.dof()), vd(model.dof());
    field.evaluate(0.0, x.q, x.v, qd, vd);

    NewmarkResidual eq;
    eq.bind(model);
    const int m = eq.size(), r = eq.r();
    for (double h : {0.2, -0.15})
      for (double alpha : {0.0, 0.3, 1.0})
        for (ConstraintDiscretization disc : {ConstraintDiscretization::Eq14, ConstraintDiscretization::Eq15}) {
          CAPTURE(two_constraints, h, alpha, int(disc));
          eq.set_parameters({0.15, 0.3, alpha, disc});
          eq.begin_step(x.q, x.v, h);
          Vec lambda0(r);
          eq.continuous_multiplier(lambda0);
          CHECK((lambda0 - field.multiplier()).lpNorm<Eigen::Infinity>() <= 1e-14);
          // A point away from the solution, with λ′ ≠ 0 so that K(Q, λ′) matters.
          Vec u(m);
          eq.initial_guess(field.multiplier(), u);
          for (int j = 0; j < m; ++j) u[j] += 0.05 * std::sin(1.0 + j);

          // Full reduced system (β ≠ 0).
          Mat J(m, m), J_fd(m, m);
          eq.jacobian(u, J);
          Vec up(m), um(m), Rp(m), Rm(m);
          for (int j = 0; j < m; ++j) {
            const double e = 1e-6 * (1.0 + std::abs(u[j]));
            up = u;
            um = u;
            up[j] += e;
            um[j] -= e;
            eq.residual(up, Rp);
            eq.residual(um, Rm);
            J_fd.col(j) = (Rp - Rm) / (2.0 * e);
          }
          const double err_full = (J - J_fd).lpNorm<Eigen::Infinity>() / (1.0 + J.lpNorm<Eigen::Infinity>());
          INFO("relative |J - J_fd| = " << sci(err_full));
          CHECK(err_full <= 1e-8);

          // β = 0 system on λ alone.
          Vec lambda = u.segment(eq.n(), r);
          Mat Jl(r, r), Jl_fd(r, r);
          eq.explicit_jacobian(lambda, Jl);
          Vec lp(r), lm(r), Rlp(r), Rlm(r);
          for (int j = 0; j < r; ++j) {
            const double e = 1e-6 * (1.0 + std::abs(lambda[j]));
            lp = lambda;
            lm = lambda;
            lp[j] += e;
            lm[j] -= e;
            eq.explicit_residual(lp, Rlp);
            eq.explicit_residual(lm, Rlm);
            Jl_fd.col(j) = (Rlp - Rlm) / (2.0 * e);
          }
          const double err_explicit = (Jl - Jl_fd).lpNorm<Eigen::Infinity>() / (1.0 + Jl.lpNorm<Eigen::Infinity>());
          INFO("relative |J_lambda - J_lambda_fd| = " << sci(err_explicit));
          CHECK(err_explicit <= 1e-8);
        }
  }
}

TEST_CASE("claim 15: β = β′ = ¼ warns and is inconsistent (ẋ(1) = 1 on the particle)", "[plugins][newmark][claim15]") {
  auto sys = particle();
  std::ostringstream captured;
  std::streambuf* old = std::cerr.rdbuf(captured.rdbuf());
  std::unique_ptr<Integrator> F;
  try {
    F = newmark(*sys, 0.25, 0.25, 0.5);
  } catch (...) {
    std::cerr.rdbuf(old);
    throw;
  }
  std::cerr.rdbuf(old);
  CHECK_THAT(captured.str(), Catch::Contains("beta + beta_prime") && Catch::Contains("inconsistent") &&
                                 Catch::Contains("0.25"));
  for (int steps : {5, 10}) {
    const State s = advance(*F, paper_ic(), 1.0 / steps, steps);
    CAPTURE(steps);
    INFO("xdot(1) - 1 = " << sci(s.v[0] - 1.0));
    CHECK(std::abs(s.v[0] - 1.0) <= 1e-12);                // wrong dynamics: ẋ stays 1
    CHECK(std::abs(s.v[0] - std::sqrt(2.0)) > 0.4);         // the true ẋ(1) = √2
  }
  // No warning away from β + β′ = ½.
  std::ostringstream quiet;
  old = std::cerr.rdbuf(quiet.rdbuf());
  newmark(*sys, 0.1, 0.1, 0.5);
  std::cerr.rdbuf(old);
  CHECK(quiet.str().empty());
}

TEST_CASE("a failed step throws StepFailure and leaves the state unchanged", "[plugins][newmark]") {
  // The chaotic particle's F^{0.1,0.1,½} system is nonlinear (a(Q) in (N1)): one Newton iteration
  // cannot solve it (on the nonholonomic particle every Newmark system is affine: one suffices).
  auto sys = test::registry().make_system("chaotic_nonholonomic_particle", nullptr, "test");
  auto F = newmark(*sys, 0.1, 0.1, 0.5, {{"newton_max_iterations", 1}});
  State s = advance(*newmark(*sys, 0.0, 0.0, 0.5),
                    test::make_state({1, 0, 1, -1, -1}, {0.05, 0.5, -0.5, -0.1, -0.05}), kH, 2);
  const State before = s;
  CHECK_THROWS_AS(F->advance(s, kH), StepFailure);
  CHECK(s.t == before.t);
  REQUIRE(s.q.size() == before.q.size());
  REQUIRE(s.v.size() == before.v.size());
  CHECK(std::memcmp(s.q.data(), before.q.data(), sizeof(double) * before.q.size()) == 0);
  CHECK(std::memcmp(s.v.data(), before.v.data(), sizeof(double) * before.v.size()) == 0);
  CHECK_THROWS_AS(F->advance(s, 0.0), StepFailure);  // h = 0
  CHECK(std::memcmp(s.q.data(), before.q.data(), sizeof(double) * before.q.size()) == 0);
}
