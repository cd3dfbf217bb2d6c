#pragma once
// The parameters of the nonholonomic Newmark method F_h^{β,β′,α} (seed 000 Def. 3.1, Sec. 3.4).

namespace dalembert {

/// How the exact discrete constraint space is discretised (seed 000 Sec. 3.4, spec 000 §3.4).
enum class ConstraintDiscretization {
  Eq14,  ///< Φ^a = ⟨μ^a((1−α)q_k + αq_{k+1}), (q_{k+1}−q_k)/h⟩
  Eq15,  ///< Φ̃^a = ⟨(1−α)μ^a(q_k) + αμ^a(q_{k+1}), (q_{k+1}−q_k)/h⟩
};

/// The parameters of F_h^{β,β′,α}.
struct NewmarkParameters {
  double beta = 0.0;
  double beta_prime = 0.0;
  double alpha = 0.5;
  ConstraintDiscretization discretization = ConstraintDiscretization::Eq14;
};

}  // namespace dalembert
