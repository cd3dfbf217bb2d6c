#pragma once
// NumPy .npy trajectory files: a structured array with one little-endian double ('<f8') field per
// column, e.g. {'descr': [('t', '<f8'), ('x', '<f8')], 'fortran_order': False, 'shape': (N,), },
// read by numpy.load (pandas.DataFrame(numpy.load(f)) keeps the column names). Rows are copied
// into a 1 MiB buffer and written with write(2): a row costs a memcpy, not a text conversion.
//
// Format 1.0 (2.0 when the header exceeds 65535 bytes); the header is padded to a multiple of
// 64 bytes with room for any row count, so the shape is patched in place. Like CsvWriter, the
// file is written as FILE.part and renamed by close(); flush() (and the destructor, when a run
// failed) leaves a file that loads with exactly the rows written.
#include <boost/config.hpp>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace dalembert {

class BOOST_SYMBOL_VISIBLE NpyWriter {
 public:
  /// Opens FILE.part and writes the header. `expected_rows` is a hint: the file's blocks are
  /// reserved (fallocate) for that many rows; more or fewer rows are fine.
  NpyWriter(const std::filesystem::path& file, const std::vector<std::string>& columns, std::size_t expected_rows = 0);
  ~NpyWriter();
  NpyWriter(const NpyWriter&) = delete;
  NpyWriter& operator=(const NpyWriter&) = delete;
  /// One row of columns() doubles.
  void row(const double* values);
  std::size_t columns() const { return ncol_; }
  /// Writes the buffered rows and makes FILE.part a whole .npy of the rows written so far (shape
  /// patched, size exact). After a failed write: the rows written before it.
  void flush();
  /// flush(), then closes and renames FILE.part to FILE.
  void close();

 private:
  std::string header(std::size_t rows) const;
  void drain();
  void finish_file();
  void reserve_blocks(std::size_t bytes);
  [[noreturn]] void fail(int err);

  int fd_ = -1;
  std::filesystem::path path_;
  std::size_t ncol_, row_bytes_;
  std::string dict_head_;           // the header's dictionary up to the row count
  std::size_t header_bytes_ = 0;    // magic, version, length, dictionary and padding
  std::unique_ptr<char[]> buf_;
  std::size_t cap_ = 0, used_ = 0;  // buffer bytes
  std::size_t rows_on_disk_ = 0;    // whole rows written to the file
  std::size_t reserved_ = 0;        // bytes fallocate reserved (0 once it failed: plain writes)
  bool can_reserve_ = true;
  std::string error_;               // the first write error; the writer refuses rows after it
};

}  // namespace dalembert
