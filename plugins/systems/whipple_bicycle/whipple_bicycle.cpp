// The Whipple bicycle benchmark as a system plugin (issue 28 item 3): the model of whipple_model.hpp
// — kinetic energy, potential, the front wheel's holonomic contact constraint g(q) = 0 and the four
// rolling constraints A(q)q̇ = 0, nothing else (README.md derives them) — with every entry of
// Meijaard et al. (2007) Table 1 a parameter (the benchmark's value by default), the model's
// validate() refusing unphysical values by name, the layout, diagnostics of the contact geometry,
// and two example states on the constraints. The framework derives the equations of motion from
// it (FixedLagrangianSystem: C = [A; ∂g/∂q], AD for every derivative).
#include <array>
#include <cmath>
#include <numbers>
#include <dalembert/core/drawable.hpp>
#include <dalembert/schemes/fixed_lagrangian_system.hpp>
#include <dalembert/plugin/export.hpp>
#include <stdexcept>
#include <utility>

#include "whipple_model.hpp"

namespace {

using namespace dalembert;
using Model = whipple::WhippleBicycleModel;
using Vec8 = Eigen::Matrix<double, 8, 1>;

class WhippleBicycle final : public FixedLagrangianSystem<Model>, public Drawable {
 public:
  using FixedLagrangianSystem::FixedLagrangianSystem;
  Layout layout() const override {
    return {{"x", "y", "yaw", "roll", "pitch", "steer", "rear_wheel", "front_wheel"},
            {"xdot", "ydot", "yaw_rate", "roll_rate", "pitch_rate", "steer_rate", "rear_wheel_rate", "front_wheel_rate"}};
  }
  /// The front contact point Q on the ground (x, y) and its height above it (−g: zero on the
  /// constraint, > 0 with the front wheel lifted); the forward speed of the rear contact,
  /// ẋ cos ψ + ẏ sin ψ = −r_R (θ̇ + θ̇_R) on the constraints.
  void diagnostic_names(std::vector<std::string>& n) const override {
    n = {"front_contact_x", "front_contact_y", "front_contact_height", "speed"};
  }
  void diagnostics(const State& s, double* out) const override {
    const Vec8 q = s.q;
    const auto p = fixed_model().pose(q);
    out[0] = p.front_contact[0];
    out[1] = p.front_contact[1];
    out[2] = -p.front_contact[2];
    out[3] = s.v[Model::kX] * std::cos(s.q[Model::kYaw]) + s.v[Model::kY] * std::sin(s.q[Model::kYaw]);
  }

  // How the bicycle looks (core/drawable.hpp), in space, from the model's kinematics
  // (whipple_model.hpp, pose()): the ground frame of the model has z down, so the drawing's root
  // turns it by π about x (z up). Rear contact (x, y), yaw, roll, the rear wheel's centre r_R above
  // the contact along the leaned vertical, pitch about the rear axle; the steering axis through
  // (w + c, 0, r_R) of the rear frame, tilted back by λ, steer δ about it; the front wheel's centre
  // (−c, 0, −r_F) from there in the front frame. Wheels turn by their angles (spokes); the rear frame
  // joins the rear axle, the rider's centre of mass B and the head of the steering axis; both
  // contact paths are traced.
  nlohmann::json drawing() const override {
    const auto& b = fixed_model();
    const double sl = std::sin(b.lambda), cl = std::cos(b.lambda);
    const nlohmann::json wheel_normal = {0.0, 1.0, 0.0};
    return {{"dimension", 3},
            {"ground", true},
            {"frames", {{{"name", "ground"}, {"transform", {{{"rotate", std::numbers::pi}, {"axis", "x"}}}}},
                        {{"name", "rear_contact"}, {"parent", "ground"}, {"transform", {{{"translate", {"x", "y", 0.0}}}}}},
                        {{"name", "leaned"}, {"parent", "rear_contact"},
                         {"transform", {{{"rotate", "yaw"}, {"axis", "z"}}, {{"rotate", "roll"}, {"axis", "x"}},
                                        {{"translate", {0.0, 0.0, -b.r_R}}}}}},
                        {{"name", "rear_frame"}, {"parent", "leaned"}, {"transform", {{{"rotate", "pitch"}, {"axis", "y"}}}}},
                        {{"name", "rear_wheel"}, {"parent", "rear_frame"}, {"transform", {{{"rotate", "rear_wheel"}, {"axis", "y"}}}}},
                        {{"name", "rider"}, {"parent", "rear_frame"}, {"transform", {{{"translate", {b.x_B, 0.0, b.z_B + b.r_R}}}}}},
                        {{"name", "steer_point"}, {"parent", "rear_frame"}, {"transform", {{{"translate", {b.w + b.c, 0.0, b.r_R}}}}}},
                        {{"name", "head"}, {"parent", "steer_point"}, {"transform", {{{"translate", {-0.9 * sl, 0.0, -0.9 * cl}}}}}},
                        {{"name", "front_frame"}, {"parent", "steer_point"},
                         {"transform", {{{"rotate", "steer"}, {"axis", {sl, 0.0, cl}}}}}},
                        {{"name", "bar"}, {"parent", "front_frame"}, {"transform", {{{"translate", {-0.9 * sl, 0.0, -0.9 * cl}}}}}},
                        {{"name", "front_centre"}, {"parent", "front_frame"}, {"transform", {{{"translate", {-b.c, 0.0, -b.r_F}}}}}},
                        {{"name", "front_wheel"}, {"parent", "front_centre"},
                         {"transform", {{{"rotate", "front_wheel"}, {"axis", "y"}}}}}}},
            {"shapes", {{{"frame", "rear_wheel"}, {"circle", {{"radius", b.r_R}, {"normal", wheel_normal}, {"spokes", 3}}},
                         {"color", "0.2"}, {"width", 2}},
                        {{"frame", "front_wheel"}, {"circle", {{"radius", b.r_F}, {"normal", wheel_normal}, {"spokes", 3}}},
                         {"color", "0.2"}, {"width", 2}},
                        {{"link", {"rear_frame", "head"}}, {"color", "tab:blue"}, {"width", 3}},
                        {{"link", {"rear_frame", "rider"}}, {"color", "tab:blue"}, {"width", 1}},
                        {{"link", {"rider", "head"}}, {"color", "tab:blue"}, {"width", 1}},
                        {{"frame", "rider"}, {"point", {0.0, 0.0, 0.0}}, {"color", "tab:blue"}, {"width", 8}},
                        {{"link", {"front_centre", "bar"}}, {"color", "tab:green"}, {"width", 3}},
                        {{"frame", "bar"}, {"line", {{0.0, -0.25, 0.0}, {0.0, 0.25, 0.0}}}, {"color", "tab:green"}, {"width", 3}}}},
            {"traces", {{{"frame", "rear_contact"}, {"label", "rear contact"}, {"color", "tab:red"}},
                        {{"contact", "front_wheel"}, {"label", "front contact"}, {"color", "tab:orange"}}}}};
  }

};

// Table 1 of Meijaard et al. (2007): name, the model's member, what it is.
struct Entry {
  const char* name;
  double Model::*member;
  const char* doc;
};
const std::array<Entry, 26> kTable1{{
    {"w", &Model::w, "wheel base [m]"},
    {"c", &Model::c, "trail [m]"},
    {"lambda", &Model::lambda, "steer axis tilt from the vertical [rad] (pi/10)"},
    {"g", &Model::g, "gravity [m/s^2]"},
    {"r_R", &Model::r_R, "rear wheel radius [m]"},
    {"m_R", &Model::m_R, "rear wheel mass [kg]"},
    {"I_Rxx", &Model::I_Rxx, "rear wheel moment of inertia about a diameter [kg m^2] (I_Rxx = I_Rzz)"},
    {"I_Ryy", &Model::I_Ryy, "rear wheel moment of inertia about its axle [kg m^2]"},
    {"x_B", &Model::x_B, "rear body and frame: mass centre x, ahead of the rear contact [m]"},
    {"z_B", &Model::z_B, "rear body and frame: mass centre z (z down: negative above the ground) [m]"},
    {"m_B", &Model::m_B, "rear body and frame mass [kg]"},
    {"I_Bxx", &Model::I_Bxx, "rear body and frame inertia about its mass centre, xx [kg m^2]"},
    {"I_Byy", &Model::I_Byy, "rear body and frame inertia, yy [kg m^2]"},
    {"I_Bzz", &Model::I_Bzz, "rear body and frame inertia, zz [kg m^2]"},
    {"I_Bxz", &Model::I_Bxz, "rear body and frame inertia, the xz entry of the tensor [kg m^2]"},
    {"x_H", &Model::x_H, "front handlebar and fork: mass centre x [m]"},
    {"z_H", &Model::z_H, "front handlebar and fork: mass centre z (z down) [m]"},
    {"m_H", &Model::m_H, "front handlebar and fork mass [kg]"},
    {"I_Hxx", &Model::I_Hxx, "front handlebar and fork inertia about its mass centre, xx [kg m^2]"},
    {"I_Hyy", &Model::I_Hyy, "front handlebar and fork inertia, yy [kg m^2]"},
    {"I_Hzz", &Model::I_Hzz, "front handlebar and fork inertia, zz [kg m^2]"},
    {"I_Hxz", &Model::I_Hxz, "front handlebar and fork inertia, the xz entry of the tensor [kg m^2]"},
    {"r_F", &Model::r_F, "front wheel radius [m]"},
    {"m_F", &Model::m_F, "front wheel mass [kg]"},
    {"I_Fxx", &Model::I_Fxx, "front wheel moment of inertia about a diameter [kg m^2] (I_Fxx = I_Fzz)"},
    {"I_Fyy", &Model::I_Fyy, "front wheel moment of inertia about its axle [kg m^2]"},
}};

/// The model with `p`'s values, validated: an unphysical value is an InputError at its parameter's
/// JSON path, with the model's reason ("whipple_bicycle: parameter m_B is a mass: ...").
Model model_of(const Parameters& p) {
  Model m;
  for (const auto& e : kTable1) m.*e.member = p.number(e.name);
  try {
    m.validate();
  } catch (const std::invalid_argument& x) {
    const std::string text = x.what();
    for (const auto& e : kTable1)
      if (text.find(std::string("parameter ") + e.name + " ") != std::string::npos) throw InputError(p.where(e.name), text);
    throw InputError(p.where("w"), text);
  }
  return m;
}

/// A state on the constraints: roll φ and steer δ given, pitch θ from g(q) = 0 (pitch_for), the other
/// coordinates zero; the independent rates (roll, steer, rear wheel) given and the other five solved
/// from C(q)q̇ = 0, C = [A; ∂g/∂q] (README "Coordinates and frames": independent speeds φ̇, δ̇, θ̇_R).
State on_constraints(const Model& b, double roll, double steer, double roll_rate, double steer_rate, double rear_rate) {
  Vec8 q = Vec8::Zero();
  q[Model::kRoll] = roll;
  q[Model::kSteer] = steer;
  q[Model::kPitch] = b.pitch_for(roll, steer);
  Eigen::Matrix<double, 8, 8> E = Eigen::Matrix<double, 8, 8>::Zero();
  Eigen::Matrix<double, 4, 8> A;
  b.constraint_matrix(q, A);
  E.topRows(4) = A;
  Eigen::Matrix<double, 1, 8> G;
  ad::holonomic_jacobian<8, 1>(b, 1, q, G);
  E.row(4) = G;
  E(5, Model::kRoll) = E(6, Model::kSteer) = E(7, Model::kRearWheel) = 1.0;
  Vec8 rhs = Vec8::Zero();
  rhs[5] = roll_rate;
  rhs[6] = steer_rate;
  rhs[7] = rear_rate;
  State s;
  s.q = q;
  s.v = E.fullPivLu().solve(rhs);
  return s;
}

PluginExample example(std::string label, const State& s, double h) {
  PluginExample e{std::move(label), nlohmann::json::object(), s, h};
  return e;
}

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "whipple_bicycle";
  d.kind = PluginKind::System;
  d.version = "1.0.0";
  d.summary = "the Whipple bicycle benchmark (Meijaard et al. 2007): 8 coordinates, front contact g(q) = 0, "
              "4 rolling constraints";
  d.seed = "issue 28: Meijaard, Papadopoulos, Ruina & Schwab, Proc. R. Soc. A 463 (2007) 1955-1982; "
           "Basu-Mandal, Chatterjee & Papadopoulos, Proc. R. Soc. A 463 (2007) 1983-2003";
  const Model benchmark;
  for (const auto& e : kTable1)
    d.params.push_back({e.name, ParamType::Number, benchmark.*e.member,
                        std::string(e.doc) + "; Meijaard et al. (2007) Table 1"});
  d.make_system = [](const Parameters& p) { return std::make_unique<WhippleBicycle>(model_of(p)); };
  // Upright straight running at 5 m/s, inside the benchmark's self-stable range (4.29-6.02 m/s):
  // q = 0 (pitch 0: both wheels touch the ground in the reference configuration), rolling forward
  // θ̇_R = −v/r_R, θ̇_F = −v/r_F. And Basu-Mandal et al.'s Table 1 state (a generic leaning, steered,
  // turning motion; README "Basu-Mandal et al.'s coordinates"): lean ψ = 0.9501292851472 rad from
  // the horizontal, steer ψ_f = 0.2311385135743, their lean, steer and rear wheel rates, converted.
  const double v = 5.0;
  State upright;
  upright.q = Vec8::Zero();
  Vec8 qd = Vec8::Zero();
  qd[Model::kX] = v;
  qd[Model::kRearWheel] = -v / benchmark.r_R;
  qd[Model::kFrontWheel] = -v / benchmark.r_F;
  upright.v = qd;
  const State leaning = on_constraints(benchmark, std::numbers::pi / 2 - 0.9501292851472, -0.2311385135743,
                                       -0.6068425835418, -0.4859824687093, -8.912989661489);
  d.examples = {example("upright 5 m/s", upright, 0.01), example("leaning, Basu-Mandal Table 1", leaning, 0.01)};
  return d;
}

}  // namespace

DALEMBERT_PLUGIN(describe)
