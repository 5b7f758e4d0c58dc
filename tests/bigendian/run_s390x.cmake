# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Configures and builds the project for s390x in BINARY_DIR (tests only,
# without the software device), then runs its ctest under qemu-s390x.
# Inputs: SOURCE_DIR, BINARY_DIR, TOOLCHAIN.
cmake_minimum_required(VERSION 3.18)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}")
  endif()
endfunction()

# The arch-independent headers the cross compiler must find after its own:
# rdma-core's and cmocka's, and nothing else of the host's /usr/include.
set(host_inc ${BINARY_DIR}-host-include)
file(MAKE_DIRECTORY ${host_inc})
file(CREATE_LINK /usr/include/infiniband ${host_inc}/infiniband SYMBOLIC)
file(CREATE_LINK /usr/include/cmocka.h ${host_inc}/cmocka.h SYMBOLIC)

run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${BINARY_DIR}
    -DCMAKE_TOOLCHAIN_FILE=${TOOLCHAIN}
    -DCMAKE_BUILD_TYPE=RelWithDebInfo
    -DMLX4DV_S390X_HOST_INCLUDE=${host_inc}
    -DMLX4DV_SYSTEM_HEADER_DIR=${host_inc}
    -DMLX4DV_BUILD_EMU=OFF -DMLX4DV_BUILD_EXAMPLES=OFF -DMLX4DV_BUILD_BENCH=OFF)
run(${CMAKE_COMMAND} --build ${BINARY_DIR} --parallel 2)

# Left out: compile-only checks that run a host compiler on the source
# tree (the host build runs them, for s390x too: tests/header).
run(${CMAKE_CTEST_COMMAND} --test-dir ${BINARY_DIR} -j2 --output-on-failure
    --no-tests=error
    -E "^(completion_cxx_|reliability_header_pedantic_clang$)")
