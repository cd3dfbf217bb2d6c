// Plugin 'nonholonomic_newmark' compiled into the bench executable (see static_plugins.hpp).
#include <dalembert/plugin/export.hpp>
#undef DALEMBERT_PLUGIN
#define DALEMBERT_PLUGIN(describe_fn) \
  namespace dalembert::bench {        \
  PluginDescriptor static_nonholonomic_newmark() { return ::describe_fn(); } \
  }
#include "../plugins/integrators/nonholonomic_newmark/nonholonomic_newmark.cpp"
