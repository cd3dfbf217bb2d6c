// "record_format": "npy" (issue 17): trajectory files as NumPy .npy. Every number is checked
// against an independent source — the CSV the same study writes (parsed with strtod), the .npy
// bytes read here by the NumPy format specification, and numpy itself (Debian's python3).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <dalembert/core/errors.hpp>
#include <dalembert/study/npy_reader.hpp>
#include <dalembert/study/npy_writer.hpp>
#include <dalembert/study/runner.hpp>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_process.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace dalembert;
using dalembert::test::read_text;
using dalembert::test::TempDir;
using dalembert::test::write_text;

namespace {

std::uint64_t bits(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

/// A CSV as its header and rows, each cell parsed with strtod (the shortest round-trip text).
struct Csv {
  std::vector<std::string> names;
  std::vector<std::vector<double>> rows;
};

Csv parse_csv(const fs::path& file) {
  std::istringstream in(read_text(file));
  Csv c;
  std::string line, cell;
  std::getline(in, line);
  for (std::stringstream ss(line); std::getline(ss, cell, ',');) c.names.push_back(cell);
  while (std::getline(in, line)) {
    c.rows.emplace_back();
    for (std::stringstream ss(line); std::getline(ss, cell, ',');) c.rows.back().push_back(std::strtod(cell.c_str(), nullptr));
  }
  return c;
}

/// A .npy read by the format's specification, not by read_npy: magic, version, little-endian
/// header length, the header text, then the rows' bytes.
struct RawNpy {
  int major = 0;
  std::size_t prefix = 0, header_length = 0;
  std::string header;
  std::vector<double> data;
};

RawNpy parse_raw(const fs::path& file) {
  const std::string bytes = read_text(file);
  RawNpy r;
  REQUIRE(bytes.size() >= 12);
  REQUIRE(bytes.compare(0, 6, "\x93NUMPY") == 0);
  r.major = bytes[6];
  REQUIRE(bytes[7] == 0);
  REQUIRE((r.major == 1 || r.major == 2));
  r.prefix = r.major == 1 ? 10 : 12;
  for (std::size_t k = 0; k < r.prefix - 8; ++k) r.header_length |= std::size_t{static_cast<unsigned char>(bytes[8 + k])} << (8 * k);
  REQUIRE(bytes.size() >= r.prefix + r.header_length);
  r.header = bytes.substr(r.prefix, r.header_length);
  const std::size_t n = (bytes.size() - r.prefix - r.header_length) / 8;
  REQUIRE(bytes.size() == r.prefix + r.header_length + 8 * n);  // nothing after the last whole row
  r.data.resize(n);
  std::memcpy(r.data.data(), bytes.data() + r.prefix + r.header_length, 8 * n);
  return r;
}

/// The header NumPy itself writes for these fields and rows (numpy.lib.format), without padding.
std::string numpy_dict(const std::vector<std::string>& names, std::size_t rows) {
  std::string d = "{'descr': [";
  for (std::size_t i = 0; i < names.size(); ++i) d += (i ? ", ('" : "('") + names[i] + "', '<f8')";
  return d + "], 'fortran_order': False, 'shape': (" + std::to_string(rows) + ",), }";
}

/// The .npy's header and every value against the CSV of the same run: same names, same rows,
/// every value bit for bit.
void check_same_as_csv(const fs::path& npy, const fs::path& csv_file) {
  INFO(npy << " against " << csv_file);
  const Csv csv = parse_csv(csv_file);
  const RawNpy raw = parse_raw(npy);
  REQUIRE(!csv.rows.empty());
  CHECK((raw.prefix + raw.header_length) % 64 == 0);
  CHECK(raw.header.back() == '\n');
  const std::string dict = numpy_dict(csv.names, csv.rows.size());
  CHECK(raw.header.substr(0, dict.size()) == dict);
  CHECK(raw.header.find_first_not_of(' ', dict.size()) == raw.header.size() - 1);  // then spaces and '\n'
  REQUIRE(raw.data.size() == csv.rows.size() * csv.names.size());
  std::size_t mismatches = 0;
  for (std::size_t r = 0; r < csv.rows.size(); ++r)
    for (std::size_t c = 0; c < csv.names.size(); ++c) mismatches += bits(raw.data[r * csv.names.size() + c]) != bits(csv.rows[r][c]);
  CHECK(mismatches == 0);
  // read_npy (the claims' reader) gives the same columns.
  const NpyTable t = read_npy(npy);
  CHECK(t.names == csv.names);
  REQUIRE(t.columns.size() == csv.names.size());
  for (std::size_t c = 0; c < csv.names.size(); ++c) {
    REQUIRE(t.columns[c].size() == csv.rows.size());
    for (std::size_t r = 0; r < csv.rows.size(); ++r) mismatches += bits(t.columns[c][r]) != bits(csv.rows[r][c]);
  }
  CHECK(mismatches == 0);
}

/// DLA and RK4 on the chaotic particle with the seed-000 observers: 100 steps recorded every 3rd
/// (the last step too): 35 rows of 18 columns.
json chaotic_study(const std::string& format) {
  json j = {{"name", "npy_" + format},
            {"kind", "trajectory"},
            {"system", {{"plugin", "chaotic_nonholonomic_particle"}}},
            {"initial", {{"q", {1, 0, 1, -1, -1}}, {"v", {0.05, 0.5, -0.5, -0.1, -0.05}}}},
            {"h", 0.2},
            {"T", 20},
            {"record_every", 3},
            {"integrators",
             {{{"label", "DLA"}, {"plugin", "nonholonomic_newmark"}, {"params", {{"beta", 0}, {"beta_prime", 0}, {"alpha", 0.5}}}},
              {{"label", "RK4"}, {"plugin", "rk4"}}}},
            {"observers",
             {"trajectory", "energy_error", "constraint_residual",
              {{"plugin", "discrete_quantities"}, {"params", {{"exclude", {"discrete_constraint_residual"}}}}}}}};
  if (!format.empty()) j["record_format"] = format;
  return j;
}

RunReport run_in(const json& study, const fs::path& out) {
  RunOptions opt;
  opt.out_dir = out;
  opt.plots = false;
  opt.verbose = false;
  opt.progress = false;
  return run_study(parse_study(study, "npy.json"), opt);
}

std::string input_error(const json& study) {
  try {
    (void)parse_study(study, "k.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

void check_error_line(const test::CliRun& r, const std::vector<std::string>& needles) {
  INFO("stderr: " << r.err);
  CHECK(r.signal == 0);
  CHECK(r.status != 0);
  CHECK(r.err.rfind("error: ", 0) == 0);
  for (const auto& n : needles) {
    INFO("expected: " << n);
    CHECK(r.err.find(n) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("npy: a trajectory study writes the values of its CSV bit for bit, with the same columns and rows", "[npy]") {
  TempDir dir("npy_same");
  const auto csv = run_in(chaotic_study(""), dir / "csv");
  const auto npy = run_in(chaotic_study("npy"), dir / "npy");
  for (const std::string label : {"DLA", "RK4"}) {
    REQUIRE(fs::exists(dir / "npy" / ("trajectory_" + label + ".npy")));
    CHECK_FALSE(fs::exists(dir / "npy" / ("trajectory_" + label + ".csv")));
    CHECK_FALSE(fs::exists(dir / "npy" / ("trajectory_" + label + ".npy.part")));
    check_same_as_csv(dir / "npy" / ("trajectory_" + label + ".npy"), dir / "csv" / ("trajectory_" + label + ".csv"));
    CHECK(parse_csv(dir / "csv" / ("trajectory_" + label + ".csv")).rows.size() == 35);  // 1 + 33 + the last
    // t, q, v, energy, energy_error, Φ; DLA also publishes its discrete energy and multipliers.
    CHECK(parse_csv(dir / "csv" / ("trajectory_" + label + ".csv")).names.size() == (label == "DLA" ? 18u : 14u));
  }
  // The study as run says record_format for npy only (a csv study's is as it was); the file index
  // names every table's format (issue 27; before, csv entries named none).
  CHECK(npy.manifest.at("study").at("record_format") == "npy");
  CHECK_FALSE(csv.manifest.at("study").contains("record_format"));
  for (const auto& f : npy.manifest.at("files"))
    if (f.at("kind") == "trajectory") CHECK(f.at("format") == "npy");
  for (const auto& f : csv.manifest.at("files"))
    if (f.at("kind") == "trajectory" || f.at("kind") == "claims") CHECK(f.at("format") == "csv");
  CHECK(npy.manifest.at("tasks")[0].at("file") == "trajectory_DLA.npy");
  CHECK(read_text(dir / "npy" / "report.md").find("NumPy `.npy` trajectory files") != std::string::npos);
}

TEST_CASE("npy: \"record_format\": \"csv\" writes exactly what a study without the key writes", "[npy]") {
  TempDir dir("npy_csv_default");
  const auto plain = run_in(chaotic_study(""), dir / "plain");
  json with_key = chaotic_study("csv");
  with_key["name"] = chaotic_study("")["name"];
  const auto csv = run_in(with_key, dir / "csv");
  for (const std::string label : {"DLA", "RK4"})
    CHECK(read_text(dir / "plain" / ("trajectory_" + label + ".csv")) == read_text(dir / "csv" / ("trajectory_" + label + ".csv")));
  CHECK(plain.manifest.at("study") == csv.manifest.at("study"));
  CHECK(plain.manifest.at("files") == csv.manifest.at("files"));
}

TEST_CASE("npy: a run that fails mid-way leaves a whole .npy of the rows recorded before the failure", "[npy]") {
  // V = -q^4 from q = 1, v = sqrt(2) blows up at t = 0.707: RK4 at h = 0.01 fails near step 71.
  TempDir dir("npy_failed");
  auto blowup = [](const std::string& format) {
    json j = {{"name", "blowup_" + format},
              {"kind", "trajectory"},
              {"plugin_paths", {DALEMBERT_FIXTURE_SYSTEMS_DIR}},
              {"system", "blowup"},
              {"initial", {{"q", {1}}, {"v", {std::sqrt(2.0)}}}},
              {"T", 2},
              {"h", 0.01},
              {"record_every", 2},
              {"integrators", {{{"label", "RK4"}, {"plugin", "rk4"}}}},
              {"observers", {"energy_error", "trajectory"}}};
    if (format == "npy") j["record_format"] = "npy";
    return j;
  };
  for (const std::string format : {"csv", "npy"}) {
    write_text(dir / (format + ".json"), blowup(format).dump());
    const auto r = test::run_dalembert({"run", format + ".json", "--out", format, "--quiet", "--no-plots"}, {dir.path()});
    check_error_line(r, {"non-finite"});
    REQUIRE(fs::exists(dir / (format + ".failed") / ("trajectory_RK4." + format)));
  }
  const fs::path npy = dir / "npy.failed" / "trajectory_RK4.npy", csv = dir / "csv.failed" / "trajectory_RK4.csv";
  CHECK_FALSE(fs::exists(dir / "npy.failed" / "trajectory_RK4.npy.part"));
  const auto rows = parse_csv(csv).rows.size();
  CHECK(rows > 20);   // the failure is near step 71, recorded every 2nd step
  CHECK(rows < 101);  // and the run did not reach its end
  check_same_as_csv(npy, csv);
}

TEST_CASE("npy: a full disk fails the run naming the .npy, and the failed file holds whole rows", "[npy]") {
  TempDir dir("npy_full_disk");
  json j = chaotic_study("npy");
  j["T"] = 1000;  // 5001 rows of 18 doubles: 720 kB, far more than the 64 KiB the disk has left
  j["record_every"] = 1;
  write_text(dir / "study.json", j.dump());
  const auto r = test::run_dalembert({"run", "study.json", "--out", "res", "--quiet", "--no-plots"}, {dir.path(), 64 * 1024});
  check_error_line(r, {"error while writing", "trajectory_", ".npy", "File too large"});
  CHECK_FALSE(fs::exists(dir / "res"));
  int found = 0;
  for (const std::string label : {"DLA", "RK4"}) {
    const fs::path f = dir / "res.failed" / ("trajectory_" + label + ".npy");
    if (!fs::exists(f)) continue;  // the other task may not have started
    ++found;
    const RawNpy raw = parse_raw(f);  // whole rows after the header, nothing more
    const std::size_t ncol = label == "DLA" ? 18 : 14;
    CHECK(raw.data.size() % ncol == 0);
    CHECK(raw.data.size() / ncol < 5001);
    CHECK(raw.header.find("'shape': (" + std::to_string(raw.data.size() / ncol) + ",)") != std::string::npos);
    const NpyTable t = read_npy(f);
    CHECK(t.names.size() == ncol);
    CHECK(t.columns.at(0).size() == raw.data.size() / ncol);
  }
  CHECK(found >= 1);
}

TEST_CASE("npy: rows beyond the buffer and the size hint, flush, and a file that loads at every flush", "[npy]") {
  TempDir dir("npy_writer");
  const std::vector<std::string> names = {"t", "x", "y"};
  for (std::size_t hint : {std::size_t{0}, std::size_t{10}, std::size_t{1000000}}) {
    INFO("expected_rows = " << hint);
    const fs::path file = dir / ("w" + std::to_string(hint) + ".npy");
    const std::size_t n = 100000;  // 2.4 MB: the 1 MiB buffer is written several times
    {
      NpyWriter w(file, names, hint);
      for (std::size_t i = 0; i < n; ++i) {
        const double row[3] = {0.5 * static_cast<double>(i), std::sin(static_cast<double>(i)), -static_cast<double>(i)};
        w.row(row);
        if (i + 1 == 777) {
          w.flush();  // FILE.part is whole now, with its 777 rows
          const RawNpy mid = parse_raw(fs::path(file.string() + ".part"));
          CHECK(mid.data.size() == 777 * 3);
          CHECK(mid.header.find("'shape': (777,)") != std::string::npos);
        }
      }
      CHECK_FALSE(fs::exists(file));
      w.close();
    }
    const RawNpy raw = parse_raw(file);
    CHECK(raw.major == 1);
    REQUIRE(raw.data.size() == 3 * n);
    CHECK(fs::file_size(file) == raw.prefix + raw.header_length + 24 * n);
    std::size_t mismatches = 0;
    for (std::size_t i = 0; i < n; ++i)
      mismatches += bits(raw.data[3 * i + 1]) != bits(std::sin(static_cast<double>(i))) || raw.data[3 * i] != 0.5 * static_cast<double>(i);
    CHECK(mismatches == 0);
  }
}

TEST_CASE("npy: a header over 65535 bytes is format 2.0, padded to 64 bytes, and numpy reads it", "[npy]") {
  TempDir dir("npy_wide");
  std::vector<std::string> names = {"t", "it's", "back\\slash", "\xce\xb8_dot" /* θ_dot */, "tab\there"};
  char buf[64];
  for (int i = 0; static_cast<int>(names.size()) < 3000; ++i) {
    std::snprintf(buf, sizeof buf, "a_rather_long_column_name_%05d", i);
    names.push_back(buf);
  }
  const fs::path file = dir / "wide.npy";
  const std::size_t rows = 3;
  auto value = [&](std::size_t r, std::size_t c) { return static_cast<double>(r * names.size() + c) * 0.25 - 3.0; };
  {
    NpyWriter w(file, names, rows);
    std::vector<double> row(names.size());
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t c = 0; c < names.size(); ++c) row[c] = value(r, c);
      w.row(row.data());
    }
    w.close();
  }
  const RawNpy raw = parse_raw(file);
  CHECK(raw.major == 2);
  CHECK(raw.header_length > 65535);
  CHECK((raw.prefix + raw.header_length) % 64 == 0);
  CHECK(raw.header.rfind("{'descr': [('t', '<f8'), ('it\\'s', '<f8'), ('back\\\\slash', '<f8'), ('\\u03b8_dot', '<f8'), "
                         "('tab\\x09here', '<f8'), ('a_rather_long_column_name_00000', '<f8'), ",
                         0) == 0);
  const NpyTable t = read_npy(file);
  CHECK(t.names == names);
  REQUIRE(t.columns.size() == names.size());
  std::size_t mismatches = 0;
  for (std::size_t c = 0; c < names.size(); ++c)
    for (std::size_t r = 0; r < rows; ++r) mismatches += t.columns[c][r] != value(r, c);
  CHECK(mismatches == 0);
#ifdef DALEMBERT_PYTHON
  // numpy (Debian's python3) reads the same names and values.
  const fs::path script = dir / "check.py";
  write_text(script,
             "import sys, numpy as np\n"
             "a = np.load(sys.argv[1], max_header_size=1 << 24)\n"
             "names = list(a.dtype.names)\n"
             "assert a.shape == (3,), a.shape\n"
             "assert names[:5] == ['t', \"it's\", 'back\\\\slash', '\\u03b8_dot', 'tab\\there'], names[:5]\n"
             "assert len(names) == 3000 and names[5] == 'a_rather_long_column_name_00000'\n"
             "want = np.arange(3 * 3000, dtype=float).reshape(3, 3000) * 0.25 - 3.0\n"
             "got = np.stack([a[n] for n in names], axis=1)\n"
             "assert (got == want).all()\n"
             "print('ok')\n");
  const std::string out = (dir / "python.out").string();
  const int rc = std::system((std::string(DALEMBERT_PYTHON) + " " + script.string() + " " + file.string() + " >" + out + " 2>&1").c_str());
  INFO(read_text(out));
  CHECK(rc == 0);
  CHECK(read_text(out) == "ok\n");
#endif
}

TEST_CASE("npy: read_npy refuses malformed files with a message naming the file", "[npy]") {
  TempDir dir("npy_malformed");
  const fs::path good = dir / "good.npy";
  {
    NpyWriter w(good, {"t", "x"}, 4);
    for (int i = 0; i < 4; ++i) {
      const double row[2] = {static_cast<double>(i), 1.0};
      w.row(row);
    }
    w.close();
  }
  const std::string bytes = read_text(good);
  auto refused = [&](const std::string& name, const std::string& content, const std::string& needle) {
    write_text(dir / name, content);
    INFO(name);
    CHECK_THROWS_WITH(read_npy(dir / name), Catch::Contains(name) && Catch::Contains(needle));
  };
  refused("truncated.npy", bytes.substr(0, bytes.size() - 3), "truncated or padded");
  refused("padded.npy", bytes + "xyz", "truncated or padded");
  refused("text.npy", "t,x\n0,1\n", "not a NumPy .npy file");
  refused("cut_header.npy", bytes.substr(0, 30), "header is cut short");
  std::string f4 = bytes;
  f4.replace(f4.find("'<f8'"), 5, "'<f4'");
  refused("float32.npy", f4, "only '<f8' is read");
  std::string two_d = bytes;  // the same header length: "(4,), }" becomes "(4,1),}"
  two_d.replace(two_d.find("(4,), }"), 7, "(4,1),}");
  refused("two_d.npy", two_d, "its shape has 2 dimensions");
  std::string no_shape = bytes;
  no_shape.replace(no_shape.find("'shape'"), 7, "'shapo'");
  refused("no_shape.npy", no_shape, "unexpected or repeated key 'shapo'");
  std::string version = bytes;
  version[6] = 9;
  refused("version.npy", version, "format version 9.0");
}

TEST_CASE("npy: the writer refuses column names a .npy field cannot have", "[npy]") {
  TempDir dir("npy_names");
  CHECK_THROWS_WITH(NpyWriter(dir / "a.npy", {"t", "x", "x"}), Catch::Contains("a.npy") && Catch::Contains("'x' is repeated"));
  CHECK_THROWS_WITH(NpyWriter(dir / "b.npy", {"t", ""}), Catch::Contains("b.npy") && Catch::Contains("empty"));
  CHECK_THROWS_WITH(NpyWriter(dir / "c.npy", {"t", "bad\xff"}), Catch::Contains("c.npy") && Catch::Contains("not UTF-8"));
  CHECK_THROWS_WITH(NpyWriter(dir / "no_such_folder" / "d.npy", {"t"}), Catch::Contains("cannot write") && Catch::Contains("d.npy"));
}

TEST_CASE("npy: a claim on a trajectory column has the same value on .npy and on CSV", "[npy][claims]") {
  TempDir dir("npy_claims");
  auto with_claims = [](json j) {
    j["claims"] = {{"checks",
                    {{{"id", "drift"}, {"quantity", {{"column", "energy_error"}, {"task", "DLA"}, {"stat", "max_abs"}}}, {"<", 1.0}},
                     {{"id", "x at 10"}, {"quantity", {{"column", "x"}, {"task", "RK4"}, {"at", 10.2}}}, {"in", {-100, 100}}}}}};
    return j;
  };
  const auto csv = run_in(with_claims(chaotic_study("")), dir / "csv");
  const auto npy = run_in(with_claims(chaotic_study("npy")), dir / "npy");
  const auto& a = csv.manifest.at("claims").at("results");
  const auto& b = npy.manifest.at("claims").at("results");
  REQUIRE(a.size() == 2);
  REQUIRE(b.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    INFO(a[i].dump() << "\n" << b[i].dump());
    CHECK(a[i].at("verdict") == "pass");
    CHECK(b[i].at("verdict") == "pass");
    REQUIRE(a[i].at("value").is_number());
    CHECK(bits(a[i].at("value").get<double>()) == bits(b[i].at("value").get<double>()));
  }
  // The value itself, from the CSV: max |energy_error| of DLA.
  const Csv dla = parse_csv(dir / "csv" / "trajectory_DLA.csv");
  const auto col = static_cast<std::size_t>(std::find(dla.names.begin(), dla.names.end(), "energy_error") - dla.names.begin());
  REQUIRE(col < dla.names.size());
  double worst = 0;
  for (const auto& row : dla.rows) worst = std::max(worst, std::abs(row[col]));
  CHECK(b[0].at("value").get<double>() == worst);
  CHECK(worst > 0);
}

TEST_CASE("npy: a sweep of trajectories writes every cell's trajectories as .npy", "[npy]") {
  TempDir dir("npy_sweep");
  json j = chaotic_study("npy");
  j["kind"] = "sweep";
  j["T"] = 2;
  j["record_every"] = 1;
  j["sweep"] = {{"of", "trajectory"}, {"axes", {{{"name", "alpha"}, {"set", {"/integrators/0/params/alpha"}}, {"values", {0.5, 1.0}}}}}};
  const auto r = run_in(j, dir / "sweep");
  REQUIRE(r.manifest.at("cells").size() == 2);
  for (const auto& c : r.manifest.at("cells")) {
    const fs::path cell = dir / "sweep" / c.at("folder").get<std::string>();
    INFO(cell);
    CHECK(fs::exists(cell / "trajectory_DLA.npy"));
    CHECK_FALSE(fs::exists(cell / "trajectory_DLA.csv"));
    CHECK(read_npy(cell / "trajectory_DLA.npy").columns.at(0).size() == 11);
  }
}

TEST_CASE("npy: a bad record_format is refused naming its JSON path and the allowed values", "[npy][input]") {
  json j = chaotic_study("parquet");
  std::string e = input_error(j);
  CHECK_THAT(e, Catch::Contains("k.json: /record_format") && Catch::Contains("\"parquet\"") && Catch::Contains("csv, npy"));
  j["record_format"] = 3;
  CHECK_THAT(input_error(j), Catch::Contains("k.json: /record_format") && Catch::Contains("expected a string"));
  // A kind that writes no trajectory file refuses "npy" instead of ignoring it.
  json conv = chaotic_study("npy");
  conv["kind"] = "convergence";
  conv["h"] = {0.2, 0.1};
  conv["reference"] = {{"plugin", "rk4"}, {"h", 0.01}};
  e = input_error(conv);
  CHECK_THAT(e, Catch::Contains("k.json: /record_format") && Catch::Contains("convergence studies write none"));
  json sweep = conv;
  sweep["kind"] = "sweep";
  sweep["sweep"] = {{"of", "convergence"}, {"axes", {{{"name", "a"}, {"set", {"/integrators/0/params/alpha"}}, {"values", {0.5}}}}}};
  e = input_error(sweep);
  CHECK_THAT(e, Catch::Contains("k.json: /record_format") && Catch::Contains("convergence studies write none"));
  CHECK_THAT(e, !Catch::Contains("sweep cell"));
}
