#pragma once
// One step of the nonholonomic Newmark method F_h^{β,β′,α} (seed 000 Def. 3.1 + Sec. 3.4; spec 000
// §3.2 items 1–6): choose the reduced system (β ≠ 0: Newton on (Q, λ, λ′); β = 0: Newton on λ, then
// a linear solve for λ′), solve it, and commit the new state. Written once over an Access type
// (core/model_access.hpp): the integrator plugin runs NewmarkStep<DynamicAccess> on any system,
// a FixedLagrangianSystem runs NewmarkStep<FixedAccess<Model>> compiled with its model.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>
#include <dalembert/core/state.hpp>
#include <dalembert/schemes/newmark_residual.hpp>
#include <dalembert/schemes/newton.hpp>

namespace dalembert {

/// The discrete quantities one Newmark step publishes, in this order: |Φ(q_k, q_{k+1})|∞, λ, λ′
/// (one per constraint) and the Newton iterations.
inline std::vector<std::string> newmark_quantity_names(int r) {
  std::vector<std::string> names = {"discrete_constraint_residual"};
  for (const char* base : {"lambda", "lambda_prime"})
    for (int a = 0; a < r; ++a) {
      names.emplace_back(base);
      if (r > 1) names.back().append("_").append(std::to_string(a));
    }
  names.push_back("newton_iterations");
  return names;
}

template <class Access>
class NewmarkStep {
 public:
  using VecN = typename Access::VecN;
  using VecR = typename Access::VecR;
  using VecU = typename Access::VecU;
  using MatR = typename Access::MatR;
  using MatU = typename Access::MatU;

  /// Sizes every buffer (after this, step() does not allocate).
  template <class Model>
  void bind(const Model& model, const NewmarkParameters& p, const NewtonOptions& newton) {
    p_ = p;
    options_ = newton;
    equations_.bind(model);
    equations_.set_parameters(p);
    n_ = equations_.n();
    r_ = equations_.r();
    if (fast_path())
      newton_lambda_.resize(r_);
    else
      newton_u_.resize(n_ + 2 * r_);
    u_.resize(n_ + 2 * r_);
    lambda_.resize(r_);
    v_next_.resize(n_);
    phi_.resize(r_);
    values_.assign(2 + 2 * r_, 0.0);
  }

  /// Advances s by h; StepFailure leaves s unchanged.
  void step(State& s, double h) {
    equations_.begin_step(s.q, s.v, h);
    auto Q = equations_.Q_of(u_);
    auto lambda = equations_.lambda_of(u_);
    auto lambda_prime = equations_.lambda_prime_of(u_);
    NewtonReport report;
    if (fast_path()) {
      // β = 0: Φ(q_k, Q(λ)) = 0 on r unknowns, Q(λ) explicit by (N1); then λ′ linear by (N2)+(N4).
      // First one linear solve, the root of Φ where the constraint forces do not move what A depends
      // on (NewmarkEquations::affine_multiplier); elsewhere Newton solves the step as if the linear
      // solve had not been tried.
      if (linear_first() && equations_.affine_multiplier(lambda, Q, phi_)) {
        report.iterations = 1;
      } else {
        equations_.continuous_multiplier(lambda_);  // initial guess (spec 000 §3.2 item 4)
        report = newton_lambda_.solve([this](const VecR& l, VecR& R) { equations_.explicit_residual(l, R); },
                                      [this](const VecR& l, MatR& J) { equations_.explicit_jacobian(l, J); },
                                      lambda_, newton_options(s.q, h));
        lambda = lambda_;
        equations_.explicit_position(lambda, Q);
        equations_.discrete_constraint(Q, phi_);
      }
      equations_.solve_lambda_prime(Q, lambda, lambda_prime);
    } else {
      // β ≠ 0: reduced Newton system R(Q, λ, λ′) = 0 (spec 000 §3.2 items 1–5).
      equations_.continuous_multiplier(lambda_);  // initial guess (spec 000 §3.2 item 4)
      equations_.initial_guess(lambda_, u_);
      report = newton_u_.solve([this](const VecU& u, VecU& R) { equations_.residual(u, R); },
                               [this](const VecU& u, MatU& J) { equations_.jacobian(u, J); }, u_,
                               newton_options(s.q, h));
      equations_.discrete_constraint(Q, phi_);
    }
    // Φ(q_k, Q) is phi_ now (published below). v_{k+1} = V(Q, λ, λ′) from (N2) (spec 000 §3.2
    // item 6); on the β = 0 path solve_lambda_prime has just evaluated a, A, B and G₀ at this Q.
    equations_.velocity(u_, v_next_, fast_path());
    if (!u_.allFinite() || !v_next_.allFinite())
      throw StepFailure("nonholonomic Newmark: non-finite q_{k+1}, v_{k+1} or multipliers",
                        phi_.template lpNorm<Eigen::Infinity>(), report.iterations);

    // Commit.
    s.q = Q;
    s.v = v_next_;
    s.t += h;
    values_[0] = phi_.template lpNorm<Eigen::Infinity>();
    for (int a = 0; a < r_; ++a) {
      values_[1 + a] = lambda[a];
      values_[1 + r_ + a] = lambda_prime[a];
    }
    values_.back() = report.iterations;
  }

  /// The quantities of the last step, as named by newmark_quantity_names(r).
  const std::vector<double>& quantities() const { return values_; }
  int r() const { return r_; }

 private:
  bool fast_path() const { return p_.beta == 0.0; }
  /// β = 0 tries one linear solve first, unless the Jacobian is to be a finite difference (a check
  /// of Newton itself) or r is beyond SmallLU.
  bool linear_first() const { return !options_.finite_difference_jacobian && r_ <= SmallLU<MatR>::kMax; }

  NewtonOptions newton_options(const Vec& q, double h) const {
    // The multipliers enter Q only through h²/2·Bλ, so their round-off floor is ~ε|q|/h²: on the
    // very short fractional steps of impact location (h ~ 1e−6) Newton stagnates there, with Q
    // already exact to round-off. Let the stagnation test know that floor (no effect for h ≳ 1e−3).
    NewtonOptions options = options_;
    const double eps = std::numeric_limits<double>::epsilon();
    options.stagnation_floor =
        std::max(options.stagnation_floor, 64.0 * eps * (1.0 + q.template lpNorm<Eigen::Infinity>()) / (h * h));
    return options;
  }

  NewmarkParameters p_;
  NewtonOptions options_;
  NewmarkEquations<Access> equations_;
  NewtonSolverT<VecR, MatR> newton_lambda_;
  NewtonSolverT<VecU, MatU> newton_u_;
  int n_ = 0, r_ = 0;
  VecU u_;
  VecR lambda_, phi_;
  VecN v_next_;
  std::vector<double> values_;
};

}  // namespace dalembert
