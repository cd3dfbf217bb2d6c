#include <cerrno>
#include <cstring>
#include <dalembert/core/errors.hpp>
#include <dalembert/study/csv_writer.hpp>

namespace dalembert {

CsvWriter::CsvWriter(const std::filesystem::path& file, const std::vector<std::string>& columns)
    : ncol_(columns.size()), path_(file) {
  f_ = std::fopen(file.c_str(), "w");
  if (!f_) throw Error("cannot write " + file.string() + ": " + std::strerror(errno));
  for (std::size_t i = 0; i < columns.size(); ++i) std::fprintf(f_, "%s%s", i ? "," : "", columns[i].c_str());
  std::fputc('\n', f_);
}

CsvWriter::~CsvWriter() {
  if (f_) std::fclose(f_);
}

void CsvWriter::row(const double* v) {
  for (std::size_t i = 0; i < ncol_; ++i) std::fprintf(f_, i ? ",%.17g" : "%.17g", v[i]);
  std::fputc('\n', f_);
}

void CsvWriter::row(const std::vector<std::string>& text, const std::vector<double>& numbers) {
  bool first = true;
  for (const auto& t : text) std::fprintf(f_, first ? "%s" : ",%s", t.c_str()), first = false;
  for (double x : numbers) std::fprintf(f_, first ? "%.17g" : ",%.17g", x), first = false;
  std::fputc('\n', f_);
}

void CsvWriter::flush() { std::fflush(f_); }

void CsvWriter::close() {
  if (f_ && std::fclose(f_) != 0) {
    f_ = nullptr;
    throw Error("error while writing " + path_.string() + ": " + std::strerror(errno));
  }
  f_ = nullptr;
}

}  // namespace dalembert
