// Provenance by content (provenance.hpp).
#include <dalembert/plugin/abi.hpp>
#include <dalembert/study/provenance.hpp>
#include <dalembert/study/runner.hpp>

namespace fs = std::filesystem;
using nlohmann::json;

namespace dalembert {

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
