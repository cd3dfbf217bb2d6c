# Warnings applied to every target of the project (not exported to out-of-tree plugins).
add_library(dalembert_warnings INTERFACE)
target_compile_options(dalembert_warnings INTERFACE
  $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra -Wpedantic -Wno-unused-parameter -Wno-missing-field-initializers -Wno-restrict>)
