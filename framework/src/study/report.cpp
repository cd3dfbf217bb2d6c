// report.md of a run folder, section by section, from the manifest alone.
#include <cstdio>
#include <dalembert/study/file_output.hpp>
#include <dalembert/study/report.hpp>
#include <dalembert/study/study_kind.hpp>
#include <dalembert/study/table_format.hpp>
#include <set>
#include <sstream>

namespace fs = std::filesystem;
using nlohmann::json;

namespace dalembert {

// A cell of a Markdown table: numbers to 6 significant digits, strings as they are, '|' escaped.
std::string report_cell(const json& v) {
  std::string s;
  if (v.is_number_float()) {
    char b[40];
    std::snprintf(b, sizeof b, "%.6g", v.get<double>());
    s = b;
  } else if (v.is_string()) s = v.get<std::string>();
  else if (v.is_null()) s = "—";
  else s = v.dump();
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : c == '\n' ? std::string(" ") : std::string(1, c);
  return out;
}

const json& report_get(const json& j, const char* key) {
  static const json null;
  return j.is_object() && j.contains(key) ? j[key] : null;
}

void report_table_row(std::ostream& out, const std::vector<std::string>& cells) {
  out << "|";
  for (const auto& c : cells) out << " " << c << " |";
  out << "\n";
}

void report_table_head(std::ostream& out, const std::vector<std::string>& names) {
  report_table_row(out, names);
  report_table_row(out, std::vector<std::string>(names.size(), "---"));
}

// One row per task that is not an ensemble member: label, h, steps, and its summaries.
void report_tasks(std::ostream& out, const json& m) {
  const json& list = report_get(m, "tasks");
  if (!list.is_array() || list.empty()) return;
  out << "## Tasks\n\n";
  report_table_head(out, {"label", "h", "steps", "summary"});
  for (const auto& t : list) {
    std::string summary = report_get(t, "ok") == false ? "failed: " + report_cell(report_get(t, "error")) : "";
    for (const auto& [k, v] : report_get(t, "summary").items()) summary += (summary.empty() ? "" : ", ") + k + " = " + report_cell(v);
    report_table_row(out, {report_cell(report_get(t, "label")), report_cell(report_get(t, "h")), report_cell(report_get(t, "steps")), summary});
  }
  out << "\n";
}

namespace {

void purpose(std::ostringstream& out, const json& m) {
  const json& st = report_get(m, "study");
  out << "# " << report_cell(report_get(st, "name")) << "\n\n";
  if (report_get(st, "description").is_string() && !st["description"].get<std::string>().empty())
    out << st["description"].get<std::string>() << "\n\n";
  out << "Kind: **" << report_cell(report_get(st, "kind")) << "**. Study file: `" << report_cell(report_get(m, "study_file")) << "`.  \n";
  out << "Verdict: **" << claims_verdict(m) << "**.\n\n";
}

// A sweep's study as its report shows it (the sweep's manifest holds cell 0's study): every place
// an axis sets reads "swept (AXIS)"; the Sweep section lists the values.
json shown_study(const json& st) {
  json shown = st;
  for (const auto& a : report_get(report_get(st, "sweep"), "axes"))
    for (const auto& ptr : report_get(a, "set")) {
      try {
        const json::json_pointer p(ptr.get<std::string>());
        if (shown.contains(p)) shown[p] = "swept (" + report_cell(report_get(a, "name")) + ")";
      } catch (const std::exception&) {  // a pointer the manifest does not hold: nothing to mark
      }
    }
  return shown;
}

// An integrator's declared order; a sweep's may differ from cell to cell.
std::string order_text(const json& u) {
  const json& orders = report_get(u, "declared_orders");
  if (!orders.is_array() || orders.size() < 2) return report_cell(report_get(report_get(u, "traits"), "order"));
  std::string s;
  for (const auto& o : orders) s += (s.empty() ? "" : " or ") + report_cell(o);
  return s + " (by cell)";
}

void setup(std::ostringstream& out, const json& st) {
  out << "## What ran\n\n";
  const json& sys = report_get(st, "system");
  if (!sys.is_null()) out << "System `" << report_cell(report_get(sys, "plugin")) << "` with parameters `" << report_get(sys, "params").dump() << "`.  \n";
  if (!report_get(st, "h").is_null()) out << "h = " << report_cell(report_get(st, "h")) << ", T = " << report_cell(report_get(st, "T"));
  if (!report_get(st, "record_every").is_null()) out << ", recording every " << report_cell(report_get(st, "record_every")) << " step(s)";
  if (report_get(st, "record_format").is_string() && st["record_format"] != "csv")  // csv: as before
    out << " into " << table_format(st["record_format"].get<std::string>()).report_name() << " trajectory files";
  out << "\n\n";
  if (!report_get(st, "integrators").is_array() || st["integrators"].empty()) return;  // a kind that runs none
  report_table_head(out, {"label", "integrator", "order", "parameters"});
  for (const auto& u : report_get(st, "integrators"))
    report_table_row(out, {report_cell(report_get(u, "label")), "`" + report_cell(report_get(u, "plugin")) + "`", order_text(u),
                    "`" + report_cell(report_get(u, "params")) + "`" + (u.contains("h") ? " (h = " + report_cell(u["h"]) + ")" : "")});
  out << "\n";
}

// The figures drawn: each study figure whose PNG the manifest indexes.
void figures(std::ostringstream& out, const json& m) {
  const json& wanted = report_get(report_get(m, "study"), "figures");
  if (!wanted.is_array() || wanted.empty()) return;
  out << "## Figures\n\n";
  std::set<std::string> drawn;
  for (const auto& f : report_get(m, "files"))
    if (report_get(f, "kind") == "figure") drawn.insert(report_get(f, "path").get<std::string>());
  for (const auto& f : wanted) {
    const std::string png = "figures/" + report_cell(report_get(f, "name")) + ".png";
    if (drawn.contains(png)) out << "![" << report_cell(report_get(f, "name")) << "](" << png << ")\n\n";
    else out << "* `" << report_cell(report_get(f, "name")) << "`: not drawn (" << report_cell(report_get(m, "figures_status")) << ")\n";
  }
  out << "\n";
}

void claims(std::ostringstream& out, const json& m) {
  out << "## Claims\n\n";
  const json& results = report_get(report_get(m, "claims"), "results");
  report_table_head(out, {"id", "source", "claim", "quantity", "value", "comparison", "verdict"});
  for (const auto& r : results) {
    const std::string why = report_get(r, "reason").is_string() && !r["reason"].get<std::string>().empty() ? ": " + report_cell(r["reason"]) : "";
    report_table_row(out, {report_cell(report_get(r, "id")), report_cell(report_get(r, "source")), report_cell(report_get(r, "text")), report_cell(report_get(r, "quantity")),
                    report_cell(report_get(r, "value")), report_cell(report_get(r, "comparison")), "**" + report_cell(report_get(r, "verdict")) + "**" + why});
  }
  if (!results.is_array() || results.empty()) out << "\nno checked claims\n";
  out << "\n";
}





void provenance(std::ostringstream& out, const json& m) {
  const json& d = report_get(m, "dalembert");
  out << "## Provenance\n\n";
  // Timings, threads and ranks are in manifest.json ("wall_time_s", "execution"), not here: this
  // report is the same for any number of ranks and threads, and for a resumed run.
  out << "dalembert " << report_cell(report_get(d, "version")) << ", revision `" << report_cell(report_get(d, "revision"))
      << "`; wall time and execution (ranks, threads, tasks resumed) in `manifest.json`.\n\n";
  if (!report_get(d, "sha256").is_null())
    out << "libdalembert `" << report_cell(report_get(d, "library")) << "`, SHA-256 `" << report_cell(report_get(d, "sha256")) << "`.\n\n";
  if (!report_get(m, "plugins").is_array()) return;
  report_table_head(out, {"plugin", "kind", "version", "file", "SHA-256"});
  for (const auto& p : m["plugins"])
    report_table_row(out, {"`" + report_cell(report_get(p, "name")) + "`", report_cell(report_get(p, "kind")), report_cell(report_get(p, "version")),
                    "`" + report_cell(report_get(p, "file")) + "`", "`" + report_cell(report_get(p, "sha256")) + "`"});
  out << "\n";
}

}  // namespace

std::string claims_verdict(const json& manifest) {
  const json& c = report_get(manifest, "claims");
  if (!report_get(c, "results").is_array() || c["results"].empty()) return "no checked claims";
  const long passed = report_get(c, "passed").is_number() ? c["passed"].get<long>() : 0;
  const long failed = report_get(c, "failed").is_number() ? c["failed"].get<long>() : 0;
  if (failed == 0) return std::to_string(passed) + " claims passed";
  return std::to_string(failed) + " of " + std::to_string(passed + failed) + " claims FAILED";
}

std::string report_markdown(const json& manifest) {
  std::ostringstream out;
  purpose(out, manifest);
  const json& st = report_get(manifest, "study");
  setup(out, shown_study(st));
  figures(out, manifest);
  claims(out, manifest);
  // The kind's sections; a manifest of a kind this build does not know: its task table.
  const StudyKind* kind = report_get(st, "kind").is_string() ? find_study_kind(st["kind"].get<std::string>()) : nullptr;
  if (kind) kind->report(out, manifest);
  else report_tasks(out, manifest);
  provenance(out, manifest);
  return out.str();
}

void write_report(json& manifest, const fs::path& staging) {
  write_file_atomically(staging / "report.md", report_markdown(manifest));
  manifest["files"].push_back({{"path", "report.md"}, {"kind", "report"}});
}

}  // namespace dalembert
