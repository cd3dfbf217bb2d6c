#include <catch2/catch.hpp>
#include <cmath>
#include <dalembert/core/constrained_lagrangian.hpp>
#include <dalembert/core/nonholonomic_field.hpp>

#include "support.hpp"

using namespace dalembert;

TEST_CASE("vector field of the nonholonomic particle matches spec 000 §2.1", "[framework][field]") {
  auto sys = test::registry().make_system("nonholonomic_particle", nullptr, "test");
  const auto& model = dynamic_cast<const ConstrainedLagrangian&>(*sys);
  NonholonomicVectorField f;
  f.bind(model);
  const State s = test::make_state({0.3, 0.7, -0.2}, {1.1, -0.4, 0.7 * 1.1});
  Vec qd(3), vd(3);
  f.evaluate(0.0, s.q, s.v, qd, vd);
  const double x = s.v[0], y = s.q[1], yd = s.v[1];
  const double lambda = x * yd / (1 + y * y);  // λ = ẋẏ/(1+y²)
  CHECK(f.multiplier()[0] == Approx(lambda).epsilon(1e-15));
  CHECK(vd[0] == Approx(-y * lambda).epsilon(1e-15));
  CHECK(vd[1] == 0.0);
  CHECK(vd[2] == Approx(lambda).epsilon(1e-15));
  CHECK((qd - s.v).norm() == 0.0);
}
