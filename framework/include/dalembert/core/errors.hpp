#pragma once
// Exceptions a researcher can act on: each names what was wrong, the value, and where it came from.
#include <boost/config.hpp>
#include <stdexcept>
#include <string>

namespace dalembert {

/// Base of every dalembert error.
class BOOST_SYMBOL_VISIBLE Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what);
  ~Error() override;
};

/// Bad input: a study file, a parameter, an initial state. `where` is "file: /json/path".
class BOOST_SYMBOL_VISIBLE InputError : public Error {
 public:
  InputError(std::string where, const std::string& message);
  ~InputError() override;
  const std::string& where() const { return where_; }

 private:
  std::string where_;
};

/// A plugin could not be found, loaded, or was built for another ABI.
class BOOST_SYMBOL_VISIBLE PluginError : public Error {
 public:
  using Error::Error;
  ~PluginError() override;
};

/// An integrator step failed (nonlinear solve did not converge, singular matrix, non-finite value).
/// Thrown by Integrator::step with the state left unchanged; the runner adds the step number and t.
class BOOST_SYMBOL_VISIBLE StepFailure : public Error {
 public:
  StepFailure(std::string reason, double residual, int iterations = -1);
  ~StepFailure() override;
  const std::string& reason() const { return reason_; }
  double residual() const { return residual_; }
  int iterations() const { return iterations_; }

 protected:
  /// `message` is the whole text (no residual appended).
  StepFailure(const std::string& message, std::string reason, double residual, int iterations);

 private:
  std::string reason_;
  double residual_;
  int iterations_;
};

/// Integrator::advance(): the plugin's step returned a non-finite q or v; the state was put back.
class BOOST_SYMBOL_VISIBLE NonFiniteState : public StepFailure {
 public:
  /// "integrator 'NAME' produced a non-finite state (t = t, h = h); the state is left at t = t"
  NonFiniteState(const std::string& integrator, double t, double h);
  ~NonFiniteState() override;
};

/// A run stopped: carries the step number and time at which it stopped.
class BOOST_SYMBOL_VISIBLE RunFailure : public Error {
 public:
  RunFailure(const std::string& message, long step, double t);
  ~RunFailure() override;
  long step() const { return step_; }
  double t() const { return t_; }

 private:
  long step_;
  double t_;
};

}  // namespace dalembert
