// The user's cache folder (issue 32 item 3; framework/internal/dalembert/host/user_cache.hpp): a
// file's SHA-256 remembered while the file is unchanged — and recomputed when its bytes change even
// with the same size and modification time, or when the entry is damaged — and "this plugin file
// loaded in a probe process" remembered for plugins that loaded, never for one that was refused.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <dalembert/host/sha256.hpp>
#include <dalembert/host/user_cache.hpp>
#include <fcntl.h>
#include <sys/stat.h>

#include "cli_support.hpp"  // tests/

namespace fs = std::filesystem;
using namespace dalembert::test;

namespace {

// Sets DALEMBERT_CACHE_DIR for the life of the object (this test process only).
struct CacheDir {
  explicit CacheDir(const std::string& value) { ::setenv("DALEMBERT_CACHE_DIR", value.c_str(), 1); }
  ~CacheDir() { ::unsetenv("DALEMBERT_CACHE_DIR"); }
};

std::size_t entries(const fs::path& dir) {
  if (!fs::exists(dir)) return 0;
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

}  // namespace

TEST_CASE("user cache: a file's SHA-256 is remembered while the file is unchanged", "[provenance][cache]") {
  TempDir dir("user_cache_sha");
  const CacheDir env((dir / "cache").string());
  const fs::path f = dir / "data.bin";
  write_text(f, std::string(100000, 'a'));
  const std::string a = dalembert::sha256_hex(std::string(100000, 'a'));
  CHECK(dalembert::cached_file_sha256(f) == a);
  REQUIRE(entries(dir / "cache" / "sha256") == 1);
  const fs::path entry = fs::directory_iterator(dir / "cache" / "sha256")->path();
  CHECK(read_text(entry) == a + "\n");
  CHECK(dalembert::cached_file_sha256(f) == a);  // from the entry

  SECTION("other bytes of the same size with the old modification time: hashed again") {
    struct stat st {};
    REQUIRE(::stat(f.c_str(), &st) == 0);
    write_text(f, std::string(100000, 'b'));
    const struct timespec times[2] = {st.st_atim, st.st_mtim};
    REQUIRE(::utimensat(AT_FDCWD, f.c_str(), times, 0) == 0);  // the status-change time still moves
    CHECK(dalembert::cached_file_sha256(f) == dalembert::sha256_hex(std::string(100000, 'b')));
  }
  SECTION("a damaged entry is not believed") {
    write_text(entry, "not a hash\n");
    CHECK(dalembert::cached_file_sha256(f) == a);
    write_text(entry, std::string(64, 'z') + "\n");
    CHECK(dalembert::cached_file_sha256(f) == a);
  }
  SECTION("a file that cannot be read is an error naming it, cached or not") {
    CHECK_THROWS_WITH(dalembert::cached_file_sha256(dir / "missing"), Catch::Contains("missing"));
  }
}

TEST_CASE("user cache: DALEMBERT_CACHE_DIR=off writes nothing", "[provenance][cache]") {
  TempDir dir("user_cache_off");
  const CacheDir env("off");
  CHECK_FALSE(dalembert::user_cache_folder().has_value());
  const fs::path f = dir / "data.txt";
  write_text(f, "abc");
  CHECK(dalembert::cached_file_sha256(f) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  dalembert::user_cache_add("probed", "0123");
  CHECK_FALSE(dalembert::user_cache_has("probed", "0123"));
}

TEST_CASE("user cache: a run remembers the plugins that loaded in a probe, keyed by their bytes and libdalembert's",
          "[provenance][cache][cli]") {
  StudyCase c("user_cache_probe");
  const fs::path cache = c.dir / "cache";
  const nlohmann::json study = {{"name", "user_cache_probe"},
                                {"kind", "trajectory"},
                                {"system", {{"plugin", "nonholonomic_particle"}}},
                                {"initial", {{"q", {1, 1, -1}}, {"v", {1, -1, 1}}}},
                                {"h", 0.1},
                                {"T", 0.2},
                                {"integrators", {{{"plugin", "rk4"}, {"label", "RK4"}}}},
                                {"observers", {"energy_error"}}};
  const std::string env = "DALEMBERT_CACHE_DIR=" + quote(cache.string());
  const auto r = c.run(study, "", env);
  INFO("stderr: " << r.err);
  REQUIRE(r.status == 0);
  // one entry per plugin file the run loaded, named <its SHA-256>-<libdalembert's>
  const auto manifest = nlohmann::json::parse(read_text(c.out / "manifest.json"));
  const std::string framework_sha = manifest.at("dalembert").value("sha256", "");
  REQUIRE(framework_sha.size() == 64);
  const fs::path rk4 = fs::path(DALEMBERT_BINARY_DIR) / "lib" / "dalembert" / "plugins" / "dalembert_integrator_rk4.so";
  CHECK(fs::exists(cache / "probed" / (dalembert::file_sha256(rk4) + "-" + framework_sha)));
  CHECK(entries(cache / "probed") >= 2);  // the system and the integrator (observers too)
  // a second run gives the same manifest hashes from the cache
  StudyCase again("user_cache_probe_again");
  const auto r2 = again.run(study, "", env);
  REQUIRE(r2.status == 0);
  CHECK(read_text(again.out / "manifest.json").find(framework_sha) != std::string::npos);
}
