#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>
#include <dalembert/host/user_cache.hpp>
#include <dalembert/plugin/abi.hpp>
#include <dalembert/host/plugin_file.hpp>
#include <map>
#include <mutex>
#include <vector>

namespace fs = std::filesystem;

namespace dalembert {

namespace {

// Every library ever loaded stays loaded until the process ends (deliberately never freed):
// objects created by a plugin must not outlive its code. The mutex also serialises the loads.
std::mutex& library_mutex() {
  static std::mutex m;
  return m;
}
std::vector<boost::dll::shared_library>& kept_libraries() {
  static auto* libs = new std::vector<boost::dll::shared_library>();
  return *libs;
}

std::optional<PluginKind> parse_kind(const std::string& s) {
  for (auto k : {PluginKind::System, PluginKind::Integrator, PluginKind::Impact, PluginKind::Observer,
                 PluginKind::Sampler})
    if (s == to_string(k)) return k;
  return std::nullopt;
}

LoadedPlugin refuse(std::string reason) { return {nullptr, std::move(reason)}; }

// The reason `lib` is not a plugin of this framework's ABI, or "" if it is one.
std::string abi_refusal(const boost::dll::shared_library& lib) {
  if (!lib.has("dalembert_plugin_abi") || !lib.has("dalembert_plugin_describe"))
    return "is not a dalembert plugin (no dalembert_plugin_abi / dalembert_plugin_describe symbol)";
  const int abi = lib.get<const int>("dalembert_plugin_abi");
  if (abi == abi_version) return "";
  return "was built for framework ABI version " + std::to_string(abi) + ", but this framework has ABI version " +
         std::to_string(abi_version) + ": rebuild the plugin against this framework";
}

// Calls the plugin's describe(), whatever it throws.
LoadedPlugin describe(const boost::dll::shared_library& lib) {
  try {
    auto fn = lib.get_alias<PluginDescriptor()>("dalembert_plugin_describe");
    return {std::make_unique<PluginDescriptor>(fn()), ""};
  } catch (const std::exception& e) {
    return refuse(std::string("is refused: its describe() threw: ") + e.what());
  } catch (...) {
    return refuse("is refused: its describe() threw an exception not derived from std::exception");
  }
}

std::string name_mismatch(const PluginDescriptor& d, const PluginFileName& expected) {
  if (d.kind == expected.kind && d.name == expected.name) return "";
  return std::string("is refused: it describes itself as ") + to_string(d.kind) + " plugin '" + d.name +
         "', but its file name says " + to_string(expected.kind) + " plugin '" + expected.name + "'";
}

}  // namespace

std::string plugin_file_sha256(const fs::path& file) {
  static std::mutex m;
  static std::map<std::string, std::string> hashes;
  std::lock_guard<std::mutex> lock(m);
  const auto it = hashes.find(file.string());
  if (it != hashes.end()) return it->second;
  return hashes[file.string()] = cached_file_sha256(file);
}

fs::path framework_file() { return fs::path(boost::dll::this_line_location()); }

const std::string& framework_sha256() {
  static const std::string sha = cached_file_sha256(framework_file());
  return sha;
}

std::optional<PluginFileName> parse_plugin_file_name(const fs::path& file) {
  const std::string f = file.filename().string();
  const std::string prefix = "dalembert_", suffix = ".so";
  if (f.size() <= prefix.size() + suffix.size() || f.rfind(prefix, 0) != 0 ||
      f.compare(f.size() - suffix.size(), suffix.size(), suffix) != 0)
    return std::nullopt;
  const std::string rest = f.substr(prefix.size(), f.size() - prefix.size() - suffix.size());
  const auto sep = rest.find('_');  // kinds have no '_'; names may
  if (sep == std::string::npos || sep + 1 == rest.size()) return std::nullopt;
  const auto kind = parse_kind(rest.substr(0, sep));
  if (!kind) return std::nullopt;
  return PluginFileName{*kind, rest.substr(sep + 1)};
}

std::string plugin_file_name(PluginKind kind, const std::string& name) {
  return std::string("dalembert_") + to_string(kind) + "_" + name + ".so";
}

std::string misnamed_plugin_file(const fs::path& file) {
  if (parse_plugin_file_name(file)) return "";
  return std::string("is refused: it is not named dalembert_<kind>_<name>.so (kind one of system, integrator, ") +
         "impact, observer, sampler), the name plugins are found by";
}

LoadedPlugin load_plugin_file(const fs::path& file) {
  const auto expected = parse_plugin_file_name(file);
  if (!expected) return refuse(misnamed_plugin_file(file));
  std::lock_guard<std::mutex> lock(library_mutex());
  boost::dll::shared_library lib;
  try {
    lib.load(file);
  } catch (const std::exception& e) {
    return refuse(std::string("cannot be loaded: ") + e.what());
  }
  if (auto why = abi_refusal(lib); !why.empty()) return refuse(why);
  LoadedPlugin out = describe(lib);
  kept_libraries().push_back(std::move(lib));  // its code ran: keep it, whatever describe() said
  if (!out.descriptor) return out;
  if (auto why = name_mismatch(*out.descriptor, *expected); !why.empty()) return refuse(why);
  out.descriptor->file = file.string();
  return out;
}

}  // namespace dalembert
