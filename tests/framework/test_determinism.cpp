// The output of a study does not depend on the number of threads: the seed-000 studies run at
// 1 and 2 threads give byte-identical CSV files (timing columns aside) and equal manifests once
// the wall times and the thread count are removed.
#include <catch2/catch.hpp>
#include <dalembert/study/runner.hpp>
#include <dalembert/study/study.hpp>
#include <set>
#include <sstream>

#include "temp_dir.hpp"  // tests/

namespace fs = std::filesystem;
using nlohmann::json;
using dalembert::test::read_text;
using dalembert::test::TempDir;

namespace {

// Every file under `root`, as sorted paths relative to it.
std::set<std::string> files_under(const fs::path& root) {
  std::set<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file()) out.insert(fs::relative(e.path(), root).string());
  return out;
}

// A CSV file's text without its "wall_time_s" column (the only thing allowed to differ).
std::string without_timing_column(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  long drop = -1;
  bool header = true;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream ls(line);
    std::string cell;
    while (std::getline(ls, cell, ',')) cells.push_back(cell);
    if (header) {
      for (std::size_t i = 0; i < cells.size(); ++i)
        if (cells[i] == "wall_time_s") drop = static_cast<long>(i);
      header = false;
    }
    for (std::size_t i = 0; i < cells.size(); ++i)
      if (static_cast<long>(i) != drop) out += cells[i] + ",";
    out += "\n";
  }
  return out;
}

// The manifest without wall times (anywhere) and the thread count.
json without_timings(json j) {
  if (j.is_object()) {
    j.erase("wall_time_s");
    for (auto& [k, v] : j.items()) v = without_timings(v);
  } else if (j.is_array()) {
    for (auto& v : j) v = without_timings(v);
  }
  return j;
}

void check_thread_independent(const std::string& study_file) {
  const dalembert::Study st = dalembert::load_study(std::string(DALEMBERT_SOURCE_DIR) + "/studies/newmark/" + study_file);
  TempDir dir("determinism");
  dalembert::RunOptions one;
  one.out_dir = dir / "threads1";
  one.threads = 1;
  one.progress = false;
  one.plots = false;
  one.verbose = false;
  dalembert::RunOptions two = one;
  two.out_dir = dir / "threads2";
  two.threads = 2;

  const auto r1 = dalembert::run_study(st, one);
  const auto r2 = dalembert::run_study(st, two);
  REQUIRE(r1.folder == *one.out_dir);
  REQUIRE(r2.folder == *two.out_dir);
  CHECK(r1.manifest["threads"] == 1);
  CHECK(r2.manifest["threads"] == 2);

  const auto files = files_under(r1.folder);
  REQUIRE(files == files_under(r2.folder));
  std::size_t csv_files = 0;
  for (const auto& f : files) {
    if (fs::path(f).extension() != ".csv") continue;
    ++csv_files;
    INFO(study_file << ": " << f);
    const std::string a = read_text(r1.folder / f), b = read_text(r2.folder / f);
    REQUIRE(a.size() > 0);
    if (a.find("wall_time_s") != std::string::npos) {
      CHECK(without_timing_column(a) == without_timing_column(b));
    } else {
      CHECK(a == b);  // byte-identical
    }
  }
  CHECK(csv_files >= 1);

  for (const auto& task : r1.manifest["tasks"]) CHECK(task["ok"] == true);
  json m1 = without_timings(json::parse(read_text(r1.folder / "manifest.json")));
  json m2 = without_timings(json::parse(read_text(r2.folder / "manifest.json")));
  for (json* m : {&m1, &m2}) {
    m->erase("threads");
    m->erase("execution");  // ranks, threads per rank, tasks resumed: how, not what
  }
  CHECK(m1 == m2);
  CHECK_FALSE(m1.contains("wall_time_s"));  // the stripping did strip
  CHECK_FALSE(m1["tasks"][0].contains("wall_time_s"));
}

}  // namespace

TEST_CASE("fig1_particle: identical output at 1 and 2 threads", "[determinism]") {
  check_thread_independent("fig1_particle.json");
}

TEST_CASE("convergence_particle: identical output at 1 and 2 threads", "[determinism]") {
  check_thread_independent("convergence_particle.json");
}
