// Map (27) of Baker & Gonzalez (seed 003), spec 003 §3: Campello et al. explicit RRP map (phi = 1 of (26)): symplectic-Euler structure, first order
// The kernel is shared by all RRP maps: plugins/common/include/dalembert_plugins/rodrigues_maps.hpp.
#include <dalembert/plugin/export.hpp>
#include <dalembert_plugins/rodrigues_map_plugin.hpp>

namespace {
dalembert::PluginDescriptor describe() {
  return dalembert::rrp::map_plugin("campello_27", dalembert::rrp::Map::M27,
                                    "Campello et al. explicit RRP map (phi = 1 of (26)): symplectic-Euler structure, first order",
                                    "(27)");
}
}  // namespace

DALEMBERT_PLUGIN(describe)
