#pragma once
// A rolling body (rolling_body.hpp) from a plugin's parameters, shared by `chaplygin_ball` and
// `rattleback`: both name the mass m, gravity g, the inertia tensor about the centre of mass
// I11, I22, I33, I12, I13, I23 (body axes) and the centre of mass c1, c2, c3 from the geometric
// centre; each names its shape its own way (the ball's r, the rattleback's a, b, c).
#include <Eigen/Core>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/parameters.hpp>
#include <dalembert_plugins/rolling_body.hpp>
#include <dalembert_plugins/rolling_body_validate.hpp>
#include <string>

namespace dalembert::rolling {

/// The body of `shape` with `p`'s m, g, I.. and c.., validated (rolling_body()): an unphysical value
/// is an InputError at its parameter's JSON path, "<plugin>: parameter ...". `shape_parameter` is
/// the parameter behind every semi-axis ("r" for a ball), or "" when each is its own (a, b, c).
inline RollingBodyModel body_from_parameters(const Parameters& p, const ellipsoid::Semiaxes& shape,
                                             const std::string& plugin, const std::string& shape_parameter) {
  Eigen::Matrix3d I;
  I << p.number("I11"), p.number("I12"), p.number("I13"),  //
      p.number("I12"), p.number("I22"), p.number("I23"),    //
      p.number("I13"), p.number("I23"), p.number("I33");
  try {
    return rolling_body(shape, p.number("m"), p.number("g"), I,
                        Eigen::Vector3d(p.number("c1"), p.number("c2"), p.number("c3")));
  } catch (const InvalidBody& x) {
    // the model's field → the plugin's parameter (the tensor and the offset at their first entry)
    std::string name = x.field;
    if (name == "a" || name == "b" || name == "c") name = shape_parameter.empty() ? name : shape_parameter;
    else if (name == "gravity") name = "g";
    else if (name == "inertia" || name == "mu") name = "I11";
    else if (name == "offset") name = "c1";
    throw InputError(p.where(name), plugin + ": " + x.what());
  }
}

}  // namespace dalembert::rolling
