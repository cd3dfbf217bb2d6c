// Rotations and rescaled Rodrigues parameters (spec 003 §2; claims 1–3), checked numerically:
// R(α) = exp, ⊕ order/associativity/inverse, round trips R ↔ α ↔ q near θ = π, tangent maps by
// finite differences, the increment roots, the robust log/angle, and the attitude storage modes.
#include <catch2/catch.hpp>
#include <dalembert/math/rodrigues.hpp>
#include <dalembert/math/se3.hpp>
#include <numbers>
#include <random>

using namespace dalembert;
using rrp::Mat3;
using rrp::Vec3;

namespace {
std::mt19937_64 rng(12345);
Vec3 rand_vec(double scale) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  return scale * Vec3(u(rng), u(rng), u(rng));
}
Vec3 rand_theta(double maxangle) {  // a rotation vector with angle < maxangle
  Vec3 n = rand_vec(1.0).normalized();
  std::uniform_real_distribution<double> u(0.0, maxangle);
  return u(rng) * n;
}
double maxabs(const Mat3& A) { return A.cwiseAbs().maxCoeff(); }
}  // namespace

TEST_CASE("Claim 1: R(alpha) = exp(S(theta)), orthogonal, det 1 (spec 003 §2.2-2.3)", "[rodrigues][math]") {
  double worst = 0, worst_orth = 0, worst_det = 0;
  for (int k = 0; k < 2000; ++k) {
    const Vec3 th = rand_theta(std::numbers::pi * 0.999);
    const Vec3 a = rrp::alpha_from_theta(th);
    const Mat3 R = rrp::R(a);
    worst = std::max(worst, maxabs(R - so3::exp(th)));
    worst_orth = std::max(worst_orth, so3::orthogonality_defect(R));
    worst_det = std::max(worst_det, std::abs(R.determinant() - 1.0));
    // the identities of §2.3
    CHECK(maxabs(R - R.transpose() - 8.0 / (4.0 + a.squaredNorm()) * so3::skew(a)) < 1e-13 * (1 + a.norm()));
    CHECK(std::abs(1.0 + R.trace() - 16.0 / (4.0 + a.squaredNorm())) < 1e-14);
  }
  INFO("max |R(alpha) - exp| = " << worst);
  CHECK(worst < 1e-14);
  CHECK(worst_orth < 1e-15 * 4);  // 1e-15 up to a few ulps of the 3x3 product
  CHECK(worst_det < 1e-15 * 4);
  // Small-angle series: α ≈ θ(1 + φ²/12)
  const Vec3 small(1e-6, -2e-6, 3e-7);
  CHECK((rrp::alpha_from_theta(small) - small).norm() < 1e-17);
  CHECK((rrp::theta_from_alpha(rrp::alpha_from_theta(small)) - small).norm() < 1e-20);
}

TEST_CASE("Claim 2: composition order R(a1 (+) a2) = R(a2) R(a1), inverse, associativity, alpha(R(alpha)) (spec 003 §2.4-2.5)", "[rodrigues][math]") {
  double worst = 0, wrong = 0, inv = 0, rt = 0, assoc = 0;
  for (int k = 0; k < 2000; ++k) {
    const Vec3 a1 = rrp::alpha_from_theta(rand_theta(2.5)), a2 = rrp::alpha_from_theta(rand_theta(2.5));
    if (std::abs(4.0 - a1.dot(a2)) < 1e-2) continue;
    const Vec3 c = rrp::oplus(a1, a2);
    const double scale = 1.0 + c.squaredNorm();  // R is rational in α: relative conditioning
    worst = std::max(worst, maxabs(rrp::R(c) - rrp::R(a2) * rrp::R(a1)) / scale);
    wrong = std::max(wrong, maxabs(rrp::R(c) - rrp::R(a1) * rrp::R(a2)));
    inv = std::max(inv, rrp::oplus(-a1, a1).norm());
    rt = std::max(rt, (rrp::alpha_from_R(rrp::R(a1)) - a1).norm() / (1 + a1.squaredNorm()));
    const Vec3 a3 = rrp::alpha_from_theta(rand_theta(1.0));
    const Vec3 l = rrp::oplus(rrp::oplus(a1, a2), a3), r = rrp::oplus(a1, rrp::oplus(a2, a3));
    assoc = std::max(assoc, maxabs(rrp::R(l) - rrp::R(r)));
  }
  INFO("order " << worst << " wrong order " << wrong << " inverse " << inv << " round trip " << rt << " assoc " << assoc);
  CHECK(worst < 1e-14);
  CHECK(wrong > 0.1);  // R(a1)R(a2) is wrong by O(1) (spec §2.5)
  CHECK(inv < 1e-15);
  CHECK(rt < 1e-14);
  CHECK(assoc < 1e-13);
}

TEST_CASE("Round trips R <-> alpha <-> quaternion <-> theta near theta = pi (spec 003 §2.4, §2.7)", "[rodrigues][math]") {
  for (double phi : {1e-9, 1e-3, 1.0, 2.5, 3.0, 3.14, 3.1415, 3.14159265}) {
    const Vec3 n = Vec3(0.3, -0.5, 0.8).normalized();
    const Vec3 th = phi * n;
    const Mat3 R = so3::exp(th);
    const Vec3 a = rrp::alpha_from_theta(th);
    const auto q = rrp::quat_from_alpha(a);
    INFO("phi = " << phi);
    CHECK(maxabs(q.toRotationMatrix() - R) < 1e-14);
    CHECK((rrp::alpha_from_quat(q) - a).norm() <= 1e-15 * (1 + a.squaredNorm()));
    CHECK((rrp::alpha_from_quat(Eigen::Quaterniond(-q.coeffs())) - a).norm() <= 1e-15 * (1 + a.squaredNorm()));
    CHECK((rrp::theta_from_alpha(a) - th).norm() < 1e-14);
    // robust angle and log (spec §2.7): accurate near 0 and π
    CHECK(std::abs(so3::angle(R) - phi) < 1e-14 + 1e-9 * (phi > 3.14159));
    CHECK(std::abs(rrp::angle(a) - phi) < 1e-14);
    CHECK(std::abs(so3::angle(q) - phi) < 1e-14);
    CHECK((so3::log(R) - th).norm() < (phi > 3.1 ? 1e-7 : 1e-14));
    CHECK(maxabs(so3::exp(so3::log(R)) - R) < 1e-14);
  }
  // log at exactly π returns a valid rotation vector
  const Mat3 Rpi = so3::exp(std::numbers::pi * Vec3(0, 0.6, 0.8));
  CHECK(maxabs(so3::exp(so3::log(Rpi)) - Rpi) < 1e-14);
  CHECK(std::abs(so3::log(Rpi).norm() - std::numbers::pi) < 1e-12);
}

TEST_CASE("Tangent maps of spec 003 §2.6 by finite differences", "[rodrigues][math]") {
  for (int k = 0; k < 50; ++k) {
    const Vec3 a = rrp::alpha_from_theta(rand_theta(2.8)), ad = rand_vec(1.0);
    const double eps = 1e-6;
    const Mat3 Rd = (rrp::R(a + eps * ad) - rrp::R(a - eps * ad)) / (2 * eps);
    const Mat3 R = rrp::R(a);
    const Vec3 Omega = so3::vee(Rd * R.transpose()), omega = so3::vee(R.transpose() * Rd);
    const double s = 1 + a.squaredNorm();
    CHECK((Omega - rrp::Xi(a) * ad).norm() < 1e-8 * s);                  // Ω = Ξ(α) α̇ (spatial)
    CHECK((omega - rrp::Xi(a).transpose() * ad).norm() < 1e-8 * s);      // ω = 4/(4+|α|²)(I − ½S) α̇
    CHECK((rrp::Xi_inverse(a) * rrp::Xi(a) - Mat3::Identity()).cwiseAbs().maxCoeff() < 1e-14 * s);
    CHECK((rrp::Xi_inverse(a) * Omega - ad).norm() < 1e-8 * s * s);       // α̇ = (I − ½S + ¼ααᵀ) Ω
    // body form: α̇ = (I + ½S + ¼ααᵀ) ω
    const Mat3 Bi = Mat3::Identity() + 0.5 * so3::skew(a) + 0.25 * a * a.transpose();
    CHECK((Bi * omega - ad).norm() < 1e-8 * s * s);
  }
  // SE(3) helpers: exp of a pure rotation twist, inverse, composition
  const se3::Pose g{so3::exp(Vec3(0.1, 0.2, 0.3)), Vec3(1, 2, 3)};
  const se3::Pose e = g * g.inverse();
  CHECK(maxabs(e.R - Mat3::Identity()) < 1e-15);
  CHECK(e.x.norm() < 1e-15);
  const se3::Pose ex = se3::exp(Vec3(0, 0, 0.5), Vec3(1, 0, 0));
  CHECK(maxabs(ex.R - so3::exp(Vec3(0, 0, 0.5))) < 1e-15);
}

TEST_CASE("Claim 3: the increment roots of (23) and (25) (spec 003 §3.1, §3.4)", "[rodrigues][math]") {
  for (int k = 0; k < 500; ++k) {
    const double h = 0.05;
    const Vec3 w = rand_vec(19.0);
    Vec3 da = Vec3::Zero();
    if (h * w.norm() >= 1.0) {
      CHECK_FALSE(rrp::increment_exact(w, h, da));  // no real root: map (23) refuses the step
      continue;
    }
    REQUIRE(rrp::increment_exact(w, h, da));
    // (15), spatial form: h w = 4 Δα / (4 + |Δα|²)
    CHECK((h * w - 4.0 * da / (4.0 + da.squaredNorm())).norm() < 1e-15 * (1 + 4 * h * w.norm()));
    CHECK(std::abs(rrp::angle(da) - std::asin(h * w.norm())) < 1e-14);  // angle arcsin(h|w|)
    const Vec3 d25 = rrp::increment_truncated(w, h);
    CHECK(std::abs(rrp::angle(d25) - 2 * std::atan(h * w.norm() / 2)) < 1e-15 * 4);
    CHECK((d25.normalized() - w.normalized()).norm() < 1e-15 * 4);
  }
}

TEST_CASE("Attitude storage modes agree and pass through theta = pi (spec 003 §2.7)", "[rodrigues][math]") {
  // Rotate about a fixed axis from angle 0 past π and past 2π in small increments, plus a wobble.
  rrp::Attitude a(rrp::Storage::Alpha), q(rrp::Storage::Quaternion), c(rrp::Storage::Chart);
  const auto id = Eigen::Quaterniond::Identity();
  a.set(id), q.set(id), c.set(id);
  Mat3 Rexact = Mat3::Identity();
  double worst = 0;
  Eigen::Quaterniond prev = id;
  double jump = 0;
  for (int k = 0; k < 2000; ++k) {
    const Vec3 da = rrp::alpha_from_theta(Vec3(0.004, 0.001 * std::sin(0.01 * k), 0.0035));
    a.compose(da), q.compose(da), c.compose(da);
    Rexact = rrp::R(da) * Rexact;
    worst = std::max({worst, maxabs(a.R() - Rexact), maxabs(q.R() - Rexact), maxabs(c.R() - Rexact)});
    const auto qa = a.quaternion();
    jump = std::max(jump, (qa.coeffs() - prev.coeffs()).norm());
    prev = qa;
    REQUIRE(std::isfinite(a.angle()));
  }
  INFO("max |R - R_exact| = " << worst << ", largest quaternion jump " << jump);
  CHECK(worst < 1e-12);
  CHECK(jump < 0.01);  // the state's quaternion stays continuous through φ = π
  // An α-mode body started exactly at φ = π (α does not exist) starts in the chart.
  rrp::Attitude p(rrp::Storage::Alpha);
  p.set(Eigen::Quaterniond(0.0, 0.0, 1.0, 0.0));
  CHECK(p.switched());
  CHECK(std::abs(p.angle() - std::numbers::pi) < 1e-12);
  // The guard: composing onto exactly 4 − α·Δα = 0 switches to the chart and stays finite.
  rrp::Attitude g(rrp::Storage::Alpha);
  const Vec3 a1(0, 2.0, 0);  // 90° about e2
  g.set(rrp::quat_from_alpha(a1));
  g.compose(a1);             // + 90° → 180°: 4 − a1·a1 = 0
  CHECK(g.switched());
  CHECK(maxabs(g.R() - so3::exp(Vec3(0, std::numbers::pi, 0))) < 1e-14);
}
