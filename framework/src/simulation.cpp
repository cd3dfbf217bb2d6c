#include <cmath>
#include <dalembert/core/errors.hpp>
#include <dalembert/study/simulation.hpp>
#include <sstream>

namespace dalembert {

Simulation::Simulation(const System& system, Integrator& integrator, std::vector<Observer*> observers)
    : system_(system), integrator_(integrator), observers_(std::move(observers)) {
  integrator_.bind(system_);
  columns_ = {"t"};
  for (auto* o : observers_) {
    o->bind(system_, integrator_);
    offsets_.push_back(columns_.size());
    std::vector<std::string> c;
    o->columns(c);
    columns_.insert(columns_.end(), c.begin(), c.end());
  }
  row_.assign(columns_.size(), 0.0);
}

void Simulation::set_impact_map(ImpactMap* map) {
  impact_map_ = map;
  guarded_ = nullptr;
  if (!map) return;
  guarded_ = dynamic_cast<const Guarded*>(&system_);
  if (!guarded_)
    throw Error("an impact map was given, but system '" + system_.name() + "' does not provide the model " +
                Guarded::model_name);
  map->bind(system_);
}

void Simulation::record(const State& s, const RowSink& sink) {
  if (!sink) return;
  row_[0] = s.t;
  for (std::size_t i = 0; i < observers_.size(); ++i) observers_[i]->observe(s, row_.data() + offsets_[i]);
  sink(row_.data());
}

void Simulation::run(State& s, double h, long steps, long record_every, const RowSink& sink,
                     std::atomic<long>* progress) {
  const double t0 = s.t;
  integrator_.start(s);
  for (auto* o : observers_) o->start(s);
  record(s, sink);
  for (long k = 1; k <= steps; ++k) {
    try {
      integrator_.step(s, h);
    } catch (const StepFailure& e) {
      std::ostringstream os;
      os << "integrator '" << integrator_.name() << "' failed at step " << k << " (t = " << s.t << " -> "
         << s.t + h << "): " << e.what();
      throw RunFailure(os.str(), k, s.t);
    }
    s.t = t0 + static_cast<double>(k) * h;  // no accumulated round-off in t
    if (!s.q.allFinite() || !s.v.allFinite()) {
      std::ostringstream os;
      os << "integrator '" << integrator_.name() << "' produced a non-finite state at step " << k << " (t = " << s.t
         << ", h = " << h << "); the run was stopped";
      throw RunFailure(os.str(), k, s.t);
    }
    for (auto* o : observers_) o->step(s);
    if (k % record_every == 0 || k == steps) record(s, sink);
    if (progress && (k & 255) == 0) progress->fetch_add(256, std::memory_order_relaxed);
  }
  if (progress) progress->fetch_add(steps & 255, std::memory_order_relaxed);
}

std::vector<std::pair<std::string, double>> Simulation::summary() const {
  std::vector<std::pair<std::string, double>> out;
  for (auto* o : observers_) o->summary(out);
  return out;
}

}  // namespace dalembert
