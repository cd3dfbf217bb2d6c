#pragma once
// Reading a trajectory .npy file (study/npy_writer.hpp) back: a one-dimensional structured array
// of named little-endian double fields, NumPy format 1.0, 2.0 or 3.0. Anything else — another
// dtype, a truncated file, a header that is not NumPy's — is refused with a message naming the
// file and what is wrong.
#include <boost/config.hpp>
#include <filesystem>
#include <string>
#include <vector>

namespace dalembert {

struct NpyTable {
  std::vector<std::string> names;                // the fields, in order (UTF-8)
  std::vector<std::vector<double>> columns;      // columns[i]: field i of every row
};

BOOST_SYMBOL_VISIBLE NpyTable read_npy(const std::filesystem::path& file);

}  // namespace dalembert
