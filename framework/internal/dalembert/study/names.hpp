#pragma once
// Names a study gives to things that end up in file names, CSV cells and shell commands: study
// names, integrator labels, plugin names, sweep axes, figures. One safe character set for all.
#include <string>

namespace dalembert {

/// At most 100 characters of [A-Za-z0-9_.+-], not empty and not starting with '.' or '-': so no
/// ".", "..", hidden files, options, separators, quotes, commas, spaces or control characters.
bool is_safe_name(const std::string& s);

/// The rule as a message: "a study name may contain only letters, digits and _ . + - (...)".
std::string safe_name_rule(const std::string& what);

/// A plugin name: a safe name, or SCHEME:NAME (SCHEME letters, NAME safe) for a plugin made in the
/// process (host/in_process.hpp: "python:module.Class").
bool is_safe_plugin_name(const std::string& s);
std::string safe_plugin_name_rule();
/// The label an integrator gets when the study gives none: its plugin name without the scheme.
std::string default_label(const std::string& plugin);

}  // namespace dalembert
