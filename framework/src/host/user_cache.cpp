// The user's cache folder (user_cache.hpp).
#include <atomic>
#include <cstdlib>
#include <dalembert/host/sha256.hpp>
#include <dalembert/host/user_cache.hpp>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace dalembert {

namespace {

std::optional<fs::path> env_path(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return std::nullopt;
  return fs::path(v);
}

// "path|dev|ino|size|mtime ns|ctime ns", or nullopt if the file cannot be stat'ed.
std::optional<std::string> identity(const fs::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return std::nullopt;
  std::ostringstream s;
  s << fs::absolute(file).string() << '|' << st.st_dev << '|' << st.st_ino << '|' << st.st_size << '|'
    << st.st_mtim.tv_sec << '.' << st.st_mtim.tv_nsec << '|' << st.st_ctim.tv_sec << '.' << st.st_ctim.tv_nsec;
  return s.str();
}

std::optional<fs::path> entry(const std::string& set, const std::string& key) {
  const auto dir = user_cache_folder();
  if (!dir) return std::nullopt;
  return *dir / set / key;
}

std::optional<std::string> read_entry(const std::string& set, const std::string& key) {
  const auto path = entry(set, key);
  if (!path) return std::nullopt;
  std::ifstream in(*path);
  std::string text;
  if (!in || !std::getline(in, text)) return std::nullopt;
  return text;
}

// Written whole: a temporary in the same folder, then rename(2) over the entry.
void write_entry(const std::string& set, const std::string& key, const std::string& text) {
  const auto path = entry(set, key);
  if (!path) return;
  std::error_code ec;
  fs::create_directories(path->parent_path(), ec);
  if (ec) return;
  static std::atomic<unsigned> serial{0};
  const fs::path tmp = path->string() + ".tmp" + std::to_string(::getpid()) + "-" + std::to_string(serial++);
  {
    std::ofstream out(tmp, std::ios::trunc);
    if (!(out << text << '\n')) {
      fs::remove(tmp, ec);
      return;
    }
  }
  fs::rename(tmp, *path, ec);
  if (ec) fs::remove(tmp, ec);
}

bool is_hex_sha256(const std::string& s) {
  return s.size() == 64 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

}  // namespace

std::optional<fs::path> user_cache_folder() {
  if (const char* v = std::getenv("DALEMBERT_CACHE_DIR")) {
    if (!*v || std::string(v) == "off") return std::nullopt;
    return fs::path(v);
  }
  if (const auto xdg = env_path("XDG_CACHE_HOME")) return *xdg / "dalembert";
  if (const auto home = env_path("HOME")) return *home / ".cache" / "dalembert";
  return std::nullopt;
}

std::string cached_file_sha256(const fs::path& file) {
  const auto before = identity(file);
  if (!before) return file_sha256(file);  // says why it cannot be read
  const std::string key = sha256_hex(*before);
  if (const auto hit = read_entry("sha256", key); hit && is_hex_sha256(*hit)) return *hit;
  const std::string sha = file_sha256(file);
  // kept only if the file did not change while it was read
  if (identity(file) == before) write_entry("sha256", key, sha);
  return sha;
}

bool user_cache_has(const std::string& set, const std::string& key) { return read_entry(set, key).has_value(); }

void user_cache_add(const std::string& set, const std::string& key) { write_entry(set, key, "1"); }

}  // namespace dalembert
