// The two models of each seed-001 system describe the same mechanics (spec 001 §2.0–2.2): the
// LieGroupModel's coordinate mass and regular basis of D agree with the ConstrainedLagrangian's
// M and rows μ, and the constrained accelerations agree (full multiplier field vs basis form).
#include <catch2/catch.hpp>
#include <dalembert/core/nonholonomic_field.hpp>
#include <random>

#include "lie_support.hpp"

using namespace dalembert;

TEST_CASE("LieGroupModel and ConstrainedLagrangian agree on sleigh and snakeboard", "[lie_group][models]") {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1.2, 1.2);
  for (const char* name : {"chaplygin_sleigh", "snakeboard"}) {
    auto sys = test::registry().make_system(name, nullptr, "test");
    const auto& cl = dynamic_cast<const ConstrainedLagrangian&>(*sys);
    const auto& lm = dynamic_cast<const LieGroupModel&>(*sys);
    const int n = cl.dof(), k = lm.shape_dim() + lm.num_symmetry_directions();
    REQUIRE(lm.reduced_dim() == n);
    NonholonomicVectorField field;
    field.bind(cl);
    QuasiVelocityField reduced;
    reduced.bind(lm);
    for (int trial = 0; trial < 20; ++trial) {
      Vec q(n), w(k), v(n), qd(n), vd(n), acc(n), qd2(n), wd(k);
      for (int i = 0; i < n; ++i) q[i] = u(rng);
      for (int i = 0; i < k; ++i) w[i] = u(rng);
      Mat Bm(n, k), Mm(n, n);
      lie::distribution_basis(lm, q, Bm);
      lie::coordinate_mass(lm, q, Mm);
      CHECK((Mm - test::mass_of(*sys, q)).lpNorm<Eigen::Infinity>() < 1e-14);
      CHECK((test::constraints_of(*sys, q) * Bm).lpNorm<Eigen::Infinity>() < 1e-14);  // B_D spans ker μ
      v = Bm * w;
      const double t = 0.3 * trial;
      field.evaluate(t, q, v, qd, vd);
      lie::constrained_acceleration(lm, t, q, v, acc);
      INFO(name << ": acceleration mismatch " << (vd - acc).lpNorm<Eigen::Infinity>());
      CHECK((vd - acc).lpNorm<Eigen::Infinity>() < 1e-8);  // DB_D by central differences
      reduced.evaluate(t, q, w, qd2, wd);
      CHECK((qd2 - v).lpNorm<Eigen::Infinity>() < 1e-14);
      // the M-orthogonal quasi-velocity of an admissible v recovers w
      Vec wq(k);
      reduced.quasi_velocity(q, v, wq);
      CHECK((wq - w).lpNorm<Eigen::Infinity>() < 1e-12);
    }
  }
}
