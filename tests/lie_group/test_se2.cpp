// SE(2) maps of framework/include/dalembert/math/se2.hpp against finite differences, the matrix
// exponential and the closed forms of spec 001 §2.0 and §3.1 (claims 4, 5, 6).
#include <catch2/catch.hpp>
#include <dalembert/math/se2.hpp>
#include <random>
#include <unsupported/Eigen/MatrixFunctions>

using namespace dalembert;
using M3 = Eigen::Matrix3d;
using V3 = Eigen::Vector3d;

namespace {
std::vector<V3> samples() {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  std::vector<V3> out;
  for (int i = 0; i < 20; ++i) out.emplace_back(u(rng), u(rng), u(rng));
  // small-angle branch and its boundary
  for (double w : {0.0, 1e-12, 1e-7, 1e-4, 0.01, 0.0999999, 0.1, 0.1000001, -0.05}) out.emplace_back(w, 0.7, -0.3);
  return out;
}
double inf(const M3& m) { return m.lpNorm<Eigen::Infinity>(); }
}  // namespace

TEST_CASE("SE(2) hat/vee ad and Ad conventions (spec 001 §2.0)", "[lie_group][se2]") {
  for (const V3& a : samples())
    for (const V3& b : samples()) {
      const M3 A = SE2::hat(a), B = SE2::hat(b);
      CHECK((SE2::vee(A) - a).norm() == 0.0);
      // ad_ξ η = vee([ξ̂, η̂])
      CHECK((SE2::ad(a) * b - SE2::vee(A * B - B * A)).norm() < 1e-14);
      CHECK((SE2::ad_star(a, b) - SE2::ad(a).transpose() * b).norm() < 1e-14);
    }
  for (const V3& g : samples()) {
    const M3 G = SE2::from_coordinates(g[0], g[1], g[2]);
    CHECK((SE2::to_coordinates(G).tail<2>() - g.tail<2>()).norm() == 0.0);
    CHECK(inf(SE2::inverse(G) * G - M3::Identity()) < 1e-15);
    CHECK(inf(SE2::Ad(G) - SE2::Ad(g[0], g[1], g[2])) < 1e-15);
    for (const V3& x : samples())  // Ad_g ξ = vee(g ξ̂ g⁻¹)
      CHECK((SE2::Ad(G) * x - SE2::vee(G * SE2::hat(x) * SE2::inverse(G))).norm() < 1e-13);
  }
  // Euler–Poincaré sign check: free body ℓ = ½(Iω² + m v² + m v⊥²): v̇ = ω v⊥, v̇⊥ = −ω v
  const V3 xi(0.3, 1.2, -0.4), mu(2.0 * 0.3, 1.2, -0.4);  // I = 2, m = 1
  const V3 rhs = SE2::ad_star(xi, mu);
  CHECK(rhs[1] == Approx(xi[0] * xi[2]));
  CHECK(rhs[2] == Approx(-xi[0] * xi[1]));
}

TEST_CASE("exp and Cayley against the matrix exponential and (I - v/2)^-1 (I + v/2) (claim 4)", "[lie_group][se2]") {
  for (const V3& v : samples()) {
    const M3 V = SE2::hat(v);
    CHECK(inf(SE2::exp(v) - V.exp()) < 1e-14);
    // claim 4: cay(v) = (I − v̂/2)⁻¹(I + v̂/2) to 1e-14
    const M3 cay = (M3::Identity() - 0.5 * V).inverse() * (M3::Identity() + 0.5 * V);
    CHECK(inf(SE2::cay(v) - cay) < 1e-14);
    CHECK(SE2::retraction_angle(Retraction::Cayley, v) ==
          Approx(std::atan2(cay(1, 0), cay(0, 0))).margin(1e-15));
  }
  CHECK(inf(SE2::cay(V3::Zero()) - M3::Identity()) == 0.0);
}

TEST_CASE("Tangent maps: FD of the right-trivialised derivative and inverses and (42) and dcay (claim 5)", "[lie_group][se2]") {
  for (const V3& v : samples()) {
    for (Retraction r : {Retraction::Exp, Retraction::Cayley}) {
      const M3 tau = SE2::retract(r, v), tau_inv = SE2::inverse(tau);
      const M3 d = SE2::dtau(r, v), dinv = SE2::dtau_inv(r, v);
      CHECK(inf(d * dinv - M3::Identity()) < 1e-13);
      // FD: Dτ(v)·y = dτ_v(y) τ(v), i.e. vee((∂τ/∂v·y) τ⁻¹) = dτ_v y (central differences, 1e-8)
      for (int j = 0; j < 3; ++j) {
        const double e = 1e-5;
        const M3 dtau = (SE2::retract(r, v + e * V3::Unit(j)) - SE2::retract(r, v - e * V3::Unit(j))) / (2 * e);
        CHECK((SE2::vee(dtau * tau_inv) - d.col(j)).norm() < 1e-8);
      }
    }
    // dexp⁻¹ closed form vs the Bernoulli series Σ B_j/j! ad^j (to j = 20)
    const M3 a = SE2::ad(v);
    if (std::abs(v[0]) < 1.5) {
      static const double B[] = {1, -0.5, 1.0 / 6, 0, -1.0 / 30, 0, 1.0 / 42, 0, -1.0 / 30, 0, 5.0 / 66, 0,
                                 -691.0 / 2730, 0, 7.0 / 6, 0, -3617.0 / 510, 0, 43867.0 / 798, 0, -174611.0 / 330};
      M3 S = M3::Zero(), P = M3::Identity();
      double fact = 1;
      for (int j = 0; j <= 20; ++j) {
        if (j > 0) P = P * a, fact *= j;
        S += B[j] / fact * P;
      }
      CHECK(inf(S - SE2::dexp_inv(v)) < 1e-12);
    }
    // dcay = (2/(4+w²))(2I + ad)  vs  inverse of eq. (44)
    CHECK(inf(SE2::dcay(v) - SE2::dcay_inv(v).inverse()) < 1e-13);
  }
  // (42) differs from the exact dexp⁻¹ by O(|v|⁴): the ratio at v and v/2 is 16
  const V3 v(0.8, 0.5, -0.7);
  const double e1 = inf(SE2::dexp_inv(v, DexpInverse::SecondOrder) - SE2::dexp_inv(v));
  const double e2 = inf(SE2::dexp_inv(0.5 * v, DexpInverse::SecondOrder) - SE2::dexp_inv(0.5 * v));
  CHECK(e1 / e2 == Approx(16.0).epsilon(0.05));
}

TEST_CASE("Free SE(2) body: discrete spatial momentum conserved for exp and cay (claim 6)", "[lie_group][se2]") {
  const M3 M = V3(1.3, 1.0, 0.7).asDiagonal();  // a non-isotropic free body
  const double h = 0.1;
  for (Retraction r : {Retraction::Exp, Retraction::Cayley}) {
    V3 xi(0.9, 1.0, -0.5), theta_xy(0.2, 0.1, -0.3);
    M3 g = SE2::from_coordinates(theta_xy[0], theta_xy[1], theta_xy[2]);
    V3 mu_prev = SE2::dtau_inv(r, -h * xi).transpose() * (M * xi);
    V3 pi0 = V3::Zero();
    double worst = 0;
    for (int k = 0; k < 200; ++k) {
      // (dτ⁻¹_{hξ_k})ᵀ M ξ_k = (dτ⁻¹_{−hξ_{k−1}})ᵀ M ξ_{k−1}: Newton with an FD Jacobian
      for (int it = 0; it < 40; ++it) {
        const V3 R = SE2::dtau_inv(r, h * xi).transpose() * (M * xi) - mu_prev;
        if (R.lpNorm<Eigen::Infinity>() < 1e-15) break;
        M3 Jac;
        for (int j = 0; j < 3; ++j) {
          const double e = 1e-7;
          const V3 xp = xi + e * V3::Unit(j), xm = xi - e * V3::Unit(j);
          Jac.col(j) = (SE2::dtau_inv(r, h * xp).transpose() * (M * xp) - SE2::dtau_inv(r, h * xm).transpose() * (M * xm)) / (2 * e);
        }
        xi -= Jac.lu().solve(R);
      }
      const V3 mu_k = SE2::dtau_inv(r, h * xi).transpose() * (M * xi);
      const V3 spatial = SE2::Ad(SE2::inverse(g)).transpose() * mu_k;  // Ad_{g_k⁻¹}ᵀ (dτ⁻¹)ᵀ M ξ_k
      if (k == 0) pi0 = spatial;
      worst = std::max(worst, (spatial - pi0).lpNorm<Eigen::Infinity>());
      g = g * SE2::retract(r, h * xi);
      mu_prev = SE2::dtau_inv(r, -h * xi).transpose() * (M * xi);
    }
    INFO("retraction " << (r == Retraction::Exp ? "exp" : "cay") << ": spatial momentum drift " << worst);
    CHECK(worst < 1e-12);  // spec 001 claim 6 (repro ≈1e-14)
  }
}
