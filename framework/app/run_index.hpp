#pragma once
// The index of one `dalembert run FOLDER`: <dir>/<folder>_index.md beside the run folders, a
// table linking every study's report.md with its verdict line. It is written only over an index
// dalembert wrote (its first line is the marker below); any other file of that name is refused
// before anything runs.
#include <dalembert/study/runner.hpp>
#include <filesystem>
#include <string>
#include <vector>

namespace dalembert::cli {

inline constexpr const char* kIndexMarker = "<!-- dalembert run index: written by dalembert, replaced by every run -->";

struct IndexEntry {
  std::string study;               // the study's name
  std::string file;                // the study file
  std::filesystem::path folder;    // where the run went
  std::string verdict;             // claims_verdict(), or "run FAILED: ..."
  double wall = 0.0;
};

/// The index file of the studies of `source_folder` whose run folders are `folders`.
std::filesystem::path index_path(const std::filesystem::path& source_folder,
                                 const std::vector<std::filesystem::path>& folders);

/// An InputError unless `index` is absent or an index dalembert wrote; or names a run folder.
void check_index_writable(const std::filesystem::path& index, const std::vector<std::filesystem::path>& folders);

/// Writes the index (atomically, through a .part file).
void write_index(const std::filesystem::path& index, const std::filesystem::path& source_folder,
                 const std::vector<IndexEntry>& entries);

}  // namespace dalembert::cli
