// Plugins: the list `dalembert list` prints and what `dalembert describe NAME` shows, as data; where
// plugins are searched, and what building one needs (the CMake package, the user's cache folder).
#include "bindings.hpp"

#include <dalembert/host/user_cache.hpp>
#include <dalembert/plugin/abi.hpp>
#include <dalembert/study/describe.hpp>
#include <pybind11/stl.h>  // plugin_search_paths returns a std::vector<std::string>

namespace dalembert::python {

void register_plugins(py::module_& m) {
  m.def(
      "plugins",
      [] {
        nlohmann::json out = nlohmann::json::array();
        std::vector<Registry::Refused> refused;
        {
          py::gil_scoped_release release;  // opens (and probes) every plugin file
          for (auto kind : {PluginKind::System, PluginKind::Integrator, PluginKind::Impact, PluginKind::Observer,
                            PluginKind::Sampler})
            for (const auto* d : registry().list(kind))
              out.push_back({{"name", d->name}, {"kind", to_string(kind)}, {"version", d->version},
                             {"summary", d->summary}, {"seed", d->seed}, {"file", d->file}});
          refused = registry().refused();
        }
        for (const auto& r : refused)  // as `dalembert list` does: a warning, the others still listed
          if (PyErr_WarnEx(PyExc_RuntimeWarning, (r.file.string() + " " + r.reason).c_str(), 1) < 0)
            throw py::error_already_set();
        return from_json(out);
      },
      "Every usable plugin: a list of {name, kind, version, summary, seed, file}, by kind as `dalembert list`.");
  m.def(
      "describe",
      [](const std::string& name) {
        nlohmann::json d;
        {
          py::gil_scoped_release release;
          d = describe_plugins(registry(), name);
        }
        return from_json(d);
      },
      py::arg("name"), "What `dalembert describe NAME` shows, one dict per plugin of that name (any kind).");
  m.def(
      "plugin_search_paths",
      [] {
        std::vector<std::string> out;
        for (const auto& p : registry().search_paths()) out.push_back(p.string());
        return out;
      },
      "The folders searched for plugins, in order.");
  m.def(
      "add_plugin_path", [](const std::string& path) { mutable_registry().add_search_path(path); }, py::arg("path"),
      "Searches a folder (or one plugin file) before the others, in this process's registry.");
  m.def(
      "user_cache_folder",
      []() -> py::object {
        const auto dir = user_cache_folder();
        return dir ? py::object(py::str(dir->string())) : py::object(py::none());
      },
      "The user's cache folder (host/user_cache.hpp; not created), or None when DALEMBERT_CACHE_DIR=off.");
  m.def(
      "cmake_package_dir",
      [] { return (Registry::bundled_plugin_dir().parent_path().parent_path() / "cmake" / "dalembert").string(); },
      "Where find_package(dalembert) finds this libdalembert's CMake package: <libdir>/cmake/dalembert, in the "
      "build tree as in an install prefix.");
  m.attr("abi_version") = abi_version;
  m.attr("api_version") = api_version;
}

}  // namespace dalembert::python
