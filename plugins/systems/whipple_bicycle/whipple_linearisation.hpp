#pragma once
// The constrained dynamics of an L-and-A model with holonomic constraints, and its linearisation
// about a steady motion in minimal coordinates (issue 28; written for the Whipple bicycle, generic
// so that it can become the framework's linear_stability code).
//
// A model declares dof = n, constraints = r (A(q) q̇ = 0), holonomic = h (g(q) = 0) and provides
// mass(q, M), potential(q), constraint_matrix(q, A) and holonomic_constraint(q, g), all generic in
// the scalar. Here everything else comes from automatic differentiation (nested one-direction duals:
// nested_duals.hpp), exactly, with no difference quotient:
//
//   constrained_acceleration: the index-1 form of the DAE
//       M q̈ + c(q, q̇) + ∇V = Cᵀ λ,     C q̈ + κ(q, q̇) = 0,
//     C = [A; G], G = ∂g/∂q, c = Ṁ q̇ − ½ ∂_q(q̇ᵀ M q̇) (the Coriolis and centrifugal terms),
//     κ = [(∂A/∂q · q̇) q̇ ; q̇ᵀ ∇²g q̇] (the acceleration-level constraints' velocity terms Ċ q̇);
//     solved as one (n + r + h) system, generic in the scalar so that it can itself be differentiated.
//
//   linearise: about a steady motion (q*, q̇*) (e.g. the bicycle upright at speed v), in the minimal
//     coordinates q_m (e.g. roll and steer) and their speeds. A perturbation δq_m fixes the dependent
//     coordinates q_d through G δq = 0 (the ignorable ones stay put); the independent speeds u = (q̇_m,
//     the extra speeds) fix δq̇ through C δq̇ + ∂_q(C q̇*) δq = 0; the accelerations of the independent
//     speeds are the directional derivatives of constrained_acceleration along these perturbations.
//     The result is the state matrix of y = (δq_m, δq̇_m) and the second-order form
//         mass δq̈_m + damping δq̇_m + stiffness δq_m = 0,   mass = Bᵀ M B (B: q̇ = B u),
//     which for the bicycle is the linearised form of Meijaard et al. (2007),
//     M q̈ + v C1 q̇ + (g K0 + v² K2) q = 0: mass = M, damping = v C1, stiffness = g K0 + v² K2.
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <stdexcept>
#include <vector>

#include "nested_duals.hpp"

namespace dalembert::linear_stability {

template <class S, int Rows, int Cols = 1>
using Mat = Eigen::Matrix<S, Rows, Cols>;

/// Solves K x = b by Gaussian elimination with partial pivoting (on the values), on any scalar:
/// on duals it carries the derivatives of the solution exactly.
template <class S, int K>
Mat<S, K> solve(Mat<S, K, K> A, Mat<S, K> b) {
  using nested::value_of;
  for (int col = 0; col < K; ++col) {
    int pivot = col;
    for (int i = col + 1; i < K; ++i)
      if (std::abs(value_of(A(i, col))) > std::abs(value_of(A(pivot, col)))) pivot = i;
    if (value_of(A(pivot, col)) == 0.0) throw std::runtime_error("linear_stability: singular constrained system");
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
  Mat<S, K> x;
  for (int i = K - 1; i >= 0; --i) {
    S s = b[i];
    for (int j = i + 1; j < K; ++j) s = S(s - A(i, j) * x[j]);
    x[i] = S(s / A(i, i));
  }
  return x;
}

// ----- derivatives of the model's functions, on any scalar S -----

/// x = q + ε d (one direction) as duals over S.
template <class S, int N, class D>
Mat<nested::Dual1<S>, N> seed_along(const Mat<S, N>& q, const D& d) {
  Mat<nested::Dual1<S>, N> x;
  for (int i = 0; i < N; ++i) x[i] = nested::seed(q[i], nested::lift<S>(d[i]));
  return x;
}
template <class S, int N>
Mat<nested::Dual1<S>, N> seed_unit(const Mat<S, N>& q, int k) {
  Mat<nested::Dual1<S>, N> x;
  for (int i = 0; i < N; ++i) x[i] = nested::seed(q[i], nested::constant<S>(i == k ? 1.0 : 0.0));
  return x;
}

/// G = ∂g/∂q (h × n).
template <class Model, class S, int N = Model::dof, int H = Model::holonomic>
Mat<S, H, N> holonomic_jacobian(const Model& model, const Mat<S, N>& q) {
  Mat<S, H, N> G;
  for (int k = 0; k < N; ++k) {
    Mat<nested::Dual1<S>, H> out;
    model.holonomic_constraint(seed_unit(q, k), out);
    for (int a = 0; a < H; ++a) G(a, k) = nested::derivative(out[a]);
  }
  return G;
}

/// uᵀ ∇²g_a w for each row a of g: d²/dε dη g(q + ε u + η w) (a dual over a dual).
template <class Model, class S, int N = Model::dof, int H = Model::holonomic, class U, class W>
Mat<S, H> holonomic_second(const Model& model, const Mat<S, N>& q, const U& u, const W& w) {
  using D1 = nested::Dual1<S>;
  using D2 = nested::Dual1<D1>;
  Mat<D2, N> x;
  for (int i = 0; i < N; ++i)
    x[i] = nested::seed(nested::seed(q[i], nested::lift<S>(u[i])),
                        nested::seed(nested::lift<S>(w[i]), nested::constant<S>(0.0)));
  Mat<D2, H> out;
  model.holonomic_constraint(x, out);
  Mat<S, H> r;
  for (int a = 0; a < H; ++a) r[a] = nested::derivative(nested::derivative(out[a]));
  return r;
}

/// (∂A/∂q · u) w = d/dε A(q + ε u) w (r entries).
template <class Model, class S, int N = Model::dof, int R = Model::constraints, class U, class W>
Mat<S, R> constraint_second(const Model& model, const Mat<S, N>& q, const U& u, const W& w) {
  Mat<nested::Dual1<S>, R, N> A;
  model.constraint_matrix(seed_along(q, u), A);
  Mat<S, R> r;
  for (int a = 0; a < R; ++a) {
    S s = nested::constant<S>(0.0);
    for (int i = 0; i < N; ++i) s = S(s + nested::derivative(A(a, i)) * nested::lift<S>(w[i]));
    r[a] = s;
  }
  return r;
}

/// c = Ṁ q̇ − ½ ∂_q(q̇ᵀ M q̇).
template <class Model, class S, int N = Model::dof>
Mat<S, N> coriolis(const Model& model, const Mat<S, N>& q, const Mat<S, N>& qd) {
  Mat<nested::Dual1<S>, N, N> Md;
  model.mass(seed_along(q, qd), Md);
  Mat<S, N> c;
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
  return c;
}

/// ∇V.
template <class Model, class S, int N = Model::dof>
Mat<S, N> potential_gradient(const Model& model, const Mat<S, N>& q) {
  Mat<S, N> grad;
  for (int k = 0; k < N; ++k) grad[k] = nested::derivative(model.potential(seed_unit(q, k)));
  return grad;
}

template <class S, int N, int R>
struct ConstrainedAcceleration {
  Mat<S, N> qdd;     // q̈
  Mat<S, R> lambda;  // multipliers of C = [A; G] (nonholonomic rows first)
};

/// q̈ and λ from M q̈ + c + ∇V = Cᵀ λ, C q̈ + κ = 0 (see the header comment), on any scalar.
template <class Model, class S, int N = Model::dof, int R = Model::constraints, int H = Model::holonomic>
ConstrainedAcceleration<S, N, R + H> constrained_acceleration(const Model& model, const Mat<S, N>& q,
                                                              const Mat<S, N>& qd) {
  constexpr int K = N + R + H;
  Mat<S, N, N> M;
  model.mass(q, M);
  Mat<S, R, N> A;
  model.constraint_matrix(q, A);
  const Mat<S, H, N> G = holonomic_jacobian(model, q);
  const Mat<S, N> force = coriolis(model, q, qd) + potential_gradient(model, q);
  const Mat<S, R> kappa_A = constraint_second(model, q, qd, qd);
  const Mat<S, H> kappa_g = holonomic_second(model, q, qd, qd);
  const S zero = nested::constant<S>(0.0);
  Mat<S, K, K> KKT;
  Mat<S, K> rhs;
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
  const Mat<S, K> x = solve<S, K>(KKT, rhs);
  ConstrainedAcceleration<S, N, R + H> out;
  out.qdd = x.template head<N>();
  out.lambda = x.template tail<R + H>();
  return out;
}

// ----- linearisation about a steady motion -----

/// Which coordinates are kept. minimal: the minimal coordinates (their speeds are independent);
/// dependent: as many coordinates as g has rows, solved from g(q) = 0; extra_speeds: the further
/// independent speeds (held at their steady values; the linearisation checks they decouple).
/// Every other coordinate is ignorable and left unperturbed: the accelerations of the kept speeds
/// must not depend on it along constraint-consistent velocities (for the bicycle, x, y and the wheel
/// angles appear nowhere, and turning the yaw turns the whole motion).
struct Reduction {
  std::vector<int> minimal, dependent, extra_speeds;
};

struct Linearisation {
  Eigen::MatrixXd state;       // ẏ = state · y, y = (δq_m, δq̇_m): 2m × 2m
  Eigen::MatrixXd mass;        // m × m: mass δq̈_m + damping δq̇_m + stiffness δq_m = 0
  Eigen::MatrixXd damping;
  Eigen::MatrixXd stiffness;
  Eigen::MatrixXd full_state;  // (2m + e)²: y extended by the extra speeds' perturbations
  double coupling = 0.0;       // largest entry coupling the extra speeds to (δq_m, δq̇_m) (0: decoupled)
  Eigen::VectorXd steady_residual;  // q̈ at (q*, q̇*): zero for a steady motion with constant speeds
};

/// Linearises the constrained dynamics about (q*, q̇*) in the minimal coordinates of `reduction`
/// (see the header comment). Exact derivatives: one outer dual direction per column.
template <class Model, int N = Model::dof, int R = Model::constraints, int H = Model::holonomic>
Linearisation linearise(const Model& model, const Mat<double, N>& q, const Mat<double, N>& qd, const Reduction& red) {
  const int m = static_cast<int>(red.minimal.size()), e = static_cast<int>(red.extra_speeds.size());
  if (static_cast<int>(red.dependent.size()) != H || R + H + m + e != N)
    throw std::invalid_argument("linear_stability: the reduction must name h dependent coordinates and n - r - h speeds");
  using D = nested::Dual1<double>;
  // Tangent of g = 0: δq = T δq_m.
  const Mat<double, H, N> G = holonomic_jacobian(model, q);
  Eigen::MatrixXd T = Eigen::MatrixXd::Zero(N, m);
  {
    Eigen::MatrixXd Gd(H, H), Gm(H, m);
    for (int a = 0; a < H; ++a) {
      for (int b = 0; b < H; ++b) Gd(a, b) = G(a, red.dependent[b]);
      for (int j = 0; j < m; ++j) Gm(a, j) = G(a, red.minimal[j]);
    }
    const Eigen::MatrixXd Td = -Gd.fullPivLu().solve(Gm);
    for (int j = 0; j < m; ++j) {
      T(red.minimal[j], j) = 1.0;
      for (int b = 0; b < H; ++b) T(red.dependent[b], j) = Td(b, j);
    }
  }
  // Speeds: E δq̇ = [−∂_q(C q̇*) δq ; δu], E = [C ; rows selecting u = (q̇_m, extra speeds)].
  std::vector<int> speeds = red.minimal;
  speeds.insert(speeds.end(), red.extra_speeds.begin(), red.extra_speeds.end());
  Mat<double, R, N> A;
  model.constraint_matrix(q, A);
  Eigen::MatrixXd E = Eigen::MatrixXd::Zero(N, N), DC(R + H, N);
  E.topRows(R) = A;
  E.middleRows(R, H) = G;
  for (int k = 0; k < m + e; ++k) E(R + H + k, speeds[k]) = 1.0;
  for (int k = 0; k < N; ++k) {
    const Mat<double, N> ek = Mat<double, N>::Unit(k);
    DC.col(k).head(R) = constraint_second(model, q, ek, qd);
    DC.col(k).tail(H) = holonomic_second(model, q, ek, qd);
  }
  const auto Elu = E.fullPivLu();
  Eigen::MatrixXd rhs_q = Eigen::MatrixXd::Zero(N, m), rhs_u = Eigen::MatrixXd::Zero(N, m + e);
  rhs_q.topRows(R + H) = -DC * T;
  rhs_u.bottomRows(m + e) = Eigen::MatrixXd::Identity(m + e, m + e);
  const Eigen::MatrixXd Wq = Elu.solve(rhs_q), Wu = Elu.solve(rhs_u);
  // Accelerations of the independent speeds along each perturbation.
  auto directional = [&](const Eigen::VectorXd& dq, const Eigen::VectorXd& dqd) {
    const Mat<D, N> x = seed_along(q, dq), xd = seed_along(qd, dqd);
    const auto acc = constrained_acceleration(model, x, xd);
    Eigen::VectorXd r(m + e);
    for (int k = 0; k < m + e; ++k) r[k] = nested::derivative(acc.qdd[speeds[k]]);
    return r;
  };
  const int ny = 2 * m + e;
  Eigen::MatrixXd J = Eigen::MatrixXd::Zero(ny, ny);
  J.block(0, m, m, m) = Eigen::MatrixXd::Identity(m, m);
  for (int j = 0; j < m; ++j) J.block(m, j, m + e, 1) = directional(T.col(j), Wq.col(j));
  for (int k = 0; k < m + e; ++k) J.block(m, m + k, m + e, 1) = directional(Eigen::VectorXd::Zero(N), Wu.col(k));

  Mat<double, N, N> M;
  model.mass(q, M);
  const Eigen::MatrixXd Mred = Wu.transpose() * M * Wu;  // (m + e)², B = Wu
  Linearisation out;
  out.full_state = J;
  out.state = J.topLeftCorner(2 * m, 2 * m);
  out.mass = Mred.topLeftCorner(m, m);
  const Eigen::MatrixXd projected = -Mred * J.bottomRows(m + e);  // rows: u; columns: y
  out.stiffness = projected.topLeftCorner(m, m);
  out.damping = projected.block(0, m, m, m);
  double coupling = 0.0;
  if (e > 0) {
    coupling = std::max(coupling, Mred.topRightCorner(m, e).cwiseAbs().maxCoeff());
    coupling = std::max(coupling, J.block(m, 2 * m, m, e).cwiseAbs().maxCoeff());
    coupling = std::max(coupling, J.block(2 * m, 0, e, 2 * m).cwiseAbs().maxCoeff());
  }
  out.coupling = coupling;
  out.steady_residual = constrained_acceleration(model, q, qd).qdd;
  return out;
}

// ----- eigenvalues and critical parameter values -----

/// The eigenvalues of a state matrix, sorted by real part, then imaginary part.
inline std::vector<std::complex<double>> eigenvalues(const Eigen::MatrixXd& state) {
  const Eigen::EigenSolver<Eigen::MatrixXd> solver(state, false);
  std::vector<std::complex<double>> ev(solver.eigenvalues().data(), solver.eigenvalues().data() + state.rows());
  std::sort(ev.begin(), ev.end(),
            [](auto a, auto b) { return a.real() != b.real() ? a.real() < b.real() : a.imag() < b.imag(); });
  return ev;
}

/// A root of f in [a, b] (f(a) f(b) ≤ 0): the Illinois variant of regula falsi, bisecting whenever it
/// stalls, until the bracket is a few ulps wide. Returns the end of the final bracket with the
/// smaller |f|.
template <class F>
double find_root(F&& f, double a, double b) {
  double fa = f(a), fb = f(b);
  if (fa == 0.0) return a;
  if (fb == 0.0) return b;
  if ((fa > 0.0) == (fb > 0.0)) throw std::invalid_argument("linear_stability::find_root: no sign change in the bracket");
  double wa = fa, wb = fb;  // the Illinois weights: f at the ends, halved on a retained end
  int side = 0;
  for (int it = 0; it < 200; ++it) {
    if (std::abs(b - a) <= 4.0 * std::numeric_limits<double>::epsilon() * std::max(std::abs(a), std::abs(b))) break;
    double x = (a * wb - b * wa) / (wb - wa);
    if (!(x > std::min(a, b) && x < std::max(a, b)) || it % 8 == 7) x = 0.5 * (a + b);  // safeguard
    const double fx = f(x);
    if (fx == 0.0) return x;
    if ((fx > 0.0) == (fb > 0.0)) {
      b = x;
      fb = wb = fx;
      if (side == -1) wa *= 0.5;
      side = -1;
    } else {
      a = x;
      fa = wa = fx;
      if (side == 1) wb *= 0.5;
      side = 1;
    }
  }
  return std::abs(fa) < std::abs(fb) ? a : b;
}

}  // namespace dalembert::linear_stability
