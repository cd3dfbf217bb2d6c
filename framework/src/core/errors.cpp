#include <cstdio>
#include <limits>
#include <sstream>
#include <dalembert/core/errors.hpp>

namespace dalembert {

Error::Error(const std::string& what) : std::runtime_error(what) {}
Error::~Error() = default;

InputError::InputError(std::string where, const std::string& message)
    : Error(where.empty() ? message : where + (message.rfind("= ", 0) == 0 ? " " : ": ") + message),  // "where = value: ..."
      where_(std::move(where)) {}
InputError::~InputError() = default;

PluginError::~PluginError() = default;

namespace {
std::string format_residual(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3e", r);
  return buf;
}
}  // namespace

StepFailure::StepFailure(std::string reason, double residual, int iterations)
    : Error(reason + " (residual " + format_residual(residual) + ")"),
      reason_(std::move(reason)), residual_(residual), iterations_(iterations) {}
StepFailure::StepFailure(const std::string& message, std::string reason, double residual, int iterations)
    : Error(message), reason_(std::move(reason)), residual_(residual), iterations_(iterations) {}
StepFailure::~StepFailure() = default;

namespace {
std::string non_finite_text(const std::string& integrator, double t, double h) {
  std::ostringstream os;
  os << "integrator '" << integrator << "' produced a non-finite state (t = " << t << ", h = " << h
     << "); the state is left at t = " << t;
  return os.str();
}
}  // namespace

NonFiniteState::NonFiniteState(const std::string& integrator, double t, double h)
    : StepFailure(non_finite_text(integrator, t, h), "produced a non-finite state",
                  std::numeric_limits<double>::quiet_NaN(), -1) {}
NonFiniteState::~NonFiniteState() = default;

RunFailure::RunFailure(const std::string& message, long step, double t) : Error(message), step_(step), t_(t) {}
RunFailure::~RunFailure() = default;

}  // namespace dalembert

#include <dalembert/core/error_text.hpp>
#include <new>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace dalembert {

std::string one_line(std::string message) {
  for (std::size_t p; (p = message.find('\n')) != std::string::npos;) message.replace(p, 1, "; ");
  return message;
}

namespace {
// nlohmann's "[json.exception.type_error.302] type must be number, but is string" without its tag.
std::string json_text(const nlohmann::json::exception& e) {
  const std::string w = e.what();
  const auto p = w.find("] ");
  return p == std::string::npos ? w : w.substr(p + 2);
}
}  // namespace

std::string exception_text(const std::exception_ptr& e, bool* library_failure) {
  bool library = true;
  std::string text;
  try {
    std::rethrow_exception(e);
  } catch (const Error& x) {
    library = false;
    text = x.what();
  } catch (const std::bad_alloc&) {
    text = "out of memory (std::bad_alloc)";
  } catch (const std::length_error&) {
    text = "a size computed from the parameters or the state is too large to allocate (std::length_error)";
  } catch (const std::out_of_range&) {
    text = "an index out of range (std::out_of_range)";
  } catch (const nlohmann::json::type_error& x) {
    text = "a JSON value of the wrong type (" + json_text(x) + ")";
  } catch (const nlohmann::json::exception& x) {
    text = "a JSON value that cannot be used (" + json_text(x) + ")";
  } catch (const std::exception& x) {
    library = false;
    text = x.what();
  } catch (...) {
    library = false;
    text = "an exception that is not a std::exception (thrown by a plugin)";
  }
  if (library_failure) *library_failure = library;
  return text;
}

std::string number_text(double x, const char* format) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, x);
  return buf;
}

}  // namespace dalembert
