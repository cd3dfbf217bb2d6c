// A uniform ball rolling without slipping on a turntable that turns at Ω(t) (issue 30 item 3): the
// rolling-body model of chaplygin_ball (q = (x, y, qw, qx, qy, qz), g = |p|² − 1, no chart) with the
// moving constraint A(q)v + b(t, q) = 0, b = (Ω(t) y, −Ω(t) x) (turntable_model.hpp). The centre
// circles at κΩ, κ = k/(1 + k) = 2/7 for I = (2/5) m r² (Weltner, Am. J. Phys. 47 (1979) 984;
// README.md derives it). The framework derives the equations (AD for every derivative, ∂b/∂q and
// ∂b/∂t included); turntable_orbit.hpp holds the closed forms the diagnostics and the exact
// solution use, derived by hand.
#include <cmath>
#include <dalembert/plugin/export.hpp>
#include <dalembert/core/drawable.hpp>
#include <dalembert/schemes/fixed_lagrangian_system.hpp>
#include <dalembert_plugins/rolling_body_drawing.hpp>
#include <dalembert_plugins/rolling_body_observables.hpp>
#include <string>
#include <vector>
#include "turntable_model.hpp"
#include "turntable_orbit.hpp"

namespace {

using namespace dalembert;
using turntable::BallOnTurntableModel;

class BallOnTurntable final : public FixedLagrangianSystem<BallOnTurntableModel>, public rolling::UnitAttitude, public Drawable {
 public:
  using FixedLagrangianSystem::FixedLagrangianSystem;
  Layout layout() const override { return rolling::body_layout(); }
  /// c = ż − iκΩ(t)z (constant for any Ω(t), README eq. (5)); the distance of the centre from the
  /// table's axis and its polar angle atan2(y, x) (an orbit centred on the axis: its radius and phase);
  /// Ω(t); |p| − 1.
  /// The ball on the table (the table's rotation is not in the state; the orbit is the contact path).
  nlohmann::json drawing() const override { return rolling::body_drawing(fixed_model()); }
  void diagnostic_names(std::vector<std::string>& n) const override {
    n = {"orbit_invariant_x", "orbit_invariant_y", "distance_from_axis", "orbit_angle", "table_rate",
         "quaternion_norm_error"};
  }
  void diagnostics(const State& s, double* out) const override {
    const Eigen::Vector2d c = turntable::orbit_invariant(fixed_model(), s);
    out[0] = c[0];
    out[1] = c[1];
    out[2] = std::hypot(s.q[0], s.q[1]);
    out[3] = std::atan2(s.q[1], s.q[0]);
    out[4] = fixed_model().table.at(s.t);
    out[5] = s.q.segment<4>(2).norm() - 1.0;
  }
  bool has_exact_solution() const override { return fixed_model().table.constant(); }
  void exact_solution(const State& s0, double t, State& out) const override {
    turntable::centred_orbit_at(fixed_model(), s0, t, out);
  }
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "ball_on_turntable";
  d.kind = PluginKind::System;
  d.version = "1.0.0";
  d.summary =
      "a ball (radius r, I = k m r^2) rolling without slipping on a table turning at Omega(t) = Omega + "
      "Omega_rate t + Omega_amplitude sin(Omega_frequency t): moving constraints A(q)v + b(t, q) = 0; unit "
      "quaternions";
  d.seed = "issue 30: Weltner, Am. J. Phys. 47 (1979) 984; Bloch 2015 Sec 1.x; Neimark & Fufaev";
  d.params = {{"r", ParamType::Number, 1.0, "radius of the ball", 1e-12},
              {"m", ParamType::Number, 1.0, "mass", 1e-12},
              {"k", ParamType::Number, 0.4, "I = k m r^2 about the centre (0.4: uniform ball; 2/3: thin shell)", 1e-12},
              {"Omega", ParamType::Number, 1.0, "the table's angular velocity about the vertical (at t = 0)"},
              {"Omega_rate", ParamType::Number, 0.0, "its rate of change (a linear ramp)"},
              {"Omega_amplitude", ParamType::Number, 0.0, "amplitude of a sinusoid added to it"},
              {"Omega_frequency", ParamType::Number, 1.0, "angular frequency of that sinusoid"}};
  d.make_system = [](const Parameters& p) {
    const turntable::TableRate table{p.number("Omega"), p.number("Omega_rate"), p.number("Omega_amplitude"),
                                     p.number("Omega_frequency")};
    return std::make_unique<BallOnTurntable>(
        turntable::ball_on_turntable(p.number("r"), p.number("m"), p.number("k"), table));
  };
  // The orbit centred on the axis at radius 1 with spin 0.5 (the exact solution's), and a ramp.
  const auto example = [](const std::string& label, const turntable::TableRate& table, nlohmann::json params) {
    const auto b = turntable::ball_on_turntable(1.0, 1.0, 0.4, table);
    PluginExample e{label, std::move(params), turntable::centred_orbit(b, 1.0, 0.5), 0.1};
    return e;
  };
  d.examples = {example("centred orbit, constant Omega", {1.0, 0.0, 0.0, 1.0}, nlohmann::json::object()),
                example("ramp", {1.0, 0.2, 0.0, 1.0}, {{"Omega_rate", 0.2}})};
  return d;
}

}  // namespace

DALEMBERT_PLUGIN(describe)
