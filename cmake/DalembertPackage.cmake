# Install rules and the package config that lets out-of-tree plugins use find_package(dalembert).
include(CMakePackageConfigHelpers)
install(DIRECTORY framework/include/dalembert DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS dalembert EXPORT dalembertTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS dalembert_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS dalembert_probe_plugin RUNTIME DESTINATION ${CMAKE_INSTALL_LIBDIR}/dalembert)
install(EXPORT dalembertTargets NAMESPACE dalembert:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/dalembert)
configure_package_config_file(cmake/dalembertConfig.cmake.in
  "${CMAKE_CURRENT_BINARY_DIR}/dalembertConfig.cmake"
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/dalembert)
write_basic_package_version_file("${CMAKE_CURRENT_BINARY_DIR}/dalembertConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/dalembertConfig.cmake"
              "${CMAKE_CURRENT_BINARY_DIR}/dalembertConfigVersion.cmake"
              cmake/DalembertPlugin.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/dalembert)

# The same package in the build tree, where the install tree has it (<libdir>/cmake/dalembert next to
# libdalembert), so that find_package(dalembert) with dalembert_DIR=<build>/lib/cmake/dalembert
# builds a plugin against the build tree: the Python module's system_from_sympy finds the package of
# its own libdalembert this way, built or installed.
set(_build_package_dir "${CMAKE_LIBRARY_OUTPUT_DIRECTORY}/cmake/dalembert")
export(EXPORT dalembertTargets NAMESPACE dalembert:: FILE "${_build_package_dir}/dalembertTargets.cmake")
configure_package_config_file(cmake/dalembertConfig.cmake.in
  "${_build_package_dir}/dalembertConfig.cmake"
  INSTALL_DESTINATION "${_build_package_dir}" INSTALL_PREFIX "${CMAKE_BINARY_DIR}")
configure_file("${CMAKE_CURRENT_BINARY_DIR}/dalembertConfigVersion.cmake"
               "${_build_package_dir}/dalembertConfigVersion.cmake" COPYONLY)
configure_file(cmake/DalembertPlugin.cmake "${_build_package_dir}/DalembertPlugin.cmake" COPYONLY)
unset(_build_package_dir)
