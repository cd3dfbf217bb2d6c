# DALEMBERT_SANITIZE=address,undefined | thread: builds every target of the project (libdalembert,
# the plugins — MODULE libraries —, the CLI, the tests) with those sanitizers ("undefined" with
# float-cast-overflow: DalembertSanitizerFlags.cmake). Set through the
# `asan` / `tsan` presets of CMakePresets.json; empty (the default) builds without any.
#
# Directory-wide options rather than a linked interface target, so that targets which do not link
# one (plugins built by dalembert_add_plugin, test fixtures) are covered too. Must be included
# before the add_subdirectory() calls.
set(DALEMBERT_SANITIZE "" CACHE STRING "Sanitizers for every target: address,undefined | thread | empty for none")
if(DALEMBERT_SANITIZE)
  if(NOT DALEMBERT_SANITIZE MATCHES "^(address|undefined|thread)(,(address|undefined|thread))*$")
    message(FATAL_ERROR "DALEMBERT_SANITIZE='${DALEMBERT_SANITIZE}': expected e.g. address,undefined or thread")
  endif()
  include(${CMAKE_CURRENT_LIST_DIR}/DalembertSanitizerFlags.cmake)
  dalembert_sanitizer_options(${DALEMBERT_SANITIZE} _dalembert_sanitizer_options)
  add_compile_options(${_dalembert_sanitizer_options})
  add_link_options(${_dalembert_sanitizer_options})
  message(STATUS "dalembert: sanitizers ${DALEMBERT_SANITIZE} on every target")
endif()
