#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <dalembert/core/errors.hpp>
#include <dalembert/study/npy_writer.hpp>
#include <fcntl.h>
#include <limits>
#include <set>
#include <unistd.h>
#include <utility>

namespace dalembert {

// The rows are the host's doubles, copied as they are: the file says '<f8'.
static_assert(std::endian::native == std::endian::little, "NpyWriter writes '<f8': a little-endian host is needed");
static_assert(std::numeric_limits<double>::is_iec559 && sizeof(double) == 8, "NpyWriter writes IEEE 754 doubles");

namespace {

constexpr std::size_t kBufferBytes = std::size_t{1} << 20;
constexpr std::size_t kAlign = 64;                                           // NumPy pads headers to 64 bytes
constexpr std::size_t kMaxRowDigits = std::numeric_limits<std::size_t>::digits10 + 1;  // any row count
constexpr const char* kDictTail = ",), }";

std::filesystem::path part_name(const std::filesystem::path& file) { return file.string() + ".part"; }

// The code point of the UTF-8 sequence at s[i] and its length; length 0 if it is not UTF-8.
std::pair<char32_t, std::size_t> utf8_at(const std::string& s, std::size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  const std::size_t n = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size()) return {0, 0};
  char32_t c = n == 1 ? b : b & (0x7Fu >> n);
  for (std::size_t k = 1; k < n; ++k) {
    const auto cont = static_cast<unsigned char>(s[i + k]);
    if ((cont >> 6) != 0x2) return {0, 0};
    c = (c << 6) | (cont & 0x3Fu);
  }
  constexpr char32_t kShortest[] = {0, 0, 0x80, 0x800, 0x10000};  // overlong forms are not UTF-8
  if (c < kShortest[n] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return {0, 0};
  return {c, n};
}

// A column name as a Python string literal (NumPy reads the header with ast.literal_eval): quote
// and backslash escaped, everything outside printable ASCII as \xNN, \uNNNN or \UNNNNNNNN of its
// code point, so the header is ASCII (format 1.0 and 2.0 headers are latin-1).
std::string python_literal(const std::string& name, const std::filesystem::path& file) {
  std::string out = "'";
  for (std::size_t i = 0; i < name.size();) {
    const auto [c, n] = utf8_at(name, i);
    if (n == 0) throw Error("cannot write " + file.string() + ": a column name is not UTF-8 text");
    i += n;
    if (c == '\'' || c == '\\') out += '\\';
    if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
      continue;
    }
    char buf[12];
    std::snprintf(buf, sizeof buf, c < 0x100 ? "\\x%02x" : c < 0x10000 ? "\\u%04x" : "\\U%08x", static_cast<unsigned>(c));
    out += buf;
  }
  return out + "'";
}

// "{'descr': [('t', '<f8'), ...], 'fortran_order': False, 'shape': (" — the row count follows.
std::string dict_head(const std::vector<std::string>& columns, const std::filesystem::path& file) {
  if (columns.empty()) throw Error("cannot write " + file.string() + ": a .npy trajectory needs at least one column");
  std::set<std::string> seen;
  std::string d = "{'descr': [";
  for (const auto& c : columns) {
    if (c.empty() || !seen.insert(c).second)
      throw Error("cannot write " + file.string() + ": column name '" + c + "' is " + (c.empty() ? "empty" : "repeated") +
                  " (a .npy field needs a name of its own)");
    d += (d.back() == '[' ? "(" : ", (") + python_literal(c, file) + ", '<f8')";
  }
  return d + "], 'fortran_order': False, 'shape': (";
}

// The whole header's size for a dictionary of at most `dict_bytes`: version 1.0 (a 2-byte length)
// unless that exceeds 65535 bytes, then 2.0 (4 bytes); magic + length + dictionary + '\n', padded.
std::size_t header_size(std::size_t dict_bytes) {
  const auto padded = [](std::size_t n) { return (n + kAlign - 1) / kAlign * kAlign; };
  const std::size_t v1 = padded(10 + dict_bytes + 1);
  return v1 - 10 <= 65535 ? v1 : padded(12 + dict_bytes + 1);
}

// Writes n bytes (retrying short writes and EINTR); returns the bytes written before an error.
std::size_t write_all(int fd, const char* p, std::size_t n) {
  std::size_t done = 0;
  while (done < n) {
    const ssize_t w = ::write(fd, p + done, n - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      if (w == 0) errno = EIO;
      break;
    }
    done += static_cast<std::size_t>(w);
  }
  return done;
}

bool pwrite_all(int fd, const std::string& text, off_t at) {
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t w = ::pwrite(fd, text.data() + done, text.size() - done, at + static_cast<off_t>(done));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    done += static_cast<std::size_t>(w);
  }
  return true;
}

}  // namespace

NpyWriter::NpyWriter(const std::filesystem::path& file, const std::vector<std::string>& columns, std::size_t expected_rows)
    : path_(file), ncol_(columns.size()), row_bytes_(columns.size() * sizeof(double)), dict_head_(dict_head(columns, file)) {
  header_bytes_ = header_size(dict_head_.size() + kMaxRowDigits + std::strlen(kDictTail));
  cap_ = std::max(kBufferBytes / row_bytes_, std::size_t{1}) * row_bytes_;
  buf_ = std::make_unique<char[]>(cap_);
  // Written under a temporary name and renamed by close(): a file with its final name is whole.
  fd_ = ::open(part_name(file).c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0666);
  if (fd_ < 0) throw Error("cannot write " + file.string() + ": " + std::strerror(errno));
  const std::string h = header(0);
  if (write_all(fd_, h.data(), h.size()) != h.size()) {
    const int err = errno;
    ::close(std::exchange(fd_, -1));
    std::remove(part_name(file).c_str());
    throw Error("error while writing " + file.string() + ": " + std::strerror(err));
  }
  reserve_blocks(header_bytes_ + expected_rows * row_bytes_);
}

NpyWriter::~NpyWriter() {
  if (fd_ < 0) return;
  // Not closed: the run failed. Keep what was recorded, as a file numpy loads, under the file's
  // own name in the failed run's folder.
  try {
    flush();
  } catch (...) {
    try {
      finish_file();
    } catch (...) {
    }
  }
  ::close(fd_);
  std::error_code ec;
  std::filesystem::rename(part_name(path_), path_, ec);
}

std::string NpyWriter::header(std::size_t rows) const {
  const bool v1 = header_bytes_ - 10 <= 65535;
  const std::size_t prefix = v1 ? 10 : 12, length = header_bytes_ - prefix;
  std::string h(header_bytes_, ' ');
  std::memcpy(h.data(), "\x93NUMPY", 6);
  h[6] = static_cast<char>(v1 ? 1 : 2);
  h[7] = 0;
  for (std::size_t k = 0; k < prefix - 8; ++k) h[8 + k] = static_cast<char>((length >> (8 * k)) & 0xFF);  // little-endian
  const std::string dict = dict_head_ + std::to_string(rows) + kDictTail;
  h.replace(prefix, dict.size(), dict);
  h.back() = '\n';
  return h;
}

void NpyWriter::row(const double* values) {
  if (used_ + row_bytes_ > cap_) drain();
  std::memcpy(buf_.get() + used_, values, row_bytes_);
  used_ += row_bytes_;
}

// Reserves the file's blocks ahead of the data (Linux fallocate: far cheaper writes into a file
// that does not grow block by block). Past the hint, twice the bytes so far. Any failure
// (unsupported file system, no space, a size limit) leaves plain writes, which report real errors.
void NpyWriter::reserve_blocks(std::size_t bytes) {
#if defined(__linux__)
  if (!can_reserve_ || bytes <= reserved_) return;
  const std::size_t want = std::max(bytes, 2 * reserved_);
  can_reserve_ = ::fallocate(fd_, 0, 0, static_cast<off_t>(want)) == 0;
  reserved_ = can_reserve_ ? want : 0;
#else
  (void)bytes;
#endif
}

void NpyWriter::drain() {
  if (!error_.empty()) throw Error(error_);
  if (used_ == 0) return;
  reserve_blocks(header_bytes_ + rows_on_disk_ * row_bytes_ + used_);
  const std::size_t n = std::exchange(used_, 0);
  const std::size_t done = write_all(fd_, buf_.get(), n);
  const int err = errno;
  rows_on_disk_ += done / row_bytes_;  // a row written in part is cut off by finish_file()
  if (done != n) fail(err);
}

void NpyWriter::fail(int err) {
  error_ = "error while writing " + path_.string() + ": " + std::strerror(err);
  throw Error(error_);
}

// The shape patched to the rows on disk and the file cut to exactly them (dropping a partly
// written row and the blocks reserved ahead).
void NpyWriter::finish_file() {
  const std::size_t bytes = header_bytes_ + rows_on_disk_ * row_bytes_;
  if (!pwrite_all(fd_, header(rows_on_disk_), 0) || ::ftruncate(fd_, static_cast<off_t>(bytes)) != 0) fail(errno);
  reserved_ = std::min(reserved_, bytes);
}

void NpyWriter::flush() {
  if (error_.empty()) drain();
  finish_file();
}

void NpyWriter::close() {
  if (fd_ < 0) return;
  flush();
  if (!error_.empty()) throw Error(error_);
  const int fd = std::exchange(fd_, -1);
  if (::close(fd) != 0) throw Error("error while writing " + path_.string() + ": " + std::strerror(errno));
  std::error_code ec;
  std::filesystem::rename(part_name(path_), path_, ec);
  if (ec) throw Error("cannot rename " + part_name(path_).string() + " to " + path_.string() + ": " + ec.message());
}

}  // namespace dalembert
