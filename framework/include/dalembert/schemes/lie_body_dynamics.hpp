#pragma once
// The reduced (body-frame) dynamics of a LieGroupModel without shape (dim S = 0: the Chaplygin
// sleigh on SE(2), the Suslov problem on SO(3)), shared by the group forms of the Lie-group schemes
// (gni on SO(3), rkmk4). Template on a group struct of math/se2.hpp or math/so3_group.hpp; fixed-size
// Eigen, no heap after bind().
//
// ℓ(ξ) = ½ξᵀ𝕄ξ, admissible ξ ∈ D = span E (E constant: no shape), body wrench f. With the
// 𝕄-orthogonal projector onto 𝕄D acting on covectors (seed 001 §4, P* of eq. (5)),
//     P* = 𝕄E(Eᵀ𝕄E)⁻¹Eᵀ,  Q* = I − P*,
// the Euler–Poincaré–d'Alembert equations 𝕄ξ̇ = ad*_ξ 𝕄ξ + f + (constraint force ∈ range Q*)
// (Bloch, "Nonholonomic Mechanics and Control", eq. (5.8.x); Fedorov & Zenkov 2005 eq. (2.4)) read
//     ξ̇ = 𝕄⁻¹P*(ad*_ξ 𝕄ξ + f),                                                         (A)
// which keeps ξ in D exactly (𝕄⁻¹P* maps into span E). The discrete Legendre transforms of the
// left-invariant discrete Lagrangian L_d(g_k, g_{k+1}) = hℓ(ξ_k), g_{k+1} = g_k τ(hξ_k), are the
// pre- and post-momenta (Kobilarov–Marsden, IEEE T-RO 27 (2011) eq. (13); seed 001 eq. (27))
//     p⁻_{k,k+1} = (dτ⁻¹_{hξ_k})ᵀ𝕄ξ_k,   p⁺_{k,k+1} = (dτ⁻¹_{−hξ_k})ᵀ𝕄ξ_k.                   (B)
#include <Eigen/Core>
#include <Eigen/LU>
#include <cmath>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/integrator.hpp>
#include <dalembert/core/lie_group_model.hpp>
#include <dalembert/math/retraction.hpp>
#include <limits>
#include <string>

namespace dalembert {

template <class G>
class LieBodyDynamics {
 public:
  using Algebra = typename G::Algebra;
  using Matrix = Eigen::Matrix<double, G::dim, G::dim>;

  /// Reads 𝕄 and E; refuses a model with a shape or an r-dependent mass (allocates: bind time).
  void bind(const LieGroupModel& m, const std::string& who) {
    if (m.shape_dim() != 0)
      throw Error("integrator '" + who + "' integrates on " + to_string(m.group()) +
                  " systems without shape variables only (dim S = " + std::to_string(m.shape_dim()) + ")");
    model_ = &m;
    const int c = m.num_symmetry_directions();
    Mat ML(G::dim, G::dim), E(G::dim, c);
    const Vec r(0);
    m.locked_mass(r, ML);
    m.symmetry_basis(r, E);
    M_ = ML;
    Minv_ = M_.inverse();
    const Mat ME = ML * E;
    const Mat EME = E.transpose() * ME;
    P_ = ME * EME.inverse() * E.transpose();  // P* = 𝕄E(Eᵀ𝕄E)⁻¹Eᵀ
    fr_.resize(0);
    fg_.resize(G::dim);
  }
  const Matrix& mass() const { return M_; }
  const Matrix& mass_inverse() const { return Minv_; }
  /// P* (covectors).
  const Matrix& projector() const { return P_; }

  /// The body wrench f at (t, q, v) (zero without forces); no heap.
  Algebra force(double t, const Vec& q, const Vec& v) {
    if (!model_->has_forces()) return Algebra::Zero();
    model_->forces(t, q, v, fr_, fg_);
    return fg_.head<G::dim>();
  }
  /// ξ̇ of (A).
  Algebra acceleration(const Algebra& xi, const Algebra& f) const {
    return Minv_ * (P_ * (G::ad_star(xi, M_ * xi) + f));
  }
  /// The constraint force of (A) at ξ: 𝕄ξ̇ − ad*_ξ𝕄ξ − f = −Q*(ad*_ξ𝕄ξ + f).
  Algebra constraint_force(const Algebra& xi, const Algebra& f) const {
    const Algebra a = G::ad_star(xi, M_ * xi) + f;
    return P_ * a - a;
  }
  /// ξ with (dτ⁻¹_{hξ})ᵀ𝕄ξ = p (B), by Newton from 𝕄⁻¹p with a central-difference Jacobian, to
  /// round-off. Throws StepFailure if it does not converge in 30 iterations.
  Algebra solve_momentum(Retraction r, double h, const Algebra& p) const {
    Algebra xi = Minv_ * p;
    const double scale = 1.0 + p.template lpNorm<Eigen::Infinity>();
    double rn = 0.0;
    for (int it = 1; it <= 30; ++it) {
      const Algebra R = momentum(r, h, xi) - p;
      rn = R.template lpNorm<Eigen::Infinity>();
      if (rn <= 2e-16 * scale) return xi;
      Matrix J;
      for (int j = 0; j < G::dim; ++j) {
        const double d = 1e-6 * (1.0 + std::abs(xi[j]));
        Algebra a = xi, b = xi;
        a[j] += d;
        b[j] -= d;
        J.col(j) = (momentum(r, h, a) - momentum(r, h, b)) / (2 * d);
      }
      const Algebra dx = J.partialPivLu().solve(R);
      if (!dx.allFinite()) throw StepFailure("Lie-group momentum solve: singular Jacobian", rn, it);
      xi -= dx;
      if (dx.template lpNorm<Eigen::Infinity>() <= 1e-15 * (1.0 + xi.template lpNorm<Eigen::Infinity>())) {
        rn = (momentum(r, h, xi) - p).template lpNorm<Eigen::Infinity>();
        if (rn <= 1e-12 * scale) return xi;
      }
    }
    throw StepFailure("Lie-group momentum solve did not converge in 30 iterations", rn, 30);
  }
  /// (dτ⁻¹_{hξ})ᵀ𝕄ξ: p⁻ of (B) for h, p⁺ for −h.
  Algebra momentum(Retraction r, double h, const Algebra& xi) const {
    return G::dtau_inv(r, h * xi).transpose() * (M_ * xi);
  }

 private:
  const LieGroupModel* model_ = nullptr;
  Matrix M_, Minv_, P_;
  Vec fr_, fg_;
};

}  // namespace dalembert
