# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Runs at install time: writes mlx4dv.pc for the prefix actually installed
# to (cmake --install --prefix ... included), so pkg-config prints plain
# absolute paths. Inputs: PC_TEMPLATE, PC_WORK, PC_LIBDIR, PC_INCLUDEDIR,
# PC_DESTDIR (relative to the prefix, or absolute), PROJECT_VERSION.
# Paths under the prefix are written as ${prefix}/..., others as given.
foreach(v PC_LIBDIR PC_INCLUDEDIR PC_DESTDIR)
  if(IS_ABSOLUTE "${${v}}")
    set(_${v} "${${v}}")
    set(_pc_${v} "${${v}}")
  else()
    set(_${v} "${CMAKE_INSTALL_PREFIX}/${${v}}")
    set(_pc_${v} "\${prefix}/${${v}}")
  endif()
endforeach()
set(MLX4DV_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
set(MLX4DV_PC_LIBDIR "${_pc_PC_LIBDIR}")
set(MLX4DV_PC_INCLUDEDIR "${_pc_PC_INCLUDEDIR}")
configure_file("${PC_TEMPLATE}" "${PC_WORK}/mlx4dv.pc" @ONLY)
file(INSTALL DESTINATION "${_PC_DESTDIR}" TYPE FILE FILES "${PC_WORK}/mlx4dv.pc")
