#pragma once
// Gragg–Bulirsch–Stoer extrapolation of the modified midpoint rule on a first-order system
// y' = f(t, y) (Hairer–Nørsett–Wanner I, §II.9): the explicit high-accuracy inner integrator of the
// exact discrete flow (spec 002 §3.4 asks for DOP853 at rtol = atol = 1e-12 "or better").
// Fixed step H, step-number sequence n_j = 2(j+1), j < K, Aitken–Neville extrapolation in H²:
// order 2K. Round-off grows with K (measured on the nonholonomic particle over t = 2: K = 4,
// H = 0.1: 3e-15; K = 8: 1e-12), so callers use K = 4 (order 8). Buffers are sized by resize();
// step() does not allocate.
#include <Eigen/Core>
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
    y = T_[K_ - 1];
  }

 private:
  int K_;
  Eigen::VectorXd zp_, zc_, zn_, f_;
  std::vector<Eigen::VectorXd> T_, R_;
};

}  // namespace dalembert
