// The one place a study's plugin uses become bound instances (study/assembly.hpp).
#include <dalembert/study/assembly.hpp>
#include <dalembert/study/column_names.hpp>
#include <dalembert/core/affine_constraint.hpp>
#include <dalembert/core/constrained_lagrangian.hpp>
#include <dalembert/plugin/needs.hpp>

namespace dalembert {

PluginUse plugin_use(std::string plugin, nlohmann::json params, std::string where) {
  PluginUse u;
  u.plugin = std::move(plugin);
  if (!params.is_null()) u.params = std::move(params);
  u.where = std::move(where);
  return u;
}

std::unique_ptr<System> assemble_system(const Registry& reg, const PluginUse& u) {
  return reg.make_system(u.plugin, u.params, u.where);
}

namespace {

// A system with holonomic constraints (or moving ones, A(q)v + b(t, q) = 0) binds only to an
// integrator that declares it treats them (plugin/needs.hpp), whatever its bind() does (an
// integrator written before issue 28 knows nothing of g, one before issue 30 nothing of b): refused
// here, naming those that do.
void check_treated(const Registry& reg, const PluginUse& u, const System& system) {
  const auto* model = dynamic_cast<const ConstrainedLagrangian*>(&system);
  if (!model || (model->holonomic_count() == 0 && !affine_constraint_of(*model))) return;
  const Needs needs = reg.needs(PluginKind::Integrator, u.plugin, u.params, u.where);
  const std::string unmet = unmet_integrator_need(system, needs);
  if (unmet.rfind("treats ", 0) != 0) return;  // met, or another need: bind() says which
  std::vector<std::string> can;
  for (const auto* d : reg.list(PluginKind::Integrator)) try {
      if (unmet_integrator_need(system, reg.needs(PluginKind::Integrator, d->name, nullptr, u.where)).empty())
        can.push_back(d->name);
    } catch (const std::exception&) {  // e.g. a composition without stages: not a candidate by itself
    }
  const std::string what = unmet == treats("AffineConstraints")
                               ? std::string("the moving constraints A(q)v + b(t, q) = 0")
                               : "the " + std::to_string(model->holonomic_count()) + " holonomic constraint(s) g(q) = 0";
  throw InputError(u.where, "integrator '" + u.plugin + "' does not treat " + what + " of system '" + system.name() +
                                "' (its declared needs lack \"" + unmet + "\"); integrators that do: " +
                                (can.empty() ? std::string("none installed") : joined(can)));
}

}  // namespace

std::unique_ptr<Integrator> assemble_integrator(const Registry& reg, const PluginUse& u, const System& system) {
  auto integrator = reg.make_integrator(u.plugin, u.params, u.where);
  check_treated(reg, u, system);
  located(u.where, [&] { integrator->bind(system); });
  return integrator;
}

std::unique_ptr<Observer> assemble_observer(const Registry& reg, const PluginUse& u, const System& system,
                                            const Integrator& integrator) {
  auto observer = reg.make_observer(u.plugin, u.params, u.where);
  located(u.where, [&] { observer->bind(system, integrator); });
  return observer;
}

std::unique_ptr<Sampler> assemble_sampler(const Registry& reg, const PluginUse& u, const System& system) {
  auto sampler = reg.make_sampler(u.plugin, u.params, u.where);
  located(u.where, [&] { sampler->bind(system); });
  return sampler;
}

Assembly::Assembly(const Registry& reg, const Study& st, const PluginUse& integrator, Parts parts)
    : owned_system_(assemble_system(reg, st.system)), system_(owned_system_.get()) {
  assemble(reg, st, integrator, parts);
}

Assembly::Assembly(const Registry& reg, const Study& st, const PluginUse& integrator, Parts parts,
                   const System& system)
    : system_(&system) {
  assemble(reg, st, integrator, parts);
}

// Two observers writing one column would give the CSV two columns of one name: an error naming
// both observers (by their JSON paths) and the integrator.
void Assembly::assemble(const Registry& reg, const Study& st, const PluginUse& integrator, Parts parts) {
  integrator_ = assemble_integrator(reg, integrator, *system_);
  std::vector<Observer*> observers;
  std::vector<ColumnProducer> producers = {{"the time column", {"t"}}};
  if (parts.observers)
    for (std::size_t k = 0; k < st.observers.size(); ++k) {
      const auto& u = st.observers[k];
      observers_.push_back(assemble_observer(reg, u, *system_, *integrator_));
      observers.push_back(observers_.back().get());
      producers.push_back({"observer '" + u.plugin + "' (/observers/" + std::to_string(k) + ")", {}});
      observers_.back()->columns(producers.back().columns);
    }
  located(st.file + ": /observers", [&] {
    try {
      check_unique_columns(producers);
    } catch (const Error& e) {
      throw Error(std::string(e.what()) + " (with integrator '" + integrator.label + "')");
    }
  });
  simulation_.emplace(*system_, *integrator_, observers, Simulation::Bound{});
  if (parts.impact_map && st.impact_map) {
    const auto& u = *st.impact_map;
    impact_map_ = reg.make_impact(u.plugin, u.params, u.where);
    located(u.where, [&] { simulation_->set_impact_map(impact_map_.get()); });
  }
}

}  // namespace dalembert
