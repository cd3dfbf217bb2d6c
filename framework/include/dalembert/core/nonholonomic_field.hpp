#pragma once
// The continuous nonholonomic vector field of a ConstrainedLagrangian system (spec 000 §2.0):
//   q̇ = v,  M v̇ = f + Aᵀλ,  f = −∇V(q) − c(q,v) + F(t,q,v),
//   λ(q,v) = −C⁻¹ [ A M⁻¹ f + (∂A/∂q)[v]v ],  C = A M⁻¹ Aᵀ,
// obtained from d/dt(A(q)q̇) = 0. All buffers are sized in bind(): evaluate() does not allocate.
#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <boost/config.hpp>
#include <dalembert/core/constrained_lagrangian.hpp>

namespace dalembert {

/// Contractions of the constraint gradient G^a_{ij} = ∂A_{ai}/∂q^j, with one n×n work buffer.
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
  Mat G_;
  Vec Gv_;
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

  /// Factorises M(q) (once for constant mass) and solves M x = b in place.
  void solve_mass(ConstVecRef q, MatRef b);  // b may be a vector or a matrix of columns

 private:
  void factor_mass(ConstVecRef q);
  const ConstrainedLagrangian* model_ = nullptr;
  int n_ = 0, r_ = 0;
  bool mass_factored_ = false;
  Mat M_, Minv_, A_, MinvAt_, C_;
  Eigen::LLT<Mat> mass_llt_;
  Eigen::LLT<Mat> c_llt_;
  Vec f_, tmp_, c_, lambda_, rhs_;
  Mat tmp_cols_;
  ConstraintContractions contractions_;
};

}  // namespace dalembert
