#pragma once
// Discrete nonholonomic mechanics (spec 002 §3.1; seed 002 Sects. 4–5.4), generic over any
// ConstrainedLagrangian system, L = ½vᵀM(q)v − V(q), and any frame B(q) of D:
//
//   discrete Lagrangian   L_d(q0,q1)   = h Σ_i b_i L(q_{c_i}, Δq/h),      q_c = q0 + c Δq, v = Δq/h
//   slot derivatives      D1L_d        = Σ b_i [−M(q_{c_i}) v + h (1−c_i) (K − ∇V)(q_{c_i})]
//                         D2L_d        = Σ b_i [ M(q_{c_i}) v + h c_i     (K − ∇V)(q_{c_i})]
//                         with K(q) = ½∂_q(vᵀM(q)v) (ConstrainedLagrangian::kinetic_gradient); for a
//                         constant M these are spec 002 §3.1's −MΔq/h − h Σ b_i(1−c_i)∇V and
//                         MΔq/h − h Σ b_i c_i ∇V (issue 14 generalises them to M(q))
//   discrete forces       F_d^−        =  h Σ b_i (1−c_i) F_nh(q_{c_i}, Δq/h)    (covector at q0)
//                         F_d^+        =  h Σ b_i c_i     F_nh(q_{c_i}, Δq/h)    (covector at q1)
//   discrete constraint   ω(q0,q1)     =  Σ b_i A(q_{c_i}) Δq/h   (+ Σ b_i b(t_{c_i}, q_{c_i}): below)
//   forced Legendre       P^+ = D2L_d + F_d^+,  P^− = −D1L_d − F_d^−
//   projected momenta     π^± = B(q_{1|0})ᵀ P^±
//   energy on D*          H|D*(q,π)    = ½ πᵀ(B(q)ᵀM(q)B(q))⁻¹π + V(q)
//
// with F_nh(q,v) = A(q)ᵀλ(q,v) the canonical extension of the reaction force (spec 002 §2.0,
// eq. (16), Remark 2.2), taken from the framework's NonholonomicVectorField. The quadrature
// (c_i, b_i) is a parameter: the midpoint rule (c = ½, b = 1) is the member of the paper (Sect. 5.4,
// spec §3.1); the trapezoidal rule (c = 0, 1; b = ½, ½) and 2-point Gauss are the same code.
// With forces switched off this is the DLA discretisation (spec §3.3).
//
// Holonomic constraints g(q) = 0 (issue 28): the model's distribution is then C = [A; ∂g/∂q]
// (ConstrainedLagrangian: the last k of its r rows), and the discrete constraint imposes g at
// position level in place of its velocity form, as SHAKE/RATTLE do (Hairer, Lubich & Wanner,
// Geometric Numerical Integration, §VII.1, eqs. (1.21)–(1.22); Marsden & West, Acta Numerica 10
// (2001), §3.5 "Constrained systems"):
//   discrete constraint   ω(q0,q1)     = [ Σ b_i A(q_{c_i}) Δq/h ;  g(q1)/h ]
// (g(q1)/h: the scale of the velocity rows; zero exactly when g(q1) = 0). The multipliers of the
// two-step forms act through C(q_k)ᵀ (the frame B(q_k) of ker C(q_k) eliminates them in the
// one-step form), which for g is SHAKE's force ∂g/∂q(q_k)ᵀΛ; π_{k+1} = B(q_{k+1})ᵀP^+ is RATTLE's
// projection of the momentum onto the velocity form of g at q_{k+1}. MLA's discrete force F_d is the
// reaction of A alone (F_nh = Aᵀλ_A, λ_A the multipliers of A's rows in the continuous field of
// C): the reaction of g is SHAKE's multiplier. Without nonholonomic constraints this is the
// midpoint (or trapezoidal, Gauss) variational integrator with SHAKE's constraint, order 2,
// symmetric; |g(q_k)| stays at Newton's tolerance over any number of steps.
//
// Moving constraints A(q)v + b(t, q) = 0 (issue 30, core/affine_constraint.hpp): virtual
// displacements still satisfy A δq = 0 (b is no velocity), so the discrete Lagrange–d'Alembert
// principle and its momentum matching are unchanged, and only the discrete constraint gains the
// quadrature of b at the nodes' times t_{c_i} = t_k + c_i h (t_k: at_time()):
//   discrete constraint   ω(q0,q1)     =  Σ b_i [A(q_{c_i}) Δq/h + b(t_{c_i}, q_{c_i})]
// (midpoint: A(q̄)Δq/h + b(t_{k+½}, q̄), consistent of order 2 with A q̇ + b = 0 at t_{k+½}, the
// time at which the midpoint rule's ω approximates it — README of plugins/integrators/mla). The
// velocity written back lies on the affine space: v = v_b + B(BᵀMB)⁻¹π, v_b = −M⁻¹Aᵀ(AM⁻¹Aᵀ)⁻¹b
// the M-orthogonal particular solution (BᵀM v_b = −(AB)ᵀ(…)b = 0, so π = BᵀMv still holds), and
// the energy on the affine space is H(q, π) = ½πᵀ(BᵀMB)⁻¹π + ½v_bᵀMv_b + V(q) (no cross term).
// The discrete forces of MLA take the field's multiplier at t_{c_i} (it holds ḃ).
//
// External forces F(t, q, v) (issue 30: inputs, feedback laws, the force −∂U/∂q of a potential U(t, q)
// that changes in time) enter as in the forced discrete Lagrange–d'Alembert principle (Marsden &
// West, Acta Numerica 10 (2001), §3.2, eq. (3.2.1)): the same quadrature as the reaction's,
//   discrete forces       F_d^∓ += h Σ b_i (1−c_i | c_i) F(t_{c_i}, q_{c_i}, Δq/h),
// in DLA and MLA alike (DLA's F_d is then F's alone). Midpoint: (h/2) F(t_{k+½}, q̄, Δq/h) on each
// side, consistent of order 2 and symmetric. For F = −∂U/∂q these are exactly the slot derivatives of
// U's part of L_d = h Σ b_i L(t_{c_i}, q_{c_i}, Δq/h), so a time-dependent potential is variational.
// The energy on D* gains U(t, q) (hamiltonian(t, …)).
// Every buffer is sized in bind(); no member allocates afterwards.
#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <dalembert/core/affine_constraint.hpp>
#include <dalembert/core/constraint_frame.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/math/llt_storage.hpp>
#include <dalembert/core/nonholonomic_field.hpp>
#include <dalembert/core/time_dependent_potential.hpp>
#include <string>
#include <vector>

namespace dalembert {

/// A quadrature rule on [0,1]: nodes c_i, weights b_i (Σ b_i = 1).
struct DiscreteRule {
  std::vector<double> nodes, weights;
  std::string name;
  static DiscreteRule midpoint() { return {{0.5}, {1.0}, "midpoint"}; }
  static DiscreteRule trapezoidal() { return {{0.0, 1.0}, {0.5, 0.5}, "trapezoidal"}; }
  static DiscreteRule gauss2() {
    const double d = 0.5 / std::sqrt(3.0);
    return {{0.5 - d, 0.5 + d}, {0.5, 0.5}, "gauss2"};
  }
  static DiscreteRule from_name(const std::string& n) {
    if (n == "midpoint") return midpoint();
    if (n == "trapezoidal") return trapezoidal();
    if (n == "gauss2") return gauss2();
    throw Error("unknown discrete rule '" + n + "' (midpoint, trapezoidal, gauss2)");
  }
};

/// The frame B(q) of D used by the discrete objects: the system's ConstraintFrame if it has one,
/// else the coordinate-graph frame: r dependent coordinates are chosen by Gauss–Jordan elimination
/// of A(q) with pivoting on magnitude (ties to the later coordinate), and each free coordinate j
/// gives the column e_j − Σ_a (W_aj / W_a,dep(a)) e_dep(a), W the reduced A. For the nonholonomic
/// particle (μ = (−y,0,1), |y| ≤ 1) this is the paper's frame e1 = ∂x + y∂z, e2 = ∂y. The choice is
/// a deterministic function of q, which is all the discrete flows need (π_k is always read in the
/// frame at q_k); H|D* does not depend on it.
class DistributionFrame {
 public:
  void bind(const ConstrainedLagrangian& model) {
    model_ = &model;
    frame_ = dynamic_cast<const ConstraintFrame*>(&model);
    n_ = model.dof();
    r_ = model.num_constraints();
    W_.resize(r_, n_);
    dep_.assign(r_, -1);
    is_dep_.assign(n_, 0);
  }
  bool system_frame() const { return frame_ != nullptr; }
  int n() const { return n_; }
  int k() const { return n_ - r_; }

  void evaluate(ConstVecRef q, MatRef B) {
    if (frame_) {
      frame_->frame(q, B);
      return;
    }
    model_->constraint_matrix(q, W_);
    std::fill(is_dep_.begin(), is_dep_.end(), 0);
    for (int a = 0; a < r_; ++a) {
      int best = -1;
      for (int j = 0; j < n_; ++j)
        if (!is_dep_[j] && (best < 0 || std::abs(W_(a, j)) >= std::abs(W_(a, best)))) best = j;
      if (W_(a, best) == 0.0) throw Error("default frame of D: the constraint rows are linearly dependent");
      dep_[a] = best;
      is_dep_[best] = 1;
      for (int b = 0; b < r_; ++b)
        if (b != a) W_.row(b) -= (W_(b, best) / W_(a, best)) * W_.row(a);
    }
    B.setZero();
    int c = 0;
    for (int j = 0; j < n_; ++j) {
      if (is_dep_[j]) continue;
      B(j, c) = 1.0;
      for (int a = 0; a < r_; ++a) B(dep_[a], c) = -W_(a, j) / W_(a, dep_[a]);
      ++c;
    }
  }

 private:
  const ConstrainedLagrangian* model_ = nullptr;
  const ConstraintFrame* frame_ = nullptr;
  int n_ = 0, r_ = 0;
  Mat W_;
  std::vector<int> dep_;
  std::vector<char> is_dep_;
};

class DiscreteNonholonomicMechanics {
 public:
  /// `forces` = false gives the DLA objects (spec 002 §3.3: MLA with F_d = 0).
  void bind(const ConstrainedLagrangian& model, DiscreteRule rule = DiscreteRule::midpoint(), bool forces = true) {
    model_ = &model;
    external_ = model.has_external_force();
    time_potential_ = time_dependent_potential_of(model);
    constant_mass_ = model.constant_mass();
    rule_ = std::move(rule);
    forces_ = forces;
    n_ = model.dof();
    r_ = model.num_constraints();
    k_hol_ = model.holonomic_count();
    ra_ = r_ - k_hol_;
    field_.bind(model);
    frame_.bind(model);
    M_.resize(n_, n_);
    if (constant_mass_) model.mass(Vec::Zero(n_), M_);  // else evaluated where it is needed
    kg_.resize(n_);
    u_.resize(n_);
    fp_.resize(n_);
    fm_.resize(n_);
    fe_.resize(n_);
    q1p_.resize(n_);
    D_.resize(n_, n_);
    H_.resize(n_, n_);
    DA_.resize(r_, n_);
    contractions_.bind(model);
    A_.resize(r_, n_);
    B_.resize(n_, n_ - r_);
    MB_.resize(n_, n_ - r_);
    S_.resize(n_ - r_, n_ - r_);
    size_llt(S_llt_, n_ - r_);
    qc_.resize(n_);
    v_.resize(n_);
    g_.resize(n_);
    qd_.resize(n_);
    vd_.resize(n_);
    P_.resize(n_);
    Pm_.resize(n_);
    w_.resize(n_ - r_);
    gq_.resize(k_hol_);
    Jg_.resize(k_hol_, n_);
    affine_ = affine_constraint_of(model);
    t0_ = 0.0;
    const int ar = affine_ ? r_ : 0;  // moving constraints' work (issue 30)
    b_.resize(ar);
    Bq_.resize(ar, affine_ ? n_ : 0);
    MinvAt_.resize(affine_ ? n_ : 0, ar);
    C_.resize(ar, ar);
    size_llt(C_llt_, ar);
  }

  /// The time t_k at the start of the step (q0 = q_k): b's nodes are at t_k + c_i h (issue 30).
  void at_time(double t0) { t0_ = t0; }
  /// True when the system's constraints move: A(q)v + b(t, q) = 0.
  bool affine() const { return affine_ != nullptr; }

  int n() const { return n_; }
  /// The rows of the constraint distribution C = [A; ∂g/∂q] (the discrete constraint ω has as many).
  int r() const { return r_; }
  int k() const { return n_ - r_; }
  /// The holonomic constraints g (the last holonomic() rows of C and of ω) and the rows of A.
  int holonomic() const { return k_hol_; }
  int nonholonomic() const { return ra_; }
  bool forces() const { return forces_; }
  const DiscreteRule& rule() const { return rule_; }
  bool constant_mass() const { return constant_mass_; }
  DistributionFrame& frame() { return frame_; }
  const ConstrainedLagrangian& model() const { return *model_; }

  /// L_d(q0,q1) = h Σ b_i [½ (Δq/h)ᵀM(q_{c_i})(Δq/h) − V(q_{c_i})]  (spec 002 §3.1; M(q): issue 14).
  double lagrangian(ConstVecRef q0, ConstVecRef q1, double h) {
    v_ = (q1 - q0) / h;
    double Ld = constant_mass_ ? 0.5 * h * v_.dot(M_ * v_) : 0.0;
    for (std::size_t i = 0; i < rule_.nodes.size(); ++i) {
      qc_ = q0 + rule_.nodes[i] * (q1 - q0);
      if (!constant_mass_) {
        model_->mass(qc_, M_);
        g_.noalias() = M_ * v_;
        Ld += 0.5 * h * rule_.weights[i] * v_.dot(g_);
      }
      Ld -= h * rule_.weights[i] * model_->potential(qc_);
    }
    return Ld;
  }

  /// D1L_d = −M Δq/h − h Σ b_i (1−c_i) ∇V(q_{c_i})  (spec 002 §3.1; M(q): the header's formula).
  void d1(ConstVecRef q0, ConstVecRef q1, double h, VecRef out) {
    constant_mass_ ? slots(q0, q1, h, out, out, true, false) : slots_configuration_mass(q0, q1, h, out, out, true, false);
  }
  /// D2L_d = M Δq/h − h Σ b_i c_i ∇V(q_{c_i})  (spec 002 §3.1; M(q): the header's formula).
  void d2(ConstVecRef q0, ConstVecRef q1, double h, VecRef out) {
    constant_mass_ ? slots(q0, q1, h, out, out, false, true) : slots_configuration_mass(q0, q1, h, out, out, false, true);
  }

  /// F_d^− (covector at q0) and F_d^+ (at q1): h Σ b_i w_i^∓ A(q_c)ᵀλ(q_c, Δq/h), w^− = 1−c, w^+ = c.
  /// Midpoint: both equal (h/2) λ(q̄, Δq/h) μ(q̄)ᵀ (spec 002 §3.1). Zero when forces are off (DLA).
  void force_minus(ConstVecRef q0, ConstVecRef q1, double h, VecRef out) { force(q0, q1, h, 0, out); }
  void force_plus(ConstVecRef q0, ConstVecRef q1, double h, VecRef out) { force(q0, q1, h, 1, out); }

  /// ω(q0,q1) = Σ b_i A(q_{c_i}) Δq/h  (r); midpoint: μ(q̄)Δq/h (spec 002 §3.1, eq. (43)); with
  /// holonomic constraints its last k rows are g(q1)/h (the header's note).
  void constraint(ConstVecRef q0, ConstVecRef q1, double h, VecRef omega) {
    v_ = (q1 - q0) / h;
    omega.setZero();
    if (k_hol_ == 0) {  // (the expressions of the seeds' runs, unchanged)
      for (std::size_t i = 0; i < rule_.nodes.size(); ++i) {
        qc_ = q0 + rule_.nodes[i] * (q1 - q0);
        model_->constraint_matrix(qc_, A_);
        omega.noalias() += rule_.weights[i] * (A_ * v_);
      }
      if (affine_) add_affine(q0, q1, h, omega);
      return;
    }
    if (ra_ > 0)
      for (std::size_t i = 0; i < rule_.nodes.size(); ++i) {
        qc_ = q0 + rule_.nodes[i] * (q1 - q0);
        model_->constraint_matrix(qc_, A_);
        omega.head(ra_).noalias() += rule_.weights[i] * (A_.topRows(ra_) * v_);
      }
    if (affine_) add_affine(q0, q1, h, omega);  // (b's rows of g are 0)
    model_->holonomic(q1, gq_);
    omega.tail(k_hol_) = gq_ / h;
  }

  /// P^+(q0,q1) = D2L_d + F_d^+, a covector at q1 (spec 002 §3.1).
  void legendre_plus(ConstVecRef q0, ConstVecRef q1, double h, VecRef P) {
    d2(q0, q1, h, P);
    if (any_forces()) {
      force(q0, q1, h, 1, g_);
      P += g_;
    }
  }
  /// P^−(q0,q1) = −D1L_d − F_d^−, a covector at q0 (spec 002 §3.1).
  void legendre_minus(ConstVecRef q0, ConstVecRef q1, double h, VecRef P) {
    d1(q0, q1, h, P);
    if (any_forces()) {
      force(q0, q1, h, 0, g_);
      P += g_;
    }
    P = -P;
  }

  /// J = ∂P^−(q0, q0+u)/∂u at q1 = q0 + u (n×n), the Newton Jacobian of the discrete Legendre
  /// transform, from the model's derivatives (issue 14). −D1L_d differentiated (header formula):
  ///   Σ b_i [M/h + c_i D − (1−c_i) Dᵀ − h c_i(1−c_i)(H_K − ∇²V)] at q_{c_i}, v = Δq/h,
  /// D = ∂_q(M(q)v), H_K = ½∂²_q(vᵀM(q)v) (both zero for a constant M); with forces (MLA's
  /// reaction, an external force) minus ∂F_d^−/∂u, by central differences of F_d^− (it holds the
  /// multiplier λ(q,v) of the field, and F(t, q, v), which the model gives without derivatives).
  void legendre_minus_jacobian(ConstVecRef q0, ConstVecRef q1, double h, MatRef J) {
    v_ = (q1 - q0) / h;
    J.setZero();
    for (std::size_t i = 0; i < rule_.nodes.size(); ++i) {
      const double c = rule_.nodes[i], b = rule_.weights[i];
      qc_ = q0 + c * (q1 - q0);
      if (!constant_mass_) model_->mass(qc_, M_);
      J.noalias() += (b / h) * M_;
      model_->potential_hessian(qc_, H_);
      J.noalias() += (b * h * c * (1.0 - c)) * H_;
      if (constant_mass_) continue;
      model_->mass_derivative(qc_, v_, D_);
      model_->kinetic_hessian(qc_, v_, H_);
      J.noalias() += (b * c) * D_;
      J.noalias() -= (b * (1.0 - c)) * D_.transpose();
      J.noalias() -= (b * h * c * (1.0 - c)) * H_;
    }
    if (!any_forces()) return;
    // − ∂F_d^−/∂u, column by column (step 1e-7 max(1, |u_j|), as the plugins' Newton differences).
    u_ = q1 - q0;
    for (int j = 0; j < n_; ++j) {
      const double d = 1e-7 * std::max(1.0, std::abs(u_[j]));
      q1p_ = q1;
      q1p_[j] += d;
      force(q0, q1p_, h, 0, fp_);
      q1p_[j] -= 2.0 * d;
      force(q0, q1p_, h, 0, fm_);
      J.col(j).noalias() -= (fp_ - fm_) / (2.0 * d);
    }
  }

  /// ∂ω(q0, q0+u)/∂u = Σ b_i [A(q_{c_i})/h + c_i DA[v](q_{c_i}) + c_i ∂b/∂q(t_{c_i}, q_{c_i})] (r×n),
  /// DA[w]_{aj} = Σ_i ∂A_{ai}/∂q^j w_i (the ∂b/∂q term with moving constraints only); the rows of g:
  /// ∂g/∂q(q1)/h.
  void constraint_jacobian(ConstVecRef q0, ConstVecRef q1, double h, MatRef J) {
    v_ = (q1 - q0) / h;
    J.setZero();
    if (k_hol_ == 0) {  // (the expressions of the seeds' runs, unchanged)
      for (std::size_t i = 0; i < rule_.nodes.size(); ++i) {
        const double c = rule_.nodes[i], b = rule_.weights[i];
        qc_ = q0 + c * (q1 - q0);
        model_->constraint_matrix(qc_, A_);
        J.noalias() += (b / h) * A_;
        if (c == 0.0) continue;
        contractions_.derivative(qc_, v_, DA_);
        J.noalias() += (b * c) * DA_;
      }
      if (affine_) add_affine_jacobian(q0, q1, h, J);
      return;
    }
    if (ra_ > 0)
      for (std::size_t i = 0; i < rule_.nodes.size(); ++i) {
        const double c = rule_.nodes[i], b = rule_.weights[i];
        qc_ = q0 + c * (q1 - q0);
        model_->constraint_matrix(qc_, A_);
        J.topRows(ra_).noalias() += (b / h) * A_.topRows(ra_);
        if (c == 0.0) continue;
        contractions_.derivative(qc_, v_, DA_);
        J.topRows(ra_).noalias() += (b * c) * DA_.topRows(ra_);
      }
    if (affine_) add_affine_jacobian(q0, q1, h, J);  // (zero on g's rows, overwritten below)
    model_->holonomic_jacobian(q1, Jg_);
    J.bottomRows(k_hol_).noalias() = (1.0 / h) * Jg_;
  }

  /// π^+(q0,q1) = B(q1)ᵀP^+(q0,q1) and π^−(q0,q1) = B(q0)ᵀP^−(q0,q1)  (spec 002 §3.1).
  void momentum_plus(ConstVecRef q0, ConstVecRef q1, double h, VecRef pi) {
    legendre_plus(q0, q1, h, P_);
    project(q1, P_, pi);
  }
  void momentum_minus(ConstVecRef q0, ConstVecRef q1, double h, VecRef pi) {
    legendre_minus(q0, q1, h, P_);
    project(q0, P_, pi);
  }
  /// π^−(q0,q1) and π^+(q0,q1) together: one pass over the quadrature nodes, each node's M v,
  /// K − ∇V and A(q_c)ᵀλ serving both slots (weights 1 − c_i and c_i). The same expressions, in the
  /// same order, as momentum_minus and momentum_plus (so the same numbers, bit for bit), at about
  /// half their cost: a step's π_{k+1} and its momentum-matching check (issue 28 item 6).
  void momenta(ConstVecRef q0, ConstVecRef q1, double h, VecRef pi_minus, VecRef pi_plus) {
    constant_mass_ ? slots(q0, q1, h, Pm_, P_, true, true) : slots_configuration_mass(q0, q1, h, Pm_, P_, true, true);
    if (any_forces()) {
      forces(q0, q1, h, fm_, fp_, true, true);
      P_ += fp_;
      Pm_ += fm_;
    }
    Pm_ = -Pm_;
    project(q1, P_, pi_plus);
    project(q0, Pm_, pi_minus);
  }

  /// π = B(q)ᵀ p (spec 002 §2.0).
  void project(ConstVecRef q, ConstVecRef p, VecRef pi) {
    frame_.evaluate(q, B_);
    pi.noalias() = B_.transpose() * p;
  }

  /// H|D*(q,π) = ½ πᵀ(BᵀMB)⁻¹π + V(q)  (spec 002 §2.0; frame independent).
  double hamiltonian(ConstVecRef q, ConstVecRef pi) {
    factor(q);
    w_ = S_llt_.solve(pi);
    return 0.5 * pi.dot(w_) + model_->potential(q);
  }
  /// With moving constraints, the energy at time t on the affine space A v + b(t, q) = 0 (header):
  /// H|D*(q, π) + ½ v_bᵀM v_b.
  /// With a potential U(t, q) that changes in time, + U(t, q).
  double hamiltonian(double t, ConstVecRef q, ConstVecRef pi) {
    double H = hamiltonian(q, pi);
    if (time_potential_) H += time_potential_->time_potential(t, q);
    if (!affine_) return H;
    particular_velocity(t, q, v_);
    g_.noalias() = M_ * v_;
    return H + 0.5 * v_.dot(g_);
  }
  /// The inverse Legendre transform on D: v = B (BᵀMB)⁻¹ π ∈ D_q.
  void velocity(ConstVecRef q, ConstVecRef pi, VecRef v) {
    factor(q);
    w_ = S_llt_.solve(pi);
    v.noalias() = B_ * w_;
  }
  /// With moving constraints, on the affine space at time t: v = v_b(t, q) + B (BᵀMB)⁻¹ π (header).
  void velocity(double t, ConstVecRef q, ConstVecRef pi, VecRef v) {
    velocity(q, pi, v);
    if (!affine_) return;
    particular_velocity(t, q, v_);
    v += v_;
  }
  /// π = B(q)ᵀ M(q) v (spec 002 §3.2 one-step form, item 3).
  void momentum_from_velocity(ConstVecRef q, ConstVecRef v, VecRef pi) {
    frame_.evaluate(q, B_);
    if (!constant_mass_) model_->mass(q, M_);
    P_.noalias() = M_ * v;
    pi.noalias() = B_.transpose() * P_;
  }

  /// The extended reaction force F_nh(q,v) = A(q)ᵀλ(q,v) (spec 002 §2.0, eq. (16)) of the rows of A
  /// (with holonomic constraints λ is the field's for C = [A; ∂g/∂q], the reaction of g left out).
  void reaction_force(ConstVecRef q, ConstVecRef v, VecRef F) {
    field_.evaluate(0.0, q, v, qd_, vd_);
    model_->constraint_matrix(q, A_);
    if (k_hol_ == 0)
      F.noalias() = A_.transpose() * field_.multiplier();
    else
      F.noalias() = A_.topRows(ra_).transpose() * field_.multiplier().head(ra_);
  }
  /// The continuous field (for exact flows and reference solutions).
  NonholonomicVectorField& field() { return field_; }

 private:
  void factor(ConstVecRef q) {
    frame_.evaluate(q, B_);
    if (!constant_mass_) model_->mass(q, M_);
    MB_.noalias() = M_ * B_;
    S_.noalias() = B_.transpose() * MB_;
    S_llt_.compute(S_);
  }
  // One pass over the quadrature nodes for D1L_d (into d1, node weight 1 − c_i) and/or D2L_d (into
  // d2, weight c_i), as `want1`/`want2` ask: a slot not asked for is not touched and a node neither
  // needs is skipped, so d1() or d2() alone costs what it did; momenta() fills both from one pass.
  // The constant-M form: ±M Δq/h − h Σ b_i w_i ∇V(q_{c_i}).
  void slots(ConstVecRef q0, ConstVecRef q1, double h, VecRef d1, VecRef d2, bool want1, bool want2) {
    v_ = (q1 - q0) / h;
    if (want2) {
      d2.noalias() = M_ * v_;  // (no temporary: v_ is preallocated)
      if (want1) d1 = -d2;
    } else {
      d1.noalias() = M_ * v_;
      d1 = -d1;
    }
    for (std::size_t i = 0; i < rule_.nodes.size(); ++i) {
      const double c = rule_.nodes[i], w1 = want1 ? 1.0 - c : 0.0, w2 = want2 ? c : 0.0;
      if (w1 == 0.0 && w2 == 0.0) continue;
      qc_ = q0 + c * (q1 - q0);
      model_->potential_gradient(qc_, g_);
      if (w1 != 0.0) d1.noalias() -= (h * rule_.weights[i] * w1) * g_;
      if (w2 != 0.0) d2.noalias() -= (h * rule_.weights[i] * w2) * g_;
    }
  }
  // The same for M(q): every node contributes ±b_i M(q_{c_i}) v, the weighted ones h b_i w (K − ∇V).
  void slots_configuration_mass(ConstVecRef q0, ConstVecRef q1, double h, VecRef d1, VecRef d2, bool want1,
                                bool want2) {
    v_ = (q1 - q0) / h;
    if (want1) d1.setZero();
    if (want2) d2.setZero();
    for (std::size_t i = 0; i < rule_.nodes.size(); ++i) {
      const double c = rule_.nodes[i], w1 = want1 ? 1.0 - c : 0.0, w2 = want2 ? c : 0.0;
      qc_ = q0 + c * (q1 - q0);
      model_->mass(qc_, M_);
      if (want1) d1.noalias() += (-rule_.weights[i]) * (M_ * v_);
      if (want2) d2.noalias() += rule_.weights[i] * (M_ * v_);
      if (w1 == 0.0 && w2 == 0.0) continue;
      model_->kinetic_gradient(qc_, v_, kg_);
      model_->potential_gradient(qc_, g_);
      kg_ -= g_;
      if (w1 != 0.0) d1.noalias() += (h * rule_.weights[i] * w1) * kg_;
      if (w2 != 0.0) d2.noalias() += (h * rule_.weights[i] * w2) * kg_;
    }
  }
  // MLA's reaction F_nh: on, and A has rows (with g alone F_nh = 0).
  bool reaction() const { return forces_ && !(k_hol_ > 0 && ra_ == 0); }
  bool any_forces() const { return reaction() || external_; }
  // F_d^− (into fm, weight 1 − c_i) and/or F_d^+ (into fp, weight c_i) in one pass, as slots():
  // h Σ b_i w_i [A(q_c)ᵀλ(q_c, Δq/h) + F(t_c, q_c, Δq/h)], λ the continuous field's multipliers of A's
  // rows (MLA only), F the external force. Zero for DLA without external force, or g alone.
  void forces(ConstVecRef q0, ConstVecRef q1, double h, VecRef fm, VecRef fp, bool want_minus, bool want_plus) {
    if (want_minus) fm.setZero();
    if (want_plus) fp.setZero();
    if (!any_forces()) return;
    v_ = (q1 - q0) / h;
    for (std::size_t i = 0; i < rule_.nodes.size(); ++i) {
      const double c = rule_.nodes[i];
      const double w[2] = {want_minus ? 1.0 - c : 0.0, want_plus ? c : 0.0};
      if (w[0] == 0.0 && w[1] == 0.0) continue;
      qc_ = q0 + c * (q1 - q0);
      // (t_c: λ holds ḃ and F at t_c, issue 30; 0 for an autonomous system, as the seeds ran)
      const double tc = affine_ || external_ ? t0_ + c * h : 0.0;
      if (external_) model_->external_force(tc, qc_, v_, fe_);
      if (reaction()) {
        field_.evaluate(tc, qc_, v_, qd_, vd_);
        model_->constraint_matrix(qc_, A_);
      }
      for (int side = 0; side < 2; ++side) {
        if (w[side] == 0.0) continue;
        VecRef out = side == 0 ? fm : fp;
        if (external_) out.noalias() += (h * rule_.weights[i] * w[side]) * fe_;
        if (!reaction()) continue;
        if (k_hol_ == 0)
          out.noalias() += (h * rule_.weights[i] * w[side]) * (A_.transpose() * field_.multiplier());
        else  // F_nh of A's rows only (the header's note on holonomic constraints)
          out.noalias() +=
              (h * rule_.weights[i] * w[side]) * (A_.topRows(ra_).transpose() * field_.multiplier().head(ra_));
      }
    }
  }
  // ω += Σ b_i b(t_{c_i}, q_{c_i}) (issue 30).
  void add_affine(ConstVecRef q0, ConstVecRef q1, double h, VecRef omega) {
    for (std::size_t i = 0; i < rule_.nodes.size(); ++i) {
      qc_ = q0 + rule_.nodes[i] * (q1 - q0);
      affine_->affine_term(t0_ + rule_.nodes[i] * h, qc_, b_);
      omega.noalias() += rule_.weights[i] * b_;
    }
  }
  // ∂ω/∂u += Σ b_i c_i ∂b/∂q(t_{c_i}, q_{c_i}) (issue 30).
  void add_affine_jacobian(ConstVecRef q0, ConstVecRef q1, double h, MatRef J) {
    for (std::size_t i = 0; i < rule_.nodes.size(); ++i) {
      const double c = rule_.nodes[i];
      if (c == 0.0) continue;
      qc_ = q0 + c * (q1 - q0);
      affine_->affine_jacobian(t0_ + c * h, qc_, Bq_);
      J.noalias() += (rule_.weights[i] * c) * Bq_;
    }
  }
  // v_b = −M⁻¹Aᵀ(AM⁻¹Aᵀ)⁻¹ b(t, q), the M-orthogonal solution of A v + b = 0; leaves M(q) in M_.
  void particular_velocity(double t, ConstVecRef q, VecRef vb) {
    model_->constraint_matrix(q, A_);
    MinvAt_ = A_.transpose();
    field_.solve_mass(q, MinvAt_);
    C_.noalias() = A_ * MinvAt_;
    C_llt_.compute(C_);
    affine_->affine_term(t, q, b_);
    C_llt_.solveInPlace(b_);
    vb.noalias() = MinvAt_ * b_;
    vb = -vb;
    if (!constant_mass_) model_->mass(q, M_);
  }
  // One side of forces(): 0 F_d^−, 1 F_d^+.
  void force(ConstVecRef q0, ConstVecRef q1, double h, int side, VecRef out) {
    forces(q0, q1, h, out, out, side == 0, side == 1);
  }

  const ConstrainedLagrangian* model_ = nullptr;
  DiscreteRule rule_ = DiscreteRule::midpoint();
  bool forces_ = true, constant_mass_ = true, external_ = false;
  const TimeDependentPotential* time_potential_ = nullptr;  // U(t, q): its value in the energy
  int n_ = 0, r_ = 0, k_hol_ = 0, ra_ = 0;  // r_ = ra_ + k_hol_: the rows of A and of g
  NonholonomicVectorField field_;
  DistributionFrame frame_;
  Mat M_, A_, B_, MB_, S_;  // M_: constant M, or M(q) at the last point evaluated
  Mat D_, H_, DA_;          // Jacobian work: ∂_q(Mv), ½∂²_q(vᵀMv) or ∇²V, DA[v]
  ConstraintContractions contractions_;
  Eigen::LLT<Mat> S_llt_;
  Vec qc_, v_, g_, kg_, qd_, vd_, P_, Pm_, w_, u_, fp_, fm_, fe_, q1p_;
  Vec gq_;   // g(q1)
  Mat Jg_;   // ∂g/∂q(q1)
  // Moving constraints (issue 30): b(t, q), ∂b/∂q, M⁻¹Aᵀ, AM⁻¹Aᵀ; t_k of the step.
  const AffineConstraint* affine_ = nullptr;
  double t0_ = 0.0;
  Vec b_;
  Mat Bq_, MinvAt_, C_;
  Eigen::LLT<Mat> C_llt_;
};

}  // namespace dalembert
