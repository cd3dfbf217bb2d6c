#include <cerrno>
#include <cstdio>
#include <cstring>
#include <dalembert/core/errors.hpp>
#include <dalembert/study/run_folder.hpp>
#include <fcntl.h>
#include <fstream>
#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

namespace dalembert {

namespace {

bool has_marker(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / RunFolder::marker, ec);
}

bool exists_no_follow(const fs::path& p) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(p, ec));
}

// A folder dalembert made: a real folder (not a link) with the marker, or an older complete run.
bool made_by_dalembert(const fs::path& dir) {
  std::error_code ec;
  if (fs::is_symlink(dir, ec) || !fs::is_directory(dir, ec)) return false;
  return has_marker(dir) || RunFolder::is_complete_run(dir);
}

void remove_ours(const fs::path& dir) {
  if (!exists_no_follow(dir)) return;
  if (!made_by_dalembert(dir))  // checked before the run; re-checked here, never assumed
    throw Error("refusing to remove " + dir.string() + ": it is not a folder dalembert made");
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (ec) throw Error("cannot remove " + dir.string() + ": " + ec.message());
}

void rename_or_throw(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::rename(from, to, ec);
  if (ec) throw Error("cannot move " + from.string() + " to " + to.string() + ": " + ec.message());
}

// Puts `staging` at `final_dir` and the folder that was there at `staging`, in one step where the
// file system can (Linux renameat2); false if it cannot, with nothing moved.
bool exchange(const fs::path& staging, const fs::path& final_dir) {
  return ::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, final_dir.c_str(), RENAME_EXCHANGE) == 0;
}

}  // namespace

fs::path RunFolder::normalize(const fs::path& dir) {
  const std::string shown = "output folder '" + dir.string() + "'";
  if (dir.empty()) throw InputError("output folder ''", "an empty path names no folder");
  fs::path p = dir.lexically_normal();
  if (!p.empty() && p.filename().empty()) p = p.parent_path();  // "res/" -> "res"
  const std::string name = p.filename().string();
  if (p.empty() || name.empty() || name == "." || name == ".." || p == p.root_path())
    throw InputError(shown, "names no folder of its own (it resolves to '" + p.string() +
                                "'); give a new folder, e.g. results/NAME");
  return p;
}

bool RunFolder::is_complete_run(const fs::path& dir) {
  std::error_code ec;
  if (fs::is_symlink(dir, ec) || !fs::is_directory(dir, ec)) return false;
  std::ifstream in(dir / "manifest.json");
  if (!in) return false;
  const auto j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  return j.is_object() && j.contains("dalembert") && j["dalembert"].is_object() && j["dalembert"].contains("version");
}

fs::path RunFolder::sibling(const char* suffix) const { return fs::path(final_.string() + suffix); }

RunFolder::RunFolder(const fs::path& final_dir, bool resume) : final_(normalize(final_dir)) {
  staging_ = sibling(".incomplete");
  std::error_code ec;
  if (!final_.parent_path().empty()) fs::create_directories(final_.parent_path(), ec);
  if (ec) throw InputError(final_.string(), "the output folder cannot be created or written: its parent cannot be created: " + ec.message());
  lock_ = std::make_unique<RunLock>(final_);
  check_replaceable();
  resumed_ = resume && reopen_staging();
  if (!resumed_) create_staging();
}

bool RunFolder::reopen_staging() {
  if (!exists_no_follow(staging_)) {
    const fs::path failed = sibling(".failed");
    if (!exists_no_follow(failed) || !made_by_dalembert(failed)) return false;
    rename_or_throw(failed, staging_);
  }
  if (!made_by_dalembert(staging_) || !has_marker(staging_)) return false;
  std::error_code ec;
  fs::remove(staging_ / "error.txt", ec);  // a failed run's, or a crash's (study/crash_report.hpp)
  return true;
}

void RunFolder::check_replaceable() const {
  const std::string keep = "; it is left untouched: choose another output folder (--out) or move it away";
  if (exists_no_follow(final_) && !is_complete_run(final_)) {
    std::error_code ec;
    const bool folder = fs::is_directory(fs::symlink_status(final_, ec));
    throw InputError(final_.string(), std::string(folder ? "is an existing folder that is not a complete dalembert run "
                                                           "(no manifest.json written by dalembert)"
                                                         : "exists and is not a folder (a file or a link)") +
                                          keep);
  }
  for (const char* suffix : {".incomplete", ".failed", ".previous"}) {
    const fs::path p = sibling(suffix);
    if (exists_no_follow(p) && !made_by_dalembert(p))
      throw InputError(p.string(), "exists and was not made by dalembert (no " + std::string(marker) + " marker)" + keep);
  }
}

void RunFolder::create_staging() {
  // A staging folder left by a run that was killed: ours (checked), and no run holds it (locked).
  std::error_code probe;
  if (fs::exists(staging_ / "checkpoint", probe))
    std::fprintf(stderr, "note: starting %s afresh: the interrupted run in %s is discarded (--resume continues it)\n",
                 final_.c_str(), staging_.c_str());
  remove_ours(staging_);
  std::error_code ec;
  fs::create_directory(staging_, ec);
  std::ofstream mark(staging_ / marker);
  mark << "made by dalembert: the output folder of one run\n";
  mark.close();
  if (ec || !mark)
    throw InputError(final_.string(), "the output folder cannot be created or written" +
                                          (ec ? ": " + ec.message() : std::string()));
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
  if (exists_no_follow(final_)) {
    if (!is_complete_run(final_)) throw Error("refusing to replace " + final_.string() + ": it is no longer a complete run");
    const fs::path previous = sibling(".previous");
    remove_ours(previous);
    if (!exchange(staging_, final_)) {  // e.g. a file system without RENAME_EXCHANGE
      rename_or_throw(final_, previous);
      rename_or_throw(staging_, final_);
    } else {
      rename_or_throw(staging_, previous);  // the earlier run, now at the staging name
    }
  } else {
    rename_or_throw(staging_, final_);
  }
  done_ = true;
  remove_ours(sibling(".failed"));  // an older failure of the same study is now stale
  lock_.reset();
}

void RunFolder::release() {
  done_ = true;
  lock_.reset();
}

void RunFolder::fail(const std::string& error) {
  done_ = true;
  std::ofstream(staging_ / "error.txt") << error << "\n";
  const fs::path failed = sibling(".failed");
  try {
    remove_ours(failed);
    rename_or_throw(staging_, failed);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "warning: %s (the failed run is left in %s)\n", e.what(), staging_.c_str());
  }
  lock_.reset();
}

}  // namespace dalembert
