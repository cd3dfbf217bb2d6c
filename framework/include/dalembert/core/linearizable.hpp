#pragma once
// The Linearizable model (issue 28 item 4): a system that declares a one-parameter family of steady
// motions (the bicycle or the disk upright at speed v) and linearises its reduced dynamics about any
// state, exactly. The linear_stability study kind asks for it: it sweeps the family's parameter,
// computes the eigenvalues of the linearisation, tracks their branches and locates the parameter
// values where stability changes.
//
// The reduced dynamics live on the constraint manifold: for n coordinates with r nonholonomic
// constraints A(q)q̇ = 0 and h holonomic ones g(q) = 0, there are n − h independent coordinates and
// n − r − h independent speeds. A ReducedVariables names which of them the linearisation keeps:
//   minimal    coordinates whose perturbations δq_m are kept, with their rates δq̇_m (the bicycle's
//              roll and steer, the disk's tilt);
//   dependent  h coordinates solved from g(q) = 0 (the bicycle's pitch);
//   speeds     further independent speeds kept (the disk's heading and spin rates);
//   held       further independent speeds held at their steady values (the bicycle's rear wheel
//              rate): the kept variables must not depend on them, which linearise() measures
//              (held_coupling) — then the kept block's eigenvalues are eigenvalues of the whole.
// Every other coordinate is ignorable (it appears in none of the kept equations at the steady
// motion: positions on the ground, heading, wheel angles) and is left unperturbed.
// The state of the linear system is y = (δq_m, δq̇_m, δq̇_s), ẏ = state · y.
//
// An L-and-A model gets this model by declaring its family (schemes/fixed_lagrangian_system.hpp):
//   SteadyMotionFamily steady_family() const;                   // names and reduced variables
//   void steady_state(double value, auto&& q, auto&& qd) const;  // the steady motion at `value`
// and the framework derives the linearisation by nested forward-mode AD (core/model_linearisation.hpp).
#include <boost/config.hpp>
#include <dalembert/core/state.hpp>
#include <string>
#include <vector>

namespace dalembert {

/// Which coordinates and speeds a linearisation keeps (indices into q and v; see the header comment).
struct ReducedVariables {
  std::vector<int> minimal, dependent, speeds, held;
};

/// A one-parameter family of steady motions: its name, its parameter, one line saying what it is,
/// and the variables in which it is linearised.
struct SteadyMotionFamily {
  std::string name;         ///< e.g. "upright_rolling" (a safe name)
  std::string parameter;    ///< e.g. "v"
  std::string description;  ///< e.g. "upright straight rolling, contact point at speed v (m/s)"
  ReducedVariables variables;
};

/// The linearisation of the reduced dynamics about a state, in the variables y = (δq_m, δq̇_m, δq̇_s).
struct Linearisation {
  Mat state;                   ///< ẏ = state · y (2m + s square)
  Mat mass, damping, stiffness;  ///< m × m: mass δq̈_m + damping δq̇_m + stiffness δq_m = 0 when s = 0
                                 ///< (for the bicycle: M, v C1, g K0 + v² K2 of Meijaard et al. 2007)
  std::vector<std::string> names;  ///< y's entries, from the layout ("theta", "thetadot", "phidot", ...)
  double held_coupling = 0.0;  ///< largest |∂ẏ/∂(held speeds)|, relative to the largest entry of state
  double steady_residual = 0.0;  ///< ‖q̈‖∞ at the state (0 for a steady motion with constant speeds)
  double holonomic_residual = 0.0;  ///< ‖g(q)‖∞ at the state
};

class BOOST_SYMBOL_VISIBLE Linearizable {
 public:
  static constexpr const char* model_name = "Linearizable";
  virtual ~Linearizable();

  /// The family of steady motions the system declares.
  virtual SteadyMotionFamily steady_family() const = 0;
  /// The steady motion of the family at parameter `value` (t = 0).
  virtual void steady_state(double value, State& s) const = 0;
  /// The exact linearisation of the reduced dynamics about s in `variables` (by AD, no difference
  /// quotient). Throws std::runtime_error (or dalembert::Error) for variables that do not reduce the system (wrong counts,
  /// a singular constrained system).
  virtual void linearise(const State& s, const ReducedVariables& variables, Linearisation& out) const = 0;
  /// The state s perturbed by dy in the reduced variables y = (δq_m, δq̇_m, δq̇_s), to first order on
  /// the constraints (the dependent coordinates and speeds from g = 0 and C q̇ = 0, the held speeds
  /// and ignorable coordinates unperturbed): out.q = s.q + T δq_m, out.v = s.v + Wq δq_m + Wu δu. A
  /// central difference through it differentiates a discrete step map in the same variables.
  virtual void perturbed_state(const State& s, const ReducedVariables& variables, const Vec& dy, State& out) const = 0;
};

}  // namespace dalembert
