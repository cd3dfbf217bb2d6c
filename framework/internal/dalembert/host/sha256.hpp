#pragma once
// SHA-256 (FIPS 180-4), written here so that provenance needs no cryptography library: the
// manifest records the hash of every plugin file and of libdalembert, and `--resume` compares them.
#include <boost/config.hpp>
#include <filesystem>
#include <string>
#include <string_view>

namespace dalembert {

/// The SHA-256 of `bytes`, as 64 lowercase hexadecimal digits (what sha256sum prints).
BOOST_SYMBOL_VISIBLE std::string sha256_hex(std::string_view bytes);

/// The SHA-256 of a file's bytes, read in blocks; an Error naming the file if it cannot be read.
BOOST_SYMBOL_VISIBLE std::string file_sha256(const std::filesystem::path& file);

}  // namespace dalembert
