#pragma once
// report.md: a run folder explained in one page, written from its manifest — what the study is
// for, what ran (system, integrators, h, T), the figures inline, the checked claims with their
// verdicts, the task summaries, the convergence table or the sweep/ensemble summaries, and the
// provenance (version, revision, plugin files, threads, wall time). Nothing in it is measured
// anew: every number is the manifest's, so the page cannot disagree with the run.
#include <boost/config.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace dalembert {

/// The report of a run, as Markdown.
BOOST_SYMBOL_VISIBLE std::string report_markdown(const nlohmann::json& manifest);

/// The verdict line of a run: "3 claims passed", "1 of 3 claims FAILED", or "no checked claims".
BOOST_SYMBOL_VISIBLE std::string claims_verdict(const nlohmann::json& manifest);

/// Writes `staging`/report.md (through a .part file, checked, then renamed) and lists it in the
/// manifest's file index.
BOOST_SYMBOL_VISIBLE void write_report(nlohmann::json& manifest, const std::filesystem::path& staging);

}  // namespace dalembert
