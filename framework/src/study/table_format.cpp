// The table formats, CSV and .npy, and the one place a format is chosen by name (study/table_format.hpp).
#include <dalembert/core/errors.hpp>
#include <dalembert/core/parameters.hpp>
#include <dalembert/study/csv_writer.hpp>
#include <dalembert/study/npy_reader.hpp>
#include <dalembert/study/npy_writer.hpp>
#include <dalembert/study/table_format.hpp>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>

namespace fs = std::filesystem;

namespace dalembert {

TableWriter::~TableWriter() = default;
TableFormat::~TableFormat() = default;

namespace {

// A CsvWriter or an NpyWriter as a TableWriter.
template <class Writer>
class WriterOf final : public TableWriter {
 public:
  template <class... Args>
  explicit WriterOf(Args&&... args) : w_(std::forward<Args>(args)...) {}
  void row(const double* values) override { w_.row(values); }
  void flush() override { w_.flush(); }
  void close() override { w_.close(); }

 private:
  Writer w_;
};

class CsvFormat final : public TableFormat {
 public:
  std::string name() const override { return "csv"; }
  std::string extension() const override { return ".csv"; }
  std::unique_ptr<TableWriter> writer(const fs::path& file, const std::vector<std::string>& columns,
                                      std::size_t) const override {
    return std::make_unique<WriterOf<CsvWriter>>(file, columns);
  }
  // Numeric cells by column; a text cell reads as NaN, the first column's text is kept as labels.
  Table read(const fs::path& file) const override {
    std::ifstream in(file);
    if (!in) throw Error("cannot read " + file.string());
    Table t;
    std::string line, cell;
    std::getline(in, line);
    for (std::stringstream ss(line); std::getline(ss, cell, ',');) t.names.push_back(cell);
    t.columns.resize(t.names.size());
    while (std::getline(in, line)) {
      std::stringstream ss(line);
      for (std::size_t i = 0; std::getline(ss, cell, ',') && i < t.names.size(); ++i) {
        char* end = nullptr;
        const double v = std::strtod(cell.c_str(), &end);
        t.columns[i].push_back(end != cell.c_str() ? v : std::numeric_limits<double>::quiet_NaN());
        if (i == 0) t.labels.push_back(cell);
      }
    }
    return t;
  }
  double bytes_per_value() const override { return 24.0; }  // ~17 significant digits, sign, exponent, comma
  std::string described() const override { return "CSV"; }
  std::string report_name() const override { return "CSV"; }
};

class NpyFormat final : public TableFormat {
 public:
  std::string name() const override { return "npy"; }
  std::string extension() const override { return ".npy"; }
  std::unique_ptr<TableWriter> writer(const fs::path& file, const std::vector<std::string>& columns,
                                      std::size_t expected_rows) const override {
    return std::make_unique<WriterOf<NpyWriter>>(file, columns, expected_rows);
  }
  Table read(const fs::path& file) const override {
    NpyTable npy = read_npy(file);
    return {std::move(npy.names), std::move(npy.columns), {}};
  }
  double bytes_per_value() const override { return 8.0; }  // a float64 field
  std::string described() const override { return ".npy"; }
  std::string report_name() const override { return "NumPy `.npy`"; }
};

// Every format, the default (CSV) first. A new format is a class above and one entry here.
const std::vector<std::unique_ptr<TableFormat>>& formats() {
  static const std::vector<std::unique_ptr<TableFormat>> all = [] {
    std::vector<std::unique_ptr<TableFormat>> v;
    v.push_back(std::make_unique<CsvFormat>());
    v.push_back(std::make_unique<NpyFormat>());
    return v;
  }();
  return all;
}

}  // namespace

const TableFormat& table_format(const std::string& name) {
  for (const auto& f : formats())
    if (f->name() == name) return *f;
  throw Error("no table format is named '" + name + "'; the formats are: " + joined(table_format_names()));
}

const TableFormat& table_format_of(const fs::path& file) {
  for (const auto& f : formats())
    if (file.extension() == f->extension()) return *f;
  return *formats().front();
}

std::vector<std::string> table_format_names() {
  std::vector<std::string> names;
  for (const auto& f : formats()) names.push_back(f->name());
  return names;
}

}  // namespace dalembert
