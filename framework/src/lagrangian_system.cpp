#include <Eigen/Cholesky>
#include <dalembert/core/constrained_lagrangian.hpp>

namespace dalembert {

LagrangianSystem::~LagrangianSystem() = default;

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
