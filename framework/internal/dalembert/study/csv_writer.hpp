#pragma once
// Tidy CSV: a header of column names, then one row per record, each number in the shortest form
// that reads back bit-identical (std::to_chars). Readable by pandas.read_csv as is.
#include <boost/config.hpp>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
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
  /// Appends the text of one row of n numbers to `out`, exactly as row() writes it: rows can be
  /// formatted on any thread and written later, in order, with write_text().
  static void format_row(std::string& out, const double* values, std::size_t n);
  /// Writes rows formatted by format_row().
  void write_text(std::string_view text);
  std::size_t columns() const { return ncol_; }
  void flush();
  void close();

 private:
  std::FILE* f_ = nullptr;
  std::size_t ncol_;
  std::filesystem::path path_;
  std::string line_;  // row()'s buffer
};

}  // namespace dalembert
