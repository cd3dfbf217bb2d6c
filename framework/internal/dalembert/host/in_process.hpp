#pragma once
// Plugins made by the running process instead of loaded from a file (issue 31 item 2: integrators
// written in Python). Their names carry a scheme prefix ("python:module.Class"), so they never
// shadow a plugin file. A resolver for a prefix turns such a name into a descriptor the first time
// it is asked for (the Python module installs the one for "python:" when it is imported); a process
// may also register a descriptor under a prefixed name itself. Every Registry consults this table
// before its files (registry.hpp). A descriptor, once made, lives as long as the process (a run may
// hold it); registering a name again replaces it for later lookups only. Thread-safe: a resolver is
// called without the table's lock held (it may take another, e.g. Python's GIL).
#include <boost/config.hpp>
#include <dalembert/plugin/descriptor.hpp>
#include <functional>
#include <string>

namespace dalembert {

/// Makes the descriptor of plugin `name` (its prefix included) of `kind`, or throws an InputError
/// at `where` saying why there is none.
using InProcessResolver = std::function<PluginDescriptor(PluginKind kind, const std::string& name, const std::string& where)>;

/// Installs the resolver of names starting with `prefix` (e.g. "python:"); replaces an earlier one.
BOOST_SYMBOL_VISIBLE void set_in_process_resolver(const std::string& prefix, InProcessResolver resolver);
/// Registers `d` under d.name, which must start with a prefix that has a resolver (an Error otherwise).
BOOST_SYMBOL_VISIBLE const PluginDescriptor& register_in_process(PluginDescriptor d);
/// True when `name` starts with a prefix that has a resolver.
BOOST_SYMBOL_VISIBLE bool is_in_process_name(const std::string& name);
/// The descriptor of (kind, name), resolved on first use; nullptr when `name` has no in-process
/// prefix. Throws the resolver's InputError when it cannot make one.
BOOST_SYMBOL_VISIBLE const PluginDescriptor* find_in_process(PluginKind kind, const std::string& name, const std::string& where);

}  // namespace dalembert
