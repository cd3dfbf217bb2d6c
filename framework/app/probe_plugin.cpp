// dalembert-probe-plugin FILE: loads one plugin file in a process of its own and reports the verdict
// on file descriptor 3 (see dalembert/host/probe.hpp). If the plugin crashes, only this process dies.
#include <cstdlib>
#include <dalembert/host/probe.hpp>
#include <string>

// dalembert-probe-plugin --construct: constructs the plugins named on stdin (probe_constructions).
int main(int argc, char** argv) {
  if (argc != 2) return 2;
  if (std::string(argv[1]) == "--construct") std::_Exit(dalembert::probe_construction_main(0, 3));
  // _Exit: the verdict is written; the plugin's static destructors are not under test.
  std::_Exit(dalembert::probe_plugin_main(argv[1], 3));
}
