#pragma once
// The output folder of one run, and the only code that moves or removes run folders.
//
// Work happens in "DIR.incomplete"; commit() puts it at DIR, fail() renames it to "DIR.failed"
// with error.txt beside whatever was written. So a folder named DIR is always a complete run.
//
// A run only ever deletes what dalembert created. Before anything runs, the constructor refuses
//  * DIR naming an existing file, a symbolic link, or a folder that is neither empty nor a
//    complete dalembert run (one with a manifest.json written by dalembert): a thesis folder is
//    never emptied;
//  * DIR.incomplete, DIR.failed or DIR.previous existing and not this run's own: every folder a
//    run makes carries a marker saying what it is, an unfinished (staging or failed) or previous
//    folder of run DIR, or a complete run; so a complete run that happens to be named DIR.failed
//    is never taken for DIR's failed folder (nor removed with it);
//  * a DIR another run is writing (RunLock on DIR.lock);
//  * a path that names no folder ("", ".", "..", "a/..", "/").
// A trailing '/' is ignored ("res/" is "res").
//
// Resuming (issue 16) reopens DIR.incomplete left by a run that was killed, or DIR.failed (renamed
// back to DIR.incomplete), with everything in it; resumed() says whether there was one. A folder
// with a symbolic link anywhere inside is not reopened (the run would write through it).
//
// Replacing an earlier complete run keeps it until the new one is complete; then the two are
// swapped in one atomic rename (renameat2 RENAME_EXCHANGE, or two renames where the file system
// cannot exchange), and the earlier run is kept as DIR.previous (replacing an older
// DIR.previous), its marker now saying so. An empty DIR is replaced by rename(2), which replaces a
// folder only while it is empty: anything put there during the run stays.
#include <boost/config.hpp>
#include <dalembert/study/run_lock.hpp>
#include <filesystem>
#include <memory>
#include <string>

namespace dalembert {

class BOOST_SYMBOL_VISIBLE RunFolder {
 public:
  /// Checks `final_dir` as above, takes its lock and creates the staging folder; an InputError
  /// naming the folder if any check fails or the folder cannot be written.
  explicit RunFolder(const std::filesystem::path& final_dir, bool resume = false);
  ~RunFolder();  // a folder neither committed nor failed is marked failed
  RunFolder(const RunFolder&) = delete;
  RunFolder& operator=(const RunFolder&) = delete;
  const std::filesystem::path& staging() const { return staging_; }
  const std::filesystem::path& final_dir() const { return final_; }
  /// The staging folder is an interrupted or failed run's, reopened.
  bool resumed() const { return resumed_; }
  std::filesystem::path file(const std::string& name) const { return staging_ / name; }
  void commit();
  void fail(const std::string& error);
  /// Lets go of the folder as it is (a refused resume leaves the interrupted run untouched).
  void release();

  /// `dir` without a trailing separator and with "." and ".." resolved lexically; an InputError
  /// if it names no folder of its own ("", ".", "..", "/").
  static std::filesystem::path normalize(const std::filesystem::path& dir);
  /// A folder holding a manifest.json that dalembert wrote (a complete run).
  static bool is_complete_run(const std::filesystem::path& dir);

  /// The hidden file that marks a folder as made by dalembert and says what it is (run_folder.cpp).
  static constexpr const char* marker = ".dalembert_run";

 private:
  std::filesystem::path sibling(const char* suffix) const;
  /// "" if `dir` (DIR.incomplete, .failed or .previous) is this run's own: a real folder whose
  /// marker says it is this run's unfinished (or previous) folder; else why not, completing "it ...".
  std::string not_ours(const std::filesystem::path& dir) const;
  /// Removes `dir` (never following a link) if it exists and is this run's own.
  void remove_sibling(const std::filesystem::path& dir) const;
  void check_replaceable() const;
  void create_staging();
  bool reopen_staging();

  std::filesystem::path final_, staging_;
  std::unique_ptr<RunLock> lock_;
  bool done_ = false;
  bool resumed_ = false;
};

}  // namespace dalembert
