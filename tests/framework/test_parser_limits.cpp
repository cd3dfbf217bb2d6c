// Issue 12, parser side: hostile JSON (deep, duplicate keys, 1e999, huge), up-front limits with
// their override, sweep pointers and cells checked at load, and the safe-name rule.
#include <catch2/catch.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/json_input.hpp>
#include <dalembert/study/study.hpp>
#include <nlohmann/json.hpp>

#include "temp_dir.hpp"  // tests/

using nlohmann::json;
using Catch::Contains;
using dalembert::InputError;
using dalembert::parse_json_text;
using dalembert::parse_study;

namespace {

json particle_study() {
  return json::parse(R"({
    "name": "limits", "kind": "trajectory",
    "system": {"plugin": "nonholonomic_particle"},
    "initial": {"q": [1, 1, -1], "v": [1, -1, 1]},
    "h": 0.1, "T": 0.2,
    "integrators": [{"label": "DLA", "plugin": "nonholonomic_newmark", "params": {"beta": 0, "beta_prime": 0, "alpha": 0.5}}]
  })");
}

json sweep_study() {
  json j = particle_study();
  j["kind"] = "sweep";
  j["sweep"] = {{"of", "trajectory"},
                {"axes", json::array({{{"name", "beta"}, {"set", {"/integrators/0/params/beta"}}, {"values", {0, 0.25}}}})}};
  return j;
}

// The message of the InputError parsing `j` throws ("" if it parses).
std::string error_of(const json& j, const std::string& file = "s.json") {
  try {
    (void)parse_study(j, file);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string text_error(const std::string& text) {
  try {
    (void)parse_json_text(text, "f.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string nested(std::size_t depth) { return "{\"integrators\": " + std::string(depth, '[') + std::string(depth, ']') + "}"; }

}  // namespace

TEST_CASE("parser: nesting 10^6 deep is refused cleanly, 64 levels are fine", "[parser]") {
  const std::string deep = text_error(nested(1000000));
  CHECK_THAT(deep, Contains("f.json: line 1, column 80: /integrators/0/0/0") && Contains("nested deeper than 64 levels"));
  CHECK(deep.find('\n') == std::string::npos);
  CHECK(text_error(nested(63)).empty());  // 63 arrays under the top-level object
  CHECK_THAT(text_error(nested(64)), Contains("nested deeper than 64"));
}

TEST_CASE("parser: a duplicate key names the key, the line and the path", "[parser]") {
  const std::string e = text_error("{\n  \"T\": 1,\n  \"initial\": {\"q\": [1],\n    \"q\": [2]}\n}\n");
  CHECK_THAT(e, Contains("f.json: line 4, column 7: /initial/q") && Contains("duplicate key \"q\""));
  CHECK_THAT(text_error(R"({"a": [{"k": 1}, {"k": 2, "k": 3}]})"), Contains("/a/1/k") && Contains("duplicate key \"k\""));
  CHECK(text_error(R"({"a": {"k": 1}, "b": {"k": 2}})").empty());  // the same key in two objects is fine
}

TEST_CASE("parser: 1e999 is an error with file, line and path", "[parser]") {
  CHECK_THAT(text_error("{\n  \"h\": 0.1,\n  \"T\": 1e999\n}"),
             Contains("f.json: line 3, column") && Contains(": /T = 1e999: the number is out of the range of a double"));
  CHECK_THAT(text_error("{\"q\": [1, -1e999]}"), Contains("/q/1 = -1e999"));
  CHECK(text_error("{\"x\": 123456789012345678901234567890}").empty());  // a big integer is a double
}

TEST_CASE("parser: size limit, malformed text, control characters in keys", "[parser]") {
  CHECK_THAT(text_error(std::string(dalembert::kJsonMaxBytes + 1, ' ')), Contains("more than the limit of"));
  CHECK_THAT(text_error("{\"a\": 1,,}"), Contains("f.json: line 1, column 9: malformed JSON: syntax error"));
  CHECK_THAT(text_error("{\"a\": 1, \"a\": 2"), Contains("duplicate key"));  // the first problem wins
  json j = particle_study();
  j["bad\nkey"] = 1;
  const std::string e = error_of(j);
  CHECK_THAT(e, Contains("unknown key \"bad\\nkey\""));
  CHECK(e.find('\n') == std::string::npos);
}

TEST_CASE("parser: a NUL byte is an error naming its offset, wherever it is (issue 26)", "[parser]") {
  // nlohmann's lexer reads NUL as the end of the input: "{...}\0{...}" parsed as its first value.
  const std::string study = particle_study().dump();
  const std::string after = text_error(study + std::string("\0{\"T\": 1e9}", 11));
  CHECK_THAT(after, Contains("f.json: line 1, column " + std::to_string(study.size() + 1) + ": byte " +
                             std::to_string(study.size()) + " is a NUL byte (0x00), which JSON text never holds"));
  CHECK_THAT(text_error("{\"a\": 1}\n" + std::string(3, '\0')), Contains("line 2, column 1: byte 9 is a NUL byte"));
  CHECK_THAT(text_error(std::string("{\"a\": \"x\0y\"}", 12)), Contains("byte 8 is a NUL byte"));
  CHECK(text_error("{\"a\": 1}\n \t\r\n").empty());  // whitespace may follow the value
  CHECK_THAT(text_error("{\"a\": 1} x"), Contains("line 1, column 10: malformed JSON"));  // and nothing else
}

TEST_CASE("limits: each refused with its estimate, its limit and the override, which is honoured", "[parser]") {
  SECTION("steps per task") {
    json j = particle_study();
    j["T"] = 1e9;
    CHECK_THAT(error_of(j), Contains("s.json: /T = ") &&
                                Contains(": 1e10 steps of h = 0.1 exceed the limit of 1e8 steps per task; set \"limits\": "
                                         "{\"steps\": 1e10} in the study if you mean it"));
    j["limits"] = {{"steps", 1e10}, {"rows", 1e11}, {"total_steps", 1e11}};
    CHECK(error_of(j).empty());
    j["T"] = 1e300;
    j["h"] = 1e-300;  // T/h overflows a double: refused, no overflow in counting
    CHECK_THAT(error_of(j), Contains("steps per task"));
  }
  SECTION("total steps, tasks and members of an ensemble") {
    json j = particle_study();
    j["kind"] = "ensemble";
    j["T"] = 1e4;
    j["ensemble"] = {{"size", 100000}, {"seed", 1}, {"sampler", "gaussian"}, {"write_members", false}};
    CHECK(error_of(j).empty());  // 1e10 steps: at the limit
    j["T"] = 2e4;
    CHECK_THAT(error_of(j), Contains("2e10 steps in all exceed the limit of 1e10 steps in all; set \"limits\": {\"total_steps\": 2e10}"));
    j["limits"] = {{"total_steps", 2e10}};
    CHECK(error_of(j).empty());
    j["T"] = 1;
    j["ensemble"]["size"] = 2000000;
    CHECK_THAT(error_of(j), Contains("/ensemble/size = 2000000: 2e6 ensemble members exceed the limit of 1e6 ensemble members"));
    j["limits"]["members"] = 2e6;
    CHECK_THAT(error_of(j), Contains("/integrators = ") && Contains("2e6 tasks exceed the limit of 1e6 tasks; set \"limits\": {\"tasks\": 2e6}"));
    j["limits"]["tasks"] = 2e6;
    CHECK(error_of(j).empty());
  }
  SECTION("composition stages count in the steps in all") {
    json j = particle_study();
    j["integrators"][0]["params"] = {{"stages", json::array()}};
    for (int i = 0; i < 5000; ++i) j["integrators"][0]["params"]["stages"].push_back({{"integrator", "rk4"}, {"fraction", 2e-4}});
    j["T"] = 4e5;
    j["record_every"] = 1000;
    CHECK_THAT(error_of(j), Contains("2e10 steps in all exceed the limit of 1e10 steps in all"));
  }
  SECTION("output rows, with the size in MB") {
    json j = particle_study();
    j["integrators"].push_back({{"label", "RK4"}, {"plugin", "rk4"}});
    j["T"] = 1e7;  // 1e8 steps each, recorded every step
    CHECK_THAT(error_of(j), Contains("s.json: /T = ") &&
                                Contains(": about 2e8 output rows (~48000 MB of CSV) exceed the limit of 1e8 output rows; "
                                         "set \"limits\": {\"rows\": 2e8} in the study if you mean it"));
    j["record_every"] = 10;
    CHECK(error_of(j).empty());
  }
  SECTION("arrays: figures, observers, composition stages, anywhere") {
    json j = particle_study();
    j["observers"] = json::array();
    for (int i = 0; i < 20000; ++i) j["observers"].push_back("energy_error");
    CHECK_THAT(error_of(j), Contains("s.json: /observers = [\"energy_error\"") &&
                                Contains("20000 elements exceed the limit of 10000 elements in an array; set \"limits\": {\"array\": 20000}"));
    j["limits"] = {{"array", 20000}};
    CHECK(error_of(j).empty());
    json k = particle_study();
    k["integrators"][0]["params"]["stages"] = json::array();
    for (int i = 0; i < 100000; ++i) k["integrators"][0]["params"]["stages"].push_back(json::object());
    CHECK_THAT(error_of(k), Contains("/integrators/0/params/stages") && Contains("100000 elements exceed"));
  }
  SECTION("sweep cells, and tasks over all cells") {
    json j = sweep_study();
    j["sweep"]["axes"][0]["values"] = json::array();
    for (int i = 0; i < 200; ++i) j["sweep"]["axes"][0]["values"].push_back(i * 0.001);
    j["sweep"]["axes"].push_back({{"name", "alpha"}, {"set", {"/integrators/0/params/alpha"}}, {"values", json::array()}});
    for (int i = 0; i < 100; ++i) j["sweep"]["axes"][1]["values"].push_back(0.5);
    CHECK_THAT(error_of(j), Contains("s.json: /sweep/axes = ") && Contains("20000 sweep cells exceed the limit of 10000 sweep cells; set \"limits\": {\"cells\": 20000}"));
    j["sweep"]["axes"][1]["values"] = {0.5, 0.5};
    j["T"] = 2e6;  // 2e7 steps per cell, 400 cells: 8e9 steps in all, fine; 8e9 rows, not
    j["record_every"] = 1000;
    j["limits"] = {{"total_steps", 1e9}};
    CHECK_THAT(error_of(j), Contains("s.json: /sweep = ") && Contains("8e9 steps in all over 400 sweep cells exceed the limit of 1e9"));
  }
}

TEST_CASE("sweeps: pointers name existing elements and every cell is checked at load", "[parser]") {
  json j = sweep_study();
  CHECK(error_of(j).empty());
  j["sweep"]["axes"][0]["set"] = {"/integrators/100000000/params/beta"};
  CHECK_THAT(error_of(j), Contains("s.json: /sweep/axes/0/set/0 = \"/integrators/100000000/params/beta\": the study has no "
                                   "/integrators/100000000/params for the sweep to set"));
  j["sweep"]["axes"][0]["set"] = {"/integrators/1"};
  CHECK_THAT(error_of(j), Contains("only set existing elements of an array: /integrators has 1 elements"));
  j["sweep"]["axes"][0]["set"] = {"/integrators/-"};
  CHECK_THAT(error_of(j), Contains("only set existing elements"));
  j["sweep"]["axes"][0]["set"] = {"/integrators/0/params/gamma"};  // a new key of an existing object: fine
  CHECK(error_of(j).empty());
  j["sweep"]["axes"][0]["set"] = {"/sweep/of"};  // the sweep block is not part of the cells
  CHECK_THAT(error_of(j), Contains("the study has no /sweep"));

  json k = sweep_study();
  k["T"] = 1.2;
  k["sweep"]["axes"][0] = {{"name", "h"}, {"set", {"/h"}}, {"values", {0.1, 0.2, 0.5, 0.3}}};
  CHECK_THAT(error_of(k), Contains("T = 1.2 is not a whole number of steps of h = 0.5") &&
                              Contains("(in sweep cell 2 of 4: h = 0.5)"));
}

TEST_CASE("names: study names, labels, plugins, axes and figures use a safe character set", "[parser]") {
  const std::string rule = "may contain only letters, digits and _ . + - (at most 100 characters, not starting with '.' or '-')";
  for (const std::string& bad : std::vector<std::string>{"..", ".", "x'; touch PWNED; echo '", "a,b", std::string("RK4.csv\0x", 9), "a\nb", "",
                                 "-rf", ".hidden", "a/b", "a b", std::string(101, 'a')}) {
    INFO(json(bad).dump());
    json j = particle_study();
    j["name"] = bad;
    CHECK_THAT(error_of(j), Contains("s.json: /name = ") && Contains(": a study name " + rule));
    j = particle_study();
    j["integrators"][0]["label"] = bad;
    CHECK_THAT(error_of(j), Contains("s.json: /integrators/0/label = ") && Contains(": a label " + rule));
    j = particle_study();
    j["integrators"][0] = bad;
    CHECK_THAT(error_of(j), Contains("a plugin name " + rule));
    j = sweep_study();
    j["sweep"]["axes"][0]["name"] = bad;
    CHECK_THAT(error_of(j), Contains("a sweep axis name " + rule));
  }
  json ok = particle_study();
  ok["name"] = "Fig_4b-snake+board.v2";
  CHECK(error_of(ok).empty());
}

TEST_CASE("names: a study without a name takes its file's stem, under the same rule", "[parser]") {
  dalembert::test::TempDir dir("stem");
  json j = particle_study();
  j.erase("name");
  const auto bad = dir / "x'y.json", good = dir / "fine_name.json";
  dalembert::test::write_text(bad, j.dump());
  dalembert::test::write_text(good, j.dump());
  CHECK(dalembert::load_study(good.string()).name == "fine_name");
  CHECK_THROWS_WITH(dalembert::load_study(bad.string()),
                    Contains(bad.string() + ": the study has no \"name\"") && Contains("\"x'y\" is not a valid name: a study name may contain only"));
}
