// The rolling disk (issue 14): a configuration-dependent mass matrix M(q) in L-and-A form.
// Every expected number here is independent of the plugin's formulas: the kinetic energy and the
// no-slip condition are recomputed from rotation matrices by finite differences, the steady
// circular motions and the upright stability threshold are the README's derived relations, which
// the dynamics (RK4 on the plugin's M(q), AD Coriolis terms) must then obey.
#include <Eigen/Geometry>
#include <catch2/catch.hpp>
#include <cmath>
#include <dalembert/study/derivative_check.hpp>
#include <random>

#include "exact_discrete/ed_support.hpp"

namespace {

using namespace dalembert;
using namespace dalembert::test;
using json = nlohmann::json;

// Uniform disk, m = R = g = 1 (the plugin's defaults): I_d = 1/4, I_a = 1/2.
constexpr double kR = 1.0, kM = 1.0, kG = 1.0, kId = 0.25, kIa = 0.5;

/// Q = Rz(φ) Rx(θ) Ry(ψ) and the centre G = (x, y, 0) + R Rz(φ)Rx(θ) e_z, from the README's conventions.
Eigen::Matrix3d orientation(const Vec& q) {
  using Eigen::AngleAxisd, Eigen::Vector3d;
  return (AngleAxisd(q[2], Vector3d::UnitZ()) * AngleAxisd(q[3], Vector3d::UnitX()) * AngleAxisd(q[4], Vector3d::UnitY()))
      .toRotationMatrix();
}
Eigen::Vector3d centre(const Vec& q) {
  using Eigen::AngleAxisd, Eigen::Vector3d;
  const Vector3d e3 = AngleAxisd(q[2], Vector3d::UnitZ()) * (AngleAxisd(q[3], Vector3d::UnitX()) * Vector3d::UnitZ());
  return Vector3d(q[0], q[1], 0.0) + kR * e3;
}

/// Rigid-body kinetic energy ½m|v_G|² + ½ Ωᵀ diag(I_d, I_a, I_d) Ω, Ω the body angular velocity from
/// Qᵀ Q̇ by central differences along v; and the velocity of the material point at the contact.
void rigid_body(const Vec& q, const Vec& v, double& T, Eigen::Vector3d& contact_velocity) {
  const double eps = 1e-6;
  const Vec qp = q + eps * v, qm = q - eps * v;
  const Eigen::Vector3d vG = (centre(qp) - centre(qm)) / (2 * eps);
  const Eigen::Matrix3d Q = orientation(q), Qdot = (orientation(qp) - orientation(qm)) / (2 * eps);
  const Eigen::Matrix3d W = Q.transpose() * Qdot;  // skew, body frame
  const Eigen::Vector3d Om(W(2, 1), W(0, 2), W(1, 0));
  T = 0.5 * kM * vG.squaredNorm() + 0.5 * (kId * Om[0] * Om[0] + kIa * Om[1] * Om[1] + kId * Om[2] * Om[2]);
  const Eigen::Vector3d P(q[0], q[1], 0.0), body_offset = Q.transpose() * (P - centre(q));
  contact_velocity = vG + Qdot * body_offset;
}

/// Steps rk4 (the plugin, through the registry) from s to T; tracks max |θ|, max |θ − θ0|, the
/// energy error relative to E0 and max ‖A(q)v‖∞.
struct Track {
  double max_tilt = 0.0, max_tilt_dev = 0.0, energy = 0.0, residual = 0.0;
  State last;
};
Track run_rk4(const System& sys, State s, double h, double T) {
  auto I = integrator("rk4");
  I->bind(sys);
  I->begin(s);
  const double E0 = sys.energy(s), th0 = s.q[3];
  Track tr;
  const long N = std::lround(T / h);
  for (long k = 0; k < N; ++k) {
    I->advance(s, h);
    tr.max_tilt = std::max(tr.max_tilt, std::abs(s.q[3]));
    tr.max_tilt_dev = std::max(tr.max_tilt_dev, std::abs(s.q[3] - th0));
    tr.energy = std::max(tr.energy, std::abs(sys.energy(s) - E0) / std::abs(E0));
    tr.residual = std::max(tr.residual, sys.constraint_residual(s));
  }
  tr.last = s;
  return tr;
}

/// A state on the constraints: ẋ = R cosφ ψ̇, ẏ = R sinφ ψ̇.
State rolling_state(double phi, double theta, double phidot, double thetadot, double psidot) {
  return make_state({0.0, 0.0, phi, theta, 0.0},
                    {kR * std::cos(phi) * psidot, kR * std::sin(phi) * psidot, phidot, thetadot, psidot});
}

/// README "Steady circular motion": (I_a+mR²−I_d) sinθ₀cosθ₀ Ω² + (I_a+mR²) cosθ₀ ω Ω + m g R sinθ₀ = 0,
/// the root of smaller |Ω| (the slow precession).
double steady_heading_rate(double theta0, double omega) {
  const double a = (kIa + kM * kR * kR - kId) * std::sin(theta0) * std::cos(theta0);
  const double b = (kIa + kM * kR * kR) * std::cos(theta0) * omega, c = kM * kG * kR * std::sin(theta0);
  const double disc = b * b - 4 * a * c;
  REQUIRE(disc > 0.0);
  return 2 * c / (-b - std::copysign(std::sqrt(disc), b));
}

/// README "Stability of upright rolling": ω₀² > I_d m g R / (I_a (I_a + m R²)).
double threshold_spin() { return std::sqrt(kId * kM * kG * kR / (kIa * (kIa + kM * kR * kR))); }

}  // namespace

TEST_CASE("rolling_disk: derivatives pass the checker, M(q) is the rigid body's kinetic energy and depends on the tilt",
          "[rolling_disk][configuration_mass]") {
  const auto sys = dalembert::test::system("rolling_disk");
  const auto& lag = dynamic_cast<const LagrangianSystem&>(*sys);
  DerivativeCheckOptions opt;
  opt.samples = 8;
  opt.seed = 14;
  opt.flow = true;
  opt.state = make_state({0.3, -0.2, 0.7, 0.4, 1.1}, {0.0, 0.0, 0.0, 0.0, 0.0});
  const auto result = check_derivatives(lag, opt);
  INFO(format_check_result("rolling_disk", result));
  CHECK(result.ok());
  CHECK_FALSE(lag.constant_mass());

  // ½vᵀM(q)v against the rigid body at random states; the no-slip constraint against the
  // velocity of the material contact point; M at two tilts differs.
  std::mt19937_64 rng(14);
  std::uniform_real_distribution<double> U(-1.0, 1.0);
  Mat M(5, 5), A(2, 5);
  double worst_T = 0.0, worst_slip = 0.0;
  for (int k = 0; k < 20; ++k) {
    Vec q(5), v(5);
    for (int i = 0; i < 5; ++i) q[i] = 3.0 * U(rng);
    q[3] = 1.4 * U(rng);  // |θ| < 1.4 < π/2
    for (int i = 0; i < 5; ++i) v[i] = U(rng);
    lag.mass(q, M);
    double T;
    Eigen::Vector3d vc;
    rigid_body(q, v, T, vc);
    worst_T = std::max(worst_T, std::abs(0.5 * v.dot(M * v) - T) / T);
    // v on the constraints: keep (φ̇, θ̇, ψ̇), set (ẋ, ẏ) by the constraint rows.
    lag.constraint_matrix(q, A);
    v[0] = -A.row(0).tail(3).dot(v.tail(3));
    v[1] = -A.row(1).tail(3).dot(v.tail(3));
    rigid_body(q, v, T, vc);
    worst_slip = std::max(worst_slip, vc.norm() / v.norm());
  }
  report("rolling_disk: max relative |1/2 v'Mv - T_rigid|", worst_T);
  report("rolling_disk: max |contact point velocity|/|v| on A v = 0", worst_slip);
  CHECK(worst_T < 1e-8);
  CHECK(worst_slip < 1e-8);

  Mat M0(5, 5), M1(5, 5);
  lag.mass(vec({0, 0, 0.5, 0.0, 0}), M0);
  lag.mass(vec({0, 0, 0.5, 0.6, 0}), M1);
  CHECK((M1 - M0).cwiseAbs().maxCoeff() > 0.1);
}

TEST_CASE("rolling_disk: rk4 conserves the energy and keeps the disk rolling", "[rolling_disk][configuration_mass]") {
  const auto sys = dalembert::test::system("rolling_disk");
  const auto tr = run_rk4(*sys, rolling_state(0.0, 0.2, 0.3, 0.1, 1.5), 1e-3, 20.0);
  report("rolling_disk: rk4 h=1e-3 T=20 max relative energy error", tr.energy);
  report("rolling_disk: rk4 h=1e-3 T=20 max |A v|_inf", tr.residual);
  CHECK(tr.energy < 1e-9);
  CHECK(tr.residual < 1e-9);
}

TEST_CASE("rolling_disk: the steady circular motions satisfy the derived relation", "[rolling_disk][configuration_mass]") {
  const auto sys = dalembert::test::system("rolling_disk");
  const double theta0 = 0.3, omega = 1.0, Omega = steady_heading_rate(theta0, omega);
  report("rolling_disk: steady Omega (theta0 = 0.3, omega = 1)", Omega);
  const auto good = run_rk4(*sys, rolling_state(0.0, theta0, Omega, 0.0, omega), 1e-3, 50.0);
  const auto wrong = run_rk4(*sys, rolling_state(0.0, theta0, 1.01 * Omega, 0.0, omega), 1e-3, 50.0);
  report("rolling_disk: steady motion max |theta - theta0| over T = 50", good.max_tilt_dev);
  report("rolling_disk: 1 % wrong Omega max |theta - theta0| over T = 50", wrong.max_tilt_dev);
  CHECK(good.max_tilt_dev < 1e-8);
  // RK4 keeps θ at θ₀ to the last bit here (θ̈ is round-off, its effect below half an ulp of θ);
  // a 1 % error in Ω leaves a tilt oscillation of ~3e-3: far more than 100 × the 1e-8 bound.
  CHECK(wrong.max_tilt_dev > 100 * std::max(good.max_tilt_dev, 1e-8));
  CHECK(wrong.max_tilt_dev > 1e-3);
  // The heading turns at Ω and the spin stays ω.
  CHECK(good.last.v[2] == Approx(Omega).epsilon(1e-8));
  CHECK(good.last.v[4] == Approx(omega).epsilon(1e-8));

  // The other branch (fast precession) and a disk leaning the other way, rolling backwards.
  for (const auto& [th, om] : {std::pair{0.3, 1.0}, std::pair{-0.5, -2.0}}) {
    const double a = (kIa + kM * kR * kR - kId) * std::sin(th) * std::cos(th);
    const double Om = kM * kG * kR * std::sin(th) / (a * steady_heading_rate(th, om));  // product of roots c/a
    const auto fast = run_rk4(*sys, rolling_state(0.4, th, Om, 0.0, om), 1e-4, 5.0);
    INFO("theta0 = " << th << ", omega = " << om << ", Omega = " << Om);
    report("rolling_disk: fast branch max |theta - theta0| over T = 5, h = 1e-4", fast.max_tilt_dev);
    CHECK(fast.max_tilt_dev < 1e-8);
  }
}

TEST_CASE("rolling_disk: upright rolling is stable above the derived speed and unstable below",
          "[rolling_disk][configuration_mass]") {
  const auto sys = dalembert::test::system("rolling_disk");
  const double w = threshold_spin();
  report("rolling_disk: threshold spin omega0 (uniform disk, m=R=g=1)", w);
  CHECK(w == Approx(1.0 / std::sqrt(3.0)).epsilon(1e-14));  // v > sqrt(gR/3) for a uniform disk
  const auto above = run_rk4(*sys, rolling_state(0.0, 1e-3, 0.0, 0.0, 1.25 * w), 1e-3, 20.0);
  const auto below = run_rk4(*sys, rolling_state(0.0, 1e-3, 0.0, 0.0, 0.8 * w), 1e-3, 20.0);
  report("rolling_disk: max tilt at 1.25x threshold", above.max_tilt);
  report("rolling_disk: max tilt at 0.8x threshold", below.max_tilt);
  // Above the threshold the linearised tilt equation (README) oscillates about
  // θ_eq = θ₀ / (1 − (ω*/ω₀)²) (θ₀ = 1e-3, φ̇ = θ̇ = 0 initially is not an equilibrium), so the
  // maximum is 2θ_eq − θ₀ = θ₀ (2/(1 − 0.64) − 1) = 4.56e-3 at 1.25 ω*: bounded, of the order of
  // the initial tilt. Below it the tilt grows like e^{0.54 t} and saturates at large tilt (~0.7).
  const double expected_max = 1e-3 * (2.0 / (1.0 - 1.0 / (1.25 * 1.25)) - 1.0);
  CHECK(above.max_tilt == Approx(expected_max).epsilon(0.01));
  CHECK(above.max_tilt < 5e-3);
  CHECK(below.max_tilt > 0.05);
}
