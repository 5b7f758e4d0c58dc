# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Installed-consumer support: pkg-config file, CMake package, man pages.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# rdma-core owns <prefix>/include/infiniband/mlx4dv.h; ours must live in
# a directory of its own that consumers put first on the include path.
get_filename_component(_mlx4dv_incdir_name "${MLX4DV_INSTALL_INCLUDEDIR}" NAME)
if(_mlx4dv_incdir_name STREQUAL "include" OR _mlx4dv_incdir_name STREQUAL "")
  message(FATAL_ERROR "MLX4DV_INSTALL_INCLUDEDIR (${MLX4DV_INSTALL_INCLUDEDIR}) "
    "would install over rdma-core's <infiniband/mlx4dv.h>")
endif()

set(MLX4DV_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/mlx4dv")
set(MLX4DV_PKGCONFIG_DIR "${CMAKE_INSTALL_LIBDIR}/pkgconfig")

# pkg-config: written at install time for the prefix installed to, so that
# cmake --install --prefix <dir> gives a .pc file with plain <dir> paths.
install(CODE "
  set(PC_TEMPLATE \"${CMAKE_CURRENT_LIST_DIR}/mlx4dv.pc.in\")
  set(PC_WORK \"${PROJECT_BINARY_DIR}/pkgconfig-install\")
  set(PC_LIBDIR \"${CMAKE_INSTALL_LIBDIR}\")
  set(PC_INCLUDEDIR \"${MLX4DV_INSTALL_INCLUDEDIR}\")
  set(PC_DESTDIR \"${MLX4DV_PKGCONFIG_DIR}\")
  set(PROJECT_VERSION \"${PROJECT_VERSION}\")
  include(\"${CMAKE_CURRENT_LIST_DIR}/InstallPkgConfig.cmake\")
")

# CMake package: find_package(mlx4dv) gives mlx4dv::headers,
# mlx4dv::mlx4dv and mlx4dv::mlx4dv_static.
install(EXPORT mlx4dvTargets NAMESPACE mlx4dv:: DESTINATION ${MLX4DV_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/mlx4dvConfig.cmake.in
  ${PROJECT_BINARY_DIR}/mlx4dvConfig.cmake
  INSTALL_DESTINATION ${MLX4DV_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/mlx4dvConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/mlx4dvConfig.cmake
  ${PROJECT_BINARY_DIR}/mlx4dvConfigVersion.cmake
  DESTINATION ${MLX4DV_CMAKE_DIR})

# Man pages, hand-written roff.
file(GLOB MLX4DV_MAN3 ${PROJECT_SOURCE_DIR}/docs/man/*.3)
file(GLOB MLX4DV_MAN7 ${PROJECT_SOURCE_DIR}/docs/man/*.7)
install(FILES ${MLX4DV_MAN3} DESTINATION ${CMAKE_INSTALL_MANDIR}/man3)
install(FILES ${MLX4DV_MAN7} DESTINATION ${CMAKE_INSTALL_MANDIR}/man7)
