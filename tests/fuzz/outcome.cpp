#include "outcome.hpp"

#include <algorithm>
#include <dalembert/study/npy_reader.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

namespace fs = std::filesystem;

namespace dalembert::fuzz {

namespace {

// Fields of one RFC 4180 line: commas inside a quoted field (claims.csv's texts) do not count; a
// doubled quote inside one toggles twice.
std::size_t fields(const std::string& line) {
  std::size_t n = 1;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') quoted = !quoted;
    else if (c == ',' && !quoted) ++n;
  }
  return n;
}

// Every row has as many fields as the header ("" if so, else the defect).
std::string check_csv(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::string header, line;
  if (!std::getline(in, header)) return "empty CSV";
  while (std::getline(in, line))
    if (fields(line) != fields(header)) return "CSV row with a different number of fields than its header";
  return "";
}

// A run folder: manifest.json parses, every file it lists exists (sweeps: every ok cell is a
// valid folder too), every CSV is rectangular, every .npy reads back whole.
std::string check_folder(const fs::path& out) {
  if (!fs::is_directory(out)) return "no output folder";
  if (fs::exists(out.string() + ".incomplete")) return "staging folder left behind";
  nlohmann::json m;
  try {
    std::ifstream in(out / "manifest.json");
    if (!in) return "no manifest.json";
    m = nlohmann::json::parse(in);
  } catch (const std::exception&) {
    return "manifest.json does not parse";
  }
  if (m.contains("files"))
    for (const auto& f : m["files"])
      if (!f.contains("path") || !fs::exists(out / f["path"].get<std::string>())) return "listed file missing";
  if (m.contains("cells"))
    for (const auto& c : m["cells"])
      if (c.value("ok", false)) {
        const std::string e = check_folder(out / c["folder"].get<std::string>());
        if (!e.empty()) return "sweep cell: " + e;
      }
  for (const auto& e : fs::recursive_directory_iterator(out)) {
    if (e.path().extension() == ".csv") {
      const std::string bad = check_csv(e.path());
      if (!bad.empty()) return bad;
    }
    if (e.path().extension() == ".npy") {
      try {
        (void)read_npy(e.path());  // whole: the header's shape matches the rows
      } catch (const std::exception& x) {
        return std::string("unreadable .npy: ") + x.what();
      }
    }
  }
  return "";
}

// Exactly one "error: ..." line, last; lines before it may only be warnings (e.g. a plugin's note
// on its parameters, printed before a later task failed).
bool one_error_line(const std::string& err) {
  if (err.empty() || err.back() != '\n') return false;
  std::istringstream in(err);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  for (std::size_t i = 0; i + 1 < lines.size(); ++i)
    if (lines[i].rfind("warning: ", 0) != 0) return false;
  return lines.back().rfind("error: ", 0) == 0;
}

// A file created, changed or deleted in the sandbox outside OUT, OUT.failed and OUT.incomplete.
std::string stray_change(const fs::path& out, const Snapshot& before, const Snapshot& after) {
  const std::string o = out.filename().string();
  const auto allowed = [&](const std::string& rel) {
    const std::string top = rel.substr(0, rel.find('/'));
    return top == o || top == o + ".failed" || top == o + ".incomplete";
  };
  for (const auto& [path, stamp] : after)
    if (!allowed(path) && (!before.contains(path) || before.at(path) != stamp)) return path;
  for (const auto& [path, stamp] : before)
    if (!allowed(path) && !after.contains(path)) return path;
  return "";
}

// The C++ and JSON libraries' own texts, which must never reach the user (issue 26): the
// message says what happened in words instead.
const char* const kLibraryTexts[] = {"json.exception", "max_size()", "_M_range_check", "vector::", "basic_string::",
                                     "bad_array_new_length"};

}  // namespace

std::string classify(const ProcessResult& r, const fs::path& out, const Snapshot& before, const Snapshot& after) {
  if (r.hung) return "hang";
  if (r.signal != 0) return "signal " + std::to_string(r.signal);
  if (!stray_change(out, before, after).empty()) return "file changed outside the output folder";
  for (const char* text : kLibraryTexts)
    if (r.err.find(text) != std::string::npos) return std::string("a library's text on stderr: ") + text;
  std::error_code ec;
  const bool staging_left = fs::exists(fs::symlink_status(out.string() + ".incomplete", ec));
  switch (r.exit_code) {
    case 0: {
      const std::string bad = check_folder(out);
      return bad.empty() ? "ok" : "exit 0: " + bad;
    }
    case 1:  // refused or failed: no folder under the final name, none in progress
      if (!one_error_line(r.err)) return "exit != 0 without a one-line error";
      if (fs::exists(fs::symlink_status(out, ec))) return "exit 1 with the output folder written";
      if (staging_left) return "exit 1 with the staging folder left behind";
      return "error";
    case 3: {  // complete, but claims failed
      if (!one_error_line(r.err)) return "exit != 0 without a one-line error";
      const std::string bad = check_folder(out);
      return bad.empty() ? "error" : "exit 3: " + bad;
    }
    default: return "exit " + std::to_string(r.exit_code);
  }
}

bool is_defect(const std::string& outcome) { return outcome != "ok" && outcome != "error"; }

}  // namespace dalembert::fuzz
