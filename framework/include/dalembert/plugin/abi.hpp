#pragma once
// The framework ABI version. Bump it whenever a change to an interface in core/ or plugin/ would
// make an already-built plugin misbehave; the registry refuses plugins built for another version.
#define DALEMBERT_ABI_VERSION 7
namespace dalembert {
inline constexpr int abi_version = DALEMBERT_ABI_VERSION;
}
