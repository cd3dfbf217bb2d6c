// Inputs from a study (issue 30 item 2), through the CLI on the snakeboard, whose joint torques are
// its inputs u_psi and u_phi: the seed's gait given explicitly (as its preset, or as the sinusoids it
// stands for) runs the same trajectory to the bit as the default; a table equal to a constant runs
// as the constant; a CSV file equals the inline table; the given inputs are recorded, with values
// checked against cos(20πt) and sin(2πt); and every bad input is one line before the run.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <numbers>
#include <sstream>

#include "cli_support.hpp"

using namespace dalembert;
using nlohmann::json;

namespace {

json snakeboard_study(const json& params, double T = 1.0) {
  return {{"name", "inputs"},
          {"kind", "trajectory"},
          {"system", {{"plugin", "snakeboard"}, {"params", params}}},
          {"initial",
           {{"q", {1.5707963267948966, 1.0471975511965976, 0, 0, 0}},
            {"v", {2.5, -0.02, -1.8035254037844384, 1.0412658773652743, 0}}}},
          {"h", 0.01},
          {"T", T},
          {"integrators", {{{"label", "RK4"}, {"plugin", "rk4"}}}},
          {"observers", {"trajectory"}}};
}

struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;  // as written: compared to the bit
  std::size_t column(const std::string& name) const {
    const auto it = std::find(columns.begin(), columns.end(), name);
    REQUIRE(it != columns.end());
    return static_cast<std::size_t>(it - columns.begin());
  }
};

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  for (std::string x; std::getline(ss, x, ',');) out.push_back(x);
  return out;
}

Table read_table(const std::filesystem::path& file) {
  std::ifstream in(file);
  REQUIRE(in);
  Table t;
  std::string line;
  std::getline(in, line);
  t.columns = split(line);
  while (std::getline(in, line)) t.rows.push_back(split(line));
  return t;
}

Table run_snakeboard(const std::string& tag, const json& params, double T = 1.0) {
  test::StudyCase c(tag);
  const auto r = c.run(snakeboard_study(params, T));
  INFO("stderr: " << r.err);
  REQUIRE(r.status == 0);
  return read_table(c.out / "trajectory_RK4.csv");
}

// The t, q and v columns (the first 11) of two runs are the same text.
void check_same_motion(const Table& a, const Table& b) {
  REQUIRE(a.rows.size() == b.rows.size());
  for (std::size_t i = 0; i < a.rows.size(); ++i)
    for (std::size_t k = 0; k < 11; ++k) REQUIRE(a.rows[i][k] == b.rows[i][k]);
}

}  // namespace

TEST_CASE("Inputs: the seed's gait given explicitly runs the default's trajectory to the bit, and is recorded",
          "[inputs][studies]") {
  const Table base = run_snakeboard("inputs_default", json::object());
  CHECK(base.columns.size() == 11);  // t, q, v: inputs left to their defaults are not recorded
  const Table preset = run_snakeboard("inputs_preset", {{"u_psi", {{"preset", "seed_001"}}}});
  const Table written = run_snakeboard(
      "inputs_written", {{"u_psi", {{"sinusoids", {{{"amplitude", 1.0}, {"frequency", 10.0}, {"function", "cos"}}}}}},
                         {"u_phi", {{"sinusoids", {{{"amplitude", 1.0}, {"frequency", 1.0}}}}}}});
  check_same_motion(base, preset);
  check_same_motion(base, written);
  CHECK(preset.columns.back() == "u_psi");
  REQUIRE(written.columns.size() == 13);
  const std::size_t ct = written.column("t"), cpsi = written.column("u_psi"), cphi = written.column("u_phi");
  for (const auto& row : written.rows) {
    const double t = std::stod(row[ct]);
    CHECK(std::abs(std::stod(row[cpsi]) - std::cos(20 * std::numbers::pi * t)) < 1e-14);
    CHECK(std::abs(std::stod(row[cphi]) - std::sin(2 * std::numbers::pi * t)) < 1e-14);
  }
}

TEST_CASE("Inputs: a table equal to a constant runs as the constant, a CSV file as its inline table",
          "[inputs][studies]") {
  const Table constant = run_snakeboard("inputs_constant", {{"u_psi", 0.5}, {"u_phi", {{"constant", -0.25}}}});
  const Table table = run_snakeboard(
      "inputs_table", {{"u_psi", {{"t", {0.0, 0.4, 1.0}}, {"value", {0.5, 0.5, 0.5}}}},
                       {"u_phi", {{"t", {-1.0, 2.0}}, {"value", {-0.25, -0.25}}, {"interpolation", "cubic"}}}});
  check_same_motion(constant, table);

  test::StudyCase inline_case("inputs_inline"), csv_case("inputs_csv");
  json ramp = {{"t", {0.0, 0.25, 0.5, 1.0}}, {"value", {0.0, 1.0, -0.5, 2.0}}, {"interpolation", "cubic"}};
  REQUIRE(inline_case.run(snakeboard_study({{"u_phi", ramp}})).status == 0);
  test::write_text(csv_case.dir / "ramp.csv", "t,u_phi\n0,0\n0.25,1\n0.5,-0.5\n1,2\n");
  const auto r = csv_case.run(snakeboard_study({{"u_phi", {{"csv", "ramp.csv"}, {"interpolation", "cubic"}}}}));
  INFO(r.err);
  REQUIRE(r.status == 0);
  const Table a = read_table(inline_case.out / "trajectory_RK4.csv"), b = read_table(csv_case.out / "trajectory_RK4.csv");
  REQUIRE(a.rows.size() == b.rows.size());
  for (std::size_t i = 0; i < a.rows.size(); ++i) CHECK(a.rows[i] == b.rows[i]);  // the recorded input too
  // The manifest records the file's table as run (reproducible without the file).
  const json as_run = json::parse(test::read_text(csv_case.out / "manifest.json"))["study"]["system"]["params"]["u_phi"];
  CHECK(as_run == ramp);
}

TEST_CASE("Inputs: a bad input is one line before the run", "[inputs][studies]") {
  struct Bad {
    json params;
    std::vector<std::string> needles;
  };
  const std::vector<Bad> cases = {
      {{{"u_spi", 1.0}}, {"unknown parameter 'u_spi'", "did you mean 'u_psi'"}},
      {{{"u_psi", {{"t", {0.0, 0.5}}, {"value", {1.0, 2.0}}}}},
       {"/system/params/u_psi", "input 'u_psi'", "table over [0, 0.5]", "the run covers [0, 1]"}},
      {{{"u_psi", {{"t", {0.0, 2.0, 1.0}}, {"value", {1.0, 2.0, 3.0}}}}}, {"/system/params/u_psi", "t[2] = 1 follows"}},
      {{{"u_phi", {{"preset", "walk"}}}}, {"/system/params/u_phi/preset", "seed_001"}},
      {{{"u_phi", {{"csv", "nowhere.csv"}}}}, {"/system/params/u_phi/csv", "cannot read", "nowhere.csv"}},
  };
  int k = 0;
  for (const auto& bad : cases) {
    test::StudyCase c("inputs_bad_" + std::to_string(k++));
    const auto r = c.run(snakeboard_study(bad.params));
    test::check_one_line_error(r, bad.needles);
    c.check_no_result();
  }
}
