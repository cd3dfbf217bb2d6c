#pragma once
// What `dalembert describe NAME` shows, as data (the CLI prints it; the Python module returns it).
// Everything about an instance comes from instantiating the plugin with its default parameters
// and binding it: a system's layout, sizes, models, diagnostics and exact solution; an
// integrator's order, the systems (models) it binds to and its published quantities; an
// observer's columns on each system.
#include <boost/config.hpp>
#include <dalembert/plugin/registry.hpp>
#include <nlohmann/json.hpp>
#include <string>

namespace dalembert {

/// One JSON object per plugin named `name` (of any kind):
///   name, kind, version, summary, seed, file, sha256 (of the file), framework {library, sha256},
///   parameters: [{name, type, default (null: required), min, max (null: unbounded), choices, doc}],
///   a system:     instance {q, v, n, r (null: no ConstrainedLagrangian), models, diagnostics,
///                 exact_solution} or instance_error;
///   an integrator: instance {order, symmetric, explicit, preserves, needs_models, binds_to,
///                 quantities, quantities_bound_to (null: bound to none)} or instance_error;
///   an observer:  columns [{columns, on: ["system + integrator", ...]}, ...] (one entry per
///                 distinct column list) and columns_error (why none is known; "" if some are).
/// An InputError suggesting the nearest name of any kind when no plugin has that name; a broken
/// plugin of that name: the registry's refusal.
BOOST_SYMBOL_VISIBLE nlohmann::json describe_plugins(const Registry& reg, const std::string& name);

}  // namespace dalembert
