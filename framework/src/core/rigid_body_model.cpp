// Out-of-line destructors of the rigid-body model (spec 003 §3.0) and its state layout.
#include <dalembert/core/rigid_body_model.hpp>

namespace dalembert {

PotentialTerm::~PotentialTerm() = default;
RigidBodyModel::~RigidBodyModel() = default;

Layout rigid_body_layout(int n, bool translational) {
  Layout l;
  for (int i = 0; i < n; ++i) {
    const std::string sfx = n > 1 ? "_" + std::to_string(i) : "";
    if (translational) {
      for (const char* c : {"x", "y", "z"}) l.q.push_back(c + sfx);
      for (const char* c : {"vx", "vy", "vz"}) l.v.push_back(c + sfx);
    }
    for (const char* c : {"qw", "qx", "qy", "qz"}) l.q.push_back(c + sfx);
    for (const char* c : {"Wx", "Wy", "Wz"}) l.v.push_back(c + sfx);
  }
  return l;
}

}  // namespace dalembert
