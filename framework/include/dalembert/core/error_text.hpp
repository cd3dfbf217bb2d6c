#pragma once
// The text of an error as the command line prints it after "error: ": one line, whatever a
// library put in the message. The Python module raises its exceptions with the same text. And the
// numbers such messages (and the run's console lines) quote.
#include <boost/config.hpp>
#include <string>

namespace dalembert {

/// `message` with every newline replaced by "; ".
BOOST_SYMBOL_VISIBLE std::string one_line(std::string message);

/// x as printf's `format` writes it (one double conversion: "%.3e", "%g", "%.3f", ...).
BOOST_SYMBOL_VISIBLE std::string number_text(double x, const char* format = "%.3e");

}  // namespace dalembert
