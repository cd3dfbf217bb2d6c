#pragma once
// Forward-mode automatic differentiation of a model's functions (issue 13; DESIGN §4 Derivatives).
//
// A model writes V(q), A(q) and, if it depends on q, M(q) once, templated on the scalar (the type of
// q's entries). These functions evaluate them on Eigen's AutoDiffScalar — the forward-mode dual
// number Drake uses — and read off the derivatives the schemes need:
//   ∇V, ∇²V, ∂A/∂q (and its contractions (∂A/∂q)[v]v, DA[w], Σ_a λ_a ∂A_a), ∂M/∂q[v] and the
//   Coriolis terms Ṁv − ½∂_q(vᵀMv).
// Derivative vectors are fixed-size when the model's size is (no heap allocation), dynamic
// otherwise. A contraction along one vector seeds one direction (a dual number with a single
// derivative), a full Jacobian seeds n.
//
// A model function must therefore be generic in the scalar: arguments `const auto&`, outputs
// `auto&&`, a scalar result declared `auto f(const auto& q) const -> scalar_t<decltype(q)>` (never
// a deduced `auto`: an AutoDiffScalar expression would outlive its operands), and elementary functions called unqualified after
// `using std::sin;` etc. so that argument-dependent lookup finds Eigen's AutoDiff overloads. A
// constant result is written `scalar_t<decltype(q)>(0.0)`: the second-order dual of ∇²V is not
// implicitly constructible from a double.
#include <Eigen/Core>
#include <array>
#include <cstddef>
#include <type_traits>
#include <unsupported/Eigen/AutoDiff>

namespace dalembert {

/// The scalar of a vector or matrix argument of a model function: double, or a dual number.
template <class X>
using scalar_t = typename std::decay_t<X>::Scalar;

namespace ad {

/// A dual number with K derivative directions (K may be Eigen::Dynamic).
template <int K>
using Dual = Eigen::AutoDiffScalar<Eigen::Matrix<double, K, 1>>;

template <class S, int Rows, int Cols = 1>
using Matrix = Eigen::Matrix<S, Rows, Cols>;

/// A rows×cols matrix of type M, fixed or dynamic (a fixed 1×2 or 2×1 matrix constructed from two
/// integers would take them as its coefficients).
template <class M>
M sized(Eigen::Index rows, Eigen::Index cols) {
  if constexpr (M::SizeAtCompileTime == Eigen::Dynamic)
    return M(rows, cols);
  else
    return M();
}

/// The n derivatives of x. A dynamic-size dual that never met a variable (a constant entry of A, a
/// constant V) has an empty derivative vector: it reads as n zeros.
template <class D>
decltype(auto) derivatives_of(const D& x, Eigen::Index n) {
  using Der = typename D::DerType;
  if constexpr (Der::SizeAtCompileTime == Eigen::Dynamic) {
    if (x.derivatives().size() == 0) return Der(Der::Zero(n));
    return Der(x.derivatives());
  } else {
    return x.derivatives();
  }
}

/// x_i = q_i + ε_i: the variables of a full Jacobian (n directions).
template <int N, class Q>
Matrix<Dual<N>, N> seed_all(const Q& q) {
  const Eigen::Index n = q.size();
  auto x = sized<Matrix<Dual<N>, N>>(n, 1);
  for (Eigen::Index i = 0; i < n; ++i) x[i] = Dual<N>(q[i], n, i);
  return x;
}

/// x = q + ε w: one direction.
template <int N, class Q, class W>
Matrix<Dual<1>, N> seed_direction(const Q& q, const W& w) {
  auto x = sized<Matrix<Dual<1>, N>>(q.size(), 1);
  for (Eigen::Index i = 0; i < q.size(); ++i) x[i] = Dual<1>(q[i], Eigen::Matrix<double, 1, 1>(w[i]));
  return x;
}

/// Second derivatives: a dual of K directions whose entries are duals of one direction.
template <int K>
using DualOverDirection = Eigen::AutoDiffScalar<Eigen::Matrix<Dual<1>, K, 1>>;

/// x_i = q_i + ε_i + δ e_j,i: the variables of column j of a Hessian (ε: K directions, δ: one).
template <int N, class Q>
Matrix<DualOverDirection<N>, N> seed_hessian_column(const Q& q, Eigen::Index j) {
  const Eigen::Index n = q.size();
  const Eigen::Matrix<double, 1, 1> zero(0.0);
  auto x = sized<Matrix<DualOverDirection<N>, N>>(n, 1);
  for (Eigen::Index i = 0; i < n; ++i) {
    auto d = sized<Matrix<Dual<1>, N>>(n, 1);
    for (Eigen::Index k = 0; k < n; ++k) d[k] = Dual<1>(k == i ? 1.0 : 0.0, zero);
    x[i] = DualOverDirection<N>(Dual<1>(q[i], Eigen::Matrix<double, 1, 1>(i == j ? 1.0 : 0.0)), d);
  }
  return x;
}

// ----- the potential -----

/// g = ∇V(q).
template <int N, class Model, class Q, class G>
void potential_gradient(const Model& model, const Q& q, G&& g) {
  const Dual<N> V = model.potential(seed_all<N>(q));
  g = derivatives_of(V, q.size());
}

/// H = ∇²V(q), one column per pass: column j = d/dδ ∇V(q + δe_j). Measured on the chaotic particle
/// (n = 5): 167 ns, against 1 050 ns for the full nesting Dual<Dual<n>> in one pass.
template <int N, class Model, class Q, class H>
void potential_hessian(const Model& model, const Q& q, H&& hess) {
  for (Eigen::Index j = 0; j < q.size(); ++j) {
    const DualOverDirection<N> V = model.potential(seed_hessian_column<N>(q, j));
    const auto& dV = derivatives_of(V, q.size());
    for (Eigen::Index i = 0; i < q.size(); ++i) hess(i, j) = dV[i].derivatives()[0];
  }
}

// ----- the constraints -----

/// A(q) evaluated on the dual variables x.
template <int N, int R, class Model, class X>
auto constraint_matrix_of(const Model& model, Eigen::Index r, const X& x) {
  using S = scalar_t<X>;
  auto A = sized<Matrix<S, R, N>>(r, x.size());
  if constexpr (R != 0) model.constraint_matrix(x, A);  // a model with g only need not write A (issue 28)
  return A;
}

/// G_{ij} = ∂A_{ai}/∂q^j for one constraint a.
template <int N, int R, class Model, class Q, class G>
void constraint_gradient(const Model& model, Eigen::Index r, const Q& q, int a, G&& grad) {
  const auto A = constraint_matrix_of<N, R>(model, r, seed_all<N>(q));
  for (Eigen::Index i = 0; i < q.size(); ++i) grad.row(i) = derivatives_of(A(a, i), q.size()).transpose();
}

/// c = (∂A/∂q)[v]v = d/dε A(q + εv) v at ε = 0: one direction.
template <int N, int R, class Model, class Q, class V, class C>
void curvature(const Model& model, Eigen::Index r, const Q& q, const V& v, C&& c) {
  const auto A = constraint_matrix_of<N, R>(model, r, seed_direction<N>(q, v));
  for (Eigen::Index a = 0; a < r; ++a) {
    double s = 0.0;
    for (Eigen::Index i = 0; i < q.size(); ++i) s += A(a, i).derivatives()[0] * v[i];
    c[a] = s;
  }
}

/// (DA[w])_{aj} = ∂/∂q^j (A(q)w)_a.
template <int N, int R, class Model, class Q, class W, class D>
void constraint_derivative(const Model& model, Eigen::Index r, const Q& q, const W& w, D&& DA) {
  const auto A = constraint_matrix_of<N, R>(model, r, seed_all<N>(q));
  for (Eigen::Index a = 0; a < r; ++a) {
    Matrix<double, N> row = Matrix<double, N>::Zero(q.size());
    for (Eigen::Index i = 0; i < q.size(); ++i) row += w[i] * derivatives_of(A(a, i), q.size());
    DA.row(a) = row.transpose();
  }
}

/// K_{ij} = ∂/∂q^j (A(q)ᵀλ)_i = Σ_a λ_a ∂A_{ai}/∂q^j.
template <int N, int R, class Model, class Q, class L, class K>
void transpose_derivative(const Model& model, Eigen::Index r, const Q& q, const L& lambda, K&& k) {
  const auto A = constraint_matrix_of<N, R>(model, r, seed_all<N>(q));
  for (Eigen::Index i = 0; i < q.size(); ++i) {
    Matrix<double, N> row = Matrix<double, N>::Zero(q.size());
    for (Eigen::Index a = 0; a < r; ++a) row += lambda[a] * derivatives_of(A(a, i), q.size());
    k.row(i) = row.transpose();
  }
}

// ----- holonomic constraints g(q) = 0 (issue 28) -----
// A model with k holonomic constraints writes g(q) once, generic in the scalar:
//   void holonomic_constraint(const auto& q, auto&& g) const;   g(q), k entries
// The framework evaluates it on doubles, on Dual<N> (∂g/∂q) and on DualOverDirection<N> (∂g/∂q and
// ∇²g_a w in one pass): the constraint distribution gains the rows ∂g/∂q, their curvature is
// wᵀ∇²g_a w, their derivative DA[w] is ∇²g_a w.

/// g(q) evaluated on the dual variables x.
template <int K, class Model, class X>
auto holonomic_of(const Model& model, Eigen::Index k, const X& x) {
  auto g = sized<Matrix<scalar_t<X>, K>>(k, 1);
  model.holonomic_constraint(x, g);
  return g;
}

/// J = ∂g/∂q (k×n).
template <int N, int K, class Model, class Q, class J>
void holonomic_jacobian(const Model& model, Eigen::Index k, const Q& q, J&& jac) {
  const auto g = holonomic_of<K>(model, k, seed_all<N>(q));
  for (Eigen::Index a = 0; a < k; ++a) jac.row(a) = derivatives_of(g[a], q.size()).transpose();
}

/// x_i = q_i + ε_i + δ w_i: the variables of ∇f and (∇²f) w in one pass (ε: N directions, δ: one).
template <int N, class Q, class W>
Matrix<DualOverDirection<N>, N> seed_hessian_direction(const Q& q, const W& w) {
  const Eigen::Index n = q.size();
  const Eigen::Matrix<double, 1, 1> zero(0.0);
  auto x = sized<Matrix<DualOverDirection<N>, N>>(n, 1);
  for (Eigen::Index i = 0; i < n; ++i) {
    auto d = sized<Matrix<Dual<1>, N>>(n, 1);
    for (Eigen::Index k = 0; k < n; ++k) d[k] = Dual<1>(k == i ? 1.0 : 0.0, zero);
    x[i] = DualOverDirection<N>(Dual<1>(q[i], Eigen::Matrix<double, 1, 1>(w[i])), d);
  }
  return x;
}

/// Row a of hw = ((∇²g_a) w)ᵀ (k×n): the derivative along w of the row ∂g_a/∂q, which is also
/// (DA[w]) of the distribution's row ∂g_a/∂q (∇²g_a is symmetric). One pass.
template <int N, int K, class Model, class Q, class W, class H>
void holonomic_hessian_times(const Model& model, Eigen::Index k, const Q& q, const W& w, H&& hw) {
  const auto g = holonomic_of<K>(model, k, seed_hessian_direction<N>(q, w));
  for (Eigen::Index a = 0; a < k; ++a) {
    const auto& d = derivatives_of(g[a], q.size());
    for (Eigen::Index i = 0; i < q.size(); ++i) hw(a, i) = d[i].derivatives()[0];
  }
}

/// c_a = vᵀ∇²g_a v (k): the velocity term d/dt(∂g/∂q) v of the acceleration-level constraint.
template <int N, int K, class Model, class Q, class V, class C>
void holonomic_curvature(const Model& model, Eigen::Index k, const Q& q, const V& v, C&& c) {
  const auto g = holonomic_of<K>(model, k, seed_hessian_direction<N>(q, v));
  for (Eigen::Index a = 0; a < k; ++a) {
    const auto& d = derivatives_of(g[a], q.size());
    double s = 0.0;
    for (Eigen::Index i = 0; i < q.size(); ++i) s += d[i].derivatives()[0] * v[i];
    c[a] = s;
  }
}

/// G = ∇²g_a (n×n), one column per pass (column j: the pass along e_j).
template <int N, int K, class Model, class Q, class G>
void holonomic_hessian(const Model& model, Eigen::Index k, const Q& q, int a, G&& hess) {
  for (Eigen::Index j = 0; j < q.size(); ++j) {
    const auto g = holonomic_of<K>(model, k, seed_hessian_column<N>(q, j));
    const auto& d = derivatives_of(g[a], q.size());
    for (Eigen::Index i = 0; i < q.size(); ++i) hess(i, j) = d[i].derivatives()[0];
  }
}

/// K += Σ_a μ_a ∇²g_a (n×n), one column per pass.
template <int N, int K, class Model, class Q, class L, class Out>
void add_holonomic_transpose_derivative(const Model& model, Eigen::Index k, const Q& q, const L& mu, Out&& out) {
  for (Eigen::Index j = 0; j < q.size(); ++j) {
    const auto g = holonomic_of<K>(model, k, seed_hessian_column<N>(q, j));
    for (Eigen::Index a = 0; a < k; ++a) {
      const auto& d = derivatives_of(g[a], q.size());
      for (Eigen::Index i = 0; i < q.size(); ++i) out(i, j) += mu[a] * d[i].derivatives()[0];
    }
  }
}

// ----- a configuration-dependent mass matrix -----

/// M(q) evaluated on the dual variables x.
template <int N, class Model, class X>
auto mass_of(const Model& model, const X& x) {
  auto M = sized<Matrix<scalar_t<X>, N, N>>(x.size(), x.size());
  model.mass(x, M);
  return M;
}

/// D = ∂M/∂q^k for one k (n×n).
template <int N, class Model, class Q, class D>
void mass_gradient(const Model& model, const Q& q, int k, D&& dM) {
  Matrix<double, N> e = Matrix<double, N>::Unit(q.size(), k);
  const auto M = mass_of<N>(model, seed_direction<N>(q, e));
  for (Eigen::Index i = 0; i < q.size(); ++i)
    for (Eigen::Index j = 0; j < q.size(); ++j) dM(i, j) = M(i, j).derivatives()[0];
}

/// k = ½ ∂_q(vᵀM(q)v) at fixed v (n directions at once).
template <int N, class Model, class Q, class V, class K>
void kinetic_gradient(const Model& model, const Q& q, const V& v, K&& k) {
  const auto Mq = mass_of<N>(model, seed_all<N>(q));
  const Eigen::Index n = q.size();
  Matrix<double, N> grad = Matrix<double, N>::Zero(n);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j) grad += (0.5 * v[i] * v[j]) * derivatives_of(Mq(i, j), n);
  k = grad;
}

/// D = ∂_q(M(q)v) at fixed v (n×n): column j is (∂M/∂q^j)v.
template <int N, class Model, class Q, class V, class D>
void mass_derivative(const Model& model, const Q& q, const V& v, D&& d) {
  const auto Mq = mass_of<N>(model, seed_all<N>(q));
  const Eigen::Index n = q.size();
  for (Eigen::Index i = 0; i < n; ++i) {
    Matrix<double, N> row = Matrix<double, N>::Zero(n);
    for (Eigen::Index k = 0; k < n; ++k) row += v[k] * derivatives_of(Mq(i, k), n);
    d.row(i) = row.transpose();
  }
}

/// c = Ṁv − ½ ∂_q(vᵀM v): the velocity terms of the Euler–Lagrange equations of ½vᵀM(q)v, from one
/// pass of n directions (issue 28 item 6): with D_k = ∂M/∂q^k read off the duals,
///   (Ṁv)_i = Σ_j Σ_k v_k (D_k)_ij v_j = ρ_i · v,   ½∂_i(vᵀMv) = ½ Σ_j v_j Σ_l v_l (D_i)_jl,
/// ρ_i = Σ_j v_j ∇M_ij (the gradient of row i of Mv at fixed v). Both sums come from the n-vectors
/// ρ_i: Ṁv_i = ρ_i·v and ½∂_q(vᵀMv) = ½ Σ_i v_i ρ_i (M symmetric). One n-direction pass instead of
/// that pass plus a one-direction pass for Ṁ = d/dε M(q + εv).
template <class MD, class V, class C>
void coriolis_of(const MD& Mq, const V& v, C&& c) {
  const Eigen::Index n = v.size();
  constexpr int N = MD::RowsAtCompileTime;
  Matrix<double, N> grad = Matrix<double, N>::Zero(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    Matrix<double, N> rho = Matrix<double, N>::Zero(n);  // ρ_i = Σ_j v_j ∇M_ij
    for (Eigen::Index j = 0; j < n; ++j) rho += v[j] * derivatives_of(Mq(i, j), n);
    c[i] = rho.dot(v);
    grad += (0.5 * v[i]) * rho;
  }
  for (Eigen::Index i = 0; i < n; ++i) c[i] -= grad[i];
}
template <int N, class Model, class Q, class V, class C>
void coriolis(const Model& model, const Q& q, const V& v, C&& c) {
  coriolis_of(mass_of<N>(model, seed_all<N>(q)), v, c);
}

/// M(q) and c(q, v) from the one pass of coriolis(): M is the values of the duals (issue 32 item 1 —
/// a field that needs both evaluates the model's M once, not twice).
template <int N, class Model, class Q, class V, class M, class C>
void mass_and_coriolis(const Model& model, const Q& q, const V& v, M&& mass, C&& c) {
  const auto Mq = mass_of<N>(model, seed_all<N>(q));
  coriolis_of(Mq, v, c);
  for (Eigen::Index j = 0; j < q.size(); ++j)
    for (Eigen::Index i = 0; i < q.size(); ++i) mass(i, j) = Mq(i, j).value();
}

// ----- M(q) through the coordinates it depends on (issue 28 item 6) -----
// A model whose M(q) depends on m < n of its coordinates may list them (in FixedLagrangianSystem:
// `static constexpr std::array<int, m> mass_coordinates{...}`; the Whipple bicycle's M depends on
// yaw, roll, pitch and steer only, not on the contact point nor the wheel angles). The derivatives
// of M then take one pass of m directions instead of n: each direction of a forward-mode dual is
// computed independently of the others, so the listed ones are those of the n-direction pass and
// the others are zero — the same numbers at m/n of the cost (measured on the bicycle: 6.9 against
// 17 µs per evaluation of M).

/// x_i = q_i + ε_s for the coordinate i = coords[s]; the other coordinates constants.
template <int N, std::size_t Mdir, class Q>
Matrix<Dual<static_cast<int>(Mdir)>, N> seed_listed(const Q& q, const std::array<int, Mdir>& coords) {
  constexpr int m = static_cast<int>(Mdir);
  auto x = sized<Matrix<Dual<m>, N>>(q.size(), 1);
  for (Eigen::Index i = 0; i < q.size(); ++i) x[i] = Dual<m>(q[i]);
  for (int s = 0; s < m; ++s) x[coords[s]] = Dual<m>(q[coords[s]], m, s);
  return x;
}

/// kinetic_gradient through the listed coordinates (zero along the others).
template <int N, std::size_t Mdir, class Model, class Q, class V, class K>
void kinetic_gradient_listed(const Model& model, const std::array<int, Mdir>& coords, const Q& q, const V& v, K&& k) {
  constexpr int m = static_cast<int>(Mdir);
  const auto Mq = mass_of<N>(model, seed_listed<N>(q, coords));
  const Eigen::Index n = q.size();
  Eigen::Matrix<double, m, 1> grad = Eigen::Matrix<double, m, 1>::Zero();
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j) grad += (0.5 * v[i] * v[j]) * Mq(i, j).derivatives();
  for (Eigen::Index i = 0; i < n; ++i) k[i] = 0.0;
  for (int s = 0; s < m; ++s) k[coords[s]] = grad[s];
}

/// mass_derivative through the listed coordinates: columns coords[s] of ∂_q(M(q)v), the others zero.
template <int N, std::size_t Mdir, class Model, class Q, class V, class D>
void mass_derivative_listed(const Model& model, const std::array<int, Mdir>& coords, const Q& q, const V& v, D&& d) {
  constexpr int m = static_cast<int>(Mdir);
  const auto Mq = mass_of<N>(model, seed_listed<N>(q, coords));
  const Eigen::Index n = q.size();
  d.setZero();
  for (Eigen::Index i = 0; i < n; ++i) {
    Eigen::Matrix<double, m, 1> row = Eigen::Matrix<double, m, 1>::Zero();
    for (Eigen::Index k = 0; k < n; ++k) row += v[k] * Mq(i, k).derivatives();
    for (int s = 0; s < m; ++s) d(i, coords[s]) = row[s];
  }
}

/// coriolis (the one-pass formula above) through the listed coordinates, from M on the duals.
template <std::size_t Mdir, class MD, class V, class C>
void coriolis_listed_of(const MD& Mq, const std::array<int, Mdir>& coords, const V& v, C&& c) {
  constexpr int m = static_cast<int>(Mdir);
  const Eigen::Index n = v.size();
  Eigen::Matrix<double, m, 1> vl, grad = Eigen::Matrix<double, m, 1>::Zero();
  for (int s = 0; s < m; ++s) vl[s] = v[coords[s]];
  for (Eigen::Index i = 0; i < n; ++i) {
    Eigen::Matrix<double, m, 1> rho = Eigen::Matrix<double, m, 1>::Zero();  // ρ_i along the listed coordinates
    for (Eigen::Index j = 0; j < n; ++j) rho += v[j] * Mq(i, j).derivatives();
    c[i] = rho.dot(vl);
    grad += (0.5 * v[i]) * rho;
  }
  for (int s = 0; s < m; ++s) c[coords[s]] -= grad[s];
}
template <int N, std::size_t Mdir, class Model, class Q, class V, class C>
void coriolis_listed(const Model& model, const std::array<int, Mdir>& coords, const Q& q, const V& v, C&& c) {
  coriolis_listed_of(mass_of<N>(model, seed_listed<N>(q, coords)), coords, v, c);
}
/// mass_and_coriolis through the listed coordinates.
template <int N, std::size_t Mdir, class Model, class Q, class V, class M, class C>
void mass_and_coriolis_listed(const Model& model, const std::array<int, Mdir>& coords, const Q& q, const V& v,
                              M&& mass, C&& c) {
  const auto Mq = mass_of<N>(model, seed_listed<N>(q, coords));
  coriolis_listed_of(Mq, coords, v, c);
  for (Eigen::Index j = 0; j < q.size(); ++j)
    for (Eigen::Index i = 0; i < q.size(); ++i) mass(i, j) = Mq(i, j).value();
}

/// The coordinates among `coords`' complement along which M(q) has a nonzero derivative at q (a
/// check of a model's mass_coordinates: −1 when there is none).
template <int N, class Model, class Q, std::size_t Mdir>
int unlisted_mass_dependence(const Model& model, const Q& q, const std::array<int, Mdir>& coords) {
  const auto Mq = mass_of<N>(model, seed_all<N>(q));
  const Eigen::Index n = q.size();
  for (Eigen::Index k = 0; k < n; ++k) {
    bool listed = false;
    for (int c : coords) listed = listed || c == k;
    if (listed) continue;
    for (Eigen::Index i = 0; i < n; ++i)
      for (Eigen::Index j = 0; j < n; ++j)
        if (derivatives_of(Mq(i, j), n)[k] != 0.0) return static_cast<int>(k);
  }
  return -1;
}

// ----- V(q) and g(q) through the coordinates they depend on (issue 28 item 6) -----
// The same device for the potential and the holonomic constraints: a model may list the
// coordinates V and g depend on (`static constexpr std::array<int, m> potential_coordinates{...}`;
// the bicycle's heights and front contact depend on roll, pitch and steer only). ∇V, ∂g/∂q, vᵀ∇²g v
// and ∇²g w then take m directions instead of n — the listed entries are those of the n-direction
// pass, the others zero.

/// ∇V through the listed coordinates (zero along the others).
template <int N, std::size_t Mdir, class Model, class Q, class G>
void potential_gradient_listed(const Model& model, const std::array<int, Mdir>& coords, const Q& q, G&& g) {
  const auto V = model.potential(seed_listed<N>(q, coords));
  for (Eigen::Index i = 0; i < q.size(); ++i) g[i] = 0.0;
  for (std::size_t s = 0; s < Mdir; ++s) g[coords[s]] = V.derivatives()[s];
}

/// ∂g/∂q through the listed coordinates (k×n; zero columns for the others).
template <int N, int K, std::size_t Mdir, class Model, class Q, class J>
void holonomic_jacobian_listed(const Model& model, Eigen::Index k, const std::array<int, Mdir>& coords, const Q& q,
                               J&& jac) {
  const auto g = holonomic_of<K>(model, k, seed_listed<N>(q, coords));
  jac.setZero();
  for (Eigen::Index a = 0; a < k; ++a)
    for (std::size_t s = 0; s < Mdir; ++s) jac(a, coords[s]) = g[a].derivatives()[s];
}

/// x_i = q_i + δ w_i, plus ε_s for i = coords[s]: ∂g along the listed coordinates and their
/// derivative along w in one pass.
template <int N, std::size_t Mdir, class Q, class W>
Matrix<DualOverDirection<static_cast<int>(Mdir)>, N> seed_hessian_direction_listed(const Q& q, const W& w,
                                                                                  const std::array<int, Mdir>& coords) {
  constexpr int m = static_cast<int>(Mdir);
  const Eigen::Matrix<double, 1, 1> zero(0.0);
  auto x = sized<Matrix<DualOverDirection<m>, N>>(q.size(), 1);
  for (Eigen::Index i = 0; i < q.size(); ++i) {
    Matrix<Dual<1>, m> d;
    for (int s = 0; s < m; ++s) d[s] = Dual<1>(coords[s] == i ? 1.0 : 0.0, zero);
    x[i] = DualOverDirection<m>(Dual<1>(q[i], Eigen::Matrix<double, 1, 1>(w[i])), d);
  }
  return x;
}

/// ∇²V through the listed coordinates: column j = coords[s] from the pass along e_j (m + 1
/// directions), the rows and columns of the others zero — the entries of potential_hessian, bit for
/// bit (each direction of a dual is computed on its own), at m of its n passes.
template <int N, std::size_t Mdir, class Model, class Q, class H>
void potential_hessian_listed(const Model& model, const std::array<int, Mdir>& coords, const Q& q, H&& hess) {
  hess.setZero();
  for (std::size_t s = 0; s < Mdir; ++s) {
    Matrix<double, N> e = Matrix<double, N>::Unit(q.size(), coords[s]);
    const auto V = model.potential(seed_hessian_direction_listed<N>(q, e, coords));
    for (std::size_t t = 0; t < Mdir; ++t) hess(coords[t], coords[s]) = V.derivatives()[t].derivatives()[0];
  }
}

/// holonomic_curvature through the listed coordinates: c_a = vᵀ∇²g_a v, ∇²g_a zero off the listed block.
template <int N, int K, std::size_t Mdir, class Model, class Q, class V, class C>
void holonomic_curvature_listed(const Model& model, Eigen::Index k, const std::array<int, Mdir>& coords, const Q& q,
                                const V& v, C&& c) {
  const auto g = holonomic_of<K>(model, k, seed_hessian_direction_listed<N>(q, v, coords));
  for (Eigen::Index a = 0; a < k; ++a) {
    double sum = 0.0;
    for (std::size_t s = 0; s < Mdir; ++s) sum += g[a].derivatives()[s].derivatives()[0] * v[coords[s]];
    c[a] = sum;
  }
}

/// holonomic_hessian_times through the listed coordinates: row a of (∇²g_a) w, zero off the listed ones.
template <int N, int K, std::size_t Mdir, class Model, class Q, class W, class H>
void holonomic_hessian_times_listed(const Model& model, Eigen::Index k, const std::array<int, Mdir>& coords,
                                    const Q& q, const W& w, H&& hw) {
  const auto g = holonomic_of<K>(model, k, seed_hessian_direction_listed<N>(q, w, coords));
  hw.setZero();
  for (Eigen::Index a = 0; a < k; ++a)
    for (std::size_t s = 0; s < Mdir; ++s) hw(a, coords[s]) = g[a].derivatives()[s].derivatives()[0];
}

/// The first coordinate outside `coords` along which V or g (K rows) has a nonzero derivative at q
/// (a check of a model's potential_coordinates: −1 when there is none).
template <int N, int K, class Model, class Q, std::size_t Mdir>
int unlisted_potential_dependence(const Model& model, Eigen::Index k, const Q& q, const std::array<int, Mdir>& coords) {
  const Eigen::Index n = q.size();
  const auto x = seed_all<N>(q);
  const Matrix<double, N> dV = derivatives_of(model.potential(x), n);
  Matrix<double, N> dg = Matrix<double, N>::Zero(n);  // Σ_a |∂g_a/∂q^j|: one pass of g, not one per j
  if constexpr (K != 0) {
    const auto g = holonomic_of<K>(model, k, x);
    for (Eigen::Index a = 0; a < k; ++a) dg += derivatives_of(g[a], n).cwiseAbs();
  }
  for (Eigen::Index j = 0; j < n; ++j) {
    bool listed = false;
    for (int c : coords) listed = listed || c == j;
    if (!listed && (dV[j] != 0.0 || dg[j] != 0.0)) return static_cast<int>(j);
  }
  return -1;
}

}  // namespace ad
}  // namespace dalembert
