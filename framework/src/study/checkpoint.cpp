#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <dalembert/core/errors.hpp>
#include <dalembert/study/checkpoint.hpp>
#include <dalembert/study/file_output.hpp>
#include <dalembert/study/provenance.hpp>
#include <dalembert/study/runner.hpp>
#include <fstream>

namespace fs = std::filesystem;
using nlohmann::json;

namespace dalembert {

namespace {

// Layout 3: the header counts the chunk's failed tasks (a resume's scan reads no task), and the
// checksum runs over 8-byte words. Layout 2 ("DALCHK2") is refused by name.
constexpr char magic[8] = {'D', 'A', 'L', 'C', 'H', 'K', '3', '\n'};
constexpr char magic_v2[8] = {'D', 'A', 'L', 'C', 'H', 'K', '2', '\n'};
constexpr int layout = 3;

// FNV-1a over 8-byte words, then the last bytes: enough to tell a torn or foreign file from a
// whole one, at memory speed (the reduction checks every chunk it reads).
std::uint64_t checksum(const char* p, std::size_t n) {
  constexpr std::uint64_t prime = 1099511628211ull;
  std::uint64_t h = 1469598103934665603ull, w;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::memcpy(&w, p + i, 8);
    h = (h ^ w) * prime;
  }
  for (; i < n; ++i) h = (h ^ static_cast<unsigned char>(p[i])) * prime;
  return h;
}

class Writer {
 public:
  template <class T>
  void put(const T& x) {
    static_assert(std::is_trivially_copyable_v<T>);
    out.append(reinterpret_cast<const char*>(&x), sizeof x);
  }
  void put(const std::string& s) {
    put<std::uint64_t>(s.size());
    out += s;
  }
  void put(const double* p, std::size_t n) {
    put<std::uint64_t>(n);
    if (n > 0) out.append(reinterpret_cast<const char*>(p), n * sizeof(double));  // an empty vector's data() may be null
  }
  void put(const State& s) {
    put(s.t);
    put(s.q.data(), static_cast<std::size_t>(s.q.size()));
    put(s.v.data(), static_cast<std::size_t>(s.v.size()));
  }
  std::string out;
};

class Reader {
 public:
  Reader(const char* begin, const char* end, const fs::path& file) : p_(begin), end_(end), file_(file) {}
  template <class T>
  T get() {
    T x;
    need(sizeof x);
    std::memcpy(&x, p_, sizeof x);
    p_ += sizeof x;
    return x;
  }
  std::string string() {
    const auto n = get<std::uint64_t>();
    need(n);
    std::string s(p_, n);
    p_ += n;
    return s;
  }
  std::vector<double> doubles() {
    const auto n = get<std::uint64_t>();
    need(n * sizeof(double));
    std::vector<double> v(n);
    if (n > 0) std::memcpy(v.data(), p_, n * sizeof(double));  // an empty vector's data() may be null
    p_ += n * sizeof(double);
    return v;
  }
  Vec vec() {
    const auto d = doubles();
    return Eigen::Map<const Vec>(d.data(), static_cast<Eigen::Index>(d.size()));
  }
  State state() {
    State s;
    s.t = get<double>();
    s.q = vec();
    s.v = vec();
    return s;
  }
  bool at_end() const { return p_ == end_; }

 private:
  void need(std::size_t n) const {
    if (static_cast<std::size_t>(end_ - p_) < n) throw Error("checkpoint file " + file_.string() + " is truncated");
  }
  const char* p_;
  const char* end_;
  fs::path file_;
};

// The whole file in one read (not a character at a time: the reduction reads every chunk).
std::string read_all(const fs::path& file) {
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  const std::streamoff size = in ? static_cast<std::streamoff>(in.tellg()) : -1;
  if (size < 0) throw Error("cannot read checkpoint file " + file.string());
  std::string text(static_cast<std::size_t>(size), '\0');
  in.seekg(0);
  if (!in.read(text.data(), static_cast<std::streamsize>(text.size())))
    throw Error("cannot read checkpoint file " + file.string());
  return text;
}

// The JSON pointers at which two documents differ ("/integrators/0/params/beta: 0.25 -> 0.5").
std::string differences(const json& was, const json& now) {
  const json patch = json::diff(was, now);
  std::string out;
  std::size_t shown = 0;
  for (const auto& op : patch) {
    if (++shown > 3) break;
    const std::string path = op.value("path", "");
    const json::json_pointer ptr(path);
    const std::string before = was.contains(ptr) ? was[ptr].dump() : "(absent)";
    const std::string after = now.contains(ptr) ? now[ptr].dump() : "(absent)";
    out += (out.empty() ? "" : "; ") + (path.empty() ? "/" : path) + ": " + before + " -> " + after;
  }
  if (patch.size() > 3) out += "; and " + std::to_string(patch.size() - 3) + " more";
  return out;
}

// libdalembert or a plugin file whose content differs from the interrupted run's (same revision,
// same names and versions: rebuilt or replaced), naming it and both SHA-256; "" if none does.
std::string rebuilt_code(const json& was, const json& now) {
  if (!was.contains("libdalembert_sha256"))
    return "the interrupted run was made by a dalembert that did not record the SHA-256 of its code";
  const std::string lib_was = was.value("libdalembert_sha256", ""), lib_now = now.value("libdalembert_sha256", "");
  if (lib_was != lib_now)
    return "libdalembert (" + framework_file().string() + ") was rebuilt or replaced since the interrupted run: " +
           "SHA-256 " + lib_was + " then, " + lib_now + " now";
  for (const auto& p : now.value("plugins", json::array()))
    for (const auto& q : was.value("plugins", json::array()))
      if (q.value("kind", "") == p.value("kind", "") && q.value("name", "") == p.value("name", "") &&
          q.value("sha256", "") != p.value("sha256", ""))
        return p.value("kind", "") + " plugin '" + p.value("name", "") +
               "' was rebuilt or replaced since the interrupted run: its file had SHA-256 " + q.value("sha256", "") +
               ", now " + p.value("sha256", "");
  return "";
}

}  // namespace

ChunkPartition::ChunkPartition(std::size_t task_count, std::size_t max_chunks) : tasks(task_count) {
  per_chunk = std::max<std::size_t>(1, (task_count + max_chunks - 1) / max_chunks);
}

std::size_t ChunkPartition::size(std::size_t c) const {
  const std::size_t f = first(c);
  return f >= tasks ? 0 : std::min(per_chunk, tasks - f);
}

json task_fingerprint(const json& study_runs, const json& plugins) {
  json f = study_runs;
  for (auto& run : f)
    for (const char* key : {"figures", "claims", "description"}) run.erase(key);
  return {{"study", f},
          {"revision", source_revision()},
          {"libdalembert_sha256", framework_sha256()},
          {"plugins", plugins},
          {"checkpoint_layout", layout}};
}

Checkpoint::Checkpoint(const fs::path& staging) : dir_(staging / "checkpoint") {}

void Checkpoint::start(const json& fingerprint) const {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) throw Error("cannot create the checkpoint folder " + dir_.string() + ": " + ec.message());
  write_json_file(dir_ / "study.json", fingerprint);
}

bool Checkpoint::matches(const json& fingerprint, const std::string& where) const {
  std::error_code ec;
  if (!fs::exists(dir_ / "study.json", ec)) return false;
  json was;
  try {
    was = json::parse(read_all(dir_ / "study.json"));
  } catch (const std::exception& e) {
    throw InputError(where, std::string("cannot resume: the checkpoint's study.json is unreadable: ") + e.what());
  }
  if (was == fingerprint) return true;
  if (const int was_layout = was.value("checkpoint_layout", 2); was_layout != layout)
    throw InputError(where, "cannot resume: " + dir_.string() + " has checkpoint layout " + std::to_string(was_layout) +
                                ", written by an older dalembert (this one reads layout " + std::to_string(layout) +
                                "); run without --resume to start again (the interrupted run is then discarded)");
  std::string what;
  if (was.value("revision", "") != fingerprint.value("revision", ""))
    what = "dalembert was rebuilt from another revision (" + was.value("revision", "?") + " -> " +
           fingerprint.value("revision", "?") + ")";
  if (what.empty()) what = rebuilt_code(was, fingerprint);
  if (what.empty()) {
    json a = was.value("study", json()), b = fingerprint.value("study", json());
    if (a.is_array() && b.is_array() && a.size() == 1 && b.size() == 1) a = json(a[0]), b = json(b[0]);  // not a sweep
    what = a != b ? "the study changed since the interrupted run: " + differences(a, b)
                  : "the plugins it loads changed since the interrupted run: " + differences(was, fingerprint);
  }
  throw InputError(where, "cannot resume: " + what +
                              "; run without --resume to start again (the interrupted run is then discarded)");
}

fs::path Checkpoint::chunk_file(std::size_t c) const {
  char name[40];
  std::snprintf(name, sizeof name, "chunk_%06zu.bin", c);
  return dir_ / name;
}

void Checkpoint::write_chunk(std::size_t c, std::size_t first, const std::vector<TaskOutcome>& outcomes) const {
  Writer w;
  w.out.append(magic, sizeof magic);
  w.put<std::uint64_t>(c);
  w.put<std::uint64_t>(first);
  w.put<std::uint64_t>(outcomes.size());
  w.put<std::uint64_t>(std::count_if(outcomes.begin(), outcomes.end(), [](const TaskOutcome& o) { return !o.ok; }));
  for (const auto& o : outcomes) {
    w.put<std::uint8_t>(o.ok ? 1 : 0);
    w.put(o.error);
    w.put(o.wall);
    w.put(o.final);
    w.put(o.initial);
    w.put<std::uint64_t>(o.summary.size());
    for (const auto& [name, value] : o.summary) {
      w.put(name);
      w.put(value);
    }
    w.put<std::uint64_t>(o.ncol);
    w.put(o.rows.data(), o.rows.size());
    w.put(o.cpu.data(), o.cpu.size());
  }
  w.put(checksum(w.out.data(), w.out.size()));
  write_file_atomically(chunk_file(c), w.out);
}

// A chunk file read whole and checked (layout, checksum, which tasks it holds); its tasks not yet
// decoded.
struct Checkpoint::ChunkBytes {
  std::string text;
  std::uint64_t failed = 0;
  static constexpr std::size_t header = sizeof magic + 4 * 8;  // magic, chunk, first, count, failed
};

Checkpoint::ChunkBytes Checkpoint::read_bytes(std::size_t c, std::size_t first, std::size_t count) const {
  const fs::path file = chunk_file(c);
  ChunkBytes b{read_all(file)};
  const std::string& text = b.text;
  if (text.size() >= sizeof magic_v2 && std::memcmp(text.data(), magic_v2, sizeof magic_v2) == 0)
    throw Error("checkpoint file " + file.string() + " has layout 2, written by an older dalembert (this one reads layout " +
                std::to_string(layout) + ")");
  if (text.size() < ChunkBytes::header + 8 || std::memcmp(text.data(), magic, sizeof magic) != 0)
    throw Error("checkpoint file " + file.string() + " is not a dalembert checkpoint");
  std::uint64_t sum;
  std::memcpy(&sum, text.data() + text.size() - 8, 8);
  if (sum != checksum(text.data(), text.size() - 8)) throw Error("checkpoint file " + file.string() + " is torn (checksum)");
  Reader r(text.data() + sizeof magic, text.data() + ChunkBytes::header, file);
  if (r.get<std::uint64_t>() != c || r.get<std::uint64_t>() != first || r.get<std::uint64_t>() != count)
    throw Error("checkpoint file " + file.string() + " holds other tasks than chunk " + std::to_string(c));
  b.failed = r.get<std::uint64_t>();
  return b;
}

std::vector<TaskOutcome> Checkpoint::read_chunk(std::size_t c, std::size_t first, std::size_t count) const {
  const ChunkBytes b = read_bytes(c, first, count);
  const fs::path file = chunk_file(c);
  Reader r(b.text.data() + ChunkBytes::header, b.text.data() + b.text.size() - 8, file);
  std::vector<TaskOutcome> out(count);
  for (auto& o : out) {
    o.ok = r.get<std::uint8_t>() != 0;
    o.error = r.string();
    o.wall = r.get<double>();
    o.final = r.state();
    o.initial = r.state();
    const auto n = r.get<std::uint64_t>();
    for (std::uint64_t k = 0; k < n; ++k) {
      std::string name = r.string();
      o.summary.emplace_back(std::move(name), r.get<double>());
    }
    o.ncol = r.get<std::uint64_t>();
    o.rows = r.doubles();
    o.cpu = r.doubles();
  }
  if (!r.at_end()) throw Error("checkpoint file " + file.string() + " has trailing bytes");
  return out;
}

bool Checkpoint::completed(std::size_t c, std::size_t first, std::size_t count) const {
  std::error_code ec;
  if (!fs::exists(chunk_file(c), ec)) return false;
  try {
    return read_bytes(c, first, count).failed == 0;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace dalembert
