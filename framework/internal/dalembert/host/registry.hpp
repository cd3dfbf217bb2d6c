#pragma once
// Finds, loads and keeps plugins. Search order: paths added with add_search_path() (e.g. named in a
// study), then DALEMBERT_PLUGIN_PATH (':'-separated), then the plugin folder next to libdalembert
// (<libdir>/dalembert/plugins: the build tree and the install prefix have the same layout). Relative
// paths are made absolute against the current folder when they are added.
//
// A plugin file is opened only when its plugin is asked for: dalembert_<kind>_<name>.so holds plugin
// `name` of `kind`, so find() opens that one file and a broken plugin breaks only the studies that
// use it. list() and find_any() open every file. Before a file is loaded here it is probed in a
// separate process (probe.hpp), so one whose loading crashes is refused with the reason. The first
// file of a given kind and name wins (a warning names the others). Loaded libraries stay loaded for
// the life of the process, so no object a plugin created can outlive its code. Each file is hashed
// (SHA-256) as it is loaded, for the manifest and `--resume` (study/provenance.hpp). Names with an
// in-process prefix ("python:module.Class") are plugins made by this process (in_process.hpp): no
// file is searched for them; loaded() lists those used, sha256() hashes their source file. Thread-safe.
#include <dalembert/plugin/descriptor.hpp>
#include <dalembert/host/plugin_index.hpp>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace dalembert {

class BOOST_SYMBOL_VISIBLE Registry : public PluginFactory {
 public:
  /// With `default_paths`, searches DALEMBERT_PLUGIN_PATH and the folder next to libdalembert.
  explicit Registry(bool default_paths = true);
  ~Registry() override;

  /// Adds a folder (or one plugin file) searched before the others.
  void add_search_path(const std::filesystem::path& dir);
  /// Absolute, in search order.
  const std::vector<std::filesystem::path>& search_paths() const { return paths_; }

  /// The descriptor of plugin `name` of `kind`, loading its file if need be. Throws InputError at
  /// `where` listing the available ones and the nearest match, or naming the file that has that name
  /// and why it was refused.
  const PluginDescriptor& find(PluginKind kind, const std::string& name, const std::string& where) const;
  /// Every usable plugin of `kind`, by name (opens every file).
  std::vector<const PluginDescriptor*> list(PluginKind kind) const;
  /// Every usable plugin named `name`, whatever its kind (opens every file).
  std::vector<const PluginDescriptor*> find_any(const std::string& name) const;

  struct Refused {
    std::filesystem::path file;
    std::string reason;  // completes "<file> ..."
  };
  /// The files refused so far: after list() or find_any(), every broken file on the search paths.
  std::vector<Refused> refused() const;

  /// Every plugin this registry loaded, in the order it loaded them (a composite's parts too).
  std::vector<const PluginDescriptor*> loaded() const;
  /// The SHA-256 of the file `plugin` (one of loaded()) was loaded from, taken as it was loaded
  /// (plugin_file_sha256: once per file and process).
  std::string sha256(const PluginDescriptor& plugin) const;

  /// The parameters `params` resolved against plugin `name`'s declaration (defaults filled).
  Parameters resolve(PluginKind kind, const std::string& name, const nlohmann::json& params,
                     const std::string& where) const;

  /// What plugin `name` of `kind`, made with `params`, needs of a system: its descriptor's declared
  /// `needs` (nothing if it declares none). Whatever the declaration throws that is not a dalembert
  /// error becomes a PluginError naming plugin and file.
  Needs needs(PluginKind kind, const std::string& name, const nlohmann::json& params, const std::string& where) const;
  Needs integrator_needs(const std::string& name, const nlohmann::json& params, const std::string& where) const override {
    return needs(PluginKind::Integrator, name, params, where);
  }

  /// New plugin instances. Whatever the factory does wrong (throws something that is not a
  /// dalembert error, returns null, is missing) becomes a PluginError naming plugin and file.
  std::unique_ptr<System> make_system(const std::string& name, const nlohmann::json& params,
                                      const std::string& where) const;
  std::unique_ptr<Integrator> make_integrator(const std::string& name, const nlohmann::json& params,
                                              const std::string& where) const override;
  std::unique_ptr<Observer> make_observer(const std::string& name, const nlohmann::json& params,
                                          const std::string& where) const;
  std::unique_ptr<ImpactMap> make_impact(const std::string& name, const nlohmann::json& params,
                                         const std::string& where) const;
  std::unique_ptr<Sampler> make_sampler(const std::string& name, const nlohmann::json& params,
                                        const std::string& where) const;

  /// The plugin folder next to libdalembert.
  static std::filesystem::path bundled_plugin_dir();

 private:
  // Each with mutex_ held.
  const PluginIndex& index() const;
  const PluginDescriptor* open(const std::filesystem::path& file) const;
  const PluginDescriptor* open_chosen(PluginKind kind, const std::string& name) const;
  void open_all() const;
  [[noreturn]] void throw_not_found(PluginKind kind, const std::string& name, const std::string& where) const;

  std::vector<std::filesystem::path> paths_;
  mutable std::mutex mutex_;
  mutable std::optional<PluginIndex> index_;
  mutable std::map<std::filesystem::path, const PluginDescriptor*> opened_;  // null: refused
  mutable std::vector<std::unique_ptr<PluginDescriptor>> plugins_;  // in load order
  mutable std::vector<const PluginDescriptor*> in_process_;        // made in process, used here (in_process.hpp)
  mutable std::map<std::string, std::string> sha256_;                // by file
  mutable std::vector<Refused> refused_;
};

}  // namespace dalembert
