// Integrators written in Python (issue 31 item 2). A class with
//     order = 2                      # required: the order the convergence checks compare with
//     symmetric = False              # optional
//     parameters = {"theta": 0.5}    # optional: the study's params, passed to __init__ as keywords
//     needs = ["ConstrainedLagrangian"]   # optional: what it asks of a system (plugin/needs.hpp)
//     def bind(self, system): ...    # optional: the run's system (a dalembert.System, lent for the run)
//     def start(self, state): ...    # optional
//     def step(self, state, h): ...  # returns the new State, or (q, v)
// is an integrator plugin named "python:module.Class", found by importing `module` the first time a
// study, dalembert.integrator() or dalembert.check_integrator() names it, or registered under
// "python:NAME" with dalembert.register_integrator(cls, name). It then runs wherever a C++ plugin runs
// in this process: dalembert.simulate, studies run by dalembert.run (observers, claims, fits,
// figures, reports), the conformance suite. Each call into Python takes the GIL, so a study's tasks
// step one at a time; a step that raises dalembert.StepFailure is a failed step (the state is put
// back), any other exception ends the run naming the class and the exception.
#include "bindings.hpp"
#include "stepping.hpp"

#include <dalembert/core/constrained_lagrangian.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/host/in_process.hpp>
#include <dalembert/plugin/needs.hpp>
#include <dalembert/study/conformance.hpp>
#include <dalembert/study/names.hpp>
#include <memory>
#include <pybind11/stl.h>
#include <string>
#include <utility>
#include <vector>

namespace dalembert::python {

namespace {

constexpr const char* kPrefix = "python:";

/// What a class declares, read once when it becomes a plugin.
struct PythonScheme {
  py::object cls;  // released with the GIL held (never: schemes live as long as the process)
  std::string name;
  Needs needs;
  int order = 0;
  bool symmetric = false;
  std::vector<ParamSpec> params;
};

std::string type_error(const py::error_already_set& e) { return std::string(py::str(e.type().attr("__name__"))) + ": " + e.what(); }

// The new state from what step() returned: a State or a (q, v) pair.
void read_step_result(const py::object& out, const PythonScheme& scheme, State& s) {
  if (py::isinstance<State>(out)) {
    const State& n = out.cast<const State&>();
    s.q = n.q;
    s.v = n.v;
  } else if (py::isinstance<py::tuple>(out) && py::len(out) == 2) {
    const auto pair = out.cast<py::tuple>();
    s.q = to_vec(pair[0], scheme.name + ".step: q");
    s.v = to_vec(pair[1], scheme.name + ".step: v");
  } else {
    throw PluginError("Python integrator '" + scheme.name + "': step(state, h) returned " +
                      std::string(py::str(py::repr(out))).substr(0, 80) + "; expected a dalembert.State or a (q, v) pair");
  }
}

class PythonIntegrator final : public Integrator {
 public:
  PythonIntegrator(std::shared_ptr<const PythonScheme> scheme, py::dict kwargs)
      : scheme_(std::move(scheme)), kwargs_(std::move(kwargs)) {}
  // Every Python reference is dropped here, with the GIL held: the members left are empty handles.
  ~PythonIntegrator() override {
    py::gil_scoped_acquire gil;
    release();
    kwargs_ = py::object();
  }

  void bind(const System& s) override {
    // What the class declares it needs is what bind() refuses, as for a C++ plugin (plugin/needs.hpp).
    if (const std::string unmet = unmet_integrator_need(s, scheme_->needs); !unmet.empty()) {
      if (unmet.rfind("treats ", 0) == 0) check_treats(s, scheme_->name, Treats::Nothing);  // its own message
      throw Error("'" + scheme_->name + "' needs " + unmet + "; system '" + s.name() + "' does not provide it");
    }
    py::gil_scoped_acquire gil;
    release();
    lent_ = std::make_shared<PySystem>();
    lent_->system = std::shared_ptr<System>(const_cast<System*>(&s), [](System*) {});  // the run owns it
    lent_->layout = s.layout();
    call([&] {
      instance_ = scheme_->cls(**kwargs_.cast<py::dict>());
      if (py::hasattr(instance_, "bind")) instance_.attr("bind")(lent_);
    }, "bind");
  }
  Traits traits() const override { return {scheme_->order, scheme_->symmetric, true, {}}; }

 protected:
  void start(const State& s) override {
    py::gil_scoped_acquire gil;
    if (py::hasattr(instance_, "start")) call([&] { instance_.attr("start")(State(s)); }, "start");
  }
  void step(State& s, double h) override {
    // as any scheme would end on it: the model functions refuse a non-finite state
    if (!s.q.allFinite() || !s.v.allFinite())
      throw StepFailure("Python integrator '" + scheme_->name + "': the state to step from is not finite", 0.0);
    py::gil_scoped_acquire gil;
    State next = s;
    call([&] { read_step_result(instance_.attr("step")(State(s), h), *scheme_, next); }, "step");
    if (next.q.size() != s.q.size() || next.v.size() != s.v.size())
      throw PluginError("Python integrator '" + scheme_->name + "': step returned " + std::to_string(next.q.size()) +
                        " q and " + std::to_string(next.v.size()) + " v components; the state has " +
                        std::to_string(s.q.size()) + " and " + std::to_string(s.v.size()));
    s.q = next.q;
    s.v = next.v;
  }

 private:
  // Runs a call into the class: dalembert.StepFailure stays a failed step, any other exception
  // becomes a PluginError naming the class, the method and the exception.
  template <class F>
  void call(F&& f, const char* method) {
    try {
      f();
    } catch (py::error_already_set& e) {
      if (e.matches(step_failure_type()))
        throw StepFailure("Python integrator '" + scheme_->name + "': " + e.what(), 0.0);
      throw PluginError("Python integrator '" + scheme_->name + "': " + method + " raised " + type_error(e));
    }
  }
  // The instance, and the lent system made unusable: Python code may keep a reference to it.
  void release() {
    instance_ = py::object();
    if (lent_) lent_->system.reset();
    lent_.reset();
  }

  std::shared_ptr<const PythonScheme> scheme_;
  py::object kwargs_;  // a dict; py::object so that the destructor can leave it empty
  py::object instance_;
  std::shared_ptr<PySystem> lent_;
};

// The class's declared parameters as ParamSpecs, typed by their defaults.
std::vector<ParamSpec> declared_parameters(const py::object& cls, const std::string& name) {
  std::vector<ParamSpec> out;
  if (!py::hasattr(cls, "parameters")) return out;
  const py::object declared = cls.attr("parameters");
  if (!py::isinstance<py::dict>(declared))
    throw InputError(name, "parameters = " + std::string(py::str(py::repr(declared))) + ": expected a dict of defaults");
  for (const auto& [key, value] : declared.cast<py::dict>()) {
    ParamSpec p;
    p.name = py::str(key);
    p.default_value = to_json(value, name + ": parameters/" + p.name);
    p.type = py::isinstance<py::bool_>(value) ? ParamType::Boolean
             : py::isinstance<py::int_>(value) ? ParamType::Integer
             : py::isinstance<py::float_>(value) ? ParamType::Number
             : py::isinstance<py::str>(value) ? ParamType::String
                                                 : ParamType::Json;
    p.doc = "declared by the Python class";
    out.push_back(std::move(p));
  }
  return out;
}

// The order (a whole number ≥ 1) a class declares.
int declared_order(const py::object& cls, const std::string& name) {
  if (!py::hasattr(cls, "order"))
    throw InputError(name, "a Python integrator class declares its order (a class attribute, e.g. order = 2)");
  const py::object o = cls.attr("order");
  int overflow = 0;
  const long value = py::isinstance<py::int_>(o) ? PyLong_AsLongAndOverflow(o.ptr(), &overflow) : 0;
  if (!py::isinstance<py::int_>(o) || py::isinstance<py::bool_>(o) || overflow != 0 || value < 1 || value > 64)
    throw InputError(name, "order = " + std::string(py::str(py::repr(o))).substr(0, 40) + ": expected a whole number from 1 to 64");
  return static_cast<int>(value);
}

// The first non-blank line of a docstring, trimmed.
std::string first_line(const std::string& doc) {
  std::size_t start = doc.find_first_not_of(" \t\n");
  if (start == std::string::npos) return "an integrator written in Python";
  const std::size_t end = doc.find('\n', start);
  std::string line = doc.substr(start, end == std::string::npos ? std::string::npos : end - start);
  line.erase(line.find_last_not_of(" \t\r") + 1);
  return line;
}

// The descriptor of `cls` under `name` (GIL held).
PluginDescriptor describe_class(const py::object& cls, const std::string& name) {
  if (!py::hasattr(cls, "step") || !PyCallable_Check(cls.ptr()))
    throw InputError(name, "is not a class with a step(state, h) method");
  auto scheme = std::make_shared<PythonScheme>();
  scheme->cls = cls;
  scheme->name = name;
  scheme->order = declared_order(cls, name);
  scheme->symmetric = py::hasattr(cls, "symmetric") && py::bool_(cls.attr("symmetric"));
  scheme->params = declared_parameters(cls, name);
  PluginDescriptor d;
  d.name = name;
  d.kind = PluginKind::Integrator;
  d.version = py::hasattr(cls, "version") ? std::string(py::str(cls.attr("version"))) : "0.0.0";
  const py::object doc = cls.attr("__doc__");
  d.summary = doc.is_none() ? "an integrator written in Python" : first_line(py::str(doc).cast<std::string>());
  d.seed = "Python class " + std::string(py::str(cls.attr("__module__"))) + "." + std::string(py::str(cls.attr("__qualname__")));
  d.params = scheme->params;
  scheme->needs = {ConstrainedLagrangian::model_name};
  if (py::hasattr(cls, "needs")) scheme->needs = cls.attr("needs").cast<Needs>();
  d.needs = fixed_needs(scheme->needs);
  try {
    d.file = py::module_::import("inspect").attr("getsourcefile")(cls).cast<std::string>();
  } catch (const py::error_already_set&) {
    d.file.clear();  // a class made at the prompt has no file: the manifest then records none
  } catch (const py::cast_error&) {
    d.file.clear();
  }
  d.make_integrator = [scheme](const Parameters& p, const PluginFactory&) {
    py::gil_scoped_acquire gil;
    py::dict kwargs;
    for (const auto& spec : scheme->params) kwargs[py::str(spec.name)] = from_json(p.json(spec.name));
    return std::make_unique<PythonIntegrator>(scheme, std::move(kwargs));
  };
  return d;
}

// "python:module.Class" → the class, imported now (GIL taken: called from any thread).
PluginDescriptor resolve(PluginKind kind, const std::string& name, const std::string& where) {
  if (kind != PluginKind::Integrator)
    throw InputError(where, "'" + name + "': only integrators can be written in Python");
  py::gil_scoped_acquire gil;
  const std::string path = name.substr(std::string(kPrefix).size());
  const auto dot = path.rfind('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == path.size())
    throw InputError(where, "'" + name + "': expected python:MODULE.CLASS (or a name given to dalembert.register_integrator)");
  try {
    const py::object cls = py::module_::import(path.substr(0, dot).c_str()).attr(path.substr(dot + 1).c_str());
    return describe_class(cls, name);
  } catch (py::error_already_set& e) {
    throw InputError(where, "'" + name + "': " + type_error(e));
  }
}

}  // namespace

void register_python_integrators(py::module_& m) {
  set_in_process_resolver(kPrefix, resolve);
  m.def(
      "register_integrator",
      [](const py::object& cls, const py::object& name) {
        if (!py::isinstance<py::type>(cls))
          throw InputError("register_integrator: cls", "= " + std::string(py::str(py::repr(cls))).substr(0, 40) +
                                                           ": expected a class with order and step(state, h)");
        if (!name.is_none() && !is_safe_name(py::str(name).cast<std::string>()))
          throw InputError("register_integrator: name", "= " + std::string(py::str(py::repr(name))).substr(0, 40) + ": " +
                                                            safe_name_rule("name"));
        const std::string full = kPrefix + (name.is_none() ? std::string(py::str(cls.attr("__module__"))) + "." +
                                                                 std::string(py::str(cls.attr("__qualname__")))
                                                           : std::string(py::str(name)));
        register_in_process(describe_class(cls, full));
        return full;
      },
      py::arg("cls"), py::arg("name") = py::none(),
      "Makes class `cls` an integrator plugin named python:NAME (default python:module.Class); returns the name.");
  m.def(
      "check_integrator",
      [](const std::string& name) {
        ConformanceReport report;
        {
          py::gil_scoped_release release;  // the checks step the integrator, which takes the GIL back
          report = check_conformance(registry(), PluginKind::Integrator, name, {});
        }
        nlohmann::json rows = nlohmann::json::array();
        for (const auto& r : report.rows)
          rows.push_back({{"check", r.check}, {"example", r.example}, {"system", r.system},
                          {"verdict", r.verdict == Verdict::Pass ? "pass" : r.verdict == Verdict::Finding ? "finding" : "not exercised"},
                          {"detail", r.detail}});
        return py::make_tuple(from_json(rows), format_conformance(report));
      },
      py::arg("name"), "The conformance suite of `dalembert check NAME` on an integrator: (rows, text).");
}

}  // namespace dalembert::python
