#pragma once
// W(t) = ∫₀ᵗ P dt from the power P sampled at every step (issue 30): composite Simpson over pairs of
// equal steps (error O(h⁴), at least the order of the schemes it checks: 2 for DLA/MLA, 4 for RK4);
// at a step that ends an unpaired interval, the last interval by the quadratic through the last
// three samples, ∫_{t_{k−1}}^{t_k} = h/12 (−P_{k−2} + 8P_{k−1} + 5P_k) (local O(h⁴), not accumulated:
// the next pair's Simpson sum starts again from the last even node), the trapezoid at the first
// step. Steps of unequal length (an impact's fractional step) take the trapezoid.
#include <cmath>

namespace dalembert {

class PowerQuadrature {
 public:
  /// The first sample (W = w there).
  void start(double t, double P, double w = 0.0) {
    base_ = {t, P, w};
    have_mid_ = have_before_ = false;
    work_ = w;
  }
  /// The sample at the end of a step; returns W(t).
  double add(double t, double P) {
    if (!have_mid_) {
      const double h = t - base_.t;
      work_ = have_before_ && equal(base_.t - before_.t, h)
                  ? base_.w + h / 12.0 * (-before_.P + 8.0 * base_.P + 5.0 * P)
                  : base_.w + 0.5 * h * (base_.P + P);
      mid_ = {t, P, work_};
      have_mid_ = true;
      return work_;
    }
    const double h = t - mid_.t;
    work_ = equal(mid_.t - base_.t, h) ? base_.w + (t - base_.t) / 6.0 * (base_.P + 4.0 * mid_.P + P)  // Simpson
                                       : mid_.w + 0.5 * h * (mid_.P + P);
    before_ = mid_;
    have_before_ = true;
    base_ = {t, P, work_};
    have_mid_ = false;
    return work_;
  }
  double work() const { return work_; }

 private:
  struct Sample {
    double t, P, w;  // time, power, W(t)
  };
  static bool equal(double a, double b) { return std::abs(a - b) <= 1e-10 * std::abs(b); }
  Sample base_{}, mid_{}, before_{};
  bool have_mid_ = false, have_before_ = false;
  double work_ = 0.0;
};

}  // namespace dalembert
