// The Chaplygin sleigh (seed 001 §6.1, spec 001 §2.1) on SE(2), q = (θ, x, y) the pose of the
// centre of mass, v = (θ̇, ẋ, ẏ); the skate sits a behind the CM. Two models of the same system:
//  * ConstrainedLagrangian: M = diag(I, m, m), constraint a θ̇ + sinθ ẋ − cosθ ẏ = 0 (RK methods);
//  * LieGroupModel: ℓ(ξ) = ½(Iω² + m v² + m v⊥²), admissible ξ = s₁e₁ + s₂e₂ with e₁ = (1,0,a),
//    e₂ = (0,1,0) (spec §2.1; GNI, RDP).
// Exact solution: the closed form of spec §2.1, x and y by Gauss–Legendre quadrature.
#include <cmath>
#include <dalembert/core/drawable.hpp>
#include <dalembert/schemes/fixed_lagrangian_system.hpp>
#include <dalembert/core/lie_group_model.hpp>
#include <dalembert/plugin/export.hpp>
#include <dalembert_plugins/sleigh.hpp>

namespace {

using namespace dalembert;

using plugins::SleighModel;  // the ConstrainedLagrangian form (spec §2.1, eq. 29) as L and A

class ChaplyginSleigh final : public FixedLagrangianSystem<SleighModel>, public LieGroupModel, public Drawable {
 public:
  using FixedLagrangianSystem::FixedLagrangianSystem;

  Layout layout() const override { return {{"theta", "x", "y"}, {"thetadot", "xdot", "ydot"}}; }

  // ---- LieGroupModel (spec §2.1, reduced form) ----
  LieGroup group() const override { return LieGroup::SE2; }
  int shape_dim() const override { return 0; }
  int num_symmetry_directions() const override { return 2; }
  void locked_mass(ConstVecRef, MatRef M) const override { M = Eigen::Vector3d(I(), m(), m()).asDiagonal(); }
  void connection(ConstVecRef, MatRef) const override {}
  void symmetry_basis(ConstVecRef, MatRef E) const override { E << 1, 0, 0, 1, a(), 0; }

  // ---- diagnostics: skate point (plotted, Fig 2), body velocities, nonholonomic momenta ----
  void diagnostic_names(std::vector<std::string>& n) const override {
    n = {"skate_x", "skate_y", "omega", "v_forward", "v_lateral", "p1", "p2"};
  }
  void diagnostics(const State& s, double* out) const override {
    const double th = s.q[0], c = std::cos(th), sn = std::sin(th);
    const double v = c * s.v[1] + sn * s.v[2], vp = -sn * s.v[1] + c * s.v[2];
    out[0] = s.q[1] - a() * c;  // (x_s, y_s) = (x − a cosθ, y − a sinθ)
    out[1] = s.q[2] - a() * sn;
    out[2] = s.v[0];
    out[3] = v;
    out[4] = vp;
    out[5] = Ip() * s.v[0];  // p₁ = I′ω (the paper's J is I: spec §6 typo c)
    out[6] = m() * v;        // p₂ = m v
  }

  // ---- closed form (spec §2.1) ----
  bool has_exact_solution() const override { return true; }
  void exact_solution(const State& s0, double t, State& out) const override {
    const double th0 = s0.q[0], c0 = std::cos(th0), sn0 = std::sin(th0);
    const double w0 = s0.v[0], v0 = c0 * s0.v[1] + sn0 * s0.v[2];
    const double E = 0.5 * (Ip() * w0 * w0 + m() * v0 * v0);
    out.t = t;
    out.q.resize(3);
    out.v.resize(3);
    const double dt = t - s0.t;
    if (w0 == 0.0 || E == 0.0) {  // straight line (ω ≡ 0): v constant
      out.q << th0, s0.q[1] + v0 * c0 * dt, s0.q[2] + v0 * sn0 * dt;
      out.v << 0.0, v0 * c0, v0 * sn0;
      return;
    }
    const double V = std::sqrt(2 * E / m()), W = std::sqrt(2 * E / Ip()), k = a() * m() * V / Ip();
    const double sg = w0 > 0 ? 1.0 : -1.0;
    const double tstar = std::atanh(-v0 / V) / k;  // the cusp time (v = 0)
    auto gd = [](double x) { return 2.0 * std::atan(std::tanh(0.5 * x)); };
    const double gd0 = gd(-k * tstar);
    auto theta = [&](double tau) { return th0 + sg * (W / k) * (gd(k * (tau - tstar)) - gd0); };
    auto omega = [&](double tau) { return sg * W / std::cosh(k * (tau - tstar)); };
    auto vel = [&](double tau) { return V * std::tanh(k * (tau - tstar)); };
    // ẋ = v cosθ − aω sinθ, ẏ = v sinθ + aω cosθ, integrated by composite 8-point Gauss–Legendre.
    static const double gx[8] = {-0.9602898564975363, -0.7966664774136267, -0.5255324099163290, -0.1834346424956498,
                                 0.1834346424956498,  0.5255324099163290,  0.7966664774136267,  0.9602898564975363};
    static const double gw[8] = {0.1012285362903763, 0.2223810344533745, 0.3137066458778873, 0.3626837833783620,
                                 0.3626837833783620, 0.3137066458778873, 0.2223810344533745, 0.1012285362903763};
    const int panels = std::max(1, static_cast<int>(std::ceil(std::abs(dt) / 0.02)));
    const double hp = dt / panels;
    double x = s0.q[1], y = s0.q[2];
    for (int p = 0; p < panels; ++p) {
      const double mid = (p + 0.5) * hp;
      for (int i = 0; i < 8; ++i) {
        const double tau = mid + 0.5 * hp * gx[i];
        const double th = theta(tau), om = omega(tau), v = vel(tau);
        x += 0.5 * hp * gw[i] * (v * std::cos(th) - a() * om * std::sin(th));
        y += 0.5 * hp * gw[i] * (v * std::sin(th) + a() * om * std::cos(th));
      }
    }
    const double th = theta(dt), om = omega(dt), v = vel(dt);
    out.q << th, x, y;
    out.v << om, v * std::cos(th) - a() * om * std::sin(th), v * std::sin(th) + a() * om * std::cos(th);
  }

  nlohmann::json drawing() const override { return plugins::sleigh_drawing(a()); }

 private:
  double I() const { return fixed_model().I; }
  double m() const { return fixed_model().m; }
  double a() const { return fixed_model().a; }
  double Ip() const { return I() + m() * a() * a(); }  // I′ = I + m a² (spec §2.1)
};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "chaplygin_sleigh";
  d.kind = PluginKind::System;
  d.version = "1.0.0";
  d.summary = "Chaplygin sleigh on SE(2), q = (theta, x, y) of the centre of mass; closed-form solution";
  d.seed = "001 (Kobilarov, Martin de Diego, Ferraro), Sec 6.1; spec 001 Sec 2.1";
  d.params = plugins::sleigh_parameters();
  d.make_system = [](const Parameters& p) { return std::make_unique<ChaplyginSleigh>(plugins::sleigh_model(p)); };
  d.examples = {system_example("", {0, 0, 0}, {0.25, -1, 0.075}, 0.05)};  // spec 001 §4; ydot = a thetadot at theta = 0
  return d;
}

}  // namespace

DALEMBERT_PLUGIN(describe)
