# dalembert_add_plugin(NAME KIND [OUTPUT_DIRECTORY DIR] [NO_INSTALL] SOURCES...)
#
# Builds one plugin as a MODULE library named dalembert_<KIND>_<NAME>.so, compiled with hidden
# visibility, linked to the framework, and placed where the registry looks for it (next to
# libdalembert: <libdir>/dalembert/plugins), or in OUTPUT_DIRECTORY. When installed, the README.md
# of the calling folder is installed beside it as dalembert_<KIND>_<NAME>.README.md. KIND is one of system,
# integrator, impact, observer, sampler. Works in this repository and, after find_package(dalembert), in an
# out-of-tree project. Sets DALEMBERT_LAST_PLUGIN_TARGET in the caller's scope.
function(dalembert_add_plugin NAME KIND)
  cmake_parse_arguments(PARSE_ARGV 2 ARG "NO_INSTALL" "OUTPUT_DIRECTORY" "")
  set(_kinds system integrator impact observer sampler)
  if(NOT KIND IN_LIST _kinds)
    message(FATAL_ERROR "dalembert_add_plugin(${NAME}): KIND '${KIND}' is not one of ${_kinds}")
  endif()
  set(_target dalembert_${KIND}_${NAME})
  add_library(${_target} MODULE ${ARG_UNPARSED_ARGUMENTS})
  set_target_properties(${_target} PROPERTIES
    PREFIX ""
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    CXX_STANDARD 20
    CXX_STANDARD_REQUIRED ON)
  if(TARGET dalembert::dalembert)
    target_link_libraries(${_target} PRIVATE dalembert::dalembert)
  else()
    target_link_libraries(${_target} PRIVATE dalembert)
  endif()
  if(TARGET dalembert_warnings)
    target_link_libraries(${_target} PRIVATE dalembert_warnings)
  endif()
  # In this repository: the shipped plugins' shared headers (plugins/common).
  if(TARGET dalembert_plugins_common)
    target_link_libraries(${_target} PRIVATE dalembert_plugins_common)
  endif()
  # In this repository: the plugin headers' precompiled header (plugins/CMakeLists.txt), shared.
  if(TARGET dalembert_plugin_pch)
    target_precompile_headers(${_target} REUSE_FROM dalembert_plugin_pch)
  endif()
  if(ARG_OUTPUT_DIRECTORY)
    set_target_properties(${_target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${ARG_OUTPUT_DIRECTORY}")
  elseif(DEFINED DALEMBERT_PLUGIN_OUTPUT_DIRECTORY)
    set_target_properties(${_target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${DALEMBERT_PLUGIN_OUTPUT_DIRECTORY}")
  endif()
  if(DEFINED DALEMBERT_PLUGIN_SUBDIR AND NOT ARG_NO_INSTALL)
    install(TARGETS ${_target} LIBRARY DESTINATION "${DALEMBERT_PLUGIN_SUBDIR}")
    # The plugin's README (its equations and the seed it comes from) beside it: <target>.README.md.
    if(EXISTS "${CMAKE_CURRENT_SOURCE_DIR}/README.md")
      install(FILES "${CMAKE_CURRENT_SOURCE_DIR}/README.md" DESTINATION "${DALEMBERT_PLUGIN_SUBDIR}"
              RENAME "${_target}.README.md")
    endif()
    set_property(GLOBAL APPEND PROPERTY DALEMBERT_PLUGIN_TARGETS ${_target})
  endif()
  set(DALEMBERT_LAST_PLUGIN_TARGET ${_target} PARENT_SCOPE)
endfunction()
