#pragma once
// A derivative by fourth-order central differences (step d = 1e-3 max(1, |q_j|), error O(d⁴), about
// 1e-11 relative): the fallback where a system gives a function of q without its derivative
// (ConstrainedLagrangian's mass_derivative, kinetic_gradient and kinetic_hessian).
//   ∂f/∂q^j ≈ [f(q − 2d e_j) − 8 f(q − d e_j) + 8 f(q + d e_j) − f(q + 2d e_j)] / (12 d)
#include <algorithm>
#include <cmath>

namespace dalembert {

/// out = ∂f/∂q^j; f(x, value) writes an Eigen object of out's shape. qs (q's shape) and value are
/// work buffers, so that a caller with per-thread or fixed-size buffers allocates nothing.
template <class F, class Q, class QWork, class Out>
void central_difference(const F& f, const Q& q, int j, QWork& qs, Out& value, Out& out) {
  static constexpr double offsets[4] = {-2.0, -1.0, 1.0, 2.0}, weights[4] = {1.0, -8.0, 8.0, -1.0};
  qs = q;
  const double d = 1e-3 * std::max(1.0, std::abs(q[j]));
  out.setZero();
  for (int s = 0; s < 4; ++s) {
    qs[j] = q[j] + offsets[s] * d;
    f(qs, value);
    out += (weights[s] / (12.0 * d)) * value;
  }
}

}  // namespace dalembert
