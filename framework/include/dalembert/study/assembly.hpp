#pragma once
// One assembly (issue 27): the plugin instances of one simulation as a study's plugin uses
// describe them — the system, an integrator, the study's observers and impact map — made from a
// registry and bound together in one place, for a task of the runner and for the planner's checks.
#include <boost/config.hpp>
#include <dalembert/core/impact_map.hpp>
#include <dalembert/core/integrator.hpp>
#include <dalembert/core/observer.hpp>
#include <dalembert/core/system.hpp>
#include <dalembert/plugin/registry.hpp>
#include <dalembert/study/simulation.hpp>
#include <dalembert/study/study.hpp>
#include <memory>
#include <optional>
#include <vector>

namespace dalembert {

class BOOST_SYMBOL_VISIBLE Assembly {
 public:
  /// Which of the study's plugins besides system and integrator take part.
  struct Parts {
    bool observers = true;
    bool impact_map = true;
  };
  /// Makes the study's system, `integrator` (one of the study's or its reference run), the parts
  /// asked for, in that order, and binds them in a Simulation.
  Assembly(const Registry& registry, const Study& study, const PluginUse& integrator, Parts parts);
  Assembly(const Assembly&) = delete;
  Assembly& operator=(const Assembly&) = delete;

  System& system() { return *system_; }
  Integrator& integrator() { return *integrator_; }
  Simulation& simulation() { return *simulation_; }

 private:
  std::unique_ptr<System> system_;
  std::unique_ptr<Integrator> integrator_;
  std::vector<std::unique_ptr<Observer>> observers_;
  std::unique_ptr<ImpactMap> impact_map_;
  std::optional<Simulation> simulation_;
};

}  // namespace dalembert
