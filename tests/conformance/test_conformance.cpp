// The conformance suite (issue 27, study/conformance.hpp) over every plugin the registry finds —
// no hand-kept list: an integrator added to plugins/ is checked here (no heap allocation in its
// step, state kept on failure, declared order, symmetry, constraints, declared needs) on the
// example states of every system, as soon as it is built. And the suite itself: a fault planted in
// a test-only integrator (tests/fixtures/planted_integrator.cpp) is caught by the check named for it.
#include <catch2/catch.hpp>
#include <dalembert/plugin/needs.hpp>
#include <dalembert/study/conformance.hpp>
#include <filesystem>
#include <set>
#include <string>

#include "allocation_counter.hpp"
#include "allocations.hpp"
#include "cli_support.hpp"
#include "support.hpp"

using namespace dalembert;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

ConformanceReport conformance(const Registry& reg, PluginKind kind, const std::string& name,
                              std::optional<json> params = std::nullopt) {
  ConformanceOptions options;
  options.allocations = &test::allocation_counter();
  options.params = std::move(params);
  return check_conformance(reg, kind, name, options);
}

// The plugin folders of the source tree for `kind` (plugins/systems/..., one plugin each, and mla's
// folder builds dla too): the registry must have found every one of them.
std::set<std::string> plugin_folders(PluginKind kind) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(fs::path(DALEMBERT_SOURCE_DIR) / "plugins" / (std::string(to_string(kind)) + "s")))
    if (fs::exists(e.path() / "CMakeLists.txt")) names.insert(e.path().filename().string());
  return names;
}

// Every installed plugin of `kind` passes every check that applies to it.
void every_plugin_conforms(PluginKind kind) {
  const auto& reg = test::registry();
  const auto plugins = reg.list(kind);
  CHECK(reg.refused().empty());  // a broken plugin file would otherwise go unchecked
  std::set<std::string> found;
  for (const auto* d : plugins) {
    found.insert(d->name);
    const ConformanceReport report = conformance(reg, kind, d->name);
    INFO(format_conformance(report));
    CHECK(report.ok());
    CHECK(!report.rows.empty());
  }
  for (const auto& folder : plugin_folders(kind)) {
    INFO("plugins/" << to_string(kind) << "s/" << folder << " is not among the plugins the registry found");
    CHECK(found.count(folder) == 1);
  }
}

// How many rows of `check` a report has with each verdict.
struct Tally {
  int pass = 0, finding = 0, not_exercised = 0;
};
Tally tally(const ConformanceReport& r, const std::string& check) {
  Tally t;
  for (const auto& row : r.rows)
    if (row.check == check) (row.verdict == Verdict::Pass ? t.pass : row.verdict == Verdict::Finding ? t.finding : t.not_exercised)++;
  return t;
}
std::set<std::string> checks_with_findings(const ConformanceReport& r) {
  std::set<std::string> out;
  for (const auto& row : r.rows)
    if (row.verdict == Verdict::Finding) out.insert(row.check);
  return out;
}

const Registry& planted_registry() {
  static const Registry& reg = [] () -> const Registry& {
    static Registry r;
    r.add_search_path(std::string(DALEMBERT_TEST_FIXTURE_DIR) + "/planted_integrators");
    return r;
  }();
  return reg;
}

}  // namespace

AllocationCounter& dalembert::test::allocation_counter() {
  static HookedAllocationCounter counter;
  return counter;
}

TEST_CASE("the allocation counter sees malloc and operator new", "[conformance][allocation]") {
  allocations = 0;
  counting = true;
  Eigen::VectorXd probe(1000);
  probe.setZero();
  auto* p = new std::vector<double>(10);
  counting = false;
  delete p;
  CHECK(allocations.load() >= 3);  // Eigen's malloc, new of the vector, its buffer
}

TEST_CASE("every installed system conforms (example states, dalembert check)", "[conformance]") {
  every_plugin_conforms(PluginKind::System);
}
TEST_CASE("every installed integrator conforms", "[conformance]") { every_plugin_conforms(PluginKind::Integrator); }
TEST_CASE("every installed observer conforms", "[conformance]") { every_plugin_conforms(PluginKind::Observer); }
TEST_CASE("every installed impact map conforms", "[conformance]") { every_plugin_conforms(PluginKind::Impact); }
TEST_CASE("every installed sampler conforms", "[conformance]") { every_plugin_conforms(PluginKind::Sampler); }

TEST_CASE("every shipped plugin declares what it needs, every system an example state", "[conformance][needs]") {
  const auto& reg = test::registry();
  for (auto kind : {PluginKind::System, PluginKind::Integrator, PluginKind::Observer, PluginKind::Impact, PluginKind::Sampler})
    for (const auto* d : reg.list(kind)) {
      INFO(to_string(kind) << " " << d->name);
      if (kind == PluginKind::System)
        CHECK(!d->examples.empty());
      else
        CHECK(static_cast<bool>(d->needs));
    }
}

TEST_CASE("the exercised checks cover what the contract promises", "[conformance]") {
  // The suite must really measure: rk4's order on an exact M(q) system, DLA's failure contract,
  // symmetry of a symmetric method, the constraint of a method that preserves it.
  const auto& reg = test::registry();
  const auto rk4 = conformance(reg, PluginKind::Integrator, "rk4");
  CHECK(tally(rk4, "allocation").pass >= 10);
  CHECK(tally(rk4, "order").pass >= 4);  // particle, knife edge, sleigh, penny, polar oscillator (M(q))
  bool polar = false;
  for (const auto& row : rk4.rows) polar = polar || (row.check == "order" && row.system == "polar_oscillator" && row.verdict == Verdict::Pass);
  CHECK(polar);
  const auto nm = conformance(reg, PluginKind::Integrator, "nonholonomic_newmark");
  CHECK(tally(nm, "failure").pass >= 1);
  CHECK(tally(nm, "symmetric").pass >= 1);
  CHECK(tally(nm, "constraint").pass >= 1);
  CHECK(tally(nm, "needs").pass >= 1);  // refuses M(q), forced and non-Lagrangian systems
}

// The breaches planted in test-only integrators (tests/fixtures/planted_integrator.cpp), each with
// the one check that must name it.
const std::vector<std::pair<std::string, std::string>> kPlanted = {
    {"planted_allocates", "allocation"},         {"planted_changes_state_on_failure", "failure"},
    {"planted_not_symmetric", "symmetric"},      {"planted_order_2_declared_4", "order"},
    {"planted_needs_undeclared", "needs"},       {"planted_needs_overdeclared", "needs"}};

TEST_CASE("a contract breach planted in an integrator is caught by the check named for it", "[conformance][planted]") {
  const auto& reg = planted_registry();
  const auto clean = conformance(reg, PluginKind::Integrator, "planted_none");
  INFO(format_conformance(clean));
  REQUIRE(clean.ok());
  REQUIRE(tally(clean, "failure").pass >= 1);  // it fails for |h| > 1, leaving the state as it was
  REQUIRE(tally(clean, "order").pass >= 2);    // the particle's and polar_oscillator's (M(q)) exact solutions
  REQUIRE(tally(clean, "allocation").pass >= 1);
  for (const auto& [plant, check] : kPlanted) {
    const auto report = conformance(reg, PluginKind::Integrator, plant);
    INFO(plant << ":\n" << format_conformance(report));
    CHECK(checks_with_findings(report) == std::set<std::string>{check});
    CHECK(format_conformance(report).find(plant + " [" + check + "]") != std::string::npos);
  }
}

TEST_CASE("dalembert check INTEGRATOR prints the table and exits 1 on a finding, naming the check", "[conformance][cli]") {
  test::TempDir tmp("check_integrator");
  const std::string env = "DALEMBERT_PLUGIN_PATH=" + test::quote(std::string(DALEMBERT_TEST_FIXTURE_DIR) + "/planted_integrators");
  for (const auto& [plant, check] : kPlanted) {
    const auto bad = test::run_cli("check " + plant, tmp.path(), env);
    INFO(plant << ":\n" << bad.out << bad.err);
    CHECK(bad.status == 1);
    CHECK(bad.out.find(plant + " [" + check + "]") != std::string::npos);
    CHECK(bad.out.find("all checks passed") == std::string::npos);
  }
  const auto allocates = test::run_cli("check planted_allocates", tmp.path(), env);
  CHECK(allocates.out.find("heap allocations in 20 steps") != std::string::npos);
  const auto good = test::run_cli("check planted_none", tmp.path(), env);
  INFO(good.out << good.err);
  CHECK(good.status == 0);
  CHECK(good.out.find("planted_none: all checks passed") != std::string::npos);
  // Without --params: a system around its declared example state (polar_oscillator's M(q) is
  // singular at the origin, where the check used to sample), a plugin with a required parameter with
  // its declared examples' (constrained_fixed_energy's energy used to be missing in the probe).
  for (const char* plugin : {"polar_oscillator", "constrained_fixed_energy"}) {
    const auto r = test::run_cli(std::string("check ") + plugin, tmp.path());
    INFO(r.out << r.err);
    CHECK(r.status == 0);
    CHECK(r.out.find(std::string(plugin) + ": all checks passed") != std::string::npos);
  }
  const auto wrong = test::run_cli("check rk4 --state " + test::quote(R"({"q": [0], "v": [0]})"), tmp.path());
  CHECK(wrong.status == 1);
  CHECK(wrong.err.find("apply to a system, not to integrator plugin 'rk4'") != std::string::npos);
}

TEST_CASE("dalembert check on a system without a Lagrangian model checks its example states", "[conformance][cli]") {
  test::TempDir tmp("check_rigid");
  for (const char* system : {"pendulum_3d", "binder_torus"}) {
    const auto r = test::run_cli(std::string("check ") + system, tmp.path());
    INFO(r.out << r.err);
    CHECK(r.status == 0);
    CHECK(r.out.find("no Lagrangian model") != std::string::npos);
    CHECK(r.out.find(std::string(system) + ": all checks passed") != std::string::npos);
  }
  // A spin of 1e300 rad/s overflows the kinetic energy: a finding, exit 1.
  const auto off = test::run_cli("check pendulum_3d --state " + test::quote(R"({"q": [1, 0, 0, 0], "v": [1e300, 0, 0]})"),
                                 tmp.path());
  INFO(off.out << off.err);
  CHECK(off.status == 1);
  CHECK(off.out.find("energy inf") != std::string::npos);
  const auto unknown = test::run_cli("check nosuch_plugin", tmp.path());
  CHECK(unknown.status != 0);
  for (const char* listed : {"unknown plugin 'nosuch_plugin'", "systems: ", "integrators: ", "observers: ", "rk4"})
    CHECK(unknown.err.find(listed) != std::string::npos);
}

TEST_CASE("the Whipple bicycle's steps allocate nothing under dla, mla and rk4", "[conformance][allocation]") {
  // Issue 28 item 6: M(q), four rolling constraints and g(q) = 0 — Newton's kept Jacobian (dla,
  // mla) and the compiled M(q) field (rk4) stay off the heap.
  const auto& reg = test::registry();
  for (const char* integrator : {"dla", "mla", "rk4"}) {
    const auto report = conformance(reg, PluginKind::Integrator, integrator);
    int seen = 0;
    for (const auto& row : report.rows)
      if (row.check == "allocation" && row.system.rfind("whipple_bicycle", 0) == 0) {  // "whipple_bicycle (example)"
        INFO(integrator << " on whipple_bicycle: " << format_conformance(report));
        CHECK(row.verdict == Verdict::Pass);
        ++seen;
      }
    INFO(integrator);
    CHECK(seen >= 1);
  }
}
