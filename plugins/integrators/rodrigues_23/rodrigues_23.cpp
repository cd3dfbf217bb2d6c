// Map (23) of Baker & Gonzalez (seed 003), spec 003 §3: explicit variational map in rescaled Rodrigues parameters, spatial frame, exact root of (15); second order, symmetric; refuses h|w| >= 1
// The kernel is shared by all RRP maps: plugins/common/include/dalembert_plugins/rodrigues_maps.hpp.
#include <dalembert/plugin/export.hpp>
#include <dalembert_plugins/rodrigues_map_plugin.hpp>

namespace {
dalembert::PluginDescriptor describe() {
  return dalembert::rrp::map_plugin("rodrigues_23", dalembert::rrp::Map::M23,
                                    "explicit variational map in rescaled Rodrigues parameters, spatial frame, exact root of (15); second order, symmetric; refuses h|w| >= 1",
                                    "(23)");
}
}  // namespace

DALEMBERT_PLUGIN(describe)
