#pragma once
// What a system offers plugins (its capabilities) and whether it meets what a plugin declares it
// needs (PluginDescriptor::needs). A capability is
//   * a model the system derives from, by its name: ConstrainedLagrangian, LieGroupModel,
//     RigidBodyModel, ConstraintFrame, Guarded, ExactEventLocator, AutomaticDerivatives,
//     CompiledSchemes, Linearizable;
//   * or a property: ExactSolution (System::has_exact_solution()), ConstantMass and Unforced (a
//     ConstrainedLagrangian with a constant mass matrix; without external force).
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

}  // namespace dalembert
