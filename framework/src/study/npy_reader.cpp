#include <algorithm>
#include <bit>
#include <cstring>
#include <dalembert/core/errors.hpp>
#include <dalembert/study/npy_reader.hpp>
#include <fstream>
#include <limits>
#include <string_view>

namespace dalembert {

static_assert(std::endian::native == std::endian::little, "read_npy reads '<f8' into doubles as they are");

namespace {

struct Header {
  std::vector<std::string> names;
  std::vector<unsigned long long> shape;
};

// The dictionary of a .npy header, a Python literal: {'descr': [('name', '<f8'), ...],
// 'fortran_order': False, 'shape': (N,), } in any key order, with the string escapes Python has.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, bool latin1, const std::filesystem::path& file)
      : s_(text), latin1_(latin1), file_(file) {}

  Header parse() {
    Header h;
    bool descr = false, order = false, shape = false;
    expect('{');
    while (!eat('}')) {
      const std::string key = string_literal();
      expect(':');
      if (key == "descr" && !descr) {
        descr = true;
        h.names = fields();
      } else if (key == "fortran_order" && !order) {
        order = true;
        (void)boolean();  // a one-dimensional array is the same in either order
      } else if (key == "shape" && !shape) {
        shape = true;
        h.shape = integers();
      } else {
        fail("has an unexpected or repeated key '" + key + "'");
      }
      if (!eat(',')) {
        expect('}');
        break;
      }
    }
    if (!descr || !order || !shape) fail("it lacks one of 'descr', 'fortran_order', 'shape'");
    return h;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw Error(file_.string() + ": not a trajectory .npy file: its header " + why);
  }
  void skip_space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t' || s_[i_] == '\r')) ++i_;
  }
  bool eat(char c) {
    skip_space();
    if (i_ < s_.size() && s_[i_] == c) return ++i_, true;
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail(std::string("is not NumPy's dictionary (expected '") + c + "' at byte " + std::to_string(i_) + ")");
  }

  // [('name', '<f8'), ...]: every field a named little-endian double.
  std::vector<std::string> fields() {
    std::vector<std::string> names;
    if (!eat('[')) fail("does not describe a structured array of named '<f8' fields");
    while (!eat(']')) {
      expect('(');
      names.push_back(string_literal());
      if (std::find(names.begin(), names.end() - 1, names.back()) != names.end() - 1)
        fail("names the field '" + names.back() + "' twice");
      expect(',');
      const std::string type = string_literal();
      if (type != "<f8") fail("gives field '" + names.back() + "' the type '" + type + "'; only '<f8' is read");
      eat(',');
      expect(')');
      if (!eat(',')) {
        expect(']');
        break;
      }
    }
    if (names.empty()) fail("describes no field");
    return names;
  }

  bool boolean() {
    skip_space();
    for (const auto& [word, value] : {std::pair{std::string_view("True"), true}, std::pair{std::string_view("False"), false}})
      if (s_.substr(i_, word.size()) == word) return i_ += word.size(), value;
    fail("has a 'fortran_order' that is not True or False");
  }

  std::vector<unsigned long long> integers() {
    std::vector<unsigned long long> out;
    expect('(');
    while (!eat(')')) {
      skip_space();
      unsigned long long v = 0;
      const std::size_t start = i_;
      for (; i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9'; ++i_) {
        if (v > (std::numeric_limits<unsigned long long>::max() - 9) / 10) fail("has a shape too large to read");
        v = 10 * v + static_cast<unsigned long long>(s_[i_] - '0');
      }
      if (i_ == start) fail("has a 'shape' that is not a tuple of integers");
      out.push_back(v);
      if (!eat(',')) {
        expect(')');
        break;
      }
    }
    return out;
  }

  std::string string_literal() {
    skip_space();
    if (i_ >= s_.size() || (s_[i_] != '\'' && s_[i_] != '"')) fail("has a key or name that is not a string");
    const char quote = s_[i_++];
    std::string out;
    while (i_ < s_.size() && s_[i_] != quote) {
      if (s_[i_] != '\\') {
        const auto b = static_cast<unsigned char>(s_[i_++]);
        if (latin1_ && b >= 0x80) append_utf8(out, b);  // format 1.0/2.0: a byte is a latin-1 character
        else out += static_cast<char>(b);
        continue;
      }
      escape(out);
    }
    if (i_ >= s_.size()) fail("has a string without its closing quote");
    ++i_;
    return out;
  }

  // The escape at s_[i_] ('\\' then a character) appended to `out`.
  void escape(std::string& out) {
    if (i_ + 1 >= s_.size()) fail("ends inside an escape");
    const char c = s_[i_ + 1];
    i_ += 2;
    switch (c) {
      case '\\': case '\'': case '"': out += c; return;
      case 'n': out += '\n'; return;
      case 't': out += '\t'; return;
      case 'r': out += '\r'; return;
      case 'x': append_utf8(out, hex(2)); return;
      case 'u': append_utf8(out, hex(4)); return;
      case 'U': append_utf8(out, hex(8)); return;
      default: fail(std::string("has an escape '\\") + c + "' this reader does not know");
    }
  }

  char32_t hex(std::size_t digits) {
    if (i_ + digits > s_.size()) fail("ends inside an escape");
    char32_t v = 0;
    for (std::size_t k = 0; k < digits; ++k, ++i_) {
      const char c = s_[i_];
      const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (d < 0) fail("has a malformed \\x, \\u or \\U escape");
      v = v * 16 + static_cast<char32_t>(d);
    }
    if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) fail("escapes a value that is not a character");
    return v;
  }

  static void append_utf8(std::string& out, char32_t c) {
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out += static_cast<char>(0xE0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (c >> 18));
      out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }

  std::string_view s_;
  bool latin1_;
  const std::filesystem::path& file_;
  std::size_t i_ = 0;
};

// Magic, version and header length; the stream is left at the header's dictionary.
Header read_header(std::ifstream& in, const std::filesystem::path& file, std::size_t& data_start) {
  char pre[12] = {};
  in.read(pre, 8);
  if (!in || std::memcmp(pre, "\x93NUMPY", 6) != 0) throw Error(file.string() + ": not a NumPy .npy file (no \\x93NUMPY magic)");
  const int major = static_cast<unsigned char>(pre[6]);
  if (major < 1 || major > 3 || pre[7] != 0)
    throw Error(file.string() + ": .npy format version " + std::to_string(major) + "." +
                std::to_string(static_cast<unsigned char>(pre[7])) + " is not one this reader knows (1.0, 2.0, 3.0)");
  const std::size_t len_bytes = major == 1 ? 2 : 4;
  in.read(pre + 8, static_cast<std::streamsize>(len_bytes));
  std::size_t length = 0;
  for (std::size_t k = 0; k < len_bytes; ++k) length |= std::size_t{static_cast<unsigned char>(pre[8 + k])} << (8 * k);
  std::string text(length, '\0');
  in.read(text.data(), static_cast<std::streamsize>(length));
  if (!in) throw Error(file.string() + ": a truncated .npy file (its header is cut short)");
  data_start = 8 + len_bytes + length;
  return HeaderParser(text, major < 3, file).parse();
}

}  // namespace

NpyTable read_npy(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error("cannot read " + file.string());
  std::size_t start = 0;
  const Header h = read_header(in, file, start);
  if (h.shape.size() != 1)
    throw Error(file.string() + ": not a trajectory .npy file: its shape has " + std::to_string(h.shape.size()) +
                " dimensions, not one (a row per record)");
  const std::size_t ncol = h.names.size(), rows = h.shape[0];
  std::error_code ec;
  const std::size_t size = std::filesystem::file_size(file, ec), row_bytes = ncol * sizeof(double);
  if (ec || size < start || (size - start) % row_bytes != 0 || (size - start) / row_bytes != rows)
    throw Error(file.string() + ": a .npy file whose header says " + std::to_string(rows) + " rows of " +
                std::to_string(ncol) + " doubles after " + std::to_string(start) + " header bytes, but it holds " +
                std::to_string(size) + " bytes (truncated or padded)");
  std::vector<double> data(rows * ncol);
  in.read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(data.size() * sizeof(double)));
  if (!in) throw Error("error while reading " + file.string());
  NpyTable t{h.names, std::vector<std::vector<double>>(ncol, std::vector<double>(rows))};
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < ncol; ++c) t.columns[c][r] = data[r * ncol + c];
  return t;
}

}  // namespace dalembert
