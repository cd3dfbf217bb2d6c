// Stepping from Python: a State exchanged as numpy arrays, a System and an Integrator made by the
// registry, one step at a time (Integrator.step). A whole run in C++ is simulate.cpp.
#include "stepping.hpp"

#include <cmath>
#include <dalembert/core/error_text.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/linearizable.hpp>
#include <dalembert/study/assembly.hpp>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <sstream>

namespace dalembert::python {

namespace {

using Array = py::array_t<double, py::array::c_style | py::array::forcecast>;

std::string value_text(double x) { return number_text(x, "%.17g"); }

// The system's Linearizable model (core/linearizable.hpp), or an Error naming what it lacks.
const Linearizable& linearizable(const PySystem& s, const char* who) {
  const auto* lin = dynamic_cast<const Linearizable*>(&s.get());
  if (!lin)
    throw Error(std::string(who) + ": system '" + s.get().name() +
                "' declares no family of steady motions (model Linearizable)");
  return *lin;
}

py::list names_of(const std::vector<int>& idx, const std::vector<std::string>& from) {
  py::list out;
  for (int i : idx) out.append(i >= 0 && i < static_cast<int>(from.size()) ? from[static_cast<std::size_t>(i)] : std::to_string(i));
  return out;
}

}  // namespace

double finite_time(double t, const std::string& who) {
  if (!std::isfinite(t)) throw InputError(who, "= " + value_text(t) + ": a time is finite");
  return t;
}

// A read-only copy: writing into it would change nothing, so numpy refuses it instead.
py::array to_array(const Vec& x) {
  py::array_t<double> a(x.size());
  std::copy(x.data(), x.data() + x.size(), a.mutable_data());
  a.attr("setflags")(py::arg("write") = false);
  return a;
}

py::array to_matrix(const Mat& m) {
  py::array_t<double> a({m.rows(), m.cols()});
  auto w = a.mutable_unchecked<2>();
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) w(i, j) = m(i, j);
  return a;
}

Vec to_vec(const py::handle& given, const std::string& what) {
  const py::array a = py::array::ensure(given);  // numpy's reading of any sequence
  if (!a) throw py::type_error(what + ": expected a 1-d array of numbers, got " + py::repr(py::type::handle_of(given)).cast<std::string>());
  const char kind = a.dtype().kind();
  const std::string dtype = py::str(a.dtype()).cast<std::string>();
  if (kind == 'c') throw InputError(what, "has complex values (dtype " + dtype + "); a state is real");
  if (std::string("biufO").find(kind) == std::string::npos)
    throw py::type_error(what + ": expected numbers, got an array of dtype " + dtype);
  if (a.ndim() != 1)
    throw InputError(what, "must be a 1-d array, got " + std::to_string(a.ndim()) + " dimensions");
  const Array d = Array::ensure(a);  // float64, contiguous: a copy when it is not one already
  if (!d) throw py::type_error(what + ": some values are not numbers (dtype " + dtype + ")");
  const Vec x = Eigen::Map<const Vec>(d.data(), d.shape(0));
  for (Eigen::Index i = 0; i < x.size(); ++i)
    if (!std::isfinite(x[i]))
      throw InputError(what + "[" + std::to_string(i) + "]", "= " + value_text(x[i]) + ": a state is finite");
  return x;
}

void check_finite(const State& s, const char* who) {
  if (!std::isfinite(s.t)) finite_time(s.t, std::string(who) + ": t");
  for (const auto& [name, x] : {std::pair<const char*, const Vec*>{"q", &s.q}, {"v", &s.v}})
    for (Eigen::Index i = 0; i < x->size(); ++i)
      if (!std::isfinite((*x)[i]))
        throw InputError(std::string(who) + ": " + name + "[" + std::to_string(i) + "]",
                         "= " + value_text((*x)[i]) + ": a state is finite");
}

const System& PySystem::get() const {
  if (!system)
    throw Error("this dalembert.System was lent to a Python integrator for one run, which has ended; make one "
                "with dalembert.system(name, params)");
  return *system;
}

void PySystem::check(const State& s, const char* who) const {
  if (s.q.size() != Eigen::Index(layout.q.size()) || s.v.size() != Eigen::Index(layout.v.size()))
    throw InputError(who, "the state has " + std::to_string(s.q.size()) + " q and " + std::to_string(s.v.size()) +
                              " v components; system '" + get().name() + "' has " + std::to_string(layout.q.size()) +
                              " and " + std::to_string(layout.v.size()));
  check_finite(s, who);
}

void PyIntegrator::check_idle(const char* who) const {
  if (running)
    throw Error(std::string(who) + ": integrator '" + integrator->name() +
                "' is running in simulate() in another thread; an integrator holds the memory of one run: "
                "give each thread its own (dalembert.integrator(...))");
}

void PyIntegrator::start(const State& s, double h) {
  check_idle("Integrator.start");
  system->check(s, "Integrator.start");
  if (!std::isfinite(h)) throw InputError("Integrator.start: h", "= " + value_text(h) + ": a step size is finite");
  integrator->begin(s, h);
  started = true;
}

// The step contract is the framework's (Integrator::advance): on a failure the state is put back.
void PyIntegrator::step(State& s, double h) {
  check_idle("Integrator.step");
  check_not_running(s, "Integrator.step");
  if (!std::isfinite(h) || h == 0.0)
    throw InputError("Integrator.step: h", "= " + value_text(h) + ": a step size is finite and not zero");
  system->check(s, "Integrator.step");
  if (!started) start(s, h);
  try {
    integrator->advance(s, h);
  } catch (...) {
    started = false;  // its memory may hold the failed step: the next step restarts it from `s`
    throw;
  }
}

void register_stepping(py::module_& m) {
  py::class_<State>(m, "State", "A state (t, q, v); q and v are read-only numpy copies: assign whole arrays to change them.")
      .def(py::init([](const py::handle& q, const py::handle& v, double t) {
             return State{finite_time(t, "State: t"), to_vec(q, "State: q"), to_vec(v, "State: v")};
           }),
           py::arg("q"), py::arg("v"), py::arg("t") = 0.0)
      .def_property(
          "t", [](const State& s) { return s.t; },
          [](State& s, double t) {
            check_not_running(s, "State.t");
            s.t = finite_time(t, "State.t");
          })
      .def_property(
          "q", [](const State& s) { return to_array(s.q); },
          [](State& s, const py::handle& a) {
            check_not_running(s, "State.q");
            s.q = to_vec(a, "State.q");
          })
      .def_property(
          "v", [](const State& s) { return to_array(s.v); },
          [](State& s, const py::handle& a) {
            check_not_running(s, "State.v");
            s.v = to_vec(a, "State.v");
          })
      .def("copy", [](const State& s) { return State(s); })
      .def("__copy__", [](const State& s) { return State(s); })
      .def("__deepcopy__", [](const State& s, const py::handle&) { return State(s); }, py::arg("memo"))
      .def("__repr__", [](const State& s) {
        std::ostringstream os;
        os.precision(17);
        os << "State(t=" << s.t << ", q=[" << s.q.transpose() << "], v=[" << s.v.transpose() << "])";
        return os.str();
      });

  py::class_<PySystem, std::shared_ptr<PySystem>>(m, "System", "A system plugin instance (dalembert.system(name, params)).")
      .def(py::init([](const std::string& name, const py::object& params) {
             const std::string where = "dalembert.system(\"" + name + "\")";
             auto s = std::make_shared<PySystem>();
             s->system = assemble_system(
                 registry(), plugin_use(name, params.is_none() ? nlohmann::json() : to_json(params, where + "/params"), where));
             s->layout = s->system->layout();
             return s;
           }),
           py::arg("name"), py::arg("params") = py::none())
      .def_property_readonly("name", [](const PySystem& s) { return s.get().name(); })
      .def_property_readonly("q_names", [](const PySystem& s) { return s.layout.q; })
      .def_property_readonly("v_names", [](const PySystem& s) { return s.layout.v; })
      .def_property_readonly("diagnostic_names",
                             [](const PySystem& s) {
                               std::vector<std::string> n;
                               s.get().diagnostic_names(n);
                               return n;
                             })
      .def_property_readonly("has_exact_solution", [](const PySystem& s) { return s.get().has_exact_solution(); })
      .def(
          "state",
          [](const PySystem& s, const py::handle& q, const py::handle& v, double t) {
            State st{finite_time(t, "System.state: t"), to_vec(q, "System.state: q"), to_vec(v, "System.state: v")};
            s.check(st, "System.state");
            return st;
          },
          py::arg("q"), py::arg("v"), py::arg("t") = 0.0, "A State checked against the system's layout.")
      .def(
          "energy",
          [](const PySystem& s, const State& st) {
            s.check(st, "System.energy");
            return s.get().energy(st);
          },
          py::arg("state"))
      .def(
          "constraint_residual",
          [](const PySystem& s, const State& st) {
            s.check(st, "System.constraint_residual");
            return s.get().constraint_residual(st);
          },
          py::arg("state"))
      .def(
          "diagnostics",
          [](const PySystem& s, const State& st) {
            s.check(st, "System.diagnostics");
            std::vector<std::string> names;
            s.get().diagnostic_names(names);
            std::vector<double> values(names.size());
            s.get().diagnostics(st, values.data());
            py::dict out;
            for (std::size_t i = 0; i < names.size(); ++i) out[py::str(names[i])] = values[i];
            return out;
          },
          py::arg("state"))
      .def(
          "project",
          [](const PySystem& s, State& st) {
            check_not_running(st, "System.project");
            s.check(st, "System.project");
            return s.get().project(st);
          },
          py::arg("state"), "Moves v onto the constraints in place; False if the system cannot.")
      .def(
          "exact_solution",
          [](const PySystem& s, const State& s0, double t) {
            s.check(s0, "System.exact_solution");
            finite_time(t, "System.exact_solution: t");
            if (!s.get().has_exact_solution()) throw Error("system '" + s.get().name() + "' has no exact solution");
            State out;
            s.get().exact_solution(s0, t, out);
            return out;
          },
          py::arg("state0"), py::arg("t"))
      .def_property_readonly(
          "family",
          [](const PySystem& s) -> py::object {
            const auto* lin = dynamic_cast<const Linearizable*>(&s.get());
            if (!lin) return py::none();
            const SteadyMotionFamily f = lin->steady_family();
            py::dict d;
            d["name"] = f.name;
            d["parameter"] = f.parameter;
            d["description"] = f.description;
            d["minimal"] = names_of(f.variables.minimal, s.layout.q);
            d["dependent"] = names_of(f.variables.dependent, s.layout.q);
            d["speeds"] = names_of(f.variables.speeds, s.layout.v);
            d["held"] = names_of(f.variables.held, s.layout.v);
            return d;
          },
          "The family of steady motions the system declares (linear_stability), or None.")
      .def(
          "steady_state",
          [](const PySystem& s, double value) {
            const Linearizable& lin = linearizable(s, "System.steady_state");
            if (!std::isfinite(value))
              throw InputError("System.steady_state: value", "= " + value_text(value) + ": a parameter value is finite");
            State st;
            lin.steady_state(value, st);
            return st;
          },
          py::arg("value"), "The steady motion of the system's family at parameter `value`.")
      .def(
          "linearise",
          [](const PySystem& s, const State& st) {
            const Linearizable& lin = linearizable(s, "System.linearise");
            s.check(st, "System.linearise");
            Linearisation out;
            lin.linearise(st, lin.steady_family().variables, out);
            py::dict d;
            d["state"] = to_matrix(out.state);
            d["names"] = out.names;
            d["mass"] = to_matrix(out.mass);
            d["damping"] = to_matrix(out.damping);
            d["stiffness"] = to_matrix(out.stiffness);
            d["held_coupling"] = out.held_coupling;
            d["steady_residual"] = out.steady_residual;
            d["holonomic_residual"] = out.holonomic_residual;
            return d;
          },
          py::arg("state"),
          "The exact linearisation of the reduced dynamics about `state` in the family's variables: "
          "{'state': the matrix of y' = state y, 'names': y's entries, 'mass', 'damping', 'stiffness', ...}.");

  py::class_<PyIntegrator>(m, "Integrator", "An integrator plugin instance bound to a system (dalembert.integrator(name, system, params)).")
      .def(py::init([](const std::string& name, PySystem& system, const py::object& params) {
             const std::string where = "dalembert.integrator(\"" + name + "\")";
             auto i = std::make_unique<PyIntegrator>();
             i->system = system.shared_from_this();
             i->integrator = assemble_integrator(
                 registry(), plugin_use(name, params.is_none() ? nlohmann::json() : to_json(params, where + "/params"), where),
                 i->system->get());
             return i;
           }),
           py::arg("name"), py::arg("system"), py::arg("params") = py::none())
      .def_property_readonly("name", [](const PyIntegrator& i) { return i.integrator->name(); })
      .def_property_readonly("system", [](const PyIntegrator& i) { return i.system; })
      .def_property_readonly(
          "running", [](const PyIntegrator& i) { return i.running; },
          "True while a simulate() call (in another thread) advances this integrator and its State.")
      .def_property_readonly("traits",
                             [](const PyIntegrator& i) {
                               const Traits t = i.integrator->traits();
                               py::dict d;
                               d["order"] = t.order;
                               d["symmetric"] = t.symmetric;
                               d["explicit"] = t.explicit_method;
                               d["preserves"] = t.preserves;
                               return d;
                             })
      .def(
          "start", [](PyIntegrator& i, const State& s, double h) { i.start(s, h); }, py::arg("state"), py::arg("h") = 0.0,
          "(Re)starts the integrator's memory at `state` (step() does it the first time); h: the step size to come.")
      .def(
          "step",
          [](PyIntegrator& i, State& s, double h) -> State& {
            i.step(s, h);
            return s;
          },
          py::arg("state"), py::arg("h"), py::return_value_policy::reference_internal,
          "Advances `state` in place by one step of signed size h (t += h); returns it. If the step fails\n"
          "(dalembert.Error), `state` is left as it was and the next step restarts the integrator from it.")
      .def(
          "quantities",
          [](const PyIntegrator& i) {
            i.check_idle("Integrator.quantities");
            std::vector<std::string> names;
            i.integrator->quantity_names(names);
            std::vector<double> values(names.size());
            i.integrator->discrete_quantities(values.data());
            py::dict out;
            for (std::size_t k = 0; k < names.size(); ++k) out[py::str(names[k])] = values[k];
            return out;
          },
          "The discrete quantities the integrator published for its last step.");
}

}  // namespace dalembert::python
