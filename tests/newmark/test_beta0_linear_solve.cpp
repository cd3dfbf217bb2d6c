// The β = 0 Newmark step's linear solve (issue 32 item 2: NewmarkEquations::affine_multiplier). It
// holds the discretised constraint matrix Ā at its value at λ = 0, solves for λ once, and keeps the
// result only if Ā is bit for bit the same at the new point, else Newton solves the step. Checked
// against Newton itself (`finite_difference_jacobian: true` skips the linear solve): on the seed-000
// systems the linear solve is taken (one iteration) and gives Newton's steps to round-off; on the
// sleigh, whose constraint force turns θ, on which A depends, Newton is taken and the steps agree too.
#include <catch2/catch.hpp>
#include <cmath>

#include "support.hpp"

using namespace dalembert;
using nlohmann::json;

namespace {

struct Run {
  State s;
  double max_iterations = 0.0, min_iterations = 1e300;
};

Run run(const std::string& system, json sys_params, const State& s0, double h, int steps, bool newton_only, double alpha) {
  auto sys = test::registry().make_system(system, sys_params, "test");
  json p = {{"beta", 0.0}, {"beta_prime", 0.0}, {"alpha", alpha}, {"finite_difference_jacobian", newton_only}};
  auto in = test::registry().make_integrator("nonholonomic_newmark", p, "test");
  in->bind(*sys);
  Run r{s0};
  in->begin(r.s, h);
  std::vector<std::string> names;
  in->quantity_names(names);
  std::vector<double> q(names.size());
  const auto it = std::find(names.begin(), names.end(), "newton_iterations") - names.begin();
  for (int k = 0; k < steps; ++k) {
    in->advance(r.s, h);
    in->discrete_quantities(q.data());
    r.max_iterations = std::max(r.max_iterations, q[it]);
    r.min_iterations = std::min(r.min_iterations, q[it]);
  }
  return r;
}

double difference(const State& a, const State& b) {
  return std::max((a.q - b.q).lpNorm<Eigen::Infinity>(), (a.v - b.v).lpNorm<Eigen::Infinity>()) /
         (1.0 + b.q.lpNorm<Eigen::Infinity>() + b.v.lpNorm<Eigen::Infinity>());
}

}  // namespace

TEST_CASE("beta = 0: the linear solve gives Newton's steps on the seed-000 systems, in one iteration",
          "[newmark][beta0]") {
  struct Case {
    const char* system;
    json params;
    State s0;
    double h;
  };
  const std::vector<Case> cases = {
      {"chaotic_nonholonomic_particle", nullptr, test::make_state({1, 0, 1, -1, -1}, {0.05, 0.5, -0.5, -0.1, -0.05}), 0.2},
      {"nonholonomic_particle", nullptr, test::make_state({1, 0, 0}, {0, 1, 0}), 0.1},
      {"pendulum_driven_cvt", json{{"epsilon", 0.1}}, test::make_state({1, 1, 0}, {0, 0, 2.8284271247461903}), 0.1}};
  for (const auto& c : cases)
    for (double alpha : {0.0, 0.5, 1.0}) {
      // 50 steps: the chaotic particle's round-off grows by e^{λt}; over t = 10 it stays near ε.
      const Run linear = run(c.system, c.params, c.s0, c.h, 50, false, alpha);
      const Run newton = run(c.system, c.params, c.s0, c.h, 50, true, alpha);
      INFO(c.system << " alpha " << alpha << ": relative difference " << difference(linear.s, newton.s)
                    << ", iterations " << linear.min_iterations << ".." << linear.max_iterations);
      CHECK(linear.max_iterations == 1.0);  // the linear solve, every step
      CHECK(newton.min_iterations >= 1.0);
      CHECK(difference(linear.s, newton.s) < 1e-12);
    }
}

TEST_CASE("beta = 0: where the constraint force moves what A depends on, Newton solves the step", "[newmark][beta0]") {
  // The sleigh: A = [a, sin θ, −cos θ], and M⁻¹Aᵀλ turns θ, so Ā changes with λ (α > 0).
  const State s0 = test::make_state({0, 0, 0}, {1.0, 0.0, 0.3});
  const Run linear = run("chaplygin_sleigh", nullptr, s0, 0.05, 100, false, 0.5);
  const Run newton = run("chaplygin_sleigh", nullptr, s0, 0.05, 100, true, 0.5);
  INFO("relative difference " << difference(linear.s, newton.s) << ", iterations " << linear.min_iterations << ".."
                              << linear.max_iterations);
  CHECK(linear.max_iterations >= 2.0);  // the linear solve was refused (Ā moved), Newton took those steps
  CHECK(difference(linear.s, newton.s) < 1e-12);
}
