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
  virtual int num_constraints() const = 0;  ///< r

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

  /// A(q), r×n: one row per constraint one-form μ^a.
  virtual void constraint_matrix(ConstVecRef q, MatRef A) const = 0;
  /// G^a_{ij} = ∂A_{ai}/∂q^j for constraint a (n×n). Every contraction the framework needs —
  /// (∂A/∂q)[v]v, DA[w], Σ_a λ_a ∂A_a — is formed from it.
  virtual void constraint_gradient(ConstVecRef q, int a, MatRef G) const = 0;

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
  double constraint_residual(const State&) const override;  ///< ‖A(q)v‖∞
  bool project(State&) const override;                  ///< v ← P(q)v, P = I − M⁻¹Aᵀ C⁻¹ A
};

}  // namespace dalembert
