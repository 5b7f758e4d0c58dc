# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The MLX4DV_DEBUG checks cost a release build nothing: debug_net_probe.c
# (every checked function) at -O2 without MLX4DV_DEBUG holds no check
# message and calls nothing for one; with MLX4DV_DEBUG each rule's message
# is in the object (so that this test can tell the two apart; a NULL test
# the compiler folds, because the probe used the pointer before, is not
# looked for).
# Usage: cmake -DCC=<compiler> -DINCLUDE=<dir> -DSOURCE=<probe.c>
#              -DWORK=<dir> -P debug_net_cost.cmake
cmake_minimum_required(VERSION 3.18)
file(MAKE_DIRECTORY ${WORK})
set(messages
  "mlx4dv_sq_write_\\*/mlx4dv_sq_wqe_finish"
  "one batch at a time per ring"
  "sq->head moved since mlx4dv_sq_batch_begin"
  "b was begun on another ring"
  "seg must be a 16-byte-aligned place in the SQ ring"
  "num_sge entries and a control segment must fit"
  "cq and sq must not be NULL"
  "cq and rq must not be NULL"
  "cq and srq must not be NULL"
  "sq and cqe must not be NULL"
  "cq and polled"
  "an address vector of the QP's PD"
  "a QP with its own RQ"
  "mlx4dv: %s: %s")
foreach(mode release debug)
  set(obj ${WORK}/probe-${mode}.o)
  set(def "")
  if(mode STREQUAL "debug")
    set(def -DMLX4DV_DEBUG)
  endif()
  execute_process(COMMAND ${CC} -std=c11 -O2 -Wall -Wextra -Wpedantic -Werror
                          ${def} -I${INCLUDE} -c -o ${obj} ${SOURCE}
    RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${mode} probe does not build:\n${err}")
  endif()
  file(STRINGS ${obj} strings)
  string(JOIN "\n" text ${strings})
  foreach(m IN LISTS messages)
    if(mode STREQUAL "release" AND text MATCHES "${m}")
      message(FATAL_ERROR "release object holds the check message '${m}'")
    elseif(mode STREQUAL "debug" AND NOT text MATCHES "${m}")
      message(FATAL_ERROR "debug object lacks the check message '${m}'")
    endif()
  endforeach()
endforeach()
execute_process(COMMAND nm -u ${WORK}/probe-release.o OUTPUT_VARIABLE undef)
if(undef MATCHES "fprintf|__assert_fail")
  message(FATAL_ERROR "release object calls a check's report:\n${undef}")
endif()
message(STATUS "checks: none in the release object, all in the debug one")
