#pragma once
// Shared helpers for the test suite: one process-wide registry over the build tree's plugins.
#include <dalembert/plugin/registry.hpp>

namespace dalembert::test {

inline const Registry& registry() {
  static Registry r;
  return r;
}

inline State make_state(std::initializer_list<double> q, std::initializer_list<double> v, double t = 0.0) {
  State s;
  s.t = t;
  s.q = Eigen::Map<const Vec>(q.begin(), static_cast<Eigen::Index>(q.size()));
  s.v = Eigen::Map<const Vec>(v.begin(), static_cast<Eigen::Index>(v.size()));
  return s;
}

}  // namespace dalembert::test
