// Plugin 'rk4' compiled into the bench executable (see static_plugins.hpp).
#include <dalembert/plugin/export.hpp>
#undef DALEMBERT_PLUGIN
#define DALEMBERT_PLUGIN(describe_fn) \
  namespace dalembert::bench {        \
  PluginDescriptor static_rk4() { return ::describe_fn(); } \
  }
#include "../plugins/integrators/rk4/rk4.cpp"
