#pragma once
// Reading JSON input with its location: every error names the file, the JSON path and the value.
#include <boost/config.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace dalembert {

class Parameters;

/// Study files are small (the largest shipped one is 13 kB); a limit keeps a stray multi-gigabyte
/// file (or /dev/zero) from being read into memory: 16 MiB bounds the parsed value to a few
/// hundred MB even for the densest text ("[0,0,0,...").
inline constexpr std::size_t kJsonMaxBytes = std::size_t{16} << 20;
/// Studies nest about 6 levels; copying, dumping or destroying a json value recurses, so deeper
/// documents are refused while they are parsed, before any deep value exists.
inline constexpr std::size_t kJsonMaxDepth = 64;

/// Parses JSON text strictly: at most kJsonMaxBytes, nesting at most kJsonMaxDepth, no duplicate
/// key in an object, no number beyond a double. Every refusal is an InputError
/// "SOURCE: line L, column C[: /json/path]: message" (e.g. "malformed JSON: ...").
nlohmann::json parse_json_text(const std::string& text, const std::string& source);
/// Reads a file (at most kJsonMaxBytes) and parses it with parse_json_text.
nlohmann::json parse_json_file(const std::string& file);

/// `s` with control characters escaped (\u000a), so a message stays on one line.
std::string printable(const std::string& s);
/// An object key as a JSON-pointer token ("~" -> "~0", "/" -> "~1"), printable.
std::string json_pointer_token(const std::string& key);

/// `j` as compact JSON text, cut to at most `max_chars` (ending "...") for a one-line message.
std::string json_excerpt(const nlohmann::json& j, std::size_t max_chars = 80);

/// A JSON value together with where it came from.
class BOOST_SYMBOL_VISIBLE JsonCursor {
 public:
  JsonCursor(const nlohmann::json& j, std::string file, std::string path = "");
  /// A value whose location is already known as text, e.g. a plugin's JSON parameter at
  /// Parameters::where(name) ("FILE: /integrators/0/params/q1"): errors name `where`, followed by
  /// the path below it ("FILE: /integrators/0/params/q1/2").
  static JsonCursor below(const nlohmann::json& j, std::string where);

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
  long integer() const;  ///< a whole number that a long holds
  bool boolean() const;
  std::string string() const;
  std::vector<double> numbers() const;  ///< an array of finite numbers

  /// Fails on any key not in `allowed`, suggesting the nearest.
  void allow_keys(const std::vector<std::string>& allowed) const;

  /// Throws InputError "FILE: /path = VALUE: message".
  [[noreturn]] void fail(const std::string& message) const;

 private:
  void expect_object() const;
  JsonCursor child(const nlohmann::json& j, const std::string& token) const;
  const nlohmann::json* j_;
  std::string file_, path_;
  bool below_ = false;  // file_ is a whole location (below()): where() = file_ + path_
};

/// A plugin's JSON parameter `name` with its location (Parameters::where): a wrong value inside
/// it is an InputError naming its whole path and the expected type, e.g.
/// "FILE: /integrators/0/params/q1/2 = \"x\": expected a number".
BOOST_SYMBOL_VISIBLE JsonCursor json_parameter(const Parameters& p, const std::string& name);

}  // namespace dalembert
