#pragma once
// Finds, loads and keeps plugins. Search order: paths added with add_search_path() (e.g. named in a
// study), then DALEMBERT_PLUGIN_PATH (':'-separated), then the plugin folder next to libdalembert
// (<libdir>/dalembert/plugins: the build tree and the install prefix have the same layout).
// The first plugin of a given kind and name wins. Loaded libraries stay loaded for the life of the
// process, so no object a plugin created can outlive its code.
#include <dalembert/plugin/descriptor.hpp>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace dalembert {

class BOOST_SYMBOL_VISIBLE Registry : public PluginFactory {
 public:
  /// With `default_paths`, searches DALEMBERT_PLUGIN_PATH and the folder next to libdalembert.
  explicit Registry(bool default_paths = true);
  ~Registry() override;

  /// Adds a folder searched before the defaults. Plugins are (re)scanned on next use.
  void add_search_path(const std::filesystem::path& dir);
  const std::vector<std::filesystem::path>& search_paths() const { return paths_; }

  /// The descriptor of plugin `name` of `kind`. Throws InputError at `where` listing the available
  /// ones and the nearest match, or naming the ABI-mismatched file that has that name.
  const PluginDescriptor& find(PluginKind kind, const std::string& name, const std::string& where) const;
  std::vector<const PluginDescriptor*> list(PluginKind kind) const;
  std::vector<const PluginDescriptor*> find_any(const std::string& name) const;

  struct Refused {
    std::filesystem::path file;
    std::string reason;
  };
  const std::vector<Refused>& refused() const;

  /// The parameters `params` resolved against plugin `name`'s declaration (defaults filled).
  Parameters resolve(PluginKind kind, const std::string& name, const nlohmann::json& params,
                     const std::string& where) const;

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
  void scan() const;
  void load_file(const std::filesystem::path& file) const;
  std::vector<std::filesystem::path> paths_;
  mutable bool scanned_ = false;
  mutable std::vector<std::unique_ptr<PluginDescriptor>> plugins_;
  mutable std::vector<Refused> refused_;
};

}  // namespace dalembert
