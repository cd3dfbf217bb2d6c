// Chaplygin's ball on unit quaternions, valid in every attitude (issue 29 items 1 and 3): a ball of
// radius r and mass m whose centre of mass G sits at c from its geometric centre (body axes; c = 0:
// Chaplygin's ball, Chaplygin 1903, Borisov & Mamaev 2002, Bloch §1.12), with a full inertia tensor
// about G, rolling without slipping on a horizontal plane under gravity. The model is the shared
// rolling-body model (plugins/common/include/dalembert_plugins/rolling_body.hpp) with the ellipsoid's
// semi-axes all r:
//   q = (x, y, qw, qx, qy, qz): G's horizontal position and the attitude quaternion p, v = q̇;
//   g(q) = |p|² − 1 = 0 (holonomic), the two horizontal rows of v_G + R(Ω × d) = 0 (rolling),
//   T = ½m(ẋ² + ẏ² + ḣ²) + ½ΩᵀIΩ (+ ½μ(p·ṗ)², zero on the constraint), V = m g h,
//   Ω = 2G(p)ṗ, d = −rγ − c (G to the contact point), h = r + γ·c.
// README.md of this folder derives each line. The framework derives the equations (C = [A; ∂g/∂q],
// AD for every derivative); nothing here is differentiated by hand.
#include <cmath>
#include <dalembert/core/drawable.hpp>
#include <dalembert/plugin/export.hpp>
#include <dalembert/schemes/fixed_lagrangian_system.hpp>
#include <dalembert_plugins/rolling_body.hpp>
#include <dalembert_plugins/rolling_body_observables.hpp>
#include <dalembert_plugins/rolling_body_drawing.hpp>
#include <dalembert_plugins/rolling_body_parameters.hpp>
#include <stdexcept>
#include <string>
#include <utility>

namespace {

using namespace dalembert;
using Model = rolling::RollingBodyModel;

class ChaplyginBall final : public FixedLagrangianSystem<Model>, public rolling::UnitAttitude, public Drawable {
 public:
  using FixedLagrangianSystem::FixedLagrangianSystem;
  Layout layout() const override { return rolling::body_layout(); }
  /// K about the contact point in space (conserved for c = 0), K·γ, K·d (Jellett), |K|², |p| − 1,
  /// the contact point in space (the contact path) and the height of G (rolling_body_observables.hpp).
  void diagnostic_names(std::vector<std::string>& n) const override {
    n = {"K_x", "K_y", "K_z", "K_dot_gamma", "K_dot_d", "K_squared", "quaternion_norm_error", "contact_x", "contact_y",
         "height"};
  }
  void diagnostics(const State& s, double* out) const override {
    const auto o = rolling::observe(fixed_model(), s.q, s.v);
    out[0] = o.K_space[0];
    out[1] = o.K_space[1];
    out[2] = o.K_space[2];
    out[3] = o.K_dot_gamma;
    out[4] = o.K_dot_d;
    out[5] = o.K_squared;
    out[6] = o.quaternion_norm_error;
    out[7] = o.contact[0];
    out[8] = o.contact[1];
    out[9] = o.height;
  }

  // How the body looks (core/drawable.hpp), in space: its ellipsoid (principal sections) about the
  // geometric centre, −c from the centre of mass G in body axes, at (x, y) and attitude p, resting
  // on the ground (the height is the contact's, which the layout does not hold); the contact path,
  // the body's lowest point, is traced.
  nlohmann::json drawing() const override { return rolling::body_drawing(fixed_model()); }

};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "chaplygin_ball";
  d.kind = PluginKind::System;
  d.version = "1.0.0";
  d.summary =
      "a ball (radius r) with its centre of mass offset by c and a full inertia tensor, rolling without slipping on "
      "a plane, on unit quaternions: q = (x, y, qw, qx, qy, qz), g = |p|^2 - 1, every attitude";
  d.seed = "issue 29: Chaplygin 1903; Borisov & Mamaev, Regul. Chaotic Dyn. 7 (2002) 177; Bloch 2015 Sec 1.12";
  d.params = {{"r", ParamType::Number, 1.0, "radius of the ball", 1e-12},
              {"m", ParamType::Number, 1.0, "mass", 1e-12},
              {"g", ParamType::Number, 1.0, "gravity (acts on the centre of mass; no effect when c = 0)"},
              {"I11", ParamType::Number, 0.5, "inertia tensor about the centre of mass, body axes: 11"},
              {"I22", ParamType::Number, 0.6, "inertia tensor about the centre of mass: 22"},
              {"I33", ParamType::Number, 0.7, "inertia tensor about the centre of mass: 33"},
              {"I12", ParamType::Number, 0.0, "inertia tensor about the centre of mass: 12 (= 21)"},
              {"I13", ParamType::Number, 0.0, "inertia tensor about the centre of mass: 13 (= 31)"},
              {"I23", ParamType::Number, 0.0, "inertia tensor about the centre of mass: 23 (= 32)"},
              {"c1", ParamType::Number, 0.0, "centre of mass from the geometric centre, body axis 1"},
              {"c2", ParamType::Number, 0.0, "centre of mass from the geometric centre, body axis 2"},
              {"c3", ParamType::Number, 0.0, "centre of mass from the geometric centre, body axis 3"}};
  d.make_system = [](const Parameters& p) {
    const double r = p.number("r");
    return std::make_unique<ChaplyginBall>(rolling::body_from_parameters(p, {r, r, r}, "chaplygin_ball", "r"));
  };
  // The case: the identity attitude (where chaplygin_sphere's Euler angles are singular),
  // Ω = (1, 0.5, 0.8), the centre rolling at −R(Ω × d) = (0.5, −1). And a generic attitude (unit
  // quaternion along (0.9, 0.3, −0.2, 0.25)) with the centre of mass offset (0.1, −0.05, −0.2) and
  // products of inertia, so gravity and the vertical motion of G enter.
  Model ball;
  ball.inertia = Eigen::Vector3d(0.5, 0.6, 0.7).asDiagonal();
  ball.mu = ball.inertia.trace() + 1.0;
  Model offset = ball;
  offset.inertia(0, 1) = offset.inertia(1, 0) = 0.02;
  offset.inertia(0, 2) = offset.inertia(2, 0) = -0.03;
  offset.inertia(1, 2) = offset.inertia(2, 1) = 0.01;
  offset.offset = Eigen::Vector3d(0.1, -0.05, -0.2);
  d.examples = {
      rolling::example_from_body_rates("identity attitude", ball, Eigen::Vector4d(1, 0, 0, 0),
                                       Eigen::Vector3d(1.0, 0.5, 0.8), nlohmann::json::object(), 0.05),
      rolling::example_from_body_rates("generic attitude, offset centre of mass", offset,
                                       Eigen::Vector4d(0.9, 0.3, -0.2, 0.25), Eigen::Vector3d(0.7, -0.4, 1.1),
                                       {{"I12", 0.02}, {"I13", -0.03}, {"I23", 0.01}, {"c1", 0.1}, {"c2", -0.05}, {"c3", -0.2}},
                                       0.05)};
  return d;
}

}  // namespace

DALEMBERT_PLUGIN(describe)
