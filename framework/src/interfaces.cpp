// Out-of-line destructors: the key functions that make RTTI of the interfaces unique to
// libdalembert, so dynamic_cast to a model works across plugins built with hidden visibility.
#include <dalembert/core/constrained_lagrangian.hpp>
#include <dalembert/core/impact_map.hpp>
#include <dalembert/core/integrator.hpp>
#include <dalembert/core/observer.hpp>
#include <dalembert/core/system.hpp>
#include <dalembert/plugin/descriptor.hpp>

namespace dalembert {

System::~System() = default;
void System::exact_solution(const State&, double, State&) const {
  throw Error("system '" + name_ + "' has no exact solution");
}
ConstrainedLagrangian::~ConstrainedLagrangian() = default;
Integrator::~Integrator() = default;
Observer::~Observer() = default;
Guarded::~Guarded() = default;
ImpactMap::~ImpactMap() = default;
PluginFactory::~PluginFactory() = default;

const char* to_string(PluginKind k) {
  switch (k) {
    case PluginKind::System: return "system";
    case PluginKind::Integrator: return "integrator";
    case PluginKind::Impact: return "impact";
    case PluginKind::Observer: return "observer";
    case PluginKind::Sampler: return "sampler";
  }
  return "?";
}

}  // namespace dalembert
