#pragma once
// Eigenvalue branches of a one-parameter family of linearisations (issue 28 item 4, the
// linear_stability study kind): the spectrum at each value of a grid with its structural zeros
// deflated, the branches tracked by continuity, and the parameter values where a branch changes
// the stability of the motion (or two real branches meet), located by Brent's method on a function
// that is smooth through the event.
//
// Structural zeros. A symmetry or a first integral gives zero eigenvalues at every parameter value
// (the rolling disk's heading momentum and spin: two). Near a value where a further pair passes
// through zero they form a Jordan block, and a plain eigensolver then resolves the eigenvalues only
// to eps^(1/3) ~ 6e-6. The kernel of J is found once for the grid (the singular values at most
// 1e-10 σ_max at every value: k of them) and deflated exactly at every value: with Q = [K Q2]
// orthonormal, K the right singular vectors of the k smallest singular values (J K = 0),
//     Qᵀ J Q = [[0, K ᵀJ Q2], [0, Q2ᵀ J Q2]],
// so the spectrum is k zeros and the eigenvalues of Q2ᵀ J Q2, which carry no spurious Jordan block.
//
// Events between two values of the grid, on the tracked branches:
//   real_crossing     a real eigenvalue changes sign (the bicycle's capsize speed): f = λ;
//   complex_crossing  a complex pair's real part changes sign (the weave speed): f = Re λ;
//   collision         two real eigenvalues meet and leave as a complex pair, or the reverse (the
//                     weave bifurcation; the disk's critical speed, where ±a become ±ib): f =
//                     (λ1 − λ2)², real, positive while they are real and −4 Im² once they are a pair —
//                     smooth through the meeting (the discriminant of their quadratic factor), where
//                     the eigenvalues themselves have a square-root branch point.
// At a point of the bracket the spectrum is matched to the branches' linear interpolation between
// the bracket's ends (the Hungarian algorithm on |λ_pred − λ|), so f follows the same branch.
// An interval that holds more than one event is bisected until each holds one; the search gives up
// with an error after 10000 + 10 (grid size) linearisations.
#include <boost/config.hpp>
#include <complex>
#include <dalembert/core/state.hpp>
#include <functional>
#include <string>
#include <vector>

namespace dalembert {

using Spectrum = std::vector<std::complex<double>>;

/// The number of singular values of J at most `tol` times the largest (J = 0: all of them).
BOOST_SYMBOL_VISIBLE int nullity(const Mat& J, double tol = 1e-10);

/// The eigenvalues of J but k structural zeros, deflated as the header comment says (k = 0: all).
BOOST_SYMBOL_VISIBLE Spectrum deflated_eigenvalues(const Mat& J, int k);

/// The assignment of values to predictions minimising Σ|pred_b − values_out[b]| (Hungarian
/// algorithm, O(n³)): out[b] is the index into `values` of branch b's value.
BOOST_SYMBOL_VISIBLE std::vector<int> match_branches(const Spectrum& predicted, const Spectrum& values);

/// Branches along a grid of parameter values: at[i][b] is branch b at grid[i]. At the first value
/// the branches are numbered by real part, then imaginary part; after it each value's spectrum is
/// matched to the branches' linear extrapolation from the two values before.
struct EigenvalueBranches {
  std::vector<double> grid;
  std::vector<Spectrum> at;
  int count() const { return at.empty() ? 0 : static_cast<int>(at.front().size()); }
};

/// The spectrum at a parameter value (of the same size at every value).
using SpectrumAt = std::function<Spectrum(double)>;

BOOST_SYMBOL_VISIBLE EigenvalueBranches track_branches(const std::vector<double>& grid, const SpectrumAt& spectrum);

/// A parameter value where a branch changes sign (or two meet).
struct CriticalValue {
  std::string type;               ///< "real_crossing", "complex_crossing", "collision"
  double value = 0.0;             ///< the root of f
  double bracket = 0.0;           ///< width of the final bracket (a sign change of f inside)
  double residual = 0.0;          ///< f at the root, and its scale: |f| / max |f| at the bracket's ends
  std::vector<int> branches;      ///< the branch (the pair's member of positive imaginary part) or the pair
  std::complex<double> eigenvalue;  ///< the branch at the root (≈ 0, or ≈ ±iω); a collision: the double root
  int stable_before = -1, stable_after = -1;  ///< stability below and above the event (1 stable, 0 not)
  int evaluations = 0;
};

/// Whether a spectrum is stable: every real part at most `neutral` times max(1, max |λ|) (a pure
/// imaginary pair and the structural zeros count as stable: neutral).
BOOST_SYMBOL_VISIBLE bool stable_spectrum(const Spectrum& s, double neutral = 1e-9);

/// The critical values along tracked branches, in increasing order of value.
BOOST_SYMBOL_VISIBLE std::vector<CriticalValue> critical_values(const EigenvalueBranches& branches, const SpectrumAt& spectrum);

/// The stable ranges [lo, hi] of the grid's span, their ends the critical values that bound them
/// (or the grid's ends).
BOOST_SYMBOL_VISIBLE std::vector<std::pair<double, double>> stable_ranges(const EigenvalueBranches& branches,
                                                                         const std::vector<CriticalValue>& critical);

}  // namespace dalembert
