#pragma once
// What a plugin exports: its metadata (name, kind, version, parameters with docs) and one factory.
#include <dalembert/core/impact_map.hpp>
#include <dalembert/core/integrator.hpp>
#include <dalembert/core/observer.hpp>
#include <dalembert/core/parameters.hpp>
#include <dalembert/core/sampler.hpp>
#include <dalembert/core/system.hpp>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace dalembert {

enum class PluginKind { System, Integrator, Impact, Observer, Sampler };
const char* to_string(PluginKind);

class PluginFactory;  // the registry, as seen by plugins that build other plugins (composition)

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
};

}  // namespace dalembert
