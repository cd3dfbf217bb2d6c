#include <algorithm>
#include <cmath>
#include <cstdio>
#include <dalembert/core/errors.hpp>
#include <dalembert/study/csv_writer.hpp>
#include <dalembert/study/ensemble_statistics.hpp>

namespace dalembert {

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

std::vector<std::vector<double>> EnsembleStatistics::statistics() const {
  const std::size_t nc = columns_.size();
  std::size_t rows = members_.empty() ? 0 : members_.front().size() / nc;
  for (const auto& m : members_) rows = std::min(rows, m.size() / nc);
  std::vector<std::vector<double>> out;
  std::vector<double> values(members_.size());
  for (std::size_t r = 0; r < rows; ++r) {
    std::vector<double> row = {members_.front()[r * nc]};
    for (std::size_t c = 1; c < nc; ++c) {
      for (std::size_t m = 0; m < members_.size(); ++m) values[m] = members_[m][r * nc + c];
      double mean = 0.0;
      for (double v : values) mean += v;
      mean /= static_cast<double>(values.size());
      double var = 0.0;
      for (double v : values) var += (v - mean) * (v - mean);
      var /= static_cast<double>(values.size());  // population variance (spec 000 §4, Fig 3 recipe)
      std::vector<double> sorted = values;
      std::sort(sorted.begin(), sorted.end());
      row.insert(row.end(), {mean, var, sorted.front(), sorted.back()});
      for (double q : quantiles_) {
        const double pos = q * static_cast<double>(sorted.size() - 1);
        const std::size_t lo = static_cast<std::size_t>(std::floor(pos));
        const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
        row.push_back(sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]));
      }
    }
    out.push_back(std::move(row));
  }
  return out;
}

void EnsembleStatistics::write_statistics(const std::filesystem::path& file) const {
  CsvWriter csv(file, statistics_columns());
  for (const auto& row : statistics()) csv.row(row.data());
  csv.close();
}

void EnsembleStatistics::write_members(const std::filesystem::path& file) const {
  std::vector<std::string> cols = {"member"};
  cols.insert(cols.end(), columns_.begin(), columns_.end());
  CsvWriter csv(file, cols);
  const std::size_t nc = columns_.size();
  std::vector<double> row(nc + 1);
  for (std::size_t m = 0; m < members_.size(); ++m) {
    for (std::size_t r = 0; r + 1 <= members_[m].size() / nc; ++r) {
      row[0] = static_cast<double>(m);
      std::copy(members_[m].begin() + r * nc, members_[m].begin() + (r + 1) * nc, row.begin() + 1);
      csv.row(row.data());
    }
  }
  csv.close();
}

}  // namespace dalembert
