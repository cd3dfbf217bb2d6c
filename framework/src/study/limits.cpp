#include <cmath>
#include <cstdio>
#include <dalembert/study/limits.hpp>
#include <dalembert/study/study.hpp>
#include <dalembert/study/study_kind.hpp>
#include <dalembert/study/table_format.hpp>

namespace dalembert {

namespace {

// A count as people write it: 123456 or 1.23e10.
std::string count(double x) {
  if (!(x < 1e300)) return "more than 1e300";  // T/h overflowing a double
  if (x < 1e6) return std::to_string(static_cast<long long>(std::ceil(x)));
  int e = static_cast<int>(std::floor(std::log10(x)));
  char m[32];
  std::snprintf(m, sizeof m, "%.3g", x / std::pow(10.0, e));
  if (std::string(m) == "10") std::snprintf(m, sizeof m, "1"), ++e;  // 9.9996e9 rounds to 1e10
  return std::string(m) + "e" + std::to_string(e);
}

// A limit that lets `x` through, with two significant digits: 1.23e10 -> 1.3e10.
double round_up(double x) {
  if (x < 100) return std::ceil(x);
  const double unit = std::pow(10.0, std::floor(std::log10(x)) - 1);
  return std::ceil(x / unit) * unit;
}

std::string number(double x) { return nlohmann::json(x).dump(); }  // shortest round-trip form

// "<estimate> exceed(s) the limit of <limit> <unit>; set "limits": {"key": N} in the study if you mean it".
[[noreturn]] void refuse(const JsonCursor& at, const std::string& estimate, const char* key, double value, double limit,
                         const std::string& unit) {
  at.fail(estimate + " exceed the limit of " + count(limit) + " " + unit + "; set \"limits\": {\"" + key +
          "\": " + count(round_up(value)) + "} in the study if you mean it");
}


// The step sizes integrator i runs with.
std::vector<double> step_sizes(const Study& s, std::size_t i) {
  if (kind_of(s).ladder()) return s.h;
  return {s.integrators[i].h != 0.0 ? s.integrators[i].h : s.h.at(0)};
}

// Steps of the underlying methods one step of an integrator makes: a composition's stages (which
// may be compositions themselves) each make one, so nested compositions multiply the work.
double substeps(const nlohmann::json& params) {
  if (!params.is_object()) return 1.0;
  if (params.contains("triple_jump") && params["triple_jump"].is_object())
    return 3.0 * substeps(params["triple_jump"].value("params", nlohmann::json::object()));
  if (!params.contains("stages") || !params["stages"].is_array() || params["stages"].empty()) return 1.0;
  double n = 0;
  for (const auto& stage : params["stages"])
    n += stage.is_object() ? substeps(stage.value("params", nlohmann::json::object())) : 1.0;
  return n;
}

}  // namespace

double steps_of(double T, double h) { return std::round(T / std::abs(h)); }

Workload& Workload::operator+=(const Workload& o) {
  tasks += o.tasks, total_steps += o.total_steps, rows += o.rows, bytes += o.bytes;
  if (o.format != "csv") format = o.format;
  return *this;
}

Limits parse_limits(const JsonCursor& root) {
  Limits l;
  if (!root.has("limits")) return l;
  const JsonCursor c = root["limits"];
  c.allow_keys({"steps", "total_steps", "tasks", "cells", "members", "array", "rows"});
  for (auto [key, field] : {std::pair{"steps", &l.steps}, {"total_steps", &l.total_steps}, {"tasks", &l.tasks},
                            {"cells", &l.cells}, {"members", &l.members}, {"array", &l.array}, {"rows", &l.rows}})
    if (c.has(key)) *field = c[key].finite_positive();
  return l;
}

void check_array_sizes(const JsonCursor& root, const Limits& limits) {
  // The study is at most kJsonMaxDepth deep (the parser refuses deeper), so recursion is bounded.
  const nlohmann::json& j = root.json();
  if (j.is_array() && static_cast<double>(j.size()) > limits.array)
    refuse(root, count(static_cast<double>(j.size())) + " elements", "array", static_cast<double>(j.size()), limits.array,
           "elements in an array");
  if (j.is_array())
    for (std::size_t i = 0; i < j.size(); ++i) check_array_sizes(root.at(i), limits);
  if (j.is_object())
    for (const auto& [k, v] : j.items()) check_array_sizes(root[k], limits);
}

void check_steps(const JsonCursor& T, double T_value, double h, const Limits& limits) {
  const double n = T_value / std::abs(h);
  if (n > limits.steps) refuse(T, count(n) + " steps of h = " + number(h), "steps", n, limits.steps, "steps per task");
}

Workload workload(const Study& s) { return kind_of(s).workload(s); }

Workload task_workload(const Study& s, double members, double runs, double record_sets) {
  // Columns of a trajectory row: label, t, q, v and about one per observer; ~24 characters each in
  // CSV, 8 bytes in .npy (TableFormat::bytes_per_value; a record format other than CSV: only
  // trajectory files, so every row of the study).
  const double columns = 2.0 + 2.0 * static_cast<double>(s.initial.state.q.size()) + static_cast<double>(s.observers.size());
  Workload w;
  for (std::size_t i = 0; i < s.integrators.size(); ++i)
    for (double h : step_sizes(s, i)) {
      const double steps = steps_of(s.T, h), records = std::ceil(steps / static_cast<double>(s.record_every));
      w.tasks += members;
      w.total_steps += runs * members * steps * substeps(s.integrators[i].params);  // composition stages count
      w.rows += record_sets == 0.0 ? 1.0 : record_sets * records;  // 0: one row of a table per task
    }
  w.format = s.record_format;
  w.bytes = w.rows * columns * table_format(w.format).bytes_per_value();
  return w;
}

void check_workload(const JsonCursor& root, const Workload& w, const Limits& limits, const std::string& what) {
  const JsonCursor at = root.has("T") && !root.has("sweep") ? root["T"] : root.has("sweep") ? root["sweep"] : root;
  if (w.tasks > limits.tasks) refuse(root.has("integrators") ? root["integrators"] : at, count(w.tasks) + " tasks" + what,
                                     "tasks", w.tasks, limits.tasks, "tasks");
  if (w.total_steps > limits.total_steps)
    refuse(at, count(w.total_steps) + " steps in all" + what, "total_steps", w.total_steps, limits.total_steps,
           "steps in all");
  if (w.rows > limits.rows) {
    char mb[64];
    std::snprintf(mb, sizeof mb, "%.0f", std::ceil(w.bytes / 1e6));
    refuse(root.has("record_every") ? root["record_every"] : at,
           "about " + count(w.rows) + " output rows (~" + mb + " MB of " + table_format(w.format).described() + ")" + what, "rows", w.rows, limits.rows,
           "output rows");
  }
}

void check_members(const JsonCursor& at, double members, const Limits& limits) {
  if (members > limits.members)
    refuse(at, count(members) + " ensemble members", "members", members, limits.members, "ensemble members");
}

void check_cells(const JsonCursor& at, double cells, const Limits& limits) {
  if (cells > limits.cells) refuse(at, count(cells) + " sweep cells", "cells", cells, limits.cells, "sweep cells");
}

}  // namespace dalembert
