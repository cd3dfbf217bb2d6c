#pragma once
// The columns of a trajectory CSV are "t" followed by every observer's columns; a name written by
// two producers (two observers, or an observer and "t") would give the file two columns of one
// name, which readers such as pandas silently rename. So a clash is an error that names both
// producers, raised when the observers are bound (before anything runs).
#include <boost/config.hpp>
#include <string>
#include <utility>
#include <vector>

namespace dalembert {

/// One producer of columns: its name for messages (e.g. "observer 'diagnostics'") and its columns.
struct ColumnProducer {
  std::string name;
  std::vector<std::string> columns;
};

/// Throws Error "column 'X' is written by both P and Q" for the first name two producers share
/// (or that one producer writes twice).
BOOST_SYMBOL_VISIBLE void check_unique_columns(const std::vector<ColumnProducer>& producers);

}  // namespace dalembert
