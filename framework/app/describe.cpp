// `dalembert describe NAME` (see describe.hpp). Everything shown about an instance comes from
// instantiating the plugin with its default parameters and binding it; what cannot be known that
// way is said to depend on the system.
#include "describe.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <dalembert/core/automatic_derivatives.hpp>
#include <dalembert/core/compiled_schemes.hpp>
#include <dalembert/core/constrained_lagrangian.hpp>
#include <dalembert/core/constraint_frame.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/impact_map.hpp>
#include <dalembert/core/lie_group_model.hpp>
#include <dalembert/core/rigid_body_model.hpp>
#include <dalembert/plugin/plugin_file.hpp>
#include <map>
#include <memory>

namespace dalembert::cli {

namespace {

constexpr PluginKind kKinds[] = {PluginKind::System, PluginKind::Integrator, PluginKind::Observer, PluginKind::Impact,
                                 PluginKind::Sampler};

// A list for the description, "(none)" when empty.
std::string listed(const std::vector<std::string>& v, const char* sep = ", ") {
  return v.empty() ? "(none)" : joined(v, sep);
}

// The models a system provides, by their interface names.
std::vector<std::string> models_of(const System& s) {
  std::vector<std::string> m;
  if (dynamic_cast<const ConstrainedLagrangian*>(&s)) m.push_back(ConstrainedLagrangian::model_name);
  if (dynamic_cast<const LieGroupModel*>(&s)) m.push_back(LieGroupModel::model_name);
  if (dynamic_cast<const RigidBodyModel*>(&s)) m.push_back("RigidBodyModel");
  if (dynamic_cast<const ConstraintFrame*>(&s)) m.push_back(ConstraintFrame::model_name);
  if (dynamic_cast<const Guarded*>(&s)) m.push_back(Guarded::model_name);
  if (dynamic_cast<const ExactEventLocator*>(&s)) m.push_back(ExactEventLocator::model_name);
  if (dynamic_cast<const AutomaticDerivatives*>(&s)) m.push_back(AutomaticDerivatives::model_name);
  if (dynamic_cast<const CompiledSchemes*>(&s)) m.push_back(CompiledSchemes::model_name);
  return m;
}

// Every system of the registry made with its default parameters (those that cannot be are left out).
std::vector<std::pair<std::string, std::unique_ptr<System>>> default_systems(const Registry& reg) {
  std::vector<std::pair<std::string, std::unique_ptr<System>>> out;
  for (const auto* d : reg.list(PluginKind::System)) try {
      out.emplace_back(d->name, reg.make_system(d->name, nullptr, "describe"));
    } catch (const std::exception&) {
    }
  return out;
}

void print_parameters(const PluginDescriptor& d) {
  std::printf(d.params.empty() ? "  parameters: none\n" : "  parameters:\n");
  for (const auto& p : d.params) {
    std::string range;
    if ((p.type == ParamType::Number || p.type == ParamType::Integer) && (std::isfinite(p.min) || std::isfinite(p.max))) {
      char b[96];
      std::snprintf(b, sizeof b, " in [%g, %g]", p.min, p.max);
      range = b;
    }
    if (!p.choices.empty()) range = " one of {" + listed(p.choices) + "}";
    std::printf("    %-26s %-8s default %-10s%s\n        %s\n", p.name.c_str(), to_string(p.type),
                p.default_value.is_null() ? "(none)" : p.default_value.dump().c_str(), range.c_str(), p.doc.c_str());
  }
}

void print_system(const Registry& reg, const PluginDescriptor& d) {
  std::unique_ptr<System> s;
  try {
    s = reg.make_system(d.name, nullptr, "describe");
  } catch (const std::exception& e) {
    return (void)std::printf("  (not instantiable with default parameters: %s)\n", e.what());
  }
  const Layout lay = s->layout();
  std::printf("  with default parameters:\n    q (%zu): %s\n    v (%zu): %s\n", lay.q.size(), listed(lay.q).c_str(),
              lay.v.size(), listed(lay.v).c_str());
  const auto* cl = dynamic_cast<const ConstrainedLagrangian*>(s.get());
  if (cl) std::printf("    n = %d, r = %d\n", cl->dof(), cl->num_constraints());
  else std::printf("    n = %zu, r: not stated (no ConstrainedLagrangian model)\n", lay.q.size());
  std::printf("    models: %s\n", listed(models_of(*s)).c_str());
  std::vector<std::string> diag;
  s->diagnostic_names(diag);
  std::printf("    diagnostics: %s\n    exact solution: %s\n", listed(diag).c_str(), s->has_exact_solution() ? "yes" : "no");
}

// The model an integrator needs, as its refusal says: "'x' needs model M; system ...".
std::string needed_model(const std::string& refusal) {
  const auto at = refusal.find("needs model ");
  if (at == std::string::npos) return {};
  const auto start = at + 12, end = refusal.find(';', start);
  return refusal.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

void print_integrator(const Registry& reg, const PluginDescriptor& d) {
  std::unique_ptr<Integrator> probe;
  try {
    probe = reg.make_integrator(d.name, nullptr, "describe");
  } catch (const std::exception& e) {
    return (void)std::printf("  (not instantiable with default parameters: %s)\n", e.what());
  }
  const Traits t = probe->traits();
  std::printf("  with default parameters:\n    order %d%s%s; preserves: %s\n", t.order, t.symmetric ? ", symmetric" : "",
              t.explicit_method ? ", explicit" : ", implicit", listed(t.preserves).c_str());
  std::vector<std::string> binds, needs;
  std::string quantities;
  for (const auto& [name, sys] : default_systems(reg)) try {
      auto integ = reg.make_integrator(d.name, nullptr, "describe");
      integ->bind(*sys);
      binds.push_back(name);
      std::vector<std::string> q;
      integ->quantity_names(q);
      if (quantities.empty()) quantities = listed(q) + " (bound to " + name + "; may depend on the system)";
    } catch (const std::exception& e) {
      const std::string m = needed_model(e.what());
      if (!m.empty() && std::find(needs.begin(), needs.end(), m) == needs.end()) needs.push_back(m);
    }
  if (!needs.empty()) std::printf("    needs model: %s (the refusals of the systems that do not provide it)\n", listed(needs, " or ").c_str());
  std::printf("    binds to the systems: %s\n", listed(binds).c_str());
  std::printf("    published quantities: %s\n", quantities.empty() ? "(none bound)" : quantities.c_str());
}

// An observer's columns on every (system, first integrator that binds to it) pair.
void print_observer(const Registry& reg, const PluginDescriptor& d) {
  std::map<std::string, std::vector<std::string>> columns_by_system;  // columns -> systems
  std::string failure;
  for (const auto& [name, sys] : default_systems(reg))
    for (const auto* id : reg.list(PluginKind::Integrator)) try {
        auto integ = reg.make_integrator(id->name, nullptr, "describe");
        integ->bind(*sys);
        auto obs = reg.make_observer(d.name, nullptr, "describe");
        obs->bind(*sys, *integ);
        std::vector<std::string> c;
        obs->columns(c);
        columns_by_system[listed(c)].push_back(name + " + " + id->name);
        break;
      } catch (const std::exception& e) {
        if (failure.empty() && std::string(e.what()).find("needs model") == std::string::npos) failure = e.what();
      }
  if (columns_by_system.empty())
    return (void)std::printf("  columns: not known with default parameters (%s)\n", failure.c_str());
  if (columns_by_system.size() == 1)
    return (void)std::printf("  columns: %s\n", columns_by_system.begin()->first.c_str());
  std::printf("  columns: depend on the system (and integrator), e.g.\n");
  for (const auto& [cols, where] : columns_by_system) std::printf("    %s: %s\n", where.front().c_str(), cols.c_str());
}

[[noreturn]] void not_found(const Registry& reg, const std::string& name) {
  for (const auto& r : reg.refused())  // a broken plugin of that name: find() says why
    if (const auto n = parse_plugin_file_name(r.file); n && n->name == name) reg.find(n->kind, name, "describe");
  std::vector<std::string> names;
  std::map<std::string, PluginKind> kind_of;
  for (auto kind : kKinds)
    for (const auto* p : reg.list(kind)) names.push_back(p->name), kind_of.emplace(p->name, kind);
  const std::string near = nearest_name(name, names);
  throw InputError("describe", "no plugin of any kind is named '" + name + "'" +
                                   (near.empty() ? std::string("; 'dalembert list' shows them all")
                                                 : " (did you mean '" + near + "', a " + to_string(kind_of[near]) + "?)"));
}

}  // namespace

int describe(const std::string& name) {
  Registry reg;
  const auto found = reg.find_any(name);
  if (found.empty()) not_found(reg, name);
  for (const auto* d : found) {
    std::printf("%s (%s plugin, version %s)\n  %s\n", d->name.c_str(), to_string(d->kind), d->version.c_str(),
                d->summary.c_str());
    if (!d->seed.empty()) std::printf("  seed: %s\n", d->seed.c_str());
    std::printf("  file: %s\n", d->file.c_str());
    print_parameters(*d);
    if (d->kind == PluginKind::System) print_system(reg, *d);
    if (d->kind == PluginKind::Integrator) print_integrator(reg, *d);
    if (d->kind == PluginKind::Observer) print_observer(reg, *d);
  }
  return 0;
}

}  // namespace dalembert::cli
