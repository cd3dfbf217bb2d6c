// Errors: every exception of the framework reaches Python as dalembert.Error (a RuntimeError),
// bad input as its subclass dalembert.InputError, a failed step as dalembert.StepFailure (which a
// Python integrator raises to fail a step, python_integrators.cpp), with the one-line text the command line prints
// after "error: ".
#include "bindings.hpp"

#include <dalembert/core/error_text.hpp>
#include <dalembert/core/errors.hpp>

namespace dalembert::python {

namespace {
py::handle step_failure_handle;
}  // namespace

py::handle step_failure_type() { return step_failure_handle; }

void register_errors(py::module_& m) {
  static py::exception<Error> error(m, "Error", PyExc_RuntimeError);
  static py::exception<InputError> input_error(m, "InputError", error.ptr());
  static py::exception<StepFailure> step_failure(m, "StepFailure", error.ptr());
  error.attr("__module__") = "dalembert";  // tracebacks say dalembert.Error, as users catch it
  input_error.attr("__module__") = "dalembert";
  step_failure.attr("__module__") = "dalembert";
  step_failure_handle = step_failure;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputError& e) {
      input_error(one_line(e.what()).c_str());
    } catch (const StepFailure& e) {
      step_failure(one_line(e.what()).c_str());
    } catch (const Error& e) {
      error(one_line(e.what()).c_str());
    } catch (const nlohmann::json::exception& e) {  // e.g. a study that is not valid JSON
      error(one_line(e.what()).c_str());
    }
  });
}

}  // namespace dalembert::python
