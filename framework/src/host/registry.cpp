#include <algorithm>
#include <boost/dll/runtime_symbol_info.hpp>
#include <cstdlib>
#include <dalembert/core/error_text.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/warn_once.hpp>
#include <dalembert/host/plugin_file.hpp>
#include <dalembert/host/probe.hpp>
#include <dalembert/host/registry.hpp>
#include <dalembert/host/in_process.hpp>
#include <dalembert/core/json_input.hpp>
#include <new>
#include <sstream>

namespace fs = std::filesystem;

namespace dalembert {

namespace {

// Relative search paths are taken against the current folder now, not at some later use (the
// process may change folder; the manifest records absolute paths).
fs::path absolute_path(const fs::path& p) { return fs::absolute(p).lexically_normal(); }

std::string describe_plugin(const PluginDescriptor& d) {
  return std::string(to_string(d.kind)) + " plugin '" + d.name + "' (" + d.file + ")";
}

std::string at(const std::string& where, const std::string& message) {
  return where.empty() ? message : where + ": " + message;
}

// Resolves `params` against the plugin's declaration and calls its factory, so that nothing it does wrong leaves unexplained: a missing factory, an
// exception of any type, a null result all become a PluginError naming the plugin and its file.
// dalembert errors (e.g. InputError on a parameter) already say what and where and pass unchanged.
// A failure of the C++ or JSON library (out of memory, a size too large, a JSON value of the wrong
// type) is said in words, with the parameters that led to it.
template <class Made, class Factory, class... Extra>
std::unique_ptr<Made> create_resolved(const PluginDescriptor& d, const Factory& factory, const Parameters& resolved,
                                      const std::string& where, const Extra&... extra) {
  const std::string who = describe_plugin(d);
  if (!factory)
    throw PluginError(at(where, who + " has no factory: its descriptor sets no make_" + to_string(d.kind)));
  std::unique_ptr<Made> made;
  try {
    made = factory(resolved, extra...);
  } catch (const Error&) {
    throw;
  } catch (const std::exception&) {
    bool library = false;
    const std::string text = exception_text(std::current_exception(), &library);
    throw PluginError(at(where, who + " failed to construct" +
                                    (library ? " with parameters " + json_excerpt(resolved.to_json(), 300) : "") + ": " + text));
  } catch (...) {
    throw PluginError(at(where, who + " threw an exception not derived from std::exception while being constructed"));
  }
  if (!made) throw PluginError(at(where, who + ": its factory returned no object (a null pointer)"));
  return made;
}

template <class Made, class Factory, class... Extra>
std::unique_ptr<Made> create(const PluginDescriptor& d, const Factory& factory, const nlohmann::json& params,
                             const std::string& where, const Extra&... extra) {
  return create_resolved<Made>(d, factory, Parameters::resolve(d.params, params, d.name, where + "/params"), where,
                               extra...);
}

}  // namespace

Registry::Registry(bool default_paths) {
  if (!default_paths) return;
  if (const char* env = std::getenv("DALEMBERT_PLUGIN_PATH")) {
    std::stringstream ss(env);
    std::string item;
    while (std::getline(ss, item, ':')) {
      if (item.empty()) continue;
      paths_.push_back(absolute_path(item));
      std::error_code ec;
      if (!fs::exists(paths_.back(), ec))
        warn_once("plugin path " + paths_.back().string(), "DALEMBERT_PLUGIN_PATH names '" + item +
                                                               "', but there is no folder or file " +
                                                               paths_.back().string());
    }
  }
  paths_.push_back(bundled_plugin_dir());
}

Registry::~Registry() = default;

fs::path Registry::bundled_plugin_dir() {
  return fs::path(boost::dll::this_line_location().parent_path()) / "dalembert" / "plugins";
}

void Registry::add_search_path(const fs::path& dir) {
  std::lock_guard<std::mutex> lock(mutex_);
  paths_.insert(paths_.begin(), absolute_path(dir));
  index_.reset();  // files already opened stay opened: opened_ is by file
}

const PluginIndex& Registry::index() const {
  if (!index_) index_.emplace(paths_);
  return *index_;
}

const PluginDescriptor* Registry::open(const fs::path& file) const {
  if (const auto it = opened_.find(file); it != opened_.end()) return it->second;
  std::string why = misnamed_plugin_file(file);
  if (why.empty()) why = probe_plugin_file(file);
  std::string sha;
  if (why.empty()) try {
      sha = plugin_file_sha256(file);  // hashed before it is loaded (by the probe, or here): what runs is what is hashed
    } catch (const Error& e) {
      why = std::string("is refused: ") + e.what();
    }
  LoadedPlugin loaded = why.empty() ? load_plugin_file(file) : LoadedPlugin{nullptr, why};
  const PluginDescriptor* d = loaded.descriptor.get();
  if (d) {
    plugins_.push_back(std::move(loaded.descriptor));
    sha256_[d->file] = sha;
  } else {
    refused_.push_back({file, loaded.refusal});
  }
  return opened_[file] = d;
}

std::vector<const PluginDescriptor*> Registry::loaded() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<const PluginDescriptor*> out;
  for (const auto& p : plugins_) out.push_back(p.get());
  out.insert(out.end(), in_process_.begin(), in_process_.end());
  return out;
}

std::string Registry::sha256(const PluginDescriptor& plugin) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = sha256_.find(plugin.file);
  if (it != sha256_.end()) return it->second;
  if (plugin.file.empty() || std::find(in_process_.begin(), in_process_.end(), &plugin) == in_process_.end()) return {};
  try {
    return sha256_[plugin.file] = plugin_file_sha256(plugin.file);  // a plugin made in process: its source file
  } catch (const Error&) {
    return {};
  }
}

// The first file named for (kind, name); a warning, once per process, if others have that name.
const PluginDescriptor* Registry::open_chosen(PluginKind kind, const std::string& name) const {
  const auto& files = index().files(kind, name);
  if (files.size() > 1) {
    std::string all;
    for (const auto& f : files) all += (all.empty() ? "" : ", ") + f.string();
    warn_once(std::string("duplicate ") + to_string(kind) + " " + name,
              std::to_string(files.size()) + " files hold " + to_string(kind) + " plugin '" + name + "': " + all +
                  "; using " + files.front().string() + " (the first search path wins)");
  }
  return open(files.front());
}

void Registry::open_all() const {
  for (const auto& f : index().all_files()) open(f);
}

std::vector<Registry::Refused> Registry::refused() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return refused_;
}

std::vector<const PluginDescriptor*> Registry::list(PluginKind kind) const {
  std::lock_guard<std::mutex> lock(mutex_);
  open_all();
  std::vector<const PluginDescriptor*> out;
  for (const auto& name : index().names(kind))
    if (const auto* d = open_chosen(kind, name)) out.push_back(d);
  return out;
}

std::vector<const PluginDescriptor*> Registry::find_any(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  open_all();
  std::vector<const PluginDescriptor*> out;
  for (auto kind : {PluginKind::System, PluginKind::Integrator, PluginKind::Impact, PluginKind::Observer,
                    PluginKind::Sampler})
    if (!index().files(kind, name).empty())
      if (const auto* d = open_chosen(kind, name)) out.push_back(d);
  return out;
}

const PluginDescriptor& Registry::find(PluginKind kind, const std::string& name, const std::string& where) const {
  if (const PluginDescriptor* d = find_in_process(kind, name, where)) {  // "python:...": no file (in_process.hpp)
    std::lock_guard<std::mutex> lock(mutex_);
    if (std::find(in_process_.begin(), in_process_.end(), d) == in_process_.end()) in_process_.push_back(d);
    return *d;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  const auto& files = index().files(kind, name);
  if (files.empty()) throw_not_found(kind, name, where);
  if (const auto* d = open_chosen(kind, name)) return *d;
  const auto r = std::find_if(refused_.begin(), refused_.end(), [&](const Refused& x) { return x.file == files.front(); });
  throw InputError(where, std::string(to_string(kind)) + " plugin '" + name + "': " + r->file.string() + " " + r->reason);
}

void Registry::throw_not_found(PluginKind kind, const std::string& name, const std::string& where) const {
  const std::vector<std::string> names = index().names(kind);
  std::string msg = "unknown " + std::string(to_string(kind)) + " plugin '" + name + "'";
  if (name.rfind("python:", 0) == 0)  // in-process plugins (host/in_process.hpp) live in a Python process
    throw InputError(where, msg + ": a 'python:' plugin runs only in a study started from Python (dalembert.run "
                                  "or dalembert.simulate, after its module is importable), not from the command line");
  const std::string near = nearest_name(name, names);
  if (!near.empty()) msg += " (did you mean '" + near + "'?)";
  msg += "; available: " + (names.empty() ? std::string("none") : joined(names));
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

Needs Registry::needs(PluginKind kind, const std::string& name, const nlohmann::json& params,
                      const std::string& where) const {
  const auto& d = find(kind, name, where);
  if (!d.needs) return {};
  const Parameters resolved = Parameters::resolve(d.params, params, d.name, where + "/params");
  try {
    return d.needs(resolved, *this);
  } catch (const Error&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    throw PluginError(at(where, describe_plugin(d) + " failed to say what it needs: " + e.what()));
  } catch (...) {
    throw PluginError(at(where, describe_plugin(d) + " threw an exception not derived from std::exception while "
                                                     "saying what it needs"));
  }
}

std::unique_ptr<System> Registry::make_system(const std::string& name, const nlohmann::json& params,
                                              const std::string& where) const {
  const auto& d = find(PluginKind::System, name, where);
  const Parameters resolved = Parameters::resolve(d.params, params, d.name, where + "/params");
  auto s = create_resolved<System>(d, d.make_system, resolved, where);
  s->set_name(name);
  std::vector<System::GivenInput> given;  // what the trajectory records
  for (const auto& n : resolved.given_inputs()) given.push_back({n, resolved.input(n)});
  s->set_given_inputs(std::move(given));
  return s;
}

std::unique_ptr<Integrator> Registry::make_integrator(const std::string& name, const nlohmann::json& params,
                                                      const std::string& where) const {
  const auto& d = find(PluginKind::Integrator, name, where);
  auto i = create<Integrator>(d, d.make_integrator, params, where,
                              static_cast<const PluginFactory&>(*this));
  i->set_name(name);
  return i;
}

std::unique_ptr<Observer> Registry::make_observer(const std::string& name, const nlohmann::json& params,
                                                  const std::string& where) const {
  const auto& d = find(PluginKind::Observer, name, where);
  return create<Observer>(d, d.make_observer, params, where);
}

std::unique_ptr<ImpactMap> Registry::make_impact(const std::string& name, const nlohmann::json& params,
                                                 const std::string& where) const {
  const auto& d = find(PluginKind::Impact, name, where);
  return create<ImpactMap>(d, d.make_impact, params, where);
}

std::unique_ptr<Sampler> Registry::make_sampler(const std::string& name, const nlohmann::json& params,
                                               const std::string& where) const {
  const auto& d = find(PluginKind::Sampler, name, where);
  return create<Sampler>(d, d.make_sampler, params, where);
}

}  // namespace dalembert
