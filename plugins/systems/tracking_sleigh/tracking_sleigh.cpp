// A Chaplygin sleigh driven by a feedback law to a circle (issue 30 item 3, the feedback example).
// The sleigh of seed 001 §6.1 (dalembert_plugins/sleigh.hpp) with a thrust f along its heading and
// a torque τ about its centre of mass: F = (τ, f cosθ, f sinθ). The law (README.md derives it):
//   skate p_s = (x − a cosθ, y − a sinθ), a unicycle: ṗ_s = v (cosθ, sinθ), θ̇ = ω;
//   heading wanted θ_ref = atan2(y_s, x_s) + π/2 + atan(k_r (|p_s| − R)), e = θ_ref − θ (wrapped);
//   τ = m a v ω + I′ (k_θ e + k_ω (v_ref(t)/R − ω)),   f = −m a ω² + m k_v (v_ref(t) − v),
// which, through the sleigh's equations I′ω̇ = −m a v ω + τ, m v̇ = m a ω² + f (I′ = I + m a²),
// makes ω̇ = k_θ e + k_ω(v_ref/R − ω) and v̇ = k_v(v_ref − v). On the circle |p_s| = R at
// v = v_ref, ω = v_ref/R, the heading tangent: e stays 0 — the steady state it converges to.
// The reference speed v_ref(t) is an input (core/input_signal.hpp): a constant, sinusoids, a table.
#include <cmath>
#include <dalembert/core/drawable.hpp>
#include <dalembert/core/input_signal.hpp>
#include <dalembert/plugin/export.hpp>
#include <dalembert/schemes/fixed_lagrangian_system.hpp>
#include <dalembert_plugins/sleigh.hpp>
#include <numbers>

namespace {

using namespace dalembert;
constexpr double pi = std::numbers::pi;

struct Gains {
  double R, k_r, k_theta, k_omega, k_v;
};

/// The law's quantities at a state: what it sees (skate radius, heading error, v, ω) and what it
/// applies (τ, f).
struct Control {
  double radius, heading_error, v, omega, torque, thrust;
};

struct TrackingModel : plugins::SleighModel {
  Gains g;
  InputSignal v_ref;

  Control control(double t, double th, double x, double y, double thd, double xd, double yd) const {
    const double c = std::cos(th), s = std::sin(th);
    const double xs = x - a * c, ys = y - a * s, r = std::hypot(xs, ys);
    const double v = c * xd + s * yd, w = thd;
    const double wanted = std::atan2(ys, xs) + pi / 2 + std::atan(g.k_r * (r - g.R));
    const double e = std::remainder(wanted - th, 2 * pi);  // in [−π, π]
    const double Ip = I + m * a * a, u = v_ref(t);
    const double torque = m * a * v * w + Ip * (g.k_theta * e + g.k_omega * (u / g.R - w));
    const double thrust = -m * a * w * w + m * g.k_v * (u - v);
    return {r, e, v, w, torque, thrust};
  }
  // F = (τ, f cosθ, f sinθ): the torque on θ, the thrust along the heading.
  void external_force(double t, const auto& q, const auto& v, auto&& f) const {
    const Control k = control(t, q[0], q[1], q[2], v[0], v[1], v[2]);
    f[0] = k.torque;
    f[1] = k.thrust * std::cos(q[0]);
    f[2] = k.thrust * std::sin(q[0]);
  }
};

class TrackingSleigh final : public FixedLagrangianSystem<TrackingModel>, public Drawable {
 public:
  using FixedLagrangianSystem::FixedLagrangianSystem;

  Layout layout() const override { return {{"theta", "x", "y"}, {"thetadot", "xdot", "ydot"}}; }

  void diagnostic_names(std::vector<std::string>& n) const override {
    n = {"skate_x", "skate_y", "radius_error", "heading_error", "speed", "speed_error", "torque", "thrust"};
  }
  void diagnostics(const State& s, double* out) const override {
    const TrackingModel& md = fixed_model();
    const Control k = md.control(s.t, s.q[0], s.q[1], s.q[2], s.v[0], s.v[1], s.v[2]);
    out[0] = s.q[1] - md.a * std::cos(s.q[0]);
    out[1] = s.q[2] - md.a * std::sin(s.q[0]);
    out[2] = k.radius - md.g.R;
    out[3] = k.heading_error;
    out[4] = k.v;
    out[5] = k.v - md.v_ref(s.t);
    out[6] = k.torque;
    out[7] = k.thrust;
  }

  nlohmann::json drawing() const override { return plugins::sleigh_drawing(fixed_model().a); }
};

ParamSpec speed_input() {
  ParamSpec s{"v_ref", ParamType::Input, 1.0, "reference speed along the circle (input)", 0.0, 100.0};
  s.unit = "m/s";
  return s;
}

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "tracking_sleigh";
  d.kind = PluginKind::System;
  d.version = "1.0.0";
  d.summary = "Chaplygin sleigh steered to a circle by a feedback thrust and torque; reference speed an input";
  d.seed = "issue 30 item 3 (beyond the seeds): the sleigh of 001 Sec 6.1 under a computed-torque law";
  d.params = plugins::sleigh_parameters();
  d.params.insert(d.params.end(), {
              {"R", ParamType::Number, 2.0, "radius of the circle the skate is steered to (centre: the origin)", 1e-9},
              {"k_r", ParamType::Number, 1.0, "gain: heading correction atan(k_r (r - R)) toward the circle", 0.0},
              {"k_theta", ParamType::Number, 4.0, "gain: angular acceleration per radian of heading error", 0.0},
              {"k_omega", ParamType::Number, 4.0, "gain: angular acceleration per rad/s of turning-rate error", 0.0},
              {"k_v", ParamType::Number, 1.0, "gain: acceleration per m/s of speed error", 0.0},
              speed_input()});
  d.make_system = [](const Parameters& p) {
    TrackingModel md{plugins::sleigh_model(p),
                     {p.number("R"), p.number("k_r"), p.number("k_theta"), p.number("k_omega"), p.number("k_v")},
                     p.input("v_ref")};
    return std::make_unique<TrackingSleigh>(md);
  };
  // Skate at (3, 0), heading along +y, moving at 0.5 (ẏ = a θ̇ + … on the constraint: θ = π/2).
  d.examples = {system_example("", {pi / 2, 3.0, 0.3}, {0.2, -0.06, 0.5}, 0.05)};
  return d;
}

}  // namespace

DALEMBERT_PLUGIN(describe)
