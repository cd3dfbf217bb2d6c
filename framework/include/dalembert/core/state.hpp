#pragma once
#include <Eigen/Core>
#include <string>
#include <vector>

namespace dalembert {

using Vec = Eigen::VectorXd;
using Mat = Eigen::MatrixXd;

/// The state every integrator, observer and impact map sees: time, configuration, velocity.
/// What q and v mean (plain coordinates, group coordinates, body velocities) is the system's to say.
struct State {
  double t = 0.0;
  Vec q;
  Vec v;
};

/// Names of the components of q and v, so writers can label columns.
struct Layout {
  std::vector<std::string> q;
  std::vector<std::string> v;
};

}  // namespace dalembert
