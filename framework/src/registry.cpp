#include <algorithm>
#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>
#include <cstdlib>
#include <dalembert/core/errors.hpp>
#include <dalembert/plugin/abi.hpp>
#include <dalembert/plugin/registry.hpp>
#include <mutex>
#include <sstream>

namespace fs = std::filesystem;

namespace dalembert {

namespace {
// Every library ever loaded stays loaded until the process ends (deliberately never freed):
// objects created by a plugin must not outlive its code.
std::mutex& library_mutex() {
  static std::mutex m;
  return m;
}
std::vector<boost::dll::shared_library>& kept_libraries() {
  static auto* libs = new std::vector<boost::dll::shared_library>();
  return *libs;
}

bool looks_like_plugin(const fs::path& p) {
  const std::string f = p.filename().string();
  return f.rfind("dalembert_", 0) == 0 && p.extension() == ".so";
}
}  // namespace

Registry::Registry(bool default_paths) {
  if (!default_paths) return;
  if (const char* env = std::getenv("DALEMBERT_PLUGIN_PATH")) {
    std::stringstream ss(env);
    std::string item;
    while (std::getline(ss, item, ':'))
      if (!item.empty()) paths_.emplace_back(item);
  }
  paths_.push_back(bundled_plugin_dir());
}

Registry::~Registry() = default;

fs::path Registry::bundled_plugin_dir() {
  return fs::path(boost::dll::this_line_location().parent_path()) / "dalembert" / "plugins";
}

void Registry::add_search_path(const fs::path& dir) {
  paths_.insert(paths_.begin(), dir);
  scanned_ = false;
  plugins_.clear();
  refused_.clear();
}

void Registry::load_file(const fs::path& file) const {
  std::lock_guard<std::mutex> lock(library_mutex());
  boost::dll::shared_library lib;
  try {
    lib.load(file);
  } catch (const std::exception& e) {
    refused_.push_back({file, std::string("cannot be loaded: ") + e.what()});
    return;
  }
  if (!lib.has("dalembert_plugin_abi") || !lib.has("dalembert_plugin_describe")) {
    refused_.push_back({file, "is not a dalembert plugin (no dalembert_plugin_abi / dalembert_plugin_describe symbol)"});
    return;
  }
  const int abi = lib.get<const int>("dalembert_plugin_abi");
  if (abi != abi_version) {
    refused_.push_back({file, "was built for framework ABI version " + std::to_string(abi) +
                                  ", but this framework has ABI version " + std::to_string(abi_version) +
                                  ": rebuild the plugin against this framework"});
    return;
  }
  auto describe = lib.get_alias<PluginDescriptor()>("dalembert_plugin_describe");
  auto d = std::make_unique<PluginDescriptor>(describe());
  d->file = file.string();
  const bool duplicate = std::any_of(plugins_.begin(), plugins_.end(), [&](const auto& p) {
    return p->kind == d->kind && p->name == d->name;
  });
  kept_libraries().push_back(std::move(lib));
  if (!duplicate) plugins_.push_back(std::move(d));  // earlier search paths win
}

void Registry::scan() const {
  if (scanned_) return;
  scanned_ = true;
  for (const auto& dir : paths_) {
    std::error_code ec;
    if (fs::is_regular_file(dir, ec)) {
      load_file(dir);
      continue;
    }
    if (!fs::is_directory(dir, ec)) continue;
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir, ec))
      if (e.is_regular_file() && looks_like_plugin(e.path())) files.push_back(e.path());
    std::sort(files.begin(), files.end());  // deterministic order
    for (const auto& f : files) load_file(f);
  }
}

const std::vector<Registry::Refused>& Registry::refused() const {
  scan();
  return refused_;
}

std::vector<const PluginDescriptor*> Registry::list(PluginKind kind) const {
  scan();
  std::vector<const PluginDescriptor*> out;
  for (const auto& p : plugins_)
    if (p->kind == kind) out.push_back(p.get());
  std::sort(out.begin(), out.end(), [](auto* a, auto* b) { return a->name < b->name; });
  return out;
}

std::vector<const PluginDescriptor*> Registry::find_any(const std::string& name) const {
  scan();
  std::vector<const PluginDescriptor*> out;
  for (const auto& p : plugins_)
    if (p->name == name) out.push_back(p.get());
  return out;
}

const PluginDescriptor& Registry::find(PluginKind kind, const std::string& name, const std::string& where) const {
  scan();
  for (const auto& p : plugins_)
    if (p->kind == kind && p->name == name) return *p;
  // A refused file whose name matches explains itself.
  const std::string file_name = std::string("dalembert_") + to_string(kind) + "_" + name + ".so";
  for (const auto& r : refused_)
    if (r.file.filename() == file_name)
      throw InputError(where, std::string(to_string(kind)) + " plugin '" + name + "': " + r.file.string() + " " + r.reason);
  std::vector<std::string> names;
  for (const auto* p : list(kind)) names.push_back(p->name);
  std::string msg = "unknown " + std::string(to_string(kind)) + " plugin '" + name + "'";
  const std::string near = nearest_name(name, names);
  if (!near.empty()) msg += " (did you mean '" + near + "'?)";
  std::string avail;
  for (const auto& n : names) avail += (avail.empty() ? "" : ", ") + n;
  msg += "; available: " + (avail.empty() ? std::string("none") : avail);
  std::string dirs;
  for (const auto& d : paths_) dirs += (dirs.empty() ? "" : ":") + d.string();
  msg += " (searched " + dirs + ")";
  throw InputError(where, msg);
}

Parameters Registry::resolve(PluginKind kind, const std::string& name, const nlohmann::json& params,
                             const std::string& where) const {
  const auto& d = find(kind, name, where);
  return Parameters::resolve(d.params, params, name, where + "/params");
}

std::unique_ptr<System> Registry::make_system(const std::string& name, const nlohmann::json& params,
                                              const std::string& where) const {
  const auto& d = find(PluginKind::System, name, where);
  auto s = d.make_system(Parameters::resolve(d.params, params, name, where + "/params"));
  s->set_name(name);
  return s;
}

std::unique_ptr<Integrator> Registry::make_integrator(const std::string& name, const nlohmann::json& params,
                                                      const std::string& where) const {
  const auto& d = find(PluginKind::Integrator, name, where);
  auto i = d.make_integrator(Parameters::resolve(d.params, params, name, where + "/params"), *this);
  i->set_name(name);
  return i;
}

std::unique_ptr<Observer> Registry::make_observer(const std::string& name, const nlohmann::json& params,
                                                  const std::string& where) const {
  const auto& d = find(PluginKind::Observer, name, where);
  return d.make_observer(Parameters::resolve(d.params, params, name, where + "/params"));
}

std::unique_ptr<ImpactMap> Registry::make_impact(const std::string& name, const nlohmann::json& params,
                                                 const std::string& where) const {
  const auto& d = find(PluginKind::Impact, name, where);
  return d.make_impact(Parameters::resolve(d.params, params, name, where + "/params"));
}

std::unique_ptr<Sampler> Registry::make_sampler(const std::string& name, const nlohmann::json& params,
                                               const std::string& where) const {
  const auto& d = find(PluginKind::Sampler, name, where);
  return d.make_sampler(Parameters::resolve(d.params, params, name, where + "/params"));
}

}  // namespace dalembert
