// `dalembert check NAME` for a plugin that is not a system (see check_plugin.hpp). This is the
// program's one translation unit that installs the allocation hooks.
#include "check_plugin.hpp"

#include <cstdio>
#include <dalembert/study/conformance.hpp>

#include "allocation_counter.hpp"

namespace dalembert::cli {

int check_plugin(const Registry& registry, PluginKind kind, const std::string& name,
                 const std::optional<nlohmann::json>& params) {
  HookedAllocationCounter counter;
  ConformanceOptions options;
  options.allocations = &counter;
  options.params = params;
  const ConformanceReport report = check_conformance(registry, kind, name, options);
  const std::string text = format_conformance(report);
  std::fwrite(text.data(), 1, text.size(), stdout);
  if (report.ok()) std::printf("%s: all checks passed\n", name.c_str());
  return report.ok() ? 0 : 1;
}

}  // namespace dalembert::cli
