// Provenance by content (issue 26): SHA-256 written here (no cryptography library) against the
// FIPS 180-2 vectors and against sha256sum; the manifest, report and `describe` record the
// SHA-256 of libdalembert and of every plugin file loaded (a composite's parts too); every file a
// run leaves is in the manifest's file index. (--resume against a rebuilt plugin:
// tests/distributed/check_distributed.py rebuilt.)
#include <catch2/catch.hpp>
#include <cstdio>
#include <dalembert/host/sha256.hpp>
#include <dalembert/study/checkpoint.hpp>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "cli_support.hpp"  // tests/

namespace fs = std::filesystem;
using nlohmann::json;
using namespace dalembert::test;

namespace {

// What coreutils' sha256sum prints for `file`: an implementation independent of ours.
std::string sha256sum(const fs::path& file) {
  std::FILE* p = ::popen(("sha256sum " + quote(file.string())).c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[65] = {};
  const std::size_t n = std::fread(buf, 1, 64, p);
  ::pclose(p);
  REQUIRE(n == 64);
  return std::string(buf, 64);
}

}  // namespace

TEST_CASE("SHA-256 gives the FIPS 180-2 test vectors", "[provenance][sha256]") {
  using dalembert::sha256_hex;
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // 448 bits: the padding needs a second block.
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(sha256_hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu") ==
        "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  CHECK(sha256_hex(std::string(1000000, 'a')) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("SHA-256 of files agrees with sha256sum at every padding boundary and on a plugin file", "[provenance][sha256]") {
  TempDir dir("sha256");
  std::mt19937 rng(26);
  // Lengths around the 64-byte block, the 56-byte length field and the 64 KiB read buffer.
  for (std::size_t n : {0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 65535, 65536, 65537, 200000}) {
    std::string bytes(n, '\0');
    for (auto& c : bytes) c = static_cast<char>(rng());
    const fs::path f = dir / ("bytes_" + std::to_string(n));
    write_text(f, bytes);
    INFO(n << " bytes");
    CHECK(dalembert::file_sha256(f) == sha256sum(f));
    CHECK(dalembert::sha256_hex(bytes) == sha256sum(f));
  }
  const fs::path plugin = fs::path(DALEMBERT_BINARY_DIR) / "lib" / "dalembert" / "plugins" / "dalembert_integrator_rk4.so";
  REQUIRE(fs::exists(plugin));
  CHECK(dalembert::file_sha256(plugin) == sha256sum(plugin));
  CHECK_THROWS_WITH(dalembert::file_sha256(dir / "missing"), Catch::Contains("missing") && Catch::Contains("cannot read"));
}

TEST_CASE("the manifest and report record the SHA-256 of libdalembert and of every plugin file loaded", "[provenance]") {
  StudyCase c("provenance");
  // A composition whose stage is an integrator the study does not name: it is loaded all the same.
  const json study = {{"name", "provenance"},
                      {"kind", "trajectory"},
                      {"system", {{"plugin", "nonholonomic_particle"}}},
                      {"initial", {{"q", {1, 1, -1}}, {"v", {1, -1, 1}}}},
                      {"h", 0.1},
                      {"T", 0.2},
                      {"integrators",
                       {{{"plugin", "composition"},
                         {"label", "composed"},
                         {"params", {{"stages", {{{"integrator", "rk4"}, {"fraction", 1.0}}}}}}}}},
                      {"observers", {"energy_error"}}};
  const auto r = c.run(study);
  INFO(r.err);
  REQUIRE(r.status == 0);
  const json m = json::parse(read_text(c.out / "manifest.json"));
  const json& lib = m["dalembert"];
  REQUIRE(lib.contains("library"));
  REQUIRE(lib.contains("sha256"));
  CHECK(fs::path(lib["library"].get<std::string>()).filename().string().rfind("libdalembert.so", 0) == 0);
  CHECK(lib["sha256"] == sha256sum(lib["library"].get<std::string>()));
  std::set<std::string> names;
  for (const auto& p : m["plugins"]) {
    INFO(p.dump());
    names.insert(p["kind"].get<std::string>() + " " + p["name"].get<std::string>());
    CHECK(p.value("sha256", "") == sha256sum(p["file"].get<std::string>()));
  }
  CHECK(names == std::set<std::string>{"system nonholonomic_particle", "integrator composition", "integrator rk4",
                                       "observer energy_error"});
  const std::string report = read_text(c.out / "report.md");
  CHECK(report.find(lib["sha256"].get<std::string>()) != std::string::npos);
  for (const auto& p : m["plugins"]) CHECK(report.find("`" + p.value("sha256", "?") + "`") != std::string::npos);
}

TEST_CASE("describe shows the SHA-256 of the plugin file and of libdalembert", "[provenance]") {
  TempDir dir("describe_sha");
  const auto r = run_cli("describe rk4", dir.path());
  INFO(r.err);
  REQUIRE(r.status == 0);
  const fs::path plugin = fs::path(DALEMBERT_BINARY_DIR) / "lib" / "dalembert" / "plugins" / "dalembert_integrator_rk4.so";
  CHECK(r.out.find("  sha256: " + sha256sum(plugin) + "\n") != std::string::npos);
  const std::string label = "  framework library: ";
  const auto at = r.out.find(label);
  REQUIRE(at != std::string::npos);
  const auto from = at + label.size();
  const std::string library = r.out.substr(from, r.out.find('\n', from) - from);
  CHECK(r.out.find("  framework sha256: " + sha256sum(library) + "\n") != std::string::npos);
}

TEST_CASE("a resume against other code is refused, naming the file and both hashes", "[provenance]") {
  // What a rebuilt libdalembert or plugin looks like to the checkpoint (the CLI case, with a real
  // rebuilt plugin killed and resumed: tests/distributed/check_distributed.py rebuilt).
  TempDir dir("checkpoint_code");
  const dalembert::Checkpoint cp(dir.path());
  const std::string a(64, 'a'), b(64, 'b');
  const json then = dalembert::task_fingerprint(json::array({{{"name", "s"}}}),
                                                {{{"kind", "integrator"}, {"name", "rk4"}, {"sha256", a}}});
  cp.start(then);
  CHECK(cp.matches(then, "s.json"));
  json now = then;
  SECTION("libdalembert") {
    now["libdalembert_sha256"] = b;
    CHECK_THROWS_WITH(cp.matches(now, "s.json"),
                      Catch::Contains("cannot resume: libdalembert (") &&
                          Catch::Contains("SHA-256 " + then["libdalembert_sha256"].get<std::string>() + " then, " + b + " now"));
  }
  SECTION("a plugin file") {
    now["plugins"][0]["sha256"] = b;
    CHECK_THROWS_WITH(cp.matches(now, "s.json"),
                      Catch::Contains("cannot resume: integrator plugin 'rk4' was rebuilt or replaced since the "
                                      "interrupted run: its file had SHA-256 " + a + ", now " + b));
  }
  SECTION("a checkpoint that recorded no hashes") {
    json old = then;
    old.erase("libdalembert_sha256");
    old.erase("plugins");
    cp.start(old);
    CHECK_THROWS_WITH(cp.matches(then, "s.json"), Catch::Contains("did not record the SHA-256 of its code"));
  }
}

namespace {

// The files of a run folder (a sweep's cells aside: each has its manifest) and those its manifest indexes.
void check_indexed(const fs::path& folder) {
  const json m = json::parse(read_text(folder / "manifest.json"));
  std::set<std::string> indexed, on_disk;
  for (const auto& f : m["files"]) indexed.insert(f["path"].get<std::string>());
  for (auto it = fs::recursive_directory_iterator(folder); it != fs::recursive_directory_iterator(); ++it) {
    if (it->path().filename() == "cells") it.disable_recursion_pending();
    else if (it->is_regular_file()) on_disk.insert(fs::relative(it->path(), folder).string());
  }
  on_disk.erase("manifest.json");   // the index itself
  on_disk.erase(".dalembert_run");  // the run folder's marker
  INFO(folder);
  CHECK(indexed == on_disk);
  CHECK(indexed.count("claims.csv") == 1);
}

}  // namespace

TEST_CASE("every file a run leaves is in its manifest's file index, claims.csv too", "[provenance]") {
  StudyCase c("file_index");
  json study = {{"name", "file_index"},
                {"kind", "trajectory"},
                {"system", {{"plugin", "nonholonomic_particle"}}},
                {"initial", {{"q", {1, 1, -1}}, {"v", {1, -1, 1}}}},
                {"h", 0.1},
                {"T", 0.2},
                {"integrators", {"rk4"}},
                {"observers", {"energy_error"}},
                {"claims", {{"checks", {{{"id", "small"},
                                         {"quantity", {{"column", "energy_error"}, {"task", "rk4"}, {"stat", "max_abs"}}},
                                         {"<", 1.0}}}}}}};
  SECTION("a study") {
    const auto r = c.run(study);
    INFO(r.err);
    REQUIRE(r.status == 0);
    check_indexed(c.out);
  }
  SECTION("a sweep and each of its cells") {
    study.erase("claims");
    study["kind"] = "sweep";
    study["sweep"] = {{"of", "trajectory"}, {"axes", {{{"name", "h"}, {"set", {"/h"}}, {"values", {0.1, 0.05}}}}}};
    const auto r = c.run(study);
    INFO(r.err);
    REQUIRE(r.status == 0);
    check_indexed(c.out);
    check_indexed(c.out / "cells" / "cell_0000");
    check_indexed(c.out / "cells" / "cell_0001");
  }
}
