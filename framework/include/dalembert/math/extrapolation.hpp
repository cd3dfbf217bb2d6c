#pragma once
// Gragg–Bulirsch–Stoer extrapolation of the modified midpoint rule on a first-order system
// y' = f(t, y) (Hairer–Nørsett–Wanner I, §II.9): the explicit high-accuracy inner integrator of the
// exact discrete flow (spec 002 §3.4 asks for DOP853 at rtol = atol = 1e-12 "or better").
// Fixed step H, step-number sequence n_j = 2(j+1), j < K, Aitken–Neville extrapolation in H²:
// order 2K. Round-off grows with K (measured on the nonholonomic particle over t = 2: K = 4,
// H = 0.1: 3e-15; K = 8: 1e-12), so callers use K = 4 (order 8). The second step() also returns the
// local error estimate of HNW §II.9 for a step size control (ForcedFlow in exact_discrete.hpp).
// Buffers are sized by resize(); step() does not allocate.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <vector>

namespace dalembert {

class ExtrapolatedMidpoint {
 public:
  explicit ExtrapolatedMidpoint(int levels = 4) : K_(levels) {}
  int levels() const { return K_; }
  int order() const { return 2 * K_; }
  /// Function evaluations per step.
  int evaluations() const { return K_ * (K_ + 1) + K_; }

  void resize(int dim) {
    zp_.resize(dim);
    zc_.resize(dim);
    zn_.resize(dim);
    f_.resize(dim);
    T_.assign(K_, Eigen::VectorXd::Zero(dim));
    R_.assign(K_, Eigen::VectorXd::Zero(dim));
  }

  /// f(t, y, dy). Advances y by H (signed).
  template <class F>
  void step(F&& f, double t, Eigen::VectorXd& y, double H) {
    extrapolate(f, t, y, H);
    y = T_[K_ - 1];
  }

  /// The same step with its local error estimate (HNW I §II.9, step size control): the difference
  /// of the two highest extrapolants T_{K,K} − T_{K,K−1}, the error of the order-(2K−2) value and so
  /// an upper estimate of the error of the order-2K value y receives. Measured in the max norm over
  /// the first `controlled` components, each relative to tol (1 + max(|y_i|, |y_i(t + H)|)); returns
  /// that scaled error (≤ 1: within tol; NaN for non-finite values).
  template <class F>
  double step(F&& f, double t, Eigen::VectorXd& y, double H, double tol, Eigen::Index controlled) {
    extrapolate(f, t, y, H);
    const Eigen::VectorXd& hi = T_[K_ - 1];
    const Eigen::VectorXd& lo = T_[K_ - 2];
    double err = 0.0;
    for (Eigen::Index i = 0; i < controlled; ++i) {
      const double scale = tol * (1.0 + std::max(std::abs(y[i]), std::abs(hi[i])));
      const double e = std::abs(hi[i] - lo[i]) / scale;
      if (!(e <= err)) err = e;  // a NaN (non-finite values) propagates
    }
    y = hi;
    return err;
  }

 private:
  // Fills T_[k] = T_{K,k+1} (k < K), the last row of the extrapolation tableau from y over H.
  template <class F>
  void extrapolate(F&& f, double t, const Eigen::VectorXd& y, double H) {
    for (int j = 0; j < K_; ++j) {
      const int n = 2 * (j + 1);
      const double d = H / n;
      // Gragg's modified midpoint rule with the final smoothing step.
      zp_ = y;
      f(t, zp_, f_);
      zc_ = zp_ + d * f_;
      for (int m = 1; m < n; ++m) {
        f(t + m * d, zc_, f_);
        zn_ = zp_ + (2.0 * d) * f_;
        zp_.swap(zc_);
        zc_.swap(zn_);
      }
      f(t + H, zc_, f_);
      R_[0] = 0.5 * (zc_ + zp_ + d * f_);
      // Aitken–Neville: T_{j,k} = T_{j,k−1} + (T_{j,k−1} − T_{j−1,k−1}) / ((n_j/n_{j−k})² − 1).
      for (int k = 1; k <= j; ++k) {
        const double ratio = static_cast<double>(n) / (2.0 * (j - k + 1));
        R_[k] = R_[k - 1] + (R_[k - 1] - T_[k - 1]) / (ratio * ratio - 1.0);
      }
      T_.swap(R_);
    }
  }

  int K_;
  Eigen::VectorXd zp_, zc_, zn_, f_;
  std::vector<Eigen::VectorXd> T_, R_;
};

}  // namespace dalembert
