#pragma once
// The names a run will report that are not columns — task summaries, a sweep's metrics — known
// when the study is planned: those every run reports (a run of no steps reports them) and
// patterns of those that depend on the run ("<k>" for a positive integer: impact_<k>_t is reported
// for the k-th impact only when the run has one). Claims are checked against them before the run.
#include <boost/config.hpp>
#include <string>
#include <vector>

namespace dalembert {

struct BOOST_SYMBOL_VISIBLE ReportedNames {
  std::vector<std::string> names, patterns;
  bool known = true;  // false: they could not be learnt (a run of no steps failed; its tasks will say why)

  /// `name` may be reported: listed, matching a pattern, or not known.
  bool may_report(const std::string& name) const;
  /// `name` is reported only when the run produces it: it matches a pattern and is not listed.
  bool depends_on_run(const std::string& name) const;
  /// "a, b, c", then "; depending on the run: impact_<k>_t, ..." ("none" when there are none).
  std::string text() const;
};

/// `name` matches `pattern`, in which each "<k>" stands for a positive integer (no leading zero).
BOOST_SYMBOL_VISIBLE bool matches_name_pattern(const std::string& pattern, const std::string& name);

}  // namespace dalembert
