// Seed 004 figures (issue 15 §2): the bundled studies drawn with their figures — the impact paths of
// Figs. 1–4 (impact markers and the penny's diameter at each impact; the plastic cases with a zoom
// panel), Fig. 5 as four panels, and Table I written as a table file (figures/table1_parameters.md
// and .csv) from the parameters in use.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "penny_support.hpp"

using namespace dalembert;
using namespace dalembert::test;
namespace fs = std::filesystem;

namespace {

// Runs a bundled study with its figures; false (with a warning) when the machine cannot draw.
bool run_with_figures(const std::string& relative, const fs::path& out, nlohmann::json& manifest) {
  RunOptions opt;
  opt.out_dir = out;
  opt.plots = true;
  opt.verbose = false;
  opt.progress = false;
  manifest = run_study(load_study(std::string(DALEMBERT_SOURCE_DIR) + "/" + relative), opt).manifest;
  const std::string status = manifest.value("figures_status", std::string());
  if (status.find("matplotlib") != std::string::npos) {
    WARN("no matplotlib here: figures not checked (" << status << ")");
    return false;
  }
  REQUIRE(status == "ok");
  return true;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int panel_count(const nlohmann::json& manifest, const std::string& figure) {
  for (const auto& f : manifest.at("study").at("figures"))
    if (f.at("name") == figure) return f.contains("panels") ? static_cast<int>(f.at("panels").size()) : 1;
  return 0;
}

}  // namespace

TEST_CASE("Seed 004 figures: impact paths (Figs. 1-4), Fig. 5 in four panels, Table I as a table file",
          "[impacts][penny][studies][figures]") {
  const TempDir dir("penny_fig");
  nlohmann::json m;
  for (const auto& [file, panels] : std::vector<std::pair<std::string, int>>{{"fig1_elastic_circle", 1},
                                                                            {"fig2_plastic_circle", 2},
                                                                            {"fig3_elastic_ellipse", 1},
                                                                            {"fig4_plastic_ellipse", 2}}) {
    INFO(file);
    if (!run_with_figures("studies/penny/" + file + ".json", dir / file, m)) return;
    for (const char* ext : {".png", ".svg"}) {
      CHECK(fs::file_size(dir / file / "figures" / (file + "_path" + ext)) > 1000);
      CHECK(fs::file_size(dir / file / "figures" / (file + "_energy" + ext)) > 1000);
    }
    CHECK(panel_count(m, file + "_path") == panels);  // the plastic cases: the table and a zoom
    // The title claims the exact flow's first 20 impacts: the run logs them.
    CHECK(task(m, "exact").at("summary").at("impact_count").get<double>() == 20);
    // The legend states each run's impact count (matplotlib keeps text as comments in the svg).
    const std::string svg = slurp(dir / file / "figures" / (file + "_path.svg"));
    CHECK(svg.find("exact (20 impacts") != std::string::npos);
  }
  if (!run_with_figures("studies/penny/fig5_ensemble_ellipse.json", dir / "fig5", m)) return;
  CHECK(fs::file_size(dir / "fig5" / "figures" / "fig5_ensemble_ellipse_snapshots.png") > 1000);
  CHECK(panel_count(m, "fig5_ensemble_ellipse_snapshots") == 4);  // the paper's 1 x 4 panels

  if (!run_with_figures("studies/penny/table1_parameters.json", dir / "table1", m)) return;
  const std::string md = slurp(dir / "table1" / "figures" / "table1_parameters.md");
  for (const char* row : {"| R | 0.01 m |", "| m | 0.0025 kg |", "| I = ½mR² | 1.25e-07 kg m² |",
                          "| J = ¼mR² | 6.25e-08 kg m² |", "| b | 0.2 m |", "| a, elliptical table | 0.15 m |",
                          "| a, circular table | 0.2 m |"}) {
    INFO(row);
    CHECK(md.find(row) != std::string::npos);
  }
  const auto csv = slurp(dir / "table1" / "figures" / "table1_parameters.csv");
  CHECK(csv.find("parameter,value,unit") == 0);
  CHECK(csv.find("R,0.01,m") != std::string::npos);
}
