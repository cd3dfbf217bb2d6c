#pragma once
// Helpers for the seed-004 tests: the penny of spec 004 §3–4, a test-only exact-flow integrator
// (System::exact_solution as a step), an observer that keeps every impact, and runs to N impacts.
#include <cmath>
#include <dalembert/core/impact_map.hpp>
#include <dalembert/study/simulation.hpp>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include "support.hpp"

namespace dalembert::test {

// Table I (spec 004 §4) and the initial condition of Figs. 1–4.
constexpr double kR = 0.01, kM = 0.0025, kI = 1.25e-7, kJ = 6.25e-8;
constexpr double kE0 = 1.875125e-5;  // spec 004 §4: E0

inline std::unique_ptr<System> make_disk(const std::string& table) {
  return registry().make_system("vertical_rolling_disk", nlohmann::json{{"table", table}}, "test");
}

inline State penny_state(double Omega = 10.0, double omega = 0.2, double phi0 = std::numbers::pi / 2, double x0 = 0.0,
                         double y0 = 0.0) {
  State s;
  s.t = 0.0;
  s.q = Vec(4);
  s.v = Vec(4);
  s.q << x0, y0, 0.0, phi0;
  s.v << kR * Omega * std::cos(phi0), kR * Omega * std::sin(phi0), Omega, omega;  // constraints (23–24)
  return s;
}

/// The exact flow as an integrator (test only): step(s, h) = exact_solution(s, s.t + h).
class ExactFlow final : public Integrator {
 public:
  void bind(const System& s) override { sys_ = &s; }
  void step(State& s, double h) override {
    sys_->exact_solution(s, s.t + h, out_);
    s.q = out_.q;
    s.v = out_.v;
    s.t += h;
  }
  Traits traits() const override { return {99, true, true, {}}; }

 private:
  const System* sys_ = nullptr;
  State out_;
};

struct Impact {
  State pre, post;
  int sigma;
};

class ImpactRecorder final : public Observer {
 public:
  void bind(const System&, const Integrator&) override {}
  void columns(std::vector<std::string>& c) const override { c.clear(); }
  void start(const State&) override { impacts.clear(); }
  void impact(const State& pre, const State& post, int sigma) override { impacts.push_back({pre, post, sigma}); }
  void observe(const State&, const StepValues&, double*) override {}
  std::vector<Impact> impacts;
};

struct PennyRun {
  std::vector<Impact> impacts;
  State final;
};

/// Runs the penny from `s0` to T with integrator `integ` (nullptr: the exact flow) and step h.
inline PennyRun run_penny(const System& sys, const std::string& law, double T, double h, const State& s0,
                          Integrator* integ = nullptr, const std::string& locator = "auto",
                          const nlohmann::json& extra = nlohmann::json::object()) {
  ExactFlow exact;
  ImpactRecorder rec;
  nlohmann::json params = extra;
  params["locator"] = locator;
  auto map = registry().make_impact(law, params, "test");
  Simulation sim(sys, integ ? *integ : static_cast<Integrator&>(exact), {&rec});
  sim.set_impact_map(map.get());
  State s = s0;
  sim.run(s, h, std::lround(T / h));
  return {rec.impacts, s};
}

inline double rms_spread(const std::vector<double>& x, const std::vector<double>& y) {
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < x.size(); ++i) mx += x[i], my += y[i];
  mx /= double(x.size()), my /= double(y.size());
  double v = 0;
  for (std::size_t i = 0; i < x.size(); ++i) v += (x[i] - mx) * (x[i] - mx) + (y[i] - my) * (y[i] - my);
  return std::sqrt(v / double(x.size()));
}

}  // namespace dalembert::test
