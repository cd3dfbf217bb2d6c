// `dalembert describe NAME` (see describe.hpp): prints what describe_plugins() finds.
#include "describe.hpp"

#include <algorithm>
#include <cstdio>
#include <dalembert/plugin/abi.hpp>
#include <dalembert/study/describe.hpp>
#include <limits>
#include <vector>

namespace dalembert::cli {

namespace {

using nlohmann::json;

std::vector<std::string> strings(const json& j) { return j.get<std::vector<std::string>>(); }

// A list for the description, "(none)" when empty.
std::string listed(const std::vector<std::string>& v, const char* sep = ", ") {
  return v.empty() ? "(none)" : joined(v, sep);
}
std::string listed(const json& j, const char* sep = ", ") { return listed(strings(j), sep); }

void print_parameters(const json& params) {
  std::printf(params.empty() ? "  parameters: none\n" : "  parameters:\n");
  for (const auto& p : params) {
    const std::string type = p["type"];
    std::string range;
    if ((type == "number" || type == "integer" || type == "input signal") && (!p["min"].is_null() || !p["max"].is_null())) {
      const double inf = std::numeric_limits<double>::infinity();
      char b[96];
      std::snprintf(b, sizeof b, " in [%g, %g]", p["min"].is_null() ? -inf : p["min"].get<double>(),
                    p["max"].is_null() ? inf : p["max"].get<double>());
      range = b;
    }
    if (!p["choices"].empty()) range = " one of {" + listed(p["choices"]) + "}";
    if (!p.value("unit", std::string()).empty()) range += " " + p["unit"].get<std::string>();
    for (const auto& x : p.value("presets", json::array()))
      range += "\n        preset \"" + x["name"].get<std::string>() + "\": " + x["doc"].get<std::string>();
    std::printf("    %-26s %-8s default %-10s%s\n        %s\n", p["name"].get<std::string>().c_str(), type.c_str(),
                p["default"].is_null() ? "(none)" : p["default"].dump().c_str(), range.c_str(),
                p["doc"].get<std::string>().c_str());
  }
}

bool not_instantiable(const json& d) {
  if (!d.contains("instance_error")) return false;
  std::printf("  (not instantiable with default parameters: %s)\n", d["instance_error"].get<std::string>().c_str());
  return true;
}

void print_system(const json& d) {
  if (not_instantiable(d)) return;
  const json& s = d["instance"];
  std::printf("  with default parameters:\n    q (%zu): %s\n    v (%zu): %s\n", s["q"].size(), listed(s["q"]).c_str(),
              s["v"].size(), listed(s["v"]).c_str());
  if (!s["n"].is_null() && s.value("holonomic", json(0)).get<int>() > 0)
    std::printf("    n = %d, r = %d (the last %d: dg/dq of holonomic constraints g(q) = 0)\n", s["n"].get<int>(),
                s["r"].get<int>(), s["holonomic"].get<int>());
  else if (!s["n"].is_null())
    std::printf("    n = %d, r = %d\n", s["n"].get<int>(), s["r"].get<int>());
  else std::printf("    n = %zu, r: not stated (no ConstrainedLagrangian model)\n", s["q"].size());
  std::printf("    models: %s\n", listed(s["models"]).c_str());
  std::vector<std::string> properties;  // the capabilities that are not models (plugin/needs.hpp)
  const std::vector<std::string> models = strings(s["models"]);
  for (const auto& c : strings(s["capabilities"]))
    if (std::find(models.begin(), models.end(), c) == models.end()) properties.push_back(c);
  std::printf("    properties: %s\n", listed(properties).c_str());
  std::printf("    diagnostics: %s\n    exact solution: %s\n", listed(s["diagnostics"]).c_str(),
              s["exact_solution"].get<bool>() ? "yes" : "no");
  if (s.contains("steady_motions"))
    std::printf("    steady motions (linear_stability): \"%s\", parameter %s: %s\n",
                s["steady_motions"]["name"].get<std::string>().c_str(),
                s["steady_motions"]["parameter"].get<std::string>().c_str(),
                s["steady_motions"]["description"].get<std::string>().c_str());
}

// What the plugin declares it needs of a system (PluginDescriptor::needs).
void print_needs(const json& d) {
  if (d["needs"].is_null())
    std::printf("  needs: depends on its parameters (%s)\n", d["needs_error"].get<std::string>().c_str());
  else
    std::printf("  needs: %s\n", d["needs"].empty() ? "nothing of a system" : listed(d["needs"]).c_str());
}

void print_integrator(const json& d) {
  if (not_instantiable(d)) return;
  const json& t = d["instance"];
  std::printf("  with default parameters:\n    order %d%s%s; preserves: %s\n", t["order"].get<int>(),
              t["symmetric"].get<bool>() ? ", symmetric" : "", t["explicit"].get<bool>() ? ", explicit" : ", implicit",
              listed(t["preserves"]).c_str());
  std::printf("    binds to the systems: %s\n", listed(t["binds_to"]).c_str());
  const std::string quantities =
      t["quantities"].is_null()
          ? "(none bound)"
          : listed(t["quantities"]) + " (bound to " + t["quantities_bound_to"].get<std::string>() + "; may depend on the system)";
  std::printf("    published quantities: %s\n", quantities.c_str());
}

void print_observer(const json& d) {
  const json& columns = d["columns"];
  if (columns.empty())
    return (void)std::printf("  columns: not known with default parameters (%s)\n",
                             d["columns_error"].get<std::string>().c_str());
  if (columns.size() == 1) return (void)std::printf("  columns: %s\n", listed(columns[0]["columns"]).c_str());
  std::printf("  columns: depend on the system (and integrator), e.g.\n");
  for (const auto& c : columns)
    std::printf("    %s: %s\n", c["on"][0].get<std::string>().c_str(), listed(c["columns"]).c_str());
}

}  // namespace

int describe(const std::string& name) {
  Registry reg;
  for (const auto& d : describe_plugins(reg, name)) {
    std::printf("%s (%s plugin, version %s)\n  %s\n", d["name"].get<std::string>().c_str(),
                d["kind"].get<std::string>().c_str(), d["version"].get<std::string>().c_str(),
                d["summary"].get<std::string>().c_str());
    if (!d["seed"].get<std::string>().empty()) std::printf("  seed: %s\n", d["seed"].get<std::string>().c_str());
    std::printf("  file: %s\n  sha256: %s\n", d["file"].get<std::string>().c_str(), d["sha256"].get<std::string>().c_str());
    // A plugin loads only when built for this ABI (the registry refuses others).
    std::printf("  framework library: %s\n  framework sha256: %s\n", d["framework"]["library"].get<std::string>().c_str(),
                d["framework"]["sha256"].get<std::string>().c_str());
    std::printf("  framework: plugin ABI %d, plugin source API %d (README: Migration notes)\n", abi_version, api_version);
    print_parameters(d["parameters"]);
    if (d["kind"] != "system") print_needs(d);
    if (d["kind"] == "system") print_system(d);
    if (d["kind"] == "integrator") print_integrator(d);
    if (d["kind"] == "observer") print_observer(d);
  }
  return 0;
}

}  // namespace dalembert::cli
