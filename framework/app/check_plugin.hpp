#pragma once
// `dalembert check NAME` for a plugin that is not a system (an integrator, observer, impact map or
// sampler): the conformance suite's table (study/conformance.hpp), with this program's allocation
// counter.
#include <dalembert/host/registry.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace dalembert::cli {

/// Prints the table of plugin `name` of `kind` (its declared examples, or `params`); 1 on a finding.
int check_plugin(const Registry& registry, PluginKind kind, const std::string& name,
                 const std::optional<nlohmann::json>& params);

}  // namespace dalembert::cli
