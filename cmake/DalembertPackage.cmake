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
