// FixedLagrangianSystem::kinetic_hessian with mass_coordinates listed (issue 32 item 1): the Newton
// Jacobians of DLA and MLA need H = ½∂²_q(vᵀM(q)v), by differences of AD's kinetic gradient; a model
// that lists the m coordinates its M(q) depends on gets m columns differenced instead of n. The
// reference is ConstrainedLagrangian's default, which differences all n columns of the same gradient:
// equal on the listed columns, zero elsewhere (where the default leaves the round-off of differencing
// identical values), on the three shipped systems that list them.
#include <algorithm>
#include <catch2/catch.hpp>
#include <dalembert/core/constrained_lagrangian.hpp>
#include <random>

#include "support.hpp"

using namespace dalembert;

TEST_CASE("the kinetic Hessian along mass_coordinates is the all-column difference", "[configuration_mass]") {
  struct Case {
    const char* system;
    std::vector<int> unlisted;  // coordinates M(q) does not depend on
  };
  for (const Case& c : {Case{"rolling_disk", {0, 1, 4}}, Case{"chaplygin_sphere", {0, 1, 2}},
                        Case{"whipple_bicycle", {0, 1, 6, 7}}}) {
    INFO(c.system);
    auto sys = test::registry().make_system(c.system, nullptr, "test");
    const auto* model = dynamic_cast<const ConstrainedLagrangian*>(sys.get());
    REQUIRE(model != nullptr);
    const int n = model->dof();
    std::mt19937_64 rng(32);
    std::uniform_real_distribution<double> angle(0.3, 1.2), rate(-2.0, 2.0);
    for (int trial = 0; trial < 10; ++trial) {
      Vec q(n), v(n);
      for (int i = 0; i < n; ++i) {
        q[i] = angle(rng);  // away from the Euler angles' singularity (the sphere: sin θ = 0)
        v[i] = rate(rng);
      }
      Mat H_listed(n, n), H_all(n, n);
      model->kinetic_hessian(q, v, H_listed);
      model->ConstrainedLagrangian::kinetic_hessian(q, v, H_all);
      Vec k(n);
      model->kinetic_gradient(q, v, k);
      const double scale = 1.0 + H_all.cwiseAbs().maxCoeff();
      // The default's unlisted columns are differences of identical values of k: not exactly zero,
      // the weights' round-off, |k| ε / d with d = 1e-3 (measured up to 3e-11 on the bicycle).
      const double residue = 1e-11 * (1.0 + k.cwiseAbs().maxCoeff());
      double listed_difference = 0.0, unlisted_residue = 0.0;
      for (int j = 0; j < n; ++j) {
        const bool unlisted = std::find(c.unlisted.begin(), c.unlisted.end(), j) != c.unlisted.end();
        const double d = (H_listed.col(j) - H_all.col(j)).cwiseAbs().maxCoeff();
        (unlisted ? unlisted_residue : listed_difference) = std::max(unlisted ? unlisted_residue : listed_difference, d);
      }
      INFO("listed columns: max |H_listed - H_all| " << listed_difference << " (scale " << scale
                                                      << "); unlisted: " << unlisted_residue << " (bound " << residue << ")");
      CHECK(listed_difference < 1e-13 * scale);  // the same differences of the same gradient
      CHECK(unlisted_residue < residue);
      CHECK(H_listed.cwiseAbs().maxCoeff() > 1e-3);  // not vacuous: M(q) does depend on q
      for (int j : c.unlisted) {
        CHECK(H_listed.col(j).isZero(0.0));
        CHECK(H_listed.row(j).isZero(0.0));
      }
      // A Hessian is symmetric: the differenced columns agree with the rows to the differences' error.
      CHECK((H_listed - H_listed.transpose()).cwiseAbs().maxCoeff() < 1e-8 * scale);
    }
  }
}
