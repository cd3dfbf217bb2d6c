// Issue 4, items 1 and 4: wall time of the figure studies (seed 000 Figs 1-5, as
// `dalembert run --no-plots` runs them), and the ensemble scaling of Fig 3: the Ψ_h (β = β′ = 0.1
// Newmark blocks) ensemble of 100 members × 50 000 steps at 1 and 2 threads; and a 10 s run of the
// Whipple bicycle at h = 1e-3 per integrator (issue 28 item 6: under a second each).
//
// --tiny (the CTest smoke run): every study cut to a few steps and the ensemble to 4 members, so
// the whole binary runs in seconds. Benchmarks report real (wall) time, one iteration each.
#include <benchmark/benchmark.h>

#include <cstring>
#include <dalembert/study/runner.hpp>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

using namespace dalembert;
namespace fs = std::filesystem;

namespace {

bool g_tiny = false;

fs::path scratch() {
  static const fs::path dir = fs::temp_directory_path() / ("dalembert_bench_" + std::to_string(::getpid()));
  return dir;
}

Study load(const std::string& relative) {
  Study s = load_study(std::string(DALEMBERT_SOURCE_DIR) + "/" + relative);
  if (g_tiny) {
    const double h = s.h.empty() ? 0.1 : s.h.front();
    s.T = 20 * h;
    if (s.ensemble.size > 4) s.ensemble.size = 4;
    s.claims.clear();  // they name times of the whole horizon: refused before a run of the cut one
  }
  return s;
}

void run(benchmark::State& st, const Study& study, int threads, double steps) {
  RunOptions opt;
  opt.threads = threads;
  opt.plots = false;
  opt.verbose = false;
  opt.progress = false;
  for (auto _ : st) {
    opt.out_dir = scratch() / (study.name + "_" + std::to_string(threads));
    fs::remove_all(*opt.out_dir);
    run_study(study, opt);
  }
  fs::remove_all(*opt.out_dir);
  st.counters["steps"] = steps;  // bench/make_table.py divides the wall time by it
}

void register_studies() {
  for (const char* f : {"studies/newmark/fig1_particle.json", "studies/newmark/fig2_chaotic.json",
                        "studies/newmark/fig4_cvt_eps0.json", "studies/newmark/fig5_cvt_eps01.json"}) {
    const Study s = load(f);
    double steps = 0;
    for (const auto& i : s.integrators) steps += s.T / (i.h > 0 ? i.h : s.h.front());
    benchmark::RegisterBenchmark(("study/" + s.name).c_str(), [s, steps](benchmark::State& st) { run(st, s, 0, steps); })
        ->Iterations(1)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
  // Issue 28 item 6: a 10 s Whipple bicycle run at h = 1e-3 (bench/whipple_10s.json), one
  // benchmark per integrator (DLA, MLA, RK4); bench/make_table.py states the "< 1 s" target from it.
  {
    const Study bicycle = load("bench/whipple_10s.json");
    for (std::size_t i = 0; i < bicycle.integrators.size(); ++i) {
      Study one = bicycle;
      one.integrators = {bicycle.integrators[i]};
      const double steps = one.T / (one.integrators[0].h > 0 ? one.integrators[0].h : one.h.front());
      benchmark::RegisterBenchmark(("bicycle_10s/" + one.integrators[0].label).c_str(),
                                   [one, steps](benchmark::State& st) { run(st, one, 1, steps); })
          ->Iterations(1)
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond);
    }
  }
  // Fig 3: the figure, one integrator (Psi_h_beta0.1), 100 × 50 000 steps.
  Study fig3 = load("studies/newmark/fig3_ensemble.json");
  fig3.integrators.resize(1);
  fig3.claims.clear();  // they name the other integrators too
  const double steps = double(fig3.ensemble.size) * (fig3.T / fig3.h.front());
  for (int threads : {1, 2}) {
    benchmark::RegisterBenchmark(("ensemble/fig3_Psi_h_beta0.1/threads:" + std::to_string(threads)).c_str(),
                                 [fig3, threads, steps](benchmark::State& st) { run(st, fig3, threads, steps); })
        ->Iterations(1)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--tiny") == 0)
      g_tiny = true;
    else
      args.push_back(argv[i]);
  }
  int n = static_cast<int>(args.size());
  register_studies();
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  fs::remove_all(scratch());
  return 0;
}
