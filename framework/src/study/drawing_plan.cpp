// A study's animations checked against its system's drawing before anything runs.
#include <algorithm>
#include <dalembert/core/drawable.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/json_input.hpp>
#include <dalembert/study/drawing_plan.hpp>
#include <dalembert/core/parameters.hpp>

using nlohmann::json;

namespace dalembert {

json system_drawing(const System& system) {
  const auto* drawable = dynamic_cast<const Drawable*>(&system);
  return drawable ? drawable->drawing() : json(nullptr);
}

void check_animation_figures(const Study& st, const System& system,
                             const std::vector<std::vector<std::string>>& columns) {
  const JsonCursor root(st.raw, st.file);
  if (!root.has("figures")) return;
  const JsonCursor figs = root["figures"];
  for (std::size_t i = 0; i < figs.size(); ++i) {
    const JsonCursor fig = figs.at(i);
    if (!fig.has("type") || fig["type"].string() != "animation") continue;
    const json drawing = system_drawing(system);
    if (drawing.is_null())
      fig["type"].fail("figure \"" + fig["name"].string() + "\": system '" + system.name() +
                       "' declares no drawing (core/drawable.hpp), so it cannot be animated");
    for (std::size_t k = 0; k < st.integrators.size() && k < columns.size(); ++k) {
      if (fig.has("label") && fig["label"].string() != st.integrators[k].label) continue;
      for (const auto& c : drawing_columns(drawing)) {
        if (std::find(columns[k].begin(), columns[k].end(), c) != columns[k].end()) continue;
        const std::string msg = "figure \"" + fig["name"].string() + "\": the drawing of system '" + system.name() +
                                "' needs column '" + c + "', which " + trajectory_file(st, st.integrators[k].label) +
                                " does not record (add the observer \"trajectory\"); its columns are: " +
                                joined(columns[k]);
        if (fig.has("label")) fig["label"].fail(msg);
        fig["type"].fail(msg);
      }
    }
  }
}

}  // namespace dalembert
