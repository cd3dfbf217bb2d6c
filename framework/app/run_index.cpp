#include "run_index.hpp"

#include <cstdio>
#include <dalembert/core/errors.hpp>
#include <dalembert/study/file_output.hpp>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace dalembert::cli {

fs::path index_path(const fs::path& source_folder, const std::vector<fs::path>& folders) {
  auto name = source_folder.lexically_normal();
  if (name.filename().empty()) name = name.parent_path();
  const std::string base = name.filename().empty() || name.filename() == "." ? "studies" : name.filename().string();
  return folders.front().parent_path() / (base + "_index.md");
}

void check_index_writable(const fs::path& index, const std::vector<fs::path>& folders) {
  for (const auto& f : folders)
    if (f.lexically_normal() == index.lexically_normal())
      throw InputError("command line", "the run index " + index.string() + " would be a study's run folder");
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(index, ec))) return;
  std::ifstream in(index);
  std::string first;
  std::getline(in, first);
  if (fs::is_symlink(fs::symlink_status(index, ec)) || !fs::is_regular_file(index) || first != kIndexMarker)
    throw InputError("command line", index.string() +
                                         " exists and was not written by dalembert: the run index of this folder "
                                         "would replace it (move it away, or run with another --out)");
}

void write_index(const fs::path& index, const fs::path& source_folder, const std::vector<IndexEntry>& entries) {
  std::ostringstream out;
  out << kIndexMarker << "\n# Studies of `" << source_folder.string() << "`\n\n";
  out << "| study | verdict | report | wall time (s) |\n| --- | --- | --- | --- |\n";
  for (const auto& e : entries) {
    const auto rel = e.folder.lexically_relative(index.parent_path());
    const bool failed = e.verdict.rfind("run FAILED", 0) == 0;
    const std::string link = failed ? "[error.txt](" + rel.string() + ".failed/error.txt)"
                                    : "[report.md](" + (rel / "report.md").string() + ")";
    char wall[32];
    std::snprintf(wall, sizeof wall, "%.2f", e.wall);
    std::string verdict = e.verdict;
    for (auto p = verdict.find('|'); p != std::string::npos; p = verdict.find('|', p + 2)) verdict.replace(p, 1, "\\|");
    out << "| " << e.study << " (`" << e.file << "`) | " << verdict << " | " << link << " | " << wall << " |\n";
  }
  write_file_atomically(index, out.str());
}

}  // namespace dalembert::cli
