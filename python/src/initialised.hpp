#pragma once
// Instances whose __init__ never ran — Cls.__new__(Cls), or the base's __new__ — hold no C++ object:
// pybind11 would hand a method uninitialised memory (a crash, issue 26). The module's classes load
// through this caster, which refuses such an instance with a TypeError saying how to make one, and
// refuses None (no method of the module takes None where it takes one of its objects).
#include <pybind11/pybind11.h>
#include <string>
#include <typeinfo>

namespace dalembert::python {

/// How a user makes a T ("dalembert.State(q, v) or System.state(q, v)"); one specialisation per class.
template <class T>
struct made_by;

template <class T>
struct initialised_caster : pybind11::detail::type_caster_base<T> {
  bool load(pybind11::handle src, bool convert) {
    namespace py = pybind11;
    if (src.is_none()) return false;  // a TypeError listing the signatures
    if (uninitialised(src))
      throw py::type_error("this " + py::str(py::type::handle_of(src).attr("__name__")).cast<std::string>() +
                           " was made by __new__ without __init__ and holds nothing; make one with " +
                           made_by<T>::how);
    return pybind11::detail::type_caster_base<T>::load(src, convert);
  }

 private:
  // An instance of T (or of a Python subclass) whose holder was never constructed. Every method
  // call asks: the exact type is answered without pybind11's type lookups.
  static bool uninitialised(pybind11::handle src) {
    namespace py = pybind11;
    static PyTypeObject* const exact = reinterpret_cast<PyTypeObject*>(py::detail::get_type_handle(typeid(T), true).ptr());
    auto* inst = reinterpret_cast<py::detail::instance*>(src.ptr());
    if (Py_TYPE(src.ptr()) == exact)
      return inst->simple_layout ? !inst->simple_holder_constructed : !inst->get_value_and_holder().holder_constructed();
    if (!py::isinstance<T>(src)) return false;  // not a T at all: the base caster refuses it
    return !inst->get_value_and_holder(py::detail::get_type_info(typeid(T))).holder_constructed();
  }
};

}  // namespace dalembert::python
