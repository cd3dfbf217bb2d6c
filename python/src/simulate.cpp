// dalembert.simulate(): the framework's Simulation loop from Python, in C++ with the GIL released,
// the recorded rows handed to numpy without a copy. The loop advances a copy of the State, written
// back once with the GIL held, so Python code running meanwhile never sees a half-advanced state;
// the State and the Integrator are marked as running, and other threads are refused changing them.
// The run is bounded (max_steps, by default the study's limit "steps") and Ctrl-C stops it.
#include "stepping.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <dalembert/core/error_text.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/observer.hpp>
#include <dalembert/study/limits.hpp>
#include <dalembert/study/simulation.hpp>
#include <dalembert/study/study.hpp>
#include <optional>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

namespace dalembert::python {

namespace {

// The States that simulate() calls are advancing; read and written with the GIL held only.
std::vector<const State*>& running_states() {
  static std::vector<const State*> states;
  return states;
}

// Marks a State and an Integrator as advanced by this call; made and destroyed with the GIL held.
class Running {
 public:
  Running(const State& s, PyIntegrator& i) : state_(s), integrator_(i) {
    running_states().push_back(&state_);
    integrator_.running = true;
  }
  ~Running() {
    auto& all = running_states();
    all.erase(std::find(all.begin(), all.end(), &state_));
    integrator_.running = false;
  }
  Running(const Running&) = delete;
  Running& operator=(const Running&) = delete;

 private:
  const State& state_;
  PyIntegrator& integrator_;
};

// Lets Python handle signals while the loop runs without the GIL: every 64 steps it reads the
// clock, and every 0.1 s it takes the GIL for PyErr_CheckSignals. A handler that raises (Ctrl-C:
// KeyboardInterrupt) stops the run right after the step just completed: this observer comes last,
// after every other observer saw that step. Python runs handlers in the main thread only, so the
// loop of another thread does without it (and never waits for the GIL).
class SignalCheck final : public Observer {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr auto period = std::chrono::milliseconds(100);

  void bind(const System&, const Integrator&) override {}
  void columns(std::vector<std::string>&) const override {}
  void start(const State&) override { next_ = Clock::now() + period; }
  void step(const State&, const StepValues&) override {
    if (++steps_ % 64 != 0 || Clock::now() < next_) return;
    {
      py::gil_scoped_acquire gil;
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    }
    next_ = Clock::now() + period;
  }
  void observe(const State&, const StepValues&, double*) override {}

 private:
  long steps_ = 0;
  Clock::time_point next_;
};

bool in_main_thread() {
  const auto threading = py::module_::import("threading");
  return threading.attr("current_thread")().is(threading.attr("main_thread")());
}

std::string value_text(double x) { return number_text(x, "%.17g"); }

// T/h as a number of steps, refused above max_steps (the study's limit "steps" by default).
long step_count(double h, double T, std::optional<double> max_steps) {
  const double limit = max_steps.value_or(Limits{}.steps);
  if (!std::isfinite(h) || h == 0.0) throw InputError("simulate: h", "= " + value_text(h) + ": a step size is finite and not zero");
  if (!std::isfinite(T) || !(T > 0.0))
    throw InputError("simulate: T", "= " + value_text(T) + ": the duration of the run is finite and > 0 (a negative h runs backwards)");
  if (!(std::isfinite(limit) && limit > 0.0))
    throw InputError("simulate: max_steps", "= " + value_text(limit) + ": expected a finite number > 0");
  const double n = T / std::abs(h);
  if (n > limit)
    throw InputError("simulate: T", "= " + value_text(T) + ": T/h = " + number_text(n, "%.6g") + " steps of h = " +
                                        value_text(h) + " exceed max_steps = " + number_text(limit, "%.6g") +
                                        "; pass max_steps= if you mean it (the default is the study limit \"steps\", " +
                                        number_text(Limits{}.steps, "%g") + ")");
  return steps_for(T, h, "simulate: T");
}

// Observers as a list of names, (name, params) pairs or {"plugin": name, "params": {...}} dicts.
std::vector<std::unique_ptr<Observer>> make_observers(const py::list& given) {
  std::vector<std::unique_ptr<Observer>> out;
  for (std::size_t i = 0; i < given.size(); ++i) {
    const std::string where = "simulate: observers[" + std::to_string(i) + "]";
    const py::handle o = given[i];
    nlohmann::json params = nlohmann::json::object();
    std::string name;
    if (py::isinstance<py::str>(o)) name = o.cast<std::string>();
    else if (py::isinstance<py::dict>(o)) {
      const nlohmann::json j = to_json(o, where);
      if (!j.contains("plugin") || !j["plugin"].is_string())
        throw InputError(where, "= " + j.dump() + ": an observer dict needs \"plugin\" (a name)");
      name = j["plugin"];
      params = j.value("params", nlohmann::json::object());
    } else if (py::isinstance<py::tuple>(o) && py::len(o) == 2 && py::isinstance<py::str>(o[py::int_(0)])) {
      name = o[py::int_(0)].cast<std::string>();
      params = to_json(o[py::int_(1)], where + "/params");
    } else
      throw InputError(where, "= " + py::repr(o).cast<std::string>().substr(0, 60) +
                                  ": expected a name, (name, params) or {\"plugin\", \"params\"}");
    out.push_back(registry().make_observer(name, params, where));
  }
  return out;
}

// The recorded rows as a numpy array that owns them (no copy).
py::array_t<double> table(std::unique_ptr<std::vector<double>> rows, std::size_t columns) {
  const auto nc = static_cast<py::ssize_t>(columns);
  const auto nr = static_cast<py::ssize_t>(rows->size()) / nc;
  double* data = rows->data();
  py::capsule owner(rows.release(), [](void* p) { delete static_cast<std::vector<double>*>(p); });
  return py::array_t<double>({nr, nc}, {nc * py::ssize_t(sizeof(double)), py::ssize_t(sizeof(double))}, data, owner);
}

py::tuple simulate(PySystem& sys, PyIntegrator& integ, State& state, double h, double T, const py::list& observers,
                   long record_every, std::optional<double> max_steps, bool interruptible) {
  if (integ.system.get() != &sys)
    throw InputError("simulate", "the integrator '" + integ.integrator->name() + "' is bound to system '" +
                                     integ.system->get().name() + "', not to the system given");
  integ.check_idle("simulate");
  check_not_running(state, "simulate");
  sys.check(state, "simulate");
  if (record_every < 1) throw InputError("simulate: record_every", "= " + std::to_string(record_every) + ": must be >= 1");
  const long steps = step_count(h, T, max_steps);
  check_inputs_cover(sys.get(), state.t, state.t + static_cast<double>(steps) * h, "simulate: system params");
  auto owned = make_observers(observers);
  std::vector<Observer*> obs;
  for (auto& o : owned) obs.push_back(o.get());
  SignalCheck signal_check;
  if (interruptible && in_main_thread()) obs.push_back(&signal_check);  // last: see SignalCheck

  auto rows = std::make_unique<std::vector<double>>();
  std::vector<std::pair<std::string, double>> summary;
  std::vector<std::string> columns;
  State work = state;
  const Running running(state, integ);
  integ.started = false;  // until a run that started it completes
  try {
    py::gil_scoped_release release;
    Simulation sim(sys.get(), *integ.integrator, obs);
    columns = sim.columns();
    const std::size_t nc = columns.size();
    rows->reserve(std::min<std::size_t>((static_cast<std::size_t>(steps / record_every) + 2) * nc, std::size_t(1) << 24));
    sim.run(work, h, steps, record_every, [&](const double* row) { rows->insert(rows->end(), row, row + nc); });
    summary = sim.summary();
  } catch (const py::error_already_set&) {  // a signal handler raised: keep the last completed step
    state = work;
    integ.started = true;
    throw;
  }
  state = work;
  integ.started = true;  // step() continues from the final state
  py::dict summ;
  for (const auto& [name, value] : summary) summ[py::str(name)] = value;
  return py::make_tuple(columns, table(std::move(rows), columns.size()), summ);
}

}  // namespace

void check_not_running(const State& s, const char* who) {
  const auto& all = running_states();
  if (std::find(all.begin(), all.end(), &s) != all.end())
    throw Error(std::string(who) + ": this State is being advanced by simulate() in another thread; change it after simulate() "
                      "returns, or give each thread its own State");
}

void register_simulate(py::module_& m) {
  m.def("simulate", &simulate, py::arg("system"), py::arg("integrator"), py::arg("state"), py::arg("h"), py::arg("T"),
        py::arg("observers") = py::list(), py::arg("record_every") = 1, py::arg("max_steps") = py::none(),
        py::arg("interruptible") = true,
        "Runs the framework's Simulation loop on a copy of `state` and writes the final state back; returns\n"
        "(columns, rows, summary). Refuses T/h above max_steps (None: the study limit \"steps\"). Ctrl-C raises\n"
        "KeyboardInterrupt with `state` at the last completed step (interruptible=False: no signal checks);\n"
        "any other error leaves `state` as it was.");
}

}  // namespace dalembert::python
