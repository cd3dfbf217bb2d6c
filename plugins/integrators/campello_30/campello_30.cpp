// Map (30) of Baker & Gonzalez (seed 003), spec 003 §3: map (30) ('27*'): Campello (27) with the exact root of the rectangle-rule Lagrangian (28); first order; refuses h|Omega| >= 1
// The kernel is shared by all RRP maps: plugins/common/include/dalembert_plugins/rodrigues_maps.hpp.
#include <dalembert/plugin/export.hpp>
#include <dalembert_plugins/rodrigues_map_plugin.hpp>

namespace {
dalembert::PluginDescriptor describe() {
  return dalembert::rrp::map_plugin("campello_30", dalembert::rrp::Map::M30,
                                    "map (30) ('27*'): Campello (27) with the exact root of the rectangle-rule Lagrangian (28); first order; refuses h|Omega| >= 1",
                                    "(30)");
}
}  // namespace

DALEMBERT_PLUGIN(describe)
