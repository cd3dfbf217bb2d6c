// Map (23) of Baker & Gonzalez (seed 003), spec 003 §3: explicit variational map in rescaled Rodrigues parameters, spatial frame, exact root of (15); second order, symmetric; refuses h|w| >= 1
// The kernel is shared by all RRP maps: framework/include/dalembert/math/rodrigues_maps.hpp.
#include <dalembert/math/rodrigues_maps.hpp>
#include <dalembert/plugin/export.hpp>

namespace {

using namespace dalembert;

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "rodrigues_23";
  d.kind = PluginKind::Integrator;
  d.version = "1.0.0";
  d.summary = "explicit variational map in rescaled Rodrigues parameters, spatial frame, exact root of (15); second order, symmetric; refuses h|w| >= 1";
  d.seed = "003 (Baker & Gonzalez), eq. (23); spec 003 §3";
  d.params = {{"storage", ParamType::String, "alpha",
               "attitude storage (spec 003 §2.7): alpha (the paper's; switches a body to the chart at pi), "
               "quaternion, or chart (re-anchored local alpha)",
               -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(),
               {"alpha", "quaternion", "chart"}}};
  d.make_integrator = [](const Parameters& p, const PluginFactory&) {
    return std::make_unique<rrp::MapIntegrator>(rrp::Map::M23, rrp::storage_from_string(p.string("storage")));
  };
  return d;
}

}  // namespace

DALEMBERT_PLUGIN(describe)
