// Issue 4, items 1-2: nanoseconds per step (and steps per second) of every shipped integrator ×
// system pair at the papers' step sizes, side by side with
//   * hand-written, fully inlined baselines (fixed-size Eigen, no virtual call, no plugin):
//     RK4 and DLA on the chaotic nonholonomic particle;
//   * Boost.Odeint's runge_kutta4 on the same right-hand side (the framework's vector field, and
//     the hand-written one);
//   * the framework's RK4 and nonholonomic Newmark compiled statically into this binary, with a
//     static copy of the chaotic particle model (plugin dispatch overhead).
// One benchmark iteration is one step. Ratios are computed by bench/make_table.py from the JSON
// output of one run (bench/run.sh), so every ratio is measured side by side in one binary.
#include <benchmark/benchmark.h>

#include <array>
#include <chrono>
#include <boost/numeric/odeint/stepper/runge_kutta4.hpp>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <dalembert/core/constrained_lagrangian.hpp>
#include <dalembert/core/integrator.hpp>
#include <dalembert/core/nonholonomic_field.hpp>
#include <dalembert/host/registry.hpp>
#include <dalembert/study/csv_writer.hpp>
#include <dalembert/study/npy_writer.hpp>
#include <dalembert/study/simulation.hpp>
#include <filesystem>
#include <unistd.h>
#include <numbers>
#include <string>
#include <type_traits>
#include <vector>

#include "chaotic_particle_baseline.hpp"
#include "rolling_disk_baseline.hpp"
#include "static_plugins.hpp"

using namespace dalembert;
using nlohmann::json;

namespace {

const Registry& registry() {
  static Registry r;
  return r;
}

State make_state(std::initializer_list<double> q, std::initializer_list<double> v) {
  State s;
  s.t = 0.0;
  s.q = Eigen::Map<const Vec>(q.begin(), static_cast<Eigen::Index>(q.size()));
  s.v = Eigen::Map<const Vec>(v.begin(), static_cast<Eigen::Index>(v.size()));
  return s;
}

// Initial states of the papers (spec 000 §2.1-2.3, spec 001 §4, spec 002, spec 003 §4a).
State chaotic_initial() { return make_state({1, 0, 1, -1, -1}, {0.05, 0.5, -0.5, -0.1, -0.05}); }
State particle_initial() { return make_state({1, 1, -1}, {1, -1, 1}); }
State cvt_initial() { return make_state({1, 0, -2}, {-0.4481, -0.40745617696058795, 0.1}); }
State sleigh_initial() { return make_state({0, 0, 0}, {0.25, -1, 0.075}); }
State snakeboard_initial() {
  const double I = 0.5, phi = std::numbers::pi / 3, K = -1.0 - I * 2.5 * std::sin(2 * phi);
  return make_state({std::numbers::pi / 2, phi, 0, 0, 0}, {2.5, -0.02, std::tan(phi) * K / 2, -K / 2, 0});
}
State knife_initial() { return make_state({0, 0, 0}, {0.8, 0, 0.8}); }
// The strongly tilted rolling disk of issue 26 (θ₀ = 0.6, ψ̇ = ẋ = 0.5): exact_discrete's error control.
State tilted_disk_initial() { return make_state({0, 0, 0, 0.6, 0}, {0.5, 0, 0, 0, 0.5}); }
// A system plugin's example state (its descriptor's examples[i]): the Whipple bicycle upright at 5 m/s.
State example_initial(const std::string& system, std::size_t i = 0) {
  return registry().find(PluginKind::System, system, "bench").examples.at(i).state;
}
State pendulum_initial() {
  const double a = 3.0 * std::numbers::pi / 8.0;
  return make_state({std::cos(a), 0.0, std::sin(a), 0.0}, {0.2, 0.0, 0.2});
}

json newmark(double beta, double beta_prime, double alpha) {
  return {{"beta", beta}, {"beta_prime", beta_prime}, {"alpha", alpha}};
}
json psi(double beta) {
  return {{"stages", json::array({{{"integrator", "nonholonomic_newmark"}, {"params", newmark(beta, beta, 0.0)}, {"fraction", 0.5}},
                                  {{"integrator", "nonholonomic_newmark"}, {"params", newmark(beta, beta, 1.0)}, {"fraction", 0.5}}})}};
}

// Steps between resets to the initial state: keeps every benchmark on the same stretch of the
// trajectory (and the chaotic runs bounded) whatever the iteration count.
constexpr long kReset = 2000;

void set_rates(benchmark::State& st) {
  st.counters["steps_per_s"] = benchmark::Counter(static_cast<double>(st.iterations()), benchmark::Counter::kIsRate);
}

/// The plugin's own step(), without the step contract around it (Integrator::advance): what the
/// contract costs, side by side (bench/README.md). step() is protected; a derived class may name it.
struct PluginStep : Integrator {
  static void call(Integrator& in, State& s, double h) {
    void (Integrator::*raw)(State&, double) = &PluginStep::step;
    (in.*raw)(s, h);
  }
};

/// One step of a framework integrator (through the Integrator interface: advance(), or the plugin's
/// raw step() when `raw`) per iteration.
void bench_integrator(benchmark::State& st, const System& sys, Integrator& in, const State& s0, double h, bool raw = false) {
  in.bind(sys);
  State s = s0;
  in.begin(s);
  long k = 0;
  for (auto _ : st) {
    bool failed = false;  // a step that fails (rk2 on the snakeboard diverges at t = 27.2) restarts too
    if (raw) {
      PluginStep::call(in, s, h);
    } else {
      try {
        in.advance(s, h);
      } catch (const StepFailure&) {
        failed = true;
      }
    }
    benchmark::DoNotOptimize(s.q.data());
    if (++k == kReset || failed) {
      k = 0;
      s.t = s0.t;
      s.q = s0.q;
      s.v = s0.v;
      in.begin(s);
    }
  }
  set_rates(st);
}

struct PairSpec {
  std::string label, system, integrator;
  json params;
  State initial;
  double h;
};

std::vector<PairSpec> pairs() {
  const json none = json::object();
  // The same schemes through the integrator's generic path (virtual model calls, dynamic sizes)
  // instead of the scheme compiled with the fixed-size system (schemes/compiled_schemes.hpp).
  const json generic = {{"compiled", false}};
  json generic_dla = newmark(0, 0, 0.5);
  generic_dla["compiled"] = false;
  return {
      {"rk4/chaotic_particle", "chaotic_nonholonomic_particle", "rk4", none, chaotic_initial(), 0.2},
      {"rk4/particle", "nonholonomic_particle", "rk4", none, particle_initial(), 0.2},
      {"rk4/cvt", "pendulum_driven_cvt", "rk4", none, cvt_initial(), 0.1},
      {"rk4_generic/chaotic_particle", "chaotic_nonholonomic_particle", "rk4", generic, chaotic_initial(), 0.2},
      {"DLA/chaotic_particle", "chaotic_nonholonomic_particle", "nonholonomic_newmark", newmark(0, 0, 0.5), chaotic_initial(), 0.2},
      {"DLA_generic/chaotic_particle", "chaotic_nonholonomic_particle", "nonholonomic_newmark", generic_dla, chaotic_initial(), 0.2},
      {"DLA/particle", "nonholonomic_particle", "nonholonomic_newmark", newmark(0, 0, 0.5), particle_initial(), 0.2},
      {"DLA/cvt", "pendulum_driven_cvt", "nonholonomic_newmark", newmark(0, 0, 0.5), cvt_initial(), 0.1},
      {"F0.1_0.1_half/chaotic_particle", "chaotic_nonholonomic_particle", "nonholonomic_newmark", newmark(0.1, 0.1, 0.5), chaotic_initial(), 0.2},
      {"Psi_h/particle", "nonholonomic_particle", "composition", psi(0.0), particle_initial(), 0.2},
      {"Psi_h/chaotic_particle", "chaotic_nonholonomic_particle", "composition", psi(0.0), chaotic_initial(), 0.2},
      {"Psi_h_beta0.1/chaotic_particle", "chaotic_nonholonomic_particle", "composition", psi(0.1), chaotic_initial(), 0.2},
      {"triple_jump_DLA/chaotic_particle", "chaotic_nonholonomic_particle", "composition",
       {{"triple_jump", {{"integrator", "nonholonomic_newmark"}, {"params", newmark(0, 0, 0.5)}}}}, chaotic_initial(), 0.2},
      {"gni/chaplygin_sleigh", "chaplygin_sleigh", "gni", none, sleigh_initial(), 0.05},
      {"rdp/chaplygin_sleigh", "chaplygin_sleigh", "rdp", none, sleigh_initial(), 0.05},
      {"gni/snakeboard", "snakeboard", "gni", none, snakeboard_initial(), 0.05},
      {"rdp/snakeboard", "snakeboard", "rdp", none, snakeboard_initial(), 0.05},
      {"rk2/snakeboard", "snakeboard", "rk2", none, snakeboard_initial(), 0.05},
      {"rk4/knife_edge", "knife_edge", "rk4", none, knife_initial(), 0.1},
      {"rk4_generic/knife_edge", "knife_edge", "rk4", generic, knife_initial(), 0.1},
      {"DLA_generic/knife_edge", "knife_edge", "nonholonomic_newmark", generic_dla, knife_initial(), 0.1},
      {"rk4/chaplygin_sleigh", "chaplygin_sleigh", "rk4", none, sleigh_initial(), 0.05},
      {"rk4_generic/chaplygin_sleigh", "chaplygin_sleigh", "rk4", generic, sleigh_initial(), 0.05},
      {"mla/knife_edge", "knife_edge", "mla", none, knife_initial(), 0.1},
      {"dla/knife_edge", "knife_edge", "dla", none, knife_initial(), 0.1},
      {"exact_discrete/knife_edge", "knife_edge", "exact_discrete", none, knife_initial(), 0.1},
      {"exact_discrete_tol0/knife_edge", "knife_edge", "exact_discrete", {{"tol", 0.0}}, knife_initial(), 0.1},
      // The M(q) systems (issue 32 item 1): the rolling disk (a hand-written RK4 below) and the sphere.
      {"rk4/rolling_disk_tilted", "rolling_disk", "rk4", none, tilted_disk_initial(), 0.05},
      {"dla/rolling_disk_tilted", "rolling_disk", "dla", none, tilted_disk_initial(), 0.05},
      {"mla/rolling_disk_tilted", "rolling_disk", "mla", none, tilted_disk_initial(), 0.05},
      {"rk4/chaplygin_sphere", "chaplygin_sphere", "rk4", none, example_initial("chaplygin_sphere"), 0.05},
      {"dla/chaplygin_sphere", "chaplygin_sphere", "dla", none, example_initial("chaplygin_sphere"), 0.05},
      {"exact_discrete/rolling_disk_tilted", "rolling_disk", "exact_discrete", none, tilted_disk_initial(), 0.05},
      {"exact_discrete_tol0/rolling_disk_tilted", "rolling_disk", "exact_discrete", {{"tol", 0.0}}, tilted_disk_initial(), 0.05},
      {"rodrigues_21/pendulum_3d", "pendulum_3d", "rodrigues_21", none, pendulum_initial(), 0.05},
      {"rodrigues_23/pendulum_3d", "pendulum_3d", "rodrigues_23", none, pendulum_initial(), 0.05},
      {"rodrigues_25/pendulum_3d", "pendulum_3d", "rodrigues_25", none, pendulum_initial(), 0.05},
      {"campello_27/pendulum_3d", "pendulum_3d", "campello_27", none, pendulum_initial(), 0.05},
      {"campello_30/pendulum_3d", "pendulum_3d", "campello_30", none, pendulum_initial(), 0.05},
      // The Whipple bicycle (issue 28 item 6): M(q), four rolling constraints and g(q) = 0, upright
      // at 5 m/s (the plugin's first example), h = 1e-3.
      {"dla/whipple_bicycle", "whipple_bicycle", "dla", none, example_initial("whipple_bicycle"), 1e-3},
      {"mla/whipple_bicycle", "whipple_bicycle", "mla", none, example_initial("whipple_bicycle"), 1e-3},
      {"rk4/whipple_bicycle", "whipple_bicycle", "rk4", none, example_initial("whipple_bicycle"), 1e-3},
      // SO(3) (issue 29): the Lie-group schemes on the Suslov problem (identity attitude, the plugin's
      // first example), h = 0.05.
      {"gni/suslov", "suslov", "gni", none, example_initial("suslov"), 0.05},
      {"rdp/suslov", "suslov", "rdp", none, example_initial("suslov"), 0.05},
      {"rkmk4/suslov", "suslov", "rkmk4", none, example_initial("suslov"), 0.05},
      // Chaplygin's ball on unit quaternions (issue 29): M(q), two rolling constraints and |p|² = 1,
      // from the identity attitude with ω = (1, 0.5, 0.8) (the plugin's first example), h = 0.01.
      {"dla/chaplygin_ball", "chaplygin_ball", "dla", none, example_initial("chaplygin_ball"), 0.01},
      {"mla/chaplygin_ball", "chaplygin_ball", "mla", none, example_initial("chaplygin_ball"), 0.01},
      {"rk4/chaplygin_ball", "chaplygin_ball", "rk4", none, example_initial("chaplygin_ball"), 0.01},
      {"rkmk4/chaplygin_ball", "chaplygin_ball", "rkmk4", none, example_initial("chaplygin_ball"), 0.01},
      // The rattleback (issue 29): Kane & Levinson's start (the plugin's first example), h = 1e-3.
      {"dla/rattleback", "rattleback", "dla", none, example_initial("rattleback"), 1e-3},
      {"mla/rattleback", "rattleback", "mla", none, example_initial("rattleback"), 1e-3},
      {"rk4/rattleback", "rattleback", "rk4", none, example_initial("rattleback"), 1e-3},
      {"rkmk4/rattleback", "rattleback", "rkmk4", none, example_initial("rattleback"), 1e-3},
  };
}

// Objects live for the life of the process (plugins stay loaded).
std::vector<std::unique_ptr<System>> g_systems;
std::vector<std::unique_ptr<Integrator>> g_integrators;

void register_plugin_pairs() {
  for (const auto& p : pairs()) {
    try {
      g_systems.push_back(registry().make_system(p.system, json::object(), "bench"));
      g_integrators.push_back(registry().make_integrator(p.integrator, p.params, "bench"));
      g_integrators.back()->bind(*g_systems.back());  // checks compatibility now
    } catch (const std::exception& e) {
      std::fprintf(stderr, "bench: skipping %s: %s\n", p.label.c_str(), e.what());
      continue;
    }
    const System* sys = g_systems.back().get();
    Integrator* in = g_integrators.back().get();
    benchmark::RegisterBenchmark(("step/plugin/" + p.label).c_str(),
                                 [sys, in, s0 = p.initial, h = p.h](benchmark::State& st) { bench_integrator(st, *sys, *in, s0, h); });
    // The cost of the step contract (advance() around step()) on the cheapest step.
    if (p.label == "rk4/chaotic_particle")
      benchmark::RegisterBenchmark(("step/plugin_raw_step/" + p.label).c_str(),
                                   [sys, in, s0 = p.initial, h = p.h](benchmark::State& st) { bench_integrator(st, *sys, *in, s0, h, true); });
  }
}

// ---- the same framework code compiled statically into this binary ----
void register_static() {
  const auto sys_d = bench::static_chaotic_nonholonomic_particle();
  g_systems.push_back(sys_d.make_system(registry().resolve(PluginKind::System, "chaotic_nonholonomic_particle", json::object(), "bench")));
  const System* sys = g_systems.back().get();
  const auto rk4_d = bench::static_rk4();
  g_integrators.push_back(rk4_d.make_integrator(registry().resolve(PluginKind::Integrator, "rk4", json::object(), "bench"), registry()));
  Integrator* rk4 = g_integrators.back().get();
  benchmark::RegisterBenchmark("step/static/rk4/chaotic_particle",
                               [sys, rk4](benchmark::State& st) { bench_integrator(st, *sys, *rk4, chaotic_initial(), 0.2); });
  const auto nm_d = bench::static_nonholonomic_newmark();
  g_integrators.push_back(nm_d.make_integrator(
      registry().resolve(PluginKind::Integrator, "nonholonomic_newmark", newmark(0, 0, 0.5), "bench"), registry()));
  Integrator* dla = g_integrators.back().get();
  benchmark::RegisterBenchmark("step/static/DLA/chaotic_particle",
                               [sys, dla](benchmark::State& st) { bench_integrator(st, *sys, *dla, chaotic_initial(), 0.2); });
  // The same two schemes on the model reduced to V and A: derivatives by AD (issue 13).
  g_systems.push_back(bench::static_chaotic_particle_by_ad());
  const System* ad = g_systems.back().get();
  g_integrators.push_back(rk4_d.make_integrator(registry().resolve(PluginKind::Integrator, "rk4", json::object(), "bench"), registry()));
  Integrator* rk4_ad = g_integrators.back().get();
  benchmark::RegisterBenchmark("step/static_ad/rk4/chaotic_particle",
                               [ad, rk4_ad](benchmark::State& st) { bench_integrator(st, *ad, *rk4_ad, chaotic_initial(), 0.2); });
  g_integrators.push_back(nm_d.make_integrator(
      registry().resolve(PluginKind::Integrator, "nonholonomic_newmark", newmark(0, 0, 0.5), "bench"), registry()));
  Integrator* dla_ad = g_integrators.back().get();
  benchmark::RegisterBenchmark("step/static_ad/DLA/chaotic_particle",
                               [ad, dla_ad](benchmark::State& st) { bench_integrator(st, *ad, *dla_ad, chaotic_initial(), 0.2); });
}

// ---- hand-written baselines ----
// One loop for both schemes: reset to the paper's state every kReset steps, as for the plugins.
template <class Hand>
void BM_hand(benchmark::State& st) {
  Hand m;
  const State s0 = chaotic_initial();
  m.q = s0.q;
  m.v = s0.v;
  long k = 0;
  for (auto _ : st) {
    m.step(0.2);
    benchmark::DoNotOptimize(m.q.data());
    if (++k == kReset) {
      k = 0;
      m.q = s0.q;
      m.v = s0.v;
    }
  }
  set_rates(st);
}
BENCHMARK_TEMPLATE(BM_hand, bench::HandRK4)->Name("step/hand/rk4/chaotic_particle");
BENCHMARK_TEMPLATE(BM_hand, bench::HandDLA)->Name("step/hand/DLA/chaotic_particle");

// The rolling disk's closed-form equations by RK4 (rolling_disk_baseline.hpp), from the tilted start.
void BM_hand_disk(benchmark::State& st) {
  bench::HandDiskRK4 m;
  const State s0 = tilted_disk_initial();
  m.set(s0.q.data(), s0.v.data());
  long k = 0;
  for (auto _ : st) {
    m.step(0.05);
    benchmark::DoNotOptimize(m.y.data());
    if (++k == kReset) {
      k = 0;
      m.set(s0.q.data(), s0.v.data());
    }
  }
  set_rates(st);
}
BENCHMARK(BM_hand_disk)->Name("step/hand/rk4/rolling_disk_tilted");

/// The hand-written disk integrates the framework's equations: both RK4s from the tilted start at
/// h = 1e-3 to t = 2 agree to 1e-10 (each is 1e-13 from the exact motion there), else no benchmark runs.
bool disk_baseline_agrees() {
  auto sys = registry().make_system("rolling_disk", json::object(), "bench");
  auto rk4 = registry().make_integrator("rk4", json::object(), "bench");
  rk4->bind(*sys);
  State s = tilted_disk_initial();
  bench::HandDiskRK4 m;
  m.set(s.q.data(), s.v.data());
  rk4->begin(s);
  for (int k = 0; k < 2000; ++k) {
    rk4->advance(s, 1e-3);
    m.step(1e-3);
  }
  double worst = 0.0;
  for (int i = 0; i < 5; ++i) worst = std::max(worst, std::abs(s.q[i] - m.y[i]));
  for (int i = 2; i < 5; ++i) worst = std::max(worst, std::abs(s.v[i] - m.y[3 + i]));
  if (worst <= 1e-10) return true;
  std::fprintf(stderr, "bench_steps: the hand-written rolling disk differs from the framework's by %.3g at t = 2\n", worst);
  return false;
}

// ---- Boost.Odeint runge_kutta4 ----
using OdeState = std::array<double, 10>;

template <class Rhs>
void odeint_loop(benchmark::State& st, Rhs&& rhs) {
  boost::numeric::odeint::runge_kutta4<OdeState> stepper;
  const State s0 = chaotic_initial();
  OdeState y0;
  for (int i = 0; i < 5; ++i) y0[i] = s0.q[i], y0[5 + i] = s0.v[i];
  OdeState y = y0;
  double t = 0.0;
  long k = 0;
  for (auto _ : st) {
    stepper.do_step(rhs, y, t, 0.2);
    t += 0.2;
    benchmark::DoNotOptimize(y.data());
    if (++k == kReset) {
      k = 0;
      y = y0;
      t = 0.0;
    }
  }
  set_rates(st);
}

/// odeint on the framework's right-hand side: NonholonomicVectorField of the plugin system.
void register_odeint() {
  g_systems.push_back(registry().make_system("chaotic_nonholonomic_particle", json::object(), "bench"));
  const auto& model = require<ConstrainedLagrangian>(*g_systems.back(), "odeint");
  auto field = std::make_shared<NonholonomicVectorField>();
  field->bind(model);
  benchmark::RegisterBenchmark("step/odeint/rk4/chaotic_particle", [field](benchmark::State& st) {
    odeint_loop(st, [&f = *field](const OdeState& y, OdeState& dy, double t) {
      Eigen::Map<const Vec> q(y.data(), 5), v(y.data() + 5, 5);
      Eigen::Map<Vec> qd(dy.data(), 5), vd(dy.data() + 5, 5);
      f.evaluate(t, q, v, qd, vd);
    });
  });
  benchmark::RegisterBenchmark("step/odeint_hand_rhs/rk4/chaotic_particle",
                               [](benchmark::State& st) { odeint_loop(st, bench::ChaoticParticleRhs{}); });
}

// ---- output: a run recording every step against one recording every 1000th (issue 17, item 3) ----
// DLA on the chaotic particle with the observers of the seed-000 figure studies (trajectory, energy,
// constraint residual, the step's discrete quantities), rows written as CSV (or, names ending in
// /npy, as NumPy .npy: "record_format": "npy") to a temporary file. One iteration is one run of
// kRunSteps steps; time per step = CPU time / kRunSteps (counter ns_per_step).
// record/.../every:1 over record/.../every:1000 is the cost of writing every row.
constexpr long kRunSteps = 2000;

// One writer for every iteration of a benchmark, as the runner uses one per task: the .npy hint is
// one run's rows (what run_task gives); past it the writer reserves ahead by itself.
template <class Writer>
void record_runs(benchmark::State& st, Simulation& sim, long every, const std::filesystem::path& file) {
  {
    Writer w = [&] {
      if constexpr (std::is_same_v<Writer, NpyWriter>)
        return NpyWriter(file, sim.columns(), static_cast<std::size_t>(kRunSteps / every + 2));
      else
        return CsvWriter(file, sim.columns());
    }();
    const Simulation::RowSink sink = [&w](const double* row) { w.row(row); };
    for (auto _ : st) {
      State s = chaotic_initial();
      sim.run(s, 0.2, kRunSteps, every, sink);
      benchmark::DoNotOptimize(s.q.data());
    }
    w.close();
  }
  std::filesystem::remove(file);
}

void register_recording() {
  // discrete_quantities without the Φ column, which constraint_residual writes.
  static const std::vector<std::pair<std::string, json>> observer_specs = {
      {"trajectory", json::object()},
      {"energy_error", json::object()},
      {"constraint_residual", json::object()},
      {"discrete_quantities", {{"exclude", {"discrete_constraint_residual"}}}}};
  for (const auto& mode : {std::pair{1L, false}, {1000L, false}, {1L, true}, {1000L, true}}) {
    const long every = mode.first;
    const bool npy = mode.second;
    const std::string bench_name = "record/DLA/chaotic_particle/every:" + std::to_string(every) + (npy ? "/npy" : "");
    benchmark::RegisterBenchmark(bench_name.c_str(), [every, npy](benchmark::State& st) {
      auto sys = registry().make_system("chaotic_nonholonomic_particle", json::object(), "bench");
      auto in = registry().make_integrator("nonholonomic_newmark", newmark(0, 0, 0.5), "bench");
      std::vector<std::unique_ptr<Observer>> owned;
      std::vector<Observer*> observers;
      for (const auto& [name, params] : observer_specs) {
        owned.push_back(registry().make_observer(name, params, "bench"));
        observers.push_back(owned.back().get());
      }
      Simulation sim(*sys, *in, observers);
      const auto file = std::filesystem::temp_directory_path() /
                        ("dalembert_bench_record_" + std::to_string(::getpid()) + "_" + std::to_string(every) +
                         (npy ? ".npy" : ".csv"));
      if (npy) record_runs<NpyWriter>(st, sim, every, file);
      else record_runs<CsvWriter>(st, sim, every, file);
      st.counters["ns_per_step"] = benchmark::Counter(static_cast<double>(st.iterations()) * kRunSteps,
                                                      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    });
  }
}

}  // namespace

/// --profile=LABEL[:STEPS]: only steps the plugin pair LABEL (e.g. rk4/chaotic_particle) STEPS times
/// (default 100000), without the harness: for valgrind --tool=callgrind / perf record, where
/// instruction counts per step are Ir(step) / STEPS.
int profile(const std::string& arg) {
  const auto colon = arg.rfind(':');
  const std::string label = arg.substr(0, colon);
  const long steps = colon == std::string::npos ? 100000 : std::stol(arg.substr(colon + 1));
  for (const auto& p : pairs()) {
    if (p.label != label) continue;
    auto sys = registry().make_system(p.system, json::object(), "bench");
    auto in = registry().make_integrator(p.integrator, p.params, "bench");
    in->bind(*sys);
    State s = p.initial;
    in->begin(s);
    const auto t0 = std::chrono::steady_clock::now();
    for (long k = 0; k < steps; ++k) {
      in->advance(s, p.h);
      if ((k + 1) % kReset == 0) {
        s = p.initial;
        in->begin(s);
      }
    }
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%s: %ld steps, q[0] = %.17g, %.3f us/step (wall)\n", label.c_str(), steps, s.q[0], us / steps);
    return 0;
  }
  std::fprintf(stderr, "bench_steps: no pair '%s'\n", label.c_str());
  return 1;
}

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--profile=", 10) == 0) return profile(argv[i] + 10);
  if (!disk_baseline_agrees()) return 1;
  register_plugin_pairs();
  register_static();
  register_odeint();
  register_recording();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
