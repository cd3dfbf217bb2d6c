// IncrementExtrapolation (schemes/increment_extrapolation.hpp): the guess of the next increment
// from the last m ones, the guess of dla/mla's kept-Jacobian Newton on M(q) (issue 28 item 6).
// Independent references: the increments of a polynomial motion of degree ≤ m are extrapolated
// exactly (the m-th backward difference of a polynomial of degree < m vanishes), one degree more
// is not; on q(t) = exp t (no derivative vanishes) the error shrinks like h^{m+1} (fitted from a
// ladder of h).
#include <catch2/catch.hpp>
#include <cmath>
#include <dalembert/schemes/increment_extrapolation.hpp>
#include <vector>

namespace {

using dalembert::IncrementExtrapolation;
using Vec = Eigen::VectorXd;

/// Feed the increments of q(t_k), t_k = (k − (m + 1)/2) h, k = 0..m, and return
/// |guess − (q(t_{m+1}) − q(t_m))|: the stencil is centred on t = 0 for every h, so the error is
/// h^{m+1} q^{(m+1)}(0) (1 + O(h²)).
template <class F>
double extrapolation_error(F&& q, int m, double h) {
  IncrementExtrapolation<Vec> ex;
  ex.resize(1, m);
  auto t = [m, h](int k) { return (k - 0.5 * (m + 1)) * h; };
  for (int k = 0; k < m; ++k) ex.push(Vec::Constant(1, q(t(k + 1)) - q(t(k))));
  REQUIRE(ex.available() == m);
  Vec u(1);
  ex.guess(u);
  return std::abs(u[0] - (q(t(m + 1)) - q(t(m))));
}

}  // namespace

TEST_CASE("increment extrapolation of order m is exact on polynomials of degree m, not m + 1") {
  for (int m = 1; m <= IncrementExtrapolation<Vec>::kMaxOrder; ++m) {
    auto poly = [](int degree) {
      return [degree](double t) {
        double p = 0.0;
        for (int j = 0; j <= degree; ++j) p += std::pow(t - 0.3, j) / (1.0 + j);
        return p;
      };
    };
    INFO("order " << m);
    // round-off: Σ_j C(m, j) = 2^m − 1 increments of size ~1, each with an ulp
    CHECK(extrapolation_error(poly(m), m, 0.1) < (1 << m) * 1e-15);
    CHECK(extrapolation_error(poly(m + 1), m, 0.1) > 1e-6);
  }
}

TEST_CASE("increment extrapolation error on exp t converges at order m + 1") {
  for (int m = 2; m <= 5; ++m) {
    std::vector<double> hs = {0.1, 0.05, 0.025}, errors;
    for (double h : hs) errors.push_back(extrapolation_error([](double t) { return std::exp(t); }, m, h));
    const double slope = std::log(errors.front() / errors.back()) / std::log(hs.front() / hs.back());
    INFO("order " << m << ": fitted " << slope);
    CHECK(std::abs(slope - (m + 1)) < 0.1);
  }
}

TEST_CASE("increment extrapolation keeps the newest increments and forgets on reset") {
  IncrementExtrapolation<Vec> ex;
  ex.resize(2, 2);
  CHECK(ex.available() == 0);
  for (int k = 0; k < 9; ++k) ex.push(Vec::Constant(2, 1.0 * k));  // ring wraps past kMaxOrder
  CHECK(ex.available() == 2);
  Vec u(2);
  ex.guess(u);
  CHECK(u[0] == 9.0);  // 2·8 − 7: the linear continuation of the last two
  ex.reset();
  CHECK(ex.available() == 0);
}
