#include <algorithm>
#include <dalembert/host/plugin_file.hpp>
#include <dalembert/host/plugin_index.hpp>
#include <set>

namespace fs = std::filesystem;

namespace dalembert {

namespace {

bool looks_like_plugin(const fs::path& p) {
  return p.filename().string().rfind("dalembert_", 0) == 0 && p.extension() == ".so";
}

std::vector<fs::path> plugin_files_in(const fs::path& dir) {
  std::error_code ec;
  if (fs::is_regular_file(dir, ec)) return {dir};
  std::vector<fs::path> files;
  if (!fs::is_directory(dir, ec)) return files;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file(ec) && looks_like_plugin(e.path())) files.push_back(e.path());
  std::sort(files.begin(), files.end());  // deterministic order
  return files;
}

// Two search paths leading to the same file (a folder named twice, a symlink) are one file, not
// two plugins of the same name.
std::string identity(const fs::path& file) {
  std::error_code ec;
  const fs::path c = fs::weakly_canonical(file, ec);
  return (ec ? file : c).string();
}

}  // namespace

PluginIndex::PluginIndex(const std::vector<fs::path>& search_paths) {
  std::set<std::string> seen;
  for (const auto& dir : search_paths)
    for (const auto& f : plugin_files_in(dir))
      if (seen.insert(identity(f)).second) add(f);
}

void PluginIndex::add(const fs::path& file) {
  all_.push_back(file);
  if (const auto n = parse_plugin_file_name(file)) by_name_[{n->kind, n->name}].push_back(file);
}

const std::vector<fs::path>& PluginIndex::files(PluginKind kind, const std::string& name) const {
  static const std::vector<fs::path> none;
  const auto it = by_name_.find({kind, name});
  return it == by_name_.end() ? none : it->second;
}

std::vector<std::string> PluginIndex::names(PluginKind kind) const {
  std::vector<std::string> out;
  for (const auto& [key, files] : by_name_)
    if (key.first == kind) out.push_back(key.second);
  return out;  // a std::map keeps them sorted
}

}  // namespace dalembert
