# DALEMBERT_SANITIZE=address,undefined | thread: builds every target of the project (libdalembert,
# the plugins — MODULE libraries —, the CLI, the tests) with those sanitizers. Set through the
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
  add_compile_options(-fsanitize=${DALEMBERT_SANITIZE} -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${DALEMBERT_SANITIZE})
  if(DALEMBERT_SANITIZE MATCHES "undefined")
    # A UBSan report aborts the process (and so fails the test) instead of printing and continuing.
    add_compile_options(-fno-sanitize-recover=undefined)
  endif()
  message(STATUS "dalembert: sanitizers ${DALEMBERT_SANITIZE} on every target")
endif()
