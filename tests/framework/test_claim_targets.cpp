// Claims are validated before the run (issue 26, study/claim_targets.hpp): a claim that names a
// column, task, summary, convergence-table entry or step size, ensemble statistics column or
// member summary, sweep metric, axis or axis value the study will not produce — or a time window
// that holds no recorded row — is ONE line "error: FILE: /claims/checks/N/quantity/KEY = VALUE:
// why", and nothing is written: no output folder, no staging folder, no .failed folder. Before
// issue 26 these ran the study and failed the claim afterwards with the value nan (exit 3).
#include <catch2/catch.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/study/runner.hpp>
#include <dalembert/study/study_plan.hpp>
#include <dalembert/study/sweep.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "cli_support.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using dalembert::test::StudyCase;

namespace {

// A small study of the nonholonomic particle (closed-form solution): DLA and RK4 to T = 1,
// observers energy_error and constraint_residual (and, for DLA, which publishes its discrete
// constraint, discrete_constraint_residual). Trajectory rows at t = 0, 0.1, ..., 1.
json particle(const std::string& kind) {
  json j;
  j["name"] = "claims_" + kind;
  j["kind"] = kind;
  j["system"] = {{"plugin", "nonholonomic_particle"}};
  j["initial"] = {{"q", {1, 1, -1}}, {"v", {1, -1, 1}}};
  j["T"] = 1;
  j["h"] = 0.1;
  j["integrators"] = json::array({{{"label", "DLA"}, {"plugin", "nonholonomic_newmark"},
                                   {"params", {{"beta", 0}, {"beta_prime", 0}, {"alpha", 0.5}}}},
                                  {{"label", "RK4"}, {"plugin", "rk4"}}});
  j["observers"] = {"energy_error", "constraint_residual"};
  if (kind == "convergence") j["h"] = {0.1, 0.05}, j["reference"] = "exact";
  if (kind == "ensemble")  // ydot is free of the constraint zdot = y xdot: every member stays on it
    j["ensemble"] = {{"size", 3}, {"seed", 1}, {"quantiles", {0.1, 0.9}},
                     {"sampler", {{"plugin", "uniform_perturbation"}, {"params", {{"v", {{"ydot", 0.1}}}}}}}};
  if (kind == "sweep")
    j["sweep"] = {{"of", "trajectory"},
                  {"axes", {{{"name", "alpha"}, {"set", {"/integrators/0/params/alpha"}}, {"values", {0.5, 0.25}}}}}};
  return j;
}

// `study` with one claim on `quantity`, run through the CLI: stderr must be exactly
// "error: FILE: " + `where_and_why` and a newline, the exit status 1, and no folder written.
void check_refused(const std::string& tag, json study, const json& quantity, const std::string& where_and_why) {
  StudyCase c(tag);
  study["claims"] = {{"checks", {{{"id", "c"}, {"quantity", quantity}, {"<", 1}}}}};
  const auto r = c.run(study);
  INFO("stdout: " << r.out);
  CHECK(r.err == "error: " + c.file.string() + ": " + where_and_why + "\n");
  CHECK(r.status == 1);
  c.check_no_result();
  CHECK_FALSE(fs::exists(c.out.string() + ".failed"));
}

}  // namespace

TEST_CASE("claims before the run: a trajectory column the tasks will not write", "[claims][claim_targets]") {
  check_refused("ct_column", particle("trajectory"), {{"column", "energy_eror"}, {"task", "RK4"}},
                "/claims/checks/0/quantity/column = \"energy_eror\": not a column of trajectory_RK4.csv; its columns "
                "are: t, energy, energy_error, constraint_residual");
}

TEST_CASE("claims before the run: a task label no integrator has", "[claims][claim_targets]") {
  check_refused("ct_label", particle("trajectory"), {{"column", "energy_error"}, {"task", "RK5"}},
                "/claims/checks/0/quantity/task = \"RK5\": no integrator has this label (labels: DLA, RK4)");
}

TEST_CASE("claims before the run: a summary the tasks will not report", "[claims][claim_targets]") {
  check_refused("ct_summary", particle("trajectory"), {{"summary", "max_abs_energy_eror"}, {"task", "DLA"}},
                "/claims/checks/0/quantity/summary = \"max_abs_energy_eror\": task DLA reports no such summary; its "
                "summaries are: initial_energy, max_abs_energy_error, final_energy_error, max_constraint_residual, "
                "max_discrete_constraint_residual");
}

TEST_CASE("claims before the run: a time window or time that holds no recorded row", "[claims][claim_targets]") {
  check_refused("ct_window", particle("trajectory"),
                {{"column", "energy_error"}, {"task", "RK4"}, {"stat", "spread"}, {"from", 50}, {"to", 100}},
                "/claims/checks/0/quantity/from = 50: trajectory_RK4.csv has no row in [50, 100] (its rows run from "
                "t = 0 to 1 every 0.1)");
  check_refused("ct_at", particle("trajectory"), {{"column", "energy_error"}, {"task", "RK4"}, {"at", 0.55}},
                "/claims/checks/0/quantity/at = 0.55: trajectory_RK4.csv records no row at this time (its rows run "
                "from t = 0 to 1 every 0.1)");
  json every3 = particle("trajectory");
  every3["record_every"] = 3;  // rows at steps 0, 3, 6, 9 and the last, 10
  check_refused("ct_every", every3, {{"column", "energy_error"}, {"task", "RK4"}, {"from", 0.4}, {"to", 0.5}},
                "/claims/checks/0/quantity/from = 0.4: trajectory_RK4.csv has no row in [0.4, 0.5] (its rows run from "
                "t = 0 to 1 every 0.3)");
}

TEST_CASE("claims before the run: a window key on a quantity without times, and an empty window",
          "[claims][claim_targets]") {
  check_refused("ct_key", particle("trajectory"), {{"summary", "max_abs_energy_error"}, {"task", "RK4"}, {"from", 0.5}},
                "/claims/checks/0/quantity/from = 0.5: a \"summary\" quantity takes no \"from\"; it takes task");
  check_refused("ct_empty", particle("trajectory"), {{"column", "energy_error"}, {"task", "RK4"}, {"from", 0.5}, {"to", 0.2}},
                "/claims/checks/0/quantity/to = 0.2: the window is empty: \"to\" is before \"from\" = 0.5");
}

TEST_CASE("claims before the run: a convergence-table entry, step size or fit the study will not produce",
          "[claims][claim_targets]") {
  check_refused("ct_error_h", particle("convergence"), {{"error", "error_qv"}, {"label", "DLA"}, {"h", 0.03}},
                "/claims/checks/0/quantity/h = 0.03: not a step size of the ladder; \"h\" is [0.1,0.05]");
  check_refused("ct_error_name", particle("convergence"), {{"error", "eror_qv"}, {"label", "DLA"}, {"h", 0.05}},
                "/claims/checks/0/quantity/error = \"eror_qv\": not an entry of the convergence table of DLA; its "
                "entries are: h, error_q, error_v, error_qv, energy_error, constraint_residual and the task summaries: "
                "initial_energy, max_abs_energy_error, final_energy_error, max_constraint_residual, "
                "max_discrete_constraint_residual");
  check_refused("ct_fit", particle("convergence"), {{"fitted_order", "RK5"}},
                "/claims/checks/0/quantity/fitted_order = \"RK5\": no integrator has this label (labels: DLA, RK4)");
}

TEST_CASE("claims before the run: an ensemble statistics column or member summary it will not write",
          "[claims][claim_targets]") {
  check_refused("ct_ens", particle("ensemble"), {{"ensemble", "energy_error_q50"}, {"label", "DLA"}},
                "/claims/checks/0/quantity/ensemble = \"energy_error_q50\": not a column of ensemble_stats_DLA.csv; its "
                "columns are: t, energy_mean, energy_var, energy_min, energy_max, energy_q10, energy_q90, "
                "energy_error_mean, energy_error_var, energy_error_min, energy_error_max, energy_error_q10, "
                "energy_error_q90, constraint_residual_mean, constraint_residual_var, constraint_residual_min, "
                "constraint_residual_max, constraint_residual_q10, constraint_residual_q90, "
                "discrete_constraint_residual_mean, discrete_constraint_residual_var, discrete_constraint_residual_min, "
                "discrete_constraint_residual_max, discrete_constraint_residual_q10, discrete_constraint_residual_q90");
  check_refused("ct_ens_summary", particle("ensemble"), {{"ensemble_summary", "max_abs_energy_eror"}, {"label", "RK4"}},
                "/claims/checks/0/quantity/ensemble_summary = \"max_abs_energy_eror\": the members of RK4 report no such "
                "summary; their summaries are: initial_energy, max_abs_energy_error, final_energy_error, "
                "max_constraint_residual");
  check_refused("ct_ens_stat", particle("ensemble"),
                {{"ensemble_summary", "max_abs_energy_error"}, {"label", "RK4"}, {"stat", "spread"}},
                "/claims/checks/0/quantity/stat = \"spread\": the members' summaries are kept as their min, max, mean; "
                "use one of these");
}

TEST_CASE("claims before the run: a sweep metric, axis or axis value sweep.csv will not have", "[claims][claim_targets]") {
  check_refused("ct_sweep", particle("sweep"), {{"sweep", "max_abs_energy_eror"}, {"label", "DLA"}},
                "/claims/checks/0/quantity/sweep = \"max_abs_energy_eror\": not a column of sweep.csv for integrator "
                "DLA; its columns are: cell, alpha, ok and the metrics initial_energy, max_abs_energy_error, "
                "final_energy_error, max_constraint_residual, max_discrete_constraint_residual");
  check_refused("ct_axis", particle("sweep"), {{"sweep", "max_abs_energy_error"}, {"label", "DLA"}, {"where", {{"alpah", 0.5}}}},
                "/claims/checks/0/quantity/where/alpah = 0.5: not a sweep axis; the axes are: alpha");
  check_refused("ct_value", particle("sweep"), {{"sweep", "max_abs_energy_error"}, {"label", "DLA"}, {"where", {{"alpha", 0.3}}}},
                "/claims/checks/0/quantity/where/alpha = 0.3: not a value of axis alpha; its values are [0.5,0.25]");
}

TEST_CASE("claims before the run: a ratio's parts and a manifest pointer are checked too", "[claims][claim_targets]") {
  check_refused("ct_ratio", particle("trajectory"),
                {{"ratio", {{{"summary", "max_abs_energy_error"}, {"task", "DLA"}}, {{"column", "energy"}, {"task", "DLX"}}}}},
                "/claims/checks/0/quantity/ratio/1/task = \"DLX\": no integrator has this label (labels: DLA, RK4)");
  check_refused("ct_ratio2", particle("trajectory"),
                {{"ratio", {{{"summary", "max_abs_energy_error"}, {"task", "DLA"}}, {{"column", "enrgy"}, {"task", "DLA"}}}}},
                "/claims/checks/0/quantity/ratio/1/column = \"enrgy\": not a column of trajectory_DLA.csv; its columns "
                "are: t, energy, energy_error, constraint_residual, discrete_constraint_residual");
  check_refused("ct_pointer", particle("trajectory"), {{"manifest", "/tasks/0/st~2eps"}},
                "/claims/checks/0/quantity/manifest = \"/tasks/0/st~2eps\": not a JSON pointer: '~' is followed by 0 "
                "('~') or 1 ('/')");
}

namespace {

json bundled(const std::string& relative) {
  return json::parse(dalembert::test::read_text(fs::path(DALEMBERT_SOURCE_DIR) / relative));
}

// The InputError planning `study` throws ("" if none).
std::string plan_error(const json& study) {
  try {
    (void)dalembert::plan_study(dalembert::parse_study(study, "p.json"));
  } catch (const dalembert::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("summary names that depend on the run match their pattern: <k> is a positive integer", "[claims][claim_targets]") {
  using dalembert::matches_name_pattern;
  CHECK(matches_name_pattern("impact_<k>_t", "impact_1_t"));
  CHECK(matches_name_pattern("impact_<k>_t", "impact_120_t"));
  CHECK(matches_name_pattern("impact_<k>_2", "impact_12_2"));  // the integer ends where the rest matches
  CHECK_FALSE(matches_name_pattern("impact_<k>_t", "impact_0_t"));
  CHECK_FALSE(matches_name_pattern("impact_<k>_t", "impact_01_t"));
  CHECK_FALSE(matches_name_pattern("impact_<k>_t", "impact__t"));
  CHECK_FALSE(matches_name_pattern("impact_<k>_t", "impact_1_tt"));
  CHECK_FALSE(matches_name_pattern("impact_<k>_t", "impact_x_t"));
  CHECK(matches_name_pattern("max_x", "max_x"));
}

// impact_log reports impact_<k>_<field> only for impacts the run has: such a name is accepted
// before the run when it has the form of one (and checked after it), and refused when it has not.
TEST_CASE("claims before the run: summaries that depend on the run are checked by their pattern", "[claims][claim_targets]") {
  json j = bundled("studies/penny/fig4_plastic_ellipse.json");
  j["check_derivatives"] = false;
  j["claims"]["checks"] = {{{"quantity", {{"summary", "impact_3_post_thetadot"}, {"task", "RK4"}}}, {">", 0}}};
  CHECK(plan_error(j).empty());
  j["claims"]["checks"][0]["quantity"]["summary"] = "impact_3_post_thetadto";
  const std::string e = plan_error(j);
  CHECK_THAT(e, Catch::StartsWith("p.json: /claims/checks/0/quantity/summary = \"impact_3_post_thetadto\": task RK4 "
                                  "reports no such summary; its summaries are: max_contact_r, initial_energy, "
                                  "max_abs_energy_error, final_energy_error, impact_count, max_constraint_residual"));
  CHECK_THAT(e, Catch::Contains("; depending on the run: impact_<k>_t, impact_<k>_guard, impact_<k>_x, ") &&
                    Catch::Contains("impact_<k>_post_thetadot, "));
}

// The summaries learnt from a run of no steps are those a run reports (a summary that depends on
// the run matches a pattern), on studies whose observers report many: were one missing, a valid
// claim would be refused.
TEST_CASE("the planned summaries are the run's", "[claims][claim_targets]") {
  const dalembert::test::TempDir dir("planned_summaries");
  // Shortened to T (a whole number of recorded steps); every observer that reports summaries is here.
  const std::vector<std::pair<std::string, double>> studies = {
      {"studies/newmark/fig1_particle.json", 10},         {"studies/penny/fig2_plastic_circle.json", 3},
      {"studies/exact_discrete/fig2_particle.json", 10},  {"studies/exact_discrete/fig3_particle.json", 10},
      {"studies/kobilarov/fig4_snakeboard.json", 10},     {"studies/rodrigues/torus_tilted.json", 1},
      {"studies/exact_discrete/fig4_constraint_spaces.json", 2}};
  for (const auto& [file, T] : studies) {
    INFO(file);
    json j = bundled(file);
    j["T"] = T;
    j.erase("claims");
    j.erase("figures");
    const dalembert::Study st = dalembert::parse_study(j, file);
    const dalembert::StudyPlan plan = dalembert::plan_study(st);
    const auto run = dalembert::test::run_quietly(st, dir / st.name);
    for (std::size_t i = 0; i < st.integrators.size(); ++i) {
      const auto& planned = plan.summaries[i];
      INFO(st.integrators[i].label << ": planned " << planned.text());
      CHECK(planned.known);
      std::set<std::string> ran;
      for (const auto& [name, value] : dalembert::test::task(run.manifest, st.integrators[i].label).at("summary").items()) {
        ran.insert(name);
        INFO(name);
        CHECK(planned.may_report(name));
      }
      for (const auto& name : planned.names) CHECK(ran.count(name) == 1);
    }
  }
}

// Every bundled study, planned as a run plans it (a sweep: every cell), claims included.
TEST_CASE("every bundled study's claims are valid before the run", "[claims][claim_targets][studies]") {
  int planned = 0, claims = 0;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(DALEMBERT_SOURCE_DIR) / "studies")) {
    if (e.path().extension() != ".json") continue;
    INFO(e.path().string());
    const dalembert::Study st = dalembert::load_study(e.path().string());
    CHECK_NOTHROW(st.kind == "sweep" ? (void)dalembert::plan_sweep(st, dalembert::sweep_cells(st))
                                     : (void)dalembert::plan_study(st));
    ++planned;
    claims += static_cast<int>(st.claims.size());
  }
  CHECK(planned > 40);
  CHECK(claims > 500);
}
