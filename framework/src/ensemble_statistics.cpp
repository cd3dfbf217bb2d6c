#include <algorithm>
#include <cmath>
#include <cstdio>
#include <dalembert/core/errors.hpp>
#include <dalembert/study/csv_writer.hpp>
#include <dalembert/study/ensemble_statistics.hpp>
#include <dalembert/study/visible_join.hpp>

namespace dalembert {

namespace {

// Formats `blocks` blocks of rows into text in parallel (format(b, text) appends block b's rows),
// then writes them in order: the file is the same as a serial loop writes.
template <class Format>
void write_blocks(CsvWriter& csv, std::size_t blocks, const Format& format) {
  std::vector<std::string> text(blocks);
  parallel_for_visibly(std::size_t(0), blocks, [&](std::size_t b) { format(b, text[b]); });
  for (const auto& t : text) csv.write_text(t);
  csv.close();
}

constexpr std::size_t rows_per_block = 64;  // statistics rows computed and formatted per parallel block

}  // namespace

EnsembleStatistics::EnsembleStatistics(std::vector<std::string> columns, std::vector<double> quantiles)
    : columns_(std::move(columns)), quantiles_(std::move(quantiles)) {}

void EnsembleStatistics::add_member(std::vector<double> rows) { members_.push_back(std::move(rows)); }

std::vector<std::string> EnsembleStatistics::statistics_columns() const {
  std::vector<std::string> out = {"t"};
  for (std::size_t c = 1; c < columns_.size(); ++c) {
    for (const char* s : {"_mean", "_var", "_min", "_max"}) out.push_back(columns_[c] + s);
    for (double q : quantiles_) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "_q%g", 100.0 * q);
      out.push_back(columns_[c] + buf);
    }
  }
  return out;
}

std::size_t EnsembleStatistics::common_rows() const {
  const std::size_t nc = columns_.size();
  std::size_t rows = members_.empty() ? 0 : members_.front().size() / nc;
  for (const auto& m : members_) rows = std::min(rows, m.size() / nc);
  return rows;
}

// The statistics of recorded time r, over the members in member order.
std::vector<double> EnsembleStatistics::statistics_row(std::size_t r) const {
  const std::size_t nc = columns_.size();
  std::vector<double> values(members_.size());
  std::vector<double> row = {members_.front()[r * nc]};
  for (std::size_t c = 1; c < nc; ++c) {
    for (std::size_t m = 0; m < members_.size(); ++m) values[m] = members_[m][r * nc + c];
    double mean = 0.0;
    for (double v : values) mean += v;
    mean /= static_cast<double>(values.size());
    double var = 0.0;
    for (double v : values) var += (v - mean) * (v - mean);
    var /= static_cast<double>(values.size());  // population variance (spec 000 §4, Fig 3 recipe)
    std::sort(values.begin(), values.end());
    row.insert(row.end(), {mean, var, values.front(), values.back()});
    for (double q : quantiles_) {
      const double pos = q * static_cast<double>(values.size() - 1);
      const std::size_t lo = static_cast<std::size_t>(std::floor(pos));
      const std::size_t hi = std::min(lo + 1, values.size() - 1);
      row.push_back(values[lo] + (pos - static_cast<double>(lo)) * (values[hi] - values[lo]));
    }
  }
  return row;
}

std::vector<std::vector<double>> EnsembleStatistics::statistics() const {
  std::vector<std::vector<double>> out(common_rows());
  parallel_for_visibly(std::size_t(0), out.size(), [&](std::size_t r) { out[r] = statistics_row(r); });
  return out;
}

void EnsembleStatistics::write_statistics(const std::filesystem::path& file) const {
  CsvWriter csv(file, statistics_columns());
  const std::size_t rows = common_rows();
  write_blocks(csv, (rows + rows_per_block - 1) / rows_per_block, [&](std::size_t b, std::string& text) {
    for (std::size_t r = b * rows_per_block; r < std::min(rows, (b + 1) * rows_per_block); ++r) {
      const std::vector<double> row = statistics_row(r);
      CsvWriter::format_row(text, row.data(), row.size());
    }
  });
}

std::vector<std::string> EnsembleStatistics::member_columns(const std::vector<std::string>& columns) {
  std::vector<std::string> cols = {"member"};
  cols.insert(cols.end(), columns.begin(), columns.end());
  return cols;
}

std::string EnsembleStatistics::member_rows_text(std::size_t member, const std::vector<double>& rows,
                                                 std::size_t ncol) {
  std::string text;
  std::vector<double> row(ncol + 1);
  row[0] = static_cast<double>(member);
  for (std::size_t r = 0; r < rows.size() / ncol; ++r) {
    std::copy(rows.begin() + r * ncol, rows.begin() + (r + 1) * ncol, row.begin() + 1);
    CsvWriter::format_row(text, row.data(), row.size());
  }
  return text;
}

void EnsembleStatistics::write_members(const std::filesystem::path& file) const {
  CsvWriter csv(file, member_columns(columns_));
  write_blocks(csv, members_.size(),
               [&](std::size_t m, std::string& text) { text = member_rows_text(m, members_[m], columns_.size()); });
}

}  // namespace dalembert
