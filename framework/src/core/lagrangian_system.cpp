#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <dalembert/core/constrained_lagrangian.hpp>

namespace dalembert {

LagrangianSystem::~LagrangianSystem() = default;

// The fallbacks for a system that gives M(q) without its derivatives: fourth-order central
// differences in q_j (step 1e-3 max(1,|q_j|)). Per-thread buffers: no allocation after the first call.
namespace {

/// out = ∂f/∂q^j, f(x, value) writing an Eigen object of out's shape; qs and value are work buffers.
template <class F, class Out>
void central_difference(const F& f, ConstVecRef q, int j, Vec& qs, Out& value, Out& out) {
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

}  // namespace

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
  return 0.5 * s.v.dot(Mv) + potential(s.q);
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
  return Av.lpNorm<Eigen::Infinity>();
}

bool LagrangianSystem::project(State& s) const {
  // v ← v − M⁻¹Aᵀ C⁻¹ A v, the M-orthogonal projection onto D_q (spec 000 §2.0, P(q)).
  const int n = dof(), r = num_constraints();
  if (r == 0) return true;
  Mat M(n, n), A(r, n);
  mass(s.q, M);
  constraint_matrix(s.q, A);
  Eigen::LLT<Mat> llt(M);
  const Mat B = llt.solve(A.transpose());
  const Mat C = A * B;
  s.v -= B * C.llt().solve(A * s.v);
  return true;
}

}  // namespace dalembert
