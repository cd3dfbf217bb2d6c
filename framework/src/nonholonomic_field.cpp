#include <dalembert/core/errors.hpp>
#include <dalembert/core/nonholonomic_field.hpp>

namespace dalembert {

void ConstraintContractions::bind(const ConstrainedLagrangian& model) {
  model_ = &model;
  G_.resize(model.dof(), model.dof());
  Gv_.resize(model.dof());
}

void ConstraintContractions::curvature(ConstVecRef q, ConstVecRef v, VecRef c) {
  for (int a = 0; a < model_->num_constraints(); ++a) {
    model_->constraint_gradient(q, a, G_);
    Gv_.noalias() = G_ * v;
    c[a] = v.dot(Gv_);
  }
}

void ConstraintContractions::derivative(ConstVecRef q, ConstVecRef w, MatRef DA) {
  for (int a = 0; a < model_->num_constraints(); ++a) {
    model_->constraint_gradient(q, a, G_);
    DA.row(a).noalias() = w.transpose() * G_;
  }
}

void ConstraintContractions::transpose_derivative(ConstVecRef q, ConstVecRef lambda, MatRef K) {
  K.setZero();
  for (int a = 0; a < model_->num_constraints(); ++a) {
    model_->constraint_gradient(q, a, G_);
    K += lambda[a] * G_;
  }
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
  mass_llt_ = Eigen::LLT<Mat>(n_);
  c_llt_ = Eigen::LLT<Mat>(r_);
  f_.resize(n_);
  tmp_.resize(n_);
  c_.resize(r_);
  lambda_.resize(r_);
  rhs_.resize(r_);
  contractions_.bind(model);
  mass_factored_ = false;
}

void NonholonomicVectorField::factor_mass(ConstVecRef q) {
  if (mass_factored_ && model_->constant_mass()) return;
  model_->mass(q, M_);
  mass_llt_.compute(M_);
  if (mass_llt_.info() != Eigen::Success) throw StepFailure("mass matrix is not positive definite", 0.0);
  if (model_->constant_mass()) {  // once: M⁻¹ as a matrix, so every later solve is a small product
    Minv_.setIdentity();
    mass_llt_.solveInPlace(Minv_);
  }
  mass_factored_ = true;
}

void NonholonomicVectorField::solve_mass(ConstVecRef q, MatRef b) {
  factor_mass(q);
  if (!model_->constant_mass()) {
    mass_llt_.solveInPlace(b);
  } else if (b.cols() == 1) {
    tmp_.noalias() = Minv_ * b.col(0);
    b.col(0) = tmp_;
  } else {
    tmp_cols_.noalias() = Minv_ * b;
    b = tmp_cols_;
  }
}

void NonholonomicVectorField::evaluate(double t, ConstVecRef q, ConstVecRef v, VecRef qdot, VecRef vdot) {
  // f = −∇V − c + F
  model_->potential_gradient(q, f_);
  f_ = -f_;
  if (!model_->constant_mass()) {
    model_->coriolis(q, v, tmp_);
    f_ -= tmp_;
  }
  if (model_->has_external_force()) {
    model_->external_force(t, q, v, tmp_);
    f_ += tmp_;
  }
  solve_mass(q, f_);  // f_ ← a = M⁻¹ f
  if (r_ > 0) {
    model_->constraint_matrix(q, A_);
    MinvAt_ = A_.transpose();
    solve_mass(q, MinvAt_);  // B = M⁻¹Aᵀ
    C_.noalias() = A_ * MinvAt_;
    c_llt_.compute(C_);
    if (c_llt_.info() != Eigen::Success) throw StepFailure("constraint matrix A M⁻¹ Aᵀ is singular", 0.0);
    contractions_.curvature(q, v, c_);
    // λ = −C⁻¹ [A a + (∂A/∂q)[v]v]   (spec 000 §2.0)
    rhs_.noalias() = A_ * f_;
    rhs_ += c_;
    lambda_ = -rhs_;
    c_llt_.solveInPlace(lambda_);
    vdot = f_;
    vdot.noalias() += MinvAt_ * lambda_;
  } else {
    vdot = f_;
  }
  qdot = v;
}

}  // namespace dalembert
