#!/usr/bin/env bash
# The installed headers are the plugin API (plugin/abi.hpp): installs dalembert into a temporary
# prefix and checks that
#   * exactly framework/include/dalembert is installed (no internal header: host/, study/),
#   * no installed header includes a dalembert header that is not installed,
#   * every installed header compiles alone (included twice), against the prefix only, in a project
#     that finds the package as an out-of-tree plugin does (find_package(dalembert)).
# Arguments: SOURCE_DIR BUILD_DIR.
set -euo pipefail
src=$1 build=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
inc="$work/prefix/include"
status=0

(cd "$src/framework/include" && find dalembert -type f | sort) >"$work/expected.txt"
(cd "$inc" && find dalembert -type f | sort) >"$work/installed.txt"
if ! diff "$work/expected.txt" "$work/installed.txt" >"$work/diff.txt"; then
  echo "installed headers differ from framework/include/dalembert (< source, > installed):"
  cat "$work/diff.txt"
  status=1
fi

while read -r header; do
  while read -r included; do
    if [[ ! -f "$inc/$included" ]]; then
      echo "$header: includes <$included>, which is not installed"
      status=1
    fi
  done < <(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"](dalembert[a-z_]*\/[^>"]+)[>"].*/\1/p' "$inc/$header")
done <"$work/installed.txt"

mkdir -p "$work/project/src"
sources=()
n=0
while read -r header; do
  [[ $header == *.hpp ]] || continue
  n=$((n + 1))
  file="$work/project/src/$(echo "$header" | tr '/.' '__').cpp"
  printf '// %s alone\n#include <%s>\n#include <%s>\n' "$header" "$header" "$header" >"$file"
  sources+=("$file")
done <"$work/installed.txt"
cat >"$work/project/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.20)
project(installed_headers CXX)
find_package(dalembert REQUIRED)
add_library(installed_headers OBJECT ${sources[*]})
target_link_libraries(installed_headers PRIVATE dalembert::dalembert)
set_target_properties(installed_headers PROPERTIES CXX_STANDARD 20 CXX_STANDARD_REQUIRED ON)
EOF
# Build type None: no optimisation, no debug information (the headers only need to compile).
cmake -S "$work/project" -B "$work/project/build" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=None >/dev/null
if ! cmake --build "$work/project/build" -j2 -- -k >"$work/build.txt" 2>&1; then
  grep -E 'error|Error' "$work/build.txt" | head -40
  echo "installed headers: some do not compile alone against the prefix (above)"
  status=1
fi
if [[ $status -eq 0 ]]; then
  echo "installed headers: $n, exactly framework/include/dalembert, each compiles alone against the prefix"
fi
exit $status
