#pragma once
// Reading JSON input with its location: every error names the file, the JSON path and the value.
#include <boost/config.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace dalembert {

/// Parses a JSON file; a syntax error is an InputError "FILE: line L, column C: malformed JSON: ...".
nlohmann::json parse_json_file(const std::string& file);

/// A JSON value together with where it came from.
class BOOST_SYMBOL_VISIBLE JsonCursor {
 public:
  JsonCursor(const nlohmann::json& j, std::string file, std::string path = "");

  /// "FILE: /json/path" — what error messages start with.
  std::string where() const;
  const std::string& path() const { return path_; }
  const std::string& file() const { return file_; }
  const nlohmann::json& json() const { return *j_; }

  bool has(const std::string& key) const;
  JsonCursor operator[](const std::string& key) const;  ///< required key
  JsonCursor at(std::size_t i) const;
  std::size_t size() const;  ///< of an array (error otherwise)

  double number() const;
  double finite_positive() const;  ///< a finite number > 0
  long integer() const;
  bool boolean() const;
  std::string string() const;
  std::vector<double> numbers() const;  ///< an array of finite numbers

  /// Fails on any key not in `allowed`, suggesting the nearest.
  void allow_keys(const std::vector<std::string>& allowed) const;

  /// Throws InputError "FILE: /path = VALUE: message".
  [[noreturn]] void fail(const std::string& message) const;

 private:
  void expect_object() const;
  const nlohmann::json* j_;
  std::string file_, path_;
};

}  // namespace dalembert
