// Issue 12: a deterministic fuzz driver over the CLI. Seed corpus: every shipped study, shrunk to
// run in well under a second; each case applies one to three hostile mutations, runs
// `dalembert run` in a fresh sandbox folder and classifies the outcome. A clean one-line error and a
// valid complete folder are fine; anything else (signal, hang, a bad folder, a multi-line error, a
// file touched outside the output folder) is a defect, saved with its study as a reproducer.
//
// Default: at most 45 s or 400 cases. DALEMBERT_FUZZ_CASES=N runs N cases (no time budget),
// DALEMBERT_FUZZ_SEED=S changes the seed; scripts/fuzz.sh N runs a long campaign.
//
// Issue 26: a second driver sweeps every declared parameter of every plugin to its limits
// (parameter_sweep.hpp); a library's own text on stderr ("max_size()", "json.exception") is a
// defect too (outcome.hpp). scripts/fuzz.sh --params runs all of its cases.
#include <catch2/catch.hpp>
#include <chrono>
#include <dalembert/core/parameters.hpp>
#include <dalembert/host/registry.hpp>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>

#include "mutator.hpp"
#include "outcome.hpp"
#include "parameter_sweep.hpp"
#include "sandbox.hpp"
#include "temp_dir.hpp"  // tests/

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Corpus {
  std::vector<std::string> names;
  std::vector<json> studies;  // shrunk
};

Corpus load_corpus() {
  Corpus c;
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(DALEMBERT_SOURCE_DIR "/studies"))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());  // a fixed order: the same cases for the same seed
  for (const auto& f : files) {
    std::ifstream in(f);
    c.names.push_back(f.filename().string());
    c.studies.push_back(dalembert::fuzz::shrink(json::parse(in)));
  }
  return c;
}

unsigned long long env_number(const char* name, unsigned long long fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

// Where reproducers of defects go: kept after the test, named in the failure message.
fs::path defects_folder() { return fs::path(DALEMBERT_BINARY_DIR) / "fuzz_defects"; }

std::string slug(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

struct CaseResult {
  std::string outcome, what, text;
};

// Runs the study `r.text` through the CLI in a fresh sandbox and classifies the outcome.
void run_study_text(CaseResult& r, std::size_t i, const fs::path& root) {
  const fs::path sandbox = root / ("case_" + std::to_string(i)), scratch = root / ("scratch_" + std::to_string(i));
  fs::create_directories(sandbox);
  fs::create_directories(scratch);
  std::ofstream(sandbox / "study.json", std::ios::binary) << r.text;
  const auto before = dalembert::fuzz::snapshot(sandbox);
  const auto p = dalembert::fuzz::run_process(
      {DALEMBERT_CLI, "run", "study.json", "--out", "out", "--no-plots", "--quiet", "--threads", "1"}, sandbox, scratch, 20.0);
  r.outcome = dalembert::fuzz::classify(p, sandbox / "out", before, dalembert::fuzz::snapshot(sandbox));
  if (dalembert::fuzz::is_defect(r.outcome)) r.what += " | stderr: " + p.err.substr(0, 300);
  fs::remove_all(sandbox);
  fs::remove_all(scratch);
}

CaseResult run_case(const Corpus& corpus, unsigned long long seed, std::size_t i, const fs::path& root) {
  std::mt19937_64 rng(seed + i);  // every case reproducible on its own
  const std::size_t k = std::uniform_int_distribution<std::size_t>(0, corpus.studies.size() - 1)(rng);
  CaseResult r;
  r.text = dalembert::fuzz::mutate(corpus.studies[k], rng, r.what);
  r.what = corpus.names[k] + ":" + r.what;
  run_study_text(r, i, root);
  return r;
}

void save_reproducer(const CaseResult& r, std::size_t i, const std::string& prefix = "") {
  const fs::path dir = defects_folder() / (prefix + slug(r.outcome));
  fs::create_directories(dir);
  std::ofstream(dir / ("case_" + std::to_string(i) + ".json"), std::ios::binary) << r.text;
  std::ofstream(dir / ("case_" + std::to_string(i) + ".txt")) << r.what << "\n";
}

// Prints the outcome table; returns the number of defects.
std::size_t print_table(const std::map<std::string, std::size_t>& table, const std::map<std::string, std::string>& examples) {
  std::size_t defects = 0;
  for (const auto& [outcome, n] : table) {
    const bool defect = dalembert::fuzz::is_defect(outcome);
    std::cout << "  " << n << "\t" << outcome << (defect ? "\t(e.g. " + examples.at(outcome) + ")" : "") << "\n";
    if (defect) defects += n;
  }
  return defects;
}

}  // namespace

TEST_CASE("fuzz: mutated studies give a one-line error or a valid complete folder", "[fuzz]") {
  const unsigned long long seed = env_number("DALEMBERT_FUZZ_SEED", 12);
  const bool campaign = std::getenv("DALEMBERT_FUZZ_CASES") != nullptr;
  const std::size_t cases = env_number("DALEMBERT_FUZZ_CASES", 400);
  const double budget_s = campaign ? 1e12 : 45.0;
  const Corpus corpus = load_corpus();
  REQUIRE(!corpus.studies.empty());
  dalembert::test::TempDir root("fuzz");
  std::map<std::string, std::size_t> table;
  std::map<std::string, std::string> examples;
  const auto start = std::chrono::steady_clock::now();
  std::size_t i = 0;
  for (; i < cases && std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < budget_s; ++i) {
    const CaseResult r = run_case(corpus, seed, i, root.path());
    if (dalembert::fuzz::is_defect(r.outcome) && table[r.outcome] < 3) save_reproducer(r, i);
    if (!examples.contains(r.outcome)) examples[r.outcome] = r.what;
    ++table[r.outcome];
  }
  std::cout << "fuzz: " << i << " cases, seed " << seed << "\n";
  INFO("reproducers of the defects are in " << defects_folder().string());
  CHECK(print_table(table, examples) == 0);
}

// Issue 26: every declared parameter of every plugin at its limits (parameter_sweep.hpp), each
// case in a shipped study that uses the plugin. By default about 120 cases spread over the list
// (every k-th, from an offset set by the seed; ~15 s), for at most 40 s; DALEMBERT_FUZZ_PARAMS=all
// runs all of them (~2000, 3-8 min: scripts/fuzz.sh --params).
TEST_CASE("fuzz: every declared parameter of every plugin at its limits", "[fuzz]") {
  const unsigned long long seed = env_number("DALEMBERT_FUZZ_SEED", 12);
  const char* mode = std::getenv("DALEMBERT_FUZZ_PARAMS");
  const bool all = mode && std::string(mode) == "all";
  const Corpus corpus = load_corpus();
  dalembert::Registry registry;
  std::vector<std::string> uncovered;
  const auto cases = dalembert::fuzz::parameter_cases(registry, corpus.names, corpus.studies, uncovered);
  INFO("plugins no shipped study can host: " << dalembert::joined(uncovered));
  CHECK(uncovered.empty());
  REQUIRE(cases.size() > 500);
  const std::size_t stride = all ? 1 : cases.size() / 120, offset = all ? 0 : seed % stride;
  const double budget_s = all ? 1e12 : 40.0;
  dalembert::test::TempDir root("fuzz_params");
  std::map<std::string, std::size_t> table;
  std::map<std::string, std::string> examples;
  const auto start = std::chrono::steady_clock::now();
  std::size_t ran = 0;
  for (std::size_t i = offset; i < cases.size(); i += stride) {
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > budget_s) break;
    CaseResult r{"", cases[i].what, cases[i].text};
    run_study_text(r, i, root.path());
    if (dalembert::fuzz::is_defect(r.outcome) && table[r.outcome] < 5) save_reproducer(r, i, "params_");
    if (!examples.contains(r.outcome)) examples[r.outcome] = r.what;
    ++table[r.outcome];
    ++ran;
  }
  std::cout << "fuzz: " << ran << " of " << cases.size() << " parameter cases\n";
  INFO("reproducers of the defects are in " << defects_folder().string() << " (params_*)");
  CHECK(print_table(table, examples) == 0);
}
