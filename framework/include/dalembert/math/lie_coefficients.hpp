#pragma once
// The scalar coefficient functions of the exponential map and its right-trivialised derivative,
// shared by every matrix Lie group whose ad-operator satisfies ad³ = −w² ad (SE(2) with w = ω,
// SO(3) with w = |ξ|): Iserles, Munthe-Kaas, Nørsett & Zanna, "Lie-group methods", Acta Numerica 9
// (2000), §2.3 (dexp_ξ = Σ ad_ξʲ/(j+1)!, dexp⁻¹_ξ = Σ Bⱼ/j! ad_ξʲ), and spec 001 §3.1. Below
// |w| = 0.1 each function uses its Taylor series (10th-order remainder): the closed forms lose ε/w²
// to cancellation, the series are exact to round-off there.
#include <cmath>

namespace dalembert::lie_coefficients {

inline constexpr double small_angle = 0.1;

/// sin w / w
inline double sinc(double w) {
  if (std::abs(w) < small_angle) {
    const double w2 = w * w;
    return 1.0 - w2 / 6.0 * (1.0 - w2 / 20.0 * (1.0 - w2 / 42.0 * (1.0 - w2 / 72.0)));
  }
  return std::sin(w) / w;
}
/// (1 − cos w) / w²
inline double cosc(double w) {
  if (std::abs(w) < small_angle) {
    const double w2 = w * w;
    return 0.5 - w2 / 24.0 + w2 * w2 / 720.0 - w2 * w2 * w2 / 40320.0 + w2 * w2 * w2 * w2 / 3628800.0;
  }
  return (1.0 - std::cos(w)) / (w * w);
}
/// (w − sin w) / w³
inline double sinc3(double w) {
  if (std::abs(w) < small_angle) {
    const double w2 = w * w;
    return 1.0 / 6.0 - w2 / 120.0 + w2 * w2 / 5040.0 - w2 * w2 * w2 / 362880.0 + w2 * w2 * w2 * w2 / 39916800.0;
  }
  return (w - std::sin(w)) / (w * w * w);
}
/// c(w) = (1 − (w/2)cot(w/2)) / w² → 1/12, the coefficient of ad² in dexp⁻¹ = I − ½ad + c(w) ad².
inline double bernoulli_coefficient(double w) {
  if (std::abs(w) < small_angle) {
    const double w2 = w * w;
    return 1.0 / 12.0 + w2 / 720.0 + w2 * w2 / 30240.0 + w2 * w2 * w2 / 1209600.0 + w2 * w2 * w2 * w2 / 47900160.0;
  }
  return (1.0 - 0.5 * w / std::tan(0.5 * w)) / (w * w);
}

}  // namespace dalembert::lie_coefficients
