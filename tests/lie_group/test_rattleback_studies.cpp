// The rattleback's studies (studies/rattleback/, issue 29 item 3): every claim they state holds,
// each named claim exactly once. The claims' reference numbers are independent of the plugin: the
// reversal times come from a Newton–Euler integration (studies/rattleback/newton_euler_reference.py,
// SciPy DOP853), the orders are the schemes' declared ones.
#include <catch2/catch.hpp>

#include "claims_support.hpp"
#include "support.hpp"

using namespace dalembert;

TEST_CASE("rattleback studies: the spin reverses, at the reference's time, again and again, energy and |p| kept",
          "[lie_group][rattleback][studies]") {
  const test::TempDir dir("rattleback");
  test::require_claims(test::run_bundled_study("studies/rattleback/reversal_rattleback.json", dir / "run"), 41,
                       {"DLA reverses", "MLA reverses", "RK4 reverses", "DLA first reversal", "MLA first reversal",
                        "RK4 first reversal", "DLA reversal time agrees with RK4", "MLA reversal time agrees with RK4",
                        "DLA spin max 51-60", "RK4 spin max 51-60", "DLA energy", "DLA unit quaternion", "MLA unit quaternion",
                        "RKMK4 first reversal", "RKMK4 spin max 51-60", "RKMK4 unit quaternion", "RKMK4 energy"});
}

TEST_CASE("rattleback studies: negative spins reverse within 10 s, positive ones do not", "[lie_group][rattleback][studies]") {
  const test::TempDir dir("rattleback");
  test::require_claims(test::run_bundled_study("studies/rattleback/sweep_spin_rattleback.json", dir / "run"), 32,
                       {"DLA reverses at spin -1", "DLA reverses at spin -10", "DLA keeps spin 1", "DLA keeps spin 10",
                        "RK4 reverses at spin -1", "RK4 keeps spin 10"});
}

TEST_CASE("rattleback studies: DLA and MLA converge with order 2, RK4 with order 4", "[lie_group][rattleback][studies]") {
  const test::TempDir dir("rattleback");
  test::require_claims(test::run_bundled_study("studies/rattleback/convergence_rattleback.json", dir / "run"), 4,
                       {"order DLA 2", "order MLA 2", "order RK4 4", "order RKMK4 4"});
}
