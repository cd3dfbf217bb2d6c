#pragma once
// What a run may remember across processes, in the user's cache folder (issue 32 item 3: a tiny
// study spent most of its start hashing libdalembert and the plugins and probing each plugin file in
// a process of its own, every run, for files that had not changed).
//
// Two things are kept, each a small file named by a key, written whole (a temporary then rename(2),
// so a reader never sees half of one and concurrent runs cannot corrupt it):
//   * a file's SHA-256, keyed by what the file system says of it — path, device, inode, size and the
//     modification and status-change times in nanoseconds, as git's index does: rewriting a file
//     changes its status-change time, which no system call lets a user set back;
//   * "this plugin file loaded in a probe process", keyed by the plugin's SHA-256 and libdalembert's:
//     the same bytes loaded by the same framework do the same thing. Refusals are not kept (they
//     are probed again, and say why each time).
// The folder: $DALEMBERT_CACHE_DIR, else $XDG_CACHE_HOME/dalembert, else $HOME/.cache/dalembert;
// DALEMBERT_CACHE_DIR=off (or no HOME) turns the cache off. The cache only ever saves work: a
// missing, unreadable or unwritable folder, or a damaged entry, means the work is done again.
#include <filesystem>
#include <optional>
#include <string>

namespace dalembert {

/// The cache folder (not created), or nullopt when caching is off.
std::optional<std::filesystem::path> user_cache_folder();

/// file_sha256(file), from the cache when the file is unchanged since it was stored.
/// An Error naming the file if it cannot be read.
std::string cached_file_sha256(const std::filesystem::path& file);

/// Whether `key` (hexadecimal digits and '-') was recorded in the set `set` ("probed").
bool user_cache_has(const std::string& set, const std::string& key);
/// Records `key` in `set`; failures are ignored (the cache only saves work).
void user_cache_add(const std::string& set, const std::string& key);

}  // namespace dalembert
