#pragma once
// The UnitQuaternionCoordinates capability (issue 29 item 2): an L-and-A model whose coordinates
// contain unit quaternions — four consecutive entries p of q, held by the holonomic constraint
// |p|² − 1 = 0, with v = q̇ (ṗ in the same four entries of v) and the body angular velocity
// Ω = 2G(p)ṗ (math/quaternion_kinematics.hpp). A Lie-group integrator may then move each p on the
// unit quaternions (the double cover of SO(3)) by the group's exponential instead of adding ṗ:
// `rkmk4` does, so the attitude stays unit to round-off with no projection and no chart.
//
// A system declares it by deriving from UnitQuaternionsAt<offsets...> beside its model:
//     class Ball final : public FixedLagrangianSystem<Model>, public UnitQuaternionsAt<2> { ... };
// The holonomic constraint |p|² − 1 = 0 must still be one of the model's g(q) (the other schemes
// impose it; `dalembert check` checks the declaration against the model: p unit at the examples).
#include <boost/config.hpp>
#include <vector>

namespace dalembert {

class BOOST_SYMBOL_VISIBLE UnitQuaternionCoordinates {
 public:
  static constexpr const char* model_name = "UnitQuaternionCoordinates";
  virtual ~UnitQuaternionCoordinates();
  /// The index in q (and in v) of each unit quaternion's first entry p0 (scalar first, Hamilton).
  virtual std::vector<int> quaternion_offsets() const = 0;
};

/// The declaration for quaternions at fixed offsets.
template <int... Offsets>
class UnitQuaternionsAt : public UnitQuaternionCoordinates {
  static_assert(sizeof...(Offsets) > 0, "UnitQuaternionsAt needs the offset of at least one quaternion");

 public:
  std::vector<int> quaternion_offsets() const override { return {Offsets...}; }
};

}  // namespace dalembert
