#pragma once
// The plugin descriptor shared by the explicit maps in rescaled Rodrigues parameters of seed 003
// (rodrigues_21/23/25, campello_27/30): each plugin names its map and documents it; the kernel is
// dalembert_plugins/rodrigues_maps.hpp.
#include <dalembert_plugins/rodrigues_maps.hpp>
#include <dalembert/plugin/descriptor.hpp>
#include <limits>
#include <string>

namespace dalembert::rrp {

inline PluginDescriptor map_plugin(const std::string& name, Map map, const std::string& summary,
                                   const std::string& equation) {
  PluginDescriptor d;
  d.name = name;
  d.kind = PluginKind::Integrator;
  d.version = "1.0.0";
  d.summary = summary;
  d.seed = "003 (Baker & Gonzalez), eq. " + equation + "; spec 003 §3";
  d.params = {{"storage", ParamType::String, "alpha",
               "attitude storage (spec 003 §2.7): alpha (the paper's; switches a body to the chart at pi), "
               "quaternion, or chart (re-anchored local alpha)",
               -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(),
               {"alpha", "quaternion", "chart"}}};
  d.make_integrator = [map](const Parameters& p, const PluginFactory&) {
    return std::make_unique<MapIntegrator>(map, storage_from_string(p.string("storage")));
  };
  d.needs = fixed_needs({"RigidBodyModel"});
  d.examples = {{"alpha", {{"storage", "alpha"}}}, {"quaternion", {{"storage", "quaternion"}}}};
  return d;
}

}  // namespace dalembert::rrp
