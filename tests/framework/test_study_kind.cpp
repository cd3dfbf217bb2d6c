// A study kind is one unit (issue 27, study/study_kind.hpp): this file adds a kind the framework
// has never heard of — "endpoint": every integrator run once, its final q against the system's
// exact solution in endpoints.csv, a report section — with one registration line, and runs a
// study of it through the runner. Before issue 27 such a study was refused ("unknown study kind")
// and a kind needed edits in about 14 framework files.
#include <catch2/catch.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/host/registry.hpp>
#include <dalembert/study/csv_writer.hpp>
#include <dalembert/core/json_input.hpp>
#include <dalembert/study/study_kind.hpp>
#include <fstream>
#include <sstream>

#include "support.hpp"
#include "temp_dir.hpp"

using namespace dalembert;
using nlohmann::json;

namespace {

// |q(T) − q_exact(T)| in the norm the study names ("endpoint_norm": "max" or "sum").
double endpoint_error(const System& system, const State& s0, double T, const json& q, const std::string& norm) {
  State exact;
  system.exact_solution(s0, s0.t + T, exact);
  double out = 0.0;
  for (Eigen::Index i = 0; i < exact.q.size(); ++i) {
    const double e = std::abs(q[static_cast<std::size_t>(i)].get<double>() - exact.q[i]);
    out = norm == "max" ? std::max(out, e) : out + e;
  }
  return out;
}

class EndpointKind : public StudyKind {
 public:
  std::string name() const override { return "endpoint"; }
  std::vector<KindKey> keys() const override {
    return {{"endpoint_norm", "endpoint_norm belongs to endpoint studies"}};
  }
  std::vector<std::string> figure_types() const override { return {}; }
  // None of its own ("manifest" and "ratio" serve every kind); offering "summary" too would make
  // the message of a misplaced summary name the first kind by name that offers it.
  std::vector<std::string> claim_quantities() const override { return {}; }
  void parse_keys(const JsonCursor& root, Study&) const override {
    if (root.has("endpoint_norm")) check_one_of(root["endpoint_norm"], {"max", "sum"}, "not a norm; use one of: ");
  }
  void reduce(Reduction& rd) const override {
    const Study& st = rd.unit.study;
    const std::string norm = st.raw.value("endpoint_norm", "max");
    CsvWriter csv(rd.dir / "endpoints.csv", {"label", "h", "error_q"});
    json rows = json::array();
    for (const auto& t : rd.manifest["tasks"]) {
      const double e = endpoint_error(*rd.unit.plan.system, rd.unit.plan.initial, st.T, t["final"]["q"], norm);
      csv.row({t["label"].get<std::string>()}, {t["h"].get<double>(), e});
      rows.push_back({{"label", t["label"]}, {"error_q", e}});
    }
    csv.close();
    rd.manifest["endpoints"] = rows;
    rd.files.push_back({{"path", "endpoints.csv"}, {"kind", "endpoints"}, {"columns", {"label", "h", "error_q"}}});
  }
  void report(std::ostream& out, const json& manifest) const override {
    report_tasks(out, manifest);
    out << "## Endpoints\n\n";
    report_table_head(out, {"label", "error in q at T"});
    for (const auto& r : report_get(manifest, "endpoints"))
      report_table_row(out, {report_cell(report_get(r, "label")), report_cell(report_get(r, "error_q"))});
    out << "\n";
  }
};

}  // namespace

DALEMBERT_STUDY_KIND(EndpointKind)

namespace {

// The nonholonomic particle (closed-form solution) with two integrators to T = 1.
json endpoint_study(const std::string& kind) {
  json j;
  j["name"] = "endpoint_study";
  j["kind"] = kind;
  j["system"] = {{"plugin", "nonholonomic_particle"}};
  j["initial"] = {{"q", {1, 1, -1}}, {"v", {1, -1, 1}}};
  j["T"] = 1;
  j["h"] = 0.1;
  j["integrators"] = json::array({{{"label", "DLA"}, {"plugin", "nonholonomic_newmark"},
                                   {"params", {{"beta", 0}, {"beta_prime", 0}, {"alpha", 0.5}}}},
                                  {{"label", "RK4"}, {"plugin", "rk4"}}});
  j["endpoint_norm"] = "sum";
  return j;
}

std::string read_all(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("study kind: a kind from one file runs through the runner, with its files and report section", "[study_kind]") {
  REQUIRE(find_study_kind("endpoint") != nullptr);
  const test::TempDir dir("study_kind");
  json j = endpoint_study("endpoint");
  j["claims"] = {{"checks", {{{"id", "RK4 endpoint"}, {"quantity", {{"manifest", "/endpoints/1/error_q"}}}, {"<", 1e-2}}}}};
  const Study st = parse_study(j, "endpoint.json");
  CHECK(st.kind == "endpoint");
  CHECK(st.observers.size() == 2);  // the default observers of a kind that does not say otherwise
  const RunReport r = test::run_quietly(st, dir / "run", 2);
  const json& m = r.manifest;
  CHECK(m["study"]["kind"] == "endpoint");
  CHECK(r.claims_failed == 0);
  CHECK(m["claims"]["passed"] == 1);  // evaluated on the kind's manifest entries
  REQUIRE(m["tasks"].size() == 2);

  // endpoints.csv: one row per integrator, the error against the exact solution recomputed here.
  const auto t = test::read_csv(dir / "run" / "endpoints.csv", 1);
  REQUIRE(t.at("error_q").size() == 2);
  const Registry reg;
  const auto system = reg.make_system("nonholonomic_particle", json::object(), "test");
  State s0;
  s0.q = Vec::Map(std::vector<double>{1, 1, -1}.data(), 3);
  s0.v = Vec::Map(std::vector<double>{1, -1, 1}.data(), 3);
  for (std::size_t i = 0; i < 2; ++i) {
    INFO("task " << i);
    const double e = endpoint_error(*system, s0, 1.0, m["tasks"][i]["final"]["q"], "sum");
    CHECK(t.at("error_q")[i] == Approx(e).epsilon(1e-15));  // the same sum, written with 17 digits
    CHECK(e > 0.0);   // neither method is exact on the particle at h = 0.1 ...
    CHECK(e < 1e-2);  // ... and both are consistent (orders 2 and 4, h = 0.1)
  }
  bool indexed = false;
  for (const auto& f : m["files"]) indexed = indexed || (f["path"] == "endpoints.csv" && f["kind"] == "endpoints");
  CHECK(indexed);

  // report.md: the kind's sections, after the claims.
  const std::string report = read_all(dir / "run" / "report.md");
  CHECK_THAT(report, Catch::Contains("Kind: **endpoint**"));
  CHECK_THAT(report, Catch::Contains("## Tasks"));
  CHECK_THAT(report, Catch::Contains("## Endpoints\n\n| label | error in q at T |"));
  CHECK(report.find("## Claims") < report.find("## Endpoints"));
}

TEST_CASE("study kind: its keys are checked, and refused in other kinds", "[study_kind]") {
  json j = endpoint_study("endpoint");
  j["endpoint_norm"] = "l2";
  CHECK_THROWS_WITH(parse_study(j, "e.json"), Catch::Contains("e.json: /endpoint_norm = \"l2\"") &&
                                                  Catch::Contains("not a norm; use one of: max, sum"));
  j = endpoint_study("trajectory");
  CHECK_THROWS_WITH(parse_study(j, "e.json"), Catch::Contains("/endpoint_norm") &&
                                                  Catch::Contains("endpoint_norm belongs to endpoint studies"));
  j = endpoint_study("trajectories");
  CHECK_THROWS_WITH(parse_study(j, "e.json"), Catch::Contains("unknown study kind: use convergence, endpoint, ensemble"));
  // Its claim quantities: a trajectory file's column is not one of them; a manifest number is.
  j = endpoint_study("endpoint");
  j["claims"] = {{"checks", {{{"quantity", {{"column", "energy_error"}, {"task", "RK4"}}}, {"<", 1}}}}};
  CHECK_THROWS_WITH(parse_study(j, "e.json"), Catch::Contains("belongs to a trajectory study; this one is a endpoint study"));
  j["claims"] = {{"checks", {{{"quantity", {{"manifest", "/endpoints/0/error_q"}}}, {"<", 1}}}}};
  CHECK(parse_study(j, "e.json").claims.size() == 1);
}
