# cmake -DCXX=<compiler> -DSOURCE=<file.cpp> -DFLAGS=<flags, '|'-separated> [-DEXPECT=<text> -DMAX_LINES=<n>]
#     -P compile_fails.cmake
#
# Compiles SOURCE (syntax only) with FLAGS, the include directories and definitions of the project.
# Without EXPECT it must compile. With EXPECT it must fail with diagnostics that contain EXPECT and
# are at most MAX_LINES lines: a model that breaks a rule of core/model_rules.hpp gets that rule's
# one message, not a page of template errors (issue 26 item 7).
foreach(_var CXX SOURCE FLAGS)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "compile_fails.cmake: pass -D${_var}=...")
  endif()
endforeach()
string(REPLACE "|" ";" _flags "${FLAGS}")
execute_process(COMMAND "${CXX}" ${_flags} -fsyntax-only "${SOURCE}"
  OUTPUT_VARIABLE _out ERROR_VARIABLE _err RESULT_VARIABLE _result)
string(APPEND _err "${_out}")
if(NOT DEFINED EXPECT)
  if(NOT _result EQUAL 0)
    message(FATAL_ERROR "${SOURCE} (${FLAGS}) does not compile:\n${_err}")
  endif()
  message(STATUS "${SOURCE} compiles")
  return()
endif()
if(_result EQUAL 0)
  message(FATAL_ERROR "${SOURCE} (${FLAGS}) compiled; expected it to fail with: ${EXPECT}")
endif()
string(REGEX MATCHALL "[^\n]*\n" _lines "${_err}")
list(LENGTH _lines _count)
string(FIND "${_err}" "${EXPECT}" _at)
if(_at EQUAL -1)
  message(FATAL_ERROR "the diagnostics of ${SOURCE} do not contain '${EXPECT}' (${_count} lines):\n${_err}")
endif()
if(_count GREATER MAX_LINES)
  message(FATAL_ERROR "the diagnostics of ${SOURCE} are ${_count} lines, more than ${MAX_LINES}:\n${_err}")
endif()
message(STATUS "${SOURCE}: ${_count} lines of diagnostics, containing '${EXPECT}'")
