#pragma once
// Tidy CSV: a header of column names, then one row per record, numbers at full precision
// (%.17g, so a value read back is bit-identical). Readable by pandas.read_csv as is.
#include <boost/config.hpp>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace dalembert {

class BOOST_SYMBOL_VISIBLE CsvWriter {
 public:
  CsvWriter(const std::filesystem::path& file, const std::vector<std::string>& columns);
  ~CsvWriter();
  CsvWriter(const CsvWriter&) = delete;
  CsvWriter& operator=(const CsvWriter&) = delete;
  void row(const double* values);
  /// A row whose first cells are text (e.g. a label), then numbers.
  void row(const std::vector<std::string>& text, const std::vector<double>& numbers);
  std::size_t columns() const { return ncol_; }
  void flush();
  void close();

 private:
  std::FILE* f_ = nullptr;
  std::size_t ncol_;
  std::filesystem::path path_;
};

}  // namespace dalembert
