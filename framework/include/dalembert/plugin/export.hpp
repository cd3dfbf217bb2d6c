#pragma once
// Include in exactly one source file of a plugin and write
//
//   DALEMBERT_PLUGIN(describe)
//
// where `dalembert::PluginDescriptor describe()` returns the plugin's metadata and factory.
// Exports the ABI version as a plain C symbol (checked before anything else is touched) and the
// descriptor function through a Boost.DLL alias.
#include <boost/dll/alias.hpp>
#include <dalembert/plugin/abi.hpp>
#include <dalembert/plugin/descriptor.hpp>

#define DALEMBERT_PLUGIN(describe_fn)                                                   \
  extern "C" BOOST_SYMBOL_EXPORT const int dalembert_plugin_abi = DALEMBERT_ABI_VERSION; \
  BOOST_DLL_ALIAS(describe_fn, dalembert_plugin_describe)
