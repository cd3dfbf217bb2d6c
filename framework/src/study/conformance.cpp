// check_conformance and format_conformance (see dalembert/study/conformance.hpp); the checks of
// each plugin kind are in conformance_integrator.cpp and conformance_plugins.cpp.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <dalembert/plugin/needs.hpp>
#include <dalembert/study/conformance.hpp>
#include <map>
#include <sstream>

#include "conformance_support.hpp"

namespace dalembert {

AllocationCounter::~AllocationCounter() = default;

bool ConformanceReport::ok() const {
  return std::none_of(rows.begin(), rows.end(), [](const ConformanceRow& r) { return r.verdict == Verdict::Finding; });
}

namespace conformance {

std::vector<SystemExample> system_examples(const Registry& registry) {
  std::vector<SystemExample> out;
  for (const auto* d : registry.list(PluginKind::System)) {
    bool first = true;
    for (const auto& e : d->examples) try {
        auto sys = registry.make_system(d->name, e.params, "conformance: system '" + d->name + "' example");
        const std::string label = e.label.empty() ? d->name : d->name + " (" + e.label + ")";
        out.push_back({d->name, label, std::move(sys), e.state, e.h, first});
        first = false;
      } catch (const std::exception&) {  // reported by the system's own check
      }
  }
  return out;
}

std::vector<PluginExample> parameter_sets(const PluginDescriptor& d, const ConformanceOptions& options) {
  if (options.params) return {{"given parameters", *options.params}};
  if (!d.examples.empty()) return d.examples;
  return {{"defaults", nlohmann::json::object()}};
}

std::vector<std::pair<std::string, nlohmann::json>> integrators_for(const Registry& registry, const System& system) {
  std::vector<std::pair<std::string, nlohmann::json>> out;
  for (const auto* d : registry.list(PluginKind::Integrator)) try {
      const nlohmann::json params = d->examples.empty() ? nlohmann::json::object() : d->examples.front().params;
      if (unmet_integrator_need(system, registry.needs(PluginKind::Integrator, d->name, params, "conformance")).empty())
        out.emplace_back(d->name, params);
    } catch (const std::exception&) {  // reported by the integrator's own check
    }
  return out;
}

double state_distance(const State& a, const State& b) {
  if (a.q.size() != b.q.size() || a.v.size() != b.v.size()) return std::numeric_limits<double>::infinity();
  double d = 0.0;
  for (Eigen::Index i = 0; i < a.q.size(); ++i) d = std::max(d, std::abs(a.q[i] - b.q[i]));
  for (Eigen::Index i = 0; i < a.v.size(); ++i) d = std::max(d, std::abs(a.v[i] - b.v[i]));
  return std::isnan(d) ? std::numeric_limits<double>::infinity() : d;
}

double state_scale(const State& s) {
  return std::max({1.0, s.q.size() ? s.q.lpNorm<Eigen::Infinity>() : 0.0, s.v.size() ? s.v.lpNorm<Eigen::Infinity>() : 0.0});
}

std::string short_number(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", x);
  return b;
}

}  // namespace conformance

ConformanceReport check_conformance(const Registry& registry, PluginKind kind, const std::string& name,
                                    const ConformanceOptions& options) {
  const PluginDescriptor& d = registry.find(kind, name, "check");
  ConformanceReport report;
  report.plugin = name;
  report.kind = kind;
  switch (kind) {
    case PluginKind::System: conformance::check_system(registry, d, options, report); break;
    case PluginKind::Integrator: conformance::check_integrator(registry, d, options, report); break;
    case PluginKind::Observer: conformance::check_observer(registry, d, options, report); break;
    case PluginKind::Impact: conformance::check_impact(registry, d, options, report); break;
    case PluginKind::Sampler: conformance::check_sampler(registry, d, options, report); break;
  }
  return report;
}

namespace {

const char* verdict_text(Verdict v) {
  switch (v) {
    case Verdict::Pass: return "pass";
    case Verdict::Finding: return "FINDING";
    case Verdict::NotExercised: return "not exercised";
  }
  return "?";
}

std::string where(const ConformanceRow& r) {
  std::string w = r.example;
  if (!r.system.empty()) w += (w.empty() ? "" : " on ") + r.system;
  return w;
}

}  // namespace

std::string format_conformance(const ConformanceReport& report) {
  std::size_t width = 8;
  for (const auto& r : report.rows) width = std::max(width, where(r).size());
  std::ostringstream out;
  out << report.plugin << " (" << to_string(report.kind) << "): conformance, " << report.rows.size() << " checks\n";
  char line[96];
  std::snprintf(line, sizeof line, "  %-12s %-13s ", "check", "result");
  out << line << "example\n";
  for (const auto& r : report.rows) {
    std::snprintf(line, sizeof line, "  %-12s %-13s ", r.check.c_str(), verdict_text(r.verdict));
    out << line << where(r) << std::string(width - std::min(width, where(r).size()), ' ') << "  " << r.detail << "\n";
  }
  for (const auto& r : report.rows)
    if (r.verdict == Verdict::Finding)
      out << report.plugin << " [" << r.check << "]" << (where(r).empty() ? "" : " " + where(r)) << ": " << r.detail << "\n";
  return out.str();
}

}  // namespace dalembert
