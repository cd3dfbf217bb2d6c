// SO(3) as a Lie group for the schemes of issue 29 (math/so3_group.hpp): every derivative formula
// against central differences of the map itself (the right-trivialised convention of spec 001 §3.1,
// Dτ(x)·δ = hat(dτ_x δ) τ(x)), each inverse against its matrix inverse, exp against the Rodrigues
// formula of seed 003 (math/so3.hpp, a second implementation), cay against (I − x̂/2)⁻¹(I + x̂/2)
// computed by LU, and the quaternion of τ against τ's matrix.
#include <Eigen/Dense>
#include <catch2/catch.hpp>
#include <dalembert/math/se2.hpp>
#include <dalembert/math/so3.hpp>
#include <dalembert/math/so3_group.hpp>

using namespace dalembert;
using V3 = Eigen::Vector3d;
using M3 = Eigen::Matrix3d;

namespace {
// [D τ(x)·δ] τ(x)⁻¹ by central differences, as a vector (vee), for each unit δ: the matrix dτ_x.
M3 numeric_dtau(Retraction r, const V3& x) {
  M3 D;
  const double eps = 1e-6;
  for (int j = 0; j < 3; ++j) {
    V3 d = V3::Zero();
    d[j] = eps;
    const M3 diff = (SO3::retract(r, x + d) - SO3::retract(r, x - d)) / (2 * eps);
    D.col(j) = SO3::vee(diff * SO3::retract(r, x).transpose());
  }
  return D;
}
const V3 samples[] = {V3(0.3, -0.2, 0.5), V3(1e-3, 2e-3, -1e-3), V3(1.2, 0.7, -2.1), V3(0.05, 0.0, 0.02)};
}  // namespace

TEST_CASE("SO(3): exp and cay are rotations, exp is Rodrigues' formula, cay is the Cayley transform", "[lie_group][so3]") {
  for (const V3& x : samples) {
    const M3 E = SO3::exp(x), C = SO3::cay(x);
    CHECK((E.transpose() * E - M3::Identity()).cwiseAbs().maxCoeff() < 1e-15);
    CHECK((C.transpose() * C - M3::Identity()).cwiseAbs().maxCoeff() < 1e-15);
    CHECK((E - so3::exp(x)).cwiseAbs().maxCoeff() < 1e-15);  // seed 003's Rodrigues
    const M3 X = SO3::hat(x);
    const M3 C2 = (M3::Identity() - 0.5 * X).inverse() * (M3::Identity() + 0.5 * X);
    CHECK((C - C2).cwiseAbs().maxCoeff() < 1e-15);
  }
}

TEST_CASE("SO(3): dexp, dcay and their inverses (right-trivialised) against central differences", "[lie_group][so3]") {
  // central differences at eps = 1e-6 of O(1) entries: error ~ eps² + 1e-16/eps = 1e-10
  for (const V3& x : samples) {
    for (Retraction r : {Retraction::Exp, Retraction::Cayley}) {
      INFO("x = " << x.transpose() << ", " << (r == Retraction::Exp ? "exp" : "cay"));
      CHECK((SO3::dtau(r, x) - numeric_dtau(r, x)).cwiseAbs().maxCoeff() < 1e-9);
      CHECK((SO3::dtau(r, x) * SO3::dtau_inv(r, x) - M3::Identity()).cwiseAbs().maxCoeff() < 1e-14);
    }
    // the truncations of dexp⁻¹ (spec 001 eq. 42) differ from the exact series at the next order:
    // ‖c(θ) x̂²‖_F = √2 c(θ) θ² with c ≤ 0.094 for θ ≤ 2.6 (0.118 θ² near 0), and (c − 1/12) ≤ θ²/600
    const double t = x.norm();
    CHECK((SO3::dexp_inv(x, DexpInverse::FirstOrder) - SO3::dexp_inv(x)).norm() < 0.15 * t * t + 1e-15);
    CHECK((SO3::dexp_inv(x, DexpInverse::SecondOrder) - SO3::dexp_inv(x)).norm() < 0.01 * t * t * t * t + 1e-15);
  }
}

TEST_CASE("SO(3): the quaternion of tau is tau's rotation, compose_at renormalises", "[lie_group][so3]") {
  for (const V3& x : samples)
    for (Retraction r : {Retraction::Exp, Retraction::Cayley}) {
      const Eigen::Quaterniond q = SO3::retract_quaternion(r, x);
      CHECK(std::abs(q.norm() - 1.0) < 1e-15);
      CHECK((q.toRotationMatrix() - SO3::retract(r, x)).cwiseAbs().maxCoeff() < 2e-15);
    }
  // g τ(x) in the State slice = the matrix product
  Eigen::Vector4d q(1, 0, 0, 0);
  M3 R = M3::Identity();
  for (const V3& x : samples) {
    SO3::compose_at(Retraction::Cayley, x, q);
    R = R * SO3::cay(x);
  }
  CHECK((SO3::rotation_at(q) - R).cwiseAbs().maxCoeff() < 1e-14);
}

TEST_CASE("SE(2) and SO(3) share the coefficient functions (one code path)", "[lie_group][so3]") {
  // ad³ = −w² ad on both: dexp by the same coefficients; checked on SO(3) against the series Σ adʲ/(j+1)!
  const V3 x(0.4, -0.3, 0.2);
  M3 series = M3::Zero(), term = M3::Identity();
  for (int j = 0; j < 30; ++j) {
    series += term;
    term = term * SO3::ad(x) / double(j + 2);
  }
  CHECK((SO3::dexp(x) - series).cwiseAbs().maxCoeff() < 1e-15);
  for (double w : {1e-3, 0.05, 0.3, 2.0}) CHECK(SE2::bernoulli_coefficient(w) == lie_coefficients::bernoulli_coefficient(w));
}
