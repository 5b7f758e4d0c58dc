# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Builds the Debian packages of this build tree with CPack, checks their
# names, dependencies and contents, installs them with dpkg into a staging
# root (its own dpkg database: the host's is not touched), then builds the
# consumers against the staged /usr (install_and_build.cmake).
# Inputs: BUILD_DIR, WORK, CONSUMER_DIR, C_COMPILER, SCRIPT_DIR, VERSION.
cmake_minimum_required(VERSION 3.18)

include(${CMAKE_CURRENT_LIST_DIR}/../harness/run_or_fail.cmake)

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/debs)
run(cpack -G DEB --config ${BUILD_DIR}/CPackConfig.cmake -B ${WORK}/debs)

# Three packages: the shared library, its -dev split, the software device.
set(debs "")
foreach(pkg libmlx4dv0 libmlx4dv-dev mlx4emu)
  file(GLOB deb ${WORK}/debs/${pkg}_${VERSION}_*.deb)
  list(LENGTH deb n)
  if(NOT n EQUAL 1)
    message(FATAL_ERROR "expected one ${pkg}_${VERSION}_*.deb, found: ${deb}")
  endif()
  set(deb_${pkg} ${deb})
  list(APPEND debs ${deb})
  run(dpkg-deb -c ${deb})
  set(contents_${pkg} "${run_out}")
  run(dpkg-deb -f ${deb} Depends)
  string(STRIP "${run_out}" depends_${pkg})
  message(STATUS "${pkg}: Depends: ${depends_${pkg}}")
endforeach()

# What goes where (dpkg-deb -c lists ./usr/... paths).
function(expect pkg regex)
  if(NOT contents_${pkg} MATCHES "${regex}")
    message(FATAL_ERROR "${pkg} lacks ${regex}:\n${contents_${pkg}}")
  endif()
endfunction()
function(refuse pkg regex)
  if(contents_${pkg} MATCHES "${regex}")
    message(FATAL_ERROR "${pkg} must not hold ${regex}:\n${contents_${pkg}}")
  endif()
endfunction()
expect(libmlx4dv0 " \\./usr/lib/[^ \n]*libmlx4dv\\.so\\.0")
refuse(libmlx4dv0 "/include/|libmlx4dv\\.a|libmlx4dv\\.so -> |/man/|\\.pc\n|/cmake/")
expect(libmlx4dv-dev " \\./usr/include/mlx4dv/infiniband/mlx4dv\\.h\n")
expect(libmlx4dv-dev " \\./usr/lib/[^ \n]*libmlx4dv\\.so -> ")
expect(libmlx4dv-dev " \\./usr/lib/[^ \n]*libmlx4dv\\.a\n")
expect(libmlx4dv-dev "/pkgconfig/mlx4dv\\.pc\n")
expect(libmlx4dv-dev "/cmake/mlx4dv/mlx4dvConfig\\.cmake\n")
expect(libmlx4dv-dev "/man3/mlx4dv_sq_ring_init\\.3")
expect(libmlx4dv-dev "/man3/mlx4dv_sq_write_send\\.3")
expect(libmlx4dv-dev "/man7/libmlx4dv\\.7")
# the pages libibverbs-dev ships stay its own
refuse(libmlx4dv-dev "/man7/mlx4dv\\.7|/man3/mlx4dv_init_obj\\.3|/man3/mlx4dv_query_device\\.3|/man3/mlx4dv_set_context_attr\\.3")
refuse(libmlx4dv-dev " \\./usr/lib/[^ \n]*libmlx4dv\\.so\\.0|/bin/|libmlx4emu|/examples/")
foreach(pkg libmlx4dv0 libmlx4dv-dev mlx4emu)
  refuse(${pkg} " \\./usr/include/infiniband/")
endforeach()
expect(mlx4emu " \\./usr/bin/mlx4emu-run\n")
expect(mlx4emu "libmlx4emu\\.so\n")
expect(mlx4emu "/man1/mlx4emu-run\\.1")
expect(mlx4emu "/man7/mlx4emu\\.7")
refuse(libmlx4dv-dev "/man1/|/man7/mlx4emu\\.7")

if(NOT depends_libmlx4dv-dev MATCHES "(^|, )libmlx4dv0 \\(= ${VERSION}\\)")
  message(FATAL_ERROR "libmlx4dv-dev must depend on libmlx4dv0 (= ${VERSION})")
endif()
if(NOT depends_libmlx4dv0 MATCHES "libibverbs1" OR NOT depends_libmlx4dv0 MATCHES "libc6")
  message(FATAL_ERROR "libmlx4dv0's Depends lacks its shared libraries")
endif()

# Install into a staging root with its own, empty dpkg database. The
# dependencies (libibverbs1...) are the host's, outside that root.
set(root ${WORK}/root)
file(MAKE_DIRECTORY ${root}/var/lib/dpkg/info ${root}/var/lib/dpkg/updates)
file(TOUCH ${root}/var/lib/dpkg/status)
run(dpkg --root=${root} --force-depends --force-script-chrootless
    --log=${WORK}/dpkg.log -i ${debs})
run(dpkg --root=${root} -l libmlx4dv0 libmlx4dv-dev mlx4emu)
message(STATUS "staged:\n${run_out}")
# man finds the launcher's pages where dpkg put them
foreach(page mlx4emu-run 7:mlx4emu)
  string(REPLACE ":" ";" args "${page}")
  run(man -M ${root}/usr/share/man -w ${args})
  if(NOT run_out MATCHES "^${root}/usr/share/man/man[17]/")
    message(FATAL_ERROR "man -w ${page} in the staged root: ${run_out}")
  endif()
endforeach()

# The consumers, built from the staged packages alone.
run(${CMAKE_COMMAND} -DSKIP_INSTALL=ON -DSYSROOT=${root} -DPREFIX=${root}/usr
    -DWORK=${WORK}/consumers -DCONSUMER_DIR=${CONSUMER_DIR}
    -DC_COMPILER=${C_COMPILER} -P ${SCRIPT_DIR}/install_and_build.cmake)
message(STATUS "${run_out}")
