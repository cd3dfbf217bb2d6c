#pragma once
// The Chaplygin sleigh's L and A (seed 001 §6.1, spec 001 §2.1) and its drawing, shared by the
// free sleigh (chaplygin_sleigh) and the sleigh driven by a feedback law (tracking_sleigh).
// q = (θ, x, y) the pose of the centre of mass, v = q̇; the skate sits a behind the centre of mass.
#include <Eigen/Core>
#include <cmath>
#include <dalembert/core/parameters.hpp>
#include <dalembert/math/forward_derivatives.hpp>
#include <nlohmann/json.hpp>

namespace dalembert::plugins {

/// M = diag(I, m, m), constraint a θ̇ + sinθ ẋ − cosθ ẏ = 0 (spec §2.1, eq. 29); ∂μ/∂q, whose
/// contraction is (∂μ/∂q)[v]v = θ̇ (cosθ ẋ + sinθ ẏ) = ω v, comes from AD.
struct SleighModel {
  static constexpr int dof = 3, constraints = 1;
  double I, m, a;
  void mass(auto&& M) const { M = Eigen::Vector3d(I, m, m).asDiagonal(); }
  auto potential(const auto& q) const -> scalar_t<decltype(q)> { return scalar_t<decltype(q)>(0.0); }
  // μ(q) = [a, sinθ, −cosθ]
  void constraint_matrix(const auto& q, auto&& A) const {
    using std::cos, std::sin;
    A << a, sin(q[0]), -cos(q[0]);
  }
};

/// The sleigh's parameters I, m, a (defaults: seed 001 §6.1), and the model they make.
inline std::vector<ParamSpec> sleigh_parameters() {
  return {{"I", ParamType::Number, 1.0, "rotational inertia about the centre of mass", 1e-12},
          {"m", ParamType::Number, 1.0, "mass", 1e-12},
          {"a", ParamType::Number, 0.3, "distance from the centre of mass back to the skate", 1e-12}};
}
inline SleighModel sleigh_model(const Parameters& p) { return {p.number("I"), p.number("m"), p.number("a")}; }

/// How a sleigh looks (core/drawable.hpp): a body about the centre of mass (x, y), heading θ, its
/// skate a behind the centre of mass (red), whose path is traced.
inline nlohmann::json sleigh_drawing(double a) {
  const double s = a > 0 ? a : 1.0;
  return {{"dimension", 2},
          {"frames", {{{"name", "body"}, {"transform", {{{"translate", {"x", "y"}}}, {{"rotate", "theta"}}}}}}},
          {"shapes", {{{"frame", "body"},
                       {"polygon", {{-1.7 * s, -0.6 * s}, {0.8 * s, -0.6 * s}, {1.4 * s, 0.0}, {0.8 * s, 0.6 * s},
                                    {-1.7 * s, 0.6 * s}}},
                       {"color", "tab:blue"}},
                      {{"frame", "body"}, {"line", {{-a - 0.5 * s, 0.0}, {-a + 0.5 * s, 0.0}}}, {"color", "tab:red"},
                       {"width", 3}},
                      {{"frame", "body"}, {"point", {0.0, 0.0}}, {"color", "k"}}}},
          {"traces", {{{"frame", "body"}, {"point", {-a, 0.0}}, {"label", "skate"}, {"color", "tab:red"}}}}};
}

}  // namespace dalembert::plugins
