#pragma once
// The Drawable capability (issue 31 item 4): a system that says how it looks, so that
// `dalembert animate` and `dalembert.animate()` can show it moving — a system written out of tree
// included. Optional: a system derives from it beside its models, and the runner asks for it with
// dynamic_cast (nothing that compiled before changes).
//
// drawing() returns a small JSON spec in terms of the trajectory's column names (the layout's q
// names), so that the animator needs only the run folder. The run writes it into manifest.json
// (study.system.drawing); `dalembert describe SYSTEM` shows it. Its form (README, "Adding a
// plugin"; python/dalembert/drawing.py reads it):
//
//   {"dimension": 2 or 3, "ground": true (3-D: a scene over the ground z = 0),
//    "frames": [{"name": "body", "parent": "world",          // frames, each after its parent
//                "transform": [{"translate": ["x", "y"]},   // entries: numbers or column names, or
//                              {"rotate": "theta"}],        //   {"column": c, "scale": k, "offset": o}
//                "on_ground": false}],                      // 3-D: lifted until its shapes touch z = 0
//    "shapes": [{"frame": "body", "polygon": [[..], ...]},  // polygon, line, circle, sphere,
//               {"link": ["world", "bob"]}, ...],          //   ellipsoid, point; link joins two frames
//    "traces": [{"frame": "contact", "point": [0, 0]}]}     // or {"contact": "body"}: its lowest point
//
// A 3-D rotation is {"rotate": angle, "axis": "x" | "y" | "z" | [a, b, c]} or {"quaternion": [four
// columns]}; the ground is z = 0, z up (a model with z down rotates its root frame by π about x).
#include <boost/config.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace dalembert {

class BOOST_SYMBOL_VISIBLE Drawable {
 public:
  static constexpr const char* model_name = "Drawable";
  virtual ~Drawable();
  /// The drawing spec above, with this instance's parameters (lengths, radii).
  virtual nlohmann::json drawing() const = 0;
};

/// Every column name a drawing's frames read (their transforms' entries that are names), in order
/// of first use: what a trajectory must record for the drawing to be animated.
BOOST_SYMBOL_VISIBLE std::vector<std::string> drawing_columns(const nlohmann::json& drawing);

}  // namespace dalembert
