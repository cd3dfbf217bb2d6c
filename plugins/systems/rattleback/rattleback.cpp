// The rattleback (issue 29 item 3): an ellipsoid (semi-axes a, b, c) whose centre of mass is offset
// from its geometric centre and whose inertia tensor has products, rolling without slipping on a
// horizontal plane, in every attitude (unit quaternion, no chart). The model is the shared
// rolling-body L-and-A model (dalembert_plugins/rolling_body.hpp: q = (x, y, p0..p3), v = q̇,
// g = |p|² − 1, two rolling constraints, M(q)); rattleback_model.hpp holds Kane & Levinson's (1982)
// values and the tilt it reports (rolling_body_parameters.hpp reads the parameters); README.md derives the model and cites the sources.
#include <dalembert/core/drawable.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/plugin/export.hpp>
#include <dalembert/schemes/fixed_lagrangian_system.hpp>
#include <numbers>
#include <stdexcept>
#include <utility>

#include <dalembert_plugins/rolling_body_drawing.hpp>
#include <dalembert_plugins/rolling_body_parameters.hpp>

#include "rattleback_model.hpp"

namespace {

using namespace dalembert;
using rattleback::Model;
using rattleback::Vec3;
using rattleback::Vec4;

class Rattleback final : public FixedLagrangianSystem<Model>, public rolling::UnitAttitude, public Drawable {
 public:
  using FixedLagrangianSystem::FixedLagrangianSystem;
  Layout layout() const override { return rolling::body_layout(); }
  /// spin = Ω·γ (about the space vertical); roll φ and pitch θ: the tilt of body axis 3 about body
  /// axes 1 and 2 (γ = (−sin θ, cos θ sin φ, cos θ cos φ)); the height of G; |p| − 1; the contact
  /// point on the plane; the body angular velocity Ω.
  void diagnostic_names(std::vector<std::string>& n) const override {
    n = {"spin", "roll", "pitch", "height", "quaternion_norm_error", "contact_x", "contact_y", "Omega_1", "Omega_2", "Omega_3"};
  }
  void diagnostics(const State& s, double* out) const override {
    const auto o = rolling::observe(fixed_model(), s.q, s.v);
    const auto t = rattleback::tilt(o);
    out[0] = t.spin;
    out[1] = t.roll;
    out[2] = t.pitch;
    out[3] = o.height;
    out[4] = o.quaternion_norm_error;
    out[5] = o.contact[0];
    out[6] = o.contact[1];
    out[7] = o.omega[0];
    out[8] = o.omega[1];
    out[9] = o.omega[2];
  }

  // How the body looks (core/drawable.hpp), in space: its ellipsoid (principal sections) about the
  // geometric centre, −c from the centre of mass G in body axes, at (x, y) and attitude p, resting
  // on the ground (the height is the contact's, which the layout does not hold); the contact path,
  // the body's lowest point, is traced.
  nlohmann::json drawing() const override { return rolling::body_drawing(fixed_model()); }

};

struct Entry {
  const char* name;
  double value;
  const char* doc;
};
// Kane & Levinson (1982) (rattleback_model.hpp); D = I12.
const Entry kParams[] = {
    {"m", 1.0, "mass [kg]"},
    {"g", 9.81, "gravity [m/s^2]"},
    {"a", 0.2, "semi-axis along body axis 1 [m]"},
    {"b", 0.03, "semi-axis along body axis 2 [m]"},
    {"c", 0.02, "semi-axis along body axis 3 [m]"},
    {"I11", 2e-4, "inertia tensor about the centre of mass, body axes: A [kg m^2]"},
    {"I22", 1.6e-3, "inertia tensor: B [kg m^2]"},
    {"I33", 1.7e-3, "inertia tensor: C [kg m^2]"},
    {"I12", -2e-5, "inertia tensor entry 1-2 (minus the product integral of x1 x2 dm): Kane & Levinson's D [kg m^2]"},
    {"I13", 0.0, "inertia tensor entry 1-3 [kg m^2]"},
    {"I23", 0.0, "inertia tensor entry 2-3 [kg m^2]"},
    {"c1", 0.0, "centre of mass from the geometric centre, body axis 1 [m]"},
    {"c2", 0.0, "centre of mass from the geometric centre, body axis 2 [m]"},
    {"c3", -0.01, "centre of mass from the geometric centre, body axis 3 [m] (below: axis 3 is up at rest)"},
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "rattleback";
  d.kind = PluginKind::System;
  d.version = "1.0.0";
  d.summary = "the rattleback: an ellipsoid with offset centre of mass and a full inertia tensor rolling without "
              "slipping on a plane, every attitude (unit quaternion); q = (x, y, qw, qx, qy, qz), v = qdot, |p|^2 = 1";
  d.seed = "issue 29: Kane & Levinson, J. Appl. Mech. 49 (1982) 641; Garcia & Hubbard, Proc. R. Soc. A 418 (1988) 165";
  for (const auto& e : kParams) d.params.push_back({e.name, ParamType::Number, e.value, std::string(e.doc) + "; Kane & Levinson (1982)"});
  d.make_system = [](const Parameters& p) {
    return std::make_unique<Rattleback>(
        rolling::body_from_parameters(p, {p.number("a"), p.number("b"), p.number("c")}, "rattleback", ""));
  };
  // Kane & Levinson's start: 0.5 degrees of roll and pitch, spin -5 rad/s about the vertical; and a
  // generic attitude (axis 3 far from vertical) with a generic body angular velocity.
  const Model kl = rattleback::kane_levinson();
  const double deg = std::numbers::pi / 180.0;
  const Vec4 tilt = rattleback::attitude_from_roll_pitch(0.5 * deg, 0.5 * deg);
  const Vec3 gamma = quaternion::vertical_in_body<double>(tilt);
  const auto none = nlohmann::json::object();
  d.examples = {rolling::example_from_body_rates("Kane & Levinson: roll = pitch = 0.5 deg, spin -5 rad/s", kl, tilt,
                                                 -5.0 * gamma, none, 1e-3),
                rolling::example_from_body_rates("generic attitude", kl, Vec4(0.8, 0.3, -0.4, 0.35), Vec3(1.0, -2.0, 3.0),
                                                 none, 1e-3)};
  return d;
}

}  // namespace

DALEMBERT_PLUGIN(describe)
