#pragma once
// The ConstraintFrame model (spec 002 §2.0): a system may give a frame B(q) of its constraint
// distribution D_q = ker A(q), an n×(n−r) matrix whose columns span D_q. Discrete nonholonomic
// mechanics (spec 002 §3.1) projects covectors onto D*_q with it: π = B(q)ᵀp. H|D* and every
// discrete flow are frame independent; a frame only fixes the coordinates of π. A system that
// gives none gets the default of <dalembert_plugins/discrete_mechanics.hpp> (projected coordinate
// directions), which is a deterministic function of q and therefore consistent step to step.
#include <boost/config.hpp>
#include <dalembert/core/constrained_lagrangian.hpp>

namespace dalembert {

class BOOST_SYMBOL_VISIBLE ConstraintFrame {
 public:
  static constexpr const char* model_name = "ConstraintFrame";
  virtual ~ConstraintFrame();
  /// B(q), n×(n−r), columns spanning ker A(q) (spec 002 §2.0, "Frame of D").
  virtual void frame(ConstVecRef q, MatRef B) const = 0;
};

}  // namespace dalembert
