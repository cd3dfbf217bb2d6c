// Checked claims (issue 15): parsing before the run, evaluation after it, with the reason a claim
// failed (issue 26; study/claims.hpp). What a claim names is checked against the plan in claim_targets.cpp.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <dalembert/core/error_text.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/parameters.hpp>
#include <dalembert/study/claims.hpp>
#include <dalembert/study/csv_writer.hpp>
#include <dalembert/study/ensemble_statistics.hpp>
#include <dalembert/core/json_input.hpp>
#include <dalembert/study/table_format.hpp>
#include <dalembert/study/study_kind.hpp>
#include <fstream>
#include <limits>
#include <map>
#include <numeric>
#include <sstream>

namespace dalembert {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// A claim's id, source and text: one line each (they are printed in one-line warnings, the report's
// table rows and claims.csv), so no control character.
std::string one_line_text(const JsonCursor& c) {
  std::string s = c.string();
  for (unsigned char ch : s)
    if (ch < 0x20 || ch == 0x7f) c.fail("a claim's id, source and text are one line each (no control character)");
  return s;
}

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

// The keys each kind of quantity takes besides its own: a time window ("from", "to", "at") only
// where there are times, "h" only in the convergence table, "where" only in sweep.csv.
const std::vector<std::pair<std::string, std::vector<std::string>>>& quantity_keys() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> keys = {
      {"summary", {"task"}},
      {"column", {"task", "stat", "from", "to", "at"}},
      {"error", {"label", "h", "stat"}},
      {"ensemble", {"label", "stat", "from", "to", "at"}},
      {"ensemble_summary", {"label", "stat"}},
      {"sweep", {"label", "where", "stat"}}};
  return keys;
}

void check_keys(const JsonCursor& q, const std::string& which) {
  std::vector<std::string> allowed;
  for (const auto& [kind, keys] : quantity_keys())
    if (kind == which) allowed = keys;
  for (const char* k : {"task", "label", "stat", "from", "to", "at", "h", "where"})
    if (q.has(k) && std::find(allowed.begin(), allowed.end(), k) == allowed.end())
      q[k].fail("a \"" + which + "\" quantity takes no \"" + k + "\"; it takes " + joined(allowed));
  allowed.insert(allowed.begin(), which);
  q.allow_keys(allowed);
}

void check_window(const JsonCursor& q) {
  for (const char* k : {"from", "to", "at"})
    if (q.has(k)) (void)q[k].number();
  if (q.has("at") && (q.has("from") || q.has("to")))
    q["at"].fail("a quantity is taken at one time (\"at\") or over a window (\"from\", \"to\"), not both");
  if (q.has("from") && q.has("to") && !(q["from"].number() <= q["to"].number()))
    q["to"].fail("the window is empty: \"to\" is before \"from\" = " + num(q["from"].number()));
}

void check_pointer(const JsonCursor& c) {
  const std::string p = c.string();
  if (p.empty() || p[0] != '/') c.fail("a JSON pointer starts with '/'");
  for (std::size_t i = 0; i < p.size(); ++i)
    if (p[i] == '~' && (i + 1 == p.size() || (p[i + 1] != '0' && p[i + 1] != '1')))
      c.fail("not a JSON pointer: '~' is followed by 0 ('~') or 1 ('/')");
}

// The kind that offers quantity `q` (the first by name; a quantity only some kinds offer).
std::string kind_offering(const std::string& q) {
  for (const StudyKind* k : study_kinds()) {
    const auto offered = k->claim_quantities();
    if (std::find(offered.begin(), offered.end(), q) != offered.end()) return k->name();
  }
  return "";
}

/// The kind of quantity a study of `kind` can claim (its claim_quantities(); "manifest" and
/// "ratio" in every kind), with its keys checked. What it names — a column, a summary, a step
/// size, an axis value — is checked once the study is planned (claim_targets.cpp).
// The quantities claims.cpp evaluates itself; any other a kind offers is the kind's own.
const std::vector<std::string>& builtin_quantities() {
  static const std::vector<std::string> kinds = {"summary", "fitted_order", "error", "column", "ensemble",
                                                 "ensemble_summary", "sweep", "manifest", "ratio"};
  return kinds;
}

bool builtin(const std::string& k) {
  return std::find(builtin_quantities().begin(), builtin_quantities().end(), k) != builtin_quantities().end();
}

// Every quantity kind: the built-in ones, then those the study kinds add.
std::vector<std::string> all_quantities() {
  std::vector<std::string> all = builtin_quantities();
  for (const StudyKind* k : study_kinds())
    for (const auto& q : k->claim_quantities())
      if (std::find(all.begin(), all.end(), q) == all.end()) all.push_back(q);
  return all;
}

void check_quantity(const JsonCursor& q, const StudyKind& kind, const std::vector<std::string>& labels) {
  const std::vector<std::string> kinds = all_quantities();
  const auto offered = kind.claim_quantities();
  std::string which;
  for (const auto& k : kinds)
    if (q.has(k)) {
      if (!which.empty()) q.fail("a quantity has exactly one of its kinds; found \"" + which + "\" and \"" + k + "\"");
      which = k;
      if (k != "manifest" && k != "ratio" && std::find(offered.begin(), offered.end(), k) == offered.end())
        q[k].fail("a \"" + k + "\" quantity belongs to a " + kind_offering(k) + " study; this one is a " + kind.name() +
                  " study");
    }
  if (which.empty()) q.fail("a quantity needs one of " + joined(kinds));
  if (!builtin(which)) {
    kind.check_claim_quantity(q, which);
    return;
  }
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
    check_pointer(q["manifest"]);
    return;
  }
  if (which == "fitted_order") {
    q.allow_keys({"fitted_order"});
    check_label(q["fitted_order"], labels);
    return;
  }
  (void)q[which].string();
  check_keys(q, which);
  check_label(which == "summary" || which == "column" ? q["task"] : q["label"], labels);
  check_stat(q);
  if (which == "ensemble_summary" && q.has("stat")) {
    const auto& stats = EnsembleStatistics::summary_statistics();
    if (std::find(stats.begin(), stats.end(), q["stat"].string()) == stats.end())
      q["stat"].fail("the members' summaries are kept as their " + joined(stats) + "; use one of these");
  }
  check_window(q);
  if (q.has("h")) (void)q["h"].number();
  if (q.has("where")) {
    if (!q["where"].json().is_object()) q["where"].fail("\"where\" is an object {axis: value}");
    for (const auto& [axis, value] : q["where"].json().items()) (void)q["where"][axis].number();
  }
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

/// A table of the run (study/table_format.hpp) with its columns by name.
struct ClaimTable : Table {
  const std::vector<double>& col(const std::string& n, const std::string& file) const {
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == n) return columns[i];
    throw Error("claims: " + file + " has no column \"" + n + "\"");
  }
};

ClaimTable read_table(const fs::path& file) {
  try {
    return {table_format_of(file).read(file)};
  } catch (const Error& e) {
    throw Error(std::string("claims: ") + e.what());
  }
}

// The names in `names`, the first ten of them (a task may report hundreds of summaries).
std::string some_of(const std::vector<std::string>& names) {
  if (names.size() <= 10) return joined(names);
  return joined(std::vector<std::string>(names.begin(), names.begin() + 10)) + ", ... (" + std::to_string(names.size()) + " in all)";
}

using Value = ClaimValue;  // study/claims.hpp

class Evaluator {
 public:
  Evaluator(const json& manifest, fs::path folder) : m_(manifest), folder_(std::move(folder)) {
    if (manifest.contains("study") && manifest["study"].contains("kind") && manifest["study"]["kind"].is_string())
      kind_ = find_study_kind(manifest["study"]["kind"].get<std::string>());
  }

  Value value(const json& q) {
    Value v;
    if (q.contains("ratio")) return ratio(q);
    for (const auto& [key, x] : q.items())
      if (!builtin(key) && own_quantity(key)) {
        v = kind_->claim_value(q, m_, folder_);
        if (std::isnan(v.x) && v.why.empty()) v.why = v.what + " is NaN";
        return v;
      }
    if (q.contains("manifest")) v.x = manifest_number(q["manifest"].get<std::string>(), v);
    else if (q.contains("fitted_order")) v.x = fitted_order(q["fitted_order"].get<std::string>(), v);
    else if (q.contains("summary")) v.x = task_summary(q, v);
    else if (q.contains("error")) v.x = convergence_entry(q, v);
    else if (q.contains("column")) v.x = trajectory_column(q, v);
    else if (q.contains("ensemble")) v.x = ensemble_column(q, v);
    else if (q.contains("ensemble_summary")) v.x = ensemble_summary(q, v);
    else v.x = sweep_metric(q, v);
    if (std::isnan(v.x) && v.why.empty()) v.why = v.what + " is NaN";
    return v;
  }

 private:
  Value ratio(const json& q) {
    const Value a = value(q["ratio"][0]), b = value(q["ratio"][1]);
    Value v{a.x / b.x, "(" + a.what + ") / (" + b.what + ")", ""};
    if (std::isnan(a.x)) v.why = "its numerator has no value: " + a.why;
    else if (std::isnan(b.x)) v.why = "its denominator has no value: " + b.why;
    else if (b.x == 0.0) v.why = "its denominator " + b.what + " is 0";
    return v;
  }

  // A number of the manifest, or why there is none there.
  static double number_at(const json& j, const std::string& what, Value& v) {
    if (j.is_number()) return j.get<double>();
    v.why = what + (j.is_null() ? " is null in manifest.json (a value that was not finite)" : " is not a number: " + j.dump());
    return kNaN;
  }

  bool has(const json::json_pointer& p) const {
    try {
      return m_.contains(p);
    } catch (const std::exception&) {  // a token that is not an index, into an array
      return false;
    }
  }

  double manifest_number(const std::string& pointer, Value& v) const {
    v.what = "manifest " + pointer;
    const json::json_pointer p(pointer);  // its syntax was checked with the study
    if (has(p)) return number_at(m_[p], v.what, v);
    json::json_pointer up = p;
    do up = up.parent_pointer();
    while (!up.empty() && !has(up));
    const json& there = m_[up];
    v.why = "manifest.json has no " + pointer + " (the manifest is known only after the run; " +
            (up.empty() ? std::string("its top level") : up.to_string()) + " is " +
            (there.is_array() ? "an array of " + std::to_string(there.size()) + " elements"
             : there.is_object() ? "an object of " + std::to_string(there.size()) + " keys"
                                 : "a " + std::string(there.type_name())) + ")";
    return kNaN;
  }
  double fitted_order(const std::string& label, Value& v) const {
    v.what = "fitted order of " + label;
    for (const auto& c : m_.value("convergence", json::array()))
      if (c["label"] == label) {
        if (c["fitted_order"].is_null()) v.why = "no order was fitted for " + label + " (" + c.value("status", "") + ")";
        return c["fitted_order"].is_null() ? kNaN : c["fitted_order"].get<double>();
      }
    v.why = "the run has no convergence table of " + label;
    return kNaN;
  }
  double task_summary(const json& q, Value& v) const {
    const std::string name = q["summary"], label = q["task"];
    v.what = "summary " + name + " of " + label;
    for (const auto& t : m_["tasks"]) {
      if (t["label"] != label) continue;
      if (!t.contains("summary")) {
        v.why = "task " + label + " failed: " + t.value("error", std::string("no summaries"));
        return kNaN;
      }
      if (t["summary"].contains(name)) return number_at(t["summary"][name], v.what, v);
      std::vector<std::string> names;
      for (const auto& [k, x] : t["summary"].items()) names.push_back(k);
      v.why = "task " + label + " reported no summary " + name +
              " (a summary whose name depends on the run, like impact_<k>_t, is reported only when the run "
              "produces it); it reported " + some_of(names);
      return kNaN;
    }
    v.why = "the run has no task " + label;
    return kNaN;
  }
  double convergence_entry(const json& q, Value& v) const {
    const std::string name = q["error"], label = q["label"];
    std::vector<double> x;
    for (const auto& c : m_.value("convergence", json::array()))
      if (c["label"] == label)
        for (const auto& r : c["errors"])
          if (!q.contains("h") || std::abs(r["h"].get<double>() - q["h"].get<double>()) <= 1e-12 * std::abs(r["h"].get<double>()))
            x.push_back(r.contains(name) && r[name].is_number() ? r[name].get<double>() : kNaN);
    v.what = name + " of " + label + (q.contains("h") ? " at h = " + num(q["h"].get<double>()) : "");
    if (x.empty()) {
      v.why = "the convergence table of " + label + " has no row" + (q.contains("h") ? " at this h" : "");
      return kNaN;
    }
    return reduce(x, {}, q, v);
  }
  double trajectory_column(const json& q, Value& v) {
    const std::string name = q["column"], label = q["task"];
    std::string file;
    for (const auto& t : m_["tasks"])
      if (t["label"] == label && t.contains("file")) file = t["file"];
    if (file.empty()) throw Error("task " + label + " wrote no trajectory file");
    const ClaimTable& t = table(file);
    v.what = name + " of " + label;
    return reduce(t.col(name, file), t.col("t", file), q, v);
  }
  double ensemble_column(const json& q, Value& v) {
    const std::string name = q["ensemble"], label = q["label"], file = "ensemble_stats_" + label + ".csv";
    const ClaimTable& t = table(file);
    v.what = name + " of the ensemble " + label;
    return reduce(t.col(name, file), t.col("t", file), q, v);
  }
  double ensemble_summary(const json& q, Value& v) const {
    const std::string name = q["ensemble_summary"], label = q["label"], stat = q.value("stat", "mean");
    v.what = stat + " over the members of summary " + name + " of " + label;
    for (const auto& e : m_.value("ensemble", json::array()))
      if (e["label"] == label) {
        if (e["summary"].contains(name)) return number_at(e["summary"][name].value(stat, json()), v.what, v);
        v.why = "the members of " + label + " reported no summary " + name;
        return kNaN;
      }
    v.why = "the run has no ensemble " + label;
    return kNaN;
  }
  double sweep_metric(const json& q, Value& v) {
    const std::string name = q["sweep"], label = q["label"];
    const ClaimTable& t = table("sweep.csv");
    std::vector<double> x;
    std::vector<std::string> failed;  // cells that failed among those selected
    const auto& col = t.col(name, "sweep.csv");
    const json where = q.value("where", json::object());  // named: items() of a temporary would dangle
    for (std::size_t i = 0; i < col.size(); ++i) {
      bool match = t.labels[i] == label;
      for (const auto& [axis, value] : where.items()) {
        const double a = t.col(axis, "sweep.csv")[i], want = value.get<double>();
        match = match && std::abs(a - want) <= 1e-12 * std::max(1.0, std::abs(want));
      }
      if (!match) continue;
      x.push_back(col[i]);
      if (t.col("ok", "sweep.csv")[i] == 0.0) failed.push_back(num(t.col("cell", "sweep.csv")[i]));
    }
    v.what = name + " of " + label + (q.contains("where") ? " at " + q["where"].dump() : "");
    if (x.empty()) {
      v.why = "sweep.csv has no row of " + label + (q.contains("where") ? " at " + q["where"].dump() : "");
      return kNaN;
    }
    const double r = reduce(x, {}, q, v);
    if (std::isnan(r) && !failed.empty()) v.why = "cell " + joined(failed) + " failed (see its error in manifest.json)";
    return r;
  }

  /// The rows of `x` (times `t`, if any) in the window of q, reduced by its stat.
  static double reduce(const std::vector<double>& x, const std::vector<double>& t, const json& q, Value& v) {
    std::vector<double> sel;
    const double from = q.value("from", -std::numeric_limits<double>::infinity());
    const double to = q.value("to", std::numeric_limits<double>::infinity());
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (t.empty()) { sel.push_back(x[i]); continue; }
      if (q.contains("at") ? std::abs(t[i] - q["at"].get<double>()) <= 1e-9 * std::max(1.0, std::abs(t[i]))
                           : t[i] >= from && t[i] <= to)
        sel.push_back(x[i]);
    }
    std::string window;  // as the quantity names it, and as a reason names it
    if (!t.empty() && q.contains("at")) window = " at t = " + num(q["at"].get<double>());
    else if (!t.empty() && (q.contains("from") || q.contains("to"))) window = " in [" + num(from) + ", " + num(to) + "]";
    const std::string name = v.what;
    v.what += window.rfind(" in ", 0) == 0 ? " over t" + window : window;
    const std::string stat = q.value("stat", "final");
    if (sel.size() > 1 || q.contains("stat")) v.what = stat + " of " + v.what;
    if (sel.empty()) {
      v.why = name + " has no rows" + window;
      if (!t.empty()) v.why += " (its rows run from t = " + num(t.front()) + " to " + num(t.back()) + ")";
      return kNaN;
    }
    const double r = statistic(stat, sel);
    if (std::isnan(r)) {
      const auto nans = std::count_if(sel.begin(), sel.end(), [](double y) { return std::isnan(y); });
      v.why = sel.size() == 1 || stat == "initial" || stat == "final"
                  ? "the " + (sel.size() == 1 ? std::string("value") : stat + " value") + " of " + name + window + " is NaN"
                  : std::to_string(nans) + " of the " + std::to_string(sel.size()) + " values of " + name + window + " are NaN";
    }
    return r;
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

  const ClaimTable& table(const std::string& file) {
    auto it = tables_.find(file);
    if (it == tables_.end()) it = tables_.emplace(file, read_table(folder_ / file)).first;
    return it->second;
  }

  // A quantity the run's kind evaluates itself.
  bool own_quantity(const std::string& key) const {
    if (!kind_) return false;
    const auto offered = kind_->claim_quantities();
    return std::find(offered.begin(), offered.end(), key) != offered.end();
  }

  const json& m_;
  fs::path folder_;
  const StudyKind* kind_ = nullptr;
  std::map<std::string, ClaimTable> tables_;
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

// Why a claim failed: its quantity has no value, or the value does not meet the comparison.
std::string failure_reason(const ClaimCheck& c, const Value& v) {
  if (std::isnan(v.x)) return "value nan: " + v.why;
  std::string r = num(v.x) + " not " + comparison_text(c);
  if (c.op == "within" || c.op == "within_rel") r += " (|" + num(v.x) + " - " + num(c.b) + "| = " + num(std::abs(v.x - c.b)) + ")";
  if (!v.why.empty()) r += " (" + v.why + ")";
  return r;
}

/// A convergence study's order audit, one claim per integrator.
std::vector<json> order_audit(const json& manifest) {
  std::vector<json> out;
  const double tolerance = manifest.contains("study") ? manifest["study"].value("order_tolerance", kNaN) : kNaN;
  for (const auto& c : manifest.value("convergence", json::array())) {
    const bool ok = c["agrees"].get<bool>();
    const bool fitted = !c["fitted_order"].is_null();
    const double order = fitted ? c["fitted_order"].get<double>() : kNaN;
    const int declared = c["declared_order"].get<int>();
    const std::string label = c["label"].get<std::string>();
    std::string reason;
    if (!ok)
      reason = !fitted ? "value nan: no order was fitted for " + label + " (" + c["status"].get<std::string>() + ")"
                       : "fitted order " + num(order) + " differs from the declared " + std::to_string(declared) + " by " +
                             num(std::abs(order - declared)) + " > order_tolerance " + num(tolerance);
    out.push_back({{"id", "order " + label},
                   {"source", "the integrator's declared order (traits)"},
                   {"text", "fitted order agrees with the declared order"},
                   {"quantity", "fitted order of " + label + " (" + (fitted ? num(order) : c["status"].get<std::string>()) + ")"},
                   {"value", fitted ? json(order) : json(nullptr)},
                   {"comparison", "within the study's order_tolerance of " + std::to_string(declared) +
                                      (c["status"] == "round-off" ? " (or at round-off)" : "")},
                   {"verdict", ok ? "pass" : "FAIL"},
                   {"reason", reason}});
  }
  return out;
}

void write_claims_csv(const fs::path& file, const json& results) {
  CsvWriter csv(file, {"id", "source", "text", "quantity", "comparison", "verdict", "reason", "value"});
  for (const auto& r : results)
    csv.row({r["id"].get<std::string>(), r["source"].get<std::string>(), r["text"].get<std::string>(),
             r["quantity"].get<std::string>(), r["comparison"].get<std::string>(), r["verdict"].get<std::string>(),
             r["reason"].get<std::string>()},
            {r["value"].is_number() ? r["value"].get<double>() : kNaN});
  csv.close();
}

}  // namespace

std::vector<ClaimCheck> parse_claims(const JsonCursor& root, const StudyKind& kind, const std::vector<std::string>& labels) {
  std::vector<ClaimCheck> out;
  if (!root.has("claims")) return out;
  const JsonCursor claims = root["claims"];
  if (!claims.json().is_object()) claims.fail("\"claims\" is an object: {\"source\": ..., \"checks\": [...]}");
  if (!claims.has("checks")) return out;
  const std::string source = claims.has("source") ? one_line_text(claims["source"]) : "";
  const JsonCursor checks = claims["checks"];
  for (std::size_t i = 0; i < checks.size(); ++i) {
    const JsonCursor c = checks.at(i);
    c.allow_keys({"id", "source", "text", "quantity", "<", "<=", ">", ">=", "in", "within", "within_rel", "of"});
    ClaimCheck k;
    k.id = c.has("id") ? one_line_text(c["id"]) : std::to_string(i + 1);
    for (const auto& other : out)
      if (other.id == k.id) c["id"].fail("duplicate claim id");
    k.source = c.has("source") ? one_line_text(c["source"]) : source;
    k.text = c.has("text") ? one_line_text(c["text"]) : "";
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
    Value v;
    try {
      v = ev.value(c.quantity);
    } catch (const std::exception& e) {  // a file or column the run did not write: the claim fails, saying so
      v = {kNaN, c.quantity.dump(), e.what()};
    }
    const bool ok = holds(c, v.x);
    json r = {{"id", c.id}, {"source", c.source}, {"text", c.text}, {"quantity", v.what},
              {"value", std::isfinite(v.x) ? json(v.x) : json(nullptr)}, {"comparison", comparison_text(c)},
              {"verdict", ok ? "pass" : "FAIL"}, {"reason", ok ? std::string() : failure_reason(c, v)}};
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
      if (!r.value("reason", std::string()).empty()) std::printf("  %-26s why: %s\n", "", r["reason"].get<std::string>().c_str());
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
