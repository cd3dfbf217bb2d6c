// Checked claims (issue 15): parsing before the run, evaluation after it (study/claims.hpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <dalembert/core/error_text.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/parameters.hpp>
#include <dalembert/study/claims.hpp>
#include <dalembert/study/csv_writer.hpp>
#include <dalembert/study/json_input.hpp>
#include <dalembert/study/npy_reader.hpp>
#include <fstream>
#include <limits>
#include <map>
#include <numeric>
#include <sstream>

namespace dalembert {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const std::vector<std::string> kStats = {"max", "min", "max_abs", "spread", "mean", "initial", "final"};

std::string num(double x) { return number_text(x, "%.12g"); }

// ----- parsing ----------------------------------------------------------------------------------

void check_label(const JsonCursor& c, const std::vector<std::string>& labels) {
  const std::string l = c.string();
  if (std::find(labels.begin(), labels.end(), l) != labels.end()) return;
  c.fail("no integrator has this label (labels: " + joined(labels) + ")");
}

void check_stat(const JsonCursor& q) {
  if (!q.has("stat")) return;
  const std::string s = q["stat"].string();
  if (std::find(kStats.begin(), kStats.end(), s) == kStats.end())
    q["stat"].fail("unknown stat: use max, min, max_abs, spread (max - min), mean, initial or final");
}

void check_window(const JsonCursor& q) {
  for (const char* k : {"from", "to", "at"})
    if (q.has(k)) (void)q[k].number();
}

/// The kind of quantity a study of `kind` can claim, with its keys checked.
void check_quantity(const JsonCursor& q, const std::string& kind, const std::vector<std::string>& labels) {
  static const std::vector<std::pair<std::string, std::string>> kinds = {
      {"summary", "trajectory"}, {"fitted_order", "convergence"}, {"error", "convergence"},
      {"column", "trajectory"},  {"ensemble", "ensemble"},        {"ensemble_summary", "ensemble"},
      {"sweep", "sweep"},        {"manifest", ""},                {"ratio", ""}};
  std::string which;
  for (const auto& [k, study_kind] : kinds)
    if (q.has(k)) {
      if (!which.empty()) q.fail("a quantity has exactly one of its kinds; found \"" + which + "\" and \"" + k + "\"");
      which = k;
      const bool ladder = study_kind == "convergence" && kind == "work_precision";  // a convergence table too
      if (!study_kind.empty() && study_kind != kind && !ladder)
        q[k].fail("a \"" + k + "\" quantity belongs to a " + study_kind + " study; this one is a " + kind + " study");
    }
  if (which.empty())
    q.fail("a quantity needs one of summary, fitted_order, error, column, ensemble, ensemble_summary, sweep, manifest, ratio");
  if (which == "ratio") {
    const JsonCursor r = q["ratio"];
    if (r.size() != 2) r.fail("a ratio is [numerator, denominator]");
    q.allow_keys({"ratio"});
    check_quantity(r.at(0), kind, labels);
    check_quantity(r.at(1), kind, labels);
    return;
  }
  if (which == "manifest") {
    q.allow_keys({"manifest"});
    const std::string p = q["manifest"].string();
    if (p.empty() || p[0] != '/') q["manifest"].fail("a JSON pointer starts with '/'");
    return;
  }
  if (which == "fitted_order") {
    q.allow_keys({"fitted_order"});
    check_label(q["fitted_order"], labels);
    return;
  }
  (void)q[which].string();
  if (which == "summary" || which == "column") check_label(q["task"], labels);
  else check_label(q["label"], labels);
  q.allow_keys({which, "task", "label", "stat", "from", "to", "at", "h", "where"});
  check_stat(q);
  check_window(q);
  if (q.has("h")) (void)q["h"].number();
  if (q.has("where") && !q["where"].json().is_object()) q["where"].fail("\"where\" is an object {axis: value}");
}

void parse_comparison(const JsonCursor& c, ClaimCheck& out) {
  int n = 0;
  for (const char* op : {"<", "<=", ">", ">="})
    if (c.has(op)) out.op = op, out.a = c[op].number(), ++n;
  if (c.has("in")) {
    const auto r = c["in"].numbers();
    if (r.size() != 2 || !(r[0] <= r[1])) c["in"].fail("\"in\" is a range [lo, hi] with lo <= hi");
    out.op = "in", out.a = r[0], out.b = r[1], ++n;
  }
  for (const char* op : {"within", "within_rel"})
    if (c.has(op)) {
      out.op = op, out.a = c[op].number(), out.b = c["of"].number(), ++n;
      if (!(out.a >= 0)) c[op].fail("a tolerance is >= 0");
    }
  if (n != 1) c.fail("a check has exactly one comparison: <, <=, >, >=, in, within (with of), within_rel (with of)");
}

// ----- evaluation -------------------------------------------------------------------------------

/// A numeric CSV file as columns by name (text cells read as NaN; label columns are kept apart).
struct Table {
  std::vector<std::string> names;
  std::vector<std::vector<double>> cols;
  std::vector<std::string> labels;  // the first column's text (sweep.csv: the integrator label)
  const std::vector<double>& col(const std::string& n, const std::string& file) const {
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == n) return cols[i];
    throw Error("claims: " + file + " has no column \"" + n + "\"");
  }
};

Table read_table(const fs::path& file) {
  if (file.extension() == ".npy") {  // a trajectory written with "record_format": "npy"
    NpyTable npy = read_npy(file);
    return {std::move(npy.names), std::move(npy.columns), {}};
  }
  std::ifstream in(file);
  if (!in) throw Error("claims: cannot read " + file.string());
  Table t;
  std::string line, cell;
  std::getline(in, line);
  for (std::stringstream ss(line); std::getline(ss, cell, ',');) t.names.push_back(cell);
  t.cols.resize(t.names.size());
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    for (std::size_t i = 0; std::getline(ss, cell, ',') && i < t.names.size(); ++i) {
      char* end = nullptr;
      const double v = std::strtod(cell.c_str(), &end);
      t.cols[i].push_back(end != cell.c_str() ? v : kNaN);
      if (i == 0) t.labels.push_back(cell);
    }
  }
  return t;
}

class Evaluator {
 public:
  Evaluator(const json& manifest, fs::path folder) : m_(manifest), folder_(std::move(folder)) {}

  /// The quantity's value and a description of it.
  double value(const json& q, std::string& what) {
    if (q.contains("ratio")) {
      std::string a, b;
      const double x = value(q["ratio"][0], a), y = value(q["ratio"][1], b);
      what = "(" + a + ") / (" + b + ")";
      return x / y;
    }
    if (q.contains("manifest")) return manifest_number(q["manifest"].get<std::string>(), what);
    if (q.contains("fitted_order")) return fitted_order(q["fitted_order"].get<std::string>(), what);
    if (q.contains("summary")) return task_summary(q, what);
    if (q.contains("error")) return convergence_entry(q, what);
    if (q.contains("column")) return trajectory_column(q, what);
    if (q.contains("ensemble")) return ensemble_column(q, what);
    if (q.contains("ensemble_summary")) return ensemble_summary(q, what);
    return sweep_metric(q, what);
  }

 private:
  static double number_of(const json& j) { return j.is_number() ? j.get<double>() : kNaN; }

  double manifest_number(const std::string& pointer, std::string& what) const {
    what = "manifest " + pointer;
    const json::json_pointer p(pointer);
    return m_.contains(p) ? number_of(m_[p]) : kNaN;
  }
  double fitted_order(const std::string& label, std::string& what) const {
    what = "fitted order of " + label;
    for (const auto& c : m_.value("convergence", json::array()))
      if (c["label"] == label) return number_of(c["fitted_order"]);
    return kNaN;
  }
  double task_summary(const json& q, std::string& what) const {
    const std::string name = q["summary"], label = q["task"];
    what = "summary " + name + " of " + label;
    for (const auto& t : m_["tasks"])
      if (t["label"] == label && t.contains("summary")) return number_of(t["summary"].value(name, json()));
    return kNaN;
  }
  double convergence_entry(const json& q, std::string& what) const {
    const std::string name = q["error"], label = q["label"];
    std::vector<double> v;
    for (const auto& c : m_.value("convergence", json::array()))
      if (c["label"] == label)
        for (const auto& r : c["errors"])
          if (!q.contains("h") || std::abs(r["h"].get<double>() - q["h"].get<double>()) <= 1e-12 * std::abs(r["h"].get<double>()))
            v.push_back(number_of(r.value(name, json())));
    what = name + " of " + label + (q.contains("h") ? " at h = " + num(q["h"].get<double>()) : "");
    return reduce(v, {}, q, what);
  }
  double trajectory_column(const json& q, std::string& what) {
    const std::string name = q["column"], label = q["task"];
    std::string file;
    for (const auto& t : m_["tasks"])
      if (t["label"] == label && t.contains("file")) file = t["file"];
    if (file.empty()) throw Error("claims: task " + label + " wrote no trajectory file");
    const Table& t = table(file);
    what = name + " of " + label;
    return reduce(t.col(name, file), t.col("t", file), q, what);
  }
  double ensemble_column(const json& q, std::string& what) {
    const std::string name = q["ensemble"], label = q["label"], file = "ensemble_stats_" + label + ".csv";
    const Table& t = table(file);
    what = name + " of the ensemble " + label;
    return reduce(t.col(name, file), t.col("t", file), q, what);
  }
  double ensemble_summary(const json& q, std::string& what) const {
    const std::string name = q["ensemble_summary"], label = q["label"], stat = q.value("stat", "mean");
    what = stat + " over the members of summary " + name + " of " + label;
    for (const auto& e : m_.value("ensemble", json::array()))
      if (e["label"] == label && e["summary"].contains(name)) return number_of(e["summary"][name].value(stat, json()));
    return kNaN;
  }
  double sweep_metric(const json& q, std::string& what) {
    const std::string name = q["sweep"], label = q["label"];
    const Table& t = table("sweep.csv");
    std::vector<double> v;
    const auto& col = t.col(name, "sweep.csv");
    const json where = q.value("where", json::object());  // named: items() of a temporary would dangle
    for (std::size_t i = 0; i < col.size(); ++i) {
      bool match = t.labels[i] == label;
      for (const auto& [axis, value] : where.items()) {
        const double x = t.col(axis, "sweep.csv")[i], want = value.get<double>();
        match = match && std::abs(x - want) <= 1e-12 * std::max(1.0, std::abs(want));
      }
      if (match) v.push_back(col[i]);
    }
    what = name + " of " + label + (q.contains("where") ? " at " + q["where"].dump() : "");
    return reduce(v, {}, q, what);
  }

  /// The rows of `v` (times `t`, if any) in the window of q, reduced by its stat.
  static double reduce(const std::vector<double>& v, const std::vector<double>& t, const json& q, std::string& what) {
    std::vector<double> sel;
    const double from = q.value("from", -std::numeric_limits<double>::infinity());
    const double to = q.value("to", std::numeric_limits<double>::infinity());
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (t.empty()) { sel.push_back(v[i]); continue; }
      if (q.contains("at") ? std::abs(t[i] - q["at"].get<double>()) <= 1e-9 * std::max(1.0, std::abs(t[i]))
                           : t[i] >= from && t[i] <= to)
        sel.push_back(v[i]);
    }
    if (!t.empty() && q.contains("at")) what += " at t = " + num(q["at"].get<double>());
    if (!t.empty() && (q.contains("from") || q.contains("to"))) what += " over t in [" + num(from) + ", " + num(to) + "]";
    if (sel.empty()) return kNaN;
    const std::string stat = q.value("stat", "final");
    if (sel.size() > 1 || q.contains("stat")) what = stat + " of " + what;
    return statistic(stat, sel);
  }

  /// One of kStats over the (non-empty) selected rows.
  static double statistic(const std::string& stat, const std::vector<double>& x) {
    if (stat == "initial") return x.front();
    if (stat == "final") return x.back();
    if (std::any_of(x.begin(), x.end(), [](double v) { return std::isnan(v); }))
      return kNaN;  // a claim over data that hold a NaN does not hold
    const auto [lo, hi] = std::minmax_element(x.begin(), x.end());
    if (stat == "min") return *lo;
    if (stat == "max") return *hi;
    if (stat == "spread") return *hi - *lo;
    if (stat == "max_abs") return std::max(std::abs(*lo), std::abs(*hi));
    return std::accumulate(x.begin(), x.end(), 0.0) / double(x.size());  // mean
  }

  const Table& table(const std::string& file) {
    auto it = tables_.find(file);
    if (it == tables_.end()) it = tables_.emplace(file, read_table(folder_ / file)).first;
    return it->second;
  }

  const json& m_;
  fs::path folder_;
  std::map<std::string, Table> tables_;
};

std::string comparison_text(const ClaimCheck& c) {
  if (c.op == "in") return "in [" + num(c.a) + ", " + num(c.b) + "]";
  if (c.op == "within") return "within " + num(c.a) + " of " + num(c.b);
  if (c.op == "within_rel") return "within " + num(c.a) + " (relative) of " + num(c.b);
  return c.op + " " + num(c.a);
}

bool holds(const ClaimCheck& c, double x) {
  if (std::isnan(x)) return false;
  if (c.op == "<") return x < c.a;
  if (c.op == "<=") return x <= c.a;
  if (c.op == ">") return x > c.a;
  if (c.op == ">=") return x >= c.a;
  if (c.op == "in") return x >= c.a && x <= c.b;
  if (c.op == "within") return std::abs(x - c.b) <= c.a;
  return std::abs(x - c.b) <= c.a * std::abs(c.b);
}

/// A convergence study's order audit, one claim per integrator.
std::vector<json> order_audit(const json& manifest) {
  std::vector<json> out;
  for (const auto& c : manifest.value("convergence", json::array())) {
    const bool ok = c["agrees"].get<bool>();
    const std::string fitted = c["fitted_order"].is_null() ? c["status"].get<std::string>() : num(c["fitted_order"].get<double>());
    out.push_back({{"id", "order " + c["label"].get<std::string>()},
                   {"source", "the integrator's declared order (traits)"},
                   {"text", "fitted order agrees with the declared order"},
                   {"quantity", "fitted order of " + c["label"].get<std::string>() + " (" + fitted + ")"},
                   {"value", c["fitted_order"].is_null() ? kNaN : c["fitted_order"].get<double>()},
                   {"comparison", "within the study's order_tolerance of " + std::to_string(c["declared_order"].get<int>()) +
                                      (c["status"] == "round-off" ? " (or at round-off)" : "")},
                   {"verdict", ok ? "pass" : "FAIL"}});
  }
  return out;
}

void write_claims_csv(const fs::path& file, const json& results) {
  CsvWriter csv(file, {"id", "source", "text", "quantity", "comparison", "verdict", "value"});
  for (const auto& r : results)
    csv.row({r["id"].get<std::string>(), r["source"].get<std::string>(), r["text"].get<std::string>(),
             r["quantity"].get<std::string>(), r["comparison"].get<std::string>(), r["verdict"].get<std::string>()},
            {r["value"].is_number() ? r["value"].get<double>() : kNaN});
  csv.close();
}

}  // namespace

std::vector<ClaimCheck> parse_claims(const JsonCursor& root, const std::string& kind, const std::vector<std::string>& labels) {
  std::vector<ClaimCheck> out;
  if (!root.has("claims")) return out;
  const JsonCursor claims = root["claims"];
  if (!claims.json().is_object()) claims.fail("\"claims\" is an object: {\"source\": ..., \"checks\": [...]}");
  if (!claims.has("checks")) return out;
  const std::string source = claims.has("source") ? claims["source"].string() : "";
  const JsonCursor checks = claims["checks"];
  for (std::size_t i = 0; i < checks.size(); ++i) {
    const JsonCursor c = checks.at(i);
    c.allow_keys({"id", "source", "text", "quantity", "<", "<=", ">", ">=", "in", "within", "within_rel", "of"});
    ClaimCheck k;
    k.id = c.has("id") ? c["id"].string() : std::to_string(i + 1);
    for (const auto& other : out)
      if (other.id == k.id) c["id"].fail("duplicate claim id");
    k.source = c.has("source") ? c["source"].string() : source;
    k.text = c.has("text") ? c["text"].string() : "";
    check_quantity(c["quantity"], kind, labels);
    k.quantity = c["quantity"].json();
    parse_comparison(c, k);
    k.where = c.where();
    out.push_back(std::move(k));
  }
  return out;
}

json evaluate_claims(const std::vector<ClaimCheck>& checks, const json& manifest, const fs::path& folder) {
  json results = json::array();
  for (auto& r : order_audit(manifest)) results.push_back(std::move(r));
  Evaluator ev(manifest, folder);
  for (const auto& c : checks) {
    std::string what;
    double x = kNaN;
    std::string error;
    try {
      x = ev.value(c.quantity, what);
    } catch (const std::exception& e) {  // a column or file the run did not write: the claim fails
      error = e.what();
    }
    json r = {{"id", c.id}, {"source", c.source}, {"text", c.text}, {"quantity", error.empty() ? what : error},
              {"value", std::isfinite(x) ? json(x) : json(nullptr)}, {"comparison", comparison_text(c)},
              {"verdict", holds(c, x) ? "pass" : "FAIL"}};
    results.push_back(std::move(r));
  }
  long failed = 0;
  for (const auto& r : results) failed += r["verdict"] == "FAIL";
  write_claims_csv(folder / "claims.csv", results);
  return {{"passed", long(results.size()) - failed}, {"failed", failed}, {"results", results}};
}

void print_claims(const std::string& study, const json& claims, bool verbose) {
  const auto& results = claims["results"];
  if (verbose && !results.empty()) {
    std::printf("  %-26s %-8s %14s  %s\n", "claim", "verdict", "value", "comparison");
    for (const auto& r : results) {
      const std::string v = r["value"].is_number() ? num(r["value"].get<double>()) : "n/a";
      std::printf("  %-26s %-8s %14s  %s  [%s]\n", r["id"].get<std::string>().c_str(), r["verdict"].get<std::string>().c_str(),
                  v.c_str(), r["comparison"].get<std::string>().c_str(), r["quantity"].get<std::string>().c_str());
    }
  }
  const long failed = claims["failed"].get<long>();
  if (failed > 0) {
    std::vector<std::string> ids;
    for (const auto& r : results)
      if (r["verdict"] == "FAIL") ids.push_back(r["id"].get<std::string>());
    std::fprintf(stderr, "warning: %s: claims: %ld failed (%s); see claims.csv\n", study.c_str(), failed,
                 joined(ids).c_str());
  }
}

}  // namespace dalembert
