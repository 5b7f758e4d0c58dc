# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Installs the build tree into a fresh prefix, checks the layout, then
# builds the consumer with pkg-config and with find_package(mlx4dv).
# Inputs: BUILD_DIR, PREFIX, WORK, CONSUMER_DIR, C_COMPILER, EXTRA_FLAGS.
# With SKIP_INSTALL=ON, PREFIX is already installed (the Debian packages
# staged under SYSROOT by deb_package.cmake: PREFIX is SYSROOT/usr, and
# pkg-config reads the .pc files with PKG_CONFIG_SYSROOT_DIR=SYSROOT).
cmake_minimum_required(VERSION 3.18)

include(${CMAKE_CURRENT_LIST_DIR}/../harness/run_or_fail.cmake)

if(SKIP_INSTALL)
  file(REMOVE_RECURSE ${WORK})
else()
  file(REMOVE_RECURSE ${PREFIX} ${WORK})
endif()
file(MAKE_DIRECTORY ${WORK})
if(NOT SKIP_INSTALL)
  run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX})
endif()

# Layout: our header in its own directory; rdma-core's path and pages
# left alone.
foreach(f include/mlx4dv/infiniband/mlx4dv.h
          share/man/man7/libmlx4dv.7 share/man/man3/mlx4dv_sq_ring_init.3
          share/man/man3/mlx4dv_qp_rings_init.3)
  if(NOT EXISTS ${PREFIX}/${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
foreach(f include/infiniband/mlx4dv.h share/man/man7/mlx4dv.7
          share/man/man3/mlx4dv_init_obj.3)
  if(EXISTS ${PREFIX}/${f})
    message(FATAL_ERROR "installed over rdma-core's <prefix>/${f}")
  endif()
endforeach()
get_filename_component(source_dir ${CONSUMER_DIR}/../../.. ABSOLUTE)
# The umbrella's parts beside it, each as in the source tree.
file(GLOB parts RELATIVE ${source_dir}/include/infiniband/mlx4dv
  ${source_dir}/include/infiniband/mlx4dv/*.h)
file(GLOB installed_parts RELATIVE ${PREFIX}/include/mlx4dv/infiniband/mlx4dv
  ${PREFIX}/include/mlx4dv/infiniband/mlx4dv/*.h)
list(SORT parts)
list(SORT installed_parts)
list(LENGTH parts nparts)
if(nparts LESS 10 OR NOT parts STREQUAL installed_parts)
  message(FATAL_ERROR "parts of <infiniband/mlx4dv.h>: source ${parts}, "
    "installed ${installed_parts}")
endif()
foreach(part IN LISTS parts)
  file(SHA256 ${source_dir}/include/infiniband/mlx4dv/${part} want)
  file(SHA256 ${PREFIX}/include/mlx4dv/infiniband/mlx4dv/${part} got)
  if(NOT want STREQUAL got)
    message(FATAL_ERROR "installed ${part} differs from the source tree's")
  endif()
endforeach()
# Every public name of the installed header has its installed page.
run(${CMAKE_COMMAND}
  -DHEADER=${PREFIX}/include/mlx4dv/infiniband/mlx4dv.h
  -DMAP=${source_dir}/src/libmlx4dv.map -DMANDIR=${PREFIX}/share/man/man3
  -P ${source_dir}/tests/man/check_man_pages.cmake)
file(GLOB_RECURSE pcs ${PREFIX}/*/mlx4dv.pc)
file(GLOB_RECURSE configs ${PREFIX}/*/mlx4dvConfig.cmake)
file(GLOB_RECURSE sonames ${PREFIX}/*/libmlx4dv.so.0)
file(GLOB_RECURSE archives ${PREFIX}/*/libmlx4dv.a)
foreach(v pcs configs sonames archives)
  list(LENGTH ${v} n)
  if(NOT n EQUAL 1)
    message(FATAL_ERROR "expected one installed file for ${v}, found: ${${v}}")
  endif()
endforeach()
get_filename_component(pcdir ${pcs} DIRECTORY)
get_filename_component(libdir ${sonames} DIRECTORY)

# pkg-config: our include directory first, the three libraries in order.
set(ENV{PKG_CONFIG_PATH} ${pcdir})
if(SYSROOT)
  set(ENV{PKG_CONFIG_SYSROOT_DIR} ${SYSROOT})
endif()
run(pkg-config --cflags mlx4dv)
string(STRIP "${run_out}" cflags)
separate_arguments(cflags_list UNIX_COMMAND "${cflags}")
list(GET cflags_list 0 first)
if(NOT first STREQUAL "-I${PREFIX}/include/mlx4dv")
  message(FATAL_ERROR "pkg-config --cflags mlx4dv starts with '${first}'")
endif()
run(pkg-config --libs mlx4dv)
string(STRIP "${run_out}" libs)
if(NOT libs MATCHES "(^| )-lmlx4dv -lmlx4 -libverbs$")
  message(FATAL_ERROR "pkg-config --libs mlx4dv gives '${libs}'")
endif()
run(pkg-config --modversion mlx4dv)
string(STRIP "${run_out}" modversion)
message(STATUS "pkg-config: ${cflags} | ${libs} | ${modversion}")

# Consumer 1: a plain compiler line with pkg-config's flags.
separate_arguments(libs_list UNIX_COMMAND "${libs}")
separate_arguments(extra UNIX_COMMAND "${EXTRA_FLAGS}")
run(${C_COMPILER} -std=c11 -Wall -Wextra -Wpedantic -Werror ${extra}
    ${CONSUMER_DIR}/consumer.c ${cflags_list} ${libs_list}
    -Wl,-rpath,${libdir} -o ${WORK}/consumer_pkgconfig)

unset(ENV{PKG_CONFIG_SYSROOT_DIR})

# Consumer 2: CMake's find_package(mlx4dv), shared and static.
run(${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${WORK}/cmake-consumer
    -DCMAKE_PREFIX_PATH=${PREFIX} -DCMAKE_C_COMPILER=${C_COMPILER}
    "-DEXTRA_FLAGS=${extra}")
run(${CMAKE_COMMAND} --build ${WORK}/cmake-consumer)
foreach(exe consumer_cmake consumer_cmake_static)
  if(NOT EXISTS ${WORK}/cmake-consumer/${exe})
    message(FATAL_ERROR "${exe} was not built")
  endif()
  file(COPY ${WORK}/cmake-consumer/${exe} DESTINATION ${WORK})
endforeach()

# The launcher, as the package exports it (mlx4dv::mlx4emu-run).
set(launcher_file ${WORK}/cmake-consumer/launcher.txt)
if(NOT EXISTS ${launcher_file})
  message(FATAL_ERROR "find_package(mlx4dv) defined no mlx4dv::mlx4emu-run")
endif()
file(READ ${launcher_file} launcher)
file(REAL_PATH ${PREFIX}/bin/mlx4emu-run want)
file(REAL_PATH "${launcher}" got)
if(NOT got STREQUAL want)
  message(FATAL_ERROR "mlx4dv::mlx4emu-run is '${launcher}', not ${want}")
endif()
