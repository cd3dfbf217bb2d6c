#pragma once
// dexp⁻¹ of a matrix Lie group whose ad-operator satisfies ad³ = −w² ad (SE(2) with w = ω, SO(3)
// with w = |ξ|), and the truncations the RDP variants use (spec 001 §3.1, eq. 42):
//   exact:          dexp⁻¹_x = I − ½ ad_x + c(w) ad_x²,  c the Bernoulli coefficient (lie_coefficients.hpp),
//   first order:    I − ½ ad_x,
//   second order:   I − ½ ad_x + (1/12) ad_x²
// (Iserles, Munthe-Kaas, Nørsett & Zanna, Acta Numerica 9 (2000) §2.3: dexp⁻¹ = Σ Bⱼ/j! adʲ).
#include <dalembert/math/lie_coefficients.hpp>
#include <dalembert/math/retraction.hpp>

namespace dalembert {

/// `ad` the matrix of ad_x in the group's algebra basis, `w` its rotation angle.
template <class Matrix>
Matrix dexp_inverse(const Matrix& ad, double w, DexpInverse which = DexpInverse::Exact) {
  double c = 0.0;
  switch (which) {
    case DexpInverse::Exact: c = lie_coefficients::bernoulli_coefficient(w); break;
    case DexpInverse::FirstOrder: break;
    case DexpInverse::SecondOrder: c = 1.0 / 12.0; break;
  }
  return Matrix::Identity() - 0.5 * ad + c * ad * ad;
}

}  // namespace dalembert
