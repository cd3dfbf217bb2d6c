#pragma once
// Shared helpers for the test suite: one process-wide registry over the build tree's plugins.
#include <dalembert/host/registry.hpp>

namespace dalembert::test {

inline const Registry& registry() {
  static Registry r;
  return r;
}

inline State make_state(std::initializer_list<double> q, std::initializer_list<double> v, double t = 0.0) {
  State s;
  s.t = t;
  s.q = Eigen::Map<const Vec>(q.begin(), static_cast<Eigen::Index>(q.size()));
  s.v = Eigen::Map<const Vec>(v.begin(), static_cast<Eigen::Index>(v.size()));
  return s;
}

/// The state after `steps` steps of size h of the integrator plugin `integrator` (with `params`)
/// on `system`, from s.
inline State integrate(const System& system, const std::string& integrator, State s, double h, int steps,
                       const nlohmann::json& params = nlohmann::json::object()) {
  auto in = registry().make_integrator(integrator, params, "test");
  in->bind(system);
  in->begin(s, h);
  for (int k = 0; k < steps; ++k) in->advance(s, h);
  return s;
}

}  // namespace dalembert::test

#include <dalembert/study/runner.hpp>

#include "temp_dir.hpp"
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace dalembert::test {

/// Runs a study quietly, without figures, into `out`.
inline RunReport run_quietly(const Study& study, const std::filesystem::path& out, int threads = 0) {
  RunOptions opt;
  opt.out_dir = out;
  opt.threads = threads;
  opt.plots = false;
  opt.verbose = false;
  opt.progress = false;
  return run_study(study, opt);
}

/// Runs a study of the source tree (path relative to the repository) without figures.
inline RunReport run_bundled_study(const std::string& relative, const std::filesystem::path& out, int threads = 0) {
  return run_quietly(load_study(std::string(DALEMBERT_SOURCE_DIR) + "/" + relative), out, threads);
}

/// A tidy numeric CSV as columns by name; the first `text_columns` columns (labels) are skipped.
inline std::map<std::string, std::vector<double>> read_csv(const std::filesystem::path& file, std::size_t text_columns = 0) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> names;
  {
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) names.push_back(cell);
  }
  std::map<std::string, std::vector<double>> cols;
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    std::string cell;
    for (std::size_t i = 0; std::getline(ss, cell, ','); ++i)
      if (i >= text_columns) cols[names.at(i)].push_back(std::stod(cell));
  }
  return cols;
}

/// The task of a manifest with a given label (the first, for convergence studies).
inline const nlohmann::json& task(const nlohmann::json& manifest, const std::string& label) {
  for (const auto& t : manifest.at("tasks"))
    if (t.at("label") == label) return t;
  throw std::runtime_error("no task labelled " + label);
}

}  // namespace dalembert::test
