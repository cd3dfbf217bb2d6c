// The isotropic oscillator in polar coordinates with a nonholonomic clock: q = (r, θ, z),
// L = ½(ṙ² + r²θ̇² + ż²) − ½r², constraint ż = r²θ̇ (A = [0, −r², 1]). M(q) = diag(1, r², 1) depends on
// the configuration and the distribution is not integrable ([∂r, ∂θ + r²∂z] = 2r∂z), yet the motion
// has a closed form: the multiplier vanishes (z̈ = λ and d/dt(r²θ̇) = −r²λ with ż = r²θ̇ give
// λ(1 + r²) = 0), so (r, θ) is the planar oscillator and z = z₀ + ℓt, ℓ = r²θ̇ its angular
// momentum. The convergence reference with M(q) of the conformance suite (README.md).
#include <cmath>
#include <dalembert/core/drawable.hpp>
#include <dalembert/schemes/fixed_lagrangian_system.hpp>
#include <dalembert/plugin/export.hpp>
#include <numbers>

namespace {

using namespace dalembert;

enum { kR, kTheta, kZ };  // (not R: FixedLagrangianSystem::R is the number of constraints)

struct PolarOscillatorModel {
  static constexpr int dof = 3, constraints = 1;
  auto potential(const auto& q) const -> scalar_t<decltype(q)> { return 0.5 * q[kR] * q[kR]; }
  void mass(const auto& q, auto&& M) const {
    using S = scalar_t<decltype(q)>;
    M.setZero();
    M(kR, kR) = S(1.0);
    M(kTheta, kTheta) = q[kR] * q[kR];
    M(kZ, kZ) = S(1.0);
  }
  void constraint_matrix(const auto& q, auto&& A) const {
    using S = scalar_t<decltype(q)>;
    A(0, kR) = S(0.0);
    A(0, kTheta) = -q[kR] * q[kR];
    A(0, kZ) = S(1.0);
  }
};

class PolarOscillator final : public FixedLagrangianSystem<PolarOscillatorModel>, public Drawable {
 public:
  Layout layout() const override { return {{"r", "theta", "z"}, {"rdot", "thetadot", "zdot"}}; }

  void diagnostic_names(std::vector<std::string>& n) const override { n = {"angular_momentum"}; }
  void diagnostics(const State& s, double* out) const override { out[0] = s.q[kR] * s.q[kR] * s.v[kTheta]; }

  bool has_exact_solution() const override { return true; }
  // In the frame e₁ = the initial position, e₂ ⊥ e₁: the position is (a, b) with
  // a = r₀cos t + ṙ₀sin t, b = r₀θ̇₀ sin t (unit frequency). θ − θ₀ is the angle of (a, b), unwrapped:
  // (a, b) = (−1)ⁿ(…) at t = nπ + τ, so it is nπ plus the angle of the half-turn τ ∈ [0, π), in
  // the sense of θ̇₀. ṙ = (aȧ + bḃ)/r, θ̇ = ℓ/r², z = z₀ + ℓt, ż = ℓ with ℓ = r₀²θ̇₀.
  void exact_solution(const State& s0, double t, State& out) const override {
    const double r0 = s0.q[kR], rd0 = s0.v[kR], w0 = s0.v[kTheta], dt = t - s0.t, ell = r0 * r0 * w0;
    const double a = r0 * std::cos(dt) + rd0 * std::sin(dt), b = r0 * w0 * std::sin(dt);
    const double ad = -r0 * std::sin(dt) + rd0 * std::cos(dt), bd = r0 * w0 * std::cos(dt);
    const double n = std::floor(dt / std::numbers::pi), tau = dt - n * std::numbers::pi;
    const double turn = std::atan2(r0 * std::abs(w0) * std::sin(tau), r0 * std::cos(tau) + rd0 * std::sin(tau));
    const double r = std::hypot(a, b);
    out.t = t;
    out.q.resize(3);
    out.v.resize(3);
    out.q << r, s0.q[kTheta] + (w0 < 0.0 ? -1.0 : 1.0) * (n * std::numbers::pi + turn), s0.q[kZ] + ell * dt;
    out.v << (a * ad + b * bd) / r, ell / (r * r), ell;
  }

  // How the oscillator looks (core/drawable.hpp): the mass at polar (r, θ) in the plane on its
  // spring from the origin, its path traced.
  nlohmann::json drawing() const override {
    return {{"dimension", 2},
            {"frames", {{{"name", "mass"}, {"transform", {{{"rotate", "theta"}}, {{"translate", {"r", 0.0}}}}}}}},
            {"shapes", {{{"link", {"world", "mass"}}, {"color", "0.5"}},
                        {{"frame", "world"}, {"point", {0.0, 0.0}}, {"color", "k"}},
                        {{"frame", "mass"}, {"circle", {{"radius", 0.08}}}, {"color", "tab:red"}}}},
            {"traces", {{{"frame", "mass"}, {"label", "mass"}}}}};
  }

};

PluginDescriptor describe() {
  PluginDescriptor d;
  d.name = "polar_oscillator";
  d.kind = PluginKind::System;
  d.version = "1.0.0";
  d.summary = "Isotropic oscillator in polar coordinates with the constraint zdot = r^2 thetadot: M(q) = diag(1, r^2, 1), "
              "closed-form solution";
  d.make_system = [](const Parameters&) { return std::make_unique<PolarOscillator>(); };
  d.examples = {system_example("", {1.0, 0.0, 0.0}, {0.3, 0.8, 0.8}, 0.1)};  // zdot = r^2 thetadot
  return d;
}

}  // namespace

DALEMBERT_PLUGIN(describe)
