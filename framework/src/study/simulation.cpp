#include <algorithm>
#include <cmath>
#include <cstdio>
#include <dalembert/core/errors.hpp>
#include <dalembert/study/column_names.hpp>
#include <dalembert/study/simulation.hpp>
#include <limits>
#include <sstream>

namespace dalembert {

Simulation::Simulation(const System& system, Integrator& integrator, std::vector<Observer*> observers)
    : system_(system), integrator_(integrator), observers_(std::move(observers)) {
  integrator_.bind(system_);
  for (auto* o : observers_) o->bind(system_, integrator_);
  gather_columns();
}

Simulation::Simulation(const System& system, Integrator& integrator, std::vector<Observer*> observers, Bound)
    : system_(system), integrator_(integrator), observers_(std::move(observers)) {
  gather_columns();
}

void Simulation::gather_columns() {
  columns_ = {"t"};
  std::vector<ColumnProducer> producers = {{"the time column", {"t"}}};
  for (auto* o : observers_) {
    offsets_.push_back(columns_.size());
    std::vector<std::string> c;
    o->columns(c);
    columns_.insert(columns_.end(), c.begin(), c.end());
    producers.push_back({"observer #" + std::to_string(producers.size()), std::move(c)});
  }
  check_unique_columns(producers);
  row_.assign(columns_.size(), 0.0);
  for (auto* o : observers_) needs_energy_ = needs_energy_ || o->needs_energy();
}

void Simulation::set_impact_map(ImpactMap* map) {
  impact_map_ = map;
  guarded_ = nullptr;
  exact_locator_ = nullptr;
  if (!map) return;
  guarded_ = dynamic_cast<const Guarded*>(&system_);
  if (!guarded_)
    throw Error("an impact map was given, but system '" + system_.name() + "' does not provide the model " +
                Guarded::model_name);
  map->bind(system_);
  set_impact_handling(map->handling());
}

void Simulation::set_impact_handling(const ImpactHandling& h) {
  if (h.locator != "auto" && h.locator != "exact" && h.locator != "generic")
    throw Error("impact handling: unknown locator \"" + h.locator + "\" (auto, exact or generic)");
  if (!(h.max_impacts_per_unit_time > 0.0)) throw Error("impact handling: max_impacts_per_unit_time must be positive");
  if (!(h.time_tolerance > 0.0)) throw Error("impact handling: time_tolerance must be positive");
  handling_ = h;
  exact_locator_ = nullptr;
  if (h.locator == "generic") return;
  exact_locator_ = dynamic_cast<const ExactEventLocator*>(&system_);
  if (!exact_locator_ && h.locator == "exact")
    throw Error("the exact event locator was asked for, but system '" + system_.name() +
                "' does not provide the model " + ExactEventLocator::model_name);
}

void Simulation::share(const State& s, bool recorded) {
  values_.recorded = recorded;
  if (needs_energy_) values_.energy = system_.energy(s);
}

void Simulation::record(const State& s, const RowSink& sink) {
  if (!sink) return;
  row_[0] = s.t;
  for (std::size_t i = 0; i < observers_.size(); ++i) observers_[i]->observe(s, values_, row_.data() + offsets_[i]);
  sink(row_.data());
}

void Simulation::observe_step(const State& s, long k, long steps, long record_every, const RowSink& sink) {
  const bool recorded = k % record_every == 0 || k == steps;
  share(s, recorded && sink);
  for (auto* o : observers_) o->step(s, values_);
  if (recorded) record(s, sink);
}

void Simulation::run(State& s, double h, long steps, long record_every, const RowSink& sink,
                     std::atomic<long>* progress) {
  if (impact_map_) {
    run_hybrid(s, h, steps, record_every, sink, progress);
    return;
  }
  const double t0 = s.t;
  integrator_.begin(s, h);
  for (auto* o : observers_) o->start(s);
  share(s, static_cast<bool>(sink));
  record(s, sink);
  for (long k = 1; k <= steps; ++k) {
    checked_step(s, h, k, nullptr);
    s.t = t0 + static_cast<double>(k) * h;  // no accumulated round-off in t
    observe_step(s, k, steps, record_every, sink);
    if (progress && (k & 255) == 0) progress->fetch_add(256, std::memory_order_relaxed);
  }
  if (progress) progress->fetch_add(steps & 255, std::memory_order_relaxed);
}

// ---- Hybrid runs (spec 004 §2, §3, claim 20) -------------------------------------------------------
//
// Step k goes from the grid time t0 + (k−1)h to t0 + kh. Inside it:
//  * with the system's ExactEventLocator (spec 004 §3): ask it for the first impact of the exact
//    flow in (0, remaining]; if there is one at τ, advance by the fractional step τ with the
//    integrator, polish τ by Newton on the guard of the numerical flow, apply the map, repeat;
//  * otherwise (the generic locator): take the step, then for every guard look for
//    (a) a sign change h < 0 → h ≥ 0, or (b) an interior local maximum (rate + → −, the grazing test
//    that a sign-change test alone misses, spec 004 claim 20) whose value is ≥ 0; locate the first
//    root by safeguarded Newton on the step size with fractional signed steps of the same integrator
//    (restarted from the step's start), to |Δt| ≤ time_tolerance; take the earliest guard, apply
//    its map, restart the integrator, and finish the step from there.
// The guard that just fired starts on h ≈ 0 with a negative rate: a guard that starts at h ≥ 0 only
// fires again after dipping below 0 inside the step, so it is never re-triggered at t = 0.
// The generic test assumes a step holds at most one extremum of each guard (bound h by the grazing
// time scale). More than max_impacts_per_unit_time impacts within one unit of time stop the run.

// The integrator's advance() keeps the step contract (state put back on failure, t + h, finite);
// here a failure becomes a RunFailure naming step k and, inside a hybrid step, `what` was taken.
void Simulation::checked_step(State& s, double h, long k, const char* what) {
  const double t = s.t;
  try {
    integrator_.advance(s, h);
  } catch (const NonFiniteState&) {
    std::ostringstream os;
    os << "integrator '" << integrator_.name() << "' produced a non-finite state at step " << k << " (";
    if (what) os << what << ", ";
    os << "t = " << t + h << ", h = " << h << "); the run was stopped";
    throw RunFailure(os.str(), k, t + h);
  } catch (const StepFailure& e) {
    std::ostringstream os;
    if (what) {
      os.precision(15);
      os << "integrator '" << integrator_.name() << "' failed at step " << k << " (" << what << " of h = " << h
         << ", t = " << t << " -> " << t + h << "): " << e.what();
    } else {
      os << "integrator '" << integrator_.name() << "' failed at step " << k << " (t = " << t << " -> " << t + h
         << "): " << e.what();
    }
    throw RunFailure(os.str(), k, t);
  }
}

void Simulation::trial(const State& from, double tau, long k) {
  trial_ = from;
  if (tau == 0.0) return;
  integrator_.begin(from);  // multistep integrators: a fractional step from `from`, not from memory
  checked_step(trial_, tau, k, "fractional step locating an impact");
}

// The root of guard g on [lo, hi] (unsigned offsets along the step direction), where
// h(lo) < 0 ≤ h(hi): safeguarded Newton (rate as derivative) with bisection. Leaves trial_ there.
bool Simulation::locate_on_guard(const State& s0, double dt, int g, double lo, double hi, long k, double& u) {
  const double dir = dt > 0 ? 1.0 : -1.0, tol = handling_.time_tolerance;
  u = 0.5 * (lo + hi);
  for (int it = 0; it < 200; ++it) {
    trial(s0, dir * u, k);
    const double f = guarded_->guard(g, trial_.q), fp = dir * guarded_->guard_rate(g, trial_);
    if (f == 0.0) return true;
    (f < 0.0 ? lo : hi) = u;
    double next = fp > 0.0 ? u - f / fp : std::numeric_limits<double>::quiet_NaN();
    const bool newton = next > lo && next < hi;
    if (!newton) next = 0.5 * (lo + hi);
    if ((newton && std::abs(next - u) <= 0.5 * tol) || hi - lo <= tol) {
      u = newton ? next : hi;
      trial(s0, dir * u, k);
      return true;
    }
    u = next;
  }
  return true;  // 200 safeguarded iterations: the bracket is far below any tolerance by now
}

// The zero of the guard's rate on [lo, hi] (its sign differs at the ends): Illinois regula falsi.
bool Simulation::locate_rate_zero(const State& s0, double dt, int g, double lo, double hi, long k, double& u) {
  const double dir = dt > 0 ? 1.0 : -1.0, tol = handling_.time_tolerance;
  auto rate_at = [&](double x) {
    trial(s0, dir * x, k);
    return dir * guarded_->guard_rate(g, trial_);
  };
  double flo = dir * guarded_->guard_rate(g, s0), fhi = rate_at(hi);
  if (flo * fhi > 0.0) return false;
  int side = 0;
  for (int it = 0; it < 200 && hi - lo > tol; ++it) {
    u = (lo * fhi - hi * flo) / (fhi - flo);
    if (!(u > lo && u < hi)) u = 0.5 * (lo + hi);
    const double f = rate_at(u);
    if (f == 0.0) return true;
    if ((f > 0.0) == (flo > 0.0)) {
      lo = u, flo = f;
      if (side == -1) fhi *= 0.5;
      side = -1;
    } else {
      hi = u, fhi = f;
      if (side == 1) flo *= 0.5;
      side = 1;
    }
  }
  u = 0.5 * (lo + hi);
  trial(s0, dir * u, k);
  return true;
}

bool Simulation::find_crossing(const State& s0, const State& s1, double dt, long k, int fired, double& tau,
                               int& sigma) {
  const double dir = dt > 0 ? 1.0 : -1.0, H = std::abs(dt);
  bool found = false, tried = false;
  double best = H;
  for (int g = 0; g < guarded_->num_guards(); ++g) {
    const double g0 = guarded_->guard(g, s0.q), d0 = dir * guarded_->guard_rate(g, s0);
    const double g1 = guarded_->guard(g, s1.q), d1 = dir * guarded_->guard_rate(g, s1);
    double lo = 0.0, hi = H, u;
    bool bracket = false;
    if (g0 < 0.0 && g1 >= 0.0) {  // (a) a sign change
      bracket = true;
    } else if (g0 < 0.0 && g1 < 0.0 && d0 > 0.0 && d1 < 0.0) {  // (b) grazing: an interior maximum
      tried = true;
      if (locate_rate_zero(s0, dt, g, 0.0, H, k, u) && guarded_->guard(g, trial_.q) >= 0.0) bracket = true, hi = u;
    } else if (g0 >= 0.0 && d0 > 0.0 && g != fired) {  // on the guard moving out, not just fired: now
      if (!found || best > 0.0) found = true, best = 0.0, sigma = g;
      continue;
    } else if (g0 >= 0.0 && d0 <= 0.0 && g1 >= 0.0 && d1 > 0.0) {  // left the guard and came back
      tried = true;
      if (locate_rate_zero(s0, dt, g, 0.0, H, k, u) && guarded_->guard(g, trial_.q) < 0.0) bracket = true, lo = u;
    }
    if (!bracket || (found && lo >= best)) continue;
    tried = true;
    locate_on_guard(s0, dt, g, lo, hi, k, u);
    if (!found || u < best) found = true, best = u, sigma = g;
  }
  if (!found) {
    if (tried) integrator_.begin(s1);  // trials restarted the integrator's memory
    return false;
  }
  tau = dir * best;
  trial(s0, tau, k);  // trial_: the state at the impact
  return true;
}

void Simulation::polish_exact(const State& s0, double dt, int g, long k, double& tau) {
  // The locator's τ is exact for the exact flow; a few Newton steps put the impact on the guard of
  // the integrator's flow (to |Δt| ≤ time_tolerance) when they converge within the step.
  const double H = std::abs(dt), tol = handling_.time_tolerance, tau0 = tau;
  trial(s0, tau, k);
  for (int it = 0; it < 6; ++it) {
    const double f = guarded_->guard(g, trial_.q), fp = guarded_->guard_rate(g, trial_);
    if (f == 0.0 || !(std::abs(fp) > 0.0)) return;
    const double next = tau - f / fp;
    if (!(std::abs(next) <= H) || next * dt < 0.0 || std::abs(next - tau0) > 1e-3 * H + 1e-9) break;
    const bool done = std::abs(next - tau) <= 0.5 * tol;
    tau = next;
    trial(s0, tau, k);
    // Near a grazing (double) root the outward and inward crossings are nanoseconds apart and Newton
    // can land on the inward one, which the map would then refuse as a tangency: an impact lost
    // (the penny's plastic impact 19 at h = 5e-4). Keep only crossings that still move outward.
    if ((dt > 0.0 ? 1.0 : -1.0) * guarded_->guard_rate(g, trial_) < 0.0) break;
    if (done) return;
  }
  if (tau != tau0) {  // did not converge: keep the locator's time
    tau = tau0;
    trial(s0, tau, k);
  }
}

bool Simulation::apply_impact(State& s, int sigma, long k, double dir) {
  // Rates in the direction of time (dir = sign h): an impact moves out through the guard.
  const double rate_pre = dir * guarded_->guard_rate(sigma, s);
  dg_.resize(s.q.size());
  guarded_->guard_gradient(sigma, s.q, dg_);
  const double noise = 1e-12 * dg_.norm() * s.v.norm();  // round-off level of dh·v
  if (rate_pre < -noise) return false;  // moving inward: a tangency, not an impact (spec 004 §6.7)
  pre_ = s;
  const std::string gname = guarded_->guard_name(sigma);
  try {
    impact_map_->apply(s, sigma);
  } catch (const Error& e) {
    throw RunFailure("impact on " + gname + " at step " + std::to_string(k) + ": " + e.what(), k, s.t);
  }
  s.t = pre_.t;
  if (!s.q.allFinite() || !s.v.allFinite())
    throw RunFailure("the impact map produced a non-finite state on " + gname + " at step " + std::to_string(k), k, s.t);
  const double rate_post = dir * guarded_->guard_rate(sigma, s);
  if (rate_post > 1e-10 * std::abs(rate_pre) + noise) {
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "the impact map left the velocity pointing out through %s at t = %.15g (dh.v before %.3e, after "
                  "%.3e > 0); the run was stopped",
                  gname.c_str(), s.t, dir * rate_pre, dir * rate_post);
    throw RunFailure(buf, k, s.t);
  }
  for (auto* o : observers_) o->impact(pre_, s, sigma);
  integrator_.begin(s);  // multistep integrators keep memory: restart after every impact
  ++impact_count_;
  // Zeno cap: more than max_impacts_per_unit_time impacts within one unit of time.
  recent_impacts_.push_back(s.t);
  while (std::abs(s.t - recent_impacts_.front()) > 1.0) recent_impacts_.pop_front();
  if (static_cast<double>(recent_impacts_.size()) > handling_.max_impacts_per_unit_time) {
    char buf[400];
    std::snprintf(buf, sizeof buf,
                  "Zeno-like run stopped: %zu impacts within one unit of time (t from %.15g to %.15g), more than "
                  "max_impacts_per_unit_time = %g; the last on %s (impact %ld). Impacts accumulate: raise the cap "
                  "in the impact map's params if this is intended",
                  recent_impacts_.size(), recent_impacts_.front(), s.t, handling_.max_impacts_per_unit_time,
                  gname.c_str(), impact_count_);
    throw RunFailure(buf, k, s.t);
  }
  return true;
}

void Simulation::run_hybrid(State& s, double h, long steps, long record_every, const RowSink& sink,
                            std::atomic<long>* progress) {
  const double t0 = s.t;
  impact_count_ = 0;
  recent_impacts_.clear();
  trial_ = pre_ = prev_ = s;
  integrator_.begin(s, h);
  check_initial(s);
  for (auto* o : observers_) o->start(s);
  share(s, static_cast<bool>(sink));
  record(s, sink);
  const bool exact = exact_locator_ && h > 0.0;  // the exact flow is located forward in time
  int fired = -1;                                 // the guard that fired at time s.t
  for (long k = 1; k <= steps; ++k) {
    const double target = t0 + static_cast<double>(k) * h;
    bool whole = true;
    for (long sub = 0;; ++sub) {
      if (sub > 100000) {  // impacts and tangencies without progress: never loop forever
        std::ostringstream os;
        os.precision(15);
        os << "more than 100000 impacts or tangential contacts inside step " << k << " (t = " << s.t
           << "); the run was stopped";
        throw RunFailure(os.str(), k, s.t);
      }
      const double dt = whole ? h : target - s.t;
      if (dt == 0.0) break;
      double tau = 0.0;
      int sigma = -1;
      if (exact) {
        if (!exact_locator_->next_impact(s, dt, fired, tau, sigma)) {
          checked_step(s, dt, k, "step");
          fired = -1;
          break;
        }
        prev_ = s;
        polish_exact(prev_, dt, sigma, k, tau);
        s = trial_;
      } else {
        prev_ = s;
        checked_step(s, dt, k, "step");
        if (!find_crossing(prev_, s, dt, k, fired, tau, sigma)) {
          fired = -1;
          break;
        }
        s = trial_;
      }
      apply_impact(s, sigma, k, h > 0.0 ? 1.0 : -1.0);  // false: a tangency, no map applied
      fired = sigma;
      whole = false;
    }
    s.t = target;
    observe_step(s, k, steps, record_every, sink);
    if (progress && (k & 255) == 0) progress->fetch_add(256, std::memory_order_relaxed);
  }
  if (progress) progress->fetch_add(steps & 255, std::memory_order_relaxed);
}

void Simulation::check_initial(const State& s) const {
  if (!impact_map_) return;
  for (int g = 0; g < guarded_->num_guards(); ++g) {
    const double v = guarded_->guard(g, s.q);
    if (v > 1e-12) {
      char buf[256];
      std::snprintf(buf, sizeof buf,
                    "the initial state is outside the admissible set: %s has h = %.3e > 0 at t = %g (h < 0 inside)",
                    guarded_->guard_name(g).c_str(), v, s.t);
      throw RunFailure(buf, 0, s.t);
    }
  }
}

std::vector<std::pair<std::string, double>> Simulation::summary() const {
  std::vector<std::pair<std::string, double>> out;
  for (auto* o : observers_) o->summary(out);
  return out;
}

}  // namespace dalembert
