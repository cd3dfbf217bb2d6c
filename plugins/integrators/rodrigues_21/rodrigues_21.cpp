// Map (21) of Baker & Gonzalez (seed 003), spec 003 §3: explicit RRP map in the body frame (exact root); the body-frame check of (23): identical trajectories with Omega = R omega
// The kernel is shared by all RRP maps: plugins/common/include/dalembert_plugins/rodrigues_maps.hpp.
#include <dalembert/plugin/export.hpp>
#include <dalembert_plugins/rodrigues_map_plugin.hpp>

namespace {
dalembert::PluginDescriptor describe() {
  return dalembert::rrp::map_plugin("rodrigues_21", dalembert::rrp::Map::M21,
                                    "explicit RRP map in the body frame (exact root); the body-frame check of (23): identical trajectories with Omega = R omega",
                                    "(21)");
}
}  // namespace

DALEMBERT_PLUGIN(describe)
