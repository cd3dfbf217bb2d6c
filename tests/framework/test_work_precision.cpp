// Work-precision studies (issue 17): a convergence ladder whose rungs are also timed.
#include <catch2/catch.hpp>
#include <dalembert/core/json_input.hpp>

#include "claims_support.hpp"
#include "support.hpp"

using namespace dalembert;
using nlohmann::json;

namespace {

json sleigh_study(const std::string& kind) {
  json j = parse_json_file(std::string(DALEMBERT_SOURCE_DIR) + "/studies/kobilarov/work_precision_sleigh.json");
  j["kind"] = kind;
  j.erase("claims");
  j.erase("figures");
  j["T"] = 2;
  j["repeats"] = 3;
  if (kind != "work_precision") j.erase("repeats");
  return j;
}

RunReport run(const json& j, const std::filesystem::path& out) { return test::run_quietly(parse_study(j, "wp.json"), out, 2); }

}  // namespace

TEST_CASE("work_precision: the errors of a convergence study, each rung timed", "[work_precision]") {
  const test::TempDir dir("work_precision");
  const auto wp = run(sleigh_study("work_precision"), dir / "wp");
  const auto conv = run(sleigh_study("convergence"), dir / "conv");
  // The error table is the convergence study's, bit for bit (the timed repeats change nothing).
  CHECK(test::read_text(dir / "wp" / "convergence.csv") == test::read_text(dir / "conv" / "convergence.csv"));
  CHECK(wp.manifest["convergence"] == conv.manifest["convergence"]);

  const auto t = test::read_csv(dir / "wp" / "work_precision.csv", 1);
  const auto& steps = t.at("steps");
  REQUIRE(steps.size() == 25);  // 5 integrators x 5 rungs
  for (std::size_t i = 0; i < steps.size(); ++i) {
    INFO("row " << i);
    CHECK(t.at("repeats")[i] == 3);
    CHECK(t.at("cpu_min_s")[i] > 0.0);
    CHECK(t.at("cpu_min_s")[i] <= t.at("cpu_median_s")[i]);
    CHECK(t.at("cpu_median_s")[i] <= t.at("cpu_max_s")[i]);
  }
  // Time grows with the number of steps: every integrator's finest rung (16x the steps of its
  // coarsest) takes several times as long (a loose bound: the machine may be busy).
  for (std::size_t i = 0; i < steps.size(); i += 5) {
    INFO("integrator row " << i);
    CHECK(steps[i + 4] == 16 * steps[i]);
    CHECK(t.at("cpu_min_s")[i + 4] > 4.0 * t.at("cpu_min_s")[i]);
  }
  // The manifest: per integrator, rows with the per-step cost.
  const auto& rows = wp.manifest["work_precision"][0]["rows"];
  REQUIRE(rows.size() == 5);
  CHECK(rows[0]["cpu_per_step_s"].get<double>() * double(rows[0]["steps"].get<long>()) ==
        Approx(rows[0]["cpu_median_s"].get<double>()));
}

TEST_CASE("work_precision: repeats belong to work_precision studies and lie in [1, 1000]", "[work_precision]") {
  json j = sleigh_study("convergence");
  j["repeats"] = 3;
  CHECK_THROWS_WITH(parse_study(j, "wp.json"), Catch::Contains("/repeats") && Catch::Contains("work_precision"));
  j = sleigh_study("work_precision");
  j["repeats"] = 0;
  CHECK_THROWS_WITH(parse_study(j, "wp.json"), Catch::Contains("/repeats = 0") && Catch::Contains("[1, 1000]"));
}

TEST_CASE("work_precision_sleigh (seed 001): the bundled study's claims hold", "[work_precision][studies]") {
  const test::TempDir dir("work_precision_sleigh");
  // Its CPU-time claims measure runs of a few milliseconds: a machine busy with other work (CI's
  // two cores building in parallel) can push one ratio out of its range. A claim on CPU time that
  // fails is measured once more, in a second run; every claim must hold in that run.
  auto rep = test::run_bundled_study("studies/kobilarov/work_precision_sleigh.json", dir / "run", 2);
  if (rep.claims_failed > 0) {
    bool only_cpu = true;
    for (const auto& r : rep.manifest.at("claims").at("results"))
      if (r.at("verdict") != "pass" && r.at("quantity").dump().find("cpu_") == std::string::npos) only_cpu = false;
    if (only_cpu) {
      WARN("CPU-time claims failed once (" << rep.claims_failed << "): measuring again");
      rep = test::run_bundled_study("studies/kobilarov/work_precision_sleigh.json", dir / "run2", 2);
    }
  }
  test::require_claims(rep, 10, {"GNI per step vs RK2", "RDP per step vs RK2", "RDP error"});
}
