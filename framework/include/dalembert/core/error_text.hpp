#pragma once
// The text of an error as the command line prints it after "error: ": one line, whatever a
// library put in the message. The Python module raises its exceptions with the same text.
#include <boost/config.hpp>
#include <string>

namespace dalembert {

/// `message` with every newline replaced by "; ".
BOOST_SYMBOL_VISIBLE std::string one_line(std::string message);

}  // namespace dalembert
