#pragma once
// The continuous nonholonomic vector field of a ConstrainedLagrangian system (spec 000 §2.0):
//   q̇ = v,  M v̇ = f + Aᵀλ,  f = −∇V(q) − c(q,v) + F(t,q,v),
//   λ(q,v) = −C⁻¹ [ A M⁻¹ f + (∂A/∂q)[v]v + ḃ ],  C = A M⁻¹ Aᵀ,
// obtained from d/dt(A(q)q̇ + b(t,q)) = 0; ḃ = ∂b/∂t + (∂b/∂q)v for moving constraints
// (core/affine_constraint.hpp, issue 30), absent otherwise. All buffers are sized in bind(): evaluate() does not allocate.
#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <boost/config.hpp>
#include <dalembert/core/affine_constraint.hpp>
#include <dalembert/core/constrained_lagrangian.hpp>

namespace dalembert {

/// dst = l·r for the small dynamic-size operands of the vector field and the Newmark equations:
/// a coefficient-based (lazy, inlined) product below 16 columns of l, where Eigen's general
/// gemv/gemm kernels cost more in dispatch and packing than the arithmetic; the blocked product above.
/// Operands must be plain matrices, blocks or transposes: an expression operand (e.g. s·A) would be
/// evaluated into a heap temporary; pass the scalar as `alpha` instead.
template <class Dst, class L, class R>
inline void small_product(Dst&& dst, const L& l, const R& r, double alpha = 1.0) {
  if (l.cols() <= 16)
    dst.noalias() = alpha * l.lazyProduct(r);
  else
    dst.noalias() = alpha * (l * r);
}

/// dst += l·r, as small_product.
template <class Dst, class L, class R>
inline void small_product_add(Dst&& dst, const L& l, const R& r, double alpha = 1.0) {
  if (l.cols() <= 16)
    dst.noalias() += alpha * l.lazyProduct(r);
  else
    dst.noalias() += alpha * (l * r);
}

/// How a constant mass matrix is applied: M = I (nothing to do), M diagonal (a scaling), or dense.
enum class MassStructure { Identity, Diagonal, Dense, ConfigurationDependent };

/// Classifies a constant mass matrix once (bind time); M dynamic or fixed-size.
template <class MassMatrix>
MassStructure classify_mass(const MassMatrix& M) {
  if (M.isIdentity(0.0)) return MassStructure::Identity;
  if (M.isDiagonal(0.0)) return MassStructure::Diagonal;
  return MassStructure::Dense;
}

/// Contractions of the constraint gradient G^a_{ij} = ∂A_{ai}/∂q^j of a model with r constraints,
/// formed one constraint at a time in the n×n work matrix G: the one definition behind
/// ConstraintContractions (any system, virtual calls) and FixedAccess (a fixed-size model without
/// closed forms). Lazy products: no temporaries, so no heap allocation at dynamic size.
/// c_a = Σ_{ij} ∂A_{ai}/∂q^j v^i v^j  (r), i.e. (∂A/∂q)[v]v.
template <class Model, class Q, class V, class C, class G>
void gradient_curvature(const Model& model, int r, const Q& q, const V& v, C&& c, G& g) {
  for (int a = 0; a < r; ++a) {
    model.constraint_gradient(q, a, g);
    c[a] = v.dot(g.lazyProduct(v));
  }
}
/// (DA[w])_{aj} = Σ_i ∂A_{ai}/∂q^j w_i  (r×n).
template <class Model, class Q, class W, class D, class G>
void gradient_derivative(const Model& model, int r, const Q& q, const W& w, D&& DA, G& g) {
  for (int a = 0; a < r; ++a) {
    model.constraint_gradient(q, a, g);
    DA.row(a).noalias() = w.transpose().lazyProduct(g);
  }
}
/// K_{ij} = Σ_a λ_a ∂A_{ai}/∂q^j  (n×n).
template <class Model, class Q, class L, class K, class G>
void gradient_transpose_derivative(const Model& model, int r, const Q& q, const L& lambda, K&& k, G& g) {
  k.setZero();
  for (int a = 0; a < r; ++a) {
    model.constraint_gradient(q, a, g);
    k += lambda[a] * g;
  }
}

class AutomaticDerivatives;

/// The contractions above for any plugin system, with one n×n work buffer; an L-and-A system
/// (AutomaticDerivatives) gives (∂A/∂q)[v]v and DA[w] itself.
class BOOST_SYMBOL_VISIBLE ConstraintContractions {
 public:
  void bind(const ConstrainedLagrangian& model);
  /// c_a = Σ_{ij} ∂A_{ai}/∂q^j v^i v^j  (r), i.e. (∂A/∂q)[v]v.
  void curvature(ConstVecRef q, ConstVecRef v, VecRef c);
  /// (DA[w])_{aj} = Σ_i ∂A_{ai}/∂q^j w_i  (r×n): the derivative of A(q)w with respect to q.
  void derivative(ConstVecRef q, ConstVecRef w, MatRef DA);
  /// K_{ij} = Σ_a λ_a ∂A_{ai}/∂q^j  (n×n): the derivative of A(q)ᵀλ with respect to q.
  void transpose_derivative(ConstVecRef q, ConstVecRef lambda, MatRef K);

 private:
  const ConstrainedLagrangian* model_ = nullptr;
  const AutomaticDerivatives* automatic_ = nullptr;
  Mat G_;
};

class BOOST_SYMBOL_VISIBLE NonholonomicVectorField {
 public:
  void bind(const ConstrainedLagrangian& model);
  const ConstrainedLagrangian& model() const { return *model_; }
  int n() const { return n_; }
  int r() const { return r_; }

  /// y' = (q̇, v̇) at (t, q, v); also leaves λ(q,v) in multiplier().
  void evaluate(double t, ConstVecRef q, ConstVecRef v, VecRef qdot, VecRef vdot);
  const Vec& multiplier() const { return lambda_; }
  /// How M is applied (known after the first evaluate/solve_mass): identity, diagonal, dense, M(q).
  MassStructure mass_structure() const { return mass_structure_; }

  /// Factorises M(q) (once for constant mass) and solves M x = b in place.
  void solve_mass(ConstVecRef q, MatRef b);  // b may be a vector or a matrix of columns

 private:
  void factor_mass(ConstVecRef q);
  const ConstrainedLagrangian* model_ = nullptr;
  int n_ = 0, r_ = 0;
  bool mass_factored_ = false;
  // The model's traits, read once in bind() (no virtual call per evaluation).
  bool constant_mass_ = true, external_force_ = false;
  const AffineConstraint* affine_ = nullptr;  // moving constraints A v + b(t,q) = 0, or none
  MassStructure mass_structure_ = MassStructure::Dense;
  Vec inv_diag_;  // M⁻¹ when M is constant and diagonal
  Mat M_, Minv_, A_, MinvAt_, C_;
  Eigen::LLT<Mat> mass_llt_;
  Eigen::LLT<Mat> c_llt_;
  Vec f_, tmp_, c_, lambda_, rhs_, bdot_;
  Mat tmp_cols_;
  ConstraintContractions contractions_;
};

}  // namespace dalembert
