// The Whipple bicycle model (issue 28 item 3), header-only: the model of
// plugins/systems/whipple_bicycle/whipple_model.hpp and the framework's linearisation of it
// (dalembert/core/model_linearisation.hpp, written first for this model)
// against the published numbers (gathered in ../shared/references/whipple_bicycle.md):
//   * Meijaard, Papadopoulos, Ruina & Schwab, Proc. R. Soc. A 463 (2007) 1955–1982: the linearised
//     matrices M, C1, K0, K2 (eq. (A1)), the eigenvalues of Table 2 and the critical speeds;
//   * Basu-Mandal, Chatterjee & Papadopoulos, Proc. R. Soc. A 463 (2007) 1983–2003, Table 1: one
//     state of the nonlinear bicycle, its rates and accelerations.
// Every expected number is the papers'; the model computes them from its Lagrangian and constraints
// only. Run with -s to see the measured deviations (the INFO lines of the passing checks).
#include <catch2/catch.hpp>
#include <cmath>
#include <complex>
#include <dalembert/core/model_linearisation.hpp>
#include <dalembert/core/model_rules.hpp>
#include <dalembert/math/bracketed_root.hpp>
#include <dalembert/math/forward_derivatives.hpp>
#include <iomanip>
#include <numbers>
#include <random>
#include <vector>

#include "whipple_bicycle/whipple_model.hpp"

namespace {

using namespace dalembert;
using Model = whipple::WhippleBicycleModel;
using Vec8 = Eigen::Matrix<double, 8, 1>;
using Dual = nested::Dual1<double>;
constexpr double kPi = std::numbers::pi;

// The rules FixedLagrangianSystem checks of a model (generic mass, potential and A).
static_assert(model_rules::generic<Model>);

/// Upright straight running at speed v: rolling forward, θ̇_R = −v/r_R, θ̇_F = −v/r_F.
Vec8 upright_rates(const Model& b, double v) {
  Vec8 qd = Vec8::Zero();
  qd[Model::kX] = v;
  qd[Model::kRearWheel] = -v / b.r_R;
  qd[Model::kFrontWheel] = -v / b.r_F;
  return qd;
}

/// Minimal coordinates roll and steer; pitch solved from g; the rear wheel's rate held: the model's
/// declaration of its steady motions, which the linear_stability study kind uses too.
const ReducedVariables kReduction = Model().steady_family().variables;

Linearisation upright(const Model& b, double v) {
  return linearisation::linearise(b, Vec8(Vec8::Zero()), upright_rates(b, v), kReduction);
}

/// The 5 × 8 constraint matrix C = [A; ∂g/∂q].
Eigen::Matrix<double, 5, 8> constraints(const Model& b, const Vec8& q) {
  Eigen::Matrix<double, 4, 8> A;
  b.constraint_matrix(q, A);
  Eigen::Matrix<double, 5, 8> C;
  C.topRows(4) = A;
  C.row(4) = linearisation::holonomic_jacobian(b, q);
  return C;
}

/// A state on the constraint manifold: random roll, steer, yaw, wheel angles, position; pitch from g.
Vec8 random_configuration(const Model& b, std::mt19937& rng) {
  std::uniform_real_distribution<double> roll(-0.7, 0.7), steer(-1.2, 1.2), any(-kPi, kPi), pos(-5.0, 5.0);
  Vec8 q;
  q << pos(rng), pos(rng), any(rng), roll(rng), 0.0, steer(rng), any(rng), any(rng);
  q[Model::kPitch] = b.pitch_for(q[Model::kRoll], q[Model::kSteer]);
  return q;
}

/// Rates satisfying C q̇ = 0 with the given independent rates (roll, steer, rear wheel).
Vec8 consistent_rates(const Model& b, const Vec8& q, double roll_rate, double steer_rate, double rear_rate) {
  Eigen::Matrix<double, 8, 8> E = Eigen::Matrix<double, 8, 8>::Zero();
  E.topRows(5) = constraints(b, q);
  E(5, Model::kRoll) = E(6, Model::kSteer) = E(7, Model::kRearWheel) = 1.0;
  Vec8 rhs = Vec8::Zero();
  rhs << 0, 0, 0, 0, 0, roll_rate, steer_rate, rear_rate;
  return E.fullPivLu().solve(rhs);
}

/// d/dε f(q + ε d) of a 3-vector function of the pose, by a dual number.
template <class F>
Eigen::Vector3d pose_derivative(const Model& b, const Vec8& q, const Vec8& d, F&& f) {
  Eigen::Matrix<Dual, 8, 1> x;
  for (int i = 0; i < 8; ++i) x[i] = nested::seed(q[i], d[i]);
  const Eigen::Matrix<Dual, 3, 1> r = f(b.pose(x), x);
  return Eigen::Vector3d(nested::derivative(r[0]), nested::derivative(r[1]), nested::derivative(r[2]));
}

/// ω from a rotation's derivative: skew(Ṙ Rᵀ).
Eigen::Vector3d angular_velocity(const Eigen::Matrix<Dual, 3, 3>& R) {
  Eigen::Matrix3d Rv, Rd;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      Rv(i, j) = R(i, j).value();
      Rd(i, j) = nested::derivative(R(i, j));
    }
  const Eigen::Matrix3d W = Rd * Rv.transpose();
  return Eigen::Vector3d(W(2, 1), W(0, 2), W(1, 0));
}

double relative(double x, double ref) { return std::abs(x - ref) / std::abs(ref); }

}  // namespace

TEST_CASE("whipple_bicycle: benchmark parameters accepted, unphysical ones refused") {
  const Model benchmark;
  CHECK_NOTHROW(benchmark.validate());
  auto refused = [](auto change, const std::string& name) {
    Model b;
    change(b);
    try {
      b.validate();
    } catch (const std::invalid_argument& e) {
      INFO(e.what());
      CHECK(std::string(e.what()).find("parameter " + name + " ") != std::string::npos);
      return;
    }
    FAIL("parameter " << name << ": not refused");
  };
  refused([](Model& b) { b.m_B = -85.0; }, "m_B");
  refused([](Model& b) { b.m_F = 0.0; }, "m_F");
  refused([](Model& b) { b.I_Rxx = -0.06; }, "I_Rxx");
  refused([](Model& b) { b.I_Fyy = 0.3; }, "I_Fyy");  // > 2 I_Fxx: no axisymmetric rigid body has it
  refused([](Model& b) { b.I_Bxz = 6.0; }, "I_Bxz");  // I_xx I_zz − I_xz² < 0
  refused([](Model& b) { b.I_Hyy = 1.0; }, "I_Hyy");  // triangle inequality
  refused([](Model& b) { b.I_Hzz = -0.007; }, "I_Hzz");
  refused([](Model& b) { b.lambda = kPi / 2; }, "lambda");
  refused([](Model& b) { b.lambda = -2.0; }, "lambda");
  refused([](Model& b) { b.r_F = 0.0; }, "r_F");
  refused([](Model& b) { b.w = 0.5; }, "w");  // the wheels (0.3, 0.35) would overlap
  refused([](Model& b) { b.w = -1.02; }, "w");
  refused([](Model& b) { b.z_B = 0.1; }, "z_B");
  refused([](Model& b) { b.g = std::nan(""); }, "g");
}

TEST_CASE("whipple_bicycle: the pitch Newton puts the front wheel on the ground") {
  const Model b;
  // At upright the reference configuration has both wheels on the ground: g(0) = 0 in floating point.
  CHECK(b.pitch_for(0.0, 0.0) == 0.0);
  // There ∂g/∂θ = −w: pitching turns the front contact about the rear wheel centre, w behind it.
  const Eigen::Matrix<double, 1, 8> G0 = linearisation::holonomic_jacobian(b, Vec8(Vec8::Zero()));
  CHECK(std::abs(G0[Model::kPitch] + b.w) < 1e-15);
  CHECK(G0.norm() == Approx(b.w).epsilon(1e-15));  // and nothing else moves it to first order
  std::mt19937 rng(28);
  double worst = 0.0;
  for (int i = 0; i < 20; ++i) {
    const Vec8 q = random_configuration(b, rng);
    const auto p = b.pose(q);
    worst = std::max(worst, std::abs(p.front_contact[2]));
    CHECK(std::abs(q[Model::kPitch]) < 0.5);  // the upright branch, not the bicycle on its nose
    // Q is the lowest point of the front rim: every rim point C_F + r_F (cos t n_F + sin t (a_F × n_F)).
    const Eigen::Vector3d n = p.front_down, a = p.front_axle, t = a.cross(n);
    double lowest = -1e300;
    for (int k = 0; k < 3600; ++k) {
      const double s = 2 * kPi * k / 3600;
      lowest = std::max(lowest, (p.front_centre + b.r_F * (std::cos(s) * n + std::sin(s) * t))[2]);
    }
    CHECK(lowest <= p.front_contact[2] + 1e-15);
    CHECK(std::abs(n.dot(a)) < 1e-15);  // n_F lies in the wheel plane
  }
  // README.md's closed form of g (the front contact's height) at arbitrary roll, pitch and steer.
  std::uniform_real_distribution<double> angle(-1.0, 1.0);
  double worst_formula = 0.0;
  for (int i = 0; i < 20; ++i) {
    const double phi = angle(rng), theta = 0.3 * angle(rng), delta = angle(rng);
    Vec8 q = Vec8::Zero();
    q[Model::kRoll] = phi;
    q[Model::kPitch] = theta;
    q[Model::kSteer] = delta;
    const double dF = b.r_F * std::sin(b.lambda) - b.c * std::cos(b.lambda), tl = theta + b.lambda;
    const double zC = std::cos(phi) * (b.r_R * (std::cos(theta) - 1) - (b.w + b.c) * std::sin(theta) -
                                       (b.c * std::sin(b.lambda) + b.r_F * std::cos(b.lambda)) * std::cos(tl) -
                                       dF * std::cos(delta) * std::sin(tl)) +
                      dF * std::sin(delta) * std::sin(phi);
    const double az = std::sin(phi) * std::cos(delta) + std::cos(phi) * std::sin(delta) * std::sin(tl);
    Eigen::Matrix<double, 1, 1> g;
    b.holonomic_constraint(q, g);
    worst_formula = std::max(worst_formula, std::abs(g[0] - (zC + b.r_F * std::sqrt(1 - az * az))));
  }
  INFO("max |g - README closed form| = " << worst_formula);
  CHECK(worst_formula <= 1e-15);
  INFO("max |z(Q)| after Newton over 20 random (roll, steer): " << worst);
  CHECK(worst <= 4e-16);  // round-off of heights of order 1 m: a few ulps of 1
}

TEST_CASE("whipple_bicycle: twists are pose derivatives, C = [A, dg/dq] full rank") {
  const Model b;
  std::mt19937 rng(1955);
  for (int i = 0; i < 10; ++i) {
    const Vec8 q = random_configuration(b, rng);
    const auto p = b.pose(q);
    const Eigen::Matrix3d RR = b.bodies(q).rear_wheel, RF = b.bodies(q).front_wheel;
    // The rear and front wheels' material points now at the contacts, fixed in the wheels.
    const Eigen::Vector3d rho_R = RR.transpose() * (p.rear_contact - p.rear_centre);
    const Eigen::Vector3d rho_F = RF.transpose() * (p.front_contact - p.front_centre);
    double worst = 0.0;
    for (int k = 0; k < 8; ++k) {
      const Vec8 e = Vec8::Unit(k);
      const auto t = b.unit_twist(p, k);
      using P = whipple::WhipplePose<Dual>;
      using X = Eigen::Matrix<Dual, 8, 1>;
      const auto d = [&](auto f) { return pose_derivative(b, q, e, f); };
      worst = std::max(worst, (d([](const P& x, const X&) { return x.rear_centre; }) - t.v_rear_centre).norm());
      worst = std::max(worst, (d([](const P& x, const X&) { return x.frame_centre; }) - t.v_frame_centre).norm());
      worst = std::max(worst, (d([](const P& x, const X&) { return x.fork_centre; }) - t.v_fork_centre).norm());
      worst = std::max(worst, (d([](const P& x, const X&) { return x.front_centre; }) - t.v_front_centre).norm());
      const auto rear_material = [&](const P& x, const X& qx) {
        const Eigen::Matrix<Dual, 3, 3> R = b.bodies(qx).rear_wheel;
        return Eigen::Matrix<Dual, 3, 1>(x.rear_centre + R * rho_R.cast<Dual>());
      };
      const auto front_material = [&](const P& x, const X& qx) {
        const Eigen::Matrix<Dual, 3, 3> R = b.bodies(qx).front_wheel;
        return Eigen::Matrix<Dual, 3, 1>(x.front_centre + R * rho_F.cast<Dual>());
      };
      worst = std::max(worst, (d(rear_material) - t.v_rear_material_contact).norm());
      worst = std::max(worst, (d(front_material) - t.v_front_material_contact).norm());
      Eigen::Matrix<Dual, 8, 1> x;
      for (int j = 0; j < 8; ++j) x[j] = nested::seed(q[j], e[j]);
      const auto bx = b.bodies(x);
      worst = std::max(worst, (angular_velocity(bx.rear_frame) - t.w_B).norm());
      worst = std::max(worst, (angular_velocity(bx.front_frame) - t.w_H).norm());
      worst = std::max(worst, (angular_velocity(bx.rear_wheel) - t.w_R).norm());
      worst = std::max(worst, (angular_velocity(bx.front_wheel) - t.w_F).norm());
    }
    // README.md: the rear rows are ẋ = −r_R (θ̇ + θ̇_R) cos ψ, ẏ = −r_R (θ̇ + θ̇_R) sin ψ.
    Eigen::Matrix<double, 4, 8> A;
    b.constraint_matrix(q, A);
    Eigen::Matrix<double, 2, 8> rear = Eigen::Matrix<double, 2, 8>::Zero();
    rear(0, Model::kX) = rear(1, Model::kY) = 1.0;
    rear(0, Model::kPitch) = rear(0, Model::kRearWheel) = b.r_R * std::cos(q[Model::kYaw]);
    rear(1, Model::kPitch) = rear(1, Model::kRearWheel) = b.r_R * std::sin(q[Model::kYaw]);
    worst = std::max(worst, (A.topRows(2) - rear).cwiseAbs().maxCoeff());
    INFO("max |twist - derivative of the pose| and |rear rows - closed form| = " << worst);
    CHECK(worst <= 1e-14);  // both exact: round-off of velocities of order 1
    const Eigen::JacobiSVD<Eigen::Matrix<double, 5, 8>> svd(constraints(b, q));
    const auto s = svd.singularValues();
    INFO("singular values of C: " << s.transpose());
    CHECK(s[4] > 1e-3 * s[0]);  // rank 5: 4 rolling rows and the holonomic row
    Eigen::Matrix<double, 8, 8> M;
    b.mass(q, M);
    CHECK((M - M.transpose()).norm() == 0.0);
    const Eigen::SelfAdjointEigenSolver<Eigen::Matrix<double, 8, 8>> eig(M);
    CHECK(eig.eigenvalues()[0] > 0.0);  // positive definite: every coordinate moves some mass
    // x, y, θ_R, θ_F appear in none of M, V, g; ψ in V and g neither, and in M only through the
    // ground velocities: turning ψ by α and (ẋ, ẏ) with it leaves T unchanged.
    Vec8 moved = q;
    moved[Model::kX] += 1.3;
    moved[Model::kY] -= 0.7;
    moved[Model::kRearWheel] += 2.0;
    moved[Model::kFrontWheel] -= 1.0;
    Eigen::Matrix<double, 8, 8> M_moved;
    b.mass(moved, M_moved);
    CHECK((M_moved - M).norm() <= 1e-14 * M.norm());
    const double alpha = 0.9;
    moved[Model::kYaw] += alpha;
    CHECK(std::abs(b.potential(moved) - b.potential(q)) <= 1e-13 * std::abs(b.potential(q)));
    Eigen::Matrix<double, 1, 1> g_q, g_moved;
    b.holonomic_constraint(q, g_q);
    b.holonomic_constraint(moved, g_moved);
    CHECK(std::abs(g_moved[0] - g_q[0]) <= 1e-15);
    b.mass(moved, M_moved);
    const Vec8 qd = consistent_rates(b, q, 0.3, -0.4, -9.0);
    Vec8 qd_turned = qd;
    qd_turned[Model::kX] = std::cos(alpha) * qd[Model::kX] - std::sin(alpha) * qd[Model::kY];
    qd_turned[Model::kY] = std::sin(alpha) * qd[Model::kX] + std::cos(alpha) * qd[Model::kY];
    const double T = 0.5 * qd.dot(M * qd), T_turned = 0.5 * qd_turned.dot(M_moved * qd_turned);
    CHECK(std::abs(T_turned - T) <= 1e-13 * T);
    Eigen::Matrix<double, 4, 8> A_turned;
    b.constraint_matrix(moved, A_turned);
    CHECK((A_turned * qd_turned).norm() <= 1e-13);  // the turned motion rolls too
  }
}

TEST_CASE("whipple_bicycle: Basu-Mandal et al. Table 1 accelerations to 10 digits") {
  const Model b;
  // Basu-Mandal et al. use z up (x_BM = −x, y_BM = y, z_BM = −z), yaw θ_BM about z up (ψ = −θ_BM),
  // lean ψ_BM from the horizontal (φ = π/2 − ψ_BM), pitch φ_BM of their frame whose upright value
  // is π (θ = π − φ_BM), steer ψ_f (δ = −ψ_f), wheel angles β relative to the frames (θ_R = −β_r,
  // θ_F = −β_f); (x, y, z)_BM is the rear wheel's centre. README.md "Basu-Mandal et al." derives it.
  struct Bm {
    double yaw, lean, pitch, steer, yaw_d, lean_d, pitch_d, steer_d, rear_d, front_d, xd, yd, zd;
    double yaw_dd, lean_dd, pitch_dd, steer_dd, rear_dd, front_dd, xdd, ydd, zdd, z;
  };
  const Bm bm{0.0,           0.9501292851472,  3.1257073014894,  0.2311385135743,  0.7830033527065,
              0.6068425835418, -0.0119185528069, 0.4859824687093, 8.912989661489,  8.0133620584155,
              -2.8069345714545, -0.1480982396001, 0.1058778746261, 0.8353281706379, -7.8555281128244,
              0.1205543897884, -4.6198904039403, 1.8472554144217, 2.454807290455,  -0.5041626315047,
              -0.3449706619454, -1.460452833298, 0.2440472102925};
  Vec8 q = Vec8::Zero();
  q[Model::kYaw] = -bm.yaw;
  q[Model::kRoll] = kPi / 2 - bm.lean;
  q[Model::kSteer] = -bm.steer;
  q[Model::kPitch] = b.pitch_for(q[Model::kRoll], q[Model::kSteer]);
  // Their pitch, given to 13 decimals, against ours from g = 0.
  INFO(std::setprecision(16) << "pitch: ours " << q[Model::kPitch] << ", pi - phi_BM " << kPi - bm.pitch);
  CHECK(std::abs(q[Model::kPitch] - (kPi - bm.pitch)) < 1e-12);
  const auto p = b.pose(q);
  CHECK(std::abs(-p.rear_centre[2] - bm.z) < 1e-12);
  // Independent rates: roll, steer, rear wheel; the others follow from C q̇ = 0 and must be theirs.
  const Vec8 qd = consistent_rates(b, q, -bm.lean_d, -bm.steer_d, -bm.rear_d);
  const auto t = b.twist(p, qd);
  const double rates[][2] = {{qd[Model::kYaw], -bm.yaw_d},          {qd[Model::kPitch], -bm.pitch_d},
                             {qd[Model::kFrontWheel], -bm.front_d}, {-t.v_rear_centre[0], bm.xd},
                             {t.v_rear_centre[1], bm.yd},           {-t.v_rear_centre[2], bm.zd}};
  double rate_error = 0.0;
  for (const auto& r : rates) rate_error = std::max(rate_error, std::abs(r[0] - r[1]));
  INFO("max |dependent rate - Basu-Mandal| = " << rate_error);
  CHECK(rate_error < 1e-12);  // their rates are rounded to 13 decimals

  const auto acc = linearisation::constrained_acceleration(b, q, qd);
  const Vec8& a = acc.qdd;
  // The rear wheel centre's acceleration: (∂C_R/∂q) q̈ + q̇ᵀ ∇²C_R q̇ (dual over dual).
  using D2 = nested::Dual1<Dual>;
  Eigen::Matrix<D2, 8, 1> x2;
  Eigen::Matrix<Dual, 8, 1> x1;
  for (int i = 0; i < 8; ++i) {
    x2[i] = nested::seed(nested::seed(q[i], qd[i]), nested::seed(qd[i], 0.0));
    x1[i] = nested::seed(q[i], a[i]);
  }
  const auto p2 = b.pose(x2);
  const auto p1 = b.pose(x1);
  Eigen::Vector3d centre_acc;
  for (int i = 0; i < 3; ++i)
    centre_acc[i] = nested::derivative(nested::derivative(p2.rear_centre[i])) + nested::derivative(p1.rear_centre[i]);
  const double accelerations[][2] = {{-a[Model::kYaw], bm.yaw_dd},         {-a[Model::kRoll], bm.lean_dd},
                                     {-a[Model::kPitch], bm.pitch_dd},     {-a[Model::kSteer], bm.steer_dd},
                                     {-a[Model::kRearWheel], bm.rear_dd},  {-a[Model::kFrontWheel], bm.front_dd},
                                     {-centre_acc[0], bm.xdd},             {centre_acc[1], bm.ydd},
                                     {-centre_acc[2], bm.zdd}};
  double worst = 0.0;
  for (const auto& r : accelerations) {
    INFO(std::setprecision(16) << "ours " << r[0] << ", Basu-Mandal " << r[1]);
    CHECK(relative(r[0], r[1]) < 1e-10);  // >= 10 significant digits
    worst = std::max(worst, relative(r[0], r[1]));
  }
  INFO("max relative deviation of the 9 accelerations: " << worst);
  CHECK(worst < 1e-10);

  // The generic Coriolis terms and constraint curvature against the framework's ad:: helpers.
  Vec8 c_framework, c_ours = linearisation::coriolis(b, q, qd);
  ad::coriolis<8>(b, q, qd, c_framework);
  CHECK((c_framework - c_ours).norm() <= 1e-13 * c_framework.norm());
  Eigen::Vector4d k_framework;
  ad::curvature<8, 4>(b, 4, q, qd, k_framework);
  const Eigen::Vector4d k_ours = linearisation::constraint_second(b, q, qd, qd);
  CHECK((k_framework - k_ours).norm() <= 1e-13 * k_framework.norm());
  Vec8 grad_framework;
  ad::potential_gradient<8>(b, q, grad_framework);
  CHECK((grad_framework - linearisation::potential_gradient(b, q)).norm() <= 1e-14 * grad_framework.norm());
  // The constraints hold at the acceleration level: C q̈ + κ = 0.
  const Eigen::Matrix<double, 5, 1> residual = constraints(b, q) * a + (Eigen::Matrix<double, 5, 1>()
      << linearisation::constraint_second(b, q, qd, qd), linearisation::holonomic_second(b, q, qd, qd)).finished();
  CHECK(residual.norm() < 1e-13);
}

TEST_CASE("whipple_bicycle: linearisation gives Meijaard's M, C1, K0, K2") {
  const Model b;
  const Eigen::Matrix2d M_pub{{80.81722, 2.31941332208709}, {2.31941332208709, 0.29784188199686}};
  const Eigen::Matrix2d C1_pub{{0.0, 33.86641391492494}, {-0.85035641456978, 1.68540397397560}};
  const Eigen::Matrix2d K0_pub{{-80.95, -2.59951685249872}, {-2.59951685249872, -0.80329488458618}};
  const Eigen::Matrix2d K2_pub{{0.0, 76.59734589573222}, {0.0, 2.65431523794604}};
  const auto at0 = upright(b, 0.0), at10 = upright(b, 10.0);
  // The family is steady (q̈ = 0) and the rear wheel's speed decouples from roll and steer.
  CHECK(at0.steady_residual < 1e-13);
  CHECK(at10.steady_residual < 1e-12);
  CHECK(at0.held_coupling == 0.0);
  CHECK(at10.held_coupling < 1e-13);
  Eigen::Matrix<double, 4, 8> A;
  b.constraint_matrix(Vec8::Zero(), A);
  CHECK((A * upright_rates(b, 10.0)).norm() < 1e-14);
  // stiffness = g K0 + v² K2, damping = v C1 (exact in v: the Lagrangian is quadratic in the rates).
  const Eigen::Matrix2d M = at0.mass, K0 = at0.stiffness / b.g;
  const Eigen::Matrix2d K2 = (at10.stiffness - at0.stiffness) / 100.0, C1 = at10.damping / 10.0;
  CHECK((at10.mass - M).norm() == 0.0);
  CHECK(at0.damping.norm() == 0.0);
  const auto compare = [](const Eigen::Matrix2d& ours, const Eigen::Matrix2d& pub, const char* name) {
    double worst = 0.0;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) {
        // Relative for the published non-zero entries; the zeros against the matrix's scale.
        const double d = pub(i, j) != 0.0 ? relative(ours(i, j), pub(i, j))
                                          : std::abs(ours(i, j)) / pub.cwiseAbs().maxCoeff();
        worst = std::max(worst, d);
      }
    INFO(name << ": max relative deviation " << worst << "\nours\n" << std::setprecision(16) << ours);
    CHECK(worst <= 1e-12);
  };
  compare(M, M_pub, "M");
  compare(C1, C1_pub, "C1");
  compare(K0, K0_pub, "K0");
  compare(K2, K2_pub, "K2");
}

TEST_CASE("whipple_bicycle: Meijaard Table 2, all 44 eigenvalues at v = 0..10 m/s") {
  const Model b;
  // v, capsize, weave (re, im), castering; v = 0: ±capsize and ±castering (four real roots).
  const double table[11][5] = {{0, 3.13164324790656, 0, 0, 5.53094371765393},
                               {1, -3.13423125066578, 3.52696170990070, 0.80774027519930, -7.11008014637442},
                               {2, -3.07158645641514, 2.68234517512745, 1.68066296590675, -8.67387984831735},
                               {3, -2.63366137253667, 1.70675605663975, 2.31582447384325, -10.35101467245920},
                               {4, -1.42944427361326, 0.41325331521125, 3.07910818603206, -12.15861426576450},
                               {5, -0.32286642900409, -0.77534188219585, 4.46486771378823, -14.07838969279820},
                               {6, -0.00406690076970, -1.52644486584142, 5.87673060598709, -16.08537123098030},
                               {7, 0.10268170574766, -2.13875644258362, 7.19525913329805, -18.15788466125262},
                               {8, 0.14327879765713, -2.69348683581097, 8.46037971396931, -20.27940894394569},
                               {9, 0.15790184030917, -3.21675402252485, 9.69377351531791, -22.43788559040858},
                               {10, 0.16105338653172, -3.72016840437287, 10.90681139476287, -24.62459635017404}};
  double worst_abs = 0.0, worst_castering = 0.0;
  int compared = 0;
  for (const auto& row : table) {
    const double v = row[0];
    std::vector<std::complex<double>> computed = linearisation::eigenvalues(upright(b, v).state);
    std::vector<std::pair<std::complex<double>, bool>> published;  // value, castering
    if (v == 0.0) {
      published = {{row[1], false}, {-row[1], false}, {row[4], true}, {-row[4], true}};
    } else {
      published = {{row[1], false}, {{row[2], row[3]}, false}, {{row[2], -row[3]}, false}, {row[4], true}};
    }
    for (const auto& [value, castering] : published) {
      // The nearest computed eigenvalue not yet matched (the four are far apart).
      std::size_t best = 0;
      for (std::size_t i = 1; i < computed.size(); ++i)
        if (std::abs(computed[i] - value) < std::abs(computed[best] - value)) best = i;
      const double d = std::abs(computed[best] - value);
      INFO("v = " << v << ": published " << value << ", computed " << computed[best] << ", |delta| " << d);
      if (castering) {
        CHECK(d <= 1e-12 * std::abs(value));
        worst_castering = std::max(worst_castering, d / std::abs(value));
      } else {
        CHECK(d <= 1e-12);
        worst_abs = std::max(worst_abs, d);
      }
      computed.erase(computed.begin() + static_cast<std::ptrdiff_t>(best));
      ++compared;
    }
  }
  CHECK(compared == 44);
  INFO("max |delta| capsize and weave: " << worst_abs);
  INFO("max relative |delta| castering: " << worst_castering);
  CHECK(worst_abs <= 1e-12);
  CHECK(worst_castering <= 1e-12);
}

TEST_CASE("whipple_bicycle: weave, capsize and weave bifurcation speeds") {
  const Model b;
  const auto eig = [&](double v) { return linearisation::eigenvalues(upright(b, v).state); };
  // Weave speed: the real part of the oscillatory pair (largest imaginary part) crosses zero.
  const auto weave = [&](double v) {
    const auto ev = eig(v);
    return *std::max_element(ev.begin(), ev.end(), [](auto x, auto y) { return x.imag() < y.imag(); });
  };
  const double v_w = bracketed_root([&](double v) { return weave(v).real(); }, 4.0, 5.0).x;
  // Capsize speed: the largest real root crosses zero.
  const auto capsize = [&](double v) {
    double best = -1e300;
    for (const auto& x : eig(v))
      if (x.imag() == 0.0) best = std::max(best, x.real());
    return best;
  };
  const double v_c = bracketed_root(capsize, 6.0, 7.0).x;
  // Weave bifurcation: the two roots of largest real part meet (real below, a complex pair above).
  // Their squared difference is smooth through the meeting (the discriminant of their quadratic
  // factor), positive while real and −4 Im² once complex: its root is v_d, their mean the double root.
  const auto separation = [&](double v) {
    const auto ev = eig(v);
    const std::complex<double> d = ev[3] - ev[2];
    return (d * d).real();
  };
  const double v_d = bracketed_root(separation, 0.5, 1.0).x;
  const auto at_d = eig(v_d);
  const double double_root = 0.5 * (at_d[2] + at_d[3]).real();
  INFO(std::setprecision(16) << "v_w = " << v_w << " (delta " << v_w - 4.29238253634111 << "), frequency "
                              << weave(v_w).imag());
  INFO(std::setprecision(16) << "v_c = " << v_c << " (delta " << v_c - 6.02426201538837 << ")");
  INFO(std::setprecision(16) << "v_d = " << v_d << " (delta " << v_d - 0.68428307889246 << "), double root "
                              << double_root << " (delta " << double_root - 3.78290405129320 << ")");
  CHECK(std::abs(v_w - 4.29238253634111) <= 1e-10);
  CHECK(std::abs(weave(v_w).imag() - 3.43503384866144) <= 1e-10);
  CHECK(std::abs(v_c - 6.02426201538837) <= 1e-10);
  CHECK(std::abs(v_d - 0.68428307889246) <= 1e-10);
  CHECK(std::abs(double_root - 3.78290405129320) <= 1e-10);
  // The self-stable range v_w < v < v_c: every real part negative at 5 m/s.
  for (const auto& x : eig(5.0)) CHECK(x.real() < 0.0);
}
