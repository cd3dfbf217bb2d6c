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

void CsvWriter::format_row(std::string& out, const double* v, std::size_t n) {
  char buf[32];  // %.17g of a double: at most 24 characters
  for (std::size_t i = 0; i < n; ++i) {
    const int len = std::snprintf(buf, sizeof buf, i ? ",%.17g" : "%.17g", v[i]);
    out.append(buf, static_cast<std::size_t>(len));
  }
  out.push_back('\n');
}

void CsvWriter::row(const double* v) {
  line_.clear();
  format_row(line_, v, ncol_);
  write_text(line_);
}

void CsvWriter::write_text(std::string_view text) {
  if (std::fwrite(text.data(), 1, text.size(), f_) != text.size())
    throw Error("error while writing " + path_.string() + ": " + std::strerror(errno));
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

OrderedCsvWriter::OrderedCsvWriter(const std::filesystem::path& file, const std::vector<std::string>& columns,
                                   std::size_t blocks)
    : csv_(file, columns), path_(file), waiting_(blocks), arrived_(blocks, 0) {}

void OrderedCsvWriter::put(std::size_t k, std::string text) {
  std::lock_guard<std::mutex> lock(m_);
  if (k >= arrived_.size() || arrived_[k])
    throw Error(path_.string() + ": block " + std::to_string(k) + " given twice or out of range (" +
                std::to_string(arrived_.size()) + " blocks)");
  arrived_[k] = 1;
  waiting_[k] = std::move(text);
  for (; next_ < arrived_.size() && arrived_[next_]; ++next_) {
    csv_.write_text(waiting_[next_]);
    std::string().swap(waiting_[next_]);  // release the text once written
  }
}

void OrderedCsvWriter::close() {
  std::lock_guard<std::mutex> lock(m_);
  if (next_ < arrived_.size())
    throw Error(path_.string() + ": block " + std::to_string(next_) + " of " + std::to_string(arrived_.size()) +
                " was never written");
  csv_.close();
}

}  // namespace dalembert
