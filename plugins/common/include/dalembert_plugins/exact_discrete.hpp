#pragma once
// Exact discrete nonholonomic mechanics (seed 002 Sects. 3.2, 4.2, 5.2–5.3; spec 002 §3.4–3.5),
// generic over any ConstrainedLagrangian system, constant M or M(q) (issue 14):
//
//  * ForcedFlow: the forced SODE  q̇ = v,  M(q) v̇ = −∇V(q) − C(q,v) + F~(q,v),
//    F~ = A(q)ᵀ(λ(q,v) + c A(q)v), C = Ṁv − ½∂_q(vᵀMv) (zero for a constant M)
//    (spec §3.5: c = 0 is the canonical extension F_nh of eq. (16); every c leaves D invariant and
//    agrees with F_nh on D). Integrated by Gragg–Bulirsch–Stoer extrapolation (K = 4 levels:
//    order 8) with substeps ≤ max_substep — the "DOP853 or better" inner integrator of spec §3.4.
//    Measured (particle, t = 2): 3e-15 at substep 0.1 with K = 4; more levels amplify round-off
//    (K = 8: 1e-12), so K = 4 is the default. With tol > 0 the substeps are error controlled
//    (issue 26): each flow over T uses m equal substeps T/m, m ≥ ⌈|T|/max_substep⌉ the smallest the
//    estimate of HNW §II.9 accepts (every substep's estimated local error ≤ tol (1 + |y_i|)); where
//    max_substep already meets tol the substeps are exactly those of tol = 0.
//    With the variational matrix Φ = ∂(q,v)(t)/∂(q,v)(0) and the quadratures
//    ∫L dt, I_q = ∫F~ᵀΦ_qq dt, I_v = ∫F~ᵀΦ_qv dt (spec §3.5 "Computation", step 1); ∂f by
//    4th-order central differences of the field.
//  * ExactDiscrete: nonholonomic exponential map exp_h(q0,v0) = (q0, τφ_h(q0,v0)), the exact
//    retraction R^{e−}(q0,q1) by shooting in D (v0 = B(q0)u, Gauss–Newton; spec §3.4), R^{e+},
//    the forced exact discrete Lagrangian L^e and exact discrete forces F^{e±} by shooting in TQ
//    (spec §3.5 steps 2–3).
#include <Eigen/Dense>
#include <cmath>
#include <dalembert/core/error_text.hpp>
#include <dalembert_plugins/discrete_mechanics.hpp>
#include <dalembert/math/extrapolation.hpp>

namespace dalembert {

class ForcedFlow {
 public:
  /// c: the extension constant of F~ (spec §3.5). max_substep: the GBS step bound. tol: the local
  /// error tolerance of the GBS substeps (0: none, equal substeps ≤ max_substep).
  void bind(const ConstrainedLagrangian& model, double c = 0.0, double max_substep = 0.05, int levels = 4,
            double tol = 0.0) {
    model_ = &model;
    constant_mass_ = model.constant_mass();
    c_ = c;
    H_ = max_substep;
    tol_ = tol;
    restart();
    substeps_made_ = rejected_ = 0;
    n_ = model.dof();
    r_ = model.num_constraints();
    field_.bind(model);
    M_.resize(n_, n_);
    if (constant_mass_) {
      model.mass(Vec::Zero(n_), M_);
      Minv_ = M_.inverse();
    }
    Mv_.resize(n_);
    A_.resize(r_, n_);
    F_.resize(n_);
    qd_.resize(n_);
    vd_.resize(n_);
    lam_.resize(r_);
    g_.resize(n_);
    fe_.resize(n_);
    external_ = model.has_external_force();
    gg_.resize(2 * n_);
    s_.resize(2 * n_);
    sp_.resize(2 * n_);
    Df_.resize(2 * n_, 2 * n_);
    for (auto& v : fd_) v.resize(2 * n_);
    y_.resize(2 * n_);
    y0_.resize(2 * n_);
    Y_.resize(aug_size());
    gbs_ = ExtrapolatedMidpoint(levels);
    gbs_.resize(2 * n_);
    gbs_var_ = ExtrapolatedMidpoint(levels);
    gbs_var_.resize(aug_size());
  }
  int n() const { return n_; }
  double extension() const { return c_; }
  bool constant_mass() const { return constant_mass_; }
  /// M(q) (the constant M whatever q when the mass is constant).
  const Mat& mass(ConstVecRef q) {
    if (!constant_mass_) model_->mass(q, M_);
    return M_;
  }
  /// Solves M(q) x = b in place (b a vector or columns).
  void solve_mass(ConstVecRef q, MatRef b) { field_.solve_mass(q, b); }
  const ConstrainedLagrangian& model() const { return *model_; }

  /// F~(q,v) = A(q)ᵀ(λ(t,q,v) + c A(q)v)  (spec §3.5; t: the time of an external force, issue 30).
  void force(ConstVecRef q, ConstVecRef v, VecRef F, double t = 0.0) {
    field_.evaluate(t, q, v, qd_, vd_);
    model_->constraint_matrix(q, A_);
    lam_ = field_.multiplier();
    if (c_ != 0.0) lam_.noalias() += c_ * (A_ * v);
    F.noalias() = A_.transpose() * lam_;
  }
  /// s' = (v, M⁻¹(−∇V + F + F~)) for s = (q, v) ∈ R^{2n} at time t, F the external force F(t, q, v)
  /// (issue 30; none in the seeds); for M(q), (v, v̇ of the nonholonomic field + M(q)⁻¹A(q)ᵀ c A(q)v).
  void rhs(ConstVecRef s, VecRef ds, double t = 0.0) {
    if (!constant_mass_) {
      rhs_configuration_mass(s, ds, t);
      return;
    }
    force(s.head(n_), s.tail(n_), F_, t);
    model_->potential_gradient(s.head(n_), g_);
    ds.head(n_) = s.tail(n_);
    F_ -= g_;  // in place: M⁻¹(F~ − ∇V) without a heap temporary
    if (external_) {
      model_->external_force(t, s.head(n_), s.tail(n_), fe_);
      F_ += fe_;
    }
    ds.tail(n_).noalias() = Minv_ * F_;
  }

  /// (q, v) ← φ_T(q, v) with m equal GBS substeps: m = ⌈|T|/max_substep⌉ for tol = 0; else the
  /// smallest m ≥ that, and ≥ what the last flows needed, with every substep's estimated error ≤ tol.
  /// t0: the time at (q, v), which an external force F(t, q, v) reads (issue 30).
  void flow(VecRef q, VecRef v, double T, double t0 = 0.0) {
    if (T == 0.0) return;
    const auto f = [this](double t, const Vec& y, Vec& dy) { rhs(y, dy, t); };
    y_.head(n_) = q;
    y_.tail(n_) = v;
    if (tol_ == 0.0) {
      const long m = substeps(T, H_);
      const double d = T / static_cast<double>(m);
      for (long i = 0; i < m; ++i) gbs_.step(f, t0 + static_cast<double>(i) * d, y_, d);
      count(m);
    } else {
      y0_ = y_;
      for (long m = substeps(T, suggested_);;) {
        const double d = T / static_cast<double>(m), err = controlled_pass(f, t0, d, m);
        if (std::isnan(err)) break;  // non-finite: the caller sees the state
        if (err <= 1.0) {
          accepted_ = std::abs(d);
          suggested_ = std::min(H_, accepted_ * growth(err));  // HNW §II.9, never above max_substep
          break;
        }
        ++rejected_;  // restart the whole interval with more, equal substeps
        m = std::max(m + 1, substeps(T, std::abs(d) * growth(err)));
        y_ = y0_;
      }
    }
    q = y_.head(n_);
    v = y_.tail(n_);
  }

  /// Forgets the substep the last flows needed (a new trajectory starts from max_substep).
  void restart() { suggested_ = accepted_ = H_; }
  double tolerance() const { return tol_; }
  /// GBS substeps made since bind() (rejected ones included) and the flows the error control redid.
  long substeps_made() const { return substeps_made_; }
  long rejections() const { return rejected_; }
  /// Field evaluations so far (flow() only: each GBS substep costs evaluations() of them).
  long evaluations() const { return substeps_made_ * gbs_.evaluations(); }

  /// The flow with its variational matrix and quadratures (spec §3.5 step 1):
  /// Φ(T) (2n×2n), Lint = ∫L dt, Iq = ∫F~ᵀΦ_qq dt, Iv = ∫F~ᵀΦ_qv dt.
  void variational_flow(VecRef q, VecRef v, double T, MatRef Phi, double& Lint, VecRef Iq, VecRef Iv) {
    const int N = 2 * n_;
    Y_.setZero();
    Y_.head(n_) = q;
    Y_.segment(n_, n_) = v;
    for (int i = 0; i < N; ++i) Y_[N + i * N + i] = 1.0;  // Φ(0) = I, column-major
    // The substep the last error-controlled flow() accepted (callers flow once before shooting):
    // no control here, so the map from (q, v) stays smooth for Newton's method.
    const long m = substeps(T, std::min(H_, accepted_));
    const double d = T / static_cast<double>(m);
    for (long i = 0; i < m; ++i)
      gbs_var_.step([this](double, const Vec& Y, Vec& dY) { variational_rhs(Y, dY); }, 0.0, Y_, d);
    q = Y_.head(n_);
    v = Y_.segment(n_, n_);
    Phi = Eigen::Map<const Mat>(Y_.data() + N, N, N);
    Lint = Y_[N + N * N];
    Iq = Y_.segment(N + N * N + 1, n_);
    Iv = Y_.segment(N + N * N + 1 + n_, n_);
  }

 private:
  /// A bound on the substeps of one flow: beyond it the field is near-singular or T absurd.
  static constexpr double kMaxSubsteps = 1e5;

  int aug_size() const { return 2 * n_ + 4 * n_ * n_ + 1 + 2 * n_; }
  /// ⌈|T|/H⌉ (at least 1), refused above kMaxSubsteps.
  long substeps(double T, double H) const {
    const double m = std::ceil(std::abs(T) / H - 1e-12);
    if (!(m <= kMaxSubsteps))
      throw StepFailure("exact flow over T = " + number_text(std::abs(T), "%g") + " needs more than " +
                            number_text(kMaxSubsteps, "%g") + " GBS substeps (substep " + number_text(H, "%g") +
                            (tol_ > 0.0 ? ", tol " + number_text(tol_, "%g") : std::string()) + ")",
                        0.0);
    return std::max(1L, static_cast<long>(m));
  }
  void count(long m) { substeps_made_ += m; }
  /// m substeps of d from y_ with the error estimate; the largest scaled error (stops at the first > 1).
  template <class F>
  double controlled_pass(const F& f, double t0, double d, long m) {
    double worst = 0.0;
    for (long i = 0; i < m && worst <= 1.0; ++i) {
      const double e = gbs_.step(f, t0 + static_cast<double>(i) * d, y_, d, tol_, 2 * n_);
      if (!(e <= worst)) worst = e;  // NaN propagates
      count(1);
    }
    return worst;
  }
  /// The step-size factor of HNW §II.9 for the order-(2K−2) estimate: 0.9 err^(−1/(2K−1)) in [0.2, 4].
  double growth(double err) const {
    if (!(err > 0.0)) return 4.0;
    return std::clamp(0.9 * std::pow(err, -1.0 / (2.0 * gbs_.levels() - 1.0)), 0.2, 4.0);
  }
  void rhs_configuration_mass(ConstVecRef s, VecRef ds, double t) {
    const auto q = s.head(n_), v = s.tail(n_);
    field_.evaluate(t, q, v, qd_, vd_);  // M(q)v̇ = −∇V − C + F + Aᵀλ
    ds.head(n_) = v;
    ds.tail(n_) = vd_;
    if (c_ != 0.0) {
      model_->constraint_matrix(q, A_);
      lam_.noalias() = c_ * (A_ * v);
      F_.noalias() = A_.transpose() * lam_;
      field_.solve_mass(q, F_);
      ds.tail(n_) += F_;
    }
  }
  void variational_rhs(const Vec& Y, Vec& dY) {
    const int N = 2 * n_;
    s_ = Y.head(N);
    rhs(s_, gg_);
    dY.head(N) = gg_;
    // ∂f/∂s by 4th-order central differences (step 1e-3 max(1,|s_j|)).
    for (int j = 0; j < N; ++j) {
      const double h = 1e-3 * std::max(1.0, std::abs(s_[j]));
      for (int k = 0; k < 4; ++k) {
        static constexpr double off[4] = {-2.0, -1.0, 1.0, 2.0};
        sp_ = s_;
        sp_[j] += off[k] * h;
        rhs(sp_, fd_[k]);
      }
      Df_.col(j) = (fd_[0] - 8.0 * fd_[1] + 8.0 * fd_[2] - fd_[3]) / (12.0 * h);
    }
    Eigen::Map<const Mat> Phi(Y.data() + N, N, N);
    Eigen::Map<Mat> dPhi(dY.data() + N, N, N);
    dPhi.noalias() = Df_ * Phi;
    const auto q = s_.head(n_);
    const auto v = s_.tail(n_);
    if (!constant_mass_) model_->mass(q, M_);
    Mv_.noalias() = M_ * v;
    dY[N + N * N] = 0.5 * v.dot(Mv_) - model_->potential(q);  // L(q, v)
    force(q, v, F_);
    dY.segment(N + N * N + 1, n_).noalias() = Phi.topLeftCorner(n_, n_).transpose() * F_;   // F~ᵀΦ_qq
    dY.segment(N + N * N + 1 + n_, n_).noalias() = Phi.topRightCorner(n_, n_).transpose() * F_;  // F~ᵀΦ_qv
  }

  const ConstrainedLagrangian* model_ = nullptr;
  double c_ = 0.0, H_ = 0.05, tol_ = 0.0;
  double suggested_ = 0.05, accepted_ = 0.05;  // substep for the next flow, and the last one accepted
  long substeps_made_ = 0, rejected_ = 0;
  bool constant_mass_ = true;
  int n_ = 0, r_ = 0;
  NonholonomicVectorField field_;
  Mat M_, Minv_, A_, Df_;
  Vec F_, qd_, vd_, lam_, g_, fe_, gg_, s_, sp_, y_, y0_, Y_, Mv_;
  bool external_ = false;  // F(t, q, v) in rhs() (issue 30)
  Vec fd_[4];
  ExtrapolatedMidpoint gbs_, gbs_var_;
};

/// The forced exact discrete objects at (q0, q1) (spec §3.5).
struct ForcedExactObjects {
  double Le = 0.0;  ///< L^e(q0,q1) = ∫_0^h L(q01, q̇01) dt
  Vec Fplus, Fminus;  ///< F^{e±}(q0,q1)
  Vec v0, v1;         ///< q̇01(0), q̇01(h)
  double shooting_residual = 0.0;
};

class ExactDiscrete {
 public:
  void bind(const ConstrainedLagrangian& model, double c = 0.0, double max_substep = 0.1, int levels = 4,
            double tol = 0.0) {
    flow_.bind(model, c, max_substep, levels, tol);
    frame_.bind(model);
    n_ = model.dof();
    k_ = frame_.k();
    B_.resize(n_, k_);
    J_.resize(n_, k_);
    Phi_.resize(2 * n_, 2 * n_);
    q_.resize(n_);
    v_.resize(n_);
    res_.resize(n_);
    u_.resize(k_);
    du_.resize(k_);
    Iq_.resize(n_);
    Iv_.resize(n_);
    dv_.resize(n_);
    c_.resize(n_);
    N_.resize(k_, k_);
    g_.resize(k_);
    lu_ = Eigen::PartialPivLU<Mat>(n_);
    normal_ = Eigen::PartialPivLU<Mat>(k_);
  }
  ForcedFlow& flow() { return flow_; }
  DistributionFrame& frame() { return frame_; }

  /// The exact retraction R^{e−}(q0,q1) ∈ D_{q0} (spec §3.4, shooting): v0 = B(q0)u with
  /// τφ_h(q0, B u) = q1 by Gauss–Newton (J = Φ_qv B), initial u = lstsq(B, (q1−q0)/h).
  /// Returns the least-squares residual |τφ_h(q0,Bu) − q1|∞, zero iff (q0,q1) ∈ M^e_h.
  /// v1 (optional) receives R^{e+}(q0,q1) = the velocity at q1.
  double retraction(ConstVecRef q0, ConstVecRef q1, double h, VecRef v0, Vec* v1 = nullptr, int iterations = 30) {
    frame_.evaluate(q0, B_);
    c_ = (q1 - q0) / h;
    least_squares(B_, u_);
    dv_.noalias() = B_ * u_;
    choose_substeps(q0, dv_, h);
    double Lint;
    for (int it = 0; it < iterations; ++it) {
      q_ = q0;
      v_.noalias() = B_ * u_;
      flow_.variational_flow(q_, v_, h, Phi_, Lint, Iq_, Iv_);
      res_ = q_ - q1;
      J_.noalias() = Phi_.topRightCorner(n_, n_) * B_;
      least_squares(J_, res_, du_);
      u_ -= du_;
      if (du_.lpNorm<Eigen::Infinity>() <= 1e-15 * (1.0 + u_.lpNorm<Eigen::Infinity>())) break;
    }
    v0.noalias() = B_ * u_;
    q_ = q0;
    v_ = v0;
    flow_.flow(q_, v_, h);
    if (v1) *v1 = v_;
    return (q_ - q1).lpNorm<Eigen::Infinity>();
  }

  /// L^e, F^{e±} (spec §3.5 steps 2–3): shoot v0 ∈ R^n with v0 ← v0 − Φ_qv(h)⁻¹(q(h) − q1), then
  /// F^{e+} = I_v Φ_qv⁻¹, F^{e−} = I_q − I_v Φ_qv⁻¹ Φ_qq (as row covectors).
  ForcedExactObjects forced_objects(ConstVecRef q0, ConstVecRef q1, double h, int iterations = 30) {
    ForcedExactObjects o;
    o.v0 = (q1 - q0) / h;
    choose_substeps(q0, o.v0, h);
    double Lint = 0.0;
    for (int it = 0; it < iterations; ++it) {
      q_ = q0;
      v_ = o.v0;
      flow_.variational_flow(q_, v_, h, Phi_, Lint, Iq_, Iv_);
      res_ = q_ - q1;
      lu_.compute(Phi_.topRightCorner(n_, n_));
      dv_ = lu_.solve(res_);
      o.v0 -= dv_;
      if (dv_.lpNorm<Eigen::Infinity>() <= 1e-15 * (1.0 + o.v0.lpNorm<Eigen::Infinity>())) break;
    }
    q_ = q0;
    v_ = o.v0;
    flow_.variational_flow(q_, v_, h, Phi_, Lint, Iq_, Iv_);
    o.shooting_residual = (q_ - q1).lpNorm<Eigen::Infinity>();
    o.v1 = v_;
    o.Le = Lint;
    lu_.compute(Phi_.topRightCorner(n_, n_));
    // Row vectors: x = I_v Φ_qv⁻¹ ⇔ Φ_qvᵀ xᵀ = I_vᵀ.
    o.Fplus = lu_.transpose().solve(Iv_);
    o.Fminus = Iq_ - Phi_.topLeftCorner(n_, n_).transpose() * o.Fplus;
    return o;
  }

 private:
  // With error control, the shooting's variational flows use the substep an error-controlled flow
  // from the initial guess accepts (fixed while Newton iterates: a smooth map).
  void choose_substeps(ConstVecRef q0, ConstVecRef v0, double h) {
    if (flow_.tolerance() == 0.0) return;
    q_ = q0;
    v_ = v0;
    flow_.flow(q_, v_, h);
  }

  // x = the least-squares solution of J x = b (J n×k of full column rank: B(q0) and Φ_qv B are),
  // by the normal equations JᵀJ x = Jᵀb in buffers sized in bind(): Eigen's QR allocates temporaries
  // at every factorisation, and a step must not allocate. The shooting's Newton iteration, not this
  // solve, sets the accuracy of u.
  void least_squares(const Mat& J, const Vec& b, Vec& x) {
    N_.noalias() = J.transpose() * J;
    g_.noalias() = J.transpose() * b;
    normal_.compute(N_);
    x = normal_.solve(g_);
  }
  void least_squares(const Mat& J, Vec& x) { least_squares(J, c_, x); }

  ForcedFlow flow_;
  DistributionFrame frame_;
  int n_ = 0, k_ = 0;
  Mat B_, J_, Phi_;
  Mat N_;
  Vec q_, v_, res_, u_, du_, Iq_, Iv_, dv_, c_, g_;
  Eigen::PartialPivLU<Mat> lu_, normal_;
};

}  // namespace dalembert
