// Plugins made by the running process (in_process.hpp).
#include <dalembert/core/errors.hpp>
#include <dalembert/host/in_process.hpp>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

namespace dalembert {

namespace {

struct Table {
  std::mutex mutex;
  std::map<std::string, InProcessResolver> resolvers;                       // by prefix
  std::map<std::pair<PluginKind, std::string>, const PluginDescriptor*> by_name;
  std::deque<std::unique_ptr<PluginDescriptor>> made;                       // never freed (header)
};

Table& table() {
  static Table* t = new Table();  // leaked on purpose: descriptors may be used during static teardown
  return *t;
}

// The resolver whose prefix starts `name`, or an empty function.
InProcessResolver resolver_for(Table& t, const std::string& name) {
  for (const auto& [prefix, resolver] : t.resolvers)
    if (name.rfind(prefix, 0) == 0 && name.size() > prefix.size()) return resolver;
  return {};
}

}  // namespace

void set_in_process_resolver(const std::string& prefix, InProcessResolver resolver) {
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.resolvers[prefix] = std::move(resolver);
}

bool is_in_process_name(const std::string& name) {
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  return static_cast<bool>(resolver_for(t, name));
}

const PluginDescriptor& register_in_process(PluginDescriptor d) {
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  if (!resolver_for(t, d.name))
    throw Error("plugin name '" + d.name + "' made in this process must start with a registered prefix (e.g. 'python:')");
  t.made.push_back(std::make_unique<PluginDescriptor>(std::move(d)));
  const PluginDescriptor* made = t.made.back().get();
  t.by_name[{made->kind, made->name}] = made;
  return *made;
}

const PluginDescriptor* find_in_process(PluginKind kind, const std::string& name, const std::string& where) {
  Table& t = table();
  InProcessResolver resolve;
  {
    std::lock_guard<std::mutex> lock(t.mutex);
    if (const auto it = t.by_name.find({kind, name}); it != t.by_name.end()) return it->second;
    resolve = resolver_for(t, name);
  }
  if (!resolve) return nullptr;
  PluginDescriptor d = resolve(kind, name, where);  // without the lock: it may take the GIL
  if (d.name != name || d.kind != kind)
    throw PluginError(where + ": the resolver of '" + name + "' made plugin '" + d.name + "' of kind " + to_string(d.kind));
  {
    std::lock_guard<std::mutex> lock(t.mutex);
    if (const auto it = t.by_name.find({kind, name}); it != t.by_name.end()) return it->second;  // another thread won
  }
  return &register_in_process(std::move(d));
}

}  // namespace dalembert
