#pragma once
// The bind()-time refusal of a shipped integrator that does not treat holonomic constraints
// g(q) = 0 (issue 28): its descriptor does not declare "treats HolonomicConstraints"
// (plugin/needs.hpp), and its bind() says why and which shipped schemes do. (A study refuses such a
// pairing before bind() with the installed list, study/assembly.cpp; this is for every other caller.)
#include <dalembert/core/constrained_lagrangian.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/system.hpp>
#include <string>

namespace dalembert {

/// The shipped integrators that treat g (their READMEs say how).
inline constexpr const char* kHolonomicSchemes =
    "dla and mla (g(q_{k+1}) = 0 at position level, SHAKE/RATTLE multipliers), rk2 and rk4 (the index-reduced "
    "field; g drifts at the method's error), exact_discrete with form \"one_step\" (the same field, error-controlled), "
    "or a composition of them";

/// Throws an Error naming `who`, `why` it cannot treat g and the schemes that can, if `system` has
/// holonomic constraints (before require<ConstrainedLagrangian>(), whose refusal names no scheme).
inline void refuse_holonomic(const System& system, const std::string& who, const std::string& why) {
  const auto* model = dynamic_cast<const ConstrainedLagrangian*>(&system);
  if (!model || model->holonomic_count() == 0) return;
  throw Error("integrator '" + who + "' does not treat the " + std::to_string(model->holonomic_count()) +
              " holonomic constraint(s) g(q) = 0 of system '" + system.name() + "' (" + why + "): use " +
              kHolonomicSchemes);
}

}  // namespace dalembert
