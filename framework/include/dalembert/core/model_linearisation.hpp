#pragma once
// The constrained dynamics of an L-and-A model and their exact linearisation about a steady motion
// in minimal coordinates (issue 28 item 4; generalised from the Whipple bicycle's, whose README
// derives it). The model gives mass(q, M) (or a constant mass(M), or none: M = I), potential(q),
// constraint_matrix(q, A) and, optionally, h holonomic constraints g(q) = 0 —
//   static constexpr int holonomic = h;  void holonomic_constraint(const auto& q, auto&& g) const;
// — detected here by a requires-expression. Everything else comes from automatic differentiation by
// nested one-direction duals (math/nested_duals.hpp), exactly, with no difference quotient; the
// model's functions must therefore run on duals over duals (g on one level deeper): every constant
// lifted into the scalar (`S(m)`, `nested::constant<S>(1.0)`), no copy-initialisation of a scalar
// from a double (README: "The linear_stability study kind").
//
//   constrained_acceleration: the index-1 form of the equations of motion
//       M q̈ + c(q, q̇) + ∇V = Cᵀ λ,     C q̈ + κ(q, q̇) = 0,
//     C = [A; G], G = ∂g/∂q, c = Ṁ q̇ − ½ ∂_q(q̇ᵀ M q̇) (the Coriolis and centrifugal terms),
//     κ = [(∂A/∂q · q̇) q̇ ; q̇ᵀ ∇²g q̇] (the velocity terms Ċ q̇ of the differentiated constraints);
//     solved as one (n + r + h) system, generic in the scalar so that it can itself be differentiated.
//
//   linearise: about (q*, q̇*) in ReducedVariables (core/linearizable.hpp). A perturbation δq_m fixes
//     the dependent coordinates through G δq = 0 (δq = T δq_m; the ignorable ones stay put); the
//     independent speeds u = (q̇_m, q̇_s, q̇_held) fix δq̇ through C δq̇ + ∂_q(C q̇*) δq = 0 and the
//     rows selecting u (δq̇ = W_q δq_m + W_u δu); the accelerations of the independent speeds are the
//     directional derivatives of constrained_acceleration along these perturbations. The result is
//     the state matrix of y = (δq_m, δq̇_m, δq̇_s) and the second-order form in q_m
//         mass δq̈_m + damping δq̇_m + stiffness δq_m = 0,   mass = W_uᵀ M W_u (rows of q̇_m),
//     which for the bicycle is the linearised form of Meijaard et al. (2007), eq. (2.1)/(A 1):
//     M q̈ + v C1 q̇ + (g K0 + v² K2) q = 0: mass = M, damping = v C1, stiffness = g K0 + v² K2.
#include <Eigen/Core>
#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <complex>
#include <stdexcept>
#include <dalembert/core/linearizable.hpp>
#include <dalembert/core/model_rules.hpp>
#include <dalembert/math/forward_derivatives.hpp>
#include <dalembert/math/nested_duals.hpp>
#include <string>
#include <vector>

namespace dalembert::linearisation {

template <class S, int Rows, int Cols = 1>
using Matrix = Eigen::Matrix<S, Rows, Cols>;

/// h, the number of holonomic constraints the model declares (0 without holonomic_constraint).
template <class Model>
constexpr int holonomic_count = [] {
  if constexpr (requires(const Model& m, const Matrix<double, Model::dof>& q, Matrix<double, 1>& g) {
                  Model::holonomic;
                  m.holonomic_constraint(q, g);
                })
    return int(Model::holonomic);
  else
    return 0;
}();

/// Solves K x = b by Gaussian elimination with partial pivoting (on the values), on any scalar: on
/// duals it carries the derivatives of the solution exactly.
template <class S, int K>
Matrix<S, K> solve(Matrix<S, K, K> A, Matrix<S, K> b) {
  using nested::value_of;
  for (int col = 0; col < K; ++col) {
    int pivot = col;
    for (int i = col + 1; i < K; ++i)
      if (std::abs(value_of(A(i, col))) > std::abs(value_of(A(pivot, col)))) pivot = i;
    if (value_of(A(pivot, col)) == 0.0)
      throw std::runtime_error("linearisation: the constrained system [M, -C^T; C, 0] is singular (M not positive definite on the "
                  "constraints, or C = [A; dg/dq] not of full rank)");
    if (pivot != col) {
      A.row(col).swap(A.row(pivot));
      std::swap(b[col], b[pivot]);
    }
    for (int i = col + 1; i < K; ++i) {
      const S f = S(A(i, col) / A(col, col));
      for (int j = col; j < K; ++j) A(i, j) = S(A(i, j) - f * A(col, j));
      b[i] = S(b[i] - f * b[col]);
    }
  }
  Matrix<S, K> x;
  for (int i = K - 1; i >= 0; --i) {
    S s = b[i];
    for (int j = i + 1; j < K; ++j) s = S(s - A(i, j) * x[j]);
    x[i] = S(s / A(i, i));
  }
  return x;
}

// ----- the model's functions and their derivatives, on any scalar S -----

/// x = q + ε d (one direction) as duals over S.
template <class S, int N, class D>
Matrix<nested::Dual1<S>, N> seed_along(const Matrix<S, N>& q, const D& d) {
  Matrix<nested::Dual1<S>, N> x;
  for (int i = 0; i < N; ++i) x[i] = nested::seed(q[i], nested::lift<S>(d[i]));
  return x;
}
template <class S, int N>
Matrix<nested::Dual1<S>, N> seed_unit(const Matrix<S, N>& q, int k) {
  Matrix<nested::Dual1<S>, N> x;
  for (int i = 0; i < N; ++i) x[i] = nested::seed(q[i], nested::constant<S>(i == k ? 1.0 : 0.0));
  return x;
}

/// M(q): the model's M(q), its constant M, or the identity.
template <class Model, class S, int N = Model::dof>
Matrix<S, N, N> mass_matrix(const Model& model, const Matrix<S, N>& q) {
  Matrix<S, N, N> M;
  if constexpr (model_rules::configuration_mass<Model>) {
    model.mass(q, M);
  } else {
    Matrix<double, N, N> M0 = Matrix<double, N, N>::Identity();
    if constexpr (requires(Matrix<double, N, N>& m) { model.mass(m); }) model.mass(M0);
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < N; ++j) M(i, j) = nested::constant<S>(M0(i, j));
  }
  return M;
}

/// g(q) (h entries; none without holonomic constraints).
template <class Model, class S, int N = Model::dof, int H = holonomic_count<Model>>
Matrix<S, H> holonomic_value(const Model& model, const Matrix<S, N>& q) {
  Matrix<S, H> g;
  if constexpr (H > 0) model.holonomic_constraint(q, g);
  return g;
}

/// G = ∂g/∂q (h × n).
template <class Model, class S, int N = Model::dof, int H = holonomic_count<Model>>
Matrix<S, H, N> holonomic_jacobian(const Model& model, const Matrix<S, N>& q) {
  Matrix<S, H, N> G;
  if constexpr (H > 0)
    for (int k = 0; k < N; ++k) {
      Matrix<nested::Dual1<S>, H> out;
      model.holonomic_constraint(seed_unit(q, k), out);
      for (int a = 0; a < H; ++a) G(a, k) = nested::derivative(out[a]);
    }
  return G;
}

/// uᵀ ∇²g_a w for each row a of g: d²/dε dη g(q + ε u + η w) (a dual over a dual).
template <class Model, class S, int N = Model::dof, int H = holonomic_count<Model>, class U, class W>
Matrix<S, H> holonomic_second(const Model& model, const Matrix<S, N>& q, const U& u, const W& w) {
  Matrix<S, H> r;
  if constexpr (H > 0) {
    using D1 = nested::Dual1<S>;
    using D2 = nested::Dual1<D1>;
    Matrix<D2, N> x;
    for (int i = 0; i < N; ++i)
      x[i] = nested::seed(nested::seed(q[i], nested::lift<S>(u[i])),
                          nested::seed(nested::lift<S>(w[i]), nested::constant<S>(0.0)));
    Matrix<D2, H> out;
    model.holonomic_constraint(x, out);
    for (int a = 0; a < H; ++a) r[a] = nested::derivative(nested::derivative(out[a]));
  }
  return r;
}

/// (∂A/∂q · u) w = d/dε A(q + ε u) w (r entries).
template <class Model, class S, int N = Model::dof, int R = Model::constraints, class U, class W>
Matrix<S, R> constraint_second(const Model& model, const Matrix<S, N>& q, const U& u, const W& w) {
  Matrix<nested::Dual1<S>, R, N> A;
  model.constraint_matrix(seed_along(q, u), A);
  Matrix<S, R> r;
  for (int a = 0; a < R; ++a) {
    S s = nested::constant<S>(0.0);
    for (int i = 0; i < N; ++i) s = S(s + nested::derivative(A(a, i)) * nested::lift<S>(w[i]));
    r[a] = s;
  }
  return r;
}

/// c = Ṁ q̇ − ½ ∂_q(q̇ᵀ M q̇) (zero for a constant M).
template <class Model, class S, int N = Model::dof>
Matrix<S, N> coriolis(const Model& model, const Matrix<S, N>& q, const Matrix<S, N>& qd) {
  Matrix<S, N> c;
  for (int i = 0; i < N; ++i) c[i] = nested::constant<S>(0.0);
  if constexpr (model_rules::configuration_mass<Model>) {
    Matrix<nested::Dual1<S>, N, N> Md;
    model.mass(seed_along(q, qd), Md);
    for (int i = 0; i < N; ++i) {
      S s = nested::constant<S>(0.0);
      for (int j = 0; j < N; ++j) s = S(s + nested::derivative(Md(i, j)) * qd[j]);
      c[i] = s;
    }
    const S half = nested::constant<S>(0.5);
    for (int k = 0; k < N; ++k) {
      model.mass(seed_unit(q, k), Md);
      S s = nested::constant<S>(0.0);
      for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j) s = S(s + qd[i] * nested::derivative(Md(i, j)) * qd[j]);
      c[k] = S(c[k] - half * s);
    }
  }
  return c;
}

/// ∇V.
template <class Model, class S, int N = Model::dof>
Matrix<S, N> potential_gradient(const Model& model, const Matrix<S, N>& q) {
  Matrix<S, N> grad;
  for (int k = 0; k < N; ++k) grad[k] = nested::derivative(model.potential(seed_unit(q, k)));
  return grad;
}

template <class S, int N, int R>
struct ConstrainedAcceleration {
  Matrix<S, N> qdd;     // q̈
  Matrix<S, R> lambda;  // multipliers of C = [A; G] (nonholonomic rows first)
};

/// q̈ and λ from M q̈ + c + ∇V = Cᵀ λ, C q̈ + κ = 0 (see the header comment), on any scalar.
template <class Model, class S, int N = Model::dof, int R = Model::constraints, int H = holonomic_count<Model>>
ConstrainedAcceleration<S, N, R + H> constrained_acceleration(const Model& model, const Matrix<S, N>& q,
                                                              const Matrix<S, N>& qd) {
  constexpr int K = N + R + H;
  const Matrix<S, N, N> M = mass_matrix(model, q);
  Matrix<S, R, N> A;
  model.constraint_matrix(q, A);
  const Matrix<S, H, N> G = holonomic_jacobian(model, q);
  const Matrix<S, N> force = coriolis(model, q, qd) + potential_gradient(model, q);
  const Matrix<S, R> kappa_A = constraint_second(model, q, qd, qd);
  const Matrix<S, H> kappa_g = holonomic_second(model, q, qd, qd);
  const S zero = nested::constant<S>(0.0);
  Matrix<S, K, K> KKT;
  Matrix<S, K> rhs;
  for (int i = 0; i < K; ++i)
    for (int j = 0; j < K; ++j) KKT(i, j) = zero;
  for (int i = 0; i < N; ++i) {
    for (int j = 0; j < N; ++j) KKT(i, j) = M(i, j);
    for (int a = 0; a < R; ++a) {
      KKT(i, N + a) = S(-A(a, i));
      KKT(N + a, i) = A(a, i);
    }
    for (int a = 0; a < H; ++a) {
      KKT(i, N + R + a) = S(-G(a, i));
      KKT(N + R + a, i) = G(a, i);
    }
    rhs[i] = S(-force[i]);
  }
  for (int a = 0; a < R; ++a) rhs[N + a] = S(-kappa_A[a]);
  for (int a = 0; a < H; ++a) rhs[N + R + a] = S(-kappa_g[a]);
  const Matrix<S, K> x = solve<S, K>(KKT, rhs);
  ConstrainedAcceleration<S, N, R + H> out;
  out.qdd = x.template head<N>();
  out.lambda = x.template tail<R + H>();
  return out;
}

// ----- linearisation about a steady motion -----

namespace detail {

inline void check_indices(const std::vector<int>& idx, int n, const char* what, std::vector<int>& seen) {
  for (int i : idx) {
    if (i < 0 || i >= n)
      throw std::runtime_error(std::string("linearisation: ") + what + " index " + std::to_string(i) + " is not a coordinate (0.." +
                  std::to_string(n - 1) + ")");
    if (std::find(seen.begin(), seen.end(), i) != seen.end())
      throw std::runtime_error(std::string("linearisation: coordinate ") + std::to_string(i) + " is named twice (" + what + ")");
    seen.push_back(i);
  }
}

}  // namespace detail

/// Checks that `vars` reduces a model of n coordinates, r nonholonomic and h holonomic constraints:
/// h dependent coordinates, n − r − h independent speeds (minimal, speeds, held), no index twice.
inline void check_reduction(const ReducedVariables& vars, int n, int r, int h) {
  if (static_cast<int>(vars.dependent.size()) != h)
    throw std::runtime_error("linearisation: " + std::to_string(vars.dependent.size()) + " dependent coordinates named, but the system has " +
                std::to_string(h) + " holonomic constraints (one dependent coordinate each)");
  const int speeds = static_cast<int>(vars.minimal.size() + vars.speeds.size() + vars.held.size());
  if (speeds != n - r - h)
    throw std::runtime_error("linearisation: " + std::to_string(speeds) + " independent speeds named (minimal, speeds, held), but the "
                "system has n - r - h = " + std::to_string(n - r - h));
  std::vector<int> coords, rates;
  detail::check_indices(vars.minimal, n, "minimal", coords);
  detail::check_indices(vars.dependent, n, "dependent", coords);
  rates = vars.minimal;
  std::vector<int> extra;
  detail::check_indices(vars.speeds, n, "speeds", extra);
  detail::check_indices(vars.held, n, "held", extra);
  for (int i : extra)
    if (std::find(rates.begin(), rates.end(), i) != rates.end())
      throw std::runtime_error("linearisation: the rate of minimal coordinate " + std::to_string(i) + " is named again among the speeds");
}

/// The perturbations of the full state that a reduced perturbation stands for, to first order:
/// δq = T δq_m (T: n × m; g = 0 kept by the dependent coordinates, the ignorable ones unperturbed)
/// and δq̇ = Wq δq_m + Wu δu (n × m, n × nu), u = (q̇_m, q̇_s, q̇_held), which keep C q̇ = 0.
struct TangentMaps {
  Mat T, Wq, Wu;
  std::vector<int> speeds;  // the independent speeds u, as indices into v
};

template <class Model, int N = Model::dof, int R = Model::constraints, int H = holonomic_count<Model>>
TangentMaps tangent_maps(const Model& model, const Matrix<double, N>& q, const Matrix<double, N>& qd,
                         const ReducedVariables& vars) {
  check_reduction(vars, N, R, H);
  const int m = static_cast<int>(vars.minimal.size());
  TangentMaps out;
  // Tangent of g = 0: δq = T δq_m.
  const Matrix<double, H, N> G = holonomic_jacobian(model, q);
  Mat T = Mat::Zero(N, m);
  for (int j = 0; j < m; ++j) T(vars.minimal[j], j) = 1.0;
  if constexpr (H > 0) {
    Mat Gd(H, H), Gm(H, m);
    for (int a = 0; a < H; ++a) {
      for (int b = 0; b < H; ++b) Gd(a, b) = G(a, vars.dependent[b]);
      for (int j = 0; j < m; ++j) Gm(a, j) = G(a, vars.minimal[j]);
    }
    const auto lu = Gd.fullPivLu();
    if (lu.rank() < H)
      throw std::runtime_error(
          "linearisation: the dependent coordinates cannot be solved from g(q) = 0 here (dg/dq restricted to them is "
          "singular)");
    const Mat Td = -lu.solve(Gm);
    for (int j = 0; j < m; ++j)
      for (int b = 0; b < H; ++b) T(vars.dependent[b], j) = Td(b, j);
  }
  // Speeds: E δq̇ = [−∂_q(C q̇*) δq ; δu], E = [C ; rows selecting u = (q̇_m, q̇_s, q̇_held)].
  std::vector<int> speeds = vars.minimal;
  speeds.insert(speeds.end(), vars.speeds.begin(), vars.speeds.end());
  speeds.insert(speeds.end(), vars.held.begin(), vars.held.end());
  const int nu = static_cast<int>(speeds.size());
  Matrix<double, R, N> A;
  model.constraint_matrix(q, A);
  Mat E = Mat::Zero(N, N), DC(R + H, N);
  E.topRows(R) = A;
  E.middleRows(R, H) = G;
  for (int k = 0; k < nu; ++k) E(R + H + k, speeds[k]) = 1.0;
  for (int k = 0; k < N; ++k) {
    const Matrix<double, N> ek = Matrix<double, N>::Unit(k);
    DC.col(k).head(R) = constraint_second(model, q, ek, qd);
    DC.col(k).tail(H) = holonomic_second(model, q, ek, qd);
  }
  const auto Elu = E.fullPivLu();
  if (Elu.rank() < N)
    throw std::runtime_error(
        "linearisation: the named speeds are not independent on the constraints (with C = [A; dg/dq] they do not "
        "determine every velocity)");
  Mat rhs_q = Mat::Zero(N, m), rhs_u = Mat::Zero(N, nu);
  rhs_q.topRows(R + H) = -DC * T;
  rhs_u.bottomRows(nu) = Mat::Identity(nu, nu);
  out.T = T;
  out.Wq = Elu.solve(rhs_q);
  out.Wu = Elu.solve(rhs_u);
  out.speeds = speeds;
  return out;
}

/// Linearises the constrained dynamics about (q*, q̇*) in `vars` (see the header comment). Exact
/// derivatives: one outer dual direction per column. `names` is the layout (q then v names) for
/// Linearisation::names; may be empty.
template <class Model, int N = Model::dof, int R = Model::constraints, int H = holonomic_count<Model>>
Linearisation linearise(const Model& model, const Matrix<double, N>& q, const Matrix<double, N>& qd,
                        const ReducedVariables& vars, const Layout& layout = {}) {
  const TangentMaps tm = tangent_maps(model, q, qd, vars);
  const int m = static_cast<int>(vars.minimal.size()), s = static_cast<int>(vars.speeds.size());
  const int e = static_cast<int>(vars.held.size());
  const int nu = m + s + e;
  using D = nested::Dual1<double>;
  const Mat& T = tm.T;
  const Mat& Wq = tm.Wq;
  const Mat& Wu = tm.Wu;
  const std::vector<int>& speeds = tm.speeds;
  // Accelerations of the independent speeds along each perturbation.
  auto directional = [&](const Vec& dq, const Vec& dqd) {
    const Matrix<D, N> x = seed_along(q, dq), xd = seed_along(qd, dqd);
    const auto acc = constrained_acceleration(model, x, xd);
    Vec out(nu);
    for (int k = 0; k < nu; ++k) out[k] = nested::derivative(acc.qdd[speeds[k]]);
    return out;
  };
  const int nf = m + nu;  // (δq_m, δu)
  Mat J = Mat::Zero(nf, nf);
  J.block(0, m, m, m) = Mat::Identity(m, m);
  for (int j = 0; j < m; ++j) J.block(m, j, nu, 1) = directional(T.col(j), Wq.col(j));
  for (int k = 0; k < nu; ++k) J.block(m, m + k, nu, 1) = directional(Vec::Zero(N), Wu.col(k));

  const Matrix<double, N, N> M = mass_matrix(model, q);
  const Mat Mred = Wu.transpose() * M * Wu;  // nu × nu: the kinetic energy in the independent speeds
  Linearisation out;
  const int ny = 2 * m + s;
  out.state = J.topLeftCorner(ny, ny);
  out.mass = Mred.topLeftCorner(m, m);
  const Mat projected = -Mred.topRows(m) * J.bottomRows(nu);  // rows: q̇_m; columns: (δq_m, δu)
  out.stiffness = projected.leftCols(m);
  out.damping = projected.middleCols(m, m);
  const double scale = std::max(out.state.cwiseAbs().maxCoeff(), 1e-300);
  out.held_coupling = e > 0 ? J.block(0, ny, ny, e).cwiseAbs().maxCoeff() / scale : 0.0;
  out.steady_residual = constrained_acceleration(model, q, qd).qdd.template lpNorm<Eigen::Infinity>();
  if constexpr (H > 0) out.holonomic_residual = holonomic_value(model, q).template lpNorm<Eigen::Infinity>();
  if (static_cast<int>(layout.q.size()) == N && static_cast<int>(layout.v.size()) == N) {
    for (int i : vars.minimal) out.names.push_back(layout.q[i]);
    for (int i : vars.minimal) out.names.push_back(layout.v[i]);
    for (int i : vars.speeds) out.names.push_back(layout.v[i]);
  }
  return out;
}

/// The eigenvalues of a state matrix, sorted by real part, then imaginary part.
inline std::vector<std::complex<double>> eigenvalues(const Mat& state) {
  const Eigen::EigenSolver<Mat> solver(state, false);
  std::vector<std::complex<double>> ev(solver.eigenvalues().data(), solver.eigenvalues().data() + state.rows());
  std::sort(ev.begin(), ev.end(),
            [](auto a, auto b) { return a.real() != b.real() ? a.real() < b.real() : a.imag() < b.imag(); });
  return ev;
}

}  // namespace dalembert::linearisation
