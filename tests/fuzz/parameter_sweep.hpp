#pragma once
// The parameter sweep of the fuzz driver (issue 26): every declared parameter of every plugin the
// registry finds, set to its limits and beyond — min, max, just outside them, huge, non-integral
// for an integer, 2^63, 2^64, 1e300, -0, NaN-like strings, values of the wrong type — in a shipped
// study that uses the plugin (shrunk to run in well under a second), one parameter at a time.
#include <dalembert/host/registry.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace dalembert::fuzz {

struct ParameterCase {
  std::string what;  // e.g. "system binder_torus n = 1e19 (fig3_torus.json: /system/params/n)"
  std::string text;  // the study
};

/// The values parameter `spec` is set to, as JSON texts ("1e19", "9223372036854775808", "\"NaN\"").
std::vector<std::string> extreme_values(const ParamSpec& spec);

/// Every parameter of every plugin of `registry` at each of its extreme values, in the first of
/// `studies` (shrunk shipped studies, file names `names`) that uses the plugin, a sweep only if no
/// other does; a plugin no study uses takes the place of one of its kind. `uncovered` receives the
/// plugins no study could host.
std::vector<ParameterCase> parameter_cases(const Registry& registry, const std::vector<std::string>& names,
                                           const std::vector<nlohmann::json>& studies, std::vector<std::string>& uncovered);

}  // namespace dalembert::fuzz
