#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <dalembert/core/affine_constraint.hpp>
#include <dalembert/core/constrained_lagrangian.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/integrator.hpp>
#include <dalembert/core/time_dependent_potential.hpp>
#include <dalembert/math/central_difference.hpp>
#include <string>

namespace dalembert {

LagrangianSystem::~LagrangianSystem() = default;

void check_treats(const System& system, std::string_view who, Treats treats) {
  const auto* model = dynamic_cast<const ConstrainedLagrangian*>(&system);
  if (!model) return;
  if (affine_constraint_of(*model) && !includes(treats, Treats::AffineConstraints))
    throw Error("'" + std::string(who) + "' does not treat the moving constraints A(q)v + b(t, q) = 0 of system '" +
                system.name() +
                "' (it was written for A(q)v = 0 only); an integrator that treats them declares \"treats "
                "AffineConstraints\" in its needs (`dalembert describe INTEGRATOR` prints them)");
  if (model->holonomic_count() == 0 || includes(treats, Treats::HolonomicConstraints)) return;
  throw Error("'" + std::string(who) + "' does not treat the " + std::to_string(model->holonomic_count()) +
              " holonomic constraint(s) g(q) = 0 of system '" + system.name() +
              "' (it was written for A(q)v = 0 only); an integrator that treats them declares \"treats "
              "HolonomicConstraints\" in its needs (`dalembert describe INTEGRATOR` prints them)");
}

// The fallbacks for a system that gives M(q) without its derivatives: central differences in q_j
// (math/central_difference.hpp). Per-thread buffers: no allocation after the first call.

// k_j = ½ vᵀ(∂M/∂q^j)v, i.e. the j-th column of D = ∂_q(M(q)v) dotted with ½v.
void ConstrainedLagrangian::kinetic_gradient(ConstVecRef q, ConstVecRef v, VecRef k) const {
  if (constant_mass()) {
    k.setZero();
    return;
  }
  thread_local Mat D;
  D.resize(dof(), dof());
  mass_derivative(q, v, D);
  k.noalias() = 0.5 * D.transpose() * v;
}

void ConstrainedLagrangian::mass_derivative(ConstVecRef q, ConstVecRef v, MatRef D) const {
  if (constant_mass()) {
    D.setZero();
    return;
  }
  const int n = dof();
  thread_local Mat M;
  thread_local Vec Mv, column, qs;
  M.resize(n, n);
  Mv.resize(n);
  column.resize(n);
  auto mass_times_v = [&](const Vec& x, Vec& out) {
    mass(x, M);
    out.noalias() = M * v;
  };
  for (int j = 0; j < n; ++j) {
    central_difference(mass_times_v, q, j, qs, Mv, column);
    D.col(j) = column;
  }
}

void ConstrainedLagrangian::kinetic_hessian(ConstVecRef q, ConstVecRef v, MatRef H) const {
  if (constant_mass()) {
    H.setZero();
    return;
  }
  const int n = dof();
  thread_local Vec k, column, qs;
  k.resize(n);
  column.resize(n);
  auto gradient = [&](const Vec& x, Vec& out) { kinetic_gradient(x, v, out); };
  for (int j = 0; j < n; ++j) {
    central_difference(gradient, q, j, qs, k, column);
    H.col(j) = column;
  }
}

// Observers call these every step: per-thread buffers keep them free of allocation after the first call.
double LagrangianSystem::energy(const State& s) const {
  const int n = dof();
  thread_local Mat M;
  thread_local Vec Mv;
  M.resize(n, n);
  Mv.resize(n);
  mass(s.q, M);
  Mv.noalias() = M * s.v;
  const double E = 0.5 * s.v.dot(Mv) + potential(s.q);
  const auto* U = time_dependent_potential_of(*this);  // issue 30: + U(t, q)
  return U ? E + U->time_potential(s.t, s.q) : E;
}

double LagrangianSystem::constraint_residual(const State& s) const {
  const int r = num_constraints();
  if (r == 0) return 0.0;
  thread_local Mat A;
  thread_local Vec Av;
  A.resize(r, dof());
  Av.resize(r);
  constraint_matrix(s.q, A);
  Av.noalias() = A * s.v;
  if (const auto* affine = affine_constraint_of(*this)) {  // ‖A v + b(t, q)‖∞ (issue 30)
    thread_local Vec b;
    b.resize(r);
    affine->affine_term(s.t, s.q, b);
    Av += b;
  }
  return Av.lpNorm<Eigen::Infinity>();
}

void ConstrainedLagrangian::holonomic_jacobian(ConstVecRef q, MatRef J) const {
  const int k = holonomic_count();
  if (k == 0) return;
  thread_local Mat C;
  C.resize(num_constraints(), dof());
  constraint_matrix(q, C);
  J = C.bottomRows(k);
}

double ConstrainedLagrangian::holonomic_residual(ConstVecRef q) const {
  const int k = holonomic_count();
  if (k == 0) return 0.0;
  thread_local Vec g;
  g.resize(k);
  holonomic(q, g);
  return g.lpNorm<Eigen::Infinity>();
}

// Newton on g(q) = 0 with the minimum-norm correction in the metric of M(q) (the kinetic energy):
// δq = −M⁻¹Jᵀ(JM⁻¹Jᵀ)⁻¹g. Quadratic near a regular point of g; it stops when ‖g‖∞ ≤
// relative·(1 + ‖q‖∞), or when a step no longer reduces ‖g‖ (round-off), or after 50 steps.
bool ConstrainedLagrangian::project_configuration(VecRef q, double relative) const {
  const int n = dof(), k = holonomic_count();
  if (k == 0) return true;
  Vec g(k);
  Mat M(n, n), J(k, n);
  holonomic(q, g);
  double norm = g.lpNorm<Eigen::Infinity>();
  auto tolerance = [&] { return relative * (1.0 + q.lpNorm<Eigen::Infinity>()); };
  for (int it = 0; it < 50 && std::isfinite(norm); ++it) {
    const double tol = tolerance();
    if (norm <= tol) return true;
    mass(q, M);
    holonomic_jacobian(q, J);
    const Eigen::LLT<Mat> llt(M);
    if (llt.info() != Eigen::Success) return false;
    const Mat B = llt.solve(J.transpose());  // M⁻¹Jᵀ
    const Eigen::LDLT<Mat> S(J * B);
    if (S.info() != Eigen::Success) return false;
    const Vec dq = B * S.solve(g);
    const Vec q0 = q;
    q -= dq;
    holonomic(q, g);
    const double next = g.lpNorm<Eigen::Infinity>();
    if (!(next < norm) && next > tol) {  // no progress: round-off, or no solution nearby
      if (!(next <= norm)) q = q0;
      return false;
    }
    norm = next;
  }
  return norm <= tolerance();
}

bool LagrangianSystem::project(State& s) const {
  // q onto g(q) = 0 (issue 28), then v ← v − M⁻¹Aᵀ C⁻¹ (A v + b), the M-orthogonal projection onto D_q
  // (spec 000 §2.0, P(q)), with C = [A; ∂g/∂q].
  const int n = dof(), r = num_constraints();
  const bool configuration = holonomic_count() == 0 || project_configuration(s.q);  // to holonomic_tolerance
  if (r == 0) return configuration;
  Mat M(n, n), A(r, n);
  mass(s.q, M);
  constraint_matrix(s.q, A);
  Eigen::LLT<Mat> llt(M);
  const Mat B = llt.solve(A.transpose());
  const Mat C = A * B;
  Vec residual = A * s.v;  // A v (+ b(t, q): onto the affine space of a moving constraint, issue 30)
  if (const auto* affine = affine_constraint_of(*this)) {
    Vec b(r);
    affine->affine_term(s.t, s.q, b);
    residual += b;
  }
  s.v -= B * C.llt().solve(residual);
  return configuration;
}

}  // namespace dalembert
