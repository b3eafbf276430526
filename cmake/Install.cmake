# The CPU backend as an installed package, for a course's own CUDA programs: `cmake --install BUILD
# --prefix PREFIX` puts libtilelab_cpurt.a and libtilelab_ptx.a under PREFIX/lib, with
#  - a CMake package, find_package(tilelab): imported targets tilelab::cpurt and tilelab::ptx that
#    carry what the libraries link with (zlib for the interpreter's tables, the C++ runtime's
#    demangler, libm, threads), and tilelab_cpu_program(TARGET), which builds a CUDA executable
#    for the CPU backend (cmake/tilelabConfig.cmake.in);
#  - a pkg-config file, tilelab-cpurt.pc, for an nvcc -cudart none command line.
# Nothing else is installed: the kit itself runs from its own folder (./tilelab).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set_target_properties(tilelab_cpurt PROPERTIES EXPORT_NAME cpurt)
set_target_properties(tilelab_ptx PROPERTIES EXPORT_NAME ptx)
install(TARGETS tilelab_cpurt tilelab_ptx EXPORT tilelabTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})

set(TILELAB_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tilelab)
install(EXPORT tilelabTargets NAMESPACE tilelab:: DESTINATION ${TILELAB_PACKAGE_DIR})
# The architecture the PTX is written for: the one the interpreter's tables were measured on.
set(TILELAB_PTX_ARCH compute_90)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/tilelabConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/tilelabConfig.cmake INSTALL_DESTINATION ${TILELAB_PACKAGE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/tilelabConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tilelabConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/tilelabConfigVersion.cmake
        DESTINATION ${TILELAB_PACKAGE_DIR})

# The .pc file finds its prefix from where it lies, so `cmake --install --prefix` anywhere works.
file(RELATIVE_PATH TILELAB_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${CMAKE_CURRENT_LIST_DIR}/tilelab-cpurt.pc.in
  ${CMAKE_CURRENT_BINARY_DIR}/tilelab-cpurt.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tilelab-cpurt.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
