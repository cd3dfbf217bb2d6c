#pragma once
// A study's animations (issue 31 item 4), checked before anything runs: the figures of type
// "animation" need a system that declares its drawing (core/drawable.hpp) and trajectory files
// holding every column the drawing reads.
#include <boost/config.hpp>
#include <dalembert/core/system.hpp>
#include <dalembert/study/study.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace dalembert {

/// The system's drawing, or null when it declares none.
BOOST_SYMBOL_VISIBLE nlohmann::json system_drawing(const System& system);

/// Every "animation" figure of the study: the system has a drawing, and the trajectory of its
/// "label" (default: every integrator's) records the drawing's columns; an InputError at the
/// figure's JSON path otherwise. `columns[i]` are the columns integrator i's file will have.
BOOST_SYMBOL_VISIBLE void check_animation_figures(const Study& st, const System& system,
                                                  const std::vector<std::vector<std::string>>& columns);

}  // namespace dalembert
