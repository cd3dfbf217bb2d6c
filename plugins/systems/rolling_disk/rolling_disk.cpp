// A thin disk (radius R, mass m, moments I_d about a diameter and I_a about its axis, both through
// the centre) rolling without slipping on the horizontal plane z = 0, free to tilt (issue 14).
// q = (x, y, φ, θ, ψ): contact point, heading, tilt (0 = upright), spin; orientation
// Q = Rz(φ) Rx(θ) Ry(ψ), disk axis = body y axis. Frame e₁ = (cosφ, sinφ, 0) (heading),
// e₂ = Rz(φ)Rx(θ)e_y (disk axis), e₃ = Rz(φ)Rx(θ)e_z = (sinφ sinθ, −cosφ sinθ, cosθ) (contact → centre).
//   T = ½m|v_G|² + ½[I_d θ̇² + I_a (ψ̇ + φ̇ sinθ)² + I_d φ̇² cos²θ],  G = (x, y, 0) + R e₃,
//   V = m g R cosθ,
//   rolling (contact material point at rest, v_G = ω × R e₃):  ẋ − R cosφ ψ̇ = 0,  ẏ − R sinφ ψ̇ = 0.
// M(q) is written out below (README.md derives it); every derivative — ∇V, ∇²V, ∂A/∂q and the
// Coriolis terms of M(q) — comes from AD. M is singular only at θ = ±π/2 (the disk flat).
// The model declares its steady upright rolling (steady_family, steady_state), so the framework also
// linearises it (issue 28, the linear_stability study kind); for that its M and A run on duals over
// duals, which is why every constant is lifted into the scalar (`S(...)`).
#include <array>
#include <cmath>
#include <dalembert/core/drawable.hpp>
#include <dalembert/schemes/fixed_lagrangian_system.hpp>
#include <dalembert/plugin/export.hpp>

namespace {

using namespace dalembert;

struct RollingDiskModel {
  static constexpr int dof = 5, constraints = 2;
  double R, m, g, Id, Ia;
  // M(q) depends on the heading and the tilt only, V(q) on the tilt: AD takes two directions for the
  // Coriolis terms and one for ∇V instead of five (forward_derivatives.hpp; checked at construction).
  static constexpr std::array<int, 2> mass_coordinates{2, 3};
  static constexpr std::array<int, 1> potential_coordinates{3};

  // T = ½ vᵀ M(q) v, v = (ẋ, ẏ, φ̇, θ̇, ψ̇).
  void mass(const auto& q, auto&& M) const {
    using std::cos, std::sin;
    using S = scalar_t<decltype(q)>;
    const S sp = sin(q[2]), cp = cos(q[2]), st = sin(q[3]), ct = cos(q[3]);
    const S mR = S(m * R);
    const S xphi = mR * cp * st, xth = mR * sp * ct, yphi = mR * sp * st, yth = -mR * cp * ct;
    const S phiphi = (m * R * R + Ia) * st * st + Id * ct * ct, phipsi = Ia * st;
    M.setZero();
    M(0, 0) = S(m);
    M(1, 1) = S(m);
    M(0, 2) = M(2, 0) = xphi;
    M(0, 3) = M(3, 0) = xth;
    M(1, 2) = M(2, 1) = yphi;
    M(1, 3) = M(3, 1) = yth;
    M(2, 2) = phiphi;
    M(2, 4) = M(4, 2) = phipsi;
    M(3, 3) = S(m * R * R + Id);
    M(4, 4) = S(Ia);
  }
  auto potential(const auto& q) const -> scalar_t<decltype(q)> {
    using std::cos;
    return m * g * R * cos(q[3]);
  }
  // A(q) = [[1, 0, 0, 0, −R cosφ], [0, 1, 0, 0, −R sinφ]].
  void constraint_matrix(const auto& q, auto&& A) const {
    using std::cos, std::sin;
    using S = scalar_t<decltype(q)>;
    const S o(0.0), l(1.0);
    A << l, o, o, o, S(-R * cos(q[2])), o, l, o, o, S(-R * sin(q[2]));
  }
  // Upright straight rolling along x with the contact point at speed v (ψ̇ = v/R): the family the
  // linear_stability study kind linearises about (README.md, "Stability of upright rolling", derives
  // its eigenvalues). Kept: the tilt θ and the rates of tilt, heading and spin; x, y, φ, ψ are ignorable.
  SteadyMotionFamily steady_family() const {
    return {"upright_rolling", "v", "upright straight rolling along x, contact point at speed v",
            {.minimal = {3}, .dependent = {}, .speeds = {2, 4}, .held = {}}};
  }
  void steady_state(double v, auto&& q, auto&& qd) const {
    q.setZero();
    qd << v, 0.0, 0.0, 0.0, v / R;
  }
};

class RollingDisk final : public FixedLagrangianSystem<RollingDiskModel>, public Drawable {
 public:
  using FixedLagrangianSystem::FixedLagrangianSystem;
  Layout layout() const override {
    return {{"x", "y", "phi", "theta", "psi"}, {"xdot", "ydot", "phidot", "thetadot", "psidot"}};
  }
  void diagnostic_names(std::vector<std::string>& n) const override { n = {"tilt", "contact_speed", "height"}; }
  void diagnostics(const State& s, double* out) const override {
    out[0] = s.q[3];
    out[1] = std::hypot(s.v[0], s.v[1]);
    out[2] = fixed_model().R * std::cos(s.q[3]);
  }

  // How the disk looks (core/drawable.hpp), in space: contact point (x, y, 0), heading φ, tilt θ,
  // spin ψ about its axis (body y), its centre R above the contact along the tilted vertical;
  // spokes show it spinning; the contact path is traced on the ground.
  nlohmann::json drawing() const override {
    const double R = fixed_model().R;
    return {{"dimension", 3},
            {"ground", true},
            {"frames", {{{"name", "contact"}, {"transform", {{{"translate", {"x", "y", 0.0}}}}}},
                        {{"name", "tilted"}, {"parent", "contact"},
                         {"transform", {{{"rotate", "phi"}, {"axis", "z"}}, {{"rotate", "theta"}, {"axis", "x"}}}}},
                        {{"name", "disk"}, {"parent", "tilted"},
                         {"transform", {{{"translate", {0.0, 0.0, R}}}, {{"rotate", "psi"}, {"axis", "y"}}}}}}},
            {"shapes", {{{"frame", "disk"}, {"circle", {{"radius", R}, {"normal", {0.0, 1.0, 0.0}}, {"spokes", 4}}},
                         {"color", "tab:blue"}, {"width", 2}}}},
            {"traces", {{{"frame", "contact"}, {"label", "contact path"}, {"color", "tab:red"}}}}};
  }

};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "rolling_disk";
  d.kind = PluginKind::System;
  d.version = "1.0.0";
  d.summary = "thin disk rolling without slipping on a plane, free to tilt; q = (x, y, phi, theta, psi), M(q)";
  d.seed = "issue 14 (beyond the seeds): Neimark & Fufaev; Bloch, Nonholonomic Mechanics and Control; O'Reilly 1996";
  d.params = {{"R", ParamType::Number, 1.0, "radius", 1e-12},
              {"m", ParamType::Number, 1.0, "mass", 1e-12},
              {"g", ParamType::Number, 1.0, "gravity (default 1: units with m = R = g = 1)", 0.0},
              {"I_d", ParamType::Number, 0.0,
               "moment of inertia about a diameter through the centre; 0 (the default) means a uniform disk, m R^2 / 4",
               0.0},
              {"I_a", ParamType::Number, 0.0,
               "moment of inertia about the disk's axis; 0 (the default) means a uniform disk, m R^2 / 2", 0.0}};
  d.make_system = [](const Parameters& p) {
    const double R = p.number("R"), m = p.number("m");
    const double Id = p.number("I_d") > 0.0 ? p.number("I_d") : 0.25 * m * R * R;
    const double Ia = p.number("I_a") > 0.0 ? p.number("I_a") : 0.5 * m * R * R;
    return std::make_unique<RollingDisk>(RollingDiskModel{R, m, p.number("g"), Id, Ia});
  };
  // Near upright, and tilted by 0.6 rad (exact_discrete's error control takes several substeps a step there).
  d.examples = {system_example("", {0, 0, 0, 0.2, 0}, {1, 0, 0.5, 0.1, 1}, 0.05),
                system_example("tilted", {0, 0, 0, 0.6, 0}, {0.5, 0, 0, 0, 0.5}, 0.1)};
  return d;
}

}  // namespace

DALEMBERT_PLUGIN(describe)
