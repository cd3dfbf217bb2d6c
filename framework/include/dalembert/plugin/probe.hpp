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
#include <filesystem>
#include <string>

namespace dalembert {

/// "" if `file` loaded, passed the ABI check and described itself in a probe process, or if no
/// probe could be run (helper missing: then nothing is checked). Otherwise the reason it must not
/// be loaded here, completing "<file> ...", e.g. "crashed with SIGSEGV while loading (in a probe
/// process)". Each file is probed once per process (verdicts are cached by path); thread-safe.
std::string probe_plugin_file(const std::filesystem::path& file);

/// The helper's side: loads `file` (load_plugin_file) and writes the verdict to the descriptor
/// `out_fd`. Returns the helper's exit status.
int probe_plugin_main(const std::filesystem::path& file, int out_fd);

/// Where the registry looks for the helper.
std::filesystem::path probe_helper_path();

}  // namespace dalembert
