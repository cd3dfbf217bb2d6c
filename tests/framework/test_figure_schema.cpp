// The C++ validator of a study's figures reads the figure schema (dalembert/figure_types.json, the
// file the plotting program reads too): every case below is generated from the schema, so a key or
// a figure type added there is checked here without a line of this file changing. Only the value
// kinds (the schema's vocabulary) have example values here.
#include <catch2/catch.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/study/figure_schema.hpp>
#include <dalembert/core/json_input.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

using nlohmann::json;
using dalembert::check_figure;
using dalembert::figure_schema;
using dalembert::JsonCursor;

namespace {

const std::vector<std::string> kLabels = {"A", "B"};  // the study's integrator labels

// A value of each kind of the schema that the validator must accept, and one it must refuse.
json good_value(const std::string& kind) {
  static const json values = {
      {"any", 1},           {"string", "t"},         {"name", "fig"},       {"boolean", true},
      {"number", 0.5},      {"positive_integer", 2}, {"number_pair", {0, 1}}, {"numbers", {0.5, 1.5}},
      {"strings", {"t"}},   {"object", json::object()}, {"objects", {json::object()}},
      {"legend_place", "best"}, {"outline", {{"ellipse", {2, 1}}}},
      {"inset", {{"center", {0, 0}}, {"halfwidth", 0.1}}}, {"reference_lines", {{{"at", 1.0}, {"label", "x"}}}},
      {"integrator_label", "B"}, {"integrator_labels", {"A"}}, {"animation_format", "gif"}};
  INFO("value kind \"" << kind << "\" of the schema: give it example values in this test");
  REQUIRE(values.contains(kind));
  return values[kind];
}

json bad_value(const std::string& kind) {
  static const json values = {
      {"string", 3},        {"name", "a b"},         {"boolean", "yes"},    {"number", "one"},
      {"positive_integer", 0}, {"number_pair", {1}}, {"numbers", "x"},     {"strings", {1}},
      {"object", json::array()}, {"objects", {1}},  {"legend_place", "nowhere"}, {"outline", {{"circle", 1}}},
      {"inset", {{"center", {0, 0}}}}, {"reference_lines", {{{"label", "x"}}}},
      {"integrator_label", "Z"}, {"integrator_labels", {"A", "Z"}}, {"animation_format", "avi"}};
  INFO("value kind \"" << kind << "\" of the schema: give it example values in this test");
  REQUIRE(values.contains(kind));
  return values[kind];
}

// The error check_figure gives (empty: accepted).
std::string refusal(const json& figure) {
  try {
    check_figure(JsonCursor(figure, "study", "/figures/0"), figure.at("type").get<std::string>(), kLabels);
  } catch (const dalembert::InputError& e) {
    return e.what();
  }
  return "";
}

std::string first_of(const json& need) { return need.is_string() ? need.get<std::string>() : need.at(0).get<std::string>(); }

// One panel of `type` with the keys it needs (and those it inherits from the figure).
json minimal_panel(const json& spec) {
  json panel = json::object();
  for (const char* list : {"needs", "inherits"})
    for (const auto& key : spec["panels"].value(list, json::array()))
      panel[key.get<std::string>()] = good_value(spec["panels"]["keys"][key.get<std::string>()]);
  return panel;
}

// A key of a figure of `type` with a value the validator accepts.
json good_figure_value(const json& spec, const std::string& key) {
  if (key == "panels") return json::array({minimal_panel(spec)});
  return good_value(figure_schema()["keys"][key]);
}

// A figure of `type` with the keys it needs, each with a value of its kind.
json minimal_figure(const std::string& type) {
  const json& spec = figure_schema()["types"][type];
  json figure = {{"name", "fig"}, {"type", type}};
  for (const auto& need : spec.value("needs", json::array())) figure[first_of(need)] = good_figure_value(spec, first_of(need));
  return figure;
}

std::vector<std::string> types() {
  std::vector<std::string> out;
  for (const auto& [type, spec] : figure_schema()["types"].items()) out.push_back(type);
  return out;
}

}  // namespace

TEST_CASE("the figure schema is found and declares the figure keys and types", "[figures][schema]") {
  INFO(dalembert::figure_schema_file().string());
  CHECK(std::filesystem::is_regular_file(dalembert::figure_schema_file()));
  CHECK(figure_schema()["keys"].size() >= 2);
  CHECK(types().size() >= 1);
}

TEST_CASE("every figure type: the keys it needs are enough, and each one it needs is required", "[figures][schema]") {
  for (const auto& type : types()) {
    INFO("figure type " << type);
    const json figure = minimal_figure(type);
    CHECK(refusal(figure).empty());
    for (const auto& need : figure_schema()["types"][type].value("needs", json::array())) {
      json without = figure;
      for (const auto& key : need.is_string() ? json::array({need}) : need) without.erase(key.get<std::string>());
      const std::string why = refusal(without);
      CHECK_THAT(why, Catch::StartsWith("study: /figures/0 = ") &&
                          Catch::Contains(": a figure of type \"" + type + "\" needs \"" + first_of(need) + "\""));
    }
  }
}

TEST_CASE("every key the schema declares is accepted with a value of its kind and refused with another", "[figures][schema]") {
  for (const auto& type : types()) {
    const json& spec = figure_schema()["types"][type];
    for (const auto& [key, kind] : figure_schema()["keys"].items()) {
      if (key == "name" || key == "type") continue;  // every figure has them
      INFO("figure type " << type << ", key " << key);
      json figure = minimal_figure(type);
      if (key == "panels" && !spec.contains("panels")) {  // a type without panels refuses them
        figure["panels"] = json::array({json::object()});
        CHECK_THAT(refusal(figure), Catch::Contains("has no panels"));
        continue;
      }
      figure[key] = good_figure_value(spec, key);
      for (const auto& need : spec.value("needs_with", json::object()).value(key, json::array()))  // e.g. members' times
        figure[first_of(need)] = good_figure_value(spec, first_of(need));
      CHECK(refusal(figure).empty());
      if (key == "panels") continue;  // panels: the next test case
      figure[key] = bad_value(kind);
      CHECK_THAT(refusal(figure), Catch::Contains("study: /figures/0/" + key));
    }
  }
}

TEST_CASE("every panel key the schema declares is accepted, a key it does not declare is refused", "[figures][schema]") {
  for (const auto& type : types()) {
    const json& spec = figure_schema()["types"][type];
    INFO("figure type " << type);
    json figure = minimal_figure(type);
    figure["undeclared_key"] = 1;
    CHECK_THAT(refusal(figure), Catch::Contains("study: /figures/0/undeclared_key: unknown key \"undeclared_key\""));
    if (!spec.contains("panels")) continue;
    for (const auto& [key, kind] : spec["panels"]["keys"].items()) {
      INFO("panel key " << key);
      json with = minimal_figure(type);
      with["panels"] = json::array({minimal_panel(spec)});
      with["panels"][0][key] = good_value(kind);
      CHECK(refusal(with).empty());
      with["panels"][0][key] = bad_value(kind);
      CHECK_THAT(refusal(with), Catch::Contains("study: /figures/0/panels/0/" + key));
    }
    json with = minimal_figure(type);
    with["panels"] = json::array({minimal_panel(spec)});
    with["panels"][0]["undeclared_key"] = 1;
    CHECK_THAT(refusal(with), Catch::Contains("study: /figures/0/panels/0/undeclared_key: unknown key"));
    for (const auto& key : spec["panels"].value("needs", json::array())) {  // a panel's own needs
      json without = with;
      without["panels"][0] = minimal_panel(spec);
      without["panels"][0].erase(key.get<std::string>());
      CHECK_THAT(refusal(without), Catch::Contains("a panel needs \"" + key.get<std::string>() + "\""));
    }
  }
}
