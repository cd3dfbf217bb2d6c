#pragma once
// A root of a continuous function in a bracket [a, b] with f(a) f(b) <= 0, by Brent's method
// (R. P. Brent, "Algorithms for Minimization without Derivatives", Prentice-Hall 1973, ch. 4, the
// algorithm "zero"): inverse quadratic interpolation and secant steps, safeguarded by bisection,
// so it converges superlinearly on a smooth simple root and never slower than bisection. Used by
// the linear_stability study kind to locate the parameter values where a tracked eigenvalue branch
// crosses zero, to a bracket of a few ulps.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace dalembert {

struct BracketedRoot {
  double x = 0.0;        ///< the root: the end of the final bracket with the smaller |f|
  double fx = 0.0;       ///< f(x)
  double bracket = 0.0;  ///< width of the final bracket, which holds a sign change (or an exact zero)
  int evaluations = 0;
};

/// Brent's method on [a, b] until the bracket is at most 2 eps |x| + `xtol` wide (xtol = 0: a few
/// ulps); throws std::invalid_argument when f(a) and f(b) have the same strict sign.
template <class F>
BracketedRoot bracketed_root(F&& f, double a, double b, double xtol = 0.0, int max_evaluations = 200) {
  constexpr double eps = std::numeric_limits<double>::epsilon();
  double fa = f(a), fb = f(b);
  BracketedRoot out;
  out.evaluations = 2;
  if (fa == 0.0 || fb == 0.0) {
    out.x = fa == 0.0 ? a : b;
    out.fx = 0.0;
    return out;
  }
  if ((fa > 0.0) == (fb > 0.0))
    throw std::invalid_argument("bracketed_root: f has the same sign at both ends of the bracket");
  double c = a, fc = fa, d = b - a, e = d;
  while (true) {
    if ((fb > 0.0) == (fc > 0.0)) {  // keep the root between b and c
      c = a, fc = fa;
      d = e = b - a;
    }
    if (std::abs(fc) < std::abs(fb)) {  // b is the best estimate
      a = b, b = c, c = a;
      fa = fb, fb = fc, fc = fa;
    }
    const double tol = 2.0 * eps * std::abs(b) + 0.5 * xtol;
    const double m = 0.5 * (c - b);
    if (std::abs(m) <= tol || fb == 0.0 || out.evaluations >= max_evaluations) break;
    if (std::abs(e) < tol || std::abs(fa) <= std::abs(fb)) {
      d = e = m;  // bisection
    } else {
      double p, q, s = fb / fa;
      if (a == c) {  // secant
        p = 2.0 * m * s;
        q = 1.0 - s;
      } else {  // inverse quadratic interpolation
        const double r = fb / fc, t = fa / fc;
        p = s * (2.0 * m * t * (t - r) - (b - a) * (r - 1.0));
        q = (t - 1.0) * (r - 1.0) * (s - 1.0);
      }
      if (p > 0.0) q = -q;
      else p = -p;
      if (2.0 * p < std::min(3.0 * m * q - std::abs(tol * q), std::abs(e * q))) {
        e = d;
        d = p / q;
      } else {
        d = e = m;
      }
    }
    a = b, fa = fb;
    b += std::abs(d) > tol ? d : (m > 0.0 ? tol : -tol);
    fb = f(b);
    ++out.evaluations;
  }
  out.x = b;
  out.fx = fb;
  out.bracket = std::abs(c - b);
  return out;
}

}  // namespace dalembert
