// Strict JSON parsing of study files: a size limit, a nesting-depth limit, no duplicate keys, no
// number overflow; every refusal names the file, the line and column, and the JSON path.
//
// nlohmann's parser is iterative, but copying, dumping or comparing a json value recurses, so a
// deep document must be refused *while* it is parsed, before any deep value exists: a SAX handler
// stops at the first container deeper than the limit. The handler builds the value through
// nlohmann's own DOM builder, so the result is exactly what json::parse would give.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/json_input.hpp>
#include <fcntl.h>
#include <iterator>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace dalembert {

namespace {

using nlohmann::json;

// A char iterator over the text that publishes how far the lexer has read, so SAX events (which
// carry no position) can be located: the lexer has just read the token the event is about.
class TrackedIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  TrackedIterator(const char* p, const char** read) : p_(p), read_(read) {}
  reference operator*() const { return *p_; }
  TrackedIterator& operator++() {
    *read_ = ++p_;
    return *this;
  }
  TrackedIterator operator++(int) {
    TrackedIterator old = *this;
    ++*this;
    return old;
  }
  bool operator==(const TrackedIterator& o) const { return p_ == o.p_; }
  bool operator!=(const TrackedIterator& o) const { return p_ != o.p_; }

 private:
  const char* p_;
  const char** read_;
};

// Closes a file descriptor when it goes out of scope.
struct Descriptor {
  int fd;
  ~Descriptor() { ::close(fd); }
};

// What a file that is not a regular one is, for the refusal.
std::string file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

std::string line_column(const std::string& text, std::size_t offset) {
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') line += 1, col = 1;
    else ++col;
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(col);
}

// One open object or array: the keys seen so far (objects) or the elements so far (arrays).
struct Frame {
  bool object = false;
  std::set<std::string> keys;
  std::string key;        // the current member's key
  std::size_t count = 0;  // elements so far
};

class StrictSax {
 public:
  StrictSax(json& result, const std::string& text, const std::string& source)
      : dom_(result, false), text_(text), source_(source), read_(text.data()) {}

  const char** read_position() { return &read_; }
  /// The refusal, if parsing stopped on one; empty if the text parsed.
  const std::string& where() const { return where_; }
  const std::string& message() const { return message_; }

  bool null() { return value() && dom_.null(); }
  bool boolean(bool b) { return value() && dom_.boolean(b); }
  bool number_integer(json::number_integer_t x) { return value() && dom_.number_integer(x); }
  bool number_unsigned(json::number_unsigned_t x) { return value() && dom_.number_unsigned(x); }
  bool number_float(json::number_float_t x, const std::string& s) { return value() && dom_.number_float(x, s); }
  bool string(std::string& s) { return value() && dom_.string(s); }
  bool binary(json::binary_t& b) { return value() && dom_.binary(b); }

  bool start_object(std::size_t n) { return open(true) && dom_.start_object(n); }
  bool start_array(std::size_t n) { return open(false) && dom_.start_array(n); }
  bool end_object() { return close() && dom_.end_object(); }
  bool end_array() { return close() && dom_.end_array(); }

  bool key(std::string& k) {
    Frame& f = stack_.back();
    f.key = k;
    if (!f.keys.insert(k).second)
      return refuse(here(), "duplicate key " + json(k).dump() + " (a key may appear once in an object)");
    return dom_.key(k);
  }

  bool parse_error(std::size_t position, const std::string& token, const nlohmann::detail::exception& e) {
    const std::string at = source_ + ": " + line_column(text_, position > 0 ? position - 1 : 0);
    if (e.id == 406) {  // out_of_range.406: a number too large for a double, e.g. 1e999
      value();          // the number is the current element
      const std::string number = token.size() > 40 ? token.substr(0, 37) + "..." : token;
      return refuse(at + ": " + path(), "= " + printable(number) + ": the number is out of the range of a double (about 1.8e308)");
    }
    std::string what = e.what();
    const auto p = what.find("syntax error");
    return refuse(at, "malformed JSON: " + (p == std::string::npos ? what : what.substr(p)));
  }

 private:
  // A value (or a container) is about to be added to the innermost container.
  bool value() {
    if (!stack_.empty() && !stack_.back().object) ++stack_.back().count;
    return true;
  }
  bool open(bool object) {
    value();
    if (stack_.size() >= kJsonMaxDepth)
      return refuse(here(), "JSON nested deeper than " + std::to_string(kJsonMaxDepth) + " levels");
    stack_.push_back(Frame{object, {}, {}, 0});
    return true;
  }
  bool close() {
    stack_.pop_back();
    return true;
  }
  std::string here() const {
    return source_ + ": " + line_column(text_, static_cast<std::size_t>(read_ - text_.data()) - 1) + ": " + path();
  }
  // The JSON pointer of the current position ("/" for the top level).
  std::string path() const {
    std::string p;
    for (const auto& f : stack_) p += "/" + (f.object ? json_pointer_token(f.key) : std::to_string(f.count - 1));
    return p.empty() ? "/" : p;
  }
  bool refuse(std::string where, std::string message) {
    if (where_.empty()) where_ = std::move(where), message_ = std::move(message);
    return false;
  }

  nlohmann::detail::json_sax_dom_parser<json> dom_;
  const std::string& text_;
  const std::string& source_;
  const char* read_;
  std::vector<Frame> stack_;
  std::string where_, message_;
};

}  // namespace

std::string json_pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return printable(out);
}

std::string printable(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (c >= 0x20 && c != 0x7f) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    }
  }
  return out;
}

json parse_json_text(const std::string& text, const std::string& source) {
  if (text.size() > kJsonMaxBytes)
    throw InputError(source, "the file is " + std::to_string(text.size()) + " bytes, more than the limit of " +
                                 std::to_string(kJsonMaxBytes) + " bytes for a study");
  // nlohmann's lexer reads a NUL byte as the end of the input: the bytes after it would be ignored.
  if (const auto nul = text.find('\0'); nul != std::string::npos)
    throw InputError(source + ": " + line_column(text, nul),
                     "byte " + std::to_string(nul) + " is a NUL byte (0x00), which JSON text never holds");
  json result;
  StrictSax sax(result, text, source);
  const TrackedIterator first(text.data(), sax.read_position()), last(text.data() + text.size(), sax.read_position());
  if (!json::sax_parse(first, last, &sax) || !sax.where().empty()) {
    if (sax.where().empty()) throw InputError(source, "malformed JSON");  // cannot happen: every stop says why
    throw InputError(sax.where(), sax.message());
  }
  return result;
}

json parse_json_file(const std::string& file) {
  // Opened without blocking and checked on the open descriptor (no race with a rename): a FIFO,
  // a device or a socket named as a study would block the run for ever, or never end.
  const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw InputError(file, std::string("cannot open the file for reading: ") + std::strerror(errno));
  const Descriptor guard{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw InputError(file, std::string("cannot read the file: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    throw InputError(file, "not a regular file but " + file_kind(st.st_mode) + "; a study is read from a regular file");
  // Read in chunks up to one byte past the limit, so a huge file is refused without reading it all
  // and a small one costs its own size (a buffer of the whole limit, zero-filled, cost 40 % of a
  // tiny study's run; issue 32 item 3).
  std::string text;
  char chunk[1 << 16];
  while (text.size() <= kJsonMaxBytes) {
    const std::size_t want = std::min(sizeof chunk, kJsonMaxBytes + 1 - text.size());
    const ssize_t n = ::read(fd, chunk, want);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(file, std::string("cannot read the file: ") + std::strerror(errno));
    if (n == 0) break;
    text.append(chunk, static_cast<std::size_t>(n));
  }
  return parse_json_text(text, file);
}

}  // namespace dalembert
