// Plugins isolated: a misbehaving plugin (tests/fixtures/, each in a folder of its own) gives one
// line "error: ..." naming the plugin and its file, a non-zero exit and never a signal; and it breaks
// only the studies that use it: the others run, `list` reports it and exits 0.
#include <catch2/catch.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/host/registry.hpp>
#include <nlohmann/json.hpp>

#include "cli_process.hpp"  // tests/
#include "cli_support.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace dalembert;
using namespace dalembert::test;

namespace {

// The signal the segfault fixture's probe process dies of. Under AddressSanitizer its SIGSEGV is
// caught by ASan's handler, which reports it and aborts (abort_on_error=1 in the asan test preset).
#if defined(__SANITIZE_ADDRESS__)
const std::string kSegfaultSignal = "SIGABRT";
#else
const std::string kSegfaultSignal = "SIGSEGV";
#endif


fs::path fixture_dir(const std::string& name) { return fs::path(DALEMBERT_TEST_FIXTURE_DIR) / name; }

// The file of fixture `name` (an integrator), in its own folder.
std::string fixture_file(const std::string& name, const std::string& folder = "") {
  return (fixture_dir(folder.empty() ? name : folder) / ("dalembert_integrator_" + name + ".so")).string();
}

std::string plugin_path_env(const std::vector<std::string>& folders) {
  std::string value;
  for (const auto& f : folders) value += (value.empty() ? "" : ":") + fixture_dir(f).string();
  return "DALEMBERT_PLUGIN_PATH=" + quote(value);
}

// Two steps of the nonholonomic particle with the integrator `plugin`; `plugin_folder` is a fixture
// folder named in the study's "plugin_paths" ("" for none).
json study_with(const std::string& plugin, const std::string& plugin_folder = "") {
  json j;
  j["name"] = "isolation";
  j["kind"] = "trajectory";
  j["system"] = {{"plugin", "nonholonomic_particle"}};
  j["initial"] = {{"q", {1, 1, -1}}, {"v", {1, -1, 1}}};
  j["h"] = 0.1;
  j["T"] = 0.2;
  j["integrators"] = json::array({json{{"label", "X"}, {"plugin", plugin}}});
  if (!plugin_folder.empty()) j["plugin_paths"] = {fixture_dir(plugin_folder).string()};
  return j;
}

// Runs the study that uses fixture `name` (named in its plugin_paths) and checks the one-line error.
void check_study_fails(const std::string& name, std::vector<std::string> needles) {
  StudyCase c(name);
  const auto r = c.run(study_with(name, name));
  needles.push_back(c.file.string() + ": /integrators/0");
  needles.push_back(fixture_file(name));
  check_one_line_error(r, needles);
  c.check_no_result();
}

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto p = text.find(needle); p != std::string::npos; p = text.find(needle, p + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("isolation: a constructor that throws an int", "[cli][plugins]") {
  check_study_fails("ctor_throws", {"integrator plugin 'ctor_throws'", "not derived from std::exception"});
}

TEST_CASE("isolation: a factory that returns nullptr", "[cli][plugins]") {
  check_study_fails("null_factory", {"integrator plugin 'null_factory'", "null pointer"});
}

TEST_CASE("isolation: a descriptor without a factory", "[cli][plugins]") {
  check_study_fails("no_factory", {"integrator plugin 'no_factory'", "has no factory", "make_integrator"});
}

TEST_CASE("isolation: describe() throws", "[cli][plugins]") {
  check_study_fails("describe_throws", {"integrator plugin 'describe_throws'", "describe() threw",
                                        "no descriptor today"});
}

TEST_CASE("isolation: a file that describes another plugin than its name says", "[cli][plugins]") {
  check_study_fails("misnamed", {"integrator plugin 'misnamed'", "'impostor'"});
}

TEST_CASE("isolation: a static initialiser that raises SIGSEGV", "[cli][plugins]") {
  check_study_fails("segfault", {"integrator plugin 'segfault'", "crashed with " + kSegfaultSignal + " while loading"});
}

// The runner turns it into the task's failure, named by the integrator's path and label.
TEST_CASE("isolation: step() throws a type not derived from std::exception", "[cli][plugins]") {
  StudyCase c("step_throws");
  const auto r = c.run(study_with("step_throws", "step_throws"));
  check_one_line_error(r, {c.file.string() + ": /integrators/0 [X, h = 0.1]", "not a std::exception"});
  c.check_no_result();
}

TEST_CASE("isolation: a crashing plugin on the path breaks only the studies that use it", "[cli][plugins]") {
  const std::string env = plugin_path_env({"segfault", "describe_throws"});
  SECTION("a study that does not use it runs") {
    StudyCase c("unaffected");
    const auto r = c.run(study_with("rk4"), "", env);
    INFO("stderr: " << r.err);
    CHECK(r.status == 0);
    CHECK(r.err.empty());
    CHECK(fs::exists(c.out / "manifest.json"));
  }
  SECTION("list shows the others and warns about the broken files, exit 0") {
    TempDir dir("list_broken");
    const auto r = run_cli("list", dir.path(), env);
    INFO("stderr: " << r.err);
    CHECK(r.status == 0);
    CHECK(r.out.find("rk4") != std::string::npos);
    CHECK(r.out.find("nonholonomic_particle") != std::string::npos);
    CHECK(r.out.find("segfault") == std::string::npos);
    CHECK(r.err.find("warning: " + fixture_file("segfault") + " crashed with " + kSegfaultSignal + " while loading") != std::string::npos);
    CHECK(r.err.find("warning: " + fixture_file("describe_throws") + " is refused: its describe() threw") !=
          std::string::npos);
  }
  SECTION("describe of another plugin works") {
    TempDir dir("describe_other");
    const auto r = run_cli("describe rk4", dir.path(), env);
    INFO("stderr: " << r.err);
    CHECK(r.status == 0);
    CHECK(r.out.find("rk4 (integrator plugin") != std::string::npos);
  }
  SECTION("describe of the broken plugin names its file and the signal") {
    TempDir dir("describe_broken");
    const auto r = run_cli("describe segfault", dir.path(), env);
    check_one_line_error(r, {"describe", "integrator plugin 'segfault'", fixture_file("segfault"), kSegfaultSignal});
  }
}

TEST_CASE("isolation: the registry opens only the file of the plugin asked for", "[plugins]") {
  Registry reg;
  reg.add_search_path(fixture_dir("describe_throws"));
  reg.add_search_path(fixture_dir("segfault"));
  CHECK(reg.find(PluginKind::Integrator, "rk4", "test").name == "rk4");
  CHECK(reg.refused().empty());  // neither broken file was opened
  CHECK_THROWS_WITH(reg.find(PluginKind::Integrator, "segfault", "test"),
                    Catch::Contains(fixture_file("segfault")) && Catch::Contains("crashed with " + kSegfaultSignal));
  REQUIRE(reg.refused().size() == 1);
  CHECK(reg.refused()[0].file.string() == fixture_file("segfault"));
  reg.list(PluginKind::Integrator);  // now every file
  CHECK(reg.refused().size() == 2);
}

TEST_CASE("isolation: factory misbehaviour is a PluginError naming plugin and file", "[plugins]") {
  Registry reg;
  for (const auto* name : {"ctor_throws", "null_factory", "no_factory"}) reg.add_search_path(fixture_dir(name));
  for (const auto* name : {"ctor_throws", "null_factory", "no_factory"}) {
    INFO(name);
    CHECK_THROWS_AS(reg.make_integrator(name, json::object(), "where"), PluginError);
    CHECK_THROWS_WITH(reg.make_integrator(name, json::object(), "where"),
                      Catch::StartsWith("where: integrator plugin '" + std::string(name) + "' (" + fixture_file(name) + ")"));
  }
}

TEST_CASE("isolation: the same plugin name in two folders: the first wins, one warning", "[cli][plugins]") {
  StudyCase c("twin");
  json j = study_with("twin");
  j["integrators"].push_back(json{{"label", "Y"}, {"plugin", "twin"}});
  const auto r = c.run(j, "", plugin_path_env({"twin", "twin_copy"}));
  INFO("stderr: " << r.err);
  CHECK(r.status == 0);
  CHECK(count(r.err, "warning: ") == 1);
  CHECK(count(r.err, "\n") == 1);
  CHECK(r.err.find("integrator plugin 'twin'") != std::string::npos);
  CHECK(r.err.find(fixture_file("twin", "twin_copy")) != std::string::npos);
  CHECK(r.err.find("using " + fixture_file("twin") + " (the first search path wins)") != std::string::npos);
  const json m = json::parse(read_text(c.out / "manifest.json"));
  CHECK(m["plugins"][1]["file"] == fixture_file("twin"));
}

TEST_CASE("isolation: relative plugin paths are made absolute", "[cli][plugins]") {
  TempDir dir("relative");
  fs::create_directories(dir / "mine");
  fs::copy_file(fixture_file("twin"), dir / "mine" / "dalembert_integrator_twin.so");
  const std::string absolute = (dir / "mine" / "dalembert_integrator_twin.so").string();
  SECTION("DALEMBERT_PLUGIN_PATH, against the folder the CLI runs in") {
    write_text(dir / "study.json", study_with("twin").dump());
    const auto r = run_cli("run study.json --out out --quiet --no-plots", dir.path(), "DALEMBERT_PLUGIN_PATH=mine", dir.path());
    INFO("stderr: " << r.err);
    REQUIRE(r.status == 0);
    const json m = json::parse(read_text(dir / "out" / "manifest.json"));
    CHECK(m["plugins"][1]["name"] == "twin");
    CHECK(m["plugins"][1]["file"] == absolute);
  }
  SECTION("a study's plugin_paths, against the study's folder, recorded absolute") {
    json j = study_with("twin");
    j["plugin_paths"] = {"mine"};
    write_text(dir / "study.json", j.dump());
    const auto r = run_cli("run study.json --out out --quiet --no-plots", dir.path(), "", dir.path());
    INFO("stderr: " << r.err);
    REQUIRE(r.status == 0);
    const json m = json::parse(read_text(dir / "out" / "manifest.json"));
    CHECK(m["study"]["plugin_paths"] == json::array({(dir / "mine").string()}));
    CHECK(m["plugins"][1]["file"] == absolute);
  }
  SECTION("add_search_path") {
    const auto cwd = fs::current_path();
    fs::current_path(dir.path());
    Registry reg;
    reg.add_search_path("mine");
    fs::current_path(cwd);  // the path was resolved when added, not when used
    CHECK(reg.search_paths().front().string() == (dir / "mine").string());
    CHECK(reg.find(PluginKind::Integrator, "twin", "test").file == absolute);
  }
}

TEST_CASE("isolation: a missing DALEMBERT_PLUGIN_PATH entry is named in a warning", "[cli][plugins]") {
  TempDir dir("missing_entry");
  const auto r = run_cli("describe rk4", dir.path(), "DALEMBERT_PLUGIN_PATH=no_such_folder", dir.path());
  INFO("stderr: " << r.err);
  CHECK(r.status == 0);
  CHECK(r.err == "warning: DALEMBERT_PLUGIN_PATH names 'no_such_folder', but there is no folder or file " +
                     (dir / "no_such_folder").string() + "\n");
}

// Issue 26: a plugin that crashes the process after it loaded.
TEST_CASE("isolation: a constructor that crashes stops the study before the run", "[cli][plugins]") {
  // The probe process constructs every plugin with the study's parameters first. Before, the
  // CLI itself died of SIGSEGV with nothing on stderr.
  StudyCase c("ctor_segfault");
  json j = study_with("ctor_segfault", "ctor_segfault");
  j["integrators"][0]["params"] = {{"tag", 7}};
  const auto r = c.run(j);
  check_one_line_error(r, {c.file.string() + ": /integrators/0: integrator plugin 'ctor_segfault' (" +
                               fixture_file("ctor_segfault") + ") crashed with " + kSegfaultSignal +
                               " while being constructed with parameters {\"tag\":7} (in a probe process, before the run)"});
  c.check_no_result();
}

TEST_CASE("isolation: a sweep cell whose plugin crashes while constructed is named", "[cli][plugins]") {
  StudyCase c("ctor_segfault_sweep");
  json j = study_with("rk4", "ctor_segfault");
  j["kind"] = "sweep";
  j["integrators"].push_back(json{{"label", "C"}, {"plugin", "ctor_segfault"}, {"params", {{"tag", 1}}}});
  j["sweep"] = {{"of", "trajectory"}, {"axes", {{{"name", "tag"}, {"set", {"/integrators/1/params/tag"}}, {"values", {1, 2}}}}}};
  const auto r = c.run(j);
  check_one_line_error(r, {c.file.string() + ": /sweep, cell 0 (tag = 1.0)", "integrator plugin 'ctor_segfault'",
                           "crashed with " + kSegfaultSignal + " while being constructed with parameters {\"tag\":1.0}"});
  c.check_no_result();
}

TEST_CASE("isolation: a plugin that crashes while stepping is named, with its task and parameters", "[cli][plugins]") {
  // The process still ends by the signal (it cannot be recovered), but first says which plugin,
  // task and parameters were running, on stderr and in error.txt of the staging folder, which
  // --resume continues. Before: a bare SIGSEGV and nothing written.
  StudyCase c("step_segfault");
  json j = study_with("step_segfault", "step_segfault");
  j["integrators"][0]["params"] = {{"tag", 7}};
  write_text(c.file, j.dump());
  const CliRun r = run_dalembert({"run", c.file.string(), "--out", c.out.string(), "--quiet", "--no-plots", "--threads", "2"},
                                 {c.dir.path()});
  INFO("stderr: " << r.err);
#if !defined(__SANITIZE_ADDRESS__)
  CHECK(r.signal == SIGSEGV);
#endif
  const std::string line = c.file.string() + ": /integrators/0 [X, h = 0.1]: running system 'nonholonomic_particle' {} "
                           "with integrator 'step_segfault' {\"tag\":7}";
  CHECK(r.err.rfind("error: " + line, 0) == 0);
  CHECK(r.err.find("crashed the process with SIGSEGV") != std::string::npos);
  const fs::path staging = c.out.string() + ".incomplete";
  REQUIRE(fs::exists(staging / "error.txt"));
  const std::string error_txt = read_text(staging / "error.txt");
  CHECK(error_txt.rfind(line, 0) == 0);
  CHECK(std::count(error_txt.begin(), error_txt.end(), '\n') == 1);
  CHECK_FALSE(fs::exists(c.out));
}

TEST_CASE("isolation: a library's exception in a plugin is said in words, with the plugin's parameters", "[cli][plugins]") {
  // Before, the library's own text reached the user: "cannot create std::vector larger than
  // max_size()", "vector::_M_range_check: __n (which is 7) >= ...", "[json.exception.type_error.302] ...".
  const std::vector<std::pair<std::string, std::string>> errors = {
      {"length", "too large to allocate (std::length_error)"},
      {"range", "an index out of range (std::out_of_range)"},
      {"json", "a JSON value of the wrong type (type must be number, but is string)"}};
  for (const auto& [error, words] : errors)
    for (const std::string in : {"constructor", "step"}) {
      INFO(error << " in " << in);
      StudyCase c("library_throws");
      json j = study_with("library_throws", "library_throws");
      j["integrators"][0]["params"] = {{"error", error}, {"in", in}};
      const auto r = c.run(j);
      const std::string params = "{\"error\":\"" + error + "\",\"in\":\"" + in + "\"}";
      if (in == "constructor")
        check_one_line_error(r, {c.file.string() + ": /integrators/0: integrator plugin 'library_throws'",
                                 "failed to construct with parameters " + params + ": ", words});
      else
        check_one_line_error(r, {c.file.string() + ": /integrators/0 [X, h = 0.1]: ", words,
                                 "running system 'nonholonomic_particle' {} with integrator 'library_throws' " + params});
      for (const std::string raw : {"max_size()", "_M_range_check", "json.exception"}) CHECK(r.err.find(raw) == std::string::npos);
    }
}
