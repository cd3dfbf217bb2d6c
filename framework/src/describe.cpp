// describe_plugins (see dalembert/plugin/describe.hpp).
#include <algorithm>
#include <cmath>
#include <dalembert/core/automatic_derivatives.hpp>
#include <dalembert/core/compiled_schemes.hpp>
#include <dalembert/core/constrained_lagrangian.hpp>
#include <dalembert/core/constraint_frame.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/impact_map.hpp>
#include <dalembert/core/lie_group_model.hpp>
#include <dalembert/core/rigid_body_model.hpp>
#include <dalembert/plugin/describe.hpp>
#include <dalembert/plugin/plugin_file.hpp>
#include <dalembert/study/provenance.hpp>
#include <map>
#include <memory>

namespace dalembert {

namespace {

using nlohmann::json;

constexpr PluginKind kKinds[] = {PluginKind::System, PluginKind::Integrator, PluginKind::Observer, PluginKind::Impact,
                                 PluginKind::Sampler};

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

json parameters_of(const PluginDescriptor& d) {
  json out = json::array();
  for (const auto& p : d.params)
    out.push_back({{"name", p.name},
                   {"type", to_string(p.type)},
                   {"default", p.default_value},
                   {"min", std::isfinite(p.min) ? json(p.min) : json(nullptr)},
                   {"max", std::isfinite(p.max) ? json(p.max) : json(nullptr)},
                   {"choices", p.choices},
                   {"doc", p.doc}});
  return out;
}

void describe_system(const Registry& reg, const PluginDescriptor& d, json& out) {
  std::unique_ptr<System> s;
  try {
    s = reg.make_system(d.name, nullptr, "describe");
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
                     {"models", models_of(*s)},
                     {"diagnostics", diag},
                     {"exact_solution", s->has_exact_solution()}};
}

// The model an integrator needs, as its refusal says: "'x' needs model M; system ...".
std::string needed_model(const std::string& refusal) {
  const auto at = refusal.find("needs model ");
  if (at == std::string::npos) return {};
  const auto start = at + 12, end = refusal.find(';', start);
  return refusal.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

void describe_integrator(const Registry& reg, const PluginDescriptor& d, json& out) {
  std::unique_ptr<Integrator> probe;
  try {
    probe = reg.make_integrator(d.name, nullptr, "describe");
  } catch (const std::exception& e) {
    out["instance_error"] = e.what();
    return;
  }
  const Traits t = probe->traits();
  std::vector<std::string> binds, needs;
  json quantities = nullptr, bound_to = nullptr;
  for (const auto& [name, sys] : default_systems(reg)) try {
      auto integ = reg.make_integrator(d.name, nullptr, "describe");
      integ->bind(*sys);
      binds.push_back(name);
      std::vector<std::string> q;
      integ->quantity_names(q);
      if (quantities.is_null()) quantities = q, bound_to = name;
    } catch (const std::exception& e) {
      const std::string m = needed_model(e.what());
      if (!m.empty() && std::find(needs.begin(), needs.end(), m) == needs.end()) needs.push_back(m);
    }
  out["instance"] = {{"order", t.order},          {"symmetric", t.symmetric},     {"explicit", t.explicit_method},
                     {"preserves", t.preserves},  {"needs_models", needs},        {"binds_to", binds},
                     {"quantities", quantities},  {"quantities_bound_to", bound_to}};
}

// An observer's columns on every (system, first integrator that binds to it) pair.
void describe_observer(const Registry& reg, const PluginDescriptor& d, json& out) {
  std::map<std::string, std::pair<std::vector<std::string>, std::vector<std::string>>> by_columns;  // key: joined columns
  std::string failure;
  for (const auto& [name, sys] : default_systems(reg))
    for (const auto* id : reg.list(PluginKind::Integrator)) try {
        auto integ = reg.make_integrator(id->name, nullptr, "describe");
        integ->bind(*sys);
        auto obs = reg.make_observer(d.name, nullptr, "describe");
        obs->bind(*sys, *integ);
        std::vector<std::string> c;
        obs->columns(c);
        auto& entry = by_columns[c.empty() ? "(none)" : joined(c, ", ")];
        entry.first = c;
        entry.second.push_back(name + " + " + id->name);
        break;
      } catch (const std::exception& e) {
        if (failure.empty() && std::string(e.what()).find("needs model") == std::string::npos) failure = e.what();
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
    if (d->kind == PluginKind::System) describe_system(reg, *d, j);
    if (d->kind == PluginKind::Integrator) describe_integrator(reg, *d, j);
    if (d->kind == PluginKind::Observer) describe_observer(reg, *d, j);
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace dalembert
