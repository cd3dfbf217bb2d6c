#pragma once
// The plan of a study: everything checked before any output exists — plugins and their
// parameters, the system's layout against the initial state, the constraints, model
// compatibility of every integrator, observer, sampler and impact map, the initial energy — and
// the list of tasks the run will execute, the columns and summaries they will write, and the
// study's claims against them. A sweep plans every cell this way before it starts.
#include <boost/config.hpp>
#include <dalembert/core/integrator.hpp>
#include <dalembert/core/system.hpp>
#include <dalembert/host/registry.hpp>
#include <dalembert/study/reported_names.hpp>
#include <dalembert/study/study.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace dalembert {

/// One unit of parallel work: one integrator at one step size (one ensemble member).
struct Task {
  std::size_t integrator = 0;  // index into study.integrators
  std::string label;
  double h = 0.0;
  long steps = 0;
  std::string file;   // trajectory CSV ("" for none)
  long member = -1;   // ensemble member (-1: not an ensemble task)
  int reference = 0;  // a convergence reference run: 1 at its h, 2 at twice its h (its error estimate)
};

struct StudyPlan {
  std::unique_ptr<Registry> registry;   // with the study's plugin paths
  std::unique_ptr<System> system;       // bound once, for checks and the reference
  State initial;                        // projected onto the constraints if asked
  /// With holonomic constraints and "project": true, how far the projection moved the initial
  /// state: {"q": ‖Δq‖∞, "v": ‖Δv‖∞} (the manifest's initial.projection_distance); null otherwise.
  nlohmann::json projection_distance;
  std::vector<Traits> traits;           // per integrator
  nlohmann::json study_run;             // the study as it will run, every default filled in
  std::vector<Task> tasks;
  std::vector<std::vector<std::string>> columns;  // per integrator: "t" and the observers' columns
  std::vector<ReportedNames> summaries;           // per integrator: the task summaries (a run of no steps)
};

/// The largest |A(q)v| (System::constraint_residual) a given state may have and count as on the
/// constraints: 1e-12 (1 + |v|∞). A study's initial state and `dalembert check --state` are held to it.
BOOST_SYMBOL_VISIBLE double constraint_tolerance(const State& s);

/// How far a state is off the constraints of `system`, against the tolerances of a state on them:
/// ‖A(q)v‖∞ (System::constraint_residual, constraint_tolerance) and, for a system with holonomic
/// constraints g(q) = 0 (issue 28), ‖g(q)‖∞ (holonomic_tolerance).
struct ConstraintViolation {
  double velocity = 0.0, velocity_tolerance = 0.0;
  int holonomic = 0;  ///< k: the number of holonomic constraints (0: no g)
  double position = 0.0, position_tolerance = 0.0;
  bool ok() const { return velocity <= velocity_tolerance && (holonomic == 0 || position <= position_tolerance); }
  /// The residuals with their tolerances, e.g. "|g(q)| = 0.003 > 1e-12, |A(q)v| = 0 <= 1e-12" (|g| only with g).
  std::string residuals() const;
};
BOOST_SYMBOL_VISIBLE ConstraintViolation constraint_violation(const System& system, const State& s);

/// A registry that searches the study's plugin_paths first.
BOOST_SYMBOL_VISIBLE std::unique_ptr<Registry> study_registry(const Study& study);

/// Constructs every plugin instance the runs of `studies` make (system, integrators, reference,
/// observers, sampler, impact map) with their parameters in one probe process (host/probe.hpp):
/// a constructor that crashes is a PluginError naming plugin, file and parameters. plan_study
/// calls it; a sweep first for all its cells at once.
BOOST_SYMBOL_VISIBLE void probe_study_plugins(const Registry& registry, const std::vector<const Study*>& studies);

/// The derivative check of a Lagrangian system at one state (study/derivative_check.hpp; no RK4 run):
/// an InputError at the study's system naming the first finding. Every study that binds a system
/// runs it at its initial state unless "check_derivatives" is false.
BOOST_SYMBOL_VISIBLE void check_system_derivatives(const Study& study, const System& system, const State& s);

/// Checks `study` and lists its tasks; an InputError naming the file, JSON path and value of the
/// first problem. Not for sweeps (see plan_sweep, which plans each of its cells). The study's kind
/// makes the plan (StudyKind::make_plan); the simulating kinds' is plan_runs.
BOOST_SYMBOL_VISIBLE StudyPlan plan_study(const Study& study);
/// The plan of a study that runs integrators from an initial state (every shipped kind but
/// linear_stability): the system bound, the initial state on the constraints, the derivatives
/// checked, every integrator assembled with the observers, the columns and summaries, the kind's
/// part (StudyKind::plan), the tasks and the claims' targets.
BOOST_SYMBOL_VISIBLE StudyPlan plan_runs(const Study& study);

}  // namespace dalembert
