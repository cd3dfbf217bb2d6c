#pragma once
// Whole files written so that a file under its final name is never partial: the text goes to
// NAME.part, is flushed and checked (a full disk is an error, not a truncated file), then renamed.
#include <boost/config.hpp>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string_view>

namespace dalembert {

/// Creates (or empties) `file`.part and returns it open for writing; never through a symbolic link
/// planted under that name (a run folder holds none: it would write outside the run). Throws Error
/// naming `file` and the cause.
BOOST_SYMBOL_VISIBLE std::FILE* open_part_file(const std::filesystem::path& file);

/// Writes `text` to `file` as above; throws Error naming the file and the cause.
BOOST_SYMBOL_VISIBLE void write_file_atomically(const std::filesystem::path& file, std::string_view text);

/// A JSON document, pretty-printed, written as above.
BOOST_SYMBOL_VISIBLE void write_json_file(const std::filesystem::path& file, const nlohmann::json& j);

}  // namespace dalembert
