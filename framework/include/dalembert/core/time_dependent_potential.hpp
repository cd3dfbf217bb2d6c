#pragma once
// The TimeDependentPotential model (issue 30 item 1): a potential that changes in time,
//   L(t, q, v) = ½vᵀM(q)v − V(q) − U(t, q),
// e.g. a field whose strength or direction is driven (a tilting plane, a pulsating spring). V(q) stays
// the ConstrainedLagrangian's potential; U(t, q) is the time-dependent part. Its force −∂U/∂q(t, q)
// is part of the system's external_force(t, q, v) (has_external_force() is then true), so every scheme
// that treats external forces treats U, and one that does not refuses the system as it refuses any
// forced one. For the variational schemes this is exact, not an approximation: the slot derivatives
// of the quadrature L_d = h Σ b_i L(t_{c_i}, q_{c_i}, Δq/h) are those of the U-free L_d plus the
// discrete forces F_d^∓ = h Σ b_i (1−c_i | c_i) (−∂U/∂q)(t_{c_i}, q_{c_i}), the forced discrete
// Lagrange–d'Alembert principle's quadrature of the same force (plugins/integrators/mla/README.md).
//
// Energy is E(t, q, v) = ½vᵀMv + V(q) + U(t, q) (System::energy at the state's t), and along a motion
//   dE/dt = F·v − λᵀb + ∂U/∂t,   F = external_force (which holds −∂U/∂q), v·∂U/∂q added back,
// i.e. the power of the forces other than U's, of the moving constraints, and ∂U/∂t: what the
// energy_balance observer integrates. An L-and-A model declares U generic in the scalar (t and q;
// schemes/fixed_lagrangian_system.hpp), and the framework derives ∂U/∂q and ∂U/∂t by AD;
// `dalembert check` compares them with differences of U.
#include <boost/config.hpp>
#include <dalembert/core/constrained_lagrangian.hpp>

namespace dalembert {

class BOOST_SYMBOL_VISIBLE TimeDependentPotential {
 public:
  static constexpr const char* model_name = "TimeDependentPotential";
  virtual ~TimeDependentPotential();

  /// U(t, q).
  virtual double time_potential(double t, ConstVecRef q) const = 0;
  /// ∂U/∂q (t, q), n entries (its negative is part of external_force).
  virtual void time_potential_gradient(double t, ConstVecRef q, VecRef g) const = 0;
  /// ∂U/∂t (t, q): the power the driven potential puts in at rest.
  virtual double time_potential_rate(double t, ConstVecRef q) const = 0;
};

/// The system's TimeDependentPotential, or nullptr when its potential does not depend on t.
inline const TimeDependentPotential* time_dependent_potential_of(const ConstrainedLagrangian& model) {
  return dynamic_cast<const TimeDependentPotential*>(&model);
}

}  // namespace dalembert
