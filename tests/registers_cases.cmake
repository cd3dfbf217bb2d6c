# cmake -DEXE=<Catch2 test executable> -P registers_cases.cmake
#
# Fails unless EXE lists at least one test case and exits as Catch2 does after listing (exit code =
# number of names, capped at 255). catch_discover_tests registers whatever the listing printed, even
# when the executable crashed at start-up (a sanitizer exits with 1, which it reads as "1 test"):
# that silently registered 0 tests and CTest still reported 100 %. This check makes it a failure.
if(NOT EXE)
  message(FATAL_ERROR "registers_cases.cmake: pass -DEXE=<test executable>")
endif()
execute_process(COMMAND "${EXE}" --list-test-names-only
  OUTPUT_VARIABLE listing ERROR_VARIABLE errors RESULT_VARIABLE result)
string(REGEX MATCHALL "[^\n]+" names "${listing}")
list(LENGTH names count)
set(expected ${count})
if(expected GREATER 255)
  set(expected 255)
endif()
if(NOT result MATCHES "^[0-9]+$" OR NOT result EQUAL expected)
  message(FATAL_ERROR "${EXE} crashed while listing its test cases (result: ${result}, "
                      "${count} names listed)\n${errors}")
endif()
if(count EQUAL 0)
  message(FATAL_ERROR "${EXE} registers no test case\n${errors}")
endif()
# catch_discover_tests passes each name as the executable's first argument: a name starting with
# '-' is read as an option ("--out naming ..." = write the report to a file named "naming ...")
# and the whole executable runs instead of the case.
foreach(name IN LISTS names)
  if(name MATCHES "^-")
    message(FATAL_ERROR "${EXE}: test case '${name}' starts with '-', which Catch2 reads as an option")
  endif()
endforeach()
message(STATUS "${EXE}: ${count} test cases")
