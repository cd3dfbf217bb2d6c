// Seed 003 figures (issue 15 §2): Fig. 3 as a sequence of snapshot panels, Fig. 4 with the energies
// overlaid in one axes, Fig. 7 at the paper's t_N = 10 with panel (ii), the q-error (37) against a
// fine reference run. The studies run with their figures; the files and the declared panel counts
// are checked.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>

#include "support.hpp"

using namespace dalembert;
namespace fs = std::filesystem;

namespace {

nlohmann::json run_drawn(const std::string& relative, const fs::path& out) {
  RunOptions opt;
  opt.out_dir = out;
  opt.plots = true;
  opt.verbose = opt.progress = false;
  return run_study(load_study(std::string(DALEMBERT_SOURCE_DIR) + "/" + relative), opt).manifest;
}

int panels(const nlohmann::json& m, const std::string& figure) {
  for (const auto& f : m.at("study").at("figures"))
    if (f.at("name") == figure) return f.contains("panels") ? static_cast<int>(f.at("panels").size()) : 1;
  return 0;
}

bool drawn(const nlohmann::json& m) {
  const std::string status = m.value("figures_status", std::string());
  if (status.find("matplotlib") != std::string::npos) {
    WARN("no matplotlib: figures not checked");
    return false;
  }
  REQUIRE(status == "ok");
  return true;
}

}  // namespace

TEST_CASE("Seed 003 Figs. 3 and 4: snapshot panels and overlaid energies are drawn", "[rodrigues][figures]") {
  const test::TempDir dir("rrp_fig");
  auto m = run_drawn("studies/rodrigues/fig3_torus.json", dir / "fig3");
  if (!drawn(m)) return;
  CHECK(fs::file_size(dir / "fig3" / "figures" / "fig3_snapshots.png") > 10000);
  CHECK(panels(m, "fig3_snapshots") == 10);  // t = 0 … 35: the paper's sequence of states
  m = run_drawn("studies/rodrigues/fig4_torus_energy.json", dir / "fig4");
  if (!drawn(m)) return;
  CHECK(fs::file_size(dir / "fig4" / "figures" / "fig4_energies.png") > 10000);
  CHECK(panels(m, "fig4_energies") == 1);  // all eight energies in one axes, as in the paper
  CHECK(m["study"]["figures"][0]["panels"][0]["y"].size() == 8);
}

TEST_CASE("Seed 003 Fig. 7 at t_N = 10: E-error and q-error against a fine reference run (~1 min)",
          "[rodrigues][figures][slow]") {
  const test::TempDir dir("rrp_fig7");
  const auto m = run_drawn("studies/rodrigues/fig7_torus_tN10.json", dir / "run");
  const auto& ref = test::task(m, "ref");
  CHECK(ref["h"].get<double>() == 1.25e-4 / 8);
  const double n2 = ref["summary"]["H1_norm2"].get<double>();
  for (const char* map : {"R23", "R25", "C27"}) {
    INFO(map);
    // (i) the E-error falls with h (second order for (23), (25); first for (27), spec claim 18).
    const double e0 = test::task(m, std::string(map) + "_h0")["summary"]["E_error_38"].get<double>();
    const double e3 = test::task(m, std::string(map) + "_h3")["summary"]["E_error_38"].get<double>();
    CHECK(e3 < e0 / (std::string(map) == "C27" ? 4.0 : 20.0));
    // (ii) q-error (37) against the reference: finite, below 1 — the chaotic torus gives no rate (A24).
    for (int k = 0; k < 4; ++k) {
      const double q = std::sqrt(std::abs(test::task(m, std::string(map) + "_h" + std::to_string(k))["summary"]["H1_norm2"].get<double>() - n2) / n2);
      CHECK(q < 1.0);
    }
  }
  if (!drawn(m)) return;
  CHECK(fs::file_size(dir / "run" / "figures" / "fig7_tN10.png") > 10000);
  CHECK(panels(m, "fig7_tN10") == 2);  // (i) E-error, (ii) q-error
}
