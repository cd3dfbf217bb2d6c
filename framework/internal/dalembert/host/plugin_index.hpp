#pragma once
// Which file holds which plugin, from directory listings alone: nothing is opened. A search path is
// a folder (its dalembert_*.so files, in name order) or one plugin file.
#include <dalembert/plugin/descriptor.hpp>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace dalembert {

class PluginIndex {
 public:
  PluginIndex() = default;
  explicit PluginIndex(const std::vector<std::filesystem::path>& search_paths);

  /// The files named for plugin `name` of `kind`, in search order: the first one is used.
  const std::vector<std::filesystem::path>& files(PluginKind kind, const std::string& name) const;
  /// The names of the plugins of `kind`, sorted.
  std::vector<std::string> names(PluginKind kind) const;
  /// Every candidate file in search order, also those not named dalembert_<kind>_<name>.so.
  const std::vector<std::filesystem::path>& all_files() const { return all_; }

 private:
  void add(const std::filesystem::path& file);
  std::vector<std::filesystem::path> all_;
  std::map<std::pair<PluginKind, std::string>, std::vector<std::filesystem::path>> by_name_;
};

}  // namespace dalembert
