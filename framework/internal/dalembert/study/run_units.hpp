#pragma once
// The units of one run (issue 16): a study is one unit; a sweep is one unit per cell, each the
// study with the cell's values written in. Every unit is planned (checked) before anything runs;
// their tasks form one list, executed together, and each unit is reduced into its own folder.
#include <dalembert/study/checkpoint.hpp>
#include <dalembert/study/study.hpp>
#include <dalembert/study/study_plan.hpp>
#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

namespace dalembert {

struct RunUnit {
  Study study;
  StudyPlan plan;
  std::filesystem::path folder;  // relative to the run folder: "" or "cells/cell_0003"
  std::vector<Task> tasks;       // the plan's tasks, then the convergence reference runs
  std::size_t listed = 0;        // the plan's tasks: those the manifest lists
  std::size_t first = 0;         // index of tasks[0] in the run's list
};

/// The unit of a study that is not a sweep: its plan's tasks and its reference runs.
RunUnit plan_unit(const Study& study, std::filesystem::path folder = {});

/// The task as messages name it: "FILE: /integrators/0 [label, h = 0.1, member 3]".
std::string task_name(const RunUnit& unit, const Task& task);

/// Runs one task of `unit`: its own plugin instances, its trajectory CSV (if any) written into
/// `run_folder`/unit.folder; never throws (an error is the outcome's). `steps` counts steps.
TaskOutcome run_task(const RunUnit& unit, const Task& task, const std::filesystem::path& run_folder,
                     std::atomic<long>* steps);

}  // namespace dalembert
