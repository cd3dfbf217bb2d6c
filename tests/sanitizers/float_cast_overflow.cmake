# cmake -DCXX=<compiler> -DSOURCE_DIR=<source tree> -DWORK=<scratch folder> -P float_cast_overflow.cmake
#
# The sanitizer options of the asan preset (address,undefined) must report a double -> integer
# conversion out of range: GCC's -fsanitize=undefined alone does not (issue 26). Builds a program
# that converts a double read at run time (1e19, once binder_torus's "n") to a long with them, runs
# it, and fails unless UBSan reported the conversion and stopped the program. (The source is
# written here: a .cpp in tests/sanitizers/ would become a Catch2 test executable.)
include(${SOURCE_DIR}/cmake/DalembertSanitizerFlags.cmake)
dalembert_sanitizer_options("address,undefined" options)
file(MAKE_DIRECTORY ${WORK})
file(WRITE ${WORK}/float_cast_overflow.cpp [=[
#include <cstdio>
#include <cstdlib>
int main(int argc, char** argv) {
  const double n = argc > 1 ? std::strtod(argv[1], nullptr) : 1e19;
  std::printf("%ld\n", static_cast<long>(n));
}
]=])
execute_process(COMMAND ${CXX} ${options} -O1 ${WORK}/float_cast_overflow.cpp -o ${WORK}/float_cast_overflow
                RESULT_VARIABLE built ERROR_VARIABLE build_errors)
if(NOT built EQUAL 0)
  message(FATAL_ERROR "cannot build the probe with ${options}:\n${build_errors}")
endif()
execute_process(COMMAND ${WORK}/float_cast_overflow 1e19 RESULT_VARIABLE ran OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(ran EQUAL 0 OR NOT err MATCHES "1e\\+19 is outside the range of representable values")
  message(FATAL_ERROR "the sanitizer options (${options}) did not report static_cast<long>(1e19) "
                      "(exit ${ran}, printed '${out}'):\n${err}")
endif()
message(STATUS "float-cast-overflow reported: ${err}")
