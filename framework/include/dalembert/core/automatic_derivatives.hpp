#pragma once
// The AutomaticDerivatives model (issue 13): a system written in L-and-A form (V(q), M(q), A(q)
// templated on the scalar; schemes/fixed_lagrangian_system.hpp) can differentiate itself. It offers
// every derivative of the ConstrainedLagrangian interface computed by forward-mode AD from V, M
// and A alone, whatever closed forms it also writes, and says which closed forms it writes — so the
// derivative checker (study/derivative_check.hpp) can compare each hand-written derivative with AD.
#include <boost/config.hpp>
#include <dalembert/core/constrained_lagrangian.hpp>
#include <string>
#include <vector>

namespace dalembert {

class BOOST_SYMBOL_VISIBLE AutomaticDerivatives {
 public:
  static constexpr const char* model_name = "AutomaticDerivatives";
  virtual ~AutomaticDerivatives();

  /// The derivatives the model writes by hand, by the names of the functions below (e.g.
  /// "potential_gradient", "curvature"); the rest the framework derives by AD.
  virtual std::vector<std::string> hand_written() const = 0;

  // ----- by automatic differentiation, from V, M and A alone -----
  virtual void automatic_potential_gradient(ConstVecRef q, VecRef g) const = 0;                 ///< ∇V
  virtual void automatic_potential_hessian(ConstVecRef q, MatRef H) const = 0;                  ///< ∇²V
  virtual void automatic_constraint_gradient(ConstVecRef q, int a, MatRef G) const = 0;         ///< ∂A_{ai}/∂q^j
  virtual void automatic_curvature(ConstVecRef q, ConstVecRef v, VecRef c) const = 0;           ///< (∂A/∂q)[v]v
  virtual void automatic_constraint_derivative(ConstVecRef q, ConstVecRef w, MatRef DA) const = 0;  ///< DA[w]
  virtual void automatic_coriolis(ConstVecRef q, ConstVecRef v, VecRef c) const = 0;            ///< Ṁv − ½∂_q(vᵀMv)

  // ----- as the compiled schemes evaluate them (the hand-written form where there is one) -----
  // The virtual ConstrainedLagrangian interface forms these contractions from constraint_gradient;
  // a fixed-size model may write them directly, and those closed forms need checking too.
  virtual void model_curvature(ConstVecRef q, ConstVecRef v, VecRef c) const = 0;
  virtual void model_constraint_derivative(ConstVecRef q, ConstVecRef w, MatRef DA) const = 0;
};

}  // namespace dalembert
