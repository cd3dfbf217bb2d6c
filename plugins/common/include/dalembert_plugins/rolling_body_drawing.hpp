#pragma once
// How a rolling body (rolling_body.hpp) is drawn (issue 31 item 4, "A system's drawing" in the
// README): its ellipsoid in the body frame (x, y, 0) · p, set on the ground by its shape (the layout
// holds no height), the centre of mass marked, the contact path traced. Shared by chaplygin_ball,
// rattleback and ball_on_turntable.
#include <nlohmann/json.hpp>
#include <dalembert_plugins/rolling_body.hpp>

namespace dalembert::rolling {

inline nlohmann::json body_drawing(const RollingBodyModel& m) {
  const nlohmann::json centre = {-m.offset.x(), -m.offset.y(), -m.offset.z()};  // the geometric centre from G
  return {{"dimension", 3},
          {"ground", true},
          {"frames", {{{"name", "body"}, {"on_ground", true},
                       {"transform", {{{"translate", {"x", "y", 0.0}}}, {{"quaternion", {"qw", "qx", "qy", "qz"}}}}}}}},
          {"shapes", {{{"frame", "body"},
                       {"ellipsoid", {{"semi_axes", {m.shape.a, m.shape.b, m.shape.c}}, {"center", centre}}}},
                      {{"frame", "body"}, {"point", {0.0, 0.0, 0.0}}, {"color", "k"}, {"width", 3}}}},
          {"traces", {{{"contact", "body"}, {"label", "contact path"}, {"color", "tab:red"}}}}};
}

}  // namespace dalembert::rolling
