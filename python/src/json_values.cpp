// JSON values from Python objects and back. Python → JSON walks the object itself (not json.dumps):
// a value JSON cannot hold — NaN, an infinity, an integer beyond a double, a key that is not a
// string, an object that is no JSON value, nesting deeper than a study may be (a circular
// reference) — is an InputError naming its place, never a parser's text about the dumped string.
#include "bindings.hpp"

#include <cmath>
#include <dalembert/core/errors.hpp>
#include <dalembert/core/json_input.hpp>

namespace dalembert::python {

namespace {

// The first characters of repr(obj), for a message.
std::string short_repr(const py::handle& obj) {
  std::string r = py::repr(obj).cast<std::string>();
  return r.size() <= 40 ? r : r.substr(0, 40) + "...";
}

// A JSON pointer segment: "~" and "/" escaped (RFC 6901).
std::string pointer_segment(std::string key) {
  for (std::size_t i = 0; (i = key.find_first_of("~/", i)) != std::string::npos; i += 2)
    key.replace(i, 1, key[i] == '~' ? "~0" : "~1");
  return "/" + key;
}

// A str as UTF-8 (a lone surrogate, e.g. from a file name read with errors="surrogateescape", has none).
std::string utf8(const py::handle& obj, const std::string& at) {
  Py_ssize_t size = 0;
  const char* text = PyUnicode_AsUTF8AndSize(obj.ptr(), &size);
  if (!text) {
    PyErr_Clear();
    throw InputError(at, "= " + short_repr(obj) + ": not valid text (it holds a lone surrogate)");
  }
  return {text, static_cast<std::size_t>(size)};
}

nlohmann::json number(const py::handle& obj, const std::string& at) {
  int overflow = 0;
  const long long i = PyLong_AsLongLongAndOverflow(obj.ptr(), &overflow);
  if (overflow == 0 && !(i == -1 && PyErr_Occurred())) return i;
  PyErr_Clear();
  if (overflow > 0) {
    const unsigned long long u = PyLong_AsUnsignedLongLong(obj.ptr());
    if (!PyErr_Occurred()) return u;
    PyErr_Clear();
  }
  const double d = PyLong_AsDouble(obj.ptr());  // as json.loads would read the digits
  if (d == -1.0 && PyErr_Occurred()) {
    PyErr_Clear();
    throw InputError(at, "= " + short_repr(obj) + ": an integer too large for a JSON number (a double)");
  }
  return d;
}

nlohmann::json convert(const py::handle& obj, const std::string& at, std::size_t depth) {
  if (depth > kJsonMaxDepth)
    throw InputError(at.size() <= 100 ? at : at.substr(0, 100) + "...",
                     "nested deeper than " + std::to_string(kJsonMaxDepth) + " levels (a container holding itself?)");
  if (obj.is_none()) return nullptr;
  if (PyBool_Check(obj.ptr())) return obj.ptr() == Py_True;
  if (PyLong_Check(obj.ptr())) return number(obj, at);
  if (PyFloat_Check(obj.ptr())) {  // numpy's float64 too
    const double d = PyFloat_AS_DOUBLE(obj.ptr());
    if (!std::isfinite(d)) throw InputError(at, "= " + short_repr(obj) + ": JSON has no NaN or infinity");
    return d;
  }
  if (PyUnicode_Check(obj.ptr())) return utf8(obj, at);
  if (PyDict_Check(obj.ptr())) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [key, value] : py::reinterpret_borrow<py::dict>(obj)) {
      if (!PyUnicode_Check(key.ptr()))
        throw InputError(at, "the key " + short_repr(key) + " is not a string (JSON keys are strings)");
      const std::string k = utf8(key, at);
      out[k] = convert(value, at + pointer_segment(k), depth + 1);
    }
    return out;
  }
  if (PyList_Check(obj.ptr()) || PyTuple_Check(obj.ptr())) {
    nlohmann::json out = nlohmann::json::array();
    std::size_t i = 0;
    for (const auto& item : py::reinterpret_borrow<py::sequence>(obj))
      out.push_back(convert(item, at + "/" + std::to_string(i++), depth + 1));
    return out;
  }
  if (py::hasattr(obj, "__array__") && py::hasattr(obj, "tolist") && py::hasattr(obj, "ndim")) {
    // a numpy array (e.g. an input table's t and values): its nested lists of Python numbers
    return convert(obj.attr("tolist")(), at, depth + 1);
  }
  if (PyIndex_Check(obj.ptr())) {  // numpy's integers
    const auto i = py::reinterpret_steal<py::object>(PyNumber_Index(obj.ptr()));
    if (!i) throw py::error_already_set();
    return number(i, at);
  }
  throw InputError(at, "= " + short_repr(obj) + ": not a JSON value (a dict, list, str, number, bool or None)");
}

}  // namespace

nlohmann::json to_json(const py::handle& obj, const std::string& where) { return convert(obj, where, 0); }

py::object from_json(const nlohmann::json& j) {
  return py::module_::import("json").attr("loads")(j.dump());
}

}  // namespace dalembert::python
