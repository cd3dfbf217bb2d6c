#pragma once
// `dalembert describe NAME`: a plugin's documentation, and what it is when instantiated with its
// default parameters — a system's layout, sizes, models, diagnostics and exact solution; an
// integrator's order and the systems (models) it binds to; an observer's columns.
#include <dalembert/host/registry.hpp>
#include <string>

namespace dalembert::cli {

/// Prints the description of every plugin named `name`; an InputError suggesting the nearest name
/// of any kind when there is none.
int describe(const std::string& name);

}  // namespace dalembert::cli
