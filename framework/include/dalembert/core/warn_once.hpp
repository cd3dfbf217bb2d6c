#pragma once
// A warning on stderr ("warning: <message>") printed at most once per `key` in the life of the
// process, however many registries, threads, tasks or sweep cells come across the same thing.
// Thread-safe. In an MPI job only rank 0 prints (the ranks run the same study and would repeat it).
#include <boost/config.hpp>
#include <string>

namespace dalembert {

BOOST_SYMBOL_VISIBLE void warn_once(const std::string& key, const std::string& message);

/// From now on this process prints no warning of warn_once: an MPI job's ranks other than 0.
BOOST_SYMBOL_VISIBLE void mute_warnings();

}  // namespace dalembert
