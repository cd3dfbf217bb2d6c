// Plugin 'chaotic_nonholonomic_particle' compiled into the bench executable (see static_plugins.hpp).
#include <dalembert/plugin/export.hpp>
#undef DALEMBERT_PLUGIN
#define DALEMBERT_PLUGIN(describe_fn) \
  namespace dalembert::bench {        \
  PluginDescriptor static_chaotic_nonholonomic_particle() { return ::describe_fn(); } \
  }
#include "../plugins/systems/chaotic_nonholonomic_particle/chaotic_nonholonomic_particle.cpp"
