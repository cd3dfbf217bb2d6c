#pragma once
// One assembly (issue 27 item 4): the one place a plugin use of a study — its plugin name, its
// parameters and its JSON path — becomes an instance bound to the others. The runner's tasks, the
// planner's checks, `describe` and the Python module's system()/integrator() all make their
// plugins here, so a plugin is made, bound and blamed (an error names the use's JSON path) the
// same way wherever it runs.
#include <boost/config.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/impact_map.hpp>
#include <dalembert/core/integrator.hpp>
#include <dalembert/core/observer.hpp>
#include <dalembert/core/sampler.hpp>
#include <dalembert/core/system.hpp>
#include <dalembert/host/registry.hpp>
#include <dalembert/study/simulation.hpp>
#include <dalembert/study/study.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dalembert {

/// A use of plugin `plugin` with `params` (null or {} for its defaults), `where` naming it in errors.
BOOST_SYMBOL_VISIBLE PluginUse plugin_use(std::string plugin, nlohmann::json params, std::string where);

/// Runs `f`, turning a plugin's own complaint (an Error that is not already an InputError) into an
/// InputError at `where`, the JSON path (or call) of the plugin use that complained.
template <class F>
decltype(auto) located(const std::string& where, F&& f) {
  try {
    return f();
  } catch (const InputError&) {
    throw;
  } catch (const Error& e) {
    throw InputError(where, e.what());
  }
}

/// The system of use `u`.
BOOST_SYMBOL_VISIBLE std::unique_ptr<System> assemble_system(const Registry& registry, const PluginUse& u);
/// The integrator of use `u`, bound to `system`.
BOOST_SYMBOL_VISIBLE std::unique_ptr<Integrator> assemble_integrator(const Registry& registry, const PluginUse& u,
                                                                     const System& system);
/// The observer of use `u`, bound to `system` and `integrator`.
BOOST_SYMBOL_VISIBLE std::unique_ptr<Observer> assemble_observer(const Registry& registry, const PluginUse& u,
                                                                 const System& system, const Integrator& integrator);
/// The sampler of use `u`, bound to `system`.
BOOST_SYMBOL_VISIBLE std::unique_ptr<Sampler> assemble_sampler(const Registry& registry, const PluginUse& u,
                                                               const System& system);

/// The plugin instances of one simulation of a study: its system (made, or the caller's), one of
/// its integrators (or its reference run), the parts asked for, bound together in a Simulation.
class BOOST_SYMBOL_VISIBLE Assembly {
 public:
  /// Which of the study's plugins besides system and integrator take part.
  struct Parts {
    bool observers = true;
    bool impact_map = true;
  };
  /// Makes the study's system, then `integrator` and the parts asked for, in that order.
  Assembly(const Registry& registry, const Study& study, const PluginUse& integrator, Parts parts);
  /// The same on the caller's `system` (the planner checks every integrator on one system).
  Assembly(const Registry& registry, const Study& study, const PluginUse& integrator, Parts parts,
           const System& system);
  Assembly(const Assembly&) = delete;
  Assembly& operator=(const Assembly&) = delete;

  const System& system() const { return *system_; }
  Integrator& integrator() { return *integrator_; }
  Simulation& simulation() { return *simulation_; }

 private:
  void assemble(const Registry& registry, const Study& study, const PluginUse& integrator, Parts parts);

  std::unique_ptr<System> owned_system_;
  const System* system_ = nullptr;
  std::unique_ptr<Integrator> integrator_;
  std::vector<std::unique_ptr<Observer>> observers_;
  std::unique_ptr<ImpactMap> impact_map_;
  std::optional<Simulation> simulation_;
};

}  // namespace dalembert
