// Chaplygin's ball (Chaplygin 1903; Borisov & Mamaev 2002; Bloch, Nonholonomic Mechanics and
// Control, §1.12): a sphere of radius R and mass m whose centre of mass is its geometric centre and
// whose principal moments I1, I2, I3 about it differ, rolling without slipping on a horizontal plane.
// L-and-A form (README.md of this folder derives every line):
//   q = (x, y, φ, θ, ψ): the centre (x, y, R) and the orientation Q = Rz(φ) Rx(θ) Rz(ψ) (ZXZ Euler
//   angles, body axes = principal axes); v = q̇.
//   Body angular velocity Ω = Qᵀω = J_b(θ, ψ) (φ̇, θ̇, ψ̇),
//     J_b = [[sinθ sinψ, cosψ, 0], [sinθ cosψ, −sinψ, 0], [cosθ, 0, 1]],
//   T = ½m(ẋ² + ẏ²) + ½ΩᵀIΩ = ½vᵀM(q)v, M = diag(m, m, J_bᵀ I J_b) (depends on θ and ψ), V = 0.
//   Rolling (contact point at rest): ẋ = R ω_y, ẏ = −R ω_x with the spatial
//     ω_x = cosφ θ̇ + sinφ sinθ ψ̇,  ω_y = sinφ θ̇ − cosφ sinθ ψ̇,  ω_z = φ̇ + cosθ ψ̇.
// AD derives ∂A/∂q, its contractions and the Coriolis terms of M(q); no derivative is written here.
// The Euler angles are singular at sinθ = 0 (M is singular there): the diagnostic sin_theta shows
// how close a run comes.
#include <array>
#include <cmath>
#include <dalembert/core/drawable.hpp>
#include <dalembert/schemes/fixed_lagrangian_system.hpp>
#include <dalembert/plugin/export.hpp>

namespace {

using namespace dalembert;

struct ChaplyginSphereModel {
  static constexpr int dof = 5, constraints = 2;
  double R, m, I1, I2, I3;
  // M(q) depends on θ and ψ only: AD takes two directions for its derivatives instead of five
  // (forward_derivatives.hpp; checked at construction).
  static constexpr std::array<int, 2> mass_coordinates{3, 4};

  // M(q) = diag(m, m, J_bᵀ diag(I1, I2, I3) J_b), J_b the body angular-velocity Jacobian.
  void mass(const auto& q, auto&& M) const {
    using std::cos, std::sin;
    using S = scalar_t<decltype(q)>;
    const S st = sin(q[3]), ct = cos(q[3]), sp = sin(q[4]), cp = cos(q[4]);
    const S Jb[3][3] = {{st * sp, cp, S(0.0)}, {st * cp, -sp, S(0.0)}, {ct, S(0.0), S(1.0)}};
    const double I[3] = {I1, I2, I3};
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 5; ++j) M(i, j) = S(0.0);
    M(0, 0) = S(m);
    M(1, 1) = S(m);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        S sum = S(0.0);
        for (int k = 0; k < 3; ++k) sum += I[k] * Jb[k][i] * Jb[k][j];
        M(2 + i, 2 + j) = sum;
      }
  }
  auto potential(const auto& q) const -> scalar_t<decltype(q)> { return scalar_t<decltype(q)>(0.0); }
  // ẋ − R ω_y = 0 and ẏ + R ω_x = 0, ω = J(q)(φ̇, θ̇, ψ̇) the spatial angular velocity.
  void constraint_matrix(const auto& q, auto&& A) const {
    using std::cos, std::sin;
    using S = scalar_t<decltype(q)>;
    const S sf = sin(q[2]), cf = cos(q[2]), st = sin(q[3]);
    A << 1.0, 0.0, 0.0, -R * sf, R * cf * st,  //
        0.0, 1.0, 0.0, R * cf, R * sf * st;
  }
};

class ChaplyginSphere final : public FixedLagrangianSystem<ChaplyginSphereModel>, public Drawable {
 public:
  ChaplyginSphere(double R, double m, double I1, double I2, double I3)
      : FixedLagrangianSystem(ChaplyginSphereModel{R, m, I1, I2, I3}), R_(R), m_(m), I_{I1, I2, I3} {}

  Layout layout() const override {
    return {{"x", "y", "phi", "theta", "psi"}, {"xdot", "ydot", "phidot", "thetadot", "psidot"}};
  }

  // Chaplygin's integral: the angular momentum about the contact point, in space,
  //   K = Q I Qᵀ ω + m R² (ω − ω_z e_z),
  // conserved because every force on the ball acts at the contact point or (gravity) on the
  // vertical through it, and the contact point moves with the centre (README.md).
  void diagnostic_names(std::vector<std::string>& n) const override {
    n = {"K_x", "K_y", "K_z", "K_norm", "sin_theta"};
  }
  void diagnostics(const State& s, double* out) const override {
    const double f = s.q[2], th = s.q[3], p = s.q[4];
    const double cf = std::cos(f), sf = std::sin(f), ct = std::cos(th), st = std::sin(th), cp = std::cos(p),
                 sp = std::sin(p);
    const double fd = s.v[2], td = s.v[3], pd = s.v[4];
    // Q = Rz(φ) Rx(θ) Rz(ψ)
    double Q[3][3];
    const double Rz1[3][3] = {{cf, -sf, 0}, {sf, cf, 0}, {0, 0, 1}};
    const double Rx[3][3] = {{1, 0, 0}, {0, ct, -st}, {0, st, ct}};
    const double Rz2[3][3] = {{cp, -sp, 0}, {sp, cp, 0}, {0, 0, 1}};
    double T[3][3];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        T[i][j] = 0.0;
        for (int k = 0; k < 3; ++k) T[i][j] += Rz1[i][k] * Rx[k][j];
      }
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        Q[i][j] = 0.0;
        for (int k = 0; k < 3; ++k) Q[i][j] += T[i][k] * Rz2[k][j];
      }
    const double w[3] = {cf * td + sf * st * pd, sf * td - cf * st * pd, fd + ct * pd};
    double Om[3], K[3];
    for (int i = 0; i < 3; ++i) Om[i] = Q[0][i] * w[0] + Q[1][i] * w[1] + Q[2][i] * w[2];  // Ω = Qᵀω
    for (int i = 0; i < 3; ++i) {
      K[i] = 0.0;
      for (int k = 0; k < 3; ++k) K[i] += Q[i][k] * I_[k] * Om[k];
    }
    const double mr2 = m_ * R_ * R_;
    K[0] += mr2 * w[0];
    K[1] += mr2 * w[1];
    out[0] = K[0];
    out[1] = K[1];
    out[2] = K[2];
    out[3] = std::sqrt(K[0] * K[0] + K[1] * K[1] + K[2] * K[2]);
    out[4] = st;
  }

  // How the ball looks (core/drawable.hpp), in space: the sphere of radius R about (x, y, R) at
  // attitude Rz(φ) Rx(θ) Rz(ψ), drawn as its three principal great circles (they show it turning);
  // the contact path (x, y, 0) is traced on the ground.
  nlohmann::json drawing() const override {
    const double R = fixed_model().R;
    return {{"dimension", 3},
            {"ground", true},
            {"frames", {{{"name", "contact"}, {"transform", {{{"translate", {"x", "y", 0.0}}}}}},
                        {{"name", "ball"}, {"parent", "contact"},
                         {"transform", {{{"translate", {0.0, 0.0, R}}}, {{"rotate", "phi"}, {"axis", "z"}},
                                        {{"rotate", "theta"}, {"axis", "x"}}, {{"rotate", "psi"}, {"axis", "z"}}}}}}},
            {"shapes", {{{"frame", "ball"}, {"sphere", {{"radius", R}}}}}},
            {"traces", {{{"frame", "contact"}, {"label", "contact path"}, {"color", "tab:red"}}}}};
  }

 private:
  double R_, m_, I_[3];
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "chaplygin_sphere";
  d.kind = PluginKind::System;
  d.version = "1.0.0";
  d.summary =
      "Chaplygin's ball: an inhomogeneous sphere (centre of mass at the centre, moments I1, I2, I3) rolling "
      "without slipping on a plane; q = (x, y, ZXZ Euler angles), M(q); singular at sin(theta) = 0";
  d.seed = "issue 14 (beyond the seeds): Chaplygin 1903; Borisov & Mamaev 2002; Bloch 2003 Sec 1.12";
  d.params = {{"R", ParamType::Number, 1.0, "radius of the ball", 1e-12},
              {"m", ParamType::Number, 1.0, "mass", 1e-12},
              {"I1", ParamType::Number, 0.4, "principal moment about body axis 1 (about the centre)", 1e-12},
              {"I2", ParamType::Number, 0.5, "principal moment about body axis 2 (about the centre)", 1e-12},
              {"I3", ParamType::Number, 0.6, "principal moment about body axis 3 (about the centre)", 1e-12}};
  d.make_system = [](const Parameters& p) {
    return std::make_unique<ChaplyginSphere>(p.number("R"), p.number("m"), p.number("I1"), p.number("I2"),
                                             p.number("I3"));
  };
  // q = (0, 0, 0.1, 1.62, 0.2) with v = (0, 0, 0.1, 0.05, 1) projected onto the constraints.
  d.examples = {system_example("", {0, 0, 0.1, 1.62, 0.2},
                               {-0.3711480667762606, -0.051160173919572824, 0.061412395945645605,
                                0.013851606558183904, 0.3748550380933625},
                               0.05)};
  return d;
}

}  // namespace

DALEMBERT_PLUGIN(describe)
