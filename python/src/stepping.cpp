// Stepping from Python: a State exchanged as numpy arrays, a System and an Integrator made by the
// registry, one step at a time (Integrator.step), or a whole run in C++ (simulate: the
// framework's Simulation loop, the GIL released, the recorded rows handed to numpy without a copy).
#include "bindings.hpp"

#include <dalembert/core/errors.hpp>
#include <dalembert/core/integrator.hpp>
#include <dalembert/core/step_aware.hpp>
#include <dalembert/core/system.hpp>
#include <dalembert/study/simulation.hpp>
#include <dalembert/study/study.hpp>
#include <memory>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <sstream>

namespace dalembert::python {

namespace {

using Array = py::array_t<double, py::array::c_style | py::array::forcecast>;

Vec to_vec(const Array& a, const char* what) {
  if (a.ndim() != 1) throw py::value_error(std::string(what) + " must be a 1-d array, got " + std::to_string(a.ndim()) + " dimensions");
  return Eigen::Map<const Vec>(a.data(), a.shape(0));
}

// A read-only copy: writing into it would change nothing, so numpy refuses it instead.
py::array to_array(const Vec& x) {
  py::array_t<double> a(x.size());
  std::copy(x.data(), x.data() + x.size(), a.mutable_data());
  a.attr("setflags")(py::arg("write") = false);
  return a;
}

// A system made by the registry, with its layout (checked against every state it is given).
struct PySystem {
  std::shared_ptr<System> system;
  Layout layout;

  void check(const State& s, const char* who) const {
    if (s.q.size() != Eigen::Index(layout.q.size()) || s.v.size() != Eigen::Index(layout.v.size()))
      throw InputError(who, "the state has " + std::to_string(s.q.size()) + " q and " + std::to_string(s.v.size()) +
                                " v components; system '" + system->name() + "' has " + std::to_string(layout.q.size()) +
                                " and " + std::to_string(layout.v.size()));
  }
};

// An integrator bound to one system. step() starts it (StepAware hint, then start) the first time,
// as the Simulation loop does at t0; start() restarts it from another state.
struct PyIntegrator {
  std::shared_ptr<PySystem> system;  // the integrator keeps a reference to it
  std::unique_ptr<Integrator> integrator;
  bool started = false;

  void start(const State& s, double h) {
    system->check(s, "Integrator.start");
    if (auto* a = dynamic_cast<StepAware*>(integrator.get()); a && h != 0.0) a->expect_step(h);
    integrator->start(s);
    started = true;
  }
  void step(State& s, double h) {
    if (!started) start(s, h);
    system->check(s, "Integrator.step");
    const double t = s.t;
    integrator->step(s, h);
    s.t = t + h;  // whatever the integrator did with it, as the Simulation loop does
    if (!s.q.allFinite() || !s.v.allFinite()) {
      std::ostringstream os;
      os << "integrator '" << integrator->name() << "' produced a non-finite state (t = " << s.t << ", h = " << h << ")";
      throw Error(os.str());
    }
  }
};

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
      const nlohmann::json j = to_json(o);
      if (!j.contains("plugin") || !j["plugin"].is_string())
        throw InputError(where, "= " + j.dump() + ": an observer dict needs \"plugin\" (a name)");
      name = j["plugin"];
      params = j.value("params", nlohmann::json::object());
    } else if (py::isinstance<py::tuple>(o) && py::len(o) == 2) {
      name = py::str(o[py::int_(0)]).cast<std::string>();
      params = to_json(o[py::int_(1)]);
    } else
      throw InputError(where, "= " + py::repr(o).cast<std::string>() + ": expected a name, (name, params) or {\"plugin\", \"params\"}");
    out.push_back(registry().make_observer(name, params, where));
  }
  return out;
}

}  // namespace

void register_stepping(py::module_& m) {
  py::class_<State>(m, "State", "A state (t, q, v); q and v are read-only numpy copies: assign whole arrays to change them.")
      .def(py::init([](const Array& q, const Array& v, double t) {
             return State{t, to_vec(q, "q"), to_vec(v, "v")};
           }),
           py::arg("q"), py::arg("v"), py::arg("t") = 0.0)
      .def_readwrite("t", &State::t)
      .def_property(
          "q", [](const State& s) { return to_array(s.q); }, [](State& s, const Array& a) { s.q = to_vec(a, "q"); })
      .def_property(
          "v", [](const State& s) { return to_array(s.v); }, [](State& s, const Array& a) { s.v = to_vec(a, "v"); })
      .def("copy", [](const State& s) { return State(s); })
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
             s->system = registry().make_system(name, params.is_none() ? nlohmann::json::object() : to_json(params), where);
             s->layout = s->system->layout();
             return s;
           }),
           py::arg("name"), py::arg("params") = py::none())
      .def_property_readonly("name", [](const PySystem& s) { return s.system->name(); })
      .def_property_readonly("q_names", [](const PySystem& s) { return s.layout.q; })
      .def_property_readonly("v_names", [](const PySystem& s) { return s.layout.v; })
      .def_property_readonly("diagnostic_names",
                             [](const PySystem& s) {
                               std::vector<std::string> n;
                               s.system->diagnostic_names(n);
                               return n;
                             })
      .def_property_readonly("has_exact_solution", [](const PySystem& s) { return s.system->has_exact_solution(); })
      .def(
          "state",
          [](const PySystem& s, const Array& q, const Array& v, double t) {
            State st{t, to_vec(q, "q"), to_vec(v, "v")};
            s.check(st, "System.state");
            return st;
          },
          py::arg("q"), py::arg("v"), py::arg("t") = 0.0, "A State checked against the system's layout.")
      .def("energy",
           [](const PySystem& s, const State& st) {
             s.check(st, "System.energy");
             return s.system->energy(st);
           })
      .def("constraint_residual",
           [](const PySystem& s, const State& st) {
             s.check(st, "System.constraint_residual");
             return s.system->constraint_residual(st);
           })
      .def("diagnostics",
           [](const PySystem& s, const State& st) {
             s.check(st, "System.diagnostics");
             std::vector<std::string> names;
             s.system->diagnostic_names(names);
             std::vector<double> values(names.size());
             s.system->diagnostics(st, values.data());
             py::dict out;
             for (std::size_t i = 0; i < names.size(); ++i) out[py::str(names[i])] = values[i];
             return out;
           })
      .def(
          "project",
          [](const PySystem& s, State& st) {
            s.check(st, "System.project");
            return s.system->project(st);
          },
          "Moves v onto the constraints in place; False if the system cannot.")
      .def(
          "exact_solution",
          [](const PySystem& s, const State& s0, double t) {
            s.check(s0, "System.exact_solution");
            if (!s.system->has_exact_solution()) throw Error("system '" + s.system->name() + "' has no exact solution");
            State out;
            s.system->exact_solution(s0, t, out);
            return out;
          },
          py::arg("state0"), py::arg("t"));

  py::class_<PyIntegrator>(m, "Integrator", "An integrator plugin instance bound to a system (dalembert.integrator(name, system, params)).")
      .def(py::init([](const std::string& name, std::shared_ptr<PySystem> system, const py::object& params) {
             const std::string where = "dalembert.integrator(\"" + name + "\")";
             auto i = std::make_unique<PyIntegrator>();
             i->system = std::move(system);
             i->integrator = registry().make_integrator(name, params.is_none() ? nlohmann::json::object() : to_json(params), where);
             i->integrator->bind(*i->system->system);
             return i;
           }),
           py::arg("name"), py::arg("system"), py::arg("params") = py::none())
      .def_property_readonly("name", [](const PyIntegrator& i) { return i.integrator->name(); })
      .def_property_readonly("system", [](const PyIntegrator& i) { return i.system; })
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
          "Advances `state` in place by one step of signed size h (t += h); returns it.")
      .def("quantities", [](const PyIntegrator& i) {
        std::vector<std::string> names;
        i.integrator->quantity_names(names);
        std::vector<double> values(names.size());
        i.integrator->discrete_quantities(values.data());
        py::dict out;
        for (std::size_t k = 0; k < names.size(); ++k) out[py::str(names[k])] = values[k];
        return out;
      }, "The discrete quantities the integrator published for its last step.");

  m.def(
      "simulate",
      [](std::shared_ptr<PySystem> sys, PyIntegrator& integ, State& state, double h, double T, const py::list& observers,
         long record_every) {
        if (integ.system != sys)
          throw InputError("simulate", "the integrator '" + integ.integrator->name() + "' is bound to system '" +
                                           integ.system->system->name() + "', not to the system given");
        sys->check(state, "simulate");
        if (record_every < 1) throw InputError("simulate: record_every", "= " + std::to_string(record_every) + ": must be >= 1");
        const long steps = steps_for(T, h, "simulate: T");
        auto owned = make_observers(observers);
        std::vector<Observer*> obs;
        for (auto& o : owned) obs.push_back(o.get());
        auto rows = std::make_unique<std::vector<double>>();
        std::vector<std::pair<std::string, double>> summary;
        std::vector<std::string> columns;
        {
          py::gil_scoped_release release;
          Simulation sim(*sys->system, *integ.integrator, obs);
          columns = sim.columns();
          const std::size_t nc = columns.size();
          rows->reserve((static_cast<std::size_t>(steps / record_every) + 2) * nc);
          sim.run(state, h, steps, record_every, [&](const double* row) { rows->insert(rows->end(), row, row + nc); });
          summary = sim.summary();
        }
        integ.started = true;  // the run started it at t0; step() continues from the final state
        const auto nc = static_cast<py::ssize_t>(columns.size());
        const auto nr = static_cast<py::ssize_t>(rows->size()) / nc;
        double* data = rows->data();
        py::capsule owner(rows.release(), [](void* p) { delete static_cast<std::vector<double>*>(p); });
        py::array_t<double> table({nr, nc}, {nc * py::ssize_t(sizeof(double)), py::ssize_t(sizeof(double))}, data, owner);
        py::dict summ;
        for (const auto& [name, value] : summary) summ[py::str(name)] = value;
        return py::make_tuple(columns, table, summ);
      },
      py::arg("system"), py::arg("integrator"), py::arg("state"), py::arg("h"), py::arg("T"),
      py::arg("observers") = py::list(), py::arg("record_every") = 1,
      "Runs the framework's Simulation loop; advances `state` in place; returns (columns, rows, summary).");
}

}  // namespace dalembert::python
