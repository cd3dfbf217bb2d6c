// The plugin instances of one simulation (study/assembly.hpp).
#include <dalembert/study/assembly.hpp>

namespace dalembert {

Assembly::Assembly(const Registry& reg, const Study& st, const PluginUse& integrator, Parts parts) {
  system_ = reg.make_system(st.system.plugin, st.system.params, st.system.where);
  integrator_ = reg.make_integrator(integrator.plugin, integrator.params, integrator.where);
  std::vector<Observer*> observers;
  if (parts.observers)
    for (const auto& o : st.observers) {
      observers_.push_back(reg.make_observer(o.plugin, o.params, o.where));
      observers.push_back(observers_.back().get());
    }
  simulation_.emplace(*system_, *integrator_, observers);
  if (parts.impact_map && st.impact_map) {
    impact_map_ = reg.make_impact(st.impact_map->plugin, st.impact_map->params, st.impact_map->where);
    simulation_->set_impact_map(impact_map_.get());
  }
}

}  // namespace dalembert
