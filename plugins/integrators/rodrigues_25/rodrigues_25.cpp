// Map (25) of Baker & Gonzalez (seed 003), spec 003 §3: explicit RRP map a la velocity Verlet / explicit Newmark: truncated increment dalpha = h w; second order, symmetric
// The kernel is shared by all RRP maps: plugins/common/include/dalembert_plugins/rodrigues_maps.hpp.
#include <dalembert/plugin/export.hpp>
#include <dalembert_plugins/rodrigues_map_plugin.hpp>

namespace {
dalembert::PluginDescriptor describe() {
  return dalembert::rrp::map_plugin("rodrigues_25", dalembert::rrp::Map::M25,
                                    "explicit RRP map a la velocity Verlet / explicit Newmark: truncated increment dalpha = h w; second order, symmetric",
                                    "(25)");
}
}  // namespace

DALEMBERT_PLUGIN(describe)
