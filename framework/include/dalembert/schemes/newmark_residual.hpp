#pragma once
// The discrete equations of the nonholonomic Newmark method F_h^{β,β′,α} (seed 000 Def. 3.1 and
// Sec. 3.4; spec 000 §3.2) for a ConstrainedLagrangian with constant mass matrix, assembled as the
// residuals and Jacobians a Newton solver needs. Header-only, so that the integrator plugin and the
// tests (which check J against finite differences) use the same assembly.
//
// With G₀ = a(q_k) + B(q_k)λ and G₁ = a(Q) + B(Q)λ′, a = −M⁻¹∇V, B = M⁻¹Aᵀ:
//   (N1) Q   = q_k + h v_k + (h²/2)[(1−2β)G₀ + 2βG₁]
//   (N2) q_k = Q − h v_{k+1} + (h²/2)[2β′G₀ + (1−2β′)G₁]
//   (N3) Φ(q_k, Q) = 0           (discretisation (14) or (15) of the exact discrete constraint space)
//   (N4) A(Q) v_{k+1} = 0
// Two reduced systems are offered:
//   * β ≠ 0: u = (Q, λ, λ′) ∈ R^{n+2r}, (N2) solved for v_{k+1} = V(Q,λ,λ′) and substituted into (N4)
//     (residual(), jacobian());
//   * β = 0: (N1) gives Q(λ) explicitly, so only Φ(q_k, Q(λ)) = 0 is solved for λ ∈ R^r
//     (explicit_residual(), explicit_jacobian()); then λ′ follows from an r×r linear solve
//     (solve_lambda_prime()).
// begin_step() fixes (q_k, v_k, h); every buffer is sized in bind(): nothing here allocates.
//
// Written once over an Access type (core/model_access.hpp): NewmarkResidual = NewmarkEquations<
// DynamicAccess> is what the integrator plugin uses on any system; NewmarkEquations<FixedAccess<M>>
// is the same code compiled, fixed-size, inside a FixedLagrangianSystem's plugin (issue 4).
#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <dalembert/core/constrained_lagrangian.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/math/llt_storage.hpp>
#include <dalembert/core/model_access.hpp>
#include <dalembert/math/newmark_parameters.hpp>
#include <dalembert/schemes/newton.hpp>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace dalembert {

template <class Access>
class NewmarkEquations {
 public:
  using VecN = typename Access::VecN;
  using VecR = typename Access::VecR;
  using VecU = typename Access::VecU;
  using MatN = typename Access::MatN;
  using MatRN = typename Access::MatRN;
  using MatNR = typename Access::MatNR;
  using MatR = typename Access::MatR;
  static constexpr int N = Access::N, R = Access::R;

  /// Sizes every buffer and factorises the (constant) mass matrix once.
  template <class Model>
  void bind(const Model& model) {
    access_.bind(model);
    if (!access_.constant_mass())
      throw Error("NewmarkResidual: the nonholonomic Newmark equations of spec 000 §3.2 need a constant mass matrix");
    n_ = access_.n();
    r_ = access_.r();
    MatN M(n_, n_);
    access_.mass(VecN::Zero(n_), M);
    Eigen::LLT<MatN> llt(M);
    if (llt.info() != Eigen::Success) throw Error("NewmarkResidual: the mass matrix is not positive definite");
    Minv_ = llt.solve(MatN::Identity(n_, n_));
    unit_mass_ = classify_mass(M) == MassStructure::Identity;  // then every M⁻¹ product is skipped
    for (VecN* v : {&qk_, &vk_, &ak_, &aQ_, &G0_, &G1_, &V_, &d_, &xi_, &w_, &grad_, &Qx_, &end_point_}) v->resize(n_);
    end_point_known_ = false;
    rhs_.resize(r_);
    for (MatRN* m : {&Ak_, &AQ_, &Axi_, &Abar_, &DA_, &dPhi_}) m->resize(r_, n_);
    for (MatNR* m : {&Bk_, &BQ_}) m->resize(n_, r_);
    for (MatN* m : {&hess_, &K_, &H1_}) m->resize(n_, n_);
    C_.resize(r_, r_);
    J_.resize(r_, r_);
    if constexpr (R == Eigen::Dynamic) {
      size_llt(c_llt_, r_);
      if (r_ <= SmallLU<MatR>::kMax) j_lu_.resize(r_);
    }
  }

  void set_parameters(const NewmarkParameters& p) { p_ = p; }
  const NewmarkParameters& parameters() const { return p_; }
  int n() const { return n_; }
  int r() const { return r_; }
  /// Number of unknowns of the reduced system u = (Q, λ, λ′).
  int size() const { return n_ + 2 * r_; }

  /// Fixes the start point (q_k, v_k) and the signed step h; evaluates a(q_k), A(q_k), B(q_k).
  void begin_step(const auto& qk, const auto& vk, double h) {
    if (h == 0.0) throw StepFailure("nonholonomic Newmark: step size h = 0", 0.0);
    qk_ = qk;
    vk_ = vk;
    h_ = h;
    inv_h_ = 1.0 / h;  // every /h below is a product (issue 32 item 2: one division, not n per use)
    if (last_end_point_is(qk_)) {  // q_k is the last step's Q: a, A and B are known there
      ak_ = aQ_;
      Ak_ = AQ_;
      Bk_ = BQ_;
      return;
    }
    unconstrained_acceleration(qk_, ak_);
    access_.constraint_matrix(qk_, Ak_);
    apply_minv(Bk_, Ak_.transpose());  // B(q_k) = M⁻¹A(q_k)ᵀ, spec 000 §2.0
  }
  double h() const { return h_; }
  const VecN& q_k() const { return qk_; }

  /// The continuous multiplier at the start point (spec 000 §2.0), the initial guess of item 4:
  ///   λ(q_k,v_k) = −C(q_k)⁻¹[A(q_k)a(q_k) + (∂A/∂q)[v_k]v_k].
  /// (Same value as NonholonomicVectorField::multiplier(), computed here without allocating.)
  void continuous_multiplier(auto&& lambda) {
    access_.curvature(qk_, vk_, rhs_);
    small_product_add(rhs_, Ak_, ak_);
    lambda = -rhs_;
    solve_constraint_matrix(Ak_, Bk_, lambda);
  }

  /// Initial guess of spec 000 §3.2 item 4 from λ₀ = λ(q_k,v_k): λ = λ′ = λ₀, Q = q_k + h v_k + (h²/2)(a(q_k)+B(q_k)λ₀).
  void initial_guess(const auto& lambda0, auto&& u) const {
    lambda_of(u) = lambda0;
    lambda_prime_of(u) = lambda0;
    auto Q = Q_of(u);
    Q = qk_ + h_ * vk_ + (0.5 * h_ * h_) * ak_;
    small_product_add(Q, Bk_, lambda0, 0.5 * h_ * h_);
  }

  // ----- the β ≠ 0 reduced system, u = (Q, λ, λ′) (spec 000 §3.2 items 1–3) -----

  /// R(u) = (R1, R2, R3).
  void residual(const auto& u, auto&& Rv) {
    const auto Q = Q_of(u);
    accelerations(u);
    // R1 = Q − q_k − h v_k − (h²/2)[(1−2β)G₀ + 2βG₁]   (N1)
    const double hh = 0.5 * h_ * h_;
    Q_of(Rv) = Q - qk_ - h_ * vk_ - (hh * (1.0 - 2.0 * p_.beta)) * G0_ - (hh * 2.0 * p_.beta) * G1_;
    // R2 = Φ(q_k, Q)   (N3)
    discrete_constraint(Q, lambda_of(Rv));
    // R3 = A(Q) V(Q,λ,λ′)   (N4) with v_{k+1} from (N2)
    eliminated_velocity();  // d from discrete_constraint() just above
    small_product(lambda_prime_of(Rv), AQ_, V_);
  }

  /// J = ∂R/∂u, spec 000 §3.2 item 3.
  void jacobian(const auto& u, auto&& J) {
    const auto Q = Q_of(u);
    const auto lambda_prime = lambda_prime_of(u);
    const double hh = 0.5 * h_ * h_;
    const double b = p_.beta, bp = p_.beta_prime;
    accelerations(u);
    d_ = (Q - qk_) * inv_h_;
    eliminated_velocity();
    // H₁ = ∂G₁/∂Q = M⁻¹(−∇²V(Q) + K(Q,λ′)),  K_ij = Σ_a λ′_a ∂A_ai/∂q^j
    access_.potential_hessian(Q, hess_);
    access_.transpose_derivative(Q, lambda_prime, K_);
    K_ -= hess_;
    apply_minv(H1_, K_);

    J.setZero();
    // Row R1: [I − h²βH₁, −(h²/2)(1−2β)B(q_k), −h²βB(Q)]
    auto J1Q = sized_block<N, N>(J, 0, 0, n_, n_);
    J1Q.setIdentity();
    J1Q -= (2.0 * hh * b) * H1_;
    sized_block<N, R>(J, 0, n_, n_, r_) = (-hh * (1.0 - 2.0 * b)) * Bk_;
    sized_block<N, R>(J, 0, n_ + r_, n_, r_) = (-2.0 * hh * b) * BQ_;
    // Row R2: [∂Φ/∂Q, 0, 0]
    discrete_constraint_jacobian(Q, dPhi_);
    sized_block<R, N>(J, n_, 0, r_, n_) = dPhi_;
    // Row R3: [DA(Q)[V] + A(Q)(I/h + (h/2)(1−2β′)H₁), hβ′A(Q)B(q_k), (h/2)(1−2β′)A(Q)B(Q)]
    access_.constraint_derivative(Q, V_, DA_);
    auto J3Q = sized_block<R, N>(J, n_ + r_, 0, r_, n_);
    J3Q = DA_ + AQ_ * inv_h_;
    small_product_add(J3Q, AQ_, H1_, 0.5 * h_ * (1.0 - 2.0 * bp));
    small_product(sized_block<R, R>(J, n_ + r_, n_, r_, r_), AQ_, Bk_, h_ * bp);
    small_product(sized_block<R, R>(J, n_ + r_, n_ + r_, r_, r_), AQ_, BQ_, 0.5 * h_ * (1.0 - 2.0 * bp));
  }

  /// v_{k+1} = V(Q,λ,λ′) = (Q − q_k)/h + (h/2)[2β′G₀ + (1−2β′)G₁]   ((N2), spec 000 §3.2 item 1).
  /// Needs discrete_constraint() last called at this Q (for (Q − q_k)/h). `after_lambda_prime`:
  /// solve_lambda_prime() has just evaluated a, A, B and G₀ at this Q, reuse them. Afterwards a, A
  /// and B at Q are kept for the next begin_step() from Q.
  void velocity(const auto& u, auto&& v, bool after_lambda_prime = false) {
    if (after_lambda_prime) {
      G1_ = aQ_;
      small_product_add(G1_, BQ_, lambda_prime_of(u));
    } else {
      accelerations(u);
    }
    eliminated_velocity();
    v = V_;
    end_point_ = Q_of(u);
    end_point_known_ = true;
  }

  // ----- the β = 0 fast path (spec 000 §3.2, "β = 0 fast path") -----

  /// Q(λ) = q_k + h v_k + (h²/2)(a(q_k) + B(q_k)λ)   ((N1) with β = 0, whatever β was set).
  void explicit_position(const auto& lambda, auto&& Q) const {
    Q = qk_ + h_ * vk_ + (0.5 * h_ * h_) * ak_;
    small_product_add(Q, Bk_, lambda, 0.5 * h_ * h_);
  }

  /// R(λ) = Φ(q_k, Q(λ))   ((N3) with Q from (N1) at β = 0).
  void explicit_residual(const auto& lambda, auto&& Rv) {
    explicit_position(lambda, Qx_);
    discrete_constraint(Qx_, Rv);
  }

  /// ∂R/∂λ = ∂Φ/∂Q (h²/2) B(q_k).
  void explicit_jacobian(const auto& lambda, auto&& J) {
    explicit_position(lambda, Qx_);
    discrete_constraint_jacobian(Qx_, dPhi_);
    small_product(J, dPhi_, Bk_, 0.5 * h_ * h_);
  }

  /// One linear solve of (N3) for λ at β = 0 (spec 000 §3.2, "β = 0 fast path"). Q(λ) is affine in
  /// λ by (N1), and Φ(λ) = Φ(q_k, Q(λ)) = Ā(λ) d(λ) with d(λ) = (Q(λ) − q_k)/h affine too, Ā the
  /// constraint matrix of the discretisation — A(ξ), ξ = (1−α)q_k + αQ, for (14); (1−α)A(q_k) + αA(Q)
  /// for (15). Holding Ā at its value Ā₀ at λ = 0,
  ///   λ = −J⁻¹Φ(0),  J = Ā₀ (h/2) B(q_k)   (Ā₀ d(λ) = Φ(0) + J λ),
  /// and Φ(λ) = Ā(λ) d(λ) vanishes exactly when Ā(λ) = Ā₀: the constraint forces B(q_k)λ move no
  /// coordinate Ā depends on (every seed-000 system; always for (14) with α = 0). So Ā is evaluated
  /// once more, at the new point, and compared bit for bit: equal, (λ, Q) is the root of Φ and
  /// Phi = Ā d(λ) its residual, round-off; different, false, and the caller solves by Newton. Without
  /// the derivative of A, a second solve or a second residual (issue 32 item 2: the closed form's
  /// work). False as well if J is singular or a value is not finite. Needs r ≤ SmallLU::kMax.
  bool affine_multiplier(auto&& lambda, auto&& Q, auto&& Phi) {
    const double hh = 0.5 * h_ * h_;
    Q = qk_ + h_ * vk_ + hh * ak_;  // Q(0), (N1) with β = 0
    d_ = (Q - qk_) * inv_h_;
    discretised_constraint_matrix(Q, Abar_);  // Ā₀
    small_product(Phi, Abar_, d_);           // Φ(0)
    small_product(J_, Abar_, Bk_, 0.5 * h_);
    if (r_ == 1) {
      lambda[0] = -Phi[0] / J_(0, 0);
    } else {
      j_lu_.compute(J_);
      rhs_ = -Phi;
      j_lu_.solve(rhs_, lambda);
    }
    small_product_add(Q, Bk_, lambda, hh);  // Q(λ)
    d_ = (Q - qk_) * inv_h_;
    discretised_constraint_matrix(Q, Axi_);
    if (!lambda.allFinite() || !same_bits(Axi_, Abar_)) return false;
    small_product(Phi, Axi_, d_);
    return Phi.allFinite();
  }

  /// λ′ from (N2)+(N4), linear once Q and λ are known:
  ///   w = (Q − q_k)/h + hβ′G₀ + (h/2)(1−2β′)a(Q),  λ′ = −[(h/2)(1−2β′)C(Q)]⁻¹ A(Q) w.
  /// Needs discrete_constraint() last called at this Q (for (Q − q_k)/h).
  /// Throws StepFailure if C(Q) is singular or β′ = ½ (then (N4) cannot be met through λ′).
  void solve_lambda_prime(const auto& Q, const auto& lambda, auto&& lambda_prime) {
    const double s = 0.5 * h_ * (1.0 - 2.0 * p_.beta_prime);
    if (s == 0.0)
      throw StepFailure("nonholonomic Newmark: beta_prime = 1/2 leaves lambda' undetermined in (N2)+(N4)", 0.0);
    at_next_point(Q);
    G0_ = ak_;
    small_product_add(G0_, Bk_, lambda);
    w_ = d_ + (h_ * p_.beta_prime) * G0_ + s * aQ_;
    small_product(rhs_, AQ_, w_);
    lambda_prime = rhs_ * (-1.0 / s);
    solve_constraint_matrix(AQ_, BQ_, lambda_prime);
  }

  // ----- the discrete constraint (spec 000 §3.4) -----

  /// Φ(q_k, Q) = Ā d, r (Ā: discretised_constraint_matrix); keeps d = (Q − q_k)/h for the velocity at Q.
  void discrete_constraint(const auto& Q, auto&& Phi) {
    d_ = (Q - qk_) * inv_h_;
    discretised_constraint_matrix(Q, Axi_);
    small_product(Phi, Axi_, d_);
  }

  /// ∂Φ/∂Q, r×n:  (14) α DA(ξ)[d] + A(ξ)/h;  (15) α DA(Q)[d] + ((1−α)A(q_k) + αA(Q))/h.
  void discrete_constraint_jacobian(const auto& Q, auto&& dPhi) {
    d_ = (Q - qk_) * inv_h_;
    if (p_.discretization == ConstraintDiscretization::Eq14) {
      xi_ = (1.0 - p_.alpha) * qk_ + p_.alpha * Q;
      access_.constraint_matrix(xi_, Axi_);
      access_.constraint_derivative(xi_, d_, DA_);
      dPhi = p_.alpha * DA_ + Axi_ * inv_h_;
    } else {
      access_.constraint_matrix(Q, Abar_);
      access_.constraint_derivative(Q, d_, DA_);
      Abar_ = (1.0 - p_.alpha) * Ak_ + p_.alpha * Abar_;
      dPhi = p_.alpha * DA_ + Abar_ * inv_h_;
    }
  }

  /// The parts of u = (Q, λ, λ′) (fixed-size blocks when the sizes are known).
  template <class U>
  auto Q_of(U&& u) const { return sized_segment<N>(u, 0, n_); }
  template <class U>
  auto lambda_of(U&& u) const { return sized_segment<R>(u, n_, r_); }
  template <class U>
  auto lambda_prime_of(U&& u) const { return sized_segment<R>(u, n_ + r_, r_); }

 private:
  /// Ā at the end point Q: A(ξ), ξ = (1−α)q_k + αQ, for (14); (1−α)A(q_k) + αA(Q) for (15).
  void discretised_constraint_matrix(const auto& Q, MatRN& out) {
    if (p_.discretization == ConstraintDiscretization::Eq14) {
      if (p_.alpha == 0.0) {
        out = Ak_;
        return;
      }
      xi_ = (1.0 - p_.alpha) * qk_ + p_.alpha * Q;
      access_.constraint_matrix(xi_, out);
    } else {
      access_.constraint_matrix(Q, out);
      out = (1.0 - p_.alpha) * Ak_ + p_.alpha * out;
    }
  }
  /// x and y hold the same bit patterns (+0 and −0 differ: then Newton decides).
  static bool same_bits(const MatRN& x, const MatRN& y) {
    for (Eigen::Index i = 0; i < x.size(); ++i)
      if (std::bit_cast<std::uint64_t>(x.data()[i]) != std::bit_cast<std::uint64_t>(y.data()[i])) return false;
    return true;
  }
  /// a(q) = −M⁻¹∇V(q)   (spec 000 §2.0).
  void unconstrained_acceleration(const auto& q, VecN& a) {
    access_.potential_gradient(q, grad_);
    apply_minv(a, grad_);
    a = -a;
  }
  /// x = M⁻¹y (nothing to multiply when M = I).
  template <class X, class Y>
  void apply_minv(X& x, const Y& y) const {
    if (unit_mass_)
      x = y;
    else
      small_product(x, Minv_, y);
  }
  /// x ← C⁻¹x with C = A M⁻¹ Aᵀ = A B (spec 000 §2.0), positive definite for a regular system.
  void solve_constraint_matrix(const MatRN& A, const MatNR& B, auto&& x) {
    if (r_ == 1) {  // one constraint: C is a positive number
      const double C = A.row(0).dot(B.col(0));
      if (!(C > 0.0)) throw StepFailure("nonholonomic Newmark: C = A M^-1 A^T is not positive definite", 0.0);
      x[0] /= C;
      return;
    }
    small_product(C_, A, B);
    c_llt_.compute(C_);
    if (c_llt_.info() != Eigen::Success)
      throw StepFailure("nonholonomic Newmark: C = A M^-1 A^T is not positive definite", 0.0);
    c_llt_.solveInPlace(x);
  }
  /// a(Q), A(Q), B(Q).
  void at_next_point(const auto& Q) {
    end_point_known_ = false;
    unconstrained_acceleration(Q, aQ_);
    access_.constraint_matrix(Q, AQ_);
    apply_minv(BQ_, AQ_.transpose());  // B(Q) = M⁻¹A(Q)ᵀ
  }
  /// G₀ = a(q_k) + B(q_k)λ and G₁ = a(Q) + B(Q)λ′ (with a(Q), A(Q), B(Q)).
  void accelerations(const auto& u) {
    at_next_point(Q_of(u));
    combine_accelerations(u);
  }
  void combine_accelerations(const auto& u) {
    G0_ = ak_;
    small_product_add(G0_, Bk_, lambda_of(u));
    G1_ = aQ_;
    small_product_add(G1_, BQ_, lambda_prime_of(u));
  }
  /// V = (Q − q_k)/h + (h/2)[2β′G₀ + (1−2β′)G₁]   (N2); needs G₀, G₁ and d = (Q − q_k)/h.
  void eliminated_velocity() {
    V_ = d_ + (h_ * p_.beta_prime) * G0_ + (0.5 * h_ * (1.0 - 2.0 * p_.beta_prime)) * G1_;
  }
  /// Whether q is, bit for bit, the Q at which velocity() last left a, A and B (first same as last:
  /// a step from where the previous one ended evaluates nothing at q_k).
  bool last_end_point_is(const VecN& q) const {
    if (!end_point_known_) return false;
    for (int i = 0; i < n_; ++i)  // bit patterns: +0 and −0 differ, as they may in a(q)
      if (std::bit_cast<std::uint64_t>(q[i]) != std::bit_cast<std::uint64_t>(end_point_[i])) return false;
    return true;
  }

  Access access_;
  NewmarkParameters p_;
  int n_ = 0, r_ = 0;
  double h_ = 0.0, inv_h_ = 0.0;
  MatN Minv_;
  bool unit_mass_ = false;
  VecN qk_, vk_, ak_, aQ_, G0_, G1_, V_, d_, xi_, w_, grad_, Qx_;
  VecN end_point_;  // the Q of the last velocity(), where aQ_, AQ_, BQ_ were evaluated
  bool end_point_known_ = false;
  VecR rhs_;
  MatRN Ak_, AQ_, Axi_, Abar_, DA_, dPhi_;  // r×n
  MatNR Bk_, BQ_;                           // n×r
  MatN hess_, K_, H1_;                      // n×n
  MatR C_, J_;                              // r×r
  SmallLU<MatR> j_lu_;                      // J of affine_multiplier()
  Eigen::LLT<MatR> c_llt_;
};

/// The Newmark equations of any plugin system, through its virtual interface.
using NewmarkResidual = NewmarkEquations<DynamicAccess>;

}  // namespace dalembert
