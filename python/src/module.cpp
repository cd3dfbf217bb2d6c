// The extension module _dalembert; the package dalembert (python/dalembert) wraps it.
#include "bindings.hpp"

#include <dalembert/study/runner.hpp>

namespace dalembert::python {

Registry& mutable_registry() {
  static Registry* reg = new Registry();  // leaked on purpose (bindings.hpp)
  return *reg;
}

const Registry& registry() { return mutable_registry(); }

}  // namespace dalembert::python

PYBIND11_MODULE(_dalembert, m) {
  using namespace dalembert::python;
  m.doc() = "dalembert's C++ core: runs studies, lists plugins, steps systems (use the package dalembert)";
  m.attr("version") = dalembert::version();
  m.attr("revision") = dalembert::source_revision();
  register_errors(m);
  register_runs(m);
  register_plugins(m);
  register_stepping(m);
  register_model(m);
  register_simulate(m);
  register_python_integrators(m);
}
