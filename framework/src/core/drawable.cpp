// Drawable's key function (its RTTI unique to libdalembert, so dynamic_cast works across plugins)
// and the columns a drawing reads.
#include <algorithm>
#include <dalembert/core/drawable.hpp>

namespace dalembert {

Drawable::~Drawable() = default;

namespace {

void add_column(const nlohmann::json& value, std::vector<std::string>& out) {
  std::string name;
  if (value.is_string()) name = value.get<std::string>();
  else if (value.is_object() && value.contains("column") && value["column"].is_string())
    name = value["column"].get<std::string>();
  if (!name.empty() && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
}

}  // namespace

std::vector<std::string> drawing_columns(const nlohmann::json& drawing) {
  std::vector<std::string> out;
  if (!drawing.is_object() || !drawing.contains("frames") || !drawing["frames"].is_array()) return out;
  for (const auto& frame : drawing["frames"]) {
    if (!frame.is_object() || !frame.contains("transform") || !frame["transform"].is_array()) continue;
    for (const auto& step : frame["transform"]) {
      if (!step.is_object()) continue;
      for (const char* key : {"translate", "quaternion"})
        if (step.contains(key) && step[key].is_array())
          for (const auto& v : step[key]) add_column(v, out);
      if (step.contains("rotate")) add_column(step["rotate"], out);
    }
  }
  return out;
}

}  // namespace dalembert
