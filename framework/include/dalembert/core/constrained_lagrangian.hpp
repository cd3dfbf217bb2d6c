#pragma once
// The ConstrainedLagrangian model (DESIGN §2): L(q,v) = ½ vᵀM(q)v − V(q) with r linear
// constraints A(q)v = 0 and an optional external force. The framework derives from it the
// continuous nonholonomic vector field (spec 000 §2.0), which any general-purpose method integrates.
#include <Eigen/Core>
#include <boost/config.hpp>
#include <dalembert/core/state.hpp>
#include <dalembert/core/system.hpp>

namespace dalembert {

using ConstVecRef = Eigen::Ref<const Vec>;
using VecRef = Eigen::Ref<Vec>;
using MatRef = Eigen::Ref<Mat>;

class BOOST_SYMBOL_VISIBLE ConstrainedLagrangian {
 public:
  static constexpr const char* model_name = "ConstrainedLagrangian";
  virtual ~ConstrainedLagrangian();

  virtual int dof() const = 0;              ///< n
  /// r: the rows of the constraint distribution C(q)v = 0, the last holonomic_count() of which are
  /// the velocity form ∂g/∂q v = 0 of the holonomic constraints (issue 28).
  virtual int num_constraints() const = 0;

  /// M(q), symmetric positive definite, n×n.
  virtual void mass(ConstVecRef q, MatRef M) const = 0;
  /// True when M does not depend on q (then coriolis() is zero). Every seed-000 example.
  virtual bool constant_mass() const { return true; }
  /// Ṁv − ½ ∂_q(vᵀM v): the velocity-dependent terms of the Euler–Lagrange equations.
  virtual void coriolis(ConstVecRef q, ConstVecRef v, VecRef c) const { c.setZero(); }
  /// k = ½ ∂_q(vᵀM(q)v) at fixed v (n): the configuration gradient of the kinetic energy, which the
  /// discrete Lagrangians of a configuration-dependent M need (issue 14). Zero for a constant M. An
  /// L-and-A system (FixedLagrangianSystem) gives it by AD; this default differentiates mass() by
  /// fourth-order central differences (relative error ~1e-11), for plain LagrangianSystems.
  virtual void kinetic_gradient(ConstVecRef q, ConstVecRef v, VecRef k) const;
  /// D = ∂_q(M(q)v) at fixed v (n×n; column j is (∂M/∂q^j)v) and H = ½∂²_q(vᵀM(q)v) (n×n): with ∇²V
  /// and DA[w], what the Newton Jacobians of the discrete Lagrangians of an M(q) need. Zero for a
  /// constant M. An L-and-A system gives D by AD; the defaults differentiate mass() and
  /// kinetic_gradient() by fourth-order central differences — H is always that difference of
  /// kinetic_gradient() (AD's for an L-and-A system): a model's M(q) written with double constants
  /// (`M << m, 0.0, …`) cannot be evaluated on the nested duals a second derivative by AD needs.
  virtual void mass_derivative(ConstVecRef q, ConstVecRef v, MatRef D) const;
  virtual void kinetic_hessian(ConstVecRef q, ConstVecRef v, MatRef H) const;

  virtual double potential(ConstVecRef q) const = 0;
  virtual void potential_gradient(ConstVecRef q, VecRef g) const = 0;     ///< ∇V, n
  virtual void potential_hessian(ConstVecRef q, MatRef H) const = 0;      ///< ∇²V, n×n

  /// A(q), r×n: one row per constraint one-form μ^a. With holonomic constraints the distribution
  /// is C = [A; ∂g/∂q]: its last holonomic_count() rows are ∂g/∂q, so every scheme that keeps
  /// C(q)v = 0 keeps the velocity form of g (issue 28).
  virtual void constraint_matrix(ConstVecRef q, MatRef A) const = 0;
  /// G^a_{ij} = ∂A_{ai}/∂q^j for constraint a (n×n); ∇²g_b for the row of ∂g_b/∂q. Every
  /// contraction the framework needs — (∂A/∂q)[v]v (vᵀ∇²g v for the rows of g: the second
  /// derivative of g along v), DA[w], Σ_a λ_a ∂A_a — is formed from it.
  virtual void constraint_gradient(ConstVecRef q, int a, MatRef G) const = 0;

  // ----- holonomic constraints g(q) = 0 (issue 28; none by default) -----
  /// k: the number of holonomic constraints, the last k of the num_constraints() rows of C.
  virtual int holonomic_count() const { return 0; }
  /// g(q), k entries: zero on the constraint manifold.
  virtual void holonomic(ConstVecRef q, VecRef g) const {}
  /// ∂g/∂q (k×n): the last k rows of constraint_matrix() (this default reads them there).
  virtual void holonomic_jacobian(ConstVecRef q, MatRef J) const;
  /// ‖g(q)‖∞ (0 without holonomic constraints). Allocates nothing after its first call on a thread.
  double holonomic_residual(ConstVecRef q) const;
  /// The configuration projected onto g(q) = 0: Newton's iteration q ← q − M⁻¹Jᵀ(JM⁻¹Jᵀ)⁻¹ g(q),
  /// J = ∂g/∂q, M = M(q) (each correction the shortest in the kinetic-energy metric), until
  /// ‖g(q)‖∞ ≤ relative (1 + ‖q‖∞) at the current q (holonomic_tolerance's form) or no progress;
  /// true when it got there. Allocates (not for a step).
  bool project_configuration(VecRef q, double relative = 1e-12) const;

  /// Generalised external force F(t,q,v) entering M q̈ = −∇V + F + Aᵀλ.
  virtual bool has_external_force() const { return false; }
  virtual void external_force(double t, ConstVecRef q, ConstVecRef v, VecRef f) const { f.setZero(); }
};

/// A System that is a ConstrainedLagrangian: energy, constraint residual and the M-orthogonal
/// projection onto D_q come from the model, so a plugin writes only the model and its layout.
class BOOST_SYMBOL_VISIBLE LagrangianSystem : public System, public ConstrainedLagrangian {
 public:
  ~LagrangianSystem() override;
  double energy(const State&) const override;          ///< ½vᵀM(q)v + V(q)
  double constraint_residual(const State&) const override;  ///< ‖A(q)v‖∞ (C = [A; ∂g/∂q] with g)
  /// With holonomic constraints first q onto g(q) = 0 (project_configuration, to
  /// holonomic_tolerance), then v ← P(q)v, P = I − M⁻¹Aᵀ C⁻¹ A; false if Newton did not reach g = 0.
  bool project(State&) const override;
};

/// The tolerance on ‖g(q)‖∞ of a state on the constraint manifold: 1e-12 (1 + ‖q‖∞), as
/// constraint_tolerance is for ‖A(q)v‖∞.
inline double holonomic_tolerance(const State& s) {
  return 1e-12 * (1.0 + (s.q.size() > 0 ? s.q.lpNorm<Eigen::Infinity>() : 0.0));
}

}  // namespace dalembert
