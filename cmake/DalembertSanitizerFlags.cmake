# dalembert_sanitizer_options(<sanitizers> <out-var>): the compile and link options for
# DALEMBERT_SANITIZE (e.g. "address,undefined"). Used by DalembertSanitizers.cmake, and by the test
# tests/sanitizers/float_cast_overflow.cmake, which checks that they report a double -> integer
# conversion out of range.
function(dalembert_sanitizer_options sanitize out_var)
  set(options -fsanitize=${sanitize} -fno-omit-frame-pointer)
  if(sanitize MATCHES "undefined")
    # GCC's "undefined" group leaves out float-cast-overflow: a double converted to an integer type
    # that cannot hold it (binder_torus took n = 1e19 into an int and crashed; issue 26). A report
    # aborts the process (and so fails the test) instead of printing and continuing.
    list(APPEND options -fsanitize=float-cast-overflow -fno-sanitize-recover=undefined,float-cast-overflow)
  endif()
  set(${out_var} ${options} PARENT_SCOPE)
endfunction()
