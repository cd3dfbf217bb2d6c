#include <cstdio>
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
StepFailure::~StepFailure() = default;

RunFailure::RunFailure(const std::string& message, long step, double t) : Error(message), step_(step), t_(t) {}
RunFailure::~RunFailure() = default;

}  // namespace dalembert

#include <dalembert/core/error_text.hpp>

namespace dalembert {

std::string one_line(std::string message) {
  for (std::size_t p; (p = message.find('\n')) != std::string::npos;) message.replace(p, 1, "; ");
  return message;
}

std::string number_text(double x, const char* format) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, x);
  return buf;
}

}  // namespace dalembert
