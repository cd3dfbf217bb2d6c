#pragma once
// The same plugin sources compiled statically into the bench (issue 4: plugin dispatch overhead
// = the plugin loaded through the registry vs the same code linked into the executable).
// Each static_*.cpp includes one plugin's source with DALEMBERT_PLUGIN(describe) turned into a
// plain function returning its descriptor.
#include <dalembert/core/system.hpp>
#include <dalembert/plugin/descriptor.hpp>
#include <memory>

namespace dalembert::bench {
PluginDescriptor static_rk4();
PluginDescriptor static_nonholonomic_newmark();
PluginDescriptor static_chaotic_nonholonomic_particle();
/// The chaotic particle written as V and A only: its derivatives by automatic differentiation.
std::unique_ptr<System> static_chaotic_particle_by_ad();
}  // namespace dalembert::bench
