#pragma once
// What a system offers plugins (its capabilities) and whether it meets what a plugin declares it
// needs (PluginDescriptor::needs). A capability is
//   * a model the system derives from, by its name: ConstrainedLagrangian, LieGroupModel,
//     RigidBodyModel, ConstraintFrame, Guarded, ExactEventLocator, AutomaticDerivatives,
//     CompiledSchemes, Linearizable, UnitQuaternionCoordinates, TimeDependentPotential (a potential
//     U(t, q) that changes in time, issue 30: its force is part of the external force, so such a
//     system is not Unforced);
//   * or a property: ExactSolution (System::has_exact_solution()), ConstantMass and Unforced (a
//     ConstrainedLagrangian with a constant mass matrix; without external force),
//     HolonomicConstraints (a ConstrainedLagrangian with holonomic constraints g(q) = 0, issue 28),
//     CoordinateVelocities (v = q̇: every ConstrainedLagrangian and a LieGroupModel on SE(2); not a
//     LieGroupModel on SO(3), whose q is a quaternion and v the body angular velocity, issue 29),
//     ShapeFree (a LieGroupModel without shape variables, dim S = 0: the sleigh, the Suslov problem),
//     AffineConstraints (a ConstrainedLagrangian with moving constraints A(q)v + b(t, q) = 0, issue 30).
// HolonomicConstraints and AffineConstraints are also capabilities an integrator must declare it treats: a system that has
// it binds only to an integrator whose needs include "treats HolonomicConstraints" (a declaration,
// met by every system); unmet_integrator_need() says so, and the study refuses the others before
// bind(), naming the integrators that treat it.
#include <boost/config.hpp>
#include <dalembert/core/system.hpp>
#include <dalembert/plugin/descriptor.hpp>
#include <string>
#include <vector>

namespace dalembert {

/// Every capability `system` has, models first.
BOOST_SYMBOL_VISIBLE std::vector<std::string> capabilities_of(const System& system);

/// Whether `system` meets `need` (one capability, or alternatives joined by " or "). An unknown
/// capability name is an Error naming it and the known ones.
BOOST_SYMBOL_VISIBLE bool meets(const System& system, const std::string& need);

/// The first of `needs` that `system` does not meet; "" when it meets them all.
BOOST_SYMBOL_VISIBLE std::string unmet_need(const System& system, const Needs& needs);

/// The needs entry by which an integrator declares it treats `capability` ("treats " + capability).
BOOST_SYMBOL_VISIBLE std::string treats(const std::string& capability);
/// The capabilities a system may have that an integrator must declare it treats: HolonomicConstraints,
/// AffineConstraints.
BOOST_SYMBOL_VISIBLE const std::vector<std::string>& treated_capabilities();
/// For an integrator: unmet_need(), else "treats C" for the first capability C of
/// treated_capabilities() that `system` has and `needs` does not declare treated; "" when it binds.
BOOST_SYMBOL_VISIBLE std::string unmet_integrator_need(const System& system, const Needs& needs);

}  // namespace dalembert
