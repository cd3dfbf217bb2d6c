#include <dalembert/core/automatic_derivatives.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/math/llt_storage.hpp>
#include <dalembert/core/nonholonomic_field.hpp>

namespace dalembert {

void ConstraintContractions::bind(const ConstrainedLagrangian& model) {
  model_ = &model;
  automatic_ = dynamic_cast<const AutomaticDerivatives*>(&model);
  G_.resize(model.dof(), model.dof());
}

// An L-and-A system forms the contraction itself: its closed form, else one AD direction through
// A(q) — cheaper than r full gradients (bench_steps rk2/snakeboard, one run: 981 ns per step from
// r AD gradients, 567 ns this way, 680 ns with the former hand-written gradient).
void ConstraintContractions::curvature(ConstVecRef q, ConstVecRef v, VecRef c) {
  if (automatic_)
    automatic_->model_curvature(q, v, c);
  else
    gradient_curvature(*model_, model_->num_constraints(), q, v, c, G_);
}

void ConstraintContractions::derivative(ConstVecRef q, ConstVecRef w, MatRef DA) {
  if (automatic_)
    automatic_->model_constraint_derivative(q, w, DA);
  else
    gradient_derivative(*model_, model_->num_constraints(), q, w, DA, G_);
}

void ConstraintContractions::transpose_derivative(ConstVecRef q, ConstVecRef lambda, MatRef K) {
  gradient_transpose_derivative(*model_, model_->num_constraints(), q, lambda, K, G_);
}

void NonholonomicVectorField::bind(const ConstrainedLagrangian& model) {
  model_ = &model;
  n_ = model.dof();
  r_ = model.num_constraints();
  M_.resize(n_, n_);
  Minv_.resize(n_, n_);
  tmp_cols_.resize(n_, r_);
  A_.resize(r_, n_);
  MinvAt_.resize(n_, r_);
  C_.resize(r_, r_);
  size_llt(mass_llt_, n_);
  size_llt(c_llt_, r_);
  f_.resize(n_);
  tmp_.resize(n_);
  c_.resize(r_);
  lambda_.resize(r_);
  rhs_.resize(r_);
  affine_ = affine_constraint_of(model);
  bdot_.resize(affine_ ? r_ : 0);
  contractions_.bind(model);
  constant_mass_ = model.constant_mass();
  external_force_ = model.has_external_force();
  mass_structure_ = constant_mass_ ? MassStructure::Dense : MassStructure::ConfigurationDependent;
  inv_diag_.resize(n_);
  mass_factored_ = false;
}

void NonholonomicVectorField::factor_mass(ConstVecRef q) {
  if (mass_factored_ && constant_mass_) return;
  model_->mass(q, M_);
  mass_llt_.compute(M_);
  if (mass_llt_.info() != Eigen::Success) throw StepFailure("mass matrix is not positive definite", 0.0);
  if (constant_mass_) {  // once: M⁻¹ as a matrix (or nothing, or a diagonal), so every later solve is cheap
    Minv_.setIdentity();
    mass_llt_.solveInPlace(Minv_);
    mass_structure_ = classify_mass(M_);
    inv_diag_ = M_.diagonal().cwiseInverse();
  }
  mass_factored_ = true;
}

void NonholonomicVectorField::solve_mass(ConstVecRef q, MatRef b) {
  factor_mass(q);
  switch (mass_structure_) {
    case MassStructure::Identity:
      return;
    case MassStructure::Diagonal:
      b = inv_diag_.asDiagonal() * b;
      return;
    case MassStructure::ConfigurationDependent:
      mass_llt_.solveInPlace(b);
      return;
    case MassStructure::Dense:
      if (b.cols() == 1) {
        small_product(tmp_, Minv_, b.col(0));
        b.col(0) = tmp_;
      } else {
        if (b.cols() > tmp_cols_.cols()) tmp_cols_.resize(n_, b.cols());  // wider than Aᵀ: not on the step path
        small_product(tmp_cols_.leftCols(b.cols()), Minv_, b);
        b = tmp_cols_.leftCols(b.cols());
      }
      return;
  }
}

void NonholonomicVectorField::evaluate(double t, ConstVecRef q, ConstVecRef v, VecRef qdot, VecRef vdot) {
  // f = −∇V − c + F
  model_->potential_gradient(q, f_);
  f_ = -f_;
  if (!constant_mass_) {
    model_->coriolis(q, v, tmp_);
    f_ -= tmp_;
  }
  if (external_force_) {
    model_->external_force(t, q, v, tmp_);
    f_ += tmp_;
  }
  solve_mass(q, f_);  // f_ ← a = M⁻¹ f
  if (r_ > 0) {
    model_->constraint_matrix(q, A_);
    MinvAt_ = A_.transpose();
    solve_mass(q, MinvAt_);  // B = M⁻¹Aᵀ
    contractions_.curvature(q, v, c_);
    // λ = −C⁻¹ [A a + (∂A/∂q)[v]v + ḃ]   (spec 000 §2.0; ḃ: issue 30)
    small_product(rhs_, A_, f_);
    rhs_ += c_;
    if (affine_) {  // d/dt b(t, q) along v (issue 30)
      affine_->affine_rate(t, q, v, bdot_);
      rhs_ += bdot_;
    }
    if (r_ == 1) {  // one constraint: C = A M⁻¹ Aᵀ is a positive number
      const double C = A_.row(0).dot(MinvAt_.col(0));
      if (!(C > 0.0)) throw StepFailure("constraint matrix A M⁻¹ Aᵀ is singular", 0.0);
      lambda_[0] = -rhs_[0] / C;
      vdot = f_ + lambda_[0] * MinvAt_.col(0);
    } else {
      small_product(C_, A_, MinvAt_);
      c_llt_.compute(C_);
      if (c_llt_.info() != Eigen::Success) throw StepFailure("constraint matrix A M⁻¹ Aᵀ is singular", 0.0);
      lambda_ = -rhs_;
      c_llt_.solveInPlace(lambda_);
      vdot = f_;
      small_product(tmp_, MinvAt_, lambda_);
      vdot += tmp_;
    }
  } else {
    vdot = f_;
  }
  qdot = v;
}

}  // namespace dalembert
