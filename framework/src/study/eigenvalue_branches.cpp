// Eigenvalue branches and critical values of a family of linearisations (study/eigenvalue_branches.hpp).
#include <Eigen/Eigenvalues>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <dalembert/core/error_text.hpp>
#include <dalembert/core/errors.hpp>
#include <dalembert/math/bracketed_root.hpp>
#include <dalembert/study/eigenvalue_branches.hpp>
#include <limits>

namespace dalembert {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Spectrum sorted(Spectrum s) {
  std::sort(s.begin(), s.end(), [](auto a, auto b) { return a.real() != b.real() ? a.real() < b.real() : a.imag() < b.imag(); });
  return s;
}

void check_finite(const Mat& J) {
  if (!J.allFinite()) throw Error("linear_stability: the linearisation has entries that are not finite");
}

Spectrum eigenvalues_of(const Mat& J) {
  if (J.rows() == 0) return {};
  check_finite(J);
  const Eigen::EigenSolver<Mat> solver(J, false);
  if (solver.info() != Eigen::Success) throw Error("linear_stability: the eigenvalue solver did not converge");
  const auto& ev = solver.eigenvalues();
  return Spectrum(ev.data(), ev.data() + ev.size());
}

// The branches' values in branch order: values[perm[b]].
Spectrum in_branch_order(const Spectrum& values, const std::vector<int>& perm) {
  Spectrum out(perm.size());
  for (std::size_t b = 0; b < perm.size(); ++b) out[b] = values[static_cast<std::size_t>(perm[b])];
  return out;
}

Spectrum interpolate(double va, const Spectrum& a, double vb, const Spectrum& b, double v) {
  const double w = vb == va ? 0.0 : (v - va) / (vb - va);
  Spectrum out(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) out[i] = a[i] + w * (b[i] - a[i]);
  return out;
}

struct Snapshot {
  double v;
  Spectrum s;  // in branch order
};

// The spectrum at v in branch order, matched to the branches' interpolation between a and b.
Spectrum matched_at(const SpectrumAt& spectrum, const Snapshot& a, const Snapshot& b, double v) {
  const Spectrum s = spectrum(v);
  if (s.size() != a.s.size())
    throw Error("linear_stability: the spectrum has " + std::to_string(s.size()) + " eigenvalues at " + number_text(v) +
                " and " + std::to_string(a.s.size()) + " elsewhere");
  return in_branch_order(s, match_branches(interpolate(a.v, a.s, b.v, b.s, v), s));
}

double scale_of(const Spectrum& s) {
  double m = 1.0;
  for (const auto& x : s) m = std::max(m, std::abs(x));
  return m;
}

// The sign of x, 0 within the neutral band.
int sign_of(double x, double band) { return x > band ? 1 : (x < -band ? -1 : 0); }

struct Event {
  std::string type;
  std::vector<int> branches;
};

// The events between two snapshots; `ambiguous` when the realness of the branches changed in a
// way one collision does not explain (several in one interval).
std::vector<Event> events_between(const Snapshot& a, const Snapshot& b, double neutral, bool& ambiguous) {
  std::vector<Event> out;
  ambiguous = false;
  const double band_a = neutral * scale_of(a.s), band_b = neutral * scale_of(b.s);
  std::vector<int> changed;
  for (std::size_t k = 0; k < a.s.size(); ++k)
    if ((a.s[k].imag() == 0.0) != (b.s[k].imag() == 0.0)) changed.push_back(static_cast<int>(k));
  if (changed.size() == 2) out.push_back({"collision", changed});
  else if (!changed.empty()) ambiguous = true;
  for (std::size_t k = 0; k < a.s.size(); ++k) {
    if (std::find(changed.begin(), changed.end(), static_cast<int>(k)) != changed.end()) continue;
    const int sa = sign_of(a.s[k].real(), band_a), sb = sign_of(b.s[k].real(), band_b);
    if (sa * sb >= 0) continue;
    // A complex pair: once, by its member of positive imaginary part at a (both members have the
    // same real part, so it does not matter if they swap by b).
    if (a.s[k].imag() == 0.0) out.push_back({"real_crossing", {static_cast<int>(k)}});
    else if (a.s[k].imag() > 0.0) out.push_back({"complex_crossing", {static_cast<int>(k)}});
  }
  return out;
}

// The function whose sign change marks the event, on a spectrum in branch order.
double event_function(const Event& e, const Spectrum& s) {
  if (e.type == "collision") {
    const std::complex<double> d = s[static_cast<std::size_t>(e.branches[0])] - s[static_cast<std::size_t>(e.branches[1])];
    return (d * d).real();
  }
  return s[static_cast<std::size_t>(e.branches[0])].real();
}

class Finder {
 public:
  /// `budget`: the spectra it may compute (bisections and root finding) before it gives up.
  Finder(const SpectrumAt& spectrum, double neutral, long budget)
      : spectrum_(spectrum), neutral_(neutral), budget_(budget) {}

  void analyse(const Snapshot& a, const Snapshot& b, int depth, std::vector<CriticalValue>& out) const {
    bool ambiguous = false;
    const std::vector<Event> events = events_between(a, b, neutral_, ambiguous);
    if (events.empty() && !ambiguous) return;
    if (events.size() > 1 || ambiguous) {
      if (depth >= 48)
        throw Error("linear_stability: the eigenvalue branches between " + number_text(a.v) + " and " + number_text(b.v) +
                    " meet or cross more often than bisection can separate (a multiple eigenvalue over a range?)");
      const double mid = 0.5 * (a.v + b.v);
      const Snapshot m{mid, at(a, b, mid)};
      analyse(a, m, depth + 1, out);
      analyse(m, b, depth + 1, out);
      return;
    }
    out.push_back(locate(events.front(), a, b));
  }

 private:
  CriticalValue locate(const Event& e, const Snapshot& a, const Snapshot& b) const {
    const auto f = [&](double v) {
      if (v == a.v) return event_function(e, a.s);
      if (v == b.v) return event_function(e, b.s);
      return event_function(e, at(a, b, v));
    };
    const BracketedRoot root = bracketed_root(f, a.v, b.v);
    CriticalValue c;
    c.type = e.type;
    c.value = root.x;
    c.bracket = root.bracket;
    const double ends = std::max(std::abs(event_function(e, a.s)), std::abs(event_function(e, b.s)));
    c.residual = ends > 0.0 ? std::abs(root.fx) / ends : 0.0;
    c.evaluations = root.evaluations;
    const Spectrum there = at(a, b, root.x);
    c.branches = e.branches;
    if (e.type == "collision")
      c.eigenvalue = 0.5 * (there[static_cast<std::size_t>(e.branches[0])] + there[static_cast<std::size_t>(e.branches[1])]);
    else
      c.eigenvalue = there[static_cast<std::size_t>(e.branches[0])];
    c.stable_before = stable_spectrum(a.s, neutral_) ? 1 : 0;
    c.stable_after = stable_spectrum(b.s, neutral_) ? 1 : 0;
    return c;
  }

  // The spectrum at v in branch order, counted against the budget.
  Spectrum at(const Snapshot& a, const Snapshot& b, double v) const {
    if (++used_ > budget_)
      throw Error("linear_stability: locating the critical values took more than " + std::to_string(budget_) +
                  " linearisations (branches that meet or cross over a whole range?); the last interval was [" +
                  number_text(a.v) + ", " + number_text(b.v) + "]");
    return matched_at(spectrum_, a, b, v);
  }

  const SpectrumAt& spectrum_;
  double neutral_;
  long budget_;
  mutable long used_ = 0;
};

}  // namespace

int nullity(const Mat& J, double tol) {
  if (J.size() == 0) return 0;
  check_finite(J);  // an SVD of NaNs need not end
  const Eigen::JacobiSVD<Mat> svd(J);
  const auto& s = svd.singularValues();
  const double top = s.size() ? s[0] : 0.0;
  int k = 0;
  for (Eigen::Index i = 0; i < s.size(); ++i)
    if (s[i] <= tol * top) ++k;
  return k;
}

Spectrum deflated_eigenvalues(const Mat& J, int k) {
  if (k <= 0) return eigenvalues_of(J);
  const Eigen::Index d = J.rows();
  if (k >= d) return {};
  check_finite(J);
  const Eigen::JacobiSVD<Mat> svd(J, Eigen::ComputeFullV);
  const Mat Q2 = svd.matrixV().leftCols(d - k);  // orthogonal to the k right singular vectors of the smallest σ
  return eigenvalues_of(Q2.transpose() * J * Q2);
}

std::vector<int> match_branches(const Spectrum& predicted, const Spectrum& values) {
  // The Hungarian algorithm (Kuhn 1955; Munkres 1957) in its O(n³) potentials form: rows are the
  // predictions, columns the values, cost |pred − value|.
  const int n = static_cast<int>(predicted.size());
  if (static_cast<int>(values.size()) != n) throw Error("match_branches: as many values as predictions are needed");
  std::vector<double> u(n + 1, 0.0), v(n + 1, 0.0);
  std::vector<int> p(n + 1, 0), way(n + 1, 0);
  for (int i = 1; i <= n; ++i) {
    p[0] = i;
    int j0 = 0;
    std::vector<double> minv(n + 1, kInf);
    std::vector<char> used(n + 1, 0);
    do {
      used[j0] = 1;
      const int i0 = p[j0];
      double delta = kInf;
      int j1 = 0;
      for (int j = 1; j <= n; ++j) {
        if (used[j]) continue;
        const double cur = std::abs(predicted[i0 - 1] - values[j - 1]) - u[i0] - v[j];
        if (cur < minv[j]) minv[j] = cur, way[j] = j0;
        if (minv[j] < delta) delta = minv[j], j1 = j;
      }
      for (int j = 0; j <= n; ++j) {
        if (used[j]) u[p[j]] += delta, v[j] -= delta;
        else minv[j] -= delta;
      }
      j0 = j1;
    } while (p[j0] != 0);
    do {
      const int j1 = way[j0];
      p[j0] = p[j1];
      j0 = j1;
    } while (j0);
  }
  std::vector<int> out(n);
  for (int j = 1; j <= n; ++j) out[p[j] - 1] = j - 1;
  return out;
}

EigenvalueBranches track_branches(const std::vector<double>& grid, const SpectrumAt& spectrum) {
  EigenvalueBranches br;
  br.grid = grid;
  for (std::size_t i = 0; i < grid.size(); ++i) {
    const Spectrum s = spectrum(grid[i]);
    if (i == 0) {
      br.at.push_back(sorted(s));
      continue;
    }
    if (s.size() != br.at.front().size())
      throw Error("linear_stability: the spectrum has " + std::to_string(s.size()) + " eigenvalues at " +
                  number_text(grid[i]) + " and " + std::to_string(br.at.front().size()) + " at " + number_text(grid[0]));
    const Spectrum& last = br.at[i - 1];
    const Spectrum predicted = i >= 2 ? interpolate(grid[i - 2], br.at[i - 2], grid[i - 1], last, grid[i]) : last;
    br.at.push_back(in_branch_order(s, match_branches(predicted, s)));
  }
  return br;
}

bool stable_spectrum(const Spectrum& s, double neutral) {
  const double band = neutral * scale_of(s);
  return std::all_of(s.begin(), s.end(), [&](const auto& x) { return x.real() <= band; });
}

std::vector<CriticalValue> critical_values(const EigenvalueBranches& br, const SpectrumAt& spectrum) {
  std::vector<CriticalValue> out;
  const Finder finder(spectrum, 1e-9, 10000 + 10 * static_cast<long>(br.grid.size()));
  for (std::size_t i = 0; i + 1 < br.grid.size(); ++i)
    finder.analyse({br.grid[i], br.at[i]}, {br.grid[i + 1], br.at[i + 1]}, 0, out);
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.value < b.value; });
  return out;
}

std::vector<std::pair<double, double>> stable_ranges(const EigenvalueBranches& br, const std::vector<CriticalValue>& critical) {
  std::vector<std::pair<double, double>> out;
  const std::size_t n = br.grid.size();
  std::size_t i = 0;
  while (i < n) {
    if (!stable_spectrum(br.at[i])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j + 1 < n && stable_spectrum(br.at[j + 1])) ++j;
    // The ends: the critical value that makes the motion stable (before i) and unstable (after j).
    double lo = br.grid[i], hi = br.grid[j];
    if (i > 0)
      for (const auto& c : critical)
        if (c.stable_before == 0 && c.stable_after == 1 && c.value >= br.grid[i - 1] && c.value <= br.grid[i]) lo = c.value;
    if (j + 1 < n)
      for (const auto& c : critical)
        if (c.stable_before == 1 && c.stable_after == 0 && c.value >= br.grid[j] && c.value <= br.grid[j + 1]) hi = c.value;
    out.emplace_back(lo, hi);
    i = j + 1;
  }
  return out;
}

}  // namespace dalembert
