#pragma once
// Probing a plugin file in a separate process before loading it here, so that a plugin whose
// static initialiser (or describe()) crashes is refused with a reason instead of taking the whole
// process down.
//
// Why fork+exec of a helper and not a bare fork(): the registry runs on TBB threads (sweeps run
// studies concurrently), and after fork() in a multithreaded process the child may only do
// async-signal-safe work: dlopen() there can deadlock on a loader lock some other thread held at the
// fork (e.g. one unwinding an exception through dl_iterate_phdr). posix_spawn() of the helper
// `dalembert-probe-plugin` (installed in <libdir>/dalembert/, next to the plugin folder) execs at
// once, so the child starts single-threaded with a fresh loader.
//
// The same helper then constructs, before a run, every plugin instance the study will make with
// the study's parameters (probe_constructions): a constructor that crashes stops the study with a
// line naming the plugin, its file and its parameters, before anything runs here.
#include <dalembert/plugin/descriptor.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace dalembert {

class Registry;

/// "" if `file` loaded, passed the ABI check and described itself in a probe process, or if no
/// probe could be run (helper missing: then nothing is checked). Otherwise the reason it must not
/// be loaded here, completing "<file> ...", e.g. "crashed with SIGSEGV while loading (in a probe
/// process)". Each file is probed once per process (verdicts are cached by path), and a file that
/// loaded in a probe is not probed again while it and libdalembert are unchanged (user_cache.hpp:
/// the same bytes loaded by the same framework); thread-safe.
std::string probe_plugin_file(const std::filesystem::path& file);

/// The helper's side: loads `file` (load_plugin_file) and writes the verdict to the descriptor
/// `out_fd`. Returns the helper's exit status.
int probe_plugin_main(const std::filesystem::path& file, int out_fd);

/// One plugin instance a study makes: its kind, name, parameters (as the study gives them) and
/// where they are given ("FILE: /json/path").
struct PluginConstruction {
  PluginKind kind = PluginKind::System;
  std::string name;
  nlohmann::json params;
  std::string where;
};

/// Finds each plugin of `uses` in `registry` and resolves its parameters (their errors are
/// thrown as usual), then constructs every one not constructed before in one probe process, with
/// the registry's search paths. Throws a PluginError at the `where` of the first that crashes the
/// probe process ("... crashed with SIGSEGV while being constructed with parameters {...}").
/// Exceptions a constructor throws are not reported here: constructing it here reports them with
/// their context. Verdicts are cached per process; thread-safe.
void probe_constructions(const Registry& registry, const std::vector<PluginConstruction>& uses);

/// The helper's side of probe_constructions: reads the request from `in_fd`, writes its progress
/// to `out_fd`. Returns the helper's exit status.
int probe_construction_main(int in_fd, int out_fd);

/// Where the registry looks for the helper.
std::filesystem::path probe_helper_path();

}  // namespace dalembert
