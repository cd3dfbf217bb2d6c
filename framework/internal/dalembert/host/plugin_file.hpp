#pragma once
// One plugin file: what its name says it holds, and loading it into this process. A plugin file is
// named dalembert_<kind>_<name>.so (cmake/DalembertPlugin.cmake enforces it), so the registry can
// tell which file holds which plugin without opening any.
#include <boost/config.hpp>
#include <dalembert/plugin/descriptor.hpp>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace dalembert {

struct PluginFileName {
  PluginKind kind;
  std::string name;
};

/// The kind and name in a file name dalembert_<kind>_<name>.so; nullopt if it is not of that form.
std::optional<PluginFileName> parse_plugin_file_name(const std::filesystem::path& file);
/// "" if `file` is named dalembert_<kind>_<name>.so, else the reason it is refused.
std::string misnamed_plugin_file(const std::filesystem::path& file);
/// "dalembert_<kind>_<name>.so".
std::string plugin_file_name(PluginKind kind, const std::string& name);

/// Either a descriptor (its `file` filled, the library kept loaded for the life of the process) or
/// the reason the file was refused, a phrase completing "<file> ...".
struct LoadedPlugin {
  std::unique_ptr<PluginDescriptor> descriptor;
  std::string refusal;
};

/// The SHA-256 of `file` as this process first read it: hashed at the first call for a path, then
/// remembered, as the dynamic loader keeps the library it first loaded from a path (a file rebuilt
/// later in the life of the process is not what runs in it). Throws Error if it cannot be read.
std::string plugin_file_sha256(const std::filesystem::path& file);

/// libdalembert's file, as loaded in this process.
BOOST_SYMBOL_VISIBLE std::filesystem::path framework_file();
/// The SHA-256 of libdalembert's file, hashed once per process (through the user's cache).
BOOST_SYMBOL_VISIBLE const std::string& framework_sha256();

/// Opens `file` in this process, checks its ABI version, calls its describe() and checks that the
/// descriptor's kind and name are those of the file name. Never throws; a plugin whose static
/// initialiser faults takes the process down, which is why the registry probes first (probe.hpp).
LoadedPlugin load_plugin_file(const std::filesystem::path& file);

}  // namespace dalembert
