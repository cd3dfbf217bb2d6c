#pragma once
// A small Newton solver on Rⁿ with a partial-pivoting LU (SmallLU up to 16 unknowns, Eigen's
// PartialPivLU above): analytic Jacobian or a
// finite-difference fallback. Buffers are sized by resize() (nothing to size when fixed-size);
// solve() does not allocate.
// Stopping rule (spec 000 §3.2 item 5): ‖δ‖∞ ≤ tol·(1 + ‖u‖∞).
#include <Eigen/Core>
#include <Eigen/LU>
#include <cmath>
#include <cstdio>
#include <dalembert/core/errors.hpp>
#include <string>
#include <utility>

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
  double step_norm = 0.0;      // last ‖δ‖∞ (the final simplified step when converged)
  double residual_norm = 0.0;  // ‖R(u)‖∞ before that last step (an upper bound, to first order)
  bool stagnated = false;      // stopped at the round-off floor rather than below tolerance
};

/// LU factorisation with partial pivoting, unblocked, for the small Jacobians of the schemes
/// (n ≤ kMax). Eigen's PartialPivLU is blocked and dispatches at run time: at n = 7 (Newmark with
/// β ≠ 0 on five coordinates) it takes ~300 ns per factorisation, several times this loop. A zero
/// pivot leaves an infinite or NaN solution, which Newton reports as a singular Jacobian.
template <class MatT>
class SmallLU {
 public:
  static constexpr int kMax = 16;
  void resize(int n) { lu_.resize(n, n); }  // so that compute() does not allocate
  void compute(const MatT& J) {
    lu_ = J;
    const int n = static_cast<int>(lu_.rows());
    for (int k = 0; k < n; ++k) {
      int p = k;
      for (int i = k + 1; i < n; ++i)
        if (std::abs(lu_(i, k)) > std::abs(lu_(p, k))) p = i;
      perm_[k] = p;
      if (p != k)
        for (int j = 0; j < n; ++j) std::swap(lu_(k, j), lu_(p, j));
      const double pivot = lu_(k, k);
      for (int i = k + 1; i < n; ++i) {
        const double l = lu_(i, k) / pivot;
        lu_(i, k) = l;
        for (int j = k + 1; j < n; ++j) lu_(i, j) -= l * lu_(k, j);
      }
    }
  }
  /// x = J⁻¹b.
  template <class B, class X>
  void solve(const B& b, X& x) const {
    const int n = static_cast<int>(lu_.rows());
    for (int i = 0; i < n; ++i) x[i] = b[i];
    for (int k = 0; k < n; ++k)
      if (perm_[k] != k) std::swap(x[k], x[perm_[k]]);
    for (int i = 1; i < n; ++i)
      for (int j = 0; j < i; ++j) x[i] -= lu_(i, j) * x[j];
    for (int i = n - 1; i >= 0; --i) {
      for (int j = i + 1; j < n; ++j) x[i] -= lu_(i, j) * x[j];
      x[i] /= lu_(i, i);
    }
  }

 private:
  MatT lu_;
  int perm_[kMax] = {};
};

/// Newton on the unknown type Vec with Jacobian type Mat (dynamic, or fixed-size when a scheme is
/// compiled with its model, see core/model_access.hpp).
///
/// Convergence test (spec 000 §3.2 item 5, ‖δ‖∞ ≤ tol·(1 + ‖u‖∞)) without an extra Jacobian: after
/// the update u ← u − δ, the residual R(u) is evaluated (it is needed anyway) and the next step is
/// estimated with the Jacobian already factorised, δ′ = J⁻¹R(u) (simplified Newton). If δ′ is
/// below tolerance (or at the round-off floor) it is applied and the solve ends; otherwise the next
/// iteration reuses R(u) with a fresh Jacobian. To first order δ′ is the next Newton step, so the
/// test is the spec's; an affine residual (e.g. the β = 0 Newmark equations of most seed-000
/// systems) then costs one Jacobian and two residuals instead of two and three.
template <class VecT, class MatT>
class NewtonSolverT {
 public:
  void resize(int n) {
    r_.resize(n); r2_.resize(n); du_.resize(n);
    J_.resize(n, n);
    if constexpr (MatT::RowsAtCompileTime == Eigen::Dynamic) {
      if (n > SmallLU<MatT>::kMax)
        lu_ = Eigen::PartialPivLU<MatT>(n);
      else
        small_lu_.resize(n);
    }
  }
  int size() const { return static_cast<int>(r_.size()); }

  /// Forward-difference Jacobian of `residual` at u into J (u is restored; r_ holds R(u)).
  template <class Residual>
  void finite_difference_jacobian(Residual&& residual, VecT& u, MatT& J, double rel_step = 1e-7) {
    for (int j = 0; j < u.size(); ++j) {
      const double uj = u[j];
      const double d = rel_step * (1.0 + std::abs(uj));
      u[j] = uj + d;
      residual(u, r2_);
      u[j] = uj;
      J.col(j) = (r2_ - r_) / d;
    }
  }

  /// Simplified Newton across solves (issue 28 item 6), for residuals whose Jacobian is costly and
  /// changes little from one solve to the next (the discrete Legendre transform of an M(q) system
  /// at a small step: J ≈ M/h): the factorised Jacobian is kept after a solve and reused by the
  /// next ones, and recomputed (at the current iterate) only when the iteration contracts slowly —
  /// a step that did not shrink the next one by kReuseContraction — or when invalidate_jacobian()
  /// says the residual changed (a new step size, a restart). The convergence test is unchanged
  /// (‖δ′‖ ≤ tol(1 + ‖u‖), δ′ the next step), so the root is the same to that tolerance; only the
  /// round-off floor test needs a fresh Jacobian (a stale one also gives steps that stop shrinking).
  /// Chord method: Kelley, Solving Nonlinear Equations with Newton's Method (SIAM 2003), §2.3
  /// (q-linear convergence with rate O(‖J_old − J(u*)‖)). Off by default.
  void reuse_jacobian(bool on) {
    reuse_ = on;
    factored_ = false;
  }
  void invalidate_jacobian() { factored_ = false; }
  /// A Jacobian kept from an earlier solve is recomputed when ‖δ′‖ > kReuseContraction ‖δ‖, unless
  /// ‖δ′‖ ≤ kReuseFloor (1 + ‖u‖): round-off, where step ratios are noise (steps of 1e-15 to 1e-14 on
  /// the Whipple bicycle at h = 1e-3, the unknowns added to coordinates of up to 10²), far below the
  /// NewtonOptions::stagnation_floor a Jacobian of this solve may stop at.
  static constexpr double kReuseContraction = 0.1, kReuseFloor = 1e-13;

  /// Solves R(u) = 0 from the initial guess in u. `residual(u, R)`, `jacobian(u, J)`.
  /// Throws StepFailure naming the residual and iterations if it does not converge.
  template <class Residual, class Jacobian>
  NewtonReport solve(Residual&& residual, Jacobian&& jacobian, VecT& u, const NewtonOptions& opt) {
    NewtonReport rep;
    residual(u, r_);
    bool refreshed = false;  // a Jacobian taken in this solve (not one kept from an earlier one)
    for (int it = 1; it <= opt.max_iterations; ++it) {
      if (opt.residual_tolerance > 0.0 && r_.template lpNorm<Eigen::Infinity>() <= opt.residual_tolerance) {
        rep.residual_norm = r_.template lpNorm<Eigen::Infinity>();
        return rep;
      }
      // Without reuse (the default) every iteration takes a fresh Jacobian.
      const bool fresh = !reuse_ || !factored_;
      if (fresh) {
        if (opt.finite_difference_jacobian)
          finite_difference_jacobian(residual, u, J_, opt.fd_step);
        else
          jacobian(u, J_);
        factor_and_solve(r_);
        factored_ = true;
        refreshed = true;
      } else {
        solve_factored(r_);
      }
      if (!du_.allFinite()) {
        if (!fresh) {  // a stale factorisation: take a fresh one at the same u
          factored_ = false;
          continue;
        }
        factored_ = false;
        throw StepFailure("Newton: singular or non-finite Jacobian at iteration " + std::to_string(it),
                          r_.template lpNorm<Eigen::Infinity>(), it);
      }
      u -= du_;
      rep.iterations = it;
      // The next step, estimated with this Jacobian: δ′ = J⁻¹R(u).
      residual(u, r_);
      rep.residual_norm = r_.template lpNorm<Eigen::Infinity>();
      const double step = du_.template lpNorm<Eigen::Infinity>();
      solve_factored(r_);
      const double next = du_.template lpNorm<Eigen::Infinity>();
      if (!du_.allFinite()) {
        factored_ = false;
        continue;
      }
      const double scale = 1.0 + u.template lpNorm<Eigen::Infinity>();
      // Converged: the next step is below tolerance; or the iteration has reached its round-off
      // floor (small steps that no longer shrink — e.g. unknowns scaled by 1/h² at small h).
      const bool small = next <= opt.tolerance * scale;
      bool stagnated = next <= opt.stagnation_floor * scale && next >= 0.5 * step;
      if (reuse_ && !small && next > kReuseContraction * step) {
        if (!refreshed) {
          // Slow contraction with a Jacobian kept from an earlier solve: it is refreshed at the next
          // iteration, unless the steps are at the round-off floor of a well-converged iterate
          // (below kReuseFloor·(1 + ‖u‖), where step ratios are noise).
          stagnated = next <= kReuseFloor * scale;
          if (!stagnated) factored_ = false;
        } else if (!stagnated) {
          factored_ = false;  // as without reuse: a new Jacobian at the next iteration
        }
      }
      if (small || stagnated) {
        u -= du_;
        rep.step_norm = next;
        rep.stagnated = !small;
        return rep;
      }
      rep.step_norm = step;
    }
    factored_ = false;
    throw StepFailure("Newton did not converge in " + std::to_string(opt.max_iterations) +
                          " iterations (last step " + to_short(rep.step_norm) + ")",
                      rep.residual_norm, opt.max_iterations);
  }

  const MatT& last_jacobian() const { return J_; }

 private:
  /// Factorises J_ and sets du_ = J⁻¹b (one unknown: a division, no LU).
  void factor_and_solve(const VecT& b) {
    if (J_.rows() > SmallLU<MatT>::kMax)
      lu_.compute(J_);
    else if (J_.rows() > 1)
      small_lu_.compute(J_);
    solve_factored(b);
  }
  void solve_factored(const VecT& b) {
    if (J_.rows() == 1)
      du_[0] = b[0] / J_(0, 0);
    else if (J_.rows() <= SmallLU<MatT>::kMax)
      small_lu_.solve(b, du_);
    else
      du_.noalias() = lu_.solve(b);
  }
  static std::string to_short(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3e", x);
    return buf;
  }
  VecT r_, r2_, du_;
  MatT J_;
  SmallLU<MatT> small_lu_;
  Eigen::PartialPivLU<MatT> lu_;  // above SmallLU::kMax unknowns
  bool reuse_ = false;     // reuse_jacobian()
  bool factored_ = false;  // J_ and its factorisation hold a Jacobian of this residual
};

using NewtonSolver = NewtonSolverT<Eigen::VectorXd, Eigen::MatrixXd>;

}  // namespace dalembert
