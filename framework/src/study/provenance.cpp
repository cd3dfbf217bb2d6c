// Provenance by content (provenance.hpp).
#include <boost/dll/runtime_symbol_info.hpp>
#include <dalembert/host/user_cache.hpp>
#include <dalembert/plugin/abi.hpp>
#include <dalembert/study/provenance.hpp>
#include <dalembert/study/runner.hpp>

namespace fs = std::filesystem;
using nlohmann::json;

namespace dalembert {

fs::path framework_file() { return fs::path(boost::dll::this_line_location()); }

const std::string& framework_sha256() {
  static const std::string sha = cached_file_sha256(framework_file());
  return sha;
}

json framework_provenance() {
  return {{"version", version()},
          {"revision", source_revision()},
          {"abi", abi_version},
          {"library", framework_file().string()},
          {"sha256", framework_sha256()}};
}

json loaded_plugins(const Registry& reg) {
  json out = json::array();
  for (const auto* d : reg.loaded())
    out.push_back({{"name", d->name}, {"kind", to_string(d->kind)}, {"version", d->version}, {"file", d->file},
                   {"sha256", reg.sha256(*d)}});
  return out;
}

}  // namespace dalembert
