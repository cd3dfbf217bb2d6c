#include "parameter_sweep.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "mutator.hpp"

using nlohmann::json;

namespace dalembert::fuzz {

namespace {

// x as JSON text that reads back exactly.
std::string exact(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

// The bounds, just outside them (the next double; for an integer, the next integer), and well
// outside them.
void add_bounds(const ParamSpec& s, std::vector<std::string>& out) {
  const double inf = std::numeric_limits<double>::infinity();
  const bool integer = s.type == ParamType::Integer;
  for (const auto& [bound, away] : {std::pair{s.min, -inf}, std::pair{s.max, inf}}) {
    if (!std::isfinite(bound)) continue;
    const double step = std::max(1.0, std::abs(bound));
    out.push_back(exact(bound));
    out.push_back(exact(integer ? bound + (away < 0 ? -1.0 : 1.0) : std::nextafter(bound, away)));
    out.push_back(exact(bound + (away < 0 ? -step : step)));
  }
}

// The JSON value `j` with its first number replaced by `x` (a Json parameter's default, made hostile).
bool replace_first_number(json& j, const json& x) {
  if (j.is_number()) {
    j = x;
    return true;
  }
  if (j.is_array() || j.is_object())
    for (auto& v : j)
      if (replace_first_number(v, x)) return true;
  return false;
}

// Where plugins are named in a study: (kind, JSON pointer of the plugin's name or object).
std::vector<std::pair<PluginKind, std::string>> plugin_slots(const json& st) {
  std::vector<std::pair<PluginKind, std::string>> out;
  if (st.contains("system")) out.emplace_back(PluginKind::System, "/system");
  const auto each = [&](const char* key, PluginKind kind) {
    if (st.contains(key) && st[key].is_array())
      for (std::size_t i = 0; i < st[key].size(); ++i) out.emplace_back(kind, std::string("/") + key + "/" + std::to_string(i));
  };
  each("integrators", PluginKind::Integrator);
  each("observers", PluginKind::Observer);
  if (st.contains("reference") && st["reference"].is_object()) out.emplace_back(PluginKind::Integrator, "/reference");
  if (st.contains("ensemble") && st["ensemble"].contains("sampler")) out.emplace_back(PluginKind::Sampler, "/ensemble/sampler");
  if (st.contains("impact_map")) out.emplace_back(PluginKind::Impact, "/impact_map");
  return out;
}

std::string plugin_at(const json& st, const std::string& slot) {
  const json& u = st[json::json_pointer(slot)];
  return u.is_string() ? u.get<std::string>() : u.value("plugin", "");
}

struct Host {
  std::size_t study = 0;
  std::string slot;
  bool found = false;
};

// The study and slot where `d` runs: the first that names it; a sweep (which overwrites some
// parameters) only if nothing else does; failing both, the first slot of its kind.
Host find_host(const PluginDescriptor& d, const std::vector<json>& studies) {
  Host same_kind;
  for (int pass = 0; pass < 2; ++pass)
    for (std::size_t k = 0; k < studies.size(); ++k) {
      if ((studies[k].value("kind", "") == "sweep") != (pass == 1)) continue;
      for (const auto& [kind, slot] : plugin_slots(studies[k])) {
        if (kind != d.kind) continue;
        if (plugin_at(studies[k], slot) == d.name) return {k, slot, true};
        if (!same_kind.found) same_kind = {k, slot, true};
      }
    }
  return same_kind;
}

}  // namespace

std::vector<std::string> extreme_values(const ParamSpec& s) {
  std::vector<std::string> v = {"null", "\"NaN\"", "\"-inf\"", "[]", "{}"};
  switch (s.type) {
    case ParamType::Number:
      v.insert(v.end(), {"-0", "0", "1e300", "-1e300", "4.9e-324", "1e19", "9223372036854775808", "true"});
      add_bounds(s, v);
      break;
    case ParamType::Integer:
      v.insert(v.end(), {"-0", "2.5", "0.5", "1e19", "-1e19", "9223372036854775807", "9223372036854775808",
                         "18446744073709551616", "-9223372036854775809", "1e300", "4294967299", "\"3\""});
      add_bounds(s, v);
      break;
    case ParamType::Boolean: v.insert(v.end(), {"0", "1", "\"true\""}); break;
    case ParamType::String:
      for (const auto& c : s.choices) v.push_back(json(c).dump());
      v.insert(v.end(), {"\"\"", "\"x\"", json(std::string(5000, 'x')).dump(), "\"../../x\"", "5"});
      break;
    case ParamType::Json: {
      v.insert(v.end(), {"0", "-0", "1e300", "\"x\"", "[1e300]", "[[1e19, 1e19, 1e19]]", "[\"NaN\"]", "{\"a\": 1}",
                         "[0, 0, 0]", "[9223372036854775808]", "true"});
      for (const json& x : {json(1e300), json(-1e300), json("x"), json(9223372036854775807LL)}) {
        json d = s.default_value;
        if (replace_first_number(d, x)) v.push_back(d.dump());
      }
      break;
    }
  }
  std::vector<std::string> unique;
  for (const auto& x : v)
    if (std::find(unique.begin(), unique.end(), x) == unique.end()) unique.push_back(x);
  return unique;
}

std::vector<ParameterCase> parameter_cases(const Registry& registry, const std::vector<std::string>& names,
                                           const std::vector<json>& studies, std::vector<std::string>& uncovered) {
  std::vector<ParameterCase> out;
  for (auto kind : {PluginKind::System, PluginKind::Integrator, PluginKind::Impact, PluginKind::Observer, PluginKind::Sampler})
    for (const PluginDescriptor* d : registry.list(kind)) {
      const std::string who = std::string(to_string(kind)) + " " + d->name;
      const Host host = find_host(*d, studies);
      if (!host.found) {
        uncovered.push_back(who);
        continue;
      }
      json st = studies[host.study];
      st.erase("claims");  // a shrunk study fails its claims (exit 3); without them a valid value runs to exit 0
      json& use = st[json::json_pointer(host.slot)];
      if (use.is_string() || plugin_at(st, host.slot) != d->name) use = json{{"plugin", d->name}};
      if (!use.contains("params") || !use["params"].is_object()) use["params"] = json::object();
      for (const auto& p : d->params)
        for (const auto& value : extreme_values(p)) {
          const std::string path = host.slot + "/params/" + p.name;
          out.push_back({who + " " + p.name + " = " + value.substr(0, 60) + " (" + names[host.study] + ": " + path + ")",
                         with_raw_value(st, path, value)});
        }
    }
  return out;
}

}  // namespace dalembert::fuzz
