#pragma once
// The AffineConstraint model (issue 30 item 1): moving (rheonomic) constraints
//   A(q)v + b(t, q) = 0,
// e.g. a ball rolling on a turntable, whose contact point must move with the table (b = −(velocity
// of the table under the contact)). A ConstrainedLagrangian system that also derives from this class
// has the capability "AffineConstraints"; an integrator that treats them declares "treats
// AffineConstraints" (plugin/needs.hpp) and asks require<ConstrainedLagrangian>(s, who,
// Treats::HolonomicConstraints | Treats::AffineConstraints) — every other is refused, by name, before bind().
// b has num_constraints() entries, one per row of C = [A; ∂g/∂q]; the rows of g are zero (a
// holonomic constraint here is scleronomic). An L-and-A model declares b(t, q) generic in the scalar
// (schemes/fixed_lagrangian_system.hpp) and the framework derives ∂b/∂q and ∂b/∂t by AD.
#include <boost/config.hpp>
#include <dalembert/core/constrained_lagrangian.hpp>

namespace dalembert {

class BOOST_SYMBOL_VISIBLE AffineConstraint {
 public:
  static constexpr const char* model_name = "AffineConstraint";
  virtual ~AffineConstraint();

  /// b(t, q), num_constraints() entries (the rows of g: 0).
  virtual void affine_term(double t, ConstVecRef q, VecRef b) const = 0;
  /// ḃ = ∂b/∂t + (∂b/∂q) v: the derivative of b along a motion through (t, q) with velocity v — the
  /// term d/dt(A q̇ + b) = A q̈ + (∂A/∂q)[v]v + ḃ adds to the multiplier solve (nonholonomic_field.hpp).
  virtual void affine_rate(double t, ConstVecRef q, ConstVecRef v, VecRef bdot) const = 0;
  /// ∂b/∂q (num_constraints() × n).
  virtual void affine_jacobian(double t, ConstVecRef q, MatRef B) const = 0;
  /// ∂b/∂t (num_constraints()).
  virtual void affine_time_derivative(double t, ConstVecRef q, VecRef bt) const = 0;
};

/// The system's AffineConstraint, or nullptr when its constraints are linear (A(q)v = 0).
inline const AffineConstraint* affine_constraint_of(const ConstrainedLagrangian& model) {
  return dynamic_cast<const AffineConstraint*>(&model);
}

}  // namespace dalembert
