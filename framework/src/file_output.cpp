#include <cerrno>
#include <cstdio>
#include <cstring>
#include <dalembert/core/errors.hpp>
#include <dalembert/study/file_output.hpp>

namespace dalembert {

void write_file_atomically(const std::filesystem::path& file, std::string_view text) {
  const std::filesystem::path part = file.string() + ".part";
  std::FILE* f = std::fopen(part.c_str(), "w");
  if (!f) throw Error("cannot write " + file.string() + ": " + std::strerror(errno));
  const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size() && std::fflush(f) == 0;
  const int err = errno;
  if (std::fclose(f) != 0 || !written) {
    std::remove(part.c_str());
    throw Error("error while writing " + file.string() + ": " + std::strerror(written ? errno : err));
  }
  std::error_code ec;
  std::filesystem::rename(part, file, ec);
  if (ec) throw Error("cannot rename " + part.string() + " to " + file.string() + ": " + ec.message());
}

void write_json_file(const std::filesystem::path& file, const nlohmann::json& j) {
  // Non-finite numbers have no JSON form (nlohmann writes null); strings are escaped as UTF-8,
  // replacing invalid bytes rather than throwing half-way through a manifest.
  write_file_atomically(file, j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

}  // namespace dalembert
