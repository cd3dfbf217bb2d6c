#pragma once
// A small Newton solver on Rⁿ with Eigen's partial-pivoting LU: analytic Jacobian or a
// finite-difference fallback. Buffers are sized by resize(); solve() does not allocate.
// Stopping rule (spec 000 §3.2 item 5): ‖δ‖∞ ≤ tol·(1 + ‖u‖∞).
#include <Eigen/Core>
#include <Eigen/LU>
#include <cmath>
#include <cstdio>
#include <dalembert/core/errors.hpp>
#include <string>

namespace dalembert {

struct NewtonOptions {
  double tolerance = 1e-13;
  int max_iterations = 25;
  bool finite_difference_jacobian = false;  // ignore the analytic Jacobian
  double fd_step = 1e-7;                      // relative step of the forward difference
  double stagnation_floor = 1e-9;             // steps below this·(1+‖u‖) that stop shrinking end the solve
  double residual_tolerance = 0.0;            // ‖R(u)‖∞ at or below this is a solution (0: off). For
                                              // near-singular systems whose iterates wander at R ≈ 0.
};

struct NewtonReport {
  int iterations = 0;
  double step_norm = 0.0;      // last ‖δ‖∞
  double residual_norm = 0.0;  // ‖R(u)‖∞ at the returned u
  bool stagnated = false;      // stopped at the round-off floor rather than below tolerance
};

class NewtonSolver {
 public:
  void resize(int n) {
    r_.resize(n); r2_.resize(n); du_.resize(n); u_save_.resize(n);
    J_.resize(n, n); lu_ = Eigen::PartialPivLU<Eigen::MatrixXd>(n);
  }
  int size() const { return static_cast<int>(r_.size()); }

  /// Forward-difference Jacobian of `residual` at u into J (u is restored).
  template <class Residual>
  void finite_difference_jacobian(Residual&& residual, Eigen::VectorXd& u, Eigen::MatrixXd& J,
                                  double rel_step = 1e-7) {
    residual(u, r_);
    for (int j = 0; j < u.size(); ++j) {
      const double uj = u[j];
      const double d = rel_step * (1.0 + std::abs(uj));
      u[j] = uj + d;
      residual(u, r2_);
      u[j] = uj;
      J.col(j) = (r2_ - r_) / d;
    }
  }

  /// Solves R(u) = 0 from the initial guess in u. `residual(u, R)`, `jacobian(u, J)`.
  /// Throws StepFailure naming the residual and iterations if it does not converge.
  template <class Residual, class Jacobian>
  NewtonReport solve(Residual&& residual, Jacobian&& jacobian, Eigen::VectorXd& u,
                     const NewtonOptions& opt) {
    NewtonReport rep;
    double previous_step = 0.0;
    for (int it = 1; it <= opt.max_iterations; ++it) {
      residual(u, r_);
      if (opt.residual_tolerance > 0.0 && r_.lpNorm<Eigen::Infinity>() <= opt.residual_tolerance) {
        rep.residual_norm = r_.lpNorm<Eigen::Infinity>();
        return rep;
      }
      if (opt.finite_difference_jacobian) {
        finite_difference_jacobian(residual, u, J_, opt.fd_step);
      } else {
        jacobian(u, J_);
      }
      if (J_.rows() == 1) {  // one unknown (e.g. one constraint): no LU
        du_[0] = r_[0] / J_(0, 0);
      } else {
        lu_.compute(J_);
        du_.noalias() = lu_.solve(r_);
      }
      if (!du_.allFinite()) {
        throw StepFailure("Newton: singular or non-finite Jacobian at iteration " + std::to_string(it),
                          r_.lpNorm<Eigen::Infinity>(), it);
      }
      u -= du_;
      rep.iterations = it;
      rep.step_norm = du_.lpNorm<Eigen::Infinity>();
      const double scale = 1.0 + u.lpNorm<Eigen::Infinity>();
      // Converged: the step is below tolerance; or the iteration has reached its round-off
      // floor (small steps that no longer shrink — e.g. unknowns scaled by 1/h² at small h).
      const bool small = rep.step_norm <= opt.tolerance * scale;
      const bool stagnated = it > 1 && rep.step_norm <= opt.stagnation_floor * scale &&
                             rep.step_norm >= 0.5 * previous_step;
      previous_step = rep.step_norm;
      if (small || stagnated) {
        residual(u, r_);
        rep.residual_norm = r_.lpNorm<Eigen::Infinity>();
        rep.stagnated = !small;
        return rep;
      }
    }
    residual(u, r_);
    rep.residual_norm = r_.lpNorm<Eigen::Infinity>();
    throw StepFailure("Newton did not converge in " + std::to_string(opt.max_iterations) +
                          " iterations (last step " + to_short(rep.step_norm) + ")",
                      rep.residual_norm, opt.max_iterations);
  }

  const Eigen::MatrixXd& last_jacobian() const { return J_; }

 private:
  static std::string to_short(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3e", x);
    return buf;
  }
  Eigen::VectorXd r_, r2_, du_, u_save_;
  Eigen::MatrixXd J_;
  Eigen::PartialPivLU<Eigen::MatrixXd> lu_;
};

}  // namespace dalembert
