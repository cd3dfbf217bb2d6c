#include <dalembert/study/derivative_check.hpp>

#include <Eigen/Eigenvalues>
#include <Eigen/SVD>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <dalembert/core/automatic_derivatives.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/affine_constraint.hpp>
#include <dalembert/core/time_dependent_potential.hpp>
#include <dalembert/core/nonholonomic_field.hpp>
#include <dalembert/math/explicit_runge_kutta.hpp>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <sstream>

namespace dalembert {

namespace {

std::string number(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%+.6g", x);
  return buf;
}

std::string plain(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

/// Names entries of q (both indices of the n×n arrays of a Lagrangian system range over q).
struct EntryNames {
  std::vector<std::string> q;
  std::string index(int i) const { return "[" + (i < static_cast<int>(q.size()) ? q[i] : std::to_string(i)) + "]"; }
};

/// What a comparison compares: a hand-written derivative with AD or with central differences, or
/// (a derivative the framework derives) AD with central differences — which catches a model
/// function that is not differentiable as written (a cast to double, a branch on a dual number).
enum class Source { HandVsAD, HandVsDifference, ADVsDifference };

const char* reference_name(Source s) {
  switch (s) {
    case Source::HandVsAD: return "AD";
    case Source::HandVsDifference: return "central difference";
    case Source::ADVsDifference: return "AD vs central difference";
  }
  return "";
}

/// Collects comparisons: per function the worst error, and one finding (the worst) per function.
class Collector {
 public:
  Collector(double tolerance_ad, double tolerance_fd) : tol_ad_(tolerance_ad), tol_fd_(tolerance_fd) {}

  /// Compares hand with reference entrywise; `entry(i, j)` names entry (i, j) and `scale(i, j)` is
  /// its natural scale (see "steps and scales" below): the error is |hand − ref| relative to the
  /// largest of |hand|, |ref| and that scale, so an entry that vanishes at the state does not turn
  /// round-off into a relative error of 1, and a small entry is not hidden behind a large one.
  void compare(const std::string& function, Source source, const Mat& hand, const Mat& ref,
               const std::function<std::string(int, int)>& entry, const Mat& scale) {
    double worst = 0.0;
    int wi = 0, wj = 0;
    for (int i = 0; i < hand.rows(); ++i)
      for (int j = 0; j < hand.cols(); ++j) {
        const double h = hand(i, j), r = ref(i, j);
        double e;
        if (!std::isfinite(h) || !std::isfinite(r))
          e = std::numeric_limits<double>::infinity();
        else {
          const double denom = std::max({std::abs(h), std::abs(r), scale(i, j)});
          e = denom > 0.0 ? std::abs(h - r) / denom : 0.0;
        }
        if (e > worst || (std::isinf(e) && !std::isinf(worst))) worst = e, wi = i, wj = j;
      }
    auto& s = summary(function, reference_name(source));
    s.states += 1;
    s.worst_relative_error = std::max(s.worst_relative_error, worst);
    if (worst > (source == Source::HandVsAD ? tol_ad_ : tol_fd_))
      add_finding(function, entry(wi, wj), hand(wi, wj), ref(wi, wj), worst, source);
  }

  /// A property failing (SPD, rank, flow): `value` against `expected`.
  void property(const std::string& function, const std::string& what, bool pass, double measure, double value,
                double expected, const std::string& message) {
    auto& s = summary(function, what);
    s.states += 1;
    s.worst_relative_error = std::max(s.worst_relative_error, measure);
    // Least favourable: the largest asymmetry (expected 0), else the smallest eigenvalue, ratio or order.
    const bool larger_is_worse = expected == 0.0 && (function == "mass_symmetric" || function == "holonomic_residual");
    if (!s.measured || (larger_is_worse ? value > *s.measured : value < *s.measured)) s.measured = value;
    if (!pass) {
      DerivativeFinding f{function, "", value, expected, measure, message};
      keep(std::move(f));
    }
  }

  DerivativeCheckResult result() && {
    DerivativeCheckResult r;
    r.summary = std::move(summary_);

    // In the order checked: a wrong ∂A/∂q comes before the contractions formed from it.
    for (const auto& s : r.summary)
      if (auto it = worst_.find(s.function); it != worst_.end()) r.findings.push_back(std::move(it->second));
    return r;
  }

 private:
  FunctionSummary& summary(const std::string& function, const std::string& reference) {
    for (auto& s : summary_)
      if (s.function == function) return s;
    summary_.push_back(FunctionSummary{function, reference, 0.0, 0, std::nullopt});
    return summary_.back();
  }
  void add_finding(const std::string& function, const std::string& entry, double hand, double ref, double err,
                   Source source) {
    std::string msg = function + entry + (source == Source::ADVsDifference ? ": AD " : ": hand ") + number(hand) +
                      " vs " + (source == Source::HandVsAD ? "AD " : "central difference ") + number(ref) +
                      " (relative error " + plain(err) + ")";
    if (source == Source::ADVsDifference && std::isfinite(hand) && std::isfinite(ref))  // else the values say it
      msg += lost_ad_term(hand, ref, err)
                 ? "; is the model function generic in the scalar (no cast to double)?"
                 : "; too small for a derivative AD lost: is the function smooth near this state?";
    keep(DerivativeFinding{function, entry, hand, ref, err, std::move(msg)});
  }
  /// Whether AD disagreeing with a central difference most likely lost a term — a model function
  /// not generic in the scalar (a cast to double, a branch on a dual number) drops the derivative of
  /// everything computed through it: AD is then exactly 0 where the difference is not, or off by
  /// O(1) of the entry (1e-2 or more). A smooth function's Romberg difference errs by far less
  /// (~(δ/L)⁸, L the length on which it varies), so a smaller disagreement points at a function that
  /// is not smooth at the state, or varies on a scale not much longer than the step.
  static bool lost_ad_term(double ad, double difference, double err) {
    return err >= 1e-2 || (ad == 0.0 && difference != 0.0);
  }
  void keep(DerivativeFinding f) {
    auto it = worst_.find(f.function);
    if (it == worst_.end() || f.relative_error > it->second.relative_error) worst_[f.function] = std::move(f);
  }

  double tol_ad_, tol_fd_;
  std::vector<FunctionSummary> summary_;
  std::map<std::string, DerivativeFinding> worst_;
};

// ----- steps and scales, per coordinate -----
// Each coordinate q^j has its own scale s_j and its own difference step δ_j (README, "Checking a
// system's derivatives"); one step for all, scaled by the largest |q^j|, differenced an angle by
// 0.4 rad when a position was 40 and refused valid states far from the origin (issue 26).
//
// s_j = max(1, |q^j|) bounds the length L_j on which a function of q^j changes by O(1) of itself:
// 1 rad for an angle, |q^j| for a power of a position far from the origin, 1 near it. An entry
// ∂f_i/∂q^j is judged relative to max(|hand|, |reference|, |f|/s_j), |f| the largest component of
// the function differentiated at the state: |f|/s_j ≤ |f|/L_j, the size of a derivative along q^j
// that is not small, so the floor hides no error that matters; and it is what a difference can
// resolve, its round-off ε|f|/δ_j being at most 2e-10 of |f|/s_j with the steps below. (An entry's
// own |f_i| would be no floor: a component that vanishes at the state is a sum of larger terms.)
//
// δ_j = 1e-2·max(1, |q^j|/1e4): 1e-2 against the 1 rad on which an angle varies however far it has
// wound gives a fourth-order Richardson error (δ/L)⁴/480 ≈ 2e-11 (the 2.1e-11 measured on the rolling disk;
// the Romberg table below is of order δ⁸), and
// is exact for a polynomial of degree four in a position; up to |q^j| = 1e4 rounding q^j ± δ_j and f
// costs ε·s_j/δ_j ≤ 2e-10, and beyond it the step grows with |q^j| so that it stays so.

double coordinate_scale(double x) { return std::max(1.0, std::abs(x)); }
double coordinate_step(double x) { return 1e-2 * std::max(1.0, std::abs(x) / 1e4); }

Vec coordinate_scales(const Vec& x) { return x.unaryExpr([](double xj) { return coordinate_scale(xj); }); }

/// The step along a direction w: the largest ε that moves no coordinate by more than its own step.
double step_along(const Vec& x, const Vec& w) {
  double eps = std::numeric_limits<double>::infinity();
  for (Eigen::Index j = 0; j < x.size(); ++j)
    if (w[j] != 0.0) eps = std::min(eps, coordinate_step(x[j]) / std::abs(w[j]));
  return eps;
}

/// How fast w moves the state relative to its coordinates' scales, max_j |w_j|/s_j: a derivative of
/// f along w has the natural scale |f|·rate.
double rate_along(const Vec& x, const Vec& w) { return (w.cwiseAbs().array() / coordinate_scales(x).array()).maxCoeff(); }

/// The natural scales of ∂f/∂q (rows × n, column j: ∂/∂q^j) for f of largest component `size`.
Mat per_column(double size, const Vec& q, Eigen::Index rows) {
  return coordinate_scales(q).cwiseInverse().transpose().replicate(rows, 1) * size;
}

/// The natural scales of a vector indexed by q whose entry i is ∂/∂q^i of a scalar of size `size`.
Mat per_coordinate(double size, const Vec& q) { return Mat(coordinate_scales(q).cwiseInverse() * size); }

// ----- Richardson-extrapolated central differences -----
// D(δ) = (f(x+δe) − f(x−δe)) / 2δ has error O(δ²); a Romberg table on δ, δ/2, δ/4, δ/8 removes the
// δ², δ⁴ and δ⁶ terms (column k: (4^k T_{k−1}(δ/2) − T_{k−1}(δ))/(4^k − 1)), error O(δ⁸). The high
// order is for functions that vary on a length well below 1 in some coordinate: the rattleback's
// contact point moves by a²/c = 2 m per radian of tilt at rest, 10 times its height, so the
// fourth-order (4D(δ/2) − D(δ))/3 at δ = 1e-2 of a unit quaternion was off by 1e-4. Round-off grows
// with the smallest step δ/8: ε|f|/(δ/8) ≤ 2e-9 of |f|/s_j, far below the 1e-6 tolerance.

using ArrayFn = std::function<Mat(const Vec&)>;

Mat directional(const ArrayFn& f, const Vec& x, const Vec& e, double delta) {
  auto central = [&](double d) -> Mat { return (f(x + d * e) - f(x - d * e)) / (2.0 * d); };
  constexpr int kLevels = 4;
  std::array<Mat, kLevels> T;
  for (int i = 0; i < kLevels; ++i) T[i] = central(delta / double(1 << i));
  for (int k = 1; k < kLevels; ++k) {
    const double w = std::pow(4.0, k);
    for (int i = 0; i + k < kLevels; ++i) T[i] = (w * T[i + 1] - T[i]) / (w - 1.0);
  }
  return T[0];
}

/// d/dε f(x + εw) at ε = 0, each coordinate moved by at most its own step; zero for w = 0.
Mat along(const ArrayFn& f, const Vec& x, const Vec& w) {
  if (w.cwiseAbs().maxCoeff() > 0.0) return directional(f, x, w, step_along(x, w));
  const Mat fx = f(x);
  return Mat::Zero(fx.rows(), fx.cols());
}

/// Column j of the result: ∂f/∂x^j (f vector-valued), differenced with x^j's own step.
Mat jacobian(const ArrayFn& f, const Vec& x) {
  const int n = static_cast<int>(x.size());
  Mat J;
  for (int j = 0; j < n; ++j) {
    Vec e = Vec::Zero(n);
    e[j] = 1.0;
    Mat col = directional(f, x, e, coordinate_step(x[j]));
    if (j == 0) J.resize(col.size(), n);
    J.col(j) = Eigen::Map<const Vec>(col.data(), col.size());
  }
  return J;
}

// ----- the function families -----

struct Context {
  const LagrangianSystem& sys;
  const AutomaticDerivatives* ad;
  int n, r;
  EntryNames names;
  Collector& out;
  std::vector<std::string> hand;  // of an AutomaticDerivatives system: the closed forms it writes

  /// A hand-written `function` of an AD system is compared with AD; everything else with central
  /// differences (a derivative an AD system does not write is then AD's own value).
  Source source(const std::string& function) const {
    if (!ad) return Source::HandVsDifference;
    return std::find(hand.begin(), hand.end(), function) != hand.end() ? Source::HandVsAD : Source::ADVsDifference;
  }
};

/// A(x) as a function for the difference quotients.
Mat constraint_matrix_at(const Context& c, const Vec& x) {
  Mat A(c.r, c.n);
  c.sys.constraint_matrix(x, A);
  return A;
}

/// |A_a|∞ for each row a of A(q): the size of constraint a.
Vec constraint_row_sizes(const Context& c, const Vec& q) {
  return constraint_matrix_at(c, q).cwiseAbs().rowwise().maxCoeff();
}

double largest_mass_entry(const Context& c, const Vec& q) {
  Mat M(c.n, c.n);
  c.sys.mass(q, M);
  return M.cwiseAbs().maxCoeff();
}

std::string vec_entry(const EntryNames& nm, int i) { return nm.index(i); }

void check_potential(Context& c, const Vec& q) {
  Vec g(c.n);
  c.sys.potential_gradient(q, g);
  const Source sg = c.source("potential_gradient");
  Vec gref(c.n);
  if (sg == Source::HandVsAD)
    c.ad->automatic_potential_gradient(q, gref);
  else
    gref = jacobian([&](const Vec& x) { Mat v(1, 1); v(0, 0) = c.sys.potential(x); return v; }, q).transpose();
  c.out.compare("potential_gradient", sg, g, gref, [&](int i, int) { return vec_entry(c.names, i); },
                per_coordinate(std::abs(c.sys.potential(q)), q));

  Mat H(c.n, c.n), Href(c.n, c.n);
  c.sys.potential_hessian(q, H);
  const Source sh = c.source("potential_hessian");
  if (sh == Source::HandVsAD)
    c.ad->automatic_potential_hessian(q, Href);
  else
    Href = jacobian([&](const Vec& x) { Vec gx(c.n); c.sys.potential_gradient(x, gx); return Mat(gx); }, q);
  c.out.compare("potential_hessian", sh, H, Href, [&](int i, int j) { return c.names.index(i) + c.names.index(j); },
                per_column(g.cwiseAbs().maxCoeff(), q, c.n));
}

void check_constraint_gradient(Context& c, const Vec& q) {
  const Source src = c.source("constraint_gradient");
  const Vec rows = c.r > 0 ? constraint_row_sizes(c, q) : Vec();
  for (int a = 0; a < c.r; ++a) {
    Mat G(c.n, c.n), Gref(c.n, c.n);
    c.sys.constraint_gradient(q, a, G);
    if (src == Source::HandVsAD) {
      c.ad->automatic_constraint_gradient(q, a, Gref);
    } else {
      // Column j: ∂(row a of A)/∂q^j.
      Gref = jacobian([&](const Vec& x) { return Mat(constraint_matrix_at(c, x).row(a).transpose()); }, q);
    }
    const std::string prefix = "(a=" + std::to_string(a) + ")";
    c.out.compare("constraint_gradient", src, G, Gref,
                  [&](int i, int j) { return prefix + c.names.index(i) + c.names.index(j); },
                  per_column(rows[a], q, c.n));
  }
}

/// Ṁv − ½∂_q(vᵀMv) from M(q) by central differences.
Vec coriolis_by_differences(const Context& c, const Vec& q, const Vec& v) {
  auto mass = [&](const Vec& x) { Mat M(c.n, c.n); c.sys.mass(x, M); return M; };
  const Vec cv = along(mass, q, v) * v;
  Mat dT = jacobian([&](const Vec& x) { Mat e(1, 1); e(0, 0) = v.dot(mass(x) * v); return e; }, q);
  return cv - 0.5 * dT.transpose();
}

void check_coriolis(Context& c, const Vec& q, const Vec& v) {
  if (c.sys.constant_mass() && c.source("coriolis") != Source::HandVsAD) return;
  const Source src = c.source("coriolis");
  Vec cor(c.n), ref(c.n);
  c.sys.coriolis(q, v, cor);
  if (src == Source::HandVsAD)
    c.ad->automatic_coriolis(q, v, ref);
  else
    ref = coriolis_by_differences(c, q, v);
  // Ṁv is a derivative of M along v, times v; ½∂_q(vᵀMv) one along each q^i.
  const double Mv = largest_mass_entry(c, q) * v.cwiseAbs().maxCoeff();
  const Mat scale = Mat::Constant(c.n, 1, Mv * rate_along(q, v)) + per_coordinate(Mv * v.cwiseAbs().maxCoeff(), q);
  c.out.compare("coriolis", src, cor, ref, [&](int i, int) { return vec_entry(c.names, i); }, scale);
}

/// ½∂_q(vᵀM(q)v), which the discrete Lagrangians of an M(q) need (issue 14), against central
/// differences of vᵀM(q)v.
void check_kinetic_gradient(Context& c, const Vec& q, const Vec& v) {
  if (c.sys.constant_mass()) return;
  Vec k(c.n);
  c.sys.kinetic_gradient(q, v, k);
  auto kinetic = [&](const Vec& x) { Mat M(c.n, c.n); c.sys.mass(x, M); Mat e(1, 1); e(0, 0) = 0.5 * v.dot(M * v); return e; };
  const Vec ref = jacobian(kinetic, q).transpose();
  const double vmax = v.cwiseAbs().maxCoeff();
  c.out.compare("kinetic_gradient", c.source("kinetic_gradient"), k, ref, [&](int i, int) { return vec_entry(c.names, i); },
                per_coordinate(largest_mass_entry(c, q) * vmax * vmax, q));
}

// The contractions an AD system forms (closed form, or AD along one direction); a system without
// AD forms them from constraint_gradient, checked above.
void check_contractions(Context& c, const Vec& q, const Vec& v) {
  if (!c.ad || c.r == 0) return;
  // Formed from a hand-written constraint_gradient, a contraction is hand-written too.
  auto source = [&](const std::string& f) {
    return c.source("constraint_gradient") == Source::HandVsAD ? Source::HandVsAD : c.source(f);
  };
  const Vec rows = constraint_row_sizes(c, q) * v.cwiseAbs().maxCoeff();  // |A_a|∞·|v|∞: the size of A(q)v
  const Source sk = source("curvature");
  Vec k(c.r), kref(c.r);
  c.ad->model_curvature(q, v, k);
  if (sk == Source::HandVsAD)
    c.ad->automatic_curvature(q, v, kref);
  else  // d/dε A(q + εv) v
    kref = along([&](const Vec& x) { return constraint_matrix_at(c, x); }, q, v) * v;
  c.out.compare("curvature", sk, k, kref, [](int a, int) { return "(a=" + std::to_string(a) + ")"; },
                Mat(rows * rate_along(q, v)));
  const Source sd = source("constraint_derivative");
  Mat D(c.r, c.n), Dref(c.r, c.n);
  c.ad->model_constraint_derivative(q, v, D);
  if (sd == Source::HandVsAD)
    c.ad->automatic_constraint_derivative(q, v, Dref);
  else  // ∂/∂q^j (A(q)v)
    Dref = jacobian([&](const Vec& x) { return Mat(constraint_matrix_at(c, x) * v); }, q);
  const Mat per_entry = rows * coordinate_scales(q).cwiseInverse().transpose();  // row a, column j: |A_a||v|/s_j
  c.out.compare("constraint_derivative", sd, D, Dref,
                [&](int a, int j) { return "(a=" + std::to_string(a) + ")" + c.names.index(j); }, per_entry);
}

// Holonomic constraints g(q) = 0 (issue 28): the rows ∂g/∂q of the distribution (the last k of
// constraint_matrix, what every scheme uses; AD's for an L-and-A system) against central differences
// of g itself, each entry judged against its row's largest |∂g_a/∂q^j| (g vanishes on the manifold,
// so g's own size is no scale). Their second derivatives ∇²g are constraint_gradient's last rows,
// and the contractions vᵀ∇²g v, ∇²g w its curvature and constraint_derivative, checked above.
void check_holonomic_jacobian(Context& c, const Vec& q) {
  const int k = c.sys.holonomic_count();
  if (k == 0) return;
  const Mat J = constraint_matrix_at(c, q).bottomRows(k);
  const Mat Jref = jacobian([&](const Vec& x) { Vec g(k); c.sys.holonomic(x, g); return Mat(g); }, q);
  Mat J2(k, c.n);
  c.sys.holonomic_jacobian(q, J2);
  const Mat rows = J.cwiseAbs().rowwise().maxCoeff().replicate(1, c.n);
  const Source src = c.ad ? Source::ADVsDifference : Source::HandVsDifference;
  auto entry = [&](int a, int j) { return "(g" + std::to_string(a) + ")" + c.names.index(j); };
  c.out.compare("holonomic_jacobian", src, J, Jref, entry, rows);
  // holonomic_jacobian() is the same matrix as the rows of constraint_matrix (a plain
  // LagrangianSystem may write both).
  c.out.compare("holonomic_jacobian_rows", src, J2, J, entry, rows);
}

// Moving constraints A(q)v + b(t, q) = 0 (issue 30): ∂b/∂q and ∂b/∂t (AD's for an L-and-A model)
// against central differences of b, entries judged against |b|/s_j (|b|/max(1, |t|) for ∂b/∂t) and
// their row's largest entry; ḃ = ∂b/∂t + (∂b/∂q)v, the field's term, against the difference of b
// along (1, v) in (t, q).
void check_affine(Context& c, const State& s) {
  const auto* affine = affine_constraint_of(c.sys);
  if (!affine) return;
  const Source src = c.ad ? Source::ADVsDifference : Source::HandVsDifference;
  auto b_at = [&](double t, const Vec& x) { Vec b(c.r); affine->affine_term(t, x, b); return b; };
  const double size = std::max(b_at(s.t, s.q).cwiseAbs().maxCoeff(), 1e-300);
  Mat B(c.r, c.n);
  affine->affine_jacobian(s.t, s.q, B);
  const Mat Bref = jacobian([&](const Vec& x) { return Mat(b_at(s.t, x)); }, s.q);
  const Mat rows = B.cwiseAbs().rowwise().maxCoeff().replicate(1, c.n).cwiseMax(per_column(size, s.q, c.r));
  c.out.compare("affine_jacobian", src, B, Bref,
                [&](int a, int j) { return "(b" + std::to_string(a) + ")" + c.names.index(j); }, rows);
  // t as a one-coordinate vector, for the difference quotient in t.
  auto in_t = [&](const Vec& t) { return Mat(b_at(t[0], s.q)); };
  const Vec t0 = Vec::Constant(1, s.t);
  Vec bt(c.r), bdot(c.r);
  affine->affine_time_derivative(s.t, s.q, bt);
  const Mat btref = jacobian(in_t, t0);
  const Mat t_scale = Mat::Constant(c.r, 1, size / coordinate_scale(s.t));
  c.out.compare("affine_time_derivative", src, bt, btref, [&](int a, int) { return "(b" + std::to_string(a) + ")[t]"; },
                t_scale);
  // ḃ along (1, v): the sum of the two references (each already checked against b).
  affine->affine_rate(s.t, s.q, s.v, bdot);
  const Mat bdot_ref = Bref * s.v + btref;
  const double rate = std::max(rate_along(s.q, s.v), 1.0 / coordinate_scale(s.t));
  c.out.compare("affine_rate", src, bdot, bdot_ref, [&](int a, int) { return "(b" + std::to_string(a) + ")"; },
                Mat::Constant(c.r, 1, size * rate));
}

// A potential U(t, q) that changes in time (issue 30): ∂U/∂q and ∂U/∂t (AD's for an L-and-A model)
// against central differences of U, judged against |U|/s_j (|U|/max(1, |t|) for ∂U/∂t), as ∇V is.
void check_time_potential(Context& c, const State& s) {
  const auto* U = time_dependent_potential_of(c.sys);
  if (!U) return;
  const Source src = c.ad ? Source::ADVsDifference : Source::HandVsDifference;
  auto U_at = [&](double t, const Vec& x) { Mat u(1, 1); u(0, 0) = U->time_potential(t, x); return u; };
  const double size = std::max(std::abs(U->time_potential(s.t, s.q)), 1e-300);
  Vec g(c.n);
  U->time_potential_gradient(s.t, s.q, g);
  const Vec gref = jacobian([&](const Vec& x) { return U_at(s.t, x); }, s.q).transpose();
  c.out.compare("time_potential_gradient", src, g, gref, [&](int i, int) { return vec_entry(c.names, i); },
                per_coordinate(size, s.q));
  const Vec t0 = Vec::Constant(1, s.t);
  const Mat rate = Mat::Constant(1, 1, U->time_potential_rate(s.t, s.q));
  const Mat rate_ref = jacobian([&](const Vec& t) { return U_at(t[0], s.q); }, t0);
  c.out.compare("time_potential_rate", src, rate, rate_ref, [](int, int) { return std::string("[t]"); },
                Mat::Constant(1, 1, size / coordinate_scale(s.t)));
}

/// ‖g(q)‖∞ at the given state, against the tolerance of a state on the manifold.
void check_holonomic_residual(Context& c, const State& s) {
  if (c.sys.holonomic_count() == 0) return;
  const double g = c.sys.holonomic_residual(s.q), tol = holonomic_tolerance(s);
  c.out.property("holonomic_residual", "|g(q)| at the state", g <= tol, g <= tol ? 0.0 : 1.0, g, 0.0,
                 "holonomic_residual: |g(q)| = " + plain(g) + " at the state, above " + plain(tol) +
                     ": the state is off the holonomic constraints");
}

void check_mass(Context& c, const Vec& q) {
  Mat M(c.n, c.n);
  c.sys.mass(q, M);
  const double scale = std::max(M.cwiseAbs().maxCoeff(), std::numeric_limits<double>::min());
  const double asym = (M - M.transpose()).cwiseAbs().maxCoeff() / scale;
  c.out.property("mass_symmetric", "M = Mᵀ", asym <= 1e-12, asym, asym, 0.0,
                 "mass: M(q) not symmetric (relative asymmetry " + plain(asym) + ")");
  Eigen::SelfAdjointEigenSolver<Mat> eig(0.5 * (M + M.transpose()), Eigen::EigenvaluesOnly);
  const double lmin = M.allFinite() ? eig.eigenvalues().minCoeff() : std::numeric_limits<double>::quiet_NaN();
  const bool spd = lmin > 1e-12 * scale;
  c.out.property("mass_positive_definite", "λ_min(M) > 0", spd, spd ? 0.0 : 1.0, lmin, 0.0,
                 "mass: M(q) not positive definite (smallest eigenvalue " + number(lmin) + ")");
}

void check_rank(Context& c, const Vec& q) {
  if (c.r == 0) return;
  Mat A(c.r, c.n);
  c.sys.constraint_matrix(q, A);
  double ratio = 0.0;
  if (A.allFinite()) {
    Eigen::JacobiSVD<Mat> svd(A);
    const auto& s = svd.singularValues();
    ratio = s[0] > 0 ? s[s.size() - 1] / s[0] : 0.0;
  }
  const bool full = ratio > 1e-10;
  const bool g = c.sys.holonomic_count() > 0;
  c.out.property("constraint_rank", g ? "rank [A; dg/dq] = r" : "rank A = r", full, full ? 0.0 : 1.0, ratio, 1.0,
                 std::string("constraint_matrix: ") + (g ? "C(q) = [A; dg/dq]" : "A(q)") + " not of full rank " +
                     std::to_string(c.r) + " (σ_min/σ_max " + plain(ratio) + ")");
}

/// The states: the given one (or the origin), then `samples` random ones in a box around its q,
/// v random and projected onto the constraint distribution. The box has the same half-width in
/// every coordinate, not one scaled by |q^j|: 0.5 rad is a fair sample of an angle however far it
/// has wound, a far state's samples stay far (the regime asked about), and a coordinate near a
/// singularity of the model (a tilt near ±π/2) is not thrown across it.
std::vector<State> sample_states(const LagrangianSystem& sys, const DerivativeCheckOptions& o, int n) {
  std::vector<State> states;
  State base;
  if (o.state) {
    base = *o.state;
  } else {
    base.q = Vec::Zero(n);
    base.v = Vec::Zero(n);
  }
  std::mt19937_64 rng(o.seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  if (o.state) states.push_back(base);
  for (int k = 0; k < o.samples; ++k) {
    State s;
    s.t = base.t;
    s.q = base.q;
    for (int i = 0; i < n; ++i) s.q[i] += o.box * u(rng);
    s.v.resize(n);
    for (int i = 0; i < n; ++i) s.v[i] = u(rng);
    sys.project(s);
    states.push_back(std::move(s));
  }
  return states;
}

// ----- RK4 on the continuous field: energy error O(h⁴), constraint residual at round-off -----

struct FlowErrors {
  double energy = 0.0, residual = 0.0, speed = 0.0, holonomic = 0.0;
};

FlowErrors run_rk4(const LagrangianSystem& sys, const State& s0, double horizon, int steps) {
  NonholonomicVectorField field;
  field.bind(sys);
  ExplicitRungeKuttaT<> rk(classical_rk4());
  rk.resize(static_cast<int>(s0.q.size()), static_cast<int>(s0.v.size()));
  State s = s0;
  const double e0 = sys.energy(s0), h = horizon / steps;
  FlowErrors out;
  auto f = [&](double t, const auto& q, const auto& v, auto& qd, auto& vd) { field.evaluate(t, q, v, qd, vd); };
  // A step beyond RK4's stability limit (a stiff mode, e.g. the rattleback's pitching at 107 rad/s
  // against h = 0.025) blows up: the field then fails (M(q) of a non-finite q is not SPD) or the
  // state turns non-finite. Either way this h gives no verdict (infinite errors), and the ladder
  // judges the next, finer pair.
  try {
    for (int k = 0; k < steps; ++k) {
      rk.step(f, s.t, s.q, s.v, h);
      s.t += h;
      out.energy = std::max(out.energy, std::abs(sys.energy(s) - e0));
      out.speed = std::max(out.speed, s.v.norm());
      out.residual = std::max(out.residual, sys.constraint_residual(s));
      out.holonomic = std::max(out.holonomic, sys.holonomic_residual(s.q));
    }
  } catch (const StepFailure&) {
    s.q.setConstant(std::numeric_limits<double>::quiet_NaN());
  }
  if (!s.q.allFinite() || !s.v.allFinite())
    out.energy = out.residual = out.holonomic = std::numeric_limits<double>::infinity();
  return out;
}

/// The order log2(e(h)/e(h/2)), or 4 when both are at round-off.
double fitted_order(double coarse, double fine, double roundoff) {
  if (coarse <= roundoff && fine <= roundoff) return 4.0;
  return std::log2(coarse / std::max(fine, std::numeric_limits<double>::min()));
}

// RK4 preserves neither the energy nor the nonlinear invariant A(q)v exactly: both errors must be
// at round-off or fall like h⁴. A wrong ∇V, ∂A/∂q or Coriolis term makes the field conserve
// neither, and the error stops falling with h. The pair (h, h/2) starts at h = 0.5/20; a system with
// fast modes (the bicycle's light fork steers at ~100 rad/s) is not in RK4's asymptotic regime
// there, so each error is judged on the first pair, refined up to h = 0.5/320, at which it falls
// like h^3.5 or better (a wrong derivative leaves an error that does not fall at any h).
struct FlowLadder {
  const LagrangianSystem& sys;
  const State& s0;
  std::vector<FlowErrors> runs;
  static constexpr double kHorizon = 0.5;
  static constexpr int kSteps = 20, kPairs = 5;  // h = 0.5/20 ... 0.5/320
  // ... and on to 0.5/2560 while the coarse run still blows up: a state far out on a moving
  // constraint (ball_on_turntable 1.5e3 from the axis spins at ~1e3 rad/s) is stiff at h = 0.5/320.
  static constexpr int kMaxPairs = 8;
  const FlowErrors& at(std::size_t j) {
    while (runs.size() <= j) runs.push_back(run_rk4(sys, s0, kHorizon, kSteps << runs.size()));
    return runs[j];
  }
  struct Verdict {
    double order, coarse, fine, h;
  };
  /// The order of `error` (of FlowErrors, over the pair's common `scale`) on the first passing pair.
  template <class Error, class Scale>
  Verdict judge(Error&& error, double roundoff, Scale&& scale) {
    Verdict v{};
    for (std::size_t j = 0; j < kPairs || (j < kMaxPairs && !std::isfinite(v.coarse)); ++j) {
      const double s = scale(at(j), at(j + 1));
      v.coarse = error(at(j)) / s;
      v.fine = error(at(j + 1)) / s;
      v.order = fitted_order(v.coarse, v.fine, roundoff);
      v.h = kHorizon / (kSteps << j);
      if (std::isfinite(v.order) && v.order >= 3.5) break;
    }
    return v;
  }
  template <class Error>
  Verdict judge(Error&& error, double roundoff) {
    return judge(error, roundoff, [](const FlowErrors&, const FlowErrors&) { return 1.0; });
  }
};

void check_flow(const LagrangianSystem& sys, const State& s0, Collector& out) {
  FlowLadder ladder{sys, s0, {}};
  auto at_h = [](const FlowLadder::Verdict& v) {
    return plain(v.coarse) + " at h = " + plain(v.h) + ", " + plain(v.fine) + " at h/2";
  };
  // A forced system, or one whose constraints move (issue 30), need not conserve energy.
  if (!sys.has_external_force() && !affine_constraint_of(sys)) {
    const double roundoff = 1e-11 * std::max(1.0, std::abs(sys.energy(s0)));
    const auto v = ladder.judge([](const FlowErrors& e) { return e.energy; }, roundoff);
    const bool pass = std::isfinite(v.order) && v.order >= 3.5;
    out.property("rk4_energy", "energy error order >= 3.5", pass, pass ? 0.0 : 1.0, v.order, 4.0,
                 "rk4_energy: energy error of the continuous flow falls like h^" + plain(v.order) + " (" + at_h(v) +
                     "), not h^4");
  }
  const auto v = ladder.judge([](const FlowErrors& e) { return e.residual; }, 1e-10,
                              [](const FlowErrors& a, const FlowErrors& b) { return std::max({1.0, a.speed, b.speed}); });
  const bool pass = std::isfinite(v.order) && v.order >= 3.5;
  out.property("rk4_constraint", "residual |Av|/|v| round-off or O(h^4)", pass, pass ? 0.0 : 1.0, v.order, 4.0,
               "rk4_constraint: constraint residual of the continuous flow (" + at_h(v) +
                   ", relative to |v|) falls like h^" + plain(v.order) + ", not at round-off or h^4");
  if (sys.holonomic_count() == 0) return;
  // The field keeps ∂g/∂q v = 0 (index-reduced): g itself drifts like the method's error, h⁴. A
  // wrong ∇²g (the acceleration-level term vᵀ∇²g v) leaves an O(t²) drift that does not fall with h.
  const auto g = ladder.judge([](const FlowErrors& e) { return e.holonomic; }, holonomic_tolerance(s0));
  const bool g_pass = std::isfinite(g.order) && g.order >= 3.5;
  out.property("rk4_holonomic", "drift |g(q)| round-off or O(h^4)", g_pass, g_pass ? 0.0 : 1.0, g.order, 4.0,
               "rk4_holonomic: drift of the holonomic constraints along the continuous flow (" + at_h(g) +
                   ") falls like h^" + plain(g.order) + ", not at round-off or h^4");
}

}  // namespace

DerivativeCheckResult check_derivatives(const LagrangianSystem& sys, const DerivativeCheckOptions& o) {
  const int n = sys.dof(), r = sys.num_constraints();
  Collector out(o.ad_tolerance, o.fd_tolerance);
  const auto* ad = dynamic_cast<const AutomaticDerivatives*>(&sys);
  Context c{sys, ad, n, r, EntryNames{sys.layout().q}, out, ad ? ad->hand_written() : std::vector<std::string>{}};
  const std::vector<State> states = sample_states(sys, o, n);
  if (o.state) check_holonomic_residual(c, states.front());  // reported at the given state
  for (const State& s : states) {
    check_potential(c, s.q);
    check_holonomic_jacobian(c, s.q);
    check_affine(c, s);
    check_time_potential(c, s);
    check_constraint_gradient(c, s.q);
    check_coriolis(c, s.q, s.v);
    check_kinetic_gradient(c, s.q, s.v);
    check_contractions(c, s.q, s.v);
    check_mass(c, s.q);
    check_rank(c, s.q);
  }
  if (o.flow && !states.empty()) {
    State s0 = states.size() > 1 ? states[1] : states[0];
    if (s0.v.norm() == 0.0 && states.size() > 1) s0 = states.back();
    check_flow(sys, s0, out);
  }
  return std::move(out).result();
}

namespace {
/// `text` padded to `width` characters (code points, so "λ_min" and "Mᵀ" line up).
std::string padded(const std::string& text, std::size_t width) {
  std::size_t chars = 0;
  for (unsigned char c : text) chars += (c & 0xC0) != 0x80;
  return text + std::string(chars < width ? width - chars : 0, ' ');
}
}  // namespace

std::string format_check_result(const std::string& name, const DerivativeCheckResult& result) {
  std::ostringstream os;
  char cell[64];
  os << name << ":\n" << padded("function", 24) << ' ' << padded("compared with", 38) << ' '
     << padded("worst rel err / measured", 25) << " states\n";
  for (const auto& s : result.summary) {
    if (s.measured)
      std::snprintf(cell, sizeof cell, "%13s %11.4g", "", *s.measured);
    else
      std::snprintf(cell, sizeof cell, "%13.3g %11s", s.worst_relative_error, "");
    std::snprintf(cell + std::strlen(cell), sizeof cell - std::strlen(cell), " %6d", s.states);
    os << padded(s.function, 24) << ' ' << padded(s.reference, 38) << ' ' << cell << "\n";
  }
  for (const auto& f : result.findings) os << name << ": " << f.message << "\n";
  return os.str();
}

}  // namespace dalembert
