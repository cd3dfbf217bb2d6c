#pragma once
// Small helpers for model code that must run on doubles and on nested dual numbers (issue 28; written
// for the Whipple bicycle, used by the exact linearisation of any L-and-A model,
// core/model_linearisation.hpp, which evaluates M and A on duals over duals and g one level deeper).
//
// Eigen's AutoDiffScalar converts implicitly from its own scalar, and from double only one level
// down: a dual over a dual over a dual (the third derivatives the bicycle's linearisation needs of
// its holonomic constraint) is not constructible from a double, nor multipliable by one. Code that
// must run at any depth therefore lifts every constant into the scalar first (`constant<S>(x)`) and
// then computes in S only.
#include <Eigen/Core>
#include <type_traits>
#include <unsupported/Eigen/AutoDiff>

namespace dalembert::nested {

/// The constant x as a scalar of type S (double or a dual of any depth), every derivative zero.
template <class S>
S constant(double x) {
  if constexpr (std::is_same_v<S, double>)
    return x;
  else
    return S(constant<typename S::Scalar>(x));
}

/// x as a scalar of type S: itself if it is one, a constant if it is a double.
template <class S, class X>
S lift(const X& x) {
  if constexpr (std::is_arithmetic_v<X> && !std::is_same_v<S, double>)
    return constant<S>(static_cast<double>(x));
  else
    return S(x);
}

/// The double value of a scalar of any depth.
template <class S>
double value_of(const S& x) {
  if constexpr (std::is_same_v<S, double>)
    return x;
  else
    return value_of(x.value());
}

/// A dual number with one derivative direction over the scalar S (S itself may be a dual).
template <class S>
using Dual1 = Eigen::AutoDiffScalar<Eigen::Matrix<S, 1, 1>>;

/// x + ε dx as a Dual1 over S.
template <class S>
Dual1<S> seed(const S& x, const S& dx) {
  return Dual1<S>(x, Eigen::Matrix<S, 1, 1>(dx));
}

/// The ε-derivative of a Dual1 over S.
template <class S>
S derivative(const Dual1<S>& x) {
  return x.derivatives()[0];
}

}  // namespace dalembert::nested
