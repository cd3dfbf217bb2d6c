#include <dalembert/core/errors.hpp>
#include <dalembert/study/run_folder.hpp>
#include <fstream>

namespace fs = std::filesystem;

namespace dalembert {

RunFolder::RunFolder(const fs::path& final_dir) : final_(final_dir) {
  staging_ = final_;
  staging_ += ".incomplete";
  std::error_code ec;
  fs::remove_all(staging_, ec);
  fs::create_directories(staging_, ec);
  const fs::path probe = staging_ / ".write_test";
  std::ofstream out(probe);
  if (ec || !out) {
    throw InputError(final_.string(), "the output folder cannot be created or written" +
                                          (ec ? ": " + ec.message() : std::string()));
  }
  out.close();
  fs::remove(probe, ec);
}

RunFolder::~RunFolder() {
  if (!done_) {
    try {
      fail("the run was interrupted");
    } catch (...) {
    }
  }
}

void RunFolder::commit() {
  std::error_code ec;
  fs::remove_all(final_, ec);
  fs::rename(staging_, final_, ec);
  if (ec) throw Error("cannot move " + staging_.string() + " to " + final_.string() + ": " + ec.message());
  fs::path failed = final_;
  failed += ".failed";
  fs::remove_all(failed, ec);  // an older failure of the same study is now stale
  done_ = true;
}

void RunFolder::fail(const std::string& error) {
  done_ = true;
  std::ofstream(staging_ / "error.txt") << error << "\n";
  fs::path failed = final_;
  failed += ".failed";
  std::error_code ec;
  fs::remove_all(failed, ec);
  fs::rename(staging_, failed, ec);
}

}  // namespace dalembert
