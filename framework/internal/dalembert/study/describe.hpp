#pragma once
// What `dalembert describe NAME` shows, as data (the CLI prints it; the Python module returns it).
// Everything about an instance comes from instantiating the plugin with its default parameters
// and binding it: a system's layout, sizes, models, diagnostics and exact solution; an
// integrator's order, what it declares it needs (PluginDescriptor::needs), the systems that offer
// it and its published quantities; an observer's columns on each system.
#include <boost/config.hpp>
#include <dalembert/host/registry.hpp>
#include <nlohmann/json.hpp>
#include <string>

namespace dalembert {

/// One JSON object per plugin named `name` (of any kind):
///   name, kind, version, summary, seed, file, sha256 (of the file), framework {library, sha256},
///   parameters: [{name, type, default (null: required), min, max (null: unbounded), choices, doc}],
///   a system:     instance {q, v, n, r (null: no ConstrainedLagrangian), models, capabilities
///                 (models and properties, plugin/needs.hpp), diagnostics, exact_solution} or
///                 instance_error;
///   any other:    needs (what it declares it needs of a system with its default parameters) or,
///                 when that cannot be said without parameters, needs = null and needs_error;
///   an integrator: instance {order, symmetric, explicit, preserves, binds_to (the systems that
///                 meet its needs), quantities, quantities_bound_to (null: bound to none)} or
///                 instance_error;
///   an observer:  columns [{columns, on: ["system + integrator", ...]}, ...] (one entry per
///                 distinct column list) and columns_error (why none is known; "" if some are).
/// An InputError suggesting the nearest name of any kind when no plugin has that name; a broken
/// plugin of that name: the registry's refusal.
BOOST_SYMBOL_VISIBLE nlohmann::json describe_plugins(const Registry& reg, const std::string& name);

}  // namespace dalembert
