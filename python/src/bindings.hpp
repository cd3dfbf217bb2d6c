#pragma once
// What the files of the extension module _dalembert share: the registry every binding uses, JSON
// exchanged with Python objects, and one registration function per file (module.cpp calls them).
#include <dalembert/host/registry.hpp>
#include <nlohmann/json.hpp>
#include <pybind11/pybind11.h>

namespace dalembert::python {

namespace py = pybind11;

/// The registry of the process, as the command line builds it (DALEMBERT_PLUGIN_PATH, then the
/// plugins next to libdalembert). Never destroyed: plugin objects may outlive the module's teardown.
const Registry& registry();
/// The same registry, to add a search path to (plugins.cpp: a plugin built by this process).
Registry& mutable_registry();

/// A JSON value from a Python object (dict, list or tuple, str, int, float, bool, None; numpy's
/// scalars too); what JSON cannot hold is an InputError at `where` + the JSON pointer of the place
/// (json_values.cpp). Back to Python through the json module (NaN written as null, as the framework does).
nlohmann::json to_json(const py::handle& obj, const std::string& where);
py::object from_json(const nlohmann::json& j);

void register_errors(py::module_& m);    // errors.cpp: dalembert.Error, InputError, StepFailure
void register_python_integrators(py::module_& m);  // python_integrators.cpp: integrators written in Python
/// dalembert.StepFailure (errors.cpp).
py::handle step_failure_type();
void register_runs(py::module_& m);      // runs.cpp: run a study into a folder
void register_plugins(py::module_& m);   // plugins.cpp: list and describe plugins
void register_stepping(py::module_& m);  // stepping.cpp: State, System, Integrator
void register_model(py::module_& m);     // model.cpp: System.M, V, grad_V, A, g, f, multipliers
void register_simulate(py::module_& m);  // simulate.cpp: simulate

}  // namespace dalembert::python
