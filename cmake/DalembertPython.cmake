# Where the Python package dalembert is installed, and how the installed libdalembert finds it
# (its plotting program dalembert/plot.py and the figure schema dalembert/figure_types.json; see
# python_package_root() in framework/src/study/figure_schema.cpp). The pure-Python part is installed
# with every build; the compiled module _dalembert only with pybind11 (python/CMakeLists.txt).
set(DALEMBERT_PYTHON_INSTALL_DIR "lib/python3/dist-packages" CACHE STRING
    "Where `cmake --install` puts the Python package, relative to the prefix (Debian's site-packages layout)")
# The package's folder relative to the library folder: the same under every prefix
# (`cmake --install --prefix P`) unless one of the two is absolute.
if(IS_ABSOLUTE "${DALEMBERT_PYTHON_INSTALL_DIR}")
  file(RELATIVE_PATH DALEMBERT_PYTHON_FROM_LIBDIR "${CMAKE_INSTALL_FULL_LIBDIR}" "${DALEMBERT_PYTHON_INSTALL_DIR}")
elseif(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  file(RELATIVE_PATH DALEMBERT_PYTHON_FROM_LIBDIR "${CMAKE_INSTALL_LIBDIR}" "${CMAKE_INSTALL_PREFIX}/${DALEMBERT_PYTHON_INSTALL_DIR}")
else()
  file(RELATIVE_PATH DALEMBERT_PYTHON_FROM_LIBDIR "/prefix/${CMAKE_INSTALL_LIBDIR}" "/prefix/${DALEMBERT_PYTHON_INSTALL_DIR}")
endif()
