// A study's figures checked against the figure schema (dalembert/figure_types.json): the one
// declaration of the figure types that the plotting program (dalembert/plot.py) draws.
#include <algorithm>
#include <boost/dll/runtime_symbol_info.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/parameters.hpp>
#include <dalembert/study/figure_schema.hpp>
#include <dalembert/study/names.hpp>

namespace fs = std::filesystem;
using nlohmann::json;

namespace dalembert {

fs::path python_package_root() {
  // DALEMBERT_PYTHON_FROM_LIBDIR: the installed package's folder relative to the installed
  // libdalembert's (cmake/DalembertPython.cmake); a build tree has no such folder.
  const fs::path libdir = fs::path(boost::dll::this_line_location()).parent_path();
  const fs::path installed = (libdir / DALEMBERT_PYTHON_FROM_LIBDIR).lexically_normal();
  std::error_code ec;
  if (fs::exists(installed / "dalembert" / "figure_types.json", ec)) return installed;
  return DALEMBERT_SOURCE_PYTHON_DIR;
}

fs::path figure_schema_file() { return python_package_root() / "dalembert" / "figure_types.json"; }

const json& figure_schema() {
  static const json schema = [] {
    const fs::path file = figure_schema_file();
    std::error_code ec;
    if (!fs::is_regular_file(file, ec))
      throw Error("the figure schema " + file.string() + " is missing (an incomplete installation?)");
    json s = parse_json_file(file.string());
    if (!s.is_object() || !s.contains("keys") || !s["keys"].is_object() || !s.contains("types") ||
        !s["types"].is_object())
      throw Error("the figure schema " + file.string() + " has no \"keys\" and \"types\" objects");
    return s;
  }();
  return schema;
}

void check_one_of(const JsonCursor& c, const std::vector<std::string>& allowed, const std::string& what) {
  const std::string v = c.string();
  if (std::find(allowed.begin(), allowed.end(), v) != allowed.end()) return;
  c.fail(what + joined(allowed));
}

namespace {

const std::vector<std::string> kLegendPlaces = {"best", "outside", "upper right", "upper left", "lower left", "lower right",
                                                "right", "center left", "center right", "lower center",
                                                "upper center", "center"};

// The JSON type of a value kind of the schema; `kind` names its meaning (checked by check_meaning).
void check_type(const JsonCursor& c, const std::string& kind) {
  if (kind == "any") return;
  if (kind == "string" || kind == "legend_place" || kind == "integrator_label" || kind == "animation_format") {
    (void)c.string();
  } else if (kind == "name") {
    if (!is_safe_name(c.string())) c.fail(safe_name_rule("figure name"));
  } else if (kind == "boolean") {
    (void)c.boolean();
  } else if (kind == "number") {
    (void)c.number();
  } else if (kind == "positive_integer") {
    if (c.integer() < 1) c.fail("expected a positive integer");
  } else if (kind == "number_pair") {
    if (!c.json().is_array() || c.json().size() != 2) c.fail("expected an array of two numbers [low, high]");
    (void)c.numbers();
  } else if (kind == "numbers") {
    if (!c.json().is_array()) c.fail("expected an array of numbers");
    (void)c.numbers();
  } else if (kind == "strings" || kind == "integrator_labels") {
    if (!c.json().is_array()) c.fail("expected an array of strings");
    for (std::size_t i = 0; i < c.size(); ++i) (void)c.at(i).string();
  } else if (kind == "object" || kind == "outline" || kind == "inset") {
    if (!c.json().is_object()) c.fail("expected a JSON object");
  } else if (kind == "objects" || kind == "reference_lines") {
    if (!c.json().is_array()) c.fail("expected an array of objects");
    for (std::size_t i = 0; i < c.size(); ++i)
      if (!c.at(i).json().is_object()) c.at(i).fail("expected a JSON object");
  } else {
    throw Error("the figure schema " + figure_schema_file().string() + ": unknown value kind \"" + kind + "\" (at " +
                c.where() + ")");
  }
}

// {"center": [x, y], "halfwidth": w, "loc": corner or [x0, y0], "size": fraction of the axes}
void check_inset(const JsonCursor& in) {
  in.allow_keys({"center", "halfwidth", "size", "loc"});
  check_type(in["center"], "number_pair");
  (void)in["halfwidth"].finite_positive();
  if (in.has("size") && !(in["size"].number() > 0.05 && in["size"].number() <= 0.6))
    in["size"].fail("an inset's size is a fraction of the axes in (0.05, 0.6]");
  if (in.has("loc") && in["loc"].json().is_array()) {  // [x0, y0]: its lower-left corner, in axes fractions
    check_type(in["loc"], "number_pair");
    for (double v : in["loc"].numbers())
      if (v < 0.0 || v > 1.0) in["loc"].fail("an inset's corner [x0, y0] lies in the axes: fractions in [0, 1]");
  } else if (in.has("loc")) {
    check_one_of(in["loc"], {"upper right", "upper left", "lower right", "lower left"},
                 "not an inset place; use a corner or [x0, y0] in axes fractions: ");
  }
}

// What a value of kind `kind` means beyond its JSON type (after check_type).
void check_meaning(const JsonCursor& c, const std::string& kind, const std::vector<std::string>& labels) {
  static const std::string not_a_label = "not an integrator label of this study; the labels are: ";
  if (kind == "integrator_label") check_one_of(c, labels, not_a_label);
  if (kind == "integrator_labels")
    for (std::size_t k = 0; k < c.size(); ++k) check_one_of(c.at(k), labels, not_a_label);
  if (kind == "legend_place") check_one_of(c, kLegendPlaces, "not a legend place; use one of: ");
  if (kind == "animation_format") check_one_of(c, {"gif", "mp4"}, "not an animation format; use one of: ");
  if (kind == "outline") {  // {"ellipse": [a, b]}
    c.allow_keys({"ellipse"});
    check_type(c["ellipse"], "number_pair");
  }
  if (kind == "inset") check_inset(c);
  if (kind == "reference_lines")  // [{"at": number, "label": text}]
    for (std::size_t k = 0; k < c.size(); ++k) {
      const JsonCursor line = c.at(k);
      line.allow_keys({"at", "label"});
      (void)line["at"].number();
      if (line.has("label")) (void)line["label"].string();
    }
}

// An object's keys against a schema's {key: kind}: only those keys, each of its JSON type, then
// each of its meaning.
void check_keys(const JsonCursor& c, const json& keys, const std::vector<std::string>& labels) {
  std::vector<std::string> names;
  for (const auto& [k, kind] : keys.items()) names.push_back(k);
  c.allow_keys(names);
  for (const auto& [k, kind] : keys.items())
    if (c.has(k)) check_type(c[k], kind.get<std::string>());
  for (const auto& [k, kind] : keys.items())
    if (c.has(k)) check_meaning(c[k], kind.get<std::string>(), labels);
}

std::vector<std::string> strings_of(const json& j) {
  if (j.is_string()) return {j.get<std::string>()};
  return j.get<std::vector<std::string>>();
}

// "needs": each entry a key or a list of alternatives, one of which the figure has.
void check_needs(const JsonCursor& fi, const std::string& type, const json& needs) {
  for (const auto& need : needs) {
    const auto any = strings_of(need);
    if (std::any_of(any.begin(), any.end(), [&](const std::string& k) { return fi.has(k); })) continue;
    std::string text;
    for (const auto& k : any) text += (text.empty() ? "\"" : " or \"") + k + "\"";
    fi.fail("a figure of type \"" + type + "\" needs " + text);
  }
}

void check_panels(const JsonCursor& fi, const std::string& type, const json& spec,
                  const std::vector<std::string>& labels) {
  if (!spec.contains("panels")) fi["panels"].fail("a figure of type \"" + type + "\" has no panels");
  const json& panel = spec["panels"];
  const JsonCursor panels = fi["panels"];
  if (panels.size() == 0) panels.fail("a figure has at least one panel");
  for (std::size_t k = 0; k < panels.size(); ++k) {
    const JsonCursor p = panels.at(k);
    check_keys(p, panel.value("keys", json::object()), labels);
    for (const auto& key : strings_of(panel.value("needs", json::array())))
      if (!p.has(key)) p.fail("a panel needs \"" + key + "\"");
    for (const auto& key : strings_of(panel.value("inherits", json::array())))
      if (!p.has(key) && !fi.has(key)) p.fail("a panel needs \"" + key + "\" (or the figure one for every panel)");
  }
}

}  // namespace

void check_figure(const JsonCursor& fi, const std::string& type, const std::vector<std::string>& labels) {
  const json& schema = figure_schema();
  if (!schema["types"].contains(type)) {
    std::vector<std::string> types;
    for (const auto& [t, spec] : schema["types"].items()) types.push_back(t);
    check_one_of(fi["type"], types, "not a figure type; the types are: ");
  }
  const json& spec = schema["types"][type];
  check_keys(fi, schema["keys"], labels);
  if (fi.has("panels")) check_panels(fi, type, spec, labels);
  const json needs_with = spec.value("needs_with", json::object());  // a local: items() refers to it
  for (const auto& [key, needs] : needs_with.items())
    if (fi.has(key)) check_needs(fi, type, needs);
  check_needs(fi, type, spec.value("needs", json::array()));
}

}  // namespace dalembert
