// The linear_stability study kind (issue 28 item 4) and what it is made of: Brent's root finder,
// the Hungarian matching of eigenvalue branches, the exact deflation of structural zeros, the
// framework's linearisation of an L-and-A model (core/model_linearisation.hpp) through the
// Linearizable model, the branch tracking and critical values, and the disk's study end to end.
// Independent numbers: the rolling disk's closed-form linearisation and eigenvalues for any inertia
// (plugins/systems/rolling_disk/README.md, "Stability of upright rolling"; Neimark & Fufaev;
// O'Reilly 1996) and the Whipple bicycle's published critical speeds and Table 2 (Meijaard et al.
// 2007; ../shared/references/whipple_bicycle.md), the latter computed from the model header alone
// (its plugin is another item of issue 28).
#include <catch2/catch.hpp>
#include <cmath>
#include <complex>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/linearizable.hpp>
#include <dalembert/core/model_linearisation.hpp>
#include <dalembert/math/bracketed_root.hpp>
#include <dalembert/study/eigenvalue_branches.hpp>
#include <dalembert/study/study.hpp>
#include <fstream>
#include <iomanip>
#include <limits>
#include <numbers>
#include <sstream>

#include "claims_support.hpp"
#include "support.hpp"
#include "temp_dir.hpp"
#include "whipple_bicycle/whipple_model.hpp"

using namespace dalembert;
using nlohmann::json;

namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();

std::string read_all(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The rolling disk's parameters and its closed-form linearisation about upright rolling at speed
/// v (README "Stability of upright rolling": I_d φ̈ + I_a ω θ̇ = 0, (mR² + I_d) θ̈ − (mR² + I_a) ω φ̇ −
/// m g R θ = 0, ψ̈ = 0 at first order, ω = v/R), in y = (θ, θ̇, φ̇, ψ̇).
struct Disk {
  double R, m, g, Id, Ia;
  json params() const { return {{"R", R}, {"m", m}, {"g", g}, {"I_d", Id}, {"I_a", Ia}}; }
  Mat state(double v) const {
    const double w = v / R, k = m * R * R + Id;
    Mat J = Mat::Zero(4, 4);
    J(0, 1) = 1.0;
    J(1, 0) = m * g * R / k;
    J(1, 2) = (m * R * R + Ia) * w / k;
    J(2, 1) = -Ia * w / Id;
    return J;
  }
  /// λ² of the tilt pair: [m g R − I_a (I_a + m R²) ω² / I_d] / (m R² + I_d).
  double lambda2(double v) const {
    const double w = v / R;
    return (m * g * R - Ia * (Ia + m * R * R) * w * w / Id) / (m * R * R + Id);
  }
  /// The critical speed, where λ² = 0: v_c = R sqrt(I_d m g R / (I_a (I_a + m R²))).
  double critical() const { return R * std::sqrt(Id * m * g * R / (Ia * (Ia + m * R * R))); }
};

using Bicycle = whipple::WhippleBicycleModel;
using Vec8 = Eigen::Matrix<double, 8, 1>;

/// The bicycle's linearisation at speed v, from its declared family.
Linearisation bicycle_at(const Bicycle& b, double v) {
  Vec8 q, qd;
  b.steady_state(v, q, qd);
  return linearisation::linearise(b, q, qd, b.steady_family().variables);
}

std::vector<double> grid(double from, double to, int steps) {
  std::vector<double> g;
  for (int k = 0; k <= steps; ++k) g.push_back(from + (to - from) * k / steps);
  return g;
}

json stability_study(const json& system, const json& parameter) {
  return {{"name", "stability_test"}, {"kind", "linear_stability"}, {"system", system}, {"parameter", parameter}};
}

}  // namespace

TEST_CASE("bracketed_root: Brent's method reaches a bracket of a few ulps", "[linear_stability]") {
  const auto r = bracketed_root([](double x) { return x * x - 2.0; }, 1.0, 2.0);
  CHECK(std::abs(r.x - std::numbers::sqrt2) <= 2 * kEps * std::numbers::sqrt2);
  CHECK(r.bracket <= 4 * kEps * 2.0);
  CHECK(r.evaluations < 15);  // superlinear: bisection alone needs ~52
  const auto c = bracketed_root([](double x) { return std::cos(x) - x; }, 0.0, 1.0);
  CHECK(std::abs(std::cos(c.x) - c.x) <= 2 * kEps);
  // A root at an end, and a bracket without a sign change.
  CHECK(bracketed_root([](double x) { return x - 1.0; }, 1.0, 3.0).x == 1.0);
  CHECK_THROWS_AS(bracketed_root([](double x) { return x * x + 1.0; }, -1.0, 1.0), std::invalid_argument);
}

TEST_CASE("match_branches: the assignment of least total distance, not the greedy one", "[linear_stability]") {
  // Greedy matching takes the closest pair first (0.5 ~ 0.4, distance 0.1) and leaves 0 ~ 1.5 (1.5):
  // total 1.6; the optimum keeps 0 ~ 0.4 and 0.5 ~ 1.5 (total 1.4).
  const std::vector<int> m = match_branches({0.0, 0.5}, {0.4, 1.5});
  CHECK(m == std::vector<int>{0, 1});
  // A permuted spectrum with a conjugate pair is put back in branch order.
  const Spectrum predicted = {{-3.0, 0.0}, {1.0, 2.0}, {1.0, -2.0}, {4.0, 0.0}};
  const Spectrum values = {{1.01, -1.98}, {4.02, 0.0}, {-2.99, 0.0}, {0.99, 2.01}};
  CHECK(match_branches(predicted, values) == std::vector<int>{2, 3, 0, 1});
}

TEST_CASE("deflated_eigenvalues: structural zeros leave no Jordan block behind", "[linear_stability]") {
  // The disk's (θ, θ̇, φ̇, ψ̇) matrix at and just below its critical speed: eigenvalues 0, 0
  // (structural) and ±a, a² = Λ. At v_c the block of (θ, θ̇, φ̇) is nilpotent (a Jordan block of
  // size 3): a plain eigensolver returns eigenvalues of size eps^(1/3) ~ 1e-8 there, complex, with
  // real parts of either sign. Deflated, the pair is a 2 x 2 problem whose discriminant
  // (λ1 − λ2)² = 4Λ — what the critical value is found on — is right to ~eps.
  const Disk d{1.0, 1.0, 1.0, 0.25, 0.5};
  for (double below : {0.0, 1e-13, 1e-9}) {
    const double v = d.critical() - below;
    INFO("v = v_c - " << below);
    const Mat J = d.state(v);
    CHECK(nullity(J) == 2);
    const Spectrum s = deflated_eigenvalues(J, 2);
    REQUIRE(s.size() == 2);
    const std::complex<double> disc = (s[0] - s[1]) * (s[0] - s[1]);
    INFO("deflated " << s[0] << " " << s[1] << ", Lambda = " << d.lambda2(v));
    CHECK(std::abs(disc.real() / 4 - d.lambda2(v)) <= 2e-16);  // Λ itself is rounded to ~1e-16
    CHECK(std::abs(s[0] + s[1]) <= 1e-15);                     // the pair stays symmetric
  }
  // The plain eigensolver at v_c: eigenvalues of size ~1e-8 and real parts far from 0.
  const Eigen::EigenSolver<Mat> plain(d.state(d.critical()), false);
  double largest = 0.0;
  for (Eigen::Index i = 0; i < 4; ++i) largest = std::max(largest, std::abs(plain.eigenvalues()[i].real()));
  INFO("plain eigensolver at v_c: " << plain.eigenvalues().transpose());
  CHECK(largest > 1e-10);
  CHECK(std::abs(deflated_eigenvalues(d.state(d.critical()), 2)[0]) <= 1e-15);
}

TEST_CASE("rolling_disk: the framework's linearisation is the closed form, for any inertia", "[linear_stability]") {
  // Not the uniform disk (I_d = m R²/4, I_a = m R²/2): a ring-like one, and physical units.
  const Disk d{0.3, 2.0, 9.81, 0.06, 0.1};
  const auto system = test::registry().make_system("rolling_disk", d.params(), "test");
  const auto* lin = dynamic_cast<const Linearizable*>(system.get());
  REQUIRE(lin);
  const SteadyMotionFamily f = lin->steady_family();
  CHECK(f.name == "upright_rolling");
  CHECK(f.parameter == "v");
  for (double v : {0.0, 0.5, d.critical(), 2.0, 5.0}) {
    INFO("v = " << v);
    State s;
    lin->steady_state(v, s);
    CHECK(system->constraint_residual(s) == 0.0);
    Linearisation out;
    lin->linearise(s, f.variables, out);
    CHECK(out.names == std::vector<std::string>{"theta", "thetadot", "phidot", "psidot"});
    CHECK(out.steady_residual <= 1e-15);
    const Mat J = d.state(v);
    REQUIRE(out.state.rows() == 4);
    // Entry by entry, relative to the largest entry: AD is exact, the closed form is rounded twice.
    CHECK((out.state - J).cwiseAbs().maxCoeff() <= 4 * kEps * J.cwiseAbs().maxCoeff());
    // λ² = Λ for both (±√Λ real, or ±i√−Λ): compared squared, which is well conditioned at v_c too.
    const Spectrum ev = deflated_eigenvalues(out.state, 2);
    const double l2 = d.lambda2(v);
    for (const auto& z : ev) CHECK(std::abs((z * z).real() - l2) <= 1e-14 * std::max(1.0, std::abs(l2)));
  }
  // The critical speed, as the study kind finds it: the branches tracked on a coarse grid, then the
  // collision located by Brent's method on the pair's discriminant.
  const SpectrumAt spectrum = [&](double v) {
    State s;
    lin->steady_state(v, s);
    Linearisation out;
    lin->linearise(s, f.variables, out);
    return deflated_eigenvalues(out.state, 2);
  };
  const auto br = track_branches(grid(0.0, 3.0, 30), spectrum);
  const auto crit = critical_values(br, spectrum);
  REQUIRE(crit.size() == 1);
  CHECK(crit[0].type == "collision");
  INFO(std::setprecision(17) << "v_c = " << crit[0].value << ", closed form " << d.critical());
  CHECK(std::abs(crit[0].value - d.critical()) <= 4 * kEps * d.critical());
  CHECK(crit[0].stable_before == 0);
  CHECK(crit[0].stable_after == 1);
  const auto ranges = stable_ranges(br, crit);
  REQUIRE(ranges.size() == 1);
  CHECK(ranges[0].first == crit[0].value);
  CHECK(ranges[0].second == 3.0);
}

TEST_CASE("whipple_bicycle: the kind's branches and critical values are Meijaard's", "[linear_stability]") {
  // The model header alone (its plugin is another item of issue 28): the same tracking and root
  // finding as the study kind, on the linearisation the model's declared family gives.
  const Bicycle b;
  REQUIRE(bicycle_at(b, 5.0).held_coupling <= 1e-13);  // the rear wheel's rate decouples
  const SpectrumAt spectrum = [&](double v) { return deflated_eigenvalues(bicycle_at(b, v).state, 0); };
  for (double v : {0.0, 3.0, 6.0}) CHECK(nullity(bicycle_at(b, v).state) == 0);  // no structural zero
  const std::vector<double> g = grid(0.0, 10.0, 100);
  const auto br = track_branches(g, spectrum);
  const auto crit = critical_values(br, spectrum);
  REQUIRE(crit.size() == 3);
  // Meijaard et al. (2007) §5 (../shared/references/whipple_bicycle.md): weave bifurcation v_d with
  // its double root, weave speed v_w with its frequency, capsize speed v_c. Published to 14
  // significant digits; the roots are found to a few ulps.
  INFO(std::setprecision(16) << "v_d = " << crit[0].value << ", v_w = " << crit[1].value << ", v_c = " << crit[2].value);
  CHECK(crit[0].type == "collision");
  CHECK(std::abs(crit[0].value - 0.68428307889246) <= 1e-12);
  CHECK(std::abs(crit[0].eigenvalue.real() - 3.78290405129320) <= 1e-12);
  CHECK(crit[0].stable_before == 0);
  CHECK(crit[0].stable_after == 0);
  CHECK(crit[1].type == "complex_crossing");
  CHECK(std::abs(crit[1].value - 4.29238253634111) <= 1e-12);
  CHECK(std::abs(crit[1].eigenvalue.imag() - 3.43503384866144) <= 1e-12);
  CHECK(crit[1].stable_before == 0);
  CHECK(crit[1].stable_after == 1);
  CHECK(crit[2].type == "real_crossing");
  CHECK(std::abs(crit[2].value - 6.02426201538837) <= 1e-12);
  CHECK(crit[2].stable_before == 1);
  CHECK(crit[2].stable_after == 0);
  for (const auto& c : crit) CHECK(c.bracket <= 8 * kEps * c.value);
  const auto ranges = stable_ranges(br, crit);
  REQUIRE(ranges.size() == 1);
  CHECK(ranges[0].first == crit[1].value);
  CHECK(ranges[0].second == crit[2].value);
  // The branches: 0 castering, 1 capsize (both real), 2 and 3 the two positive roots at v = 0 that
  // meet at v_d and continue as the weave pair (Table 2 at v = 0, 5 and 10).
  const auto at = [&](double v) { return br.at[static_cast<std::size_t>(std::lround(v * 10))]; };
  CHECK(std::abs(at(0)[0] + 5.53094371765393) <= 1e-12);
  CHECK(std::abs(at(0)[1] + 3.13164324790656) <= 1e-12);
  CHECK(std::abs(at(0)[2] - 3.13164324790656) <= 1e-12);
  CHECK(std::abs(at(0)[3] - 5.53094371765393) <= 1e-12);
  CHECK(std::abs(at(5)[0].real() + 14.07838969279820) <= 1e-12 * 14.1);
  CHECK(std::abs(at(5)[1].real() + 0.32286642900409) <= 1e-12);
  CHECK(std::abs(at(5)[2].real() + 0.77534188219585) <= 1e-12);
  CHECK(std::abs(std::abs(at(5)[2].imag()) - 4.46486771378823) <= 1e-12);
  CHECK(std::abs(at(10)[0].real() + 24.62459635017404) <= 1e-12 * 24.7);
  CHECK(std::abs(at(10)[1].real() - 0.16105338653172) <= 1e-12);
  CHECK(std::abs(at(10)[3].real() + 3.72016840437287) <= 1e-12);
  CHECK(std::abs(std::abs(at(10)[3].imag()) - 10.90681139476287) <= 1e-12);
  CHECK(at(10)[2] == std::conj(at(10)[3]));
}

TEST_CASE("linear_stability study: the rolling disk's critical speed and eigenvalues, claimed and written", "[linear_stability]") {
  const test::TempDir dir("stability_disk");
  const RunReport rep = test::run_bundled_study("studies/rolling_disk/stability_disk.json", dir / "run");
  test::require_claims(rep, 23, {"v_c", "v_c stability", "double root 0", "structural zeros", "lambda(0.25)", "omega(0.75)",
                                 "order DLA", "order RK4", "DLA neutral h=0.2", "RK4 damping h=0.2", "RK4 frequency h=0.2"});
  const json& ls = rep.manifest.at("linear_stability");
  CHECK(ls.at("dimension") == 4);
  CHECK(ls.at("structural_zeros") == 2);
  CHECK(ls.at("family").at("variables") == json({"theta", "thetadot", "phidot", "psidot"}));
  REQUIRE(ls.at("critical").size() == 1);
  CHECK(std::abs(ls["critical"][0]["value"].get<double>() - std::sqrt(1.0 / 3.0)) <= 2 * kEps);
  CHECK(ls["critical"][0]["stability"] == "unstable -> stable");
  // eigenvalues.csv: every branch at every value (241 values x 4), the structural zeros last and 0.
  const auto csv = test::read_csv(dir / "run" / "eigenvalues.csv");
  REQUIRE(csv.at("value").size() == 241 * 4);
  const Disk d{1.0, 1.0, 1.0, 0.25, 0.5};
  double worst = 0.0;
  for (std::size_t i = 0; i < csv.at("value").size(); ++i) {
    const double v = csv.at("value")[i], re = csv.at("real")[i], im = csv.at("imag")[i];
    const int b = static_cast<int>(csv.at("branch")[i]);
    if (b >= 2) {
      CHECK(re == 0.0);
      CHECK(im == 0.0);
      continue;
    }
    const double l2 = d.lambda2(v);
    worst = std::max(worst, l2 >= 0 ? std::abs(std::abs(re) - std::sqrt(l2)) : std::abs(std::abs(im) - std::sqrt(-l2)));
  }
  INFO("largest deviation from the closed form over the grid: " << worst);
  CHECK(worst <= 1e-8);  // at the grid value next to v_c (0.575, λ² ~ 7e-3) the pair is still resolved to ~1e-15/a
  // The discrete step maps at v = 0.8: RK4's is R(hJ), R its stability function, so log(μ)/h of the
  // tilt pair is log R(iωh)/h (ω² = −Λ = 0.736) at every h, recomputed here; DLA's stays on the
  // imaginary axis.
  const auto dcsv = test::read_csv(dir / "run" / "discrete_eigenvalues.csv", 1);
  const double w = std::sqrt(-d.lambda2(0.8));
  int rk4_rows = 0;
  for (std::size_t i = 0; i < dcsv.at("h").size(); ++i) {
    if (dcsv.at("branch")[i] != 0.0) continue;
    const double h = dcsv.at("h")[i];
    const std::complex<double> z(0.0, w * h);
    const std::complex<double> R = 1.0 + z + z * z / 2.0 + z * z * z / 6.0 + z * z * z * z / 24.0;
    const std::complex<double> lr = std::log(R) / h, got(dcsv.at("real")[i], dcsv.at("imag")[i]);
    // Rows are DLA, MLA, RK4 in the study's order, four step sizes each.
    if (i >= 2 * 4 * 4) {
      INFO("RK4 at h = " << h << ": " << got << " against log R(i w h)/h = " << lr);
      CHECK(std::abs(got.real() - lr.real()) <= 1e-12);
      CHECK(std::abs(std::abs(got.imag()) - lr.imag()) <= 1e-12);
      ++rk4_rows;
    } else {
      CHECK(std::abs(got.real()) <= 1e-12);
    }
  }
  CHECK(rk4_rows == 4);
  REQUIRE(rep.manifest.at("convergence").size() == 3);
  for (const auto& c : rep.manifest["convergence"]) CHECK(c.at("agrees") == true);
  const std::string report = read_all(dir / "run" / "report.md");
  CHECK_THAT(report, Catch::Contains("## Linear stability"));
  CHECK_THAT(report, Catch::Contains("### Discrete step maps at v = 0.8"));
  CHECK_THAT(report, Catch::Contains("| collision | 0.577350269189626 |"));
  CHECK_THAT(report, Catch::Contains("### Eigenvalues at the listed values"));
}

TEST_CASE("linear_stability study: the bicycle study's 73 claims hold on the whipple_bicycle plugin", "[linear_stability]") {
  // studies/bicycle/eigenvalues_bicycle.json. Its claims: the 44 eigenvalues of Meijaard's Table 2
  // (|delta| <= 1e-12, relative for the castering root) on the tracked branches, the three critical
  // speeds to 1e-12, the stable range.
  const std::string file = std::string(DALEMBERT_SOURCE_DIR) + "/studies/bicycle/eigenvalues_bicycle.json";
  json j = json::parse(read_all(file));
  REQUIRE(j["system"]["plugin"] == "whipple_bicycle");
  j.erase("figures");
  const test::TempDir dir("stability_bicycle");
  const RunReport rep = test::run_quietly(parse_study(j, file), dir / "run");
  test::require_claims(rep, 73, {"v_d", "v_d double root", "v_w", "v_w frequency", "v_c", "self-stable from v_w",
                                 "self-stable to v_c", "v=0 castering -", "v=10 castering", "v=10 weave im 3"});
  const json& ls = rep.manifest.at("linear_stability");
  CHECK(ls.at("dimension") == 4);
  CHECK(ls.at("family").at("variables") == json({"roll", "steer", "roll_rate", "steer_rate"}));
  CHECK(ls.at("family").at("dependent") == json({"pitch"}));
  CHECK(ls.at("family").at("held") == json({"rear_wheel_rate"}));
  REQUIRE(ls.at("critical").size() == 3);
  for (const auto& c : ls["critical"]) CHECK(c["bracket"].get<double>() <= 8 * kEps * c["value"].get<double>());
  CHECK(ls["critical"][1]["stability"] == "unstable -> stable");
  CHECK(ls["critical"][2]["stability"] == "stable -> unstable");
}

TEST_CASE("linear_stability study: bad input is refused before anything runs", "[linear_stability]") {
  const json disk = {{"plugin", "rolling_disk"}};
  const json range = {{"from", 0}, {"to", 1}, {"steps", 10}};
  // Keys of the simulating kinds have no use here; this kind's keys none elsewhere.
  json j = stability_study(disk, range);
  j["T"] = 1;
  CHECK_THROWS_WITH(parse_study(j, "s.json"), Catch::Contains("s.json: /T") && Catch::Contains("has no use here"));
  j = stability_study(disk, range);
  j["integrators"] = json::array({"rk4"});
  CHECK_THROWS_WITH(parse_study(j, "s.json"), Catch::Contains("s.json: /integrators") && Catch::Contains("go together"));
  j["discrete"] = {{"at", 0.5}, {"h", {0.1}}};
  CHECK_THROWS_WITH(parse_study(j, "s.json"), Catch::Contains("/discrete/h") && Catch::Contains("at least two step sizes"));
  j["discrete"] = {{"at", 0.5}, {"h", {0.1, 0.05}}};
  j["claims"] = {{"checks", {{{"quantity", {{"discrete_eigenvalue", "real"}, {"label", "RK4"}, {"h", 0.1}, {"branch", 0}}}, {"<", 1}}}}};
  CHECK_THROWS_WITH(parse_study(j, "s.json"), Catch::Contains("/claims/checks/0/quantity/label") && Catch::Contains("labels: rk4"));
  j["claims"] = {{"checks", {{{"quantity", {{"discrete_eigenvalue", "real"}, {"label", "rk4"}, {"h", 0.2}, {"branch", 0}}}, {"<", 1}}}}};
  CHECK_THROWS_WITH(parse_study(j, "s.json"), Catch::Contains("/claims/checks/0/quantity/h") && Catch::Contains("not a step size"));
  j.erase("claims");
  j["integrators"] = json::array({"gni"});  // needs a LieGroupModel: refused when bound, before anything runs
  const test::TempDir gdir("stability_gni");
  CHECK_THROWS_WITH(test::run_quietly(parse_study(j, "s.json"), gdir / "run"), Catch::Contains("s.json: /integrators/0"));
  j = {{"name", "t"}, {"kind", "trajectory"}, {"system", disk}, {"parameter", range}};
  CHECK_THROWS_WITH(parse_study(j, "s.json"), Catch::Contains("/parameter") && Catch::Contains("belongs to linear_stability studies"));
  // The grid.
  j = stability_study(disk, {{"from", 1}, {"to", 1}, {"steps", 10}});
  CHECK_THROWS_WITH(parse_study(j, "s.json"), Catch::Contains("/parameter/to") && Catch::Contains("range is empty"));
  j = stability_study(disk, {{"from", 0}, {"to", 1}, {"steps", 0}});
  CHECK_THROWS_WITH(parse_study(j, "s.json"), Catch::Contains("/parameter/steps"));
  // Claims: an eigenvalue at a value off the grid, an unknown kind of critical value, a quantity of
  // another kind, and one of this kind in another kind's study.
  j = stability_study(disk, range);
  j["claims"] = {{"checks", {{{"quantity", {{"eigenvalue", "real"}, {"at", 0.55}, {"branch", 0}}}, {"<", 1}}}}};
  CHECK_THROWS_WITH(parse_study(j, "s.json"), Catch::Contains("/claims/checks/0/quantity/at") && Catch::Contains("not a value of the parameter grid"));
  j["claims"] = {{"checks", {{{"quantity", {{"critical", "hopf"}}}, {"<", 1}}}}};
  CHECK_THROWS_WITH(parse_study(j, "s.json"), Catch::Contains("not a kind of critical value; use one of: real_crossing"));
  j["claims"] = {{"checks", {{{"quantity", {{"ensemble", "energy_error_var"}, {"label", "DLA"}}}, {"<", 1}}}}};
  CHECK_THROWS_WITH(parse_study(j, "s.json"), Catch::Contains("belongs to a ensemble study; this one is a linear_stability study"));
  j = {{"name", "t"}, {"kind", "trajectory"}, {"system", disk}, {"initial", {{"q", {0, 0, 0, 0.1, 0}}, {"v", {1, 0, 0, 0, 1}}}},
       {"integrators", {"rk4"}}, {"T", 1}, {"h", 0.1}};
  j["claims"] = {{"checks", {{{"quantity", {{"critical", "any"}}}, {"<", 1}}}}};
  CHECK_THROWS_WITH(parse_study(j, "s.json"), Catch::Contains("belongs to a linear_stability study; this one is a trajectory study"));
  // Known only once the system is bound: a system without a family, another family's name, a branch
  // the linearisation does not have.
  const test::TempDir dir("stability_bad");
  j = stability_study({{"plugin", "nonholonomic_particle"}}, range);
  CHECK_THROWS_WITH(test::run_quietly(parse_study(j, "s.json"), dir / "a"),
                    Catch::Contains("declares no family of steady motions (model Linearizable)"));
  j = stability_study(disk, range);
  j["family"] = "circular";
  CHECK_THROWS_WITH(test::run_quietly(parse_study(j, "s.json"), dir / "b"),
                    Catch::Contains("s.json: /family") && Catch::Contains("declares the family \"upright_rolling\""));
  j = stability_study(disk, range);
  j["claims"] = {{"checks", {{{"quantity", {{"eigenvalue", "real"}, {"at", 0.5}, {"branch", 4}}}, {"<", 1}}}}};
  CHECK_THROWS_WITH(test::run_quietly(parse_study(j, "s.json"), dir / "c"),
                    Catch::Contains("/branch") && Catch::Contains("has 4 eigenvalues: branches 0 to 3"));
  CHECK(!std::filesystem::exists(dir / "a"));
}

TEST_CASE("linear_stability claims: a claim that fails says why", "[linear_stability]") {
  const test::TempDir dir("stability_claims");
  json j = stability_study({{"plugin", "rolling_disk"}}, {{"from", 0}, {"to", 0.5}, {"steps", 5}});
  j["claims"] = {{"checks",
                  {{{"id", "no crossing"}, {"quantity", {{"critical", "collision"}}}, {"<", 1}},
                   {{"id", "second"}, {"quantity", {{"critical", "any"}, {"index", 1}}}, {"<", 1}},
                   {{"id", "branch 1"}, {"quantity", {{"eigenvalue", "real"}, {"at", 0.1}, {"branch", 1}}}, {">", 0}}}}};
  const RunReport rep = test::run_quietly(parse_study(j, "s.json"), dir / "run");
  CHECK(rep.claims_failed == 2);
  const auto& r = rep.manifest["claims"]["results"];
  CHECK_THAT(r[0]["reason"].get<std::string>(), Catch::Contains("the run found no critical value of type collision"));
  CHECK_THAT(r[1]["reason"].get<std::string>(), Catch::Contains("the run found no critical value of type any"));
  CHECK(r[2]["verdict"] == "pass");
  CHECK(rep.manifest["linear_stability"]["stable_ranges"].empty());  // v < v_c throughout
}
