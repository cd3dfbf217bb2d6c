// Issue 26: every integer parameter is range-checked as an integer, at the Parameters layer (so
// the CLI, the Python module and every plugin are covered): a value that is not whole, lies outside
// the declared [min, max], or has no int64 (1e19, 2^63, 2^64, 1e300) is one InputError naming
// plugin, parameter and value. Before, the value went through static_cast<long>(double), which is
// undefined for such values: binder_torus took n = 1e19 and crashed (SIGSEGV), and n = 4294967299
// silently ran 3 spheres.
#include <catch2/catch.hpp>
#include <climits>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/parameters.hpp>
#include <dalembert/core/rigid_body_model.hpp>
#include <dalembert/core/json_input.hpp>

#include "cli_support.hpp"  // tests/
#include "support.hpp"

using namespace dalembert;
using nlohmann::json;

namespace {

const std::vector<ParamSpec> kSpecs = {
    {"n", ParamType::Integer, 80, "a count", 3, 1e5},
    {"k", ParamType::Integer, 0, "any integer"},
};

// `text` parsed as the JSON document {"<name>": <text>}: big numbers exactly as a study file
// writes them (nlohmann reads 9223372036854775808 as an unsigned, 18446744073709551616 as a double).
json given(const std::string& name, const std::string& text) { return json::parse("{\"" + name + "\": " + text + "}"); }

void check_refused(const std::string& name, const std::string& text, const std::string& range) {
  INFO(name << " = " << text);
  try {
    const Parameters p = Parameters::resolve(kSpecs, given(name, text), "owner", "study.json: /system/params");
    FAIL("accepted, read back as " << p.integer(name));
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK(what.find("study.json: /system/params/" + name) != std::string::npos);
    CHECK(what.find("parameter '" + name + "' of plugin 'owner'") != std::string::npos);
    CHECK(what.find("must lie in " + range) != std::string::npos);
  }
}

long accepted(const std::string& name, const std::string& text) {
  return Parameters::resolve(kSpecs, given(name, text), "owner", "w").integer(name);
}

}  // namespace

TEST_CASE("integer parameters: values with no int64 are refused, not converted", "[parameters]") {
  // -9223372036854775809 reaches us as the double -2^63 (the parser rounds it): refused too.
  const std::string any = "[-9223372036854775808, 9223372036854775807]";
  for (const std::string text : {"1e19", "9223372036854775808", "18446744073709551615", "18446744073709551616",
                                 "1e300", "-1e300", "-9223372036854775809", "-1e19"})
    check_refused("k", text, any);
}

TEST_CASE("integer parameters: a double beyond 2^53 does not say which integer", "[parameters]") {
  // 9007199254740993.0 parses to 9007199254740992: the value written is not the value read.
  for (const std::string text : {"9007199254740993.0", "1e17", "-4.6e18"}) {
    INFO(text);
    CHECK_THROWS_WITH(Parameters::resolve(kSpecs, given("k", text), "owner", "w"),
                      Catch::Contains("parameter 'k' of plugin 'owner' must be an integer written without a fraction"));
  }
}

TEST_CASE("integer parameters: the declared range, checked on the integer", "[parameters]") {
  for (const std::string text : {"4294967299", "4294967376", "100001", "1e19", "2", "-0", "-3"})
    check_refused("n", text, "[3, 100000]");
  CHECK(accepted("n", "3") == 3);
  CHECK(accepted("n", "1e5") == 100000);
  CHECK(accepted("n", "100000.0") == 100000);
}

TEST_CASE("integer parameters: every int64 is read back exactly", "[parameters]") {
  CHECK(accepted("k", "-9223372036854775808") == LONG_MIN);
  CHECK(accepted("k", "9223372036854775807") == LONG_MAX);
  CHECK(accepted("k", "9007199254740993") == 9007199254740993L);  // 2^53 + 1: no double has it
  CHECK(accepted("k", "9007199254740991.0") == 9007199254740991L);  // 2^53 - 1: the largest double taken
  CHECK(accepted("k", "-0") == 0);
  CHECK(accepted("k", "-0.0") == 0);
}

TEST_CASE("integer parameters: a fraction or a string is refused as not an integer", "[parameters]") {
  for (const std::string text : {"2.5", "1e-300", "\"NaN\"", "\"3\"", "true", "[3]"}) {
    INFO(text);
    CHECK_THROWS_WITH(Parameters::resolve(kSpecs, given("n", text), "owner", "w"),
                      Catch::Contains("parameter 'n' of plugin 'owner' must be an integer"));
  }
}

TEST_CASE("study integers: an unsigned beyond 2^63 - 1 is refused, not wrapped negative", "[parameters]") {
  // Before: 18446744073709551615 read back as -1 (e.g. "record_every must be at least 1").
  const json j = json::parse("{\"record_every\": 18446744073709551615}");
  CHECK_THROWS_WITH(JsonCursor(j, "study.json")["record_every"].integer(),
                    "study.json: /record_every = 18446744073709551615: expected an integer of at most 9223372036854775807");
  CHECK(JsonCursor(json::parse("9223372036854775807"), "f").integer() == LONG_MAX);
}

TEST_CASE("binder_torus: n beyond the declared 10^5 spheres is refused before anything is built", "[parameters]") {
  // Before: 1e19, 2^63 and 1e300 crashed the constructor; 4294967299 built 3 spheres.
  for (const std::string text : {"1e19", "9223372036854775808", "18446744073709551616", "1e300", "4294967299"}) {
    INFO(text);
    CHECK_THROWS_WITH(test::registry().make_system("binder_torus", given("n", text), "python"),
                      Catch::Contains("python/params/n") && Catch::Contains("binder_torus") &&
                          Catch::Contains("must lie in [3, 100000]"));
  }
  const auto ring = test::registry().make_system("binder_torus", given("n", "12"), "test");
  CHECK(dynamic_cast<const RigidBodyModel&>(*ring).bodies() == 12);
}

TEST_CASE("binder_torus: a wrong value inside a JSON parameter is named by its whole path", "[parameters]") {
  const auto refused = [](const json& params) {
    try {
      test::registry().make_system("binder_torus", params, "study.json: /system");
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const json pos = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}};
  // Before: "[json.exception.type_error.302] type must be number, but is string", no path.
  CHECK(refused({{"geometry", "custom"}, {"positions", {{0, 0, 0}, {1, "x", 0}}}}) ==
        "study.json: /system/params/positions/1/1 = \"x\": expected a number");
  // Before: 1e19 as an int (undefined), or a bond silently truncated.
  CHECK(refused({{"geometry", "custom"}, {"positions", pos}, {"bonds", {{0, 1}, {1, 1e19}}}}) ==
        "study.json: /system/params/bonds/1/1 = 1e+19: expected an integer");
  CHECK(refused({{"geometry", "custom"}, {"positions", pos}, {"bonds", {{0, 1}, {1, 3}}}}) ==
        "study.json: /system/params/bonds/1 = [1,3]: bond (1, 3) must join two distinct bodies of 0..2");
  CHECK(refused({{"geometry", "custom"}, {"positions", pos}, {"masses", {1, 2}}}) ==
        "study.json: /system/params/masses = [1,2]: must be a number or an array of 3 numbers");
  CHECK(refused({{"wall_normal", {1, 0, "0"}}}) == "study.json: /system/params/wall_normal/2 = \"0\": expected a number");
}

TEST_CASE("integer parameters through the CLI: one line, no output folder", "[cli][parameters]") {
  test::StudyCase c("torus_n");
  // nlohmann writes 1e19 as 1e+19: the study text is what a user typed.
  const std::string study = R"({"name": "torus_n", "kind": "trajectory",
    "system": {"plugin": "binder_torus", "params": {"n": 1e19}},
    "initial": {"q": [0], "v": [0]}, "h": 0.001, "T": 0.002, "integrators": [{"label": "R25", "plugin": "rodrigues_25"}]})";
  test::write_text(c.file, study);
  const auto r = c.run_text();
  test::check_one_line_error(r, {c.file.string() + ": /system/params/n", "1e+19", "parameter 'n' of plugin 'binder_torus'",
                                 "must lie in [3, 100000]"});
  c.check_no_result();
}

TEST_CASE("a wrong type inside a JSON parameter: the whole path and the expected type", "[cli][parameters]") {
  // Before: "...: /integrators/0: integrator plugin 'mla' (...) failed to construct:
  // [json.exception.type_error.302] type must be number, but is string".
  test::StudyCase c("mla_q1");
  json j = {{"name", "mla_q1"}, {"kind", "trajectory"}, {"system", {{"plugin", "nonholonomic_particle"}}},
            {"initial", {{"q", {1, 1, -1}}, {"v", {1, -1, 1}}}}, {"h", 0.1}, {"T", 0.2},
            {"integrators", {{{"label", "MLA"}, {"plugin", "mla"}, {"params", {{"q1", {1, "x", 2}}}}}}}};
  const auto r = c.run(j);
  test::check_one_line_error(r, {c.file.string() + ": /integrators/0/params/q1/1 = \"x\": expected a number"});
  CHECK(r.err.find("json.exception") == std::string::npos);
  c.check_no_result();
}

TEST_CASE("an observer parameter of the wrong size is refused before the run", "[cli][parameters]") {
  // Before: the run started, the task failed ("observer 'position_error': v0 has the wrong size")
  // and left a .failed folder.
  test::StudyCase c("position_error_v0");
  json j = {{"name", "position_error_v0"}, {"kind", "trajectory"}, {"system", {{"plugin", "nonholonomic_particle"}}},
            {"initial", {{"q", {1, 1, -1}}, {"v", {1, -1, 1}}}}, {"h", 0.1}, {"T", 0.2},
            {"integrators", {{{"label", "RK4"}, {"plugin", "rk4"}}}}};
  std::vector<std::string> needles;
  SECTION("v0") {
    j["observers"] = {{{"plugin", "position_error"}, {"params", {{"v0", {1, 2}}}}}};
    needles = {c.file.string() + ": /observers/0/params/v0", "has 2 components", "'nonholonomic_particle' has 3"};
  }
  SECTION("v0_by_integrator") {
    j["observers"] = {{{"plugin", "position_error"}, {"params", {{"v0_by_integrator", {{"rk4", {1, 2, 3, 4}}}}}}}};
    needles = {c.file.string() + ": /observers/0/params/v0_by_integrator/rk4", "has 4 components"};
  }
  const auto r = c.run(j);
  test::check_one_line_error(r, needles);
  c.check_no_result();
  CHECK_FALSE(std::filesystem::exists(c.out.string() + ".failed"));
}
