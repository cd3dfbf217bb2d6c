// The snakeboard (seed 001 §6.2, spec 001 §2.2) on S¹ × S¹ × SE(2): q = (ψ, φ, θ, x, y), ψ the rotor
// angle, φ the wheel angle, (θ, x, y) the board pose; v = q̇. Joint torques F = (u_ψ, u_φ, 0, 0, 0)
// (spec §2.2 "choice": torques) are the inputs u_psi and u_phi; their default is the seed's gait,
// the preset "seed_001": u_ψ = A_ψ cos(2π f_ψ t), u_φ = A_φ sin(2π f_φ t). Two models:
//  * ConstrainedLagrangian, in L-and-A form: constant M, constraint rows (34) (regular while
//    cos φ ≠ 0) — RK methods;
//  * LieGroupModel: ℓ = ½(u, ξ)ᵀ𝕄(u, ξ) with 𝕄 = M, connection A(r) and the regular direction
//    ẽ₁(φ) = (sin φ, −l cos φ, 0) (spec §2.2, §3.3) — GNI and RDP, regular through cos φ = 0.
#include <cmath>
#include <dalembert/core/drawable.hpp>
#include <dalembert/schemes/fixed_lagrangian_system.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/lie_group_model.hpp>
#include <dalembert/plugin/export.hpp>
#include <iomanip>
#include <numbers>
#include <sstream>

namespace {

using namespace dalembert;
constexpr double pi = std::numbers::pi;

struct Params {
  double m, l, I, J;
  InputSignal u_psi, u_phi;
};

/// The ConstrainedLagrangian form as L and A (V = 0): ∂μ/∂q, whose contraction is μ̇q̇ of spec §2.2,
/// comes from AD.
struct SnakeboardModel {
  static constexpr int dof = 5, constraints = 2;
  Params p;
  // M (spec §2.2): L = ½Iψ̇² + Iψ̇θ̇ + ½ml²θ̇² + Jφ̇² + ½m(ẋ² + ẏ²)
  void mass(auto&& M) const {
    M.setZero();
    M(0, 0) = p.I;
    M(0, 2) = M(2, 0) = p.I;
    M(1, 1) = 2 * p.J;
    M(2, 2) = p.m * p.l * p.l;
    M(3, 3) = M(4, 4) = p.m;
  }
  auto potential(const auto& q) const -> scalar_t<decltype(q)> { return scalar_t<decltype(q)>(0.0); }
  // (34): μ = [[0, 0, −l cosφ, −sin(θ+φ), cos(θ+φ)], [0, 0, l cosφ, −sin(θ−φ), cos(θ−φ)]]
  void constraint_matrix(const auto& q, auto&& A) const {
    using std::cos, std::sin;
    const auto& phi = q[1];
    const auto& th = q[2];
    A << 0.0, 0.0, -p.l * cos(phi), -sin(th + phi), cos(th + phi),  //
        0.0, 0.0, p.l * cos(phi), -sin(th - phi), cos(th - phi);
  }
  // F = (u_ψ, u_φ, 0, 0, 0) (spec §2.2)
  void external_force(double t, const auto&, const auto&, auto&& f) const {
    f.setZero();
    f[0] = u_psi(t);
    f[1] = u_phi(t);
  }
  double u_psi(double t) const { return p.u_psi(t); }
  double u_phi(double t) const { return p.u_phi(t); }
};

class Snakeboard final : public FixedLagrangianSystem<SnakeboardModel>, public LieGroupModel, public Drawable {
 public:
  explicit Snakeboard(const Params& p) : FixedLagrangianSystem(SnakeboardModel{p}) {}

  Layout layout() const override {
    return {{"psi", "phi", "theta", "x", "y"}, {"psidot", "phidot", "thetadot", "xdot", "ydot"}};
  }

  // ---- LieGroupModel (spec §2.2, §3.3) ----
  LieGroup group() const override { return LieGroup::SE2; }
  int shape_dim() const override { return 2; }
  int num_symmetry_directions() const override { return 1; }
  void locked_mass(ConstVecRef, MatRef M) const override { fixed_model().mass(M); }  // ordering (u_ψ, u_φ, ξ¹, ξ², ξ³)
  // [A(r)] = [[(I/(ml²)) sin²φ, 0], [−(I/(2ml)) sin2φ, 0], [0, 0]]
  void connection(ConstVecRef r, MatRef A) const override {
    const double phi = r[1], s = std::sin(phi);
    A << p().I / (p().m * p().l * p().l) * s * s, 0, -p().I / (2 * p().m * p().l) * std::sin(2 * phi), 0, 0, 0;
  }
  // ẽ₁(φ) = e₁/(2cosφ) = (sinφ, −l cosφ, 0)
  void symmetry_basis(ConstVecRef r, MatRef E) const override { E << std::sin(r[1]), -p().l * std::cos(r[1]), 0; }
  bool has_forces() const override { return true; }
  void forces(double t, ConstVecRef, ConstVecRef, VecRef fr, VecRef fg) const override {
    fr << u_psi(t), u_phi(t);
    fg.setZero();
  }
  void check_state(const State& s) const override { check_regular(s); }

  // ---- System ----
  // ‖μ(q)q̇‖∞ with the rows (34); refused on their singular set cos φ = 0 (spec §2.2)
  double constraint_residual(const State& s) const override {
    check_regular(s);
    return FixedLagrangianSystem::constraint_residual(s);
  }
  void diagnostic_names(std::vector<std::string>& n) const override {
    n = {"rotor_momentum", "p1", "v_forward", "v_lateral", "tau_psi", "tau_phi"};
  }
  void diagnostics(const State& s, double* out) const override {
    const double phi = s.q[1], th = s.q[2];
    const double v = std::cos(th) * s.v[3] + std::sin(th) * s.v[4];
    const double vp = -std::sin(th) * s.v[3] + std::cos(th) * s.v[4];
    out[0] = p().I * (s.v[0] + s.v[2]);  // I(ψ̇ + θ̇), d/dt = τ_ψ
    // p₁ = (ml²θ̇ + Iψ̇) sin2φ − 2ml cos²φ v
    out[1] = (p().m * p().l * p().l * s.v[2] + p().I * s.v[0]) * std::sin(2 * phi) -
             2 * p().m * p().l * std::cos(phi) * std::cos(phi) * v;
    out[2] = v;
    out[3] = vp;
    out[4] = u_psi(s.t);
    out[5] = u_phi(s.t);
  }

  double u_psi(double t) const { return fixed_model().u_psi(t); }
  double u_phi(double t) const { return fixed_model().u_phi(t); }

  // How the snakeboard looks (core/drawable.hpp): the board at (x, y), heading θ; its wheel axles
  // l ahead and l behind, turned by φ and −φ; the rotor at the centre, at angle ψ; the centre's path
  // traced.
  nlohmann::json drawing() const override {
    const double l = p().l;
    auto axle = [&](const char* frame) {
      return nlohmann::json::array({{{"frame", frame}, {"line", {{0.0, -0.3 * l}, {0.0, 0.3 * l}}}, {"color", "k"}, {"width", 2}},
                                    {{"frame", frame}, {"line", {{-0.15 * l, 0.3 * l}, {0.15 * l, 0.3 * l}}}, {"color", "k"}, {"width", 4}},
                                    {{"frame", frame}, {"line", {{-0.15 * l, -0.3 * l}, {0.15 * l, -0.3 * l}}}, {"color", "k"}, {"width", 4}}});
    };
    nlohmann::json shapes = {{{"frame", "board"},
                              {"polygon", {{-1.25 * l, -0.22 * l}, {1.25 * l, -0.22 * l}, {1.4 * l, 0.0}, {1.25 * l, 0.22 * l},
                                           {-1.25 * l, 0.22 * l}, {-1.4 * l, 0.0}}},
                              {"color", "tab:olive"}},
                             {{"frame", "rotor"}, {"line", {{-0.45 * l, 0.0}, {0.45 * l, 0.0}}}, {"color", "tab:purple"}, {"width", 3}}};
    for (const char* f : {"front", "back"})
      for (auto& s : axle(f)) shapes.push_back(s);
    return {{"dimension", 2},
            {"frames", {{{"name", "board"}, {"transform", {{{"translate", {"x", "y"}}}, {{"rotate", "theta"}}}}},
                        {{"name", "front"}, {"parent", "board"}, {"transform", {{{"translate", {l, 0.0}}}, {{"rotate", "phi"}}}}},
                        {{"name", "back"}, {"parent", "board"},
                         {"transform", {{{"translate", {-l, 0.0}}}, {{"rotate", {{"column", "phi"}, {"scale", -1.0}}}}}}},
                        {{"name", "rotor"}, {"parent", "board"}, {"transform", {{{"rotate", "psi"}}}}}}},
            {"shapes", shapes},
            {"traces", {{{"frame", "board"}, {"label", "board centre"}}}}};
  }

 private:
  void check_regular(const State& s) const {
    if (std::abs(std::cos(s.q[1])) < 1e-12) {
      std::ostringstream where, phi;
      where << "snakeboard state at t = " << std::setprecision(17) << s.t << " (q[1] = phi)";
      phi << std::setprecision(17) << s.q[1];
      throw InputError(where.str(),
                       "phi = " + phi.str() +
                           " lies on the singular set cos(phi) = 0 of the snakeboard constraints (34): the two "
                           "constraint rows are dependent there and the full-coordinate model is undefined "
                           "(spec 001 Sec 2.2); start with cos(phi) != 0 (the regular GNI/RDP forms may cross it)");
    }
  }
  const Params& p() const { return fixed_model().p; }
};

// An input whose default is the seed's gait (spec 001 §2.2): A fn(2π f t), A and f the parameters
// PREFIX_amplitude and PREFIX_frequency.
ParamSpec gait_input(const std::string& name, const std::string& doc, const std::string& prefix, const char* fn) {
  ParamSpec s{name, ParamType::Input, {{"preset", "seed_001"}}, doc + " (input)"};
  s.unit = "N m";
  s.presets = {{"seed_001", std::string("the seed 001 gait, ") + prefix + "_amplitude * " + fn + "(2 pi " + prefix +
                                "_frequency t)",
                [prefix, fn](const Parameters& p) -> nlohmann::json {
                  return {{"sinusoids", {{{"amplitude", p.number(prefix + "_amplitude")},
                                          {"frequency", p.number(prefix + "_frequency")},
                                          {"function", fn}}}}};
                }}};
  return s;
}

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "snakeboard";
  d.kind = PluginKind::System;
  d.version = "1.2.0";
  d.summary = "Snakeboard on S1 x S1 x SE(2), q = (psi, phi, theta, x, y), with rotor and wheel joint torques";
  d.seed = "001 (Kobilarov, Martin de Diego, Ferraro), Sec 6.2; spec 001 Sec 2.2";
  d.params = {{"m", ParamType::Number, 1.0, "mass", 1e-12},
              {"l", ParamType::Number, 1.0, "distance from the board centre to the wheels", 1e-12},
              {"I", ParamType::Number, 0.5, "rotor inertia (M is positive definite iff 0 < I < m l^2)", 1e-12},
              {"J", ParamType::Number, 2.0, "wheel inertia", 1e-12},
              {"u_psi_amplitude", ParamType::Number, 1.0, "preset seed_001: rotor torque u_psi = A cos(2 pi f t): A"},
              {"u_psi_frequency", ParamType::Number, 10.0, "preset seed_001: rotor torque frequency f (Hz)"},
              {"u_phi_amplitude", ParamType::Number, 1.0, "preset seed_001: wheel torque u_phi = A sin(2 pi f t): A"},
              {"u_phi_frequency", ParamType::Number, 1.0, "preset seed_001: wheel torque frequency f (Hz)"},
              gait_input("u_psi", "rotor torque on psi", "u_psi", "cos"),
              gait_input("u_phi", "wheel torque on phi", "u_phi", "sin")};
  d.make_system = [](const Parameters& p) {
    Params q{p.number("m"), p.number("l"), p.number("I"), p.number("J"), p.input("u_psi"), p.input("u_phi")};
    if (q.I >= q.m * q.l * q.l)
      throw InputError(p.where("I"), "= " + std::to_string(q.I) + ": the snakeboard mass matrix is positive definite "
                                     "only for I < m l^2 = " + std::to_string(q.m * q.l * q.l));
    return std::make_unique<Snakeboard>(q);
  };
  {  // Spec 001 §4: psi = pi/2, phi = pi/3, on the constraints for the default I = 0.5
    const double I = 0.5, phi = pi / 3, K = -1.0 - I * 2.5 * std::sin(2 * phi);
    d.examples = {system_example("", {pi / 2, phi, 0, 0, 0}, {2.5, -0.02, std::tan(phi) * K / 2, -K / 2, 0}, 0.05)};
  }
  return d;
}

}  // namespace

DALEMBERT_PLUGIN(describe)
