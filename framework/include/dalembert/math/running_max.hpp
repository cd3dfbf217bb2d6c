#pragma once
// Running extrema that keep a NaN: std::max(m, NaN) returns m, so an observer whose quantity
// overflowed would report the largest finite value seen — a clean-looking number that is false.
// Once a NaN is seen it stays, and the run reports the summary as NaN.
#include <cmath>

namespace dalembert {

inline void running_max(double& m, double x) {
  if (std::isnan(x) || x > m) m = x;
}

inline void running_min(double& m, double x) {
  if (std::isnan(x) || x < m) m = x;
}

}  // namespace dalembert
