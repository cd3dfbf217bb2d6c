#pragma once
// What the conformance checks of each plugin kind share (framework/src/conformance*.cpp; not
// installed): the installed systems' example states, a plugin's example parameter sets, and the
// rows being written.
#include <dalembert/core/integrator.hpp>
#include <dalembert/study/conformance.hpp>
#include <memory>
#include <string>
#include <vector>

namespace dalembert::conformance {

/// One example state of one installed system, made with the example's parameters.
struct SystemExample {
  std::string system;  ///< the plugin name
  std::string label;   ///< "system" or "system (example label)"
  std::shared_ptr<System> instance;
  State state;
  double h = 0.0;
  bool first = false;  ///< the system's first example (checks done once per system use it)
};

/// Every example of every installed system that can be made (a system whose example cannot be
/// made is reported by its own conformance check, not here).
std::vector<SystemExample> system_examples(const Registry& registry);

/// The parameter sets to exercise a plugin with: the given ones, else its declared examples, else
/// its defaults (label "defaults").
std::vector<PluginExample> parameter_sets(const PluginDescriptor& d, const ConformanceOptions& options);

/// Adds rows to a report for one plugin example on one system example.
class Rows {
 public:
  Rows(ConformanceReport& report, std::string example, std::string system)
      : report_(report), example_(std::move(example)), system_(std::move(system)) {}
  void pass(const std::string& check, const std::string& detail) { add(check, Verdict::Pass, detail); }
  void finding(const std::string& check, const std::string& detail) { add(check, Verdict::Finding, detail); }
  void not_exercised(const std::string& check, const std::string& why) { add(check, Verdict::NotExercised, why); }

 private:
  void add(const std::string& check, Verdict v, const std::string& detail) {
    report_.rows.push_back({check, example_, system_, v, detail});
  }
  ConformanceReport& report_;
  std::string example_, system_;
};

/// ‖a − b‖∞ over q and v (∞ if the sizes differ).
double state_distance(const State& a, const State& b);
/// max(1, ‖q‖∞, ‖v‖∞): the scale round-off is judged against.
double state_scale(const State& s);
/// "%.3g"
std::string short_number(double x);

// The checks of each kind (conformance_integrator.cpp, conformance_plugins.cpp).
void check_integrator(const Registry& registry, const PluginDescriptor& d, const ConformanceOptions& options,
                      ConformanceReport& report);
void check_system(const Registry& registry, const PluginDescriptor& d, const ConformanceOptions& options,
                  ConformanceReport& report);
void check_observer(const Registry& registry, const PluginDescriptor& d, const ConformanceOptions& options,
                    ConformanceReport& report);
void check_impact(const Registry& registry, const PluginDescriptor& d, const ConformanceOptions& options,
                  ConformanceReport& report);
void check_sampler(const Registry& registry, const PluginDescriptor& d, const ConformanceOptions& options,
                   ConformanceReport& report);

/// The installed integrators (name and first parameter set) whose declared needs `system` meets, in
/// the registry's order: what observers and impact maps are run beside.
std::vector<std::pair<std::string, nlohmann::json>> integrators_for(const Registry& registry, const System& system);

}  // namespace dalembert::conformance
