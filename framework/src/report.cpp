// report.md of a run folder, section by section, from the manifest alone.
#include <cstdio>
#include <dalembert/study/file_output.hpp>
#include <dalembert/study/report.hpp>
#include <set>
#include <sstream>

namespace fs = std::filesystem;
using nlohmann::json;

namespace dalembert {

namespace {

// A cell of a Markdown table: numbers to 6 significant digits, strings as they are, '|' escaped.
std::string cell(const json& v) {
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

const json& get(const json& j, const char* key) {
  static const json null;
  return j.is_object() && j.contains(key) ? j[key] : null;
}

void table_row(std::ostringstream& out, const std::vector<std::string>& cells) {
  out << "|";
  for (const auto& c : cells) out << " " << c << " |";
  out << "\n";
}

void table_head(std::ostringstream& out, const std::vector<std::string>& names) {
  table_row(out, names);
  table_row(out, std::vector<std::string>(names.size(), "---"));
}

void purpose(std::ostringstream& out, const json& m) {
  const json& st = get(m, "study");
  out << "# " << cell(get(st, "name")) << "\n\n";
  if (get(st, "description").is_string() && !st["description"].get<std::string>().empty())
    out << st["description"].get<std::string>() << "\n\n";
  out << "Kind: **" << cell(get(st, "kind")) << "**. Study file: `" << cell(get(m, "study_file")) << "`.  \n";
  out << "Verdict: **" << claims_verdict(m) << "**.\n\n";
}

// A sweep's study as its report shows it (the sweep's manifest holds cell 0's study): every place
// an axis sets reads "swept (AXIS)"; the Sweep section lists the values.
json shown_study(const json& st) {
  json shown = st;
  for (const auto& a : get(get(st, "sweep"), "axes"))
    for (const auto& ptr : get(a, "set")) {
      try {
        const json::json_pointer p(ptr.get<std::string>());
        if (shown.contains(p)) shown[p] = "swept (" + cell(get(a, "name")) + ")";
      } catch (const std::exception&) {  // a pointer the manifest does not hold: nothing to mark
      }
    }
  return shown;
}

// An integrator's declared order; a sweep's may differ from cell to cell.
std::string order_text(const json& u) {
  const json& orders = get(u, "declared_orders");
  if (!orders.is_array() || orders.size() < 2) return cell(get(get(u, "traits"), "order"));
  std::string s;
  for (const auto& o : orders) s += (s.empty() ? "" : " or ") + cell(o);
  return s + " (by cell)";
}

void setup(std::ostringstream& out, const json& st) {
  out << "## What ran\n\n";
  const json& sys = get(st, "system");
  if (!sys.is_null()) out << "System `" << cell(get(sys, "plugin")) << "` with parameters `" << get(sys, "params").dump() << "`.  \n";
  if (!get(st, "h").is_null()) out << "h = " << cell(get(st, "h")) << ", T = " << cell(get(st, "T"));
  if (!get(st, "record_every").is_null()) out << ", recording every " << cell(get(st, "record_every")) << " step(s)";
  if (get(st, "record_format") == "npy") out << " into NumPy `.npy` trajectory files";
  out << "\n\n";
  table_head(out, {"label", "integrator", "order", "parameters"});
  for (const auto& u : get(st, "integrators"))
    table_row(out, {cell(get(u, "label")), "`" + cell(get(u, "plugin")) + "`", order_text(u),
                    "`" + cell(get(u, "params")) + "`" + (u.contains("h") ? " (h = " + cell(u["h"]) + ")" : "")});
  out << "\n";
}

// The figures drawn: each study figure whose PNG the manifest indexes.
void figures(std::ostringstream& out, const json& m) {
  const json& wanted = get(get(m, "study"), "figures");
  if (!wanted.is_array() || wanted.empty()) return;
  out << "## Figures\n\n";
  std::set<std::string> drawn;
  for (const auto& f : get(m, "files"))
    if (get(f, "kind") == "figure") drawn.insert(get(f, "path").get<std::string>());
  for (const auto& f : wanted) {
    const std::string png = "figures/" + cell(get(f, "name")) + ".png";
    if (drawn.contains(png)) out << "![" << cell(get(f, "name")) << "](" << png << ")\n\n";
    else out << "* `" << cell(get(f, "name")) << "`: not drawn (" << cell(get(m, "figures_status")) << ")\n";
  }
  out << "\n";
}

void claims(std::ostringstream& out, const json& m) {
  out << "## Claims\n\n";
  const json& results = get(get(m, "claims"), "results");
  table_head(out, {"id", "source", "claim", "quantity", "value", "comparison", "verdict"});
  for (const auto& r : results) {
    const std::string why = get(r, "reason").is_string() && !r["reason"].get<std::string>().empty() ? ": " + cell(r["reason"]) : "";
    table_row(out, {cell(get(r, "id")), cell(get(r, "source")), cell(get(r, "text")), cell(get(r, "quantity")),
                    cell(get(r, "value")), cell(get(r, "comparison")), "**" + cell(get(r, "verdict")) + "**" + why});
  }
  if (!results.is_array() || results.empty()) out << "\nno checked claims\n";
  out << "\n";
}

// One row per task that is not an ensemble member: label, h, steps, and its summaries.
void tasks(std::ostringstream& out, const json& m) {
  const json& list = get(m, "tasks");
  if (!list.is_array() || list.empty() || get(get(m, "study"), "kind") == "ensemble") return;
  out << "## Tasks\n\n";
  table_head(out, {"label", "h", "steps", "summary"});
  for (const auto& t : list) {
    std::string summary = get(t, "ok") == false ? "failed: " + cell(get(t, "error")) : "";
    for (const auto& [k, v] : get(t, "summary").items()) summary += (summary.empty() ? "" : ", ") + k + " = " + cell(v);
    table_row(out, {cell(get(t, "label")), cell(get(t, "h")), cell(get(t, "steps")), summary});
  }
  out << "\n";
}

void convergence(std::ostringstream& out, const json& m) {
  const json& conv = get(m, "convergence");
  if (!conv.is_array()) return;
  out << "## Convergence\n\n";
  table_head(out, {"label", "declared order", "fitted order", "successive orders", "status", "agrees"});
  for (const auto& c : conv) {
    std::string succ;
    for (const auto& r : get(c, "successive_orders")) succ += (succ.empty() ? "" : " ") + cell(r);
    table_row(out, {cell(get(c, "label")), cell(get(c, "declared_order")), cell(get(c, "fitted_order")), succ,
                    cell(get(c, "status")), get(c, "agrees") == true ? "yes" : "**no**"});
  }
  out << "\n";
}

void ensemble(std::ostringstream& out, const json& m) {
  const json& ens = get(m, "ensemble");
  if (!ens.is_array()) return;
  out << "## Ensemble\n\n";
  table_head(out, {"label", "members", "summary", "min", "mean", "max"});
  for (const auto& e : ens)
    for (const auto& [k, v] : get(e, "summary").items())
      table_row(out, {cell(get(e, "label")), cell(get(e, "members")), k, cell(get(v, "min")), cell(get(v, "mean")),
                      cell(get(v, "max"))});
  out << "\n";
}

// A sweep: one row per cell with its axis values, linking the cell's own report.
void sweep(std::ostringstream& out, const json& m) {
  const json& cells = get(m, "cells");
  if (!cells.is_array()) return;
  out << "## Sweep (" << cell(get(m, "failed_cells")) << " failed cells; every metric in `sweep.csv`)\n\n";
  std::vector<std::string> head = {"cell"};
  for (const auto& a : get(get(get(m, "study"), "sweep"), "axes")) head.push_back(cell(get(a, "name")));
  head.push_back("ok");
  table_head(out, head);
  for (const auto& c : cells) {
    std::vector<std::string> row = {"[" + cell(get(c, "cell")) + "](" + cell(get(c, "folder")) + "/report.md)"};
    for (std::size_t a = 1; a + 1 < head.size(); ++a) row.push_back(cell(get(c, head[a].c_str())));
    row.push_back(get(c, "ok") == true ? "yes" : "**no**: " + cell(get(c, "error")));
    table_row(out, row);
  }
  out << "\n";
}

void provenance(std::ostringstream& out, const json& m) {
  const json& d = get(m, "dalembert");
  out << "## Provenance\n\n";
  // Timings, threads and ranks are in manifest.json ("wall_time_s", "execution"), not here: this
  // report is the same for any number of ranks and threads, and for a resumed run.
  out << "dalembert " << cell(get(d, "version")) << ", revision `" << cell(get(d, "revision"))
      << "`; wall time and execution (ranks, threads, tasks resumed) in `manifest.json`.\n\n";
  if (!get(d, "sha256").is_null())
    out << "libdalembert `" << cell(get(d, "library")) << "`, SHA-256 `" << cell(get(d, "sha256")) << "`.\n\n";
  if (!get(m, "plugins").is_array()) return;
  table_head(out, {"plugin", "kind", "version", "file", "SHA-256"});
  for (const auto& p : m["plugins"])
    table_row(out, {"`" + cell(get(p, "name")) + "`", cell(get(p, "kind")), cell(get(p, "version")),
                    "`" + cell(get(p, "file")) + "`", "`" + cell(get(p, "sha256")) + "`"});
  out << "\n";
}

}  // namespace

std::string claims_verdict(const json& manifest) {
  const json& c = get(manifest, "claims");
  if (!get(c, "results").is_array() || c["results"].empty()) return "no checked claims";
  const long passed = get(c, "passed").is_number() ? c["passed"].get<long>() : 0;
  const long failed = get(c, "failed").is_number() ? c["failed"].get<long>() : 0;
  if (failed == 0) return std::to_string(passed) + " claims passed";
  return std::to_string(failed) + " of " + std::to_string(passed + failed) + " claims FAILED";
}

std::string report_markdown(const json& manifest) {
  std::ostringstream out;
  purpose(out, manifest);
  const json& st = get(manifest, "study");
  setup(out, shown_study(st));
  figures(out, manifest);
  claims(out, manifest);
  tasks(out, manifest);
  convergence(out, manifest);
  ensemble(out, manifest);
  sweep(out, manifest);
  provenance(out, manifest);
  return out.str();
}

void write_report(json& manifest, const fs::path& staging) {
  write_file_atomically(staging / "report.md", report_markdown(manifest));
  manifest["files"].push_back({{"path", "report.md"}, {"kind", "report"}});
}

}  // namespace dalembert
