#pragma once
// A table format as one unit (issue 27): how a run writes and reads a table of numbers — CSV text
// (study/csv_writer.hpp) or NumPy .npy (study/npy_writer.hpp, npy_reader.hpp) — behind one writer
// and one reader, chosen by name in one place (table_format). A study's "record_format" names the
// format of its trajectory files; the manifest's file index names every table's "format".
#include <boost/config.hpp>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace dalembert {

/// A table being written, row by row; closed whole, or (after a failure) flushed to the rows written.
class BOOST_SYMBOL_VISIBLE TableWriter {
 public:
  virtual ~TableWriter();
  virtual void row(const double* values) = 0;  ///< one value per column
  virtual void flush() = 0;
  virtual void close() = 0;
};

/// A table as read: its column names and columns; `labels` holds the first column's text where a
/// format has text cells (sweep.csv: the integrator label; text cells read as NaN).
struct Table {
  std::vector<std::string> names;
  std::vector<std::vector<double>> columns;
  std::vector<std::string> labels;
};

class BOOST_SYMBOL_VISIBLE TableFormat {
 public:
  virtual ~TableFormat();
  /// Its name in a study's "record_format" and in the manifest's file index ("format").
  virtual std::string name() const = 0;
  /// Its file name extension, with the dot: ".csv".
  virtual std::string extension() const = 0;
  /// A writer of `columns` into `file` (FILE.part until closed); `expected_rows` is a hint.
  virtual std::unique_ptr<TableWriter> writer(const std::filesystem::path& file, const std::vector<std::string>& columns,
                                              std::size_t expected_rows) const = 0;
  virtual Table read(const std::filesystem::path& file) const = 0;
  /// Bytes a value takes, for the workload's estimate of the output (study/limits.hpp).
  virtual double bytes_per_value() const = 0;
  /// How messages name files of it ("CSV", ".npy") and how report.md does ("CSV", "NumPy `.npy`").
  virtual std::string described() const = 0;
  virtual std::string report_name() const = 0;
};

/// The format named `name`: "csv" or "npy"; an Error naming the formats otherwise.
BOOST_SYMBOL_VISIBLE const TableFormat& table_format(const std::string& name);
/// The format of a file, by its extension (a file of no known extension: CSV).
BOOST_SYMBOL_VISIBLE const TableFormat& table_format_of(const std::filesystem::path& file);
/// Every format's name: "csv", "npy".
BOOST_SYMBOL_VISIBLE std::vector<std::string> table_format_names();

}  // namespace dalembert
