# `cmake --install`: the pinsim command, and the model, the simulator and the
# properties as libraries with their headers and a package config, so that
# another CMake project can `find_package(pinsim)` and link pinsim::sim
# (docs/examples/consumer shows one; ctest builds it against an install).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS pinsim_model pinsim_sim pinsim_properties EXPORT pinsimTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS pinsim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
foreach(dir model sim sim/targets/model properties)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pinsim
          FILES_MATCHING PATTERN "*.h" PATTERN "tests" EXCLUDE PATTERN "targets" EXCLUDE PATTERN "testing" EXCLUDE)
endforeach()
install(EXPORT pinsimTargets NAMESPACE pinsim:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pinsim)
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/pinsimConfig.cmake.in [=[
@PACKAGE_INIT@
include(CMakeFindDependencyMacro)
find_dependency(nlohmann_json 3)
include("${CMAKE_CURRENT_LIST_DIR}/pinsimTargets.cmake")
add_library(pinsim::model ALIAS pinsim::pinsim_model)
add_library(pinsim::sim ALIAS pinsim::pinsim_sim)
add_library(pinsim::properties ALIAS pinsim::pinsim_properties)
]=])
configure_package_config_file(${CMAKE_CURRENT_BINARY_DIR}/pinsimConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/pinsimConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pinsim)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/pinsimConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/pinsimConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/pinsimConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pinsim)

add_test(NAME install_consumer
         COMMAND bash ${PROJECT_SOURCE_DIR}/docs/examples/consumer/test.sh ${CMAKE_BINARY_DIR} ${PROJECT_SOURCE_DIR}
                 "${CMAKE_CXX_FLAGS}" "${CMAKE_EXE_LINKER_FLAGS}")
set_tests_properties(install_consumer PROPERTIES LABELS sim TIMEOUT 300)
