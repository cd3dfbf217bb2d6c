#pragma once
// What a plugin exports: its metadata (name, kind, version, parameters with docs), one factory,
// what it needs of a system, and the examples the conformance suite exercises it on.
#include <dalembert/core/impact_map.hpp>
#include <dalembert/core/integrator.hpp>
#include <dalembert/core/observer.hpp>
#include <dalembert/core/parameters.hpp>
#include <dalembert/core/sampler.hpp>
#include <dalembert/core/system.hpp>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

namespace dalembert {

enum class PluginKind { System, Integrator, Impact, Observer, Sampler };
const char* to_string(PluginKind);

class PluginFactory;  // the registry, as seen by plugins that build other plugins (composition)

/// What a system must offer a plugin: each entry one capability — a model's name
/// ("ConstrainedLagrangian", "LieGroupModel", "RigidBodyModel", "Guarded", ...) or one of the
/// properties "ExactSolution", "ConstantMass", "Unforced" (plugin/needs.hpp) — or alternatives
/// joined by " or " ("ConstrainedLagrangian or LieGroupModel"). A system must meet every entry.
using Needs = std::vector<std::string>;
using NeedsFunction = std::function<Needs(const Parameters&, const PluginFactory&)>;

/// The same needs whatever the parameters: `d.needs = fixed_needs({"ConstrainedLagrangian"});`
inline NeedsFunction fixed_needs(Needs needs) {
  return [needs = std::move(needs)](const Parameters&, const PluginFactory&) { return needs; };
}

/// One thing the conformance suite (`dalembert check`, study/conformance.hpp) exercises a plugin
/// on: a parameter set and, for a system, a state and a step size.
struct PluginExample {
  std::string label;                                 ///< e.g. "DLA F^{0,0,1/2}"; "" for the defaults
  nlohmann::json params = nlohmann::json::object();  ///< the plugin's parameters
  State state;      ///< a system's: (t, q, v) on its constraints
  double h = 0.0;   ///< a system's: a step size at which integrators show their order (halved 3 times)
};

/// A system's example: `d.examples = {system_example("", {1, 1, -1}, {1, -1, 1}, 0.1)};`
inline PluginExample system_example(std::string label, std::initializer_list<double> q, std::initializer_list<double> v,
                                    double h, nlohmann::json params = nlohmann::json::object()) {
  PluginExample e{std::move(label), std::move(params), {}, h};
  e.state.q = Eigen::Map<const Vec>(q.begin(), static_cast<Eigen::Index>(q.size()));
  e.state.v = Eigen::Map<const Vec>(v.begin(), static_cast<Eigen::Index>(v.size()));
  return e;
}

struct PluginDescriptor {
  std::string name;
  PluginKind kind = PluginKind::System;
  std::string version = "0.1.0";
  std::string summary;  // one line
  std::string seed;     // the paper it comes from, e.g. "000 (Anahory Simoes et al.)"
  std::vector<ParamSpec> params;

  // Exactly one of these is set, matching `kind`.
  std::function<std::unique_ptr<System>(const Parameters&)> make_system;
  std::function<std::unique_ptr<Integrator>(const Parameters&, const PluginFactory&)> make_integrator;
  std::function<std::unique_ptr<Observer>(const Parameters&)> make_observer;
  std::function<std::unique_ptr<ImpactMap>(const Parameters&)> make_impact;
  std::function<std::unique_ptr<Sampler>(const Parameters&)> make_sampler;

  /// What a system must offer for this plugin, made with the given (resolved) parameters, to bind
  /// to it. Declared once: `describe` prints it, the conformance suite pairs plugins with systems
  /// by it, and a test checks bind() agrees (bind() still asks with require<Model>()). Unset: nothing.
  NeedsFunction needs;
  /// What the conformance suite exercises: a system's states (at least one), another plugin's
  /// parameter sets (none: its default parameters).
  std::vector<PluginExample> examples;

  // Filled by the registry.
  std::string file;
};

/// Creates plugin instances by name from JSON parameters (what a composite plugin needs).
class BOOST_SYMBOL_VISIBLE PluginFactory {
 public:
  virtual ~PluginFactory();
  /// `where` is "file: /json/path" of the JSON object naming the plugin, for error messages.
  virtual std::unique_ptr<Integrator> make_integrator(const std::string& name, const nlohmann::json& params,
                                                      const std::string& where) const = 0;
  /// What integrator `name` made with `params` needs of a system (its descriptor's `needs`).
  virtual Needs integrator_needs(const std::string& name, const nlohmann::json& params,
                                 const std::string& where) const = 0;
};

}  // namespace dalembert
