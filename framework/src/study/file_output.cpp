#include <cerrno>
#include <cstdio>
#include <cstring>
#include <dalembert/core/errors.hpp>
#include <dalembert/study/file_output.hpp>
#include <fcntl.h>
#include <unistd.h>

namespace dalembert {

std::FILE* open_part_file(const std::filesystem::path& file) {
  const std::filesystem::path part = file.string() + ".part";
  const int fd = ::open(part.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0666);
  if (fd < 0 && errno == ELOOP)
    throw Error("cannot write " + file.string() + ": " + part.string() +
                " is a symbolic link; refusing to write through it (a run folder holds no links)");
  std::FILE* f = fd < 0 ? nullptr : ::fdopen(fd, "w");
  if (!f) {
    const int err = errno;
    if (fd >= 0) ::close(fd);
    throw Error("cannot write " + file.string() + ": " + std::strerror(err));
  }
  return f;
}

void write_file_atomically(const std::filesystem::path& file, std::string_view text) {
  const std::filesystem::path part = file.string() + ".part";
  std::FILE* f = open_part_file(file);
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
