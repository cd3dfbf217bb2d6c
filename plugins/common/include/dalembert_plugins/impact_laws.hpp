#pragma once
// The linear algebra of every impact law of spec 004 §2 ("Linear algebra used by every impact
// map"; paper eqs. 5, 15–21), written once from M(q), A(q) and dh(q):
//   Minv = M⁻¹, gradh = Minv dhᵀ (∇h = dh♯), W = Minv Aᵀ (eq. 19), a_low = (A Minv Aᵀ)⁻¹ (eq. 19),
//   pi = I − Minv Aᵀ a_low A (g-orthogonal projector onto Δ = ker A, eq. 21), u = pi gradh,
//   r = (dh u)/(dh Minv dhᵀ) ∈ (0, 1].
// With no constraints (m = 0) pi = I, u = gradh and r = 1. Buffers are sized by resize(); the
// maps themselves do not allocate.
#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <Eigen/LU>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/impact_map.hpp>
#include <string>

namespace dalembert {

class ImpactGeometry {
 public:
  using Mat = Eigen::MatrixXd;
  using Vec = Eigen::VectorXd;

  void resize(int n, int m) {
    n_ = n;
    m_ = m;
    Minv_.resize(n, n);
    W_.resize(n, m);
    a_low_.resize(m, m);
    pi_.resize(n, n);
    gradh_.resize(n);
    u_.resize(n);
    dh_.resize(n);
    tmp_.resize(n);
  }

  /// Fills every quantity at one impact configuration. M is n×n SPD, A is m×n, dh has length n.
  void compute(const Mat& M, const Mat& A, const Vec& dh) {
    dh_ = dh;
    Minv_ = M.llt().solve(Mat::Identity(n_, n_));  // Minv = M⁻¹
    gradh_.noalias() = Minv_ * dh;                  // gradh = Minv dhᵀ
    pi_.setIdentity();
    if (m_ > 0) {
      W_.noalias() = Minv_ * A.transpose();                                // W = Minv Aᵀ (eq. 19)
      a_low_ = (A * W_).inverse();                                         // a_low = (A Minv Aᵀ)⁻¹ (eq. 19)
      pi_.noalias() -= W_ * a_low_ * A;                                    // pi = I − Minv Aᵀ a_low A (eq. 21)
    }
    u_.noalias() = pi_ * gradh_;    // u = pi gradh, the "nonholonomic normal" (spec 004 §2)
    grad_sq_ = dh.dot(gradh_);      // |∇h|² = dh Minv dhᵀ
    u_sq_ = dh.dot(u_);             // |u|²_g = dh u
    r_ = u_sq_ / grad_sq_;          // r ∈ (0, 1]
  }

  const Mat& inverse_mass() const { return Minv_; }
  const Mat& projector() const { return pi_; }         ///< pi (eq. 21)
  const Mat& multiplier_matrix() const { return a_low_; }  ///< a_low (eq. 19)
  const Vec& gradient() const { return gradh_; }       ///< ∇h = Minv dhᵀ
  const Vec& normal() const { return u_; }             ///< u = pi ∇h
  double grad_sq() const { return grad_sq_; }          ///< dh Minv dhᵀ
  double u_sq() const { return u_sq_; }                ///< dh u
  double r() const { return r_; }                      ///< (dh u)/(dh Minv dhᵀ)

  /// (a) Unconstrained/holonomic law with restitution e (Thm III.1, eqs. 3–6):
  ///     P_e(q̇) = q̇ − (1+e)(dh q̇)/(dh Minv dhᵀ) ∇h.   e = 1: the variational P (eq. 5).
  void unconstrained(Vec& v, double e) const { v -= ((1.0 + e) * dh_.dot(v) / grad_sq_) * gradh_; }

  /// (b) Elastic nonholonomic impact (eqs. 14–17, Prop IV.1, Def IV.3), for q̇⁻ ∈ Δ:
  ///     α = −2 (dh q̇⁻)/(dh u),  q̇⁺ = q̇⁻ + α u.
  void elastic(Vec& v) const { v += (-2.0 * dh_.dot(v) / u_sq_) * u_; }

  /// Nonholonomic impact with restitution e (spec 004 §6.5 extension, labelled as such):
  ///     q̇⁺ = q̇⁻ − (1+e)(dh q̇⁻)/(dh u) u.  e = 1 is (b); dh q̇⁺ = −e dh q̇⁻.
  void nonholonomic_restitution(Vec& v, double e) const { v += (-(1.0 + e) * dh_.dot(v) / u_sq_) * u_; }

  /// (c) Plastic nonholonomic impact (Def IV.4, eq. 18/20): q̇⁺ = pi · P_1(q̇⁻), valid for any q̇⁻.
  void plastic(Vec& v) {
    unconstrained(v, 1.0);       // P_1 (eq. 5 / 28–29)
    tmp_.noalias() = pi_ * v;    // pi (eq. 21 / 32–33)
    v = tmp_;
  }

  /// The elastic multipliers of (b): α = −2(dh q̇⁻)/(dh u), λ = −α a_low A Minv dhᵀ (eq. 16).
  double elastic_alpha(const Vec& v_minus) const { return -2.0 * dh_.dot(v_minus) / u_sq_; }

 private:
  int n_ = 0, m_ = 0;
  Mat Minv_, W_, a_low_, pi_;
  Vec gradh_, u_, dh_, tmp_;
  double grad_sq_ = 1.0, u_sq_ = 1.0, r_ = 1.0;
};

/// Base of the impact laws of spec 004 §2: binds to a ConstrainedLagrangian + Guarded system and
/// evaluates M(q), A(q), dh_σ(q) and the ImpactGeometry at an impact state. Header-only, so an
/// impact plugin derives from it without depending on another plugin.
class LagrangianImpactMap : public ImpactMap {
 public:
  explicit LagrangianImpactMap(std::string who, ImpactHandling handling = {})
      : who_(std::move(who)), handling_(std::move(handling)) {}

  void bind(const System& s) override {
    model_ = dynamic_cast<const ConstrainedLagrangian*>(&s);
    guarded_ = dynamic_cast<const Guarded*>(&s);
    if (!model_)
      throw Error("impact law '" + who_ + "' needs model " + ConstrainedLagrangian::model_name + "; system '" +
                  s.name() + "' does not provide it");
    if (!guarded_)
      throw Error("impact law '" + who_ + "' needs model " + Guarded::model_name + "; system '" + s.name() +
                  "' does not provide it");
    n_ = model_->dof();
    m_ = model_->num_constraints();
    M_.resize(n_, n_);
    A_.resize(m_, n_);
    dh_.resize(n_);
    geo_.resize(n_, m_);
    check_system(s);
  }
  ImpactHandling handling() const override { return handling_; }

  /// The geometry at the state's configuration for guard σ (also used by tests).
  const ImpactGeometry& geometry(const State& s, int sigma) {
    if (!model_) throw Error("impact law '" + who_ + "' used before bind()");
    if (sigma < 0 || sigma >= guarded_->num_guards())
      throw Error("impact law '" + who_ + "': guard index " + std::to_string(sigma) + " out of range");
    model_->mass(s.q, M_);
    if (m_ > 0) model_->constraint_matrix(s.q, A_);
    guarded_->guard_gradient(sigma, s.q, dh_);
    geo_.compute(M_, A_, dh_);
    return geo_;
  }

 protected:
  virtual void check_system(const System&) {}
  const std::string& who() const { return who_; }
  const Guarded& guarded() const { return *guarded_; }
  int constraints() const { return m_; }
  ImpactGeometry& geo() { return geo_; }

 private:
  std::string who_;
  ImpactHandling handling_;
  const ConstrainedLagrangian* model_ = nullptr;
  const Guarded* guarded_ = nullptr;
  int n_ = 0, m_ = 0;
  Eigen::MatrixXd M_, A_;
  Eigen::VectorXd dh_;
  ImpactGeometry geo_;
};

}  // namespace dalembert
