#pragma once
// The text of an error as the command line prints it after "error: ": one line, whatever a
// library put in the message. The Python module raises its exceptions with the same text. And the
// numbers such messages (and the run's console lines) quote.
#include <boost/config.hpp>
#include <exception>
#include <string>

namespace dalembert {

/// `message` with every newline replaced by "; ".
BOOST_SYMBOL_VISIBLE std::string one_line(std::string message);

/// The message of an exception of any type, for such a line: a dalembert Error's or any other
/// std::exception's what(), except the C++ and JSON libraries' own failures, whose texts name
/// their internals ("cannot create std::vector larger than max_size()", "vector::_M_range_check",
/// "[json.exception.type_error.302] ..."): those are said in words (out of memory, a size too
/// large, an index out of range, a JSON value of the wrong type), and `library_failure` is set.
BOOST_SYMBOL_VISIBLE std::string exception_text(const std::exception_ptr& e, bool* library_failure = nullptr);

/// x as printf's `format` writes it (one double conversion: "%.3e", "%g", "%.3f", ...).
BOOST_SYMBOL_VISIBLE std::string number_text(double x, const char* format = "%.3e");

}  // namespace dalembert
