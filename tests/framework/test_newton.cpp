// The Newton solver (schemes/newton.hpp): spec 000 §3.2 item 5 stopping rule, checked with the
// simplified-Newton estimate of the next step; dynamic and fixed-size instantiations.
#include <catch2/catch.hpp>
#include <cmath>
#include <dalembert/schemes/newton.hpp>

using namespace dalembert;

TEST_CASE("Newton: an affine system is solved in one iteration", "[framework][newton]") {
  Eigen::Matrix3d M;
  M << 4, 1, 0, 1, 3, -1, 0, -1, 2;
  const Eigen::Vector3d b(1.0, -2.0, 0.5);
  NewtonSolverT<Eigen::Vector3d, Eigen::Matrix3d> newton;
  Eigen::Vector3d u(10.0, 10.0, 10.0);
  const auto rep = newton.solve([&](const Eigen::Vector3d& x, Eigen::Vector3d& R) { R = M * x - b; },
                                [&](const Eigen::Vector3d&, Eigen::Matrix3d& J) { J = M; }, u, NewtonOptions{});
  CHECK(rep.iterations == 1);
  CHECK((M * u - b).lpNorm<Eigen::Infinity>() <= 1e-14);
  CHECK(rep.step_norm <= 1e-13 * (1.0 + u.lpNorm<Eigen::Infinity>()));
}

TEST_CASE("Newton: quadratic convergence on a nonlinear system, dynamic sizes", "[framework][newton]") {
  // R(x, y) = (x² + y² − 4, x − y): root (√2, √2).
  NewtonSolver newton;
  newton.resize(2);
  Eigen::VectorXd u(2);
  u << 3.0, 1.0;
  int residuals = 0;
  const auto rep = newton.solve(
      [&](const Eigen::VectorXd& x, Eigen::VectorXd& R) {
        ++residuals;
        R << x[0] * x[0] + x[1] * x[1] - 4.0, x[0] - x[1];
      },
      [](const Eigen::VectorXd& x, Eigen::MatrixXd& J) { J << 2 * x[0], 2 * x[1], 1.0, -1.0; }, u, NewtonOptions{});
  CHECK(std::abs(u[0] - std::sqrt(2.0)) <= 1e-15);
  CHECK(std::abs(u[1] - std::sqrt(2.0)) <= 1e-15);
  CHECK(rep.iterations >= 3);
  CHECK(rep.iterations <= 6);
  CHECK(residuals == rep.iterations + 1);  // one residual per iteration, plus the initial one
  CHECK_FALSE(rep.stagnated);
}

TEST_CASE("Newton: too few iterations throw StepFailure naming the count", "[framework][newton]") {
  NewtonSolverT<Eigen::Matrix<double, 1, 1>, Eigen::Matrix<double, 1, 1>> newton;
  Eigen::Matrix<double, 1, 1> u(5.0);
  NewtonOptions opt;
  opt.max_iterations = 2;
  try {
    newton.solve([](const auto& x, auto& R) { R[0] = std::exp(x[0]) - 2.0; },
                 [](const auto& x, auto& J) { J(0, 0) = std::exp(x[0]); }, u, opt);
    FAIL("expected StepFailure");
  } catch (const StepFailure& e) {
    CHECK(std::string(e.what()).find("did not converge in 2 iterations") != std::string::npos);
  }
}

TEST_CASE("SmallLU solves like Eigen's PartialPivLU, and flags a singular matrix", "[framework][newton]") {
  std::srand(7);
  for (int n : {2, 3, 5, 7, 12}) {
    INFO("n = " << n);
    Eigen::MatrixXd J = Eigen::MatrixXd::Random(n, n);
    J(0, 0) = 0.0;  // forces a row exchange
    const Eigen::VectorXd b = Eigen::VectorXd::Random(n);
    SmallLU<Eigen::MatrixXd> lu;
    lu.resize(n);
    lu.compute(J);
    Eigen::VectorXd x(n);
    lu.solve(b, x);
    const Eigen::VectorXd reference = J.partialPivLu().solve(b);
    CHECK((J * x - b).lpNorm<Eigen::Infinity>() <= 1e-12 * (1.0 + J.lpNorm<Eigen::Infinity>() * x.lpNorm<Eigen::Infinity>()));
    CHECK((x - reference).lpNorm<Eigen::Infinity>() <= 1e-10 * (1.0 + reference.lpNorm<Eigen::Infinity>()));
  }
  Eigen::Matrix3d S;
  S << 1, 2, 3, 2, 4, 6, 0, 1, 1;  // rank 2
  SmallLU<Eigen::Matrix3d> lu;
  lu.compute(S);
  Eigen::Vector3d x;
  lu.solve(Eigen::Vector3d(1, 2, 3), x);
  CHECK_FALSE(x.allFinite());
}
