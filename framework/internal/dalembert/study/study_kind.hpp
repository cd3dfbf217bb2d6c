#pragma once
// A study kind as one unit (issue 27): what a study of "kind": NAME is — its own JSON keys and
// their checks, its tasks, its workload, how a task runs, its reduction into files and manifest,
// its report section, the claim quantities and figure types it offers, and what a sweep tabulates
// of it. The framework (parse_study, the planner, the runner, the reduction, the report) asks the
// study's kind and never compares kind names. The shipped kinds are one file each under
// framework/src/study/study_kinds/; a new kind is one such file ending in DALEMBERT_STUDY_KIND(Class).
#include <atomic>
#include <boost/config.hpp>
#include <dalembert/plugin/descriptor.hpp>
#include <dalembert/study/figure_schema.hpp>  // check_one_of, for a kind checking its figures
#include <dalembert/study/limits.hpp>
#include <dalembert/study/reduce.hpp>
#include <dalembert/study/run_units.hpp>
#include <dalembert/study/study.hpp>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace dalembert {

class JsonCursor;

/// A top-level key of a study file that a kind owns; `elsewhere` is the one-line message for a
/// study of another kind that has it (e.g. "repeats (timed runs) belong to work_precision studies").
struct KindKey {
  std::string key, elsewhere;
};

/// A plugin a kind adds to those every study names (system, integrators, observers, impact map):
/// an ensemble's sampler, a convergence study's reference integrator.
struct KindPlugin {
  PluginKind kind;
  const PluginUse* use;
};

/// The run of a study after its reduction: the manifest (without claims, figures and report) and
/// the failed tasks' errors ("" when every task ran; otherwise the runner writes the manifest and
/// fails the run, keeping the checkpoint for --resume).
struct KindResult {
  nlohmann::json manifest;
  std::string errors;
};

class BOOST_SYMBOL_VISIBLE StudyKind {
 public:
  virtual ~StudyKind();
  /// The value of the study's "kind".
  virtual std::string name() const = 0;

  // ----- the study file --------------------------------------------------------------------------
  /// The top-level keys this kind owns besides the keys of every study.
  virtual std::vector<KindKey> keys() const { return {}; }
  /// Parses a study of this kind; `s` holds what every study has (file, raw, name, kind,
  /// description, limits). The default parses the runs every simulating kind has
  /// (parse_study_runs) and then this kind's own keys (parse_keys).
  virtual Study parse(const JsonCursor& root, Study s) const;
  /// This kind's own keys (keys()), after the common ones.
  virtual void parse_keys(const JsonCursor& root, Study& s) const;
  /// "h" is a ladder of step sizes, each integrator run at every rung (convergence); else one h
  /// (per integrator, if it gives its own).
  virtual bool ladder() const { return false; }
  /// The observers a study that names none gets: energy_error and constraint_residual.
  virtual bool default_observers() const { return true; }
  /// Writes one trajectory file per task (so "record_format" applies).
  virtual bool writes_trajectories() const { return false; }
  /// May be the "of" of a sweep (each cell a study of this kind).
  virtual bool sweepable() const { return false; }
  /// The figure types it draws (the figure schema checks each figure's keys).
  virtual std::vector<std::string> figure_types() const = 0;
  /// Checks of its figures beyond the schema, before anything runs (e.g. the columns of
  /// convergence.csv a figure names).
  virtual void check_figures(const JsonCursor& root, const Study& s) const;
  /// The claim quantities (study/claims.hpp) a study of this kind may name. A name claims.cpp does
  /// not know is the kind's own: it checks its keys (check_claim_quantity) and evaluates it
  /// (claim_value).
  virtual std::vector<std::string> claim_quantities() const = 0;
  /// Checks a quantity `which` of this kind's own before anything runs (its keys and their types;
  /// the default refuses it).
  virtual void check_claim_quantity(const JsonCursor& q, const std::string& which) const;
  /// Evaluates a quantity of this kind's own on the finished run (its manifest and folder).
  virtual ClaimValue claim_value(const nlohmann::json& q, const nlohmann::json& manifest,
                                 const std::filesystem::path& folder) const;
  /// Its tasks, steps and output, estimated before anything runs (study/limits.hpp).
  virtual Workload workload(const Study& s) const;

  // ----- the plan --------------------------------------------------------------------------------
  /// The plan of a study of this kind, everything checked before anything runs (plan_study calls
  /// it): by default plan_runs (study_plan.hpp), the plan of a study that runs integrators.
  virtual StudyPlan make_plan(const Study& st) const;
  /// The units of its run, each planned (checked) before anything runs: by default the study itself.
  virtual std::vector<RunUnit> units(const Study& st) const;
  /// The tasks the manifest lists (default: each integrator once, at its h).
  virtual std::vector<Task> tasks(const Study& st) const;
  /// Tasks the manifest does not list, run after the listed ones (a convergence reference run).
  virtual std::vector<Task> extra_tasks(const Study& st) const;
  /// Its plugins besides those every study names.
  virtual std::vector<KindPlugin> plugins(const Study& st) const;
  /// Checks what it adds (its plugins bound to the system) and writes its part of the study as
  /// run into `run` (the manifest's "study").
  virtual void plan(const Study& st, StudyPlan& plan, nlohmann::json& run) const;
  /// Its figures' columns against the columns the plan says the tasks write.
  virtual void check_figure_columns(const Study& st, const std::vector<std::vector<std::string>>& columns) const;

  // ----- the run ---------------------------------------------------------------------------------
  /// Its tasks run one at a time (they are timed).
  virtual bool one_task_at_a_time() const { return false; }
  /// Runs one task into `out` (its files into run_folder/unit.folder); may throw, the caller
  /// records the error. The default runs the integrator without recording (run_plain).
  virtual void run_task(const RunUnit& unit, const Task& task, const std::filesystem::path& run_folder,
                        TaskOutcome& out, std::atomic<long>* steps) const;

  // ----- the reduction and the report ------------------------------------------------------------
  /// Reduces the run of its units (default: the one unit, reduce_unit).
  virtual KindResult reduce_run(const Study& st, const std::vector<RunUnit>& units, const Outcomes& outcomes,
                                const std::filesystem::path& staging, bool verbose) const;
  /// Its files and manifest entries from a unit whose tasks all ran (reduce_unit calls it).
  virtual void reduce(Reduction& r) const;
  /// Its sections of report.md (after Claims; default: the task table).
  virtual void report(std::ostream& out, const nlohmann::json& manifest) const;
  /// The first line `dalembert run` prints (verbose), then its tables.
  virtual void print_headline(const Study& st, const nlohmann::json& manifest, std::size_t tasks,
                              const std::filesystem::path& dir) const;
  virtual void print_tables(const nlohmann::json& manifest) const;
  /// Warnings after a complete run (a sweep's failed cells).
  virtual void warn(const Study& st, const nlohmann::json& manifest) const;

  // ----- what a sweep tabulates of a cell of this kind (sweep.csv) ---------------------------------
  /// The metrics of integrator `label` in a cell's manifest (default: its task's summaries).
  virtual std::map<std::string, double> cell_metrics(const nlohmann::json& manifest, const std::string& label) const;
  /// The metrics a cell planned as `unit` will report for integrator i (default: its summaries).
  virtual ReportedNames planned_metrics(const RunUnit& unit, std::size_t i) const;
};

/// Adds a kind to the registry (the registration line of a kind's file: DALEMBERT_STUDY_KIND).
/// A second kind of one name is a programming error: an Error naming it.
BOOST_SYMBOL_VISIBLE void register_study_kind(std::unique_ptr<StudyKind> kind);
/// The kind named `name`, or nullptr.
BOOST_SYMBOL_VISIBLE const StudyKind* find_study_kind(const std::string& name);
/// The kind of a parsed study.
BOOST_SYMBOL_VISIBLE const StudyKind& kind_of(const Study& st);
/// Every registered kind, by name.
BOOST_SYMBOL_VISIBLE std::vector<const StudyKind*> study_kinds();

/// Registers kind `Class` when the library (or test) holding this line is loaded.
#define DALEMBERT_STUDY_KIND(Class)                                                        \
  namespace {                                                                               \
  const bool dalembert_study_kind_registered_##Class =                                      \
      (::dalembert::register_study_kind(std::make_unique<Class>()), true);                  \
  }

// ----- the building blocks the shipped kinds share ------------------------------------------------

/// A name of a file, a CSV cell or a column (names.hpp: is_safe_name); `what` names it in the error.
BOOST_SYMBOL_VISIBLE std::string safe_name(const JsonCursor& c, const std::string& what);
/// A plugin named in a study: "name" or {"plugin", "params"} and `extra_keys`.
BOOST_SYMBOL_VISIBLE PluginUse parse_plugin(const JsonCursor& c, std::vector<std::string> extra_keys);
/// The study's "figures", each of one of `types` (check_figure of figure_schema.hpp checks each one).
BOOST_SYMBOL_VISIBLE nlohmann::json parse_figures(const JsonCursor& root, const std::vector<std::string>& types,
                                                  const std::vector<std::string>& labels);
BOOST_SYMBOL_VISIBLE std::vector<std::string> labels_of(const std::vector<PluginUse>& integrators);
/// The study's "record_format" (default "csv"); "npy" only where `kind` writes trajectory files.
BOOST_SYMBOL_VISIBLE std::string parse_record_format(const JsonCursor& root, const StudyKind& kind);
/// The runs a simulating study describes — system, initial state, integrators, observers, T, h,
/// recording, plugin paths, figures, claims — checked, then kind.parse_keys and the workload.
BOOST_SYMBOL_VISIBLE void parse_study_runs(const JsonCursor& root, Study& s, const StudyKind& kind);
/// The study's "integrators" (at least one): labels (unique), display names, reference flags and, in a
/// kind without a ladder of step sizes, each one's own "h".
BOOST_SYMBOL_VISIBLE void parse_integrators(const JsonCursor& ints, Study& s, const StudyKind& kind);
/// The study's "plugin_paths" (relative to the study file), each checked to exist.
BOOST_SYMBOL_VISIBLE void parse_plugin_paths(const JsonCursor& root, Study& s);
/// The common workload: every integrator at each of its step sizes; `members` runs of each task
/// (an ensemble), `runs` simulations of each (timed repeats), `record_sets` sets of recorded rows
/// per run (0: one row per task, a table entry).
BOOST_SYMBOL_VISIBLE Workload task_workload(const Study& s, double members, double runs, double record_sets);
/// Runs a task (the study's plugins, study/assembly.hpp) without recording: its final state and summaries.
BOOST_SYMBOL_VISIBLE void run_plain(const RunUnit& unit, const Task& task, TaskOutcome& out, std::atomic<long>* steps);
/// Runs a task recording its rows into its trajectory file task.file (in the study's record format).
BOOST_SYMBOL_VISIBLE void run_recorded(const RunUnit& unit, const Task& task, const std::filesystem::path& run_folder,
                                       TaskOutcome& out, std::atomic<long>* steps);
/// The plugin `u` (an integrator or a sampler) made with the plan's registry and bound to the plan's
/// system, a plugin's complaint an InputError at u.where; {"plugin", "params": every parameter}.
BOOST_SYMBOL_VISIBLE nlohmann::json plan_bound_plugin(const StudyPlan& plan, PluginKind kind, const PluginUse& u);
/// The columns of the trajectory files (and ensemble files) that the study's figures name, against
/// the columns the plan says each integrator's tasks write (study_plan.cpp).
BOOST_SYMBOL_VISIBLE void check_recorded_figure_columns(const Study& st, const std::vector<std::vector<std::string>>& columns);
/// The claims' verdicts into the manifest (evaluate_claims); claims.csv, which holds them too, into its file index.
BOOST_SYMBOL_VISIBLE void attach_claims(nlohmann::json& manifest, const std::vector<ClaimCheck>& checks,
                                        const std::filesystem::path& folder);
/// The report's task table (one row per listed task: label, h, steps, summaries).
BOOST_SYMBOL_VISIBLE void report_tasks(std::ostream& out, const nlohmann::json& manifest);
/// report.md's Markdown: a cell (numbers to 6 significant digits, '|' escaped), j[key] or null, a
/// table's head and rows.
BOOST_SYMBOL_VISIBLE std::string report_cell(const nlohmann::json& v);
BOOST_SYMBOL_VISIBLE const nlohmann::json& report_get(const nlohmann::json& j, const char* key);
BOOST_SYMBOL_VISIBLE void report_table_head(std::ostream& out, const std::vector<std::string>& names);
BOOST_SYMBOL_VISIBLE void report_table_row(std::ostream& out, const std::vector<std::string>& cells);

}  // namespace dalembert
