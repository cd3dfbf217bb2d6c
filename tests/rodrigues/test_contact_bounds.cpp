// Issue 26: the Hertz contact's neighbour search (dalembert_plugins/rigid_potentials.hpp) on the states of a run
// that blew up. Every size it computes from the positions is bounded, and a state it cannot hold
// is a StepFailure with a message (the run then fails at that step), never a crash or a library
// text. Before: a NaN position of a body other than the first slipped past the finiteness check
// (min/max skip a NaN) and indexed the cell grid at INT_MIN (SIGSEGV); a spread of 1e11 overflowed
// the int cell counts ("cannot create std::vector larger than max_size()" from the shipped torus at
// h = 0.05); bodies collapsed onto one point filled a pair list of n²/2 entries.
#include <catch2/catch.hpp>
#include <cmath>
#include <dalembert/core/errors.hpp>
#include <dalembert_plugins/rigid_potentials.hpp>
#include <limits>
#include <nlohmann/json.hpp>
#include <vector>

#include "cli_support.hpp"  // tests/

using namespace dalembert;

namespace {

// A row of n unit-diameter spheres, 0.9 apart (each overlaps its neighbours by 0.1).
std::vector<Vec3> row(int n) {
  std::vector<Vec3> x;
  for (int i = 0; i < n; ++i) x.emplace_back(0.9 * i, 0.0, 0.0);
  return x;
}

struct Evaluation {
  double U = 0.0;
  std::vector<Vec3> F;
};

Evaluation evaluate(rigid::HertzContact& c, const std::vector<Vec3>& x) {
  Evaluation e;
  e.F.assign(x.size(), Vec3::Zero());
  std::vector<Vec3> T(x.size(), Vec3::Zero());
  c.evaluate(x.data(), nullptr, e.F.data(), T.data(), &e.U);
  return e;
}

rigid::HertzContact contact(std::size_t n) { return rigid::HertzContact(std::vector<double>(n, 0.5), 100.0, 0.5); }

}  // namespace

TEST_CASE("contact search: a non-finite position of any body is a StepFailure", "[rodrigues][contact]") {
  for (const double bad : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    auto c = contact(10);
    auto x = row(10);
    x[5].y() = bad;
    INFO("x[5].y = " << bad);
    CHECK_THROWS_AS(evaluate(c, x), StepFailure);
    CHECK_THROWS_WITH(evaluate(c, x), Catch::Contains("non-finite") && Catch::Contains("the run blew up"));
    // The failed search leaves nothing behind: the next state is searched afresh.
    const Evaluation fine = evaluate(c, row(10));
    CHECK(fine.U > 0.0);
  }
}

TEST_CASE("contact search: bodies spread over 10^11 diameters are searched exactly", "[rodrigues][contact]") {
  // ext/cut ≈ 7e10 > INT_MAX: the cell counts are computed in double. One body far away changes
  // nothing: the energy and forces of the row are those without it (identical: the same pairs).
  auto near = contact(10), spread = contact(11);
  auto x = row(10);
  const Evaluation a = evaluate(near, x);
  x.emplace_back(1e11, -3e10, 2e10);
  const Evaluation b = evaluate(spread, x);
  CHECK(b.U == a.U);
  for (int i = 0; i < 10; ++i) CHECK(b.F[i] == a.F[i]);
  CHECK(b.F[10] == Vec3::Zero());
  CHECK(spread.pair_count() == 9);
}

TEST_CASE("contact search: bodies collapsed onto each other are a StepFailure, not n^2/2 pairs", "[rodrigues][contact]") {
  // 2000 bodies within 1e-3 of one point: 1 999 000 pairs, beyond max(64 n, 10^6). A packing of
  // equal spheres has about 9 pairs per body within the cut-off, so this is a run that blew up.
  const int n = 2000;
  auto c = contact(n);
  std::vector<Vec3> x;
  for (int i = 0; i < n; ++i) x.emplace_back(1e-3 * std::sin(i), 1e-3 * std::cos(3.0 * i), 1e-3 * std::sin(7.0 * i));
  CHECK_THROWS_WITH(evaluate(c, x), Catch::Contains("more than 1000000 pairs of 2000 bodies") &&
                                        Catch::Contains("collapsed onto each other"));
  CHECK(c.pair_count() == 0);
  // A dense but physical state of as many bodies still fits.
  auto dense = contact(n);
  std::vector<Vec3> lattice;
  for (int i = 0; i < n; ++i) lattice.emplace_back(0.95 * (i % 13), 0.95 * ((i / 13) % 13), 0.95 * (i / 169));
  CHECK_NOTHROW(evaluate(dense, lattice));
  CHECK(dense.pair_count() < 64u * n);
}

TEST_CASE("the shipped torus at h = 0.05 fails at the step it blows up, with a message", "[rodrigues][contact][cli]") {
  // Before: "error: ...: /integrators/0 [R25, h = 0.05]: cannot create std::vector larger than max_size()".
  nlohmann::json study = nlohmann::json::parse(test::read_text(DALEMBERT_SOURCE_DIR "/studies/rodrigues/fig3_torus.json"));
  study["h"] = 0.05;
  study["T"] = 5;
  study.erase("figures");
  study.erase("claims");
  test::StudyCase c("torus_h005");
  const auto r = c.run(study);
  test::check_one_line_error(r, {c.file.string() + ": /integrators/0 [R25, h = 0.05]: integrator 'rodrigues_25' failed at step",
                                 "contact neighbour search", "the run blew up; reduce h"});
  CHECK(r.err.find("max_size") == std::string::npos);
  c.check_failed_folder("the run blew up");
}
