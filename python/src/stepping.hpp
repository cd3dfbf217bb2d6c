#pragma once
// The objects of stepping from Python (stepping.cpp, simulate.cpp): States exchanged as numpy
// arrays, a System and an Integrator made by the registry, and the rules every method applies:
// an instance made without __init__ is refused (initialised.hpp), a state is finite and fits its
// system, and a State or Integrator that a simulate() call is advancing (GIL released) is left
// alone by other threads until it returns.
#include "bindings.hpp"
#include "initialised.hpp"

#include <dalembert/core/integrator.hpp>
#include <dalembert/core/state.hpp>
#include <dalembert/core/system.hpp>
#include <pybind11/numpy.h>
#include <memory>
#include <string>

namespace dalembert::python {

/// A vector from a 1-d numpy array or sequence of finite real numbers; `what` names it ("State.q").
Vec to_vec(const py::handle& given, const std::string& what);
/// A read-only numpy copy of a vector.
py::array to_array(const Vec& x);
/// A matrix as a 2-d numpy array (a copy).
py::array to_matrix(const Mat& m);
/// t itself, or an InputError naming `who` if it is not finite.
double finite_time(double t, const std::string& who);
/// Refuses a state whose t, q or v is not finite (NaN, ±inf).
void check_finite(const State& s, const char* who);

/// A system made by the registry, with its layout (checked against every state it is given).
struct PySystem : std::enable_shared_from_this<PySystem> {
  std::shared_ptr<System> system;
  Layout layout;

  /// The state fits the layout and is finite.
  void check(const State& s, const char* who) const;
  /// The system; an Error for a system lent to a Python integrator by a run that has ended
  /// (python_integrators.cpp: `system` is then empty).
  const System& get() const;
};

/// An integrator bound to one system. step() starts it (StepAware hint, then start) the first time,
/// as the Simulation loop does at t0; start() restarts it from another state.
struct PyIntegrator {
  std::shared_ptr<PySystem> system;  // the integrator keeps a reference to it
  std::unique_ptr<Integrator> integrator;
  bool started = false;
  bool running = false;  // a simulate() call is advancing it (read and written with the GIL held)

  /// Refuses while a simulate() call in another thread runs this integrator: it holds one run's memory.
  void check_idle(const char* who) const;
  void start(const State& s, double h);
  /// One step of size h; on an error `s` is left as it was and the next step restarts the integrator.
  void step(State& s, double h);
};

/// Refuses to change (or advance) a State that a simulate() call is advancing (simulate.cpp).
void check_not_running(const State& s, const char* who);

template <>
struct made_by<State> {
  static constexpr const char* how = "dalembert.State(q, v) or System.state(q, v)";
};
template <>
struct made_by<PySystem> {
  static constexpr const char* how = "dalembert.system(name, params)";
};
template <>
struct made_by<PyIntegrator> {
  static constexpr const char* how = "dalembert.integrator(name, system, params)";
};

}  // namespace dalembert::python

namespace pybind11::detail {
template <>
struct type_caster<dalembert::State> : dalembert::python::initialised_caster<dalembert::State> {};
template <>
struct type_caster<dalembert::python::PySystem> : dalembert::python::initialised_caster<dalembert::python::PySystem> {};
template <>
struct type_caster<dalembert::python::PyIntegrator>
    : dalembert::python::initialised_caster<dalembert::python::PyIntegrator> {};
}  // namespace pybind11::detail
