# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Each part of <infiniband/mlx4dv.h> (<infiniband/mlx4dv/PART.h>) on its
# own: with the umbrella stopped after rdma-core's part
# (__MLX4DV_PART_CHECK), the part must compile warning-free with only the
# parts it includes itself; and included without the umbrella it must stop
# the build with its #error naming the umbrella.
# Usage: cmake -DCC=<compiler> -DLANG=c|c++ -DSTD=<std> -DINCLUDE=<dir>
#              -DPARTS=a|b|... -DWORK=<dir> [-DFLAGS=f1|f2...]
#              -P parts_check.cmake
cmake_minimum_required(VERSION 3.18)
string(REPLACE "|" ";" parts "${PARTS}")
string(REPLACE "|" ";" flags "${FLAGS}")
file(MAKE_DIRECTORY ${WORK})
set(warn -Wall -Wextra -Wpedantic -Werror)
if(LANG STREQUAL "c")
  set(ext c)
else()
  set(ext cc)
endif()
list(LENGTH parts n)
if(n LESS 10)
  message(FATAL_ERROR "only ${n} parts given: ${PARTS}")
endif()
set(failed "")
foreach(part IN LISTS parts)
  if(NOT EXISTS ${INCLUDE}/infiniband/mlx4dv/${part}.h)
    message(FATAL_ERROR "no part ${INCLUDE}/infiniband/mlx4dv/${part}.h")
  endif()
  set(alone ${WORK}/part_${part}.${ext})
  file(WRITE ${alone} "#define __MLX4DV_PART_CHECK 1\n"
    "#include <infiniband/mlx4dv.h>\n#include <infiniband/mlx4dv/${part}.h>\n")
  execute_process(COMMAND ${CC} -std=${STD} ${warn} -I${INCLUDE} ${flags}
                          -x ${LANG} -fsyntax-only ${alone}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    list(APPEND failed "${part}.h with only what it includes:\n${out}")
  endif()
  set(direct ${WORK}/direct_${part}.${ext})
  file(WRITE ${direct} "#include <infiniband/mlx4dv/${part}.h>\n")
  execute_process(COMMAND ${CC} -std=${STD} ${warn} -I${INCLUDE} ${flags}
                          -x ${LANG} -fsyntax-only ${direct}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(rc EQUAL 0 OR NOT out MATCHES "mlx4dv/${part}\\.h> is a part of <infiniband/mlx4dv\\.h>: include that")
    list(APPEND failed "${part}.h included directly was not refused by its #error:\n${out}")
  endif()
endforeach()
if(failed)
  string(REPLACE ";" "\n" failed "${failed}")
  message(FATAL_ERROR "${failed}")
endif()
message(STATUS "${n} parts: each compiles with what it includes, each refuses direct inclusion")
