// capabilities_of, meets, unmet_need (see dalembert/plugin/needs.hpp).
#include <dalembert/core/affine_constraint.hpp>
#include <dalembert/core/automatic_derivatives.hpp>
#include <dalembert/schemes/compiled_schemes.hpp>
#include <dalembert/core/constrained_lagrangian.hpp>
#include <dalembert/core/constraint_frame.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/impact_map.hpp>
#include <dalembert/core/lie_group_model.hpp>
#include <dalembert/core/linearizable.hpp>
#include <dalembert/core/rigid_body_model.hpp>
#include <dalembert/core/time_dependent_potential.hpp>
#include <dalembert/core/unit_quaternions.hpp>
#include <dalembert/plugin/needs.hpp>
#include <algorithm>
#include <functional>
#include <utility>

namespace dalembert {

namespace {

template <class Model>
bool is(const System& s) {
  return dynamic_cast<const Model*>(&s) != nullptr;
}

const ConstrainedLagrangian* lagrangian(const System& s) { return dynamic_cast<const ConstrainedLagrangian*>(&s); }

// The capabilities, in the order capabilities_of lists them.
// CompiledSchemes only when the system compiles one of them: a fixed-size model derives from the
// class whatever it declares, and offers none with run-time sizes, an external force or moving
// constraints (schemes/fixed_lagrangian_system.hpp), which `describe` must not list (issue 32 item 1).
bool offers_compiled_schemes(const System& s) {
  const auto* schemes = dynamic_cast<const CompiledSchemes*>(&s);
  return schemes && (schemes->runge_kutta(classical_rk4()) || schemes->newmark(NewmarkParameters{}, NewtonOptions{}));
}

const std::vector<std::pair<std::string, std::function<bool(const System&)>>>& capabilities() {
  static const std::vector<std::pair<std::string, std::function<bool(const System&)>>> all = {
      {ConstrainedLagrangian::model_name, is<ConstrainedLagrangian>},
      {LieGroupModel::model_name, is<LieGroupModel>},
      {"RigidBodyModel", is<RigidBodyModel>},
      {ConstraintFrame::model_name, is<ConstraintFrame>},
      {Guarded::model_name, is<Guarded>},
      {ExactEventLocator::model_name, is<ExactEventLocator>},
      {AutomaticDerivatives::model_name, is<AutomaticDerivatives>},
      {CompiledSchemes::model_name, offers_compiled_schemes},
      {Linearizable::model_name, is<Linearizable>},
      {UnitQuaternionCoordinates::model_name, is<UnitQuaternionCoordinates>},
      {TimeDependentPotential::model_name, is<TimeDependentPotential>},
      {"ExactSolution", [](const System& s) { return s.has_exact_solution(); }},
      {"ConstantMass", [](const System& s) { return lagrangian(s) && lagrangian(s)->constant_mass(); }},
      {"Unforced", [](const System& s) { return lagrangian(s) && !lagrangian(s)->has_external_force(); }},
      {"HolonomicConstraints", [](const System& s) { return lagrangian(s) && lagrangian(s)->holonomic_count() > 0; }},
      {"AffineConstraints", [](const System& s) { return lagrangian(s) && affine_constraint_of(*lagrangian(s)); }},
      {"ShapeFree", [](const System& s) {
         const auto* lie = dynamic_cast<const LieGroupModel*>(&s);
         return lie && lie->shape_dim() == 0;
       }},
      {"CoordinateVelocities", [](const System& s) {
         const auto* lie = dynamic_cast<const LieGroupModel*>(&s);
         return lagrangian(s) != nullptr || (lie && lie->group() == LieGroup::SE2);
       }},
  };
  return all;
}

const std::string kTreats = "treats ";

bool has(const System& s, const std::string& capability) {
  if (capability.rfind(kTreats, 0) == 0) {  // a declaration: met by every system, but the name must be known
    const std::string treated = capability.substr(kTreats.size());
    const auto& all = treated_capabilities();
    if (std::find(all.begin(), all.end(), treated) == all.end())
      throw Error("unknown capability '" + treated + "' in a plugin's declared needs '" + capability +
                  "' (an integrator may declare it treats: " + joined(all) + ")");
    return true;
  }
  for (const auto& [name, test] : capabilities())
    if (name == capability) return test(s);
  std::vector<std::string> known;
  for (const auto& c : capabilities()) known.push_back(c.first);
  throw Error("unknown capability '" + capability + "' in a plugin's declared needs (known: " + joined(known) + ")");
}

}  // namespace

std::vector<std::string> capabilities_of(const System& system) {
  std::vector<std::string> out;
  for (const auto& [name, test] : capabilities())
    if (test(system)) out.push_back(name);
  return out;
}

bool meets(const System& system, const std::string& need) {
  static const std::string sep = " or ";
  for (std::size_t from = 0;;) {
    const std::size_t to = need.find(sep, from);
    if (has(system, need.substr(from, to == std::string::npos ? std::string::npos : to - from))) return true;
    if (to == std::string::npos) return false;
    from = to + sep.size();
  }
}

std::string unmet_need(const System& system, const Needs& needs) {
  for (const auto& n : needs)
    if (!meets(system, n)) return n;
  return {};
}

std::string treats(const std::string& capability) { return kTreats + capability; }

const std::vector<std::string>& treated_capabilities() {
  static const std::vector<std::string> all = {"HolonomicConstraints", "AffineConstraints"};
  return all;
}

std::string unmet_integrator_need(const System& system, const Needs& needs) {
  if (std::string unmet = unmet_need(system, needs); !unmet.empty()) return unmet;
  for (const auto& c : treated_capabilities())
    if (has(system, c) && std::find(needs.begin(), needs.end(), treats(c)) == needs.end()) return treats(c);
  return {};
}

}  // namespace dalembert
