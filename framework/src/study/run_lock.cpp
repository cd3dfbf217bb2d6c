#include <cerrno>
#include <cstring>
#include <dalembert/core/errors.hpp>
#include <dalembert/study/run_lock.hpp>
#include <fcntl.h>
#include <string>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace dalembert {

namespace {

constexpr char kSignature[] = "dalembert run lock";

std::string read_head(int fd) {
  char buf[128] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
}

// The lock file still names the inode we locked (another run may have removed and re-created it
// between our open() and flock()).
bool still_linked(int fd, const fs::path& file) {
  struct stat a {}, b {};
  return ::fstat(fd, &a) == 0 && ::stat(file.c_str(), &b) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

}  // namespace

RunLock::RunLock(const fs::path& folder) : file_(folder.string() + ".lock") {
  for (int attempt = 0; attempt < 3; ++attempt) {
    const int fd = ::open(file_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
      throw InputError(folder.string(), "cannot create the lock file " + file_.string() + ": " + std::strerror(errno));
    const std::string head = read_head(fd);
    if (!head.empty() && head.rfind(kSignature, 0) != 0) {
      ::close(fd);
      throw InputError(folder.string(), file_.string() + " exists and is not a dalembert lock file; it is left as it is: "
                                        "move it, or choose another output folder");
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const auto pid = head.substr(head.find('\n') == std::string::npos ? head.size() : head.find('\n') + 1);
      ::close(fd);
      throw InputError(folder.string(), "another dalembert run (pid " + (pid.empty() ? std::string("?") : pid.substr(0, pid.find('\n'))) +
                                        ") is writing this output folder; wait for it to finish or choose another --out");
    }
    if (!still_linked(fd, file_)) {  // lost a race with a finishing run: try again
      ::close(fd);
      continue;
    }
    const std::string text = std::string(kSignature) + "\n" + std::to_string(::getpid()) + "\n";
    errno = 0;
    if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) {
      const int err = errno ? errno : ENOSPC;  // a short write: the disk (or the file size limit) is full
      ::unlink(file_.c_str());  // ours now (locked, checked): gone, as when a run ends (e.g. a full disk)
      ::close(fd);
      throw InputError(folder.string(), "cannot write the lock file " + file_.string() + ": " + std::strerror(err));
    }
    fd_ = fd;
    return;
  }
  throw InputError(folder.string(), "cannot take the lock " + file_.string() + ": other runs keep replacing it");
}

RunLock::~RunLock() {
  if (fd_ < 0) return;
  ::unlink(file_.c_str());  // while still holding the lock: the next run creates a fresh file
  ::close(fd_);
}

}  // namespace dalembert
