// The rattleback plugin (issue 29 item 3) against independent values: `dalembert check`; the
// small-oscillation frequencies of rocking and rolling at rest against the closed-form linearised
// ones; a second method (Newton–Euler equations of the rolling body, RK4, no Lagrangian, no
// quaternion constraint); energy and constraints along DLA and RK4. The studies' claims are in
// studies/rattleback/ (checked by test_rattleback_studies.cpp).
#include <Eigen/Dense>
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "cli_support.hpp"
#include "lie_support.hpp"
#include "rattleback/rattleback_model.hpp"

using namespace dalembert;
namespace rb = dalembert::rattleback;

namespace {

constexpr double kDeg = std::numbers::pi / 180.0;

State state_of(const rb::Model& model, const rb::Vec4& p, const rb::Vec3& Omega) {
  rb::Vec6 q, v;
  rolling::state_from_body_rates(model, 0.0, 0.0, p, Omega, q, v);
  State s;
  s.q = q;
  s.v = v;
  return s;
}

/// γ₁ and γ₂ of a state (γ = third row of R(p), quaternion_kinematics.hpp).
rb::Vec3 gamma_of(const State& s) {
  const double w = s.q[2], x = s.q[3], y = s.q[4], z = s.q[5];
  return {2 * (x * z - w * y), 2 * (y * z + w * x), w * w - x * x - y * y + z * z};
}

/// The angular frequency of a sampled oscillation x(t_k) = x(kh): its zero crossings (linear
/// interpolation) fitted by least squares to t_j = t₀ + jπ/ω.
double fitted_frequency(const std::vector<double>& x, double h) {
  std::vector<double> t;
  for (std::size_t k = 1; k < x.size(); ++k)
    if ((x[k - 1] < 0) != (x[k] < 0)) t.push_back(h * (double(k - 1) + x[k - 1] / (x[k - 1] - x[k])));
  REQUIRE(t.size() >= 6);
  const double n = double(t.size());
  double sj = 0, st = 0, sjj = 0, sjt = 0;
  for (std::size_t j = 0; j < t.size(); ++j) {
    sj += double(j);
    st += t[j];
    sjj += double(j) * double(j);
    sjt += double(j) * t[j];
  }
  const double half_period = (n * sjt - sj * st) / (n * sjj - sj * sj);
  return std::numbers::pi / half_period;
}

/// The second method: the Newton–Euler equations of a rigid body rolling without slipping on a
/// plane, in body axes (the standard vector form, e.g. Garcia & Hubbard, Proc. R. Soc. A 418 (1988)):
///   m v̇_G = F − m g γ,  I Ω̇ + Ω × IΩ = r × F,  v_G = −Ω × r  (r = d: G → contact),
/// F eliminated: (I − m r̂²) Ω̇ = −Ω × IΩ + m r × (g γ − Ω × ṙ − Ω × (Ω × r)),
/// ṙ = (∂P/∂γ) γ̇, ∂P/∂γ = −D/s + Dγ(Dγ)ᵀ/s³, γ̇ = γ × Ω; attitude as a rotation matrix, Ṙ = R Ω̂.
/// RK4 on (R, Ω) ∈ R⁹ × R³ (R leaves SO(3) at O(h⁴): fine for a reference at small h).
struct NewtonEuler {
  double m, g;
  rb::Vec3 D, c;
  rb::Mat3 I;
  static rb::Mat3 hat(const rb::Vec3& w) {
    rb::Mat3 W;
    W << 0, -w[2], w[1], w[2], 0, -w[0], -w[1], w[0], 0;
    return W;
  }
  void field(const rb::Mat3& R, const rb::Vec3& W, rb::Mat3& Rd, rb::Vec3& Wd) const {
    const rb::Vec3 gam = R.row(2).transpose();
    const rb::Vec3 Dg = D.asDiagonal() * gam;
    const double s = std::sqrt(gam.dot(Dg));
    const rb::Vec3 r = -Dg / s - c;
    const rb::Mat3 dP = -rb::Mat3(D.asDiagonal()) / s + Dg * Dg.transpose() / (s * s * s);
    const rb::Vec3 rdot = dP * gam.cross(W);
    const rb::Mat3 A = I - m * hat(r) * hat(r);
    const rb::Vec3 rhs = -W.cross(I * W) + m * r.cross(g * gam - W.cross(rdot) - W.cross(W.cross(r)));
    Wd = A.lu().solve(rhs);
    Rd = R * hat(W);
  }
  void run(rb::Mat3& R, rb::Vec3& W, double T, int n) const {
    const double h = T / n;
    for (int k = 0; k < n; ++k) {
      rb::Mat3 r1, r2, r3, r4;
      rb::Vec3 w1, w2, w3, w4;
      field(R, W, r1, w1);
      field(R + 0.5 * h * r1, W + 0.5 * h * w1, r2, w2);
      field(R + 0.5 * h * r2, W + 0.5 * h * w2, r3, w3);
      field(R + h * r3, W + h * w3, r4, w4);
      R += h / 6 * (r1 + 2 * r2 + 2 * r3 + r4);
      W += h / 6 * (w1 + 2 * w2 + 2 * w3 + w4);
    }
  }
};

}  // namespace

TEST_CASE("rattleback: dalembert check passes", "[rattleback][cli]") {
  test::TempDir dir("check_rattleback");
  const auto r = test::run_cli("check rattleback --samples 8 --seed 3", dir.path());
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.status == 0);
}

TEST_CASE("rattleback: rocking and rolling at rest oscillate at the closed-form linearised frequencies", "[rattleback]") {
  // A body resting on a convex surface of radius of curvature rho at the contact, G at height h above
  // it, rocks at omega^2 = m g (rho - h) / (I + m h^2), I about G: the classical rocking of a body on
  // a plane (Routh, A Treatise on the Dynamics of a System of Rigid Bodies, Elementary Part; the
  // rattleback's pitch and roll frequencies in Kondo & Nakanishi, arXiv:1704.06717 (2017)). At the bottom of the ellipsoid rho = a^2/c in the 1–3 plane (pitch, about
  // axis 2) and b^2/c in the 2–3 plane (roll, about axis 1); h = c + c3 = 0.01.
  const double m = 1, g = 9.81, a = 0.2, b = 0.03, c = 0.02, h = 0.01, A = 2e-4, B = 1.6e-3;
  const double w_pitch = std::sqrt(m * g * (a * a / c - h) / (B + m * h * h));  // 107.2 rad/s
  const double w_roll = std::sqrt(m * g * (b * b / c - h) / (A + m * h * h));   // 33.8 rad/s
  // amplitude 1e-5: at larger ones the lever arm G → contact grows like (rho − h) theta (4 % of h² at
  // theta = 1e-3 in pitch, shifting the frequency by ~1e-3); here the shift is ~1e-7.
  const double eps = 1e-5, dt = 1e-4;
  SECTION("I12 = 0: pitch and roll decouple") {
    auto sys = test::registry().make_system("rattleback", {{"I12", 0.0}}, "test");
    rb::Mat3 I = rb::kane_levinson_inertia();
    I(0, 1) = I(1, 0) = 0.0;
    const rb::Model model = rolling::rolling_body({a, b, c}, m, g, I, rb::Vec3(0, 0, -0.01));
    const auto pitch = test::run(*sys, "rk4", nlohmann::json::object(), state_of(model, rb::attitude_from_roll_pitch(0, eps), rb::Vec3::Zero()), dt, 6000);
    const auto roll = test::run(*sys, "rk4", nlohmann::json::object(), state_of(model, rb::attitude_from_roll_pitch(eps, 0), rb::Vec3::Zero()), dt, 12000);
    std::vector<double> th, ph, cross;
    for (const auto& s : pitch.states) {
      th.push_back(-gamma_of(s)[0]);
      cross.push_back(std::abs(gamma_of(s)[1]));
    }
    for (const auto& s : roll.states) ph.push_back(gamma_of(s)[1]);
    INFO("pitch: fitted " << fitted_frequency(th, dt) << ", closed form " << w_pitch);
    INFO("roll: fitted " << fitted_frequency(ph, dt) << ", closed form " << w_roll);
    // RK4's relative phase error ~ (h w)^4 / 120 ~ 1e-10
    CHECK(fitted_frequency(th, dt) == Approx(w_pitch).epsilon(1e-5));
    CHECK(fitted_frequency(ph, dt) == Approx(w_roll).epsilon(1e-5));
    CHECK(*std::max_element(cross.begin(), cross.end()) < 1e-14);  // pitch alone excites no roll (symmetry)
  }
  SECTION("Kane & Levinson's I12 = D couples them: the normal modes of K x = w^2 M x") {
    // Linearised about rest in the small rotation (phi, theta) about body axes 1, 2:
    // T = ½ (phi', theta') (I_12block + m h^2 Id) (phi', theta')^T, V = ½ m g [(b²/c − h) phi² + (a²/c − h) theta²].
    auto sys = test::registry().make_system("rattleback", nlohmann::json::object(), "test");
    const rb::Model model = rb::kane_levinson();
    Eigen::Matrix2d Ml, K;
    Ml << A + m * h * h, -2e-5, -2e-5, B + m * h * h;
    K << m * g * (b * b / c - h), 0, 0, m * g * (a * a / c - h);
    const Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::Matrix2d> modes(K, Ml);
    for (int k = 0; k < 2; ++k) {
      const Eigen::Vector2d x = modes.eigenvectors().col(k).normalized() * eps;  // (roll, pitch)
      const double w = std::sqrt(modes.eigenvalues()[k]);
      const int steps = k == 0 ? 12000 : 6000;
      const auto run = test::run(*sys, "rk4", nlohmann::json::object(), state_of(model, rb::attitude_from_roll_pitch(x[0], x[1]), rb::Vec3::Zero()), dt, steps);
      std::vector<double> main;
      const int dominant = std::abs(x[0]) > std::abs(x[1]) ? 1 : 0;  // γ₂ = roll, −γ₁ = pitch
      for (const auto& s : run.states) main.push_back(gamma_of(s)[dominant]);
      INFO("mode " << k << ": fitted " << fitted_frequency(main, dt) << ", closed form " << w << " (decoupled "
                   << (k == 0 ? w_roll : w_pitch) << ")");
      CHECK(fitted_frequency(main, dt) == Approx(w).epsilon(1e-5));
    }
  }
}

TEST_CASE("rattleback: the L-and-A model agrees with the Newton-Euler equations (second method)", "[rattleback]") {
  auto sys = test::registry().make_system("rattleback", nlohmann::json::object(), "test");
  const rb::Model model = rb::kane_levinson();
  const NewtonEuler ne{1.0, 9.81, rb::Vec3(0.04, 9e-4, 4e-4), rb::Vec3(0, 0, -0.01), rb::kane_levinson_inertia()};
  for (const auto& [p, Omega] : {std::pair{rb::attitude_from_roll_pitch(0.5 * kDeg, 0.5 * kDeg), rb::Vec3(0, 0, -5)},
                                  std::pair{rb::Vec4(0.8, 0.3, -0.4, 0.35).normalized(), rb::Vec3(1.0, -2.0, 3.0)}}) {
    const State s0 = state_of(model, p, Omega);
    const double T = 0.5;
    double diff[2];
    for (int j = 0; j < 2; ++j) {
      const int n = 10000 << j;
      const auto run = test::run(*sys, "rk4", nlohmann::json::object(), s0, T / n, n);
      rb::Mat3 R = quaternion::rotation<double>(s0.q.segment<4>(2));
      rb::Vec3 W = rolling::observe(model, s0.q, s0.v).omega;
      ne.run(R, W, T, n);
      const State& s = run.states.back();
      const auto o = rolling::observe(model, s.q, s.v);
      diff[j] = (o.omega - W).norm() / W.norm() + (quaternion::rotation<double>(s.q.segment<4>(2)) - R).norm();
      INFO("h = " << T / n << ": Omega: plugin " << o.omega.transpose() << ", Newton-Euler " << W.transpose());
      // the generic attitude falls onto its flat side and spins up to |Omega| = 42 rad/s: RK4's error
      // is ~1e-6 at h = 5e-5 there (and 3e-11 from Kane & Levinson's start)
      CHECK(diff[j] < 1e-5);
    }
    // two order-4 approximations of one flow: their difference falls like h^4 (or sits at round-off)
    INFO("difference " << diff[0] << " at h = 5e-5, " << diff[1] << " at h = 2.5e-5");
    CHECK((diff[1] < 1e-11 || diff[0] / diff[1] > 10.0));
  }
}

TEST_CASE("rattleback: DLA's energy error is bounded and O(h^2), |p| - 1 and the constraints at round-off, RK4 at O(h^4)", "[rattleback]") {
  auto sys = test::registry().make_system("rattleback", nlohmann::json::object(), "test");
  const rb::Model model = rb::kane_levinson();
  // Kane & Levinson's start: the spin reverses about every 14.7 s (studies/rattleback), so [0, 30]
  // and [30, 60] hold two alike reversals each
  const State s0 = state_of(model, rb::attitude_from_roll_pitch(0.5 * kDeg, 0.5 * kDeg), rb::Vec3(0, 0, -5) * 1.0);
  const double E0 = sys->energy(s0);
  SECTION("DLA") {
    double whole[2];
    for (int j = 0; j < 2; ++j) {
      const double h = 2e-3 / (1 << j);
      const int n = 30000 << j;
      const auto run = test::run(*sys, "dla", nlohmann::json::object(), s0, h, n);
      double first = 0, second = 0, residual = 0, norm_error = 0;
      for (std::size_t k = 0; k < run.states.size(); ++k) {
        const double e = std::abs(sys->energy(run.states[k]) - E0);
        double& half = k < run.states.size() / 2 ? first : second;
        half = std::max(half, e);
        residual = std::max(residual, sys->constraint_residual(run.states[k]));
        norm_error = std::max(norm_error, std::abs(run.states[k].q.segment<4>(2).norm() - 1.0));
      }
      whole[j] = std::max(first, second);
      INFO("h = " << h << ": energy error: [0, 30] " << first << ", [30, 60] " << second << " of E0 = " << E0);
      INFO("constraint residual " << residual << ", |p| - 1 " << norm_error);
      CHECK(second < 1.5 * first);  // bounded: no drift over 3e4 (6e4) steps
      // DLA solves g(q_{k+1}) = 0 by Newton with a kept Jacobian, stopping at ~4 eps (1 + |q|_inf):
      // |p| − 1 sits at ~1e-15 … 1e-14, not at 1e-16
      CHECK(norm_error < 1e-13);
      CHECK(residual < 1e-11);
    }
    INFO("largest energy error " << whole[0] << " at h = 2e-3, " << whole[1] << " at h = 1e-3");
    CHECK(std::log2(whole[0] / whole[1]) == Approx(2.0).margin(0.3));
  }
  SECTION("RK4") {
    double err[2];
    for (int j = 0; j < 2; ++j) {
      const double h = 2e-3 / (1 << j);
      const auto run = test::run(*sys, "rk4", nlohmann::json::object(), s0, h, 2500 << j);
      err[j] = 0;
      for (const auto& s : run.states) err[j] = std::max(err[j], std::abs(sys->energy(s) - E0));
    }
    INFO("RK4's largest energy error over T = 5: " << err[0] << " at h = 2e-3, " << err[1] << " at h = 1e-3");
    CHECK(std::log2(err[0] / err[1]) > 3.5);  // at least its order 4
    CHECK(std::log2(err[0] / err[1]) < 5.5);
  }
}
