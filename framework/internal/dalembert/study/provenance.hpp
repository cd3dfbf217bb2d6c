#pragma once
// What a run was made with, by content (issue 26): the SHA-256 of libdalembert and of every plugin
// file a run loaded, recorded in the manifest and report, shown by `dalembert describe`, and
// compared by `--resume` (a rebuilt plugin of the same name and version is not the same plugin).
#include <boost/config.hpp>
#include <dalembert/host/plugin_file.hpp>  // framework_file(), framework_sha256()
#include <dalembert/host/registry.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace dalembert {

/// A manifest's "dalembert" entry: version, revision, plugin ABI, libdalembert's file and SHA-256.
BOOST_SYMBOL_VISIBLE nlohmann::json framework_provenance();

/// One entry per plugin file `reg` loaded, in load order (a composite's parts too):
/// {name, kind, version, file, sha256}.
BOOST_SYMBOL_VISIBLE nlohmann::json loaded_plugins(const Registry& reg);

}  // namespace dalembert
