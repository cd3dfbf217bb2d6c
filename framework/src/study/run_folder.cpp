#include <cerrno>
#include <cstdio>
#include <cstring>
#include <dalembert/core/errors.hpp>
#include <dalembert/study/file_output.hpp>
#include <dalembert/study/run_folder.hpp>
#include <fcntl.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

namespace fs = std::filesystem;

namespace dalembert {

namespace {

bool exists_no_follow(const fs::path& p) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(p, ec));
}

bool is_real_folder(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(fs::symlink_status(p, ec));
}

// A real folder with nothing in it (what `--out` may name, as `git clone` allows).
bool is_empty_folder(const fs::path& p) {
  std::error_code ec;
  return is_real_folder(p) && fs::is_empty(p, ec) && !ec;
}

// What a folder's marker says: its role ("unfinished": a staging or failed folder, "previous", or
// "complete") and, but for a complete run (renamed freely, and byte-identical whatever its name),
// the name of the run's final folder. nullopt without a marker; an empty role for a marker written
// before markers said either.
struct Marker {
  std::string role, run;
};

std::optional<Marker> read_marker(const fs::path& dir) {
  const fs::path file = dir / RunFolder::marker;
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(file, ec))) return std::nullopt;
  std::ifstream in(file);
  const auto j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  const auto text = [&](const char* key) {
    return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
  };
  return Marker{text("role"), text("run")};
}

// Whole or not at all (file_output.hpp): a marker is never torn, whatever the disk.
void write_marker(const fs::path& dir, const Marker& m) {
  nlohmann::json j = {{"made_by", "dalembert: a run folder"}, {"role", m.role}};
  if (!m.run.empty()) j["run"] = m.run;
  write_file_atomically(dir / RunFolder::marker, j.dump() + "\n");
}

// The first symbolic link inside `dir` (not following any), or an empty path.
fs::path first_link_inside(const fs::path& dir) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (it->is_symlink(ec)) return it->path();
  return {};
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

std::string RunFolder::not_ours(const fs::path& dir) const {
  if (!is_real_folder(dir)) return "is not a folder (a file or a link)";
  const auto m = read_marker(dir);
  if (!m) return std::string("was not made by dalembert (no ") + marker + " marker)";
  if (m->role.empty())
    return "has a marker from an older dalembert that does not say whose folder it is (it may be a "
           "complete run named " + dir.filename().string() + ")";
  if (m->role == "complete") return "is a complete run (e.g. of a study named " + dir.filename().string() + ")";
  const std::string role = dir == sibling(".previous") ? "previous" : "unfinished";
  if (m->role != role || m->run != final_.filename().string())
    return "is marked as the " + m->role + " folder of run '" + m->run + "'";
  return "";
}

void RunFolder::remove_sibling(const fs::path& dir) const {
  if (!exists_no_follow(dir)) return;
  if (const std::string why = not_ours(dir); !why.empty())  // checked before the run; re-checked here
    throw Error("refusing to remove " + dir.string() + ": it " + why);
  std::error_code ec;
  fs::remove_all(dir, ec);  // never follows a link
  if (ec) throw Error("cannot remove " + dir.string() + ": " + ec.message());
}

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
  const fs::path failed = sibling(".failed");
  const fs::path from = exists_no_follow(staging_) ? staging_ : failed;
  if (!exists_no_follow(from)) return false;  // nothing to resume: a fresh run
  if (const fs::path link = first_link_inside(from); !link.empty())
    throw InputError(final_.string(), "cannot resume: " + link.string() +
                                          " is a symbolic link; a run folder holds none (the run would write "
                                          "through it, outside the run folder): remove it, or run without --resume");
  if (from == failed) rename_or_throw(failed, staging_);
  std::error_code ec;
  fs::remove(staging_ / "error.txt", ec);  // a failed run's, or a crash's (study/crash_report.hpp)
  return true;
}

void RunFolder::check_replaceable() const {
  const std::string keep = "; it is left untouched: choose another output folder (--out) or move it away";
  if (exists_no_follow(final_) && !is_complete_run(final_) && !is_empty_folder(final_))
    throw InputError(final_.string(), std::string(is_real_folder(final_)
                                                      ? "is an existing folder that is not empty and not a complete "
                                                        "dalembert run (no manifest.json written by dalembert)"
                                                      : "exists and is not a folder (a file or a link)") +
                                          keep);
  for (const char* suffix : {".incomplete", ".failed", ".previous"}) {
    const fs::path p = sibling(suffix);
    if (!exists_no_follow(p)) continue;
    if (const std::string why = not_ours(p); !why.empty())
      throw InputError(p.string(), "is the name of " + final_.filename().string() + "'s " + (suffix + 1) +
                                       " folder, but it " + why + keep);
  }
}

void RunFolder::create_staging() {
  // A staging folder left by a run that was killed: ours (checked), and no run holds it (locked).
  std::error_code probe;
  if (fs::exists(staging_ / "checkpoint", probe))
    std::fprintf(stderr, "note: starting %s afresh: the interrupted run in %s is discarded (--resume continues it)\n",
                 final_.c_str(), staging_.c_str());
  remove_sibling(staging_);
  std::error_code ec;
  const bool created = fs::create_directory(staging_, ec);
  try {
    if (ec) throw Error(ec.message());
    write_marker(staging_, {"unfinished", final_.filename().string()});
  } catch (const Error& e) {
    if (created) fs::remove_all(staging_, ec);  // just made: nothing else in it
    throw InputError(final_.string(), std::string("the output folder cannot be created or written: ") + e.what());
  }
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
  write_marker(staging_, {"complete", ""});
  if (is_complete_run(final_)) {
    const fs::path previous = sibling(".previous");
    remove_sibling(previous);
    if (!exchange(staging_, final_)) {  // e.g. a file system without RENAME_EXCHANGE
      rename_or_throw(final_, previous);
      rename_or_throw(staging_, final_);
    } else {
      rename_or_throw(staging_, previous);  // the earlier run, now at the staging name
    }
    try {  // it is this run's earlier generation now, whoever made it (it stood at this run's folder)
      write_marker(previous, {"previous", final_.filename().string()});
    } catch (const Error& e) {
      std::fprintf(stderr, "warning: %s (the next run into %s will ask to move it away)\n", e.what(), final_.c_str());
    }
  } else {
    // A new folder, or an empty one (checked before the run): rename(2) replaces a folder only
    // while it is empty, so whatever was put there during the run stays where it is.
    std::error_code ec;
    fs::rename(staging_, final_, ec);
    if (ec)
      throw Error("cannot put the run at " + final_.string() + " (" + ec.message() +
                  "): it is no longer new or empty, nor a complete run; it is left as it is");
  }
  done_ = true;
  try {
    remove_sibling(sibling(".failed"));  // an older failure of the same study is now stale
  } catch (const Error& e) {  // the run is complete all the same
    std::fprintf(stderr, "warning: %s\n", e.what());
  }
  lock_.reset();
}

void RunFolder::release() {
  done_ = true;
  lock_.reset();
}

void RunFolder::fail(const std::string& error) {
  done_ = true;
  std::ofstream(staging_ / "error.txt") << error << "\n";
  try {  // unfinished already, unless a commit failed after marking it complete (kept whole if this fails)
    write_marker(staging_, {"unfinished", final_.filename().string()});
  } catch (const Error&) {
  }
  const fs::path failed = sibling(".failed");
  try {
    remove_sibling(failed);
    rename_or_throw(staging_, failed);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "warning: %s (the failed run is left in %s)\n", e.what(), staging_.c_str());
  }
  lock_.reset();
}

}  // namespace dalembert
