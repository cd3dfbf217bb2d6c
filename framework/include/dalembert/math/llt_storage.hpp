#pragma once
// Sizing an Eigen::LLT's storage once, in bind(), so that later compute() calls do not allocate.
//
// Not `llt = Eigen::LLT<M>(n)`: Eigen 3.4's LLT(Index) constructor leaves m_info uninitialised, and
// the move assignment then copies an indeterminate enum (UBSan: "load of value …, which is not a
// valid value for type 'ComputationInfo'"). Factoring the n×n identity allocates the same storage
// and leaves every member defined; the factor is recomputed before any solve anyway.
#include <Eigen/Cholesky>

namespace dalembert {

template <class Llt>
void size_llt(Llt& llt, Eigen::Index n) {
  llt.compute(Llt::MatrixType::Identity(n, n));
}

}  // namespace dalembert
