// A table format is one unit (issue 27, study/table_format.hpp): CSV and .npy behind one writer and
// one reader, chosen by name in one place; the manifest's file index names each table's format.
// Before issue 27 the string "npy" was compared in five places and CSV entries named no format.
#include <catch2/catch.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/json_input.hpp>
#include <dalembert/study/table_format.hpp>
#include <limits>

#include "support.hpp"
#include "temp_dir.hpp"

using namespace dalembert;
using nlohmann::json;

TEST_CASE("table format: every format writes what it reads back, bit for bit", "[table_format]") {
  const test::TempDir dir("table_format");
  const std::vector<std::string> columns = {"t", "x_0", "energy_error"};
  const std::vector<std::vector<double>> rows = {{0.0, 1.0 / 3.0, -2.5e-300}, {0.1, 1e17 + 8, 6.02214076e23}};
  REQUIRE(table_format_names() == std::vector<std::string>{"csv", "npy"});
  for (const auto& name : table_format_names()) {
    INFO("format " << name);
    const TableFormat& format = table_format(name);
    const auto file = dir.path() / ("table" + format.extension());
    auto w = format.writer(file, columns, rows.size());
    for (const auto& r : rows) w->row(r.data());
    w->close();
    CHECK(&table_format_of(file) == &format);  // chosen by the file's extension when read
    const Table t = table_format_of(file).read(file);
    CHECK(t.names == columns);
    REQUIRE(t.columns.size() == columns.size());
    for (std::size_t c = 0; c < columns.size(); ++c)
      for (std::size_t r = 0; r < rows.size(); ++r) CHECK(t.columns[c].at(r) == rows[r][c]);  // exact: %.17g or float64
  }
  CHECK_THROWS_WITH(table_format("xlsx"), Catch::Contains("'xlsx'") && Catch::Contains("csv, npy"));
}

TEST_CASE("table format: the file index names every table's format", "[table_format]") {
  const test::TempDir dir("table_format_index");
  for (const std::string name : {"csv", "npy"}) {
    INFO("record_format " << name);
    json j;
    j["name"] = "formats";
    j["kind"] = "trajectory";
    j["system"] = {{"plugin", "nonholonomic_particle"}};
    j["initial"] = {{"q", {1, 1, -1}}, {"v", {1, -1, 1}}};
    j["T"] = 1;
    j["h"] = 0.1;
    j["integrators"] = {"rk4"};
    j["record_format"] = name;
    const RunReport r = test::run_quietly(parse_study(j, "formats.json"), dir.path() / name, 1);
    std::map<std::string, std::string> formats;
    for (const auto& f : r.manifest["files"])
      if (f.contains("format")) formats[f["path"].get<std::string>()] = f["format"].get<std::string>();
    CHECK(formats["trajectory_rk4." + name] == name);
    CHECK(formats["claims.csv"] == "csv");
    CHECK(table_format_of(dir.path() / name / ("trajectory_rk4." + name)).read(dir.path() / name / ("trajectory_rk4." + name)).columns.at(0).size() == 11);
  }
}
