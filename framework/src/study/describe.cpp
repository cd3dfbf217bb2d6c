// describe_plugins (see dalembert/study/describe.hpp).
#include <algorithm>
#include <cmath>
#include <dalembert/core/constrained_lagrangian.hpp>
#include <dalembert/core/linearizable.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/study/describe.hpp>
#include <dalembert/study/drawing_plan.hpp>
#include <dalembert/plugin/needs.hpp>
#include <dalembert/host/plugin_file.hpp>
#include <dalembert/study/assembly.hpp>
#include <dalembert/study/provenance.hpp>
#include <map>
#include <memory>

namespace dalembert {

namespace {

using nlohmann::json;

constexpr PluginKind kKinds[] = {PluginKind::System, PluginKind::Integrator, PluginKind::Observer, PluginKind::Impact,
                                 PluginKind::Sampler};

// The models a system provides, by their interface names (its capabilities that are models).
std::vector<std::string> models_of(const System& s) {
  static const std::vector<std::string> properties = {"ExactSolution", "ConstantMass", "Unforced",
                                                       "HolonomicConstraints"};
  std::vector<std::string> m;
  for (auto& c : capabilities_of(s))
    if (std::find(properties.begin(), properties.end(), c) == properties.end()) m.push_back(c);
  return m;
}

// Every system of the registry made with its default parameters (those that cannot be are left out).
std::vector<std::pair<std::string, std::unique_ptr<System>>> default_systems(const Registry& reg) {
  std::vector<std::pair<std::string, std::unique_ptr<System>>> out;
  for (const auto* d : reg.list(PluginKind::System)) try {
      out.emplace_back(d->name, assemble_system(reg, plugin_use(d->name, nullptr, "describe")));
    } catch (const std::exception&) {
    }
  return out;
}

json preset_list(const ParamSpec& p) {
  json out = json::array();
  for (const auto& x : p.presets) out.push_back({{"name", x.name}, {"doc", x.doc}});
  return out;
}

json parameters_of(const PluginDescriptor& d) {
  json out = json::array();
  for (const auto& p : d.params)
    out.push_back({{"name", p.name},
                   {"type", to_string(p.type)},
                   {"default", p.default_value},
                   {"min", std::isfinite(p.min) ? json(p.min) : json(nullptr)},
                   {"max", std::isfinite(p.max) ? json(p.max) : json(nullptr)},
                   {"choices", p.choices},
                   {"unit", p.unit},
                   {"presets", preset_list(p)},
                   {"doc", p.doc}});
  return out;
}

void describe_system(const Registry& reg, const PluginDescriptor& d, json& out) {
  std::unique_ptr<System> s;
  try {
    s = assemble_system(reg, plugin_use(d.name, nullptr, "describe"));
  } catch (const std::exception& e) {
    out["instance_error"] = e.what();
    return;
  }
  const Layout lay = s->layout();
  const auto* cl = dynamic_cast<const ConstrainedLagrangian*>(s.get());
  std::vector<std::string> diag;
  s->diagnostic_names(diag);
  out["instance"] = {{"q", lay.q},
                     {"v", lay.v},
                     {"n", cl ? json(cl->dof()) : json(nullptr)},
                     {"r", cl ? json(cl->num_constraints()) : json(nullptr)},
                     {"holonomic", cl ? json(cl->holonomic_count()) : json(nullptr)},
                     {"models", models_of(*s)},
                     {"capabilities", capabilities_of(*s)},
                     {"diagnostics", diag},
                     {"exact_solution", s->has_exact_solution()}};
  if (json drawing = system_drawing(*s); !drawing.is_null()) out["instance"]["drawing"] = std::move(drawing);
  if (const auto* lin = dynamic_cast<const Linearizable*>(s.get())) {  // linear_stability studies
    const SteadyMotionFamily f = lin->steady_family();
    out["instance"]["steady_motions"] = {{"name", f.name}, {"parameter", f.parameter}, {"description", f.description}};
  }
}

// What plugin `d` declares it needs with its default parameters, into out["needs"]; when that
// cannot be said without parameters (e.g. a composition's stages), null and out["needs_error"].
Needs declared_needs(const Registry& reg, const PluginDescriptor& d, json& out) {
  try {
    Needs needs = reg.needs(d.kind, d.name, nullptr, "describe");
    out["needs"] = needs;
    return needs;
  } catch (const std::exception& e) {
    out["needs"] = nullptr;
    out["needs_error"] = e.what();
    return {};
  }
}

void describe_integrator(const Registry& reg, const PluginDescriptor& d, const Needs& needs, json& out) {
  std::unique_ptr<Integrator> probe;
  try {
    probe = reg.make_integrator(d.name, nullptr, "describe");
  } catch (const std::exception& e) {
    out["instance_error"] = e.what();
    return;
  }
  const Traits t = probe->traits();
  std::vector<std::string> binds;
  json quantities = nullptr, bound_to = nullptr;
  for (const auto& [name, sys] : default_systems(reg)) {
    if (!unmet_integrator_need(*sys, needs).empty()) continue;
    binds.push_back(name);
    if (!quantities.is_null()) continue;
    try {
      auto integ = assemble_integrator(reg, plugin_use(d.name, nullptr, "describe"), *sys);
      std::vector<std::string> q;
      integ->quantity_names(q);
      quantities = q, bound_to = name;
    } catch (const std::exception&) {  // the conformance suite names a bind that refuses what the plugin declared
    }
  }
  out["instance"] = {{"order", t.order},         {"symmetric", t.symmetric},   {"explicit", t.explicit_method},
                     {"preserves", t.preserves}, {"binds_to", binds},           {"quantities", quantities},
                     {"quantities_bound_to", bound_to}};
}

// An observer's columns on every (system, first integrator that binds to it) pair, both chosen by
// their declared needs.
void describe_observer(const Registry& reg, const PluginDescriptor& d, const Needs& needs, json& out) {
  std::map<std::string, std::pair<std::vector<std::string>, std::vector<std::string>>> by_columns;  // key: joined columns
  std::string failure;
  for (const auto& [name, sys] : default_systems(reg)) {
    if (!unmet_need(*sys, needs).empty()) continue;
    for (const auto* id : reg.list(PluginKind::Integrator)) try {
        if (!unmet_integrator_need(*sys, reg.needs(PluginKind::Integrator, id->name, nullptr, "describe")).empty()) continue;
        auto integ = assemble_integrator(reg, plugin_use(id->name, nullptr, "describe"), *sys);
        auto obs = assemble_observer(reg, plugin_use(d.name, nullptr, "describe"), *sys, *integ);
        std::vector<std::string> c;
        obs->columns(c);
        auto& entry = by_columns[c.empty() ? "(none)" : joined(c, ", ")];
        entry.first = c;
        entry.second.push_back(name + " + " + id->name);
        break;
      } catch (const std::exception& e) {
        if (failure.empty()) failure = e.what();
      }
  }
  json columns = json::array();
  for (const auto& [key, entry] : by_columns) columns.push_back({{"columns", entry.first}, {"on", entry.second}});
  out["columns"] = columns;
  out["columns_error"] = columns.empty() ? failure : std::string();
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

json describe_plugins(const Registry& reg, const std::string& name) {
  const auto found = reg.find_any(name);
  if (found.empty()) not_found(reg, name);
  json out = json::array();
  for (const auto* d : found) {
    json j = {{"name", d->name}, {"kind", to_string(d->kind)}, {"version", d->version}, {"summary", d->summary},
              {"seed", d->seed}, {"file", d->file}, {"sha256", reg.sha256(*d)},
              {"framework", {{"library", framework_file().string()}, {"sha256", framework_sha256()}}},
              {"parameters", parameters_of(*d)}};
    if (d->kind == PluginKind::System) {
      describe_system(reg, *d, j);
    } else {
      const Needs needs = declared_needs(reg, *d, j);
      if (d->kind == PluginKind::Integrator) describe_integrator(reg, *d, needs, j);
      if (d->kind == PluginKind::Observer) describe_observer(reg, *d, needs, j);
    }
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace dalembert
