#pragma once
// Checked claims (issue 15): a study states what its run must show as machine-checkable claims,
// and every run evaluates them — claims.csv, the manifest's "claims" block, a verdict table — and
// fails (exit ≠ 0) when one does not hold. The run itself stays complete: its folder says so.
//
// "claims": {"source": "spec 002 claims 17, 19", <prose keys>, "checks": [CHECK, ...]}, each
//   CHECK = {"id": ID, "source": S, "text": T, "quantity": Q, COMPARISON}
//   Q, exactly one of
//     {"summary": NAME, "task": LABEL}                           a task summary (trajectory)
//     {"fitted_order": LABEL}                                    a convergence fit
//     {"error": COLUMN, "label": LABEL [, "h": H] [, "stat": S]} a convergence table entry (any
//                                                                column of its rows: error_q, ..., a summary)
//     {"column": NAME, "task": LABEL [, "stat": S] [, "from": t0] [, "to": t1] [, "at": t]}
//                                                                a trajectory file's column (CSV or .npy) over a time window
//     {"ensemble": COLUMN, "label": LABEL [, "stat": S, "from", "to", "at"]}  ensemble_stats_<label>.csv
//     {"ensemble_summary": NAME, "label": LABEL, "stat": "min"|"max"|"mean"}  over the members
//     {"sweep": METRIC, "label": LABEL [, "where": {AXIS: VALUE, ...}] [, "stat": S]}  sweep.csv
//     {"manifest": "/json/pointer"}                              any number of the manifest
//     a quantity of the study's kind's own (StudyKind::claim_quantities, check_claim_quantity,
//     claim_value), e.g. {"critical": "collision"} of a linear_stability study
//     {"ratio": [Q1, Q2]}                                        Q1 / Q2
//   S (over the rows selected): max, min, max_abs, spread (max − min), mean, initial, final
//   (default final; a single row needs none)
//   COMPARISON, exactly one of: "<": x, "<=": x, ">": x, ">=": x, "in": [lo, hi],
//   "within": tol, "of": x (|Q − x| ≤ tol), "within_rel": tol, "of": x (|Q − x| ≤ tol |x|).
// A convergence study also claims, for each integrator, that its fitted order agrees with the
// declared one (the order audit): id "order <label>".
#include <boost/config.hpp>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace dalembert {

class JsonCursor;
struct Study;
class StudyKind;

/// A claim's quantity evaluated on a finished run: its value, what it is and, when it has no value
/// (NaN), why not. A study kind that evaluates quantities of its own returns one
/// (StudyKind::claim_value).
struct ClaimValue {
  double x = std::numeric_limits<double>::quiet_NaN();
  std::string what, why;
};

struct ClaimCheck {
  std::string id, source, text;
  nlohmann::json quantity;
  std::string op;  // "<", "<=", ">", ">=", "in", "within", "within_rel"
  double a = 0.0, b = 0.0;  // the bound(s): x; [lo, hi]; tol and of
  std::string where;        // "FILE: /claims/checks/3"
};

/// Parses and checks the "checks" of a study's claims block (kinds, keys, labels, comparisons)
/// before anything runs. `kind` is the study's kind (its claim_quantities()); `labels` its integrator labels. What a check
/// names (columns, summaries, step sizes, times, axis values) is checked against the study's plan
/// (claim_targets.hpp), also before anything runs.
BOOST_SYMBOL_VISIBLE std::vector<ClaimCheck> parse_claims(const JsonCursor& root, const StudyKind& kind,
                                                          const std::vector<std::string>& labels);

/// Evaluates the study's checks (and a convergence study's order audit) against the finished
/// run in `folder` (its manifest and files), writes folder/claims.csv and returns the manifest's
/// "claims" block: {"passed": n, "failed": n, "results": [{id, source, text, quantity, value,
/// comparison, verdict, reason}]}; a failed claim's reason says why, e.g. "3.1 not < 1e-12" or
/// "value nan: energy_error of RK4 has no rows in [50, 100] (its rows run from t = 0 to 40)".
BOOST_SYMBOL_VISIBLE nlohmann::json evaluate_claims(const std::vector<ClaimCheck>& checks, const nlohmann::json& manifest,
                                                    const std::filesystem::path& folder);

/// Prints the verdict table (verbose) and, when any claim failed, "warning: NAME: claims: N failed (ids)"
/// on stderr (the command then ends with one "error: claims failed ..." line and exit status 3).
BOOST_SYMBOL_VISIBLE void print_claims(const std::string& study, const nlohmann::json& claims, bool verbose);

}  // namespace dalembert
