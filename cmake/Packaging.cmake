# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Installed-consumer support: pkg-config file, CMake package, man pages,
# Debian packages.
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

# Reference pages: generated at build time from the header's doc comments
# (docs/man/mangen.py; the header is their only source), one per public
# function and macro family, .so pages for the other names of a family;
# and the overview, libmlx4dv(7). rdma-core's own pages (mlx4dv(7),
# mlx4dv_init_obj(3), ...) are left to libibverbs-dev.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
set(MLX4DV_MAN3_DIR ${PROJECT_BINARY_DIR}/man/man3)
set(MLX4DV_MAN_STAMP ${PROJECT_BINARY_DIR}/man/pages.stamp)
add_custom_command(OUTPUT ${MLX4DV_MAN_STAMP}
  COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/docs/man/mangen.py
    ${PROJECT_SOURCE_DIR}/include/infiniband/mlx4dv.h ${MLX4DV_MAN3_DIR}
    ${PROJECT_VERSION}
  COMMAND ${CMAKE_COMMAND} -E touch ${MLX4DV_MAN_STAMP}
  DEPENDS ${MLX4DV_HEADER_FILES}
    ${PROJECT_SOURCE_DIR}/docs/man/mangen.py
  COMMENT "Reference pages from <infiniband/mlx4dv.h>")
add_custom_target(mlx4dv_man_pages ALL DEPENDS ${MLX4DV_MAN_STAMP})
install(DIRECTORY ${MLX4DV_MAN3_DIR}/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man3
  FILES_MATCHING PATTERN "*.3")
install(FILES ${PROJECT_SOURCE_DIR}/docs/man/libmlx4dv.7
  DESTINATION ${CMAKE_INSTALL_MANDIR}/man7)

# Debian binary packages: cpack -G DEB in a build tree (configure with
# -DCMAKE_INSTALL_PREFIX=/usr for Debian's multiarch library directory).
#   libmlx4dv0      libmlx4dv.so.0 (component runtime)
#   libmlx4dv-dev   the header under <prefix>/include/mlx4dv/, libmlx4dv.so,
#                   libmlx4dv.a, pkg-config and CMake packages, man pages
#                   (component dev)
#   mlx4emu         the software ConnectX-3: mlx4emu-run, libmlx4emu.so,
#                   <mlx4emu/mlx4emu_ctl.h>, mlx4emu-run(1) and mlx4emu(7)
#                   (component emu)
# The examples (component examples) are installed by cmake --install only.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME mlx4dv)
set(CPACK_PACKAGE_VENDOR "mlx4dv")
set(CPACK_PACKAGE_CONTACT "mlx4dv maintainers <mlx4dv@localhost>")
# No CPACK_PACKAGE_DESCRIPTION_SUMMARY: CPack would put it before each
# package's own synopsis, the first line of CPACK_DEBIAN_<C>_DESCRIPTION.
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime dev emu)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME libmlx4dv0)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION
  "ConnectX-3 (mlx4) direct-verbs queue handles - shared library\nlibmlx4dv turns ibverbs QPs, CQs, SRQs and WQs into the queue handles\nthe mlx4dv.h data path drives.")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libmlx4dv-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_SHLIBDEPS OFF)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
  "libmlx4dv0 (= ${PROJECT_VERSION}), libibverbs-dev (>= 44.0)")
set(CPACK_DEBIAN_DEV_DESCRIPTION
  "ConnectX-3 (mlx4) direct-verbs data path - development files\n<infiniband/mlx4dv.h> (a superset of rdma-core's, installed under\n/usr/include/mlx4dv so that rdma-core's copy stays), the static and\nshared libmlx4dv, pkg-config and CMake packages, man pages.")

set(CPACK_DEBIAN_EMU_PACKAGE_NAME mlx4emu)
set(CPACK_DEBIAN_EMU_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_EMU_PACKAGE_DEPENDS "ibverbs-providers (>= 44.0)")
set(CPACK_DEBIAN_EMU_DESCRIPTION
  "software ConnectX-3 for testing verbs programs without the adapter\nmlx4emu-run runs a dynamically linked program with an emulated mlx4\ndevice under the unmodified libibverbs and libmlx4.")
include(CPack)
