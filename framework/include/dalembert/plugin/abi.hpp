#pragma once
// The promise: the installed headers, framework/include/dalembert/{math,core,schemes,plugin}, and
// the libdalembert symbols they declare. Nothing else is installed (host/ and study/ live in
// framework/internal; the shipped plugins' shared code in plugins/common), so nothing else is covered.
// The framework ABI version. Bump it whenever a change to an installed header would make an
// already-built plugin misbehave; the registry refuses plugins built for another version.
#define DALEMBERT_ABI_VERSION 9
// The plugin source API version. Bump it whenever plugin source that compiled against the previous
// version no longer compiles (or means something else), and say what to change in README.md,
// "Migration notes"; a plugin may test it with #if. Shown by `dalembert describe` and --version.
#define DALEMBERT_API_VERSION 1
namespace dalembert {
inline constexpr int abi_version = DALEMBERT_ABI_VERSION;
inline constexpr int api_version = DALEMBERT_API_VERSION;
}
