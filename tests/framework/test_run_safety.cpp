// A run only ever deletes what it created (issue 12): each data-loss case found by a hostile
// review is refused or handled, in a sandbox folder whose every pre-existing file must be
// byte-identical afterwards; figures are drawn without a shell; a full disk fails the run.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <dalembert/study/csv_writer.hpp>
#include <dalembert/study/run_folder.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <sys/file.h>
#include <sys/stat.h>

#include "cli_process.hpp"  // tests/
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace dalembert::test;

namespace {

// Every regular file under `root` and its bytes.
std::map<std::string, std::string> snapshot(const fs::path& root) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file()) files[fs::relative(e.path(), root).string()] = read_text(e.path());
  return files;
}

// Every file of `before` is still there with the same bytes.
void check_kept(const std::map<std::string, std::string>& before, const fs::path& root) {
  const auto after = snapshot(root);
  for (const auto& [path, bytes] : before) {
    INFO("pre-existing file " << path);
    REQUIRE(after.count(path) == 1);
    CHECK(after.at(path) == bytes);
  }
}

void check_one_line_error(const CliRun& r, const std::vector<std::string>& needles) {
  INFO("stderr: " << r.err);
  CHECK(r.signal == 0);
  CHECK(r.status != 0);
  CHECK(r.err.rfind("error: ", 0) == 0);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  for (const auto& n : needles) {
    INFO("expected: " << n);
    CHECK(r.err.find(n) != std::string::npos);
  }
}

// A two-step study of the nonholonomic particle.
json particle_study(const std::string& name) {
  return {{"name", name},
          {"kind", "trajectory"},
          {"system", {{"plugin", "nonholonomic_particle"}}},
          {"initial", {{"q", {1, 1, -1}}, {"v", {1, -1, 1}}}},
          {"h", 0.1},
          {"T", 0.2},
          {"integrators", {"rk4"}}};
}

// A sandbox holding a thesis folder, a notes file and an earlier result, to be kept intact.
struct Sandbox {
  TempDir dir{"safety"};
  Sandbox() {
    fs::create_directories(dir / "thesis" / "chapter1");
    write_text(dir / "thesis" / "chapter1" / "draft.tex", "\\section{Results}\n");
    write_text(dir / "notes.txt", "do not delete\n");
  }
  fs::path study(const json& j, const std::string& file = "study.json") {
    write_text(dir / file, j.dump(2));
    return dir / file;
  }
  CliRun run(std::vector<std::string> args) {
    args.insert(args.begin(), "run");
    return run_dalembert(args, {dir.path()});
  }
};

}  // namespace

TEST_CASE("an --out naming an existing file is refused and the file kept", "[safety]") {
  Sandbox s;
  s.study(particle_study("p"));
  const auto before = snapshot(s.dir.path());
  const auto r = s.run({"study.json", "--out", "notes.txt", "--quiet", "--no-plots"});
  check_one_line_error(r, {"notes.txt", "exists and is not a folder", "left untouched"});
  check_kept(before, s.dir.path());
  CHECK_FALSE(fs::exists(s.dir / "notes.txt.incomplete"));
  CHECK_FALSE(fs::exists(s.dir / "notes.txt.failed"));
}

TEST_CASE("an --out naming a folder that is not a run is refused and its contents kept", "[safety]") {
  Sandbox s;
  s.study(particle_study("p"));
  const auto before = snapshot(s.dir.path());
  const auto r = s.run({"study.json", "--out", "thesis", "--quiet", "--no-plots"});
  check_one_line_error(r, {"thesis", "not a complete dalembert run"});
  check_kept(before, s.dir.path());
  CHECK(snapshot(s.dir / "thesis").size() == 1);
}

TEST_CASE("an --out with a trailing slash: a rerun replaces the run, the earlier kept as .previous", "[safety]") {
  Sandbox s;
  s.study(particle_study("p"));
  REQUIRE(s.run({"study.json", "--out", "res/", "--quiet", "--no-plots"}).status == 0);
  auto first = snapshot(s.dir / "res");
  // Its marker alone changes: it now says "the previous run of res", not "a complete run" (issue 26).
  CHECK(first.erase(dalembert::RunFolder::marker) == 1);
  CHECK(first.count("manifest.json") == 1);
  CHECK(first.count("trajectory_rk4.csv") == 1);
  const auto before = snapshot(s.dir.path());
  const auto r = s.run({"study.json", "--out", "res/", "--quiet", "--no-plots"});
  INFO(r.err);
  CHECK(r.status == 0);
  check_kept(first, s.dir / "res.previous");
  CHECK(snapshot(s.dir / "res").count("trajectory_rk4.csv") == 1);
  CHECK_FALSE(fs::exists(s.dir / "res.lock"));
  CHECK_FALSE(fs::exists(s.dir / "res.incomplete"));
  // Everything else untouched.
  for (const auto& [path, bytes] : before)
    if (path.rfind("res", 0) != 0) CHECK(read_text(s.dir / path) == bytes);
}

TEST_CASE("output paths that name no folder are refused before anything is written", "[safety]") {
  Sandbox s;
  s.study(particle_study("p"));
  const auto before = snapshot(s.dir.path());
  for (const std::string out : {"", ".", "..", "./", "thesis/..", "/"}) {
    INFO("--out '" << out << "'");
    const auto r = s.run({"study.json", "--out", out, "--quiet", "--no-plots"});
    check_one_line_error(r, {"output folder"});
  }
  check_kept(before, s.dir.path());
  CHECK(snapshot(s.dir.path()).size() == before.size());  // not even a .failed folder
}

TEST_CASE("studies named '.' or '..' never empty the current folder or results/", "[safety]") {
  Sandbox s;
  fs::create_directories(s.dir / "results" / "earlier");
  write_text(s.dir / "results" / "earlier" / "data.csv", "t,x\n0,1\n");
  for (const std::string name : {"..", "."}) {
    INFO("study name '" << name << "'");
    s.study(particle_study(name));
    const auto before = snapshot(s.dir.path());
    const auto r = s.run({"study.json", "--quiet", "--no-plots"});
    check_one_line_error(r, {});
    check_kept(before, s.dir.path());
  }
  SECTION("and with --out p/o, a second study named '..' does not reach p") {
    fs::create_directories(s.dir / "p");
    write_text(s.dir / "p" / "keep.txt", "keep\n");
    s.study(particle_study("a"), "a.json");
    s.study(particle_study(".."), "b.json");
    const auto before = snapshot(s.dir.path());
    const auto r = s.run({"a.json", "b.json", "--out", "p/o", "--quiet", "--no-plots"});
    check_one_line_error(r, {});
    check_kept(before, s.dir.path());
    CHECK_FALSE(fs::exists(s.dir / "p" / "o"));  // checked before the first study ran
  }
}

TEST_CASE("two studies of one folder run with the same name are refused before either runs", "[safety]") {
  Sandbox s;
  fs::create_directories(s.dir / "batch");
  write_text(s.dir / "batch" / "a.json", particle_study("same").dump());
  write_text(s.dir / "batch" / "b.json", particle_study("same").dump());
  const auto r = s.run({"batch", "--out", "out", "--quiet", "--no-plots"});
  check_one_line_error(r, {"same", "a.json", "b.json", "would both write"});
  CHECK_FALSE(fs::exists(s.dir / "out"));
}

TEST_CASE("a second run on a folder another run holds is refused", "[safety]") {
  Sandbox s;
  s.study(particle_study("p"));
  // Another run holds the lock (as the runner does: flock on OUT.lock).
  const fs::path lock = s.dir / "res.lock";
  write_text(lock, "dalembert run lock\n4242\n");
  const int fd = ::open(lock.c_str(), O_RDWR);
  REQUIRE(fd >= 0);
  REQUIRE(::flock(fd, LOCK_EX | LOCK_NB) == 0);
  const auto r = s.run({"study.json", "--out", "res", "--quiet", "--no-plots"});
  check_one_line_error(r, {"res", "another dalembert run (pid 4242)"});
  CHECK_FALSE(fs::exists(s.dir / "res"));
  CHECK_FALSE(fs::exists(s.dir / "res.incomplete"));
  ::close(fd);  // the holder ends: the folder is free again
  const auto again = s.run({"study.json", "--out", "res", "--quiet", "--no-plots"});
  INFO(again.err);
  CHECK(again.status == 0);
  CHECK(fs::exists(s.dir / "res" / "manifest.json"));
}

TEST_CASE("a lock file dalembert did not write is never taken over", "[safety]") {
  Sandbox s;
  s.study(particle_study("p"));
  write_text(s.dir / "res.lock", "my own notes\n");
  const auto r = s.run({"study.json", "--out", "res", "--quiet", "--no-plots"});
  check_one_line_error(r, {"res.lock", "not a dalembert lock file"});
  CHECK(read_text(s.dir / "res.lock") == "my own notes\n");
}

TEST_CASE("shell metacharacters in paths are never executed, and figures are still drawn", "[safety]") {
  Sandbox s;
  json j = particle_study("quoted");
  j["observers"] = {"energy_error"};
  j["figures"] = {{{"name", "energy"}, {"type", "timeseries"}, {"y", "energy_error"}}};
  s.study(j);
  const std::string out = "o'; touch PWNED; echo '";
  const auto r = s.run({"study.json", "--out", out, "--quiet"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(fs::exists(s.dir / out / "figures" / "energy.png"));
  const auto redraw = run_dalembert({"plot", out}, {s.dir.path()});
  CHECK(redraw.status == 0);
  for (const auto& e : fs::recursive_directory_iterator(s.dir.path()))
    CHECK(e.path().filename() != "PWNED");
}

TEST_CASE("a full disk fails the run: no committed folder, no truncated file under its name", "[safety]") {
  Sandbox s;
  json j = particle_study("big");
  j["T"] = 100;
  j["h"] = 0.01;  // 10^4 rows: far more than the 64 KiB the disk has left
  s.study(j);
  const auto r = run_dalembert({"run", "study.json", "--out", "res", "--quiet", "--no-plots"},
                               {s.dir.path(), 64 * 1024});
  check_one_line_error(r, {"error while writing", "trajectory_rk4.csv"});
  CHECK_FALSE(fs::exists(s.dir / "res"));
  REQUIRE(fs::exists(s.dir / "res.failed" / "error.txt"));
}

// Issue 26: a file-size limit (ulimit -f) reached by any of a run's writers fails the run with one
// line, as a full disk does, instead of killing the CLI with SIGXFSZ (the default action, which
// run_dalembert leaves as the shell would). Each limit stops a different writer first.
TEST_CASE("under ulimit -f every writer fails the run with one line, never SIGXFSZ", "[safety]") {
  Sandbox s;
  json j = particle_study("limited");
  j["T"] = 20;
  j["h"] = 0.01;  // 2000 rows of the trajectory: about 90 kB
  s.study(j);
  for (const auto& [limit, file] : std::vector<std::pair<long, std::string>>{
           {100, "checkpoint/study.json"},  // the checkpoint's copy of the study (write_json_file)
           {16 * 1024, "trajectory_rk4.csv"}}) {
    INFO("limit " << limit << " bytes");
    fs::remove_all(s.dir / "res.failed");
    const auto r = run_dalembert({"run", "study.json", "--out", "res", "--quiet", "--no-plots"}, {s.dir.path(), limit});
    CHECK(r.signal == 0);
    check_one_line_error(r, {"error while writing", file, "File too large"});
    CHECK_FALSE(fs::exists(s.dir / "res"));
    CHECK(fs::exists(s.dir / "res.failed" / "error.txt"));
  }
}

// Issue 26: a FIFO opened for reading blocks until a writer comes; a study must be a regular file.
// The CLI runs under a 20 s alarm, so that a hang fails the test instead of blocking it.
TEST_CASE("a FIFO as the study, or as a *.json of a folder run, is refused at once", "[safety]") {
  Sandbox s;
  SECTION("the study file") {
    REQUIRE(::mkfifo((s.dir / "pipe.json").c_str(), 0644) == 0);
    const auto r = run_dalembert({"run", "pipe.json", "--out", "res", "--quiet", "--no-plots"}, {s.dir.path(), -1, 20});
    check_one_line_error(r, {"pipe.json: not a regular file but a FIFO (named pipe); a study is read from a regular file"});
  }
  SECTION("one *.json of a folder run") {
    fs::create_directories(s.dir / "studies");
    s.study(particle_study("a"), "studies/a.json");
    REQUIRE(::mkfifo((s.dir / "studies" / "b.json").c_str(), 0644) == 0);
    const auto r = run_dalembert({"run", "studies", "--out", "res", "--quiet", "--no-plots"}, {s.dir.path(), -1, 20});
    check_one_line_error(r, {"studies/b.json: not a regular file but a FIFO"});
  }
  SECTION("a character device") {
    const auto r = run_dalembert({"run", "/dev/zero", "--out", "res", "--quiet", "--no-plots"}, {s.dir.path(), -1, 20});
    check_one_line_error(r, {"/dev/zero: not a regular file but a character device"});
  }
  CHECK_FALSE(fs::exists(s.dir / "res"));
}

// Issue 26: nlohmann's lexer took a NUL byte for the end of the input, so a study followed by a NUL
// and more text ran as if the rest were not there.
TEST_CASE("bytes after a NUL that follows the study's JSON are an error naming the offset", "[safety]") {
  Sandbox s;
  const std::string study = particle_study("p").dump();
  write_text(s.dir / "study.json", study + std::string("\0{\"T\": 1000}", 12));
  const auto r = s.run({"study.json", "--out", "res", "--quiet", "--no-plots"});
  check_one_line_error(r, {"study.json: line 1, column " + std::to_string(study.size() + 1),
                           "byte " + std::to_string(study.size()) + " is a NUL byte"});
  CHECK_FALSE(fs::exists(s.dir / "res"));
}

TEST_CASE("a sweep whose every cell fails exits non-zero", "[safety]") {
  Sandbox s;
  // V = -q^4 blows up at t = 1/sqrt(2) from this state: every cell fails at run time.
  const json sweep = {{"name", "doomed"},
                      {"kind", "sweep"},
                      {"plugin_paths", {DALEMBERT_FIXTURE_SYSTEMS_DIR}},
                      {"system", {{"plugin", "blowup"}}},
                      {"initial", {{"q", {1.0}}, {"v", {std::sqrt(2.0)}}}},
                      {"h", 0.01},
                      {"T", 2},
                      {"integrators", {"rk4"}},
                      {"sweep", {{"of", "trajectory"}, {"axes", {{{"name", "h"}, {"set", {"/h"}}, {"values", {0.01, 0.02}}}}}}}};
  s.study(sweep);
  const auto r = s.run({"study.json", "--out", "res", "--quiet", "--no-plots"});
  check_one_line_error(r, {"every one of the 2 cells failed", "non-finite"});
  CHECK_FALSE(fs::exists(s.dir / "res"));
  CHECK(fs::exists(s.dir / "res.failed" / "error.txt"));
}

TEST_CASE("checks that used to fail inside tasks are made before the run", "[safety]") {
  Sandbox s;
  SECTION("an initial energy that overflows") {
    json j = particle_study("overflow");
    j["initial"]["q"] = {0, 0, 0};  // A(q)v = 0 needs v_z = y v_x: at y = 0, v_z = 0
    j["initial"]["v"] = {1e200, 1e200, 0};
    s.study(j);
    const auto r = s.run({"study.json", "--out", "res", "--quiet", "--no-plots"});
    check_one_line_error(r, {"study.json: /initial", "energy of the initial state is"});
  }
  SECTION("an impact map on a system without guards") {
    json j = particle_study("no_guards");
    j["impact_map"] = {{"plugin", "elastic_nonholonomic"}};
    s.study(j);
    const auto r = s.run({"study.json", "--out", "res", "--quiet", "--no-plots"});
    check_one_line_error(r, {"study.json: /impact_map", "Guarded"});
  }
  CHECK_FALSE(fs::exists(s.dir / "res"));
  CHECK_FALSE(fs::exists(s.dir / "res.failed"));  // nothing ran
}

TEST_CASE("CSV numbers read back bit-identical, in their shortest form", "[safety][csv]") {
  TempDir dir("csv_round_trip");
  const fs::path file = dir / "n.csv";
  std::vector<double> values = {0.1, 1.0 / 3.0, -0.0, 0.0, 1e-310 /* subnormal */, std::numeric_limits<double>::denorm_min(),
                                std::numeric_limits<double>::max(), std::numeric_limits<double>::lowest(),
                                std::numeric_limits<double>::min(), -2.2250738585072014e-308, 123456789012345680.0, 5e-324,
                                std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
  std::mt19937_64 rng(5);
  for (int i = 0; i < 2000; ++i) {  // random bit patterns: every exponent, sign and mantissa
    const std::uint64_t bits = rng();
    double x;
    std::memcpy(&x, &bits, sizeof x);
    if (std::isfinite(x)) values.push_back(x);
  }
  {
    dalembert::CsvWriter csv(file, {"x"});
    for (double x : values) csv.row(&x);
    csv.close();
  }
  std::istringstream in(read_text(file));
  std::string line;
  std::getline(in, line);
  CHECK(line == "x");
  std::size_t k = 0, mismatches = 0;
  while (std::getline(in, line)) {
    REQUIRE(k < values.size());
    const double back = std::strtod(line.c_str(), nullptr);
    if (std::memcmp(&back, &values[k], sizeof back) != 0) {
      ++mismatches;
      UNSCOPED_INFO("row " << k << ": " << line);
    }
    ++k;
  }
  CHECK(k == values.size());
  CHECK(mismatches == 0);
  // Shortest form: 0.1 is written "0.1", not %.17g's "0.10000000000000001".
  CHECK(read_text(file).rfind("x\n0.1\n0.3333333333333333\n-0\n0\n", 0) == 0);
}

TEST_CASE("CSV text fields are quoted per RFC 4180, and a file appears only when complete", "[safety][csv]") {
  TempDir dir("csv");
  const fs::path file = dir / "t.csv";
  {
    dalembert::CsvWriter csv(file, {"label", "a,b", "x"});
    csv.row({"plain"}, {1.5, 2.0});
    csv.row({"say \"hi\", twice"}, {0.25, -1.0});
    csv.row({"two\nlines"}, {3.0, 4.0});
    CHECK_FALSE(fs::exists(file));  // still being written, as t.csv.part
    csv.close();
  }
  CHECK_FALSE(fs::exists(dir / "t.csv.part"));
  CHECK(read_text(file) ==
        "label,\"a,b\",x\n"
        "plain,1.5,2\n"
        "\"say \"\"hi\"\", twice\",0.25,-1\n"
        "\"two\nlines\",3,4\n");
}

TEST_CASE("a run never takes a complete run named NAME.incomplete, .failed or .previous for its own", "[safety]") {
  // Issue 26: study 'r' used to delete the complete results of a study named r.failed (and the
  // like) in the same folder, as if they were its own staging, failed or previous folder.
  for (const std::string suffix : {".incomplete", ".failed", ".previous"}) {
    Sandbox s;
    INFO("a complete run named r" << suffix);
    s.study(particle_study("r" + suffix), "other.json");
    REQUIRE(s.run({"other.json", "--quiet", "--no-plots"}).status == 0);
    const fs::path other = s.dir / "results" / ("r" + suffix);
    REQUIRE(fs::exists(other / "manifest.json"));
    s.study(particle_study("r"));
    const auto before = snapshot(s.dir.path());
    for (int rerun = 0; rerun < 2; ++rerun) {  // a second run of r would replace r.previous
      const auto r = s.run({"study.json", "--quiet", "--no-plots"});
      check_one_line_error(r, {"results/r" + suffix + ": is the name of r's", "it is a complete run", "left untouched"});
    }
    check_kept(before, s.dir.path());
    CHECK_FALSE(fs::exists(s.dir / "results" / "r.lock"));
  }
  SECTION("while r's own earlier run is still replaced, generation after generation") {
    Sandbox s;
    s.study(particle_study("r"));
    for (int run = 0; run < 3; ++run) REQUIRE(s.run({"study.json", "--quiet", "--no-plots"}).status == 0);
    CHECK(fs::exists(s.dir / "results" / "r" / "manifest.json"));
    CHECK(fs::exists(s.dir / "results" / "r.previous" / "manifest.json"));
  }
}

TEST_CASE("an empty folder may be the --out folder, replaced only while it is still empty", "[safety]") {
  Sandbox s;
  s.study(particle_study("p"));
  fs::create_directories(s.dir / "empty");
  const auto r = s.run({"study.json", "--out", "empty", "--quiet", "--no-plots"});
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(fs::exists(s.dir / "empty" / "manifest.json"));
  CHECK(fs::exists(s.dir / "empty" / "trajectory_rk4.csv"));
  CHECK_FALSE(fs::exists(s.dir / "empty.incomplete"));
  SECTION("a folder that is no longer empty when the run is complete is left as it is") {
    fs::create_directories(s.dir / "later");
    dalembert::RunFolder folder(s.dir / "later");
    write_text(folder.file("data.csv"), "t\n0\n");
    write_text(s.dir / "later" / "mine.txt", "written while the run ran\n");
    CHECK_THROWS_WITH(folder.commit(), Catch::Contains("later") && Catch::Contains("no longer new or empty"));
    CHECK(read_text(s.dir / "later" / "mine.txt") == "written while the run ran\n");
    CHECK(snapshot(s.dir / "later").size() == 1);
  }
}

TEST_CASE("a full disk before the run starts leaves neither a lock file nor a staging folder", "[safety]") {
  Sandbox s;
  s.study(particle_study("p"));
  SECTION("no room for the lock's text: writing it fails after the file was created") {
    const auto r = run_dalembert({"run", "study.json", "--out", "res", "--quiet", "--no-plots"}, {s.dir.path(), 8});
    check_one_line_error(r, {"cannot write the lock file", "res.lock"});
  }
  SECTION("room for the lock, not for the staging folder's marker") {
    const auto r = run_dalembert({"run", "study.json", "--out", "res", "--quiet", "--no-plots"}, {s.dir.path(), 40});
    check_one_line_error(r, {"res", "cannot be created or written"});
  }
  CHECK_FALSE(fs::exists(s.dir / "res.lock"));
  CHECK_FALSE(fs::exists(s.dir / "res.incomplete"));
  CHECK_FALSE(fs::exists(s.dir / "res.failed"));
  const auto again = s.run({"study.json", "--out", "res", "--quiet", "--no-plots"});  // the disk has room again
  INFO(again.err);
  CHECK(again.status == 0);
}

namespace {

// A run of the blow-up fixture (V = -q^4): its task fails, leaving res.failed with a checkpoint.
void failed_run(Sandbox& s) {
  json j = particle_study("doomed");
  j["plugin_paths"] = {DALEMBERT_FIXTURE_SYSTEMS_DIR};
  j["system"] = {{"plugin", "blowup"}};
  j["initial"] = {{"q", {1.0}}, {"v", {std::sqrt(2.0)}}};
  j["h"] = 0.01;
  j["T"] = 2;
  s.study(j);
  REQUIRE(s.run({"study.json", "--out", "res", "--quiet", "--no-plots"}).status == 1);
  REQUIRE(fs::exists(s.dir / "res.failed" / "checkpoint" / "study.json"));
}

}  // namespace

TEST_CASE("a resume refuses a run folder holding a symbolic link: no chunk is written outside it", "[safety]") {
  Sandbox s;
  failed_run(s);
  fs::create_directories(s.dir / "elsewhere");
  SECTION("the checkpoint folder is a link") {
    fs::rename(s.dir / "res.failed" / "checkpoint", s.dir / "elsewhere" / "checkpoint");
    fs::create_directory_symlink(s.dir / "elsewhere" / "checkpoint", s.dir / "res.failed" / "checkpoint");
  }
  SECTION("a chunk file's temporary name is a link") {
    write_text(s.dir / "elsewhere" / "precious.txt", "not a checkpoint\n");
    fs::create_symlink(s.dir / "elsewhere" / "precious.txt", s.dir / "res.failed" / "checkpoint" / "chunk_000000.bin.part");
  }
  const auto before = snapshot(s.dir / "elsewhere");
  const auto r = s.run({"study.json", "--out", "res", "--resume", "--quiet", "--no-plots"});
  check_one_line_error(r, {"cannot resume", "is a symbolic link", "res.failed"});
  CHECK(snapshot(s.dir / "elsewhere") == before);
  CHECK(fs::exists(s.dir / "res.failed"));  // left as it was
  CHECK_FALSE(fs::exists(s.dir / "res.incomplete"));
  CHECK_FALSE(fs::exists(s.dir / "res.lock"));
}

TEST_CASE("plot refuses links in the run folder: no figure is written outside it", "[safety]") {
  Sandbox s;
  json j = particle_study("drawn");
  j["observers"] = {"energy_error"};
  j["figures"] = {{{"name", "energy"}, {"type", "timeseries"}, {"y", "energy_error"}}};
  s.study(j);
  const auto first = s.run({"study.json", "--out", "res", "--quiet"});
  INFO(first.err);
  REQUIRE(first.status == 0);
  REQUIRE(fs::exists(s.dir / "res" / "figures" / "energy.png"));
  fs::create_directories(s.dir / "elsewhere");
  write_text(s.dir / "elsewhere" / "energy.png", "precious\n");
  SECTION("figures/ is a link") {
    fs::remove_all(s.dir / "res" / "figures");
    fs::create_directory_symlink(s.dir / "elsewhere", s.dir / "res" / "figures");
  }
  SECTION("a figure file is a link") {
    fs::remove(s.dir / "res" / "figures" / "energy.png");
    fs::create_symlink(s.dir / "elsewhere" / "energy.png", s.dir / "res" / "figures" / "energy.png");
  }
  const auto before = snapshot(s.dir / "elsewhere");
  const auto r = run_dalembert({"plot", "res"}, {s.dir.path()});
  check_one_line_error(r, {"symbolic link"});
  CHECK(snapshot(s.dir / "elsewhere") == before);
}
