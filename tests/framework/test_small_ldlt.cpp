// SmallLdlt (math/small_ldlt.hpp), the fixed-size LDLᵀ the compiled M(q) field factorises with,
// against Eigen's LLT on random symmetric positive definite matrices, and its refusal of matrices
// that are not positive definite.
#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <catch2/catch.hpp>
#include <cmath>
#include <dalembert/math/small_ldlt.hpp>
#include <limits>
#include <random>

using namespace dalembert;

namespace {

/// BᵀB + δI with B random: symmetric positive definite, condition number ~ 1/δ at most.
template <int N>
Eigen::Matrix<double, N, N> random_spd(std::mt19937_64& rng, double delta) {
  std::normal_distribution<double> normal;
  Eigen::Matrix<double, N, N> B;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) B(i, j) = normal(rng);
  return B.transpose() * B + delta * Eigen::Matrix<double, N, N>::Identity();
}

template <int N>
void check_against_eigen(std::mt19937_64& rng) {
  using Mat = Eigen::Matrix<double, N, N>;
  using Vec = Eigen::Matrix<double, N, 1>;
  double worst = 0.0;
  for (int trial = 0; trial < 200; ++trial) {
    const Mat M = random_spd<N>(rng, 0.1);
    const Vec b = Vec::Random();
    SmallLdlt<N> ldlt{};
    REQUIRE(ldlt.factor(M));
    Vec x = b;
    ldlt.solve(x);
    const Vec x_eigen = Eigen::LLT<Mat>(M).solve(b);
    // Both are backward stable: they agree to the condition number times the unit round-off.
    const double cond = [&] {
      const Eigen::SelfAdjointEigenSolver<Mat> eig(M);
      return eig.eigenvalues().maxCoeff() / eig.eigenvalues().minCoeff();
    }();
    worst = std::max(worst, (x - x_eigen).norm() / x_eigen.norm() / cond);
    // The split form the field uses: L⁻ᵀ D⁻¹ L⁻¹ b, step by step, is the same solve.
    Vec y = b;
    ldlt.forward(y);
    for (int i = 0; i < N; ++i) y[i] *= ldlt.inverse_pivot(i);
    ldlt.backward(y);
    CHECK(y == x);
  }
  INFO("N = " << N << ": worst |x − x_Eigen| / |x| / cond(M) " << worst);
  CHECK(worst < 1e-14);
}

}  // namespace

TEST_CASE("SmallLdlt solves as Eigen's LLT does, sizes 1 to 8", "[framework][small_ldlt]") {
  std::mt19937_64 rng(32);
  check_against_eigen<1>(rng);
  check_against_eigen<2>(rng);
  check_against_eigen<3>(rng);
  check_against_eigen<5>(rng);
  check_against_eigen<8>(rng);
}

TEST_CASE("SmallLdlt: M⁻¹M = I, and L⁻¹ has a unit diagonal", "[framework][small_ldlt]") {
  std::mt19937_64 rng(5);
  const Eigen::Matrix<double, 5, 5> M = random_spd<5>(rng, 0.5);
  SmallLdlt<5> ldlt{};
  REQUIRE(ldlt.factor(M));
  // M⁻¹M = I to round-off, column by column.
  Eigen::Matrix<double, 5, 5> X = M;
  for (int j = 0; j < 5; ++j) ldlt.solve(X.col(j));
  CHECK((X - Eigen::Matrix<double, 5, 5>::Identity()).cwiseAbs().maxCoeff() < 1e-13);
  Eigen::Matrix<double, 5, 1> e = Eigen::Matrix<double, 5, 1>::Unit(4);
  ldlt.forward(e);
  CHECK(e[4] == 1.0);  // the last row of a unit lower triangular inverse has 1 on the diagonal
}

TEST_CASE("SmallLdlt refuses a matrix that is not positive definite", "[framework][small_ldlt]") {
  SmallLdlt<2> ldlt{};
  Eigen::Matrix2d M;
  M << 1.0, 1.0, 1.0, 1.0;  // singular: d₂ = 0
  CHECK_FALSE(ldlt.factor(M));
  M << 1.0, 2.0, 2.0, 1.0;  // indefinite: d₂ = −3
  CHECK_FALSE(ldlt.factor(M));
  M << -1.0, 0.0, 0.0, 1.0;  // negative first pivot
  CHECK_FALSE(ldlt.factor(M));
  M << 1.0, 0.0, 0.0, std::numeric_limits<double>::quiet_NaN();
  CHECK_FALSE(ldlt.factor(M));
  M << 4.0, 2.0, 2.0, 3.0;  // d = (4, 2): accepted, and the solve is exact here
  REQUIRE(ldlt.factor(M));
  Eigen::Vector2d x(7.0, 6.5);  // M (1, 1.5)
  ldlt.solve(x);
  CHECK(x[0] == Approx(1.0).epsilon(1e-15));
  CHECK(x[1] == Approx(1.5).epsilon(1e-15));
}
