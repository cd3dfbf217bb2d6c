#pragma once
// The figures a study may ask for, declared once in the figure schema (dalembert/figure_types.json
// of the Python package, read here and by the plotting program dalembert/plot.py): the figure
// types, every key with its value kind, each type's needed keys and its panels' keys.
#include <boost/config.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include <dalembert/core/json_input.hpp>

namespace dalembert {

/// The folder holding the pure-Python package `dalembert` (its plotting program dalembert/plot.py
/// and the figure schema): the installed package found from libdalembert's folder, else the source
/// tree's python/ (a build tree's CLI draws with the sources, as it did with the plotting script).
BOOST_SYMBOL_VISIBLE std::filesystem::path python_package_root();

/// The figure schema file: python_package_root()/dalembert/figure_types.json.
BOOST_SYMBOL_VISIBLE std::filesystem::path figure_schema_file();

/// The figure schema, read once (an Error naming the file if it is missing or malformed).
BOOST_SYMBOL_VISIBLE const nlohmann::json& figure_schema();

/// Checks one entry of a study's "figures" of type `type`: its keys and their value kinds, the keys
/// its type needs, its panels, and the integrator labels it names (`labels`: the study's). The
/// columns it plots are checked once the study's observers are bound (study_plan.cpp).
BOOST_SYMBOL_VISIBLE void check_figure(const JsonCursor& figure, const std::string& type,
                                       const std::vector<std::string>& labels);

/// `c` is a string among `allowed`; else an InputError "`what` allowed, ..." (e.g. a figure's
/// column that must be a sweep axis).
BOOST_SYMBOL_VISIBLE void check_one_of(const JsonCursor& c, const std::vector<std::string>& allowed,
                                       const std::string& what);

}  // namespace dalembert
