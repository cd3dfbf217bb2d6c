#pragma once
// The retraction τ: 𝔤 → G of a Lie-group integrator and the truncation of its inverse derivative
// (spec 001 §3.1; Kobilarov & Marsden, "Discrete geometric optimal control on Lie groups", IEEE
// T-RO 27 (2011), §2.2 and App. A). Shared by every group (math/se2.hpp, math/so3_group.hpp).
namespace dalembert {

/// A retraction τ: 𝔤 → G (spec §3.1): the exponential or the Cayley map.
enum class Retraction { Exp, Cayley };

/// Which dτ⁻¹ an RDP variant uses with τ = exp (spec §3.3): the exact series, the first-order
/// truncation I − ½ad ("exp1", the paper's displayed scheme) or eq. (42) I − ½ad + (1/12)ad² ("exp2").
enum class DexpInverse { Exact, FirstOrder, SecondOrder };

}  // namespace dalembert
