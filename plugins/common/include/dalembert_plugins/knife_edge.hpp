#pragma once
// The knife edge's constraint, frame and drawing (seed 002 Examples 4 and 5, spec 002 §2.2), shared
// by the knife edge on an inclined plane (knife_edge) and on a rocking plane (rocking_knife_edge).
// q = (x, y, φ) (spec §6 A2), M = I; constraint sin φ ẋ − (cos φ − ε) ẏ = 0.
#include <cmath>
#include <dalembert/core/constrained_lagrangian.hpp>
#include <dalembert/math/forward_derivatives.hpp>
#include <nlohmann/json.hpp>

namespace dalembert::plugins {

/// A(q) and its closed-form derivative; a model derives from it and adds its potential.
struct KnifeEdgeConstraint {
  static constexpr int dof = 3, constraints = 1;
  double eps;
  // μ(q) = (sin φ, −(cos φ − ε), 0) (spec 002 §2.2; sign as corrected in §6 A1).
  void constraint_matrix(const auto& q, auto&& A) const {
    using std::cos, std::sin;
    A << sin(q[2]), -(cos(q[2]) - eps), 0.0;
  }
  // G_{ij} = ∂μ_i/∂q^j: ∂μ_x/∂φ = cos φ, ∂μ_y/∂φ = sin φ.
  void constraint_gradient(const auto& q, int, auto&& G) const {
    G.setZero();
    G(0, 2) = std::cos(q[2]);
    G(1, 2) = std::sin(q[2]);
  }
};

/// Regular frame of D (spec 002 §2.2): e1 = (cos φ − ε) ∂x + sin φ ∂y, e2 = ∂φ.
inline void knife_edge_frame(ConstVecRef q, double eps, MatRef B) {
  B << std::cos(q[2]) - eps, 0.0, std::sin(q[2]), 0.0, 0.0, 1.0;
}

/// How a knife edge looks (core/drawable.hpp): a blade at (x, y) along its heading φ (x downhill),
/// its path traced.
inline nlohmann::json knife_edge_drawing() {
  return {{"dimension", 2},
          {"frames", {{{"name", "blade"}, {"transform", {{{"translate", {"x", "y"}}}, {{"rotate", "phi"}}}}}}},
          {"shapes", {{{"frame", "blade"}, {"polygon", {{-0.5, -0.06}, {0.35, -0.06}, {0.5, 0.0}, {0.35, 0.06}, {-0.5, 0.06}}},
                       {"color", "0.6"}},
                      {{"frame", "blade"}, {"line", {{-0.5, 0.0}, {0.5, 0.0}}}, {"color", "tab:red"}, {"width", 2}},
                      {{"frame", "blade"}, {"point", {0.0, 0.0}}, {"color", "k"}}}},
          {"traces", {{{"frame", "blade"}, {"label", "contact point"}}}}};
}

}  // namespace dalembert::plugins
